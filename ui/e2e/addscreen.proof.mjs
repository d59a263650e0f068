// The low-code proof (run by e2e/TestAddAScreenInTheBrowser against `serve --watch` with a copy
// of the metadata in METADATA_DIR): a new screen is added by writing files only, the README's
// "Add a screen" recipe, while the server runs. A view over an existing table, its form, its
// screen with a menu entry and their labels in four languages; then the screen is opened in
// Swedish from the menu, filtered, sorted, given a row through its form, edited in a cell and
// exported. No build step runs between writing the files and using the screen.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  TIMEOUT, afterGrid, assert, byTestId, callApi, clearToasts, collectProblems, createChecks, filterBy, firstTwoLines,
  launchBrowser, openPage, shot, signIn,
} from './lib.mjs';

const DIR = process.env.METADATA_DIR;
assert(DIR, 'METADATA_DIR is not set');
const { check, run } = createChecks({ describe: firstTwoLines });

const VIEW = `
  VW_DiallingCodes:
    source: country
    table: country
    key: CountryID
    version: UpdatedOn
    screen: 10
    defaultSort: {field: CountryName, order: asc}
    export: Dialling_Codes
    columns:
      - {field: CountryCode, column: country_code, type: text, maxLength: 3}
      - {field: CountryName, column: country_name, type: text, maxLength: 100}
      - {field: CountryTelCode, column: country_tel_code, type: text, editable: true, maxLength: 10, transform: [trim]}
      - {field: UpdatedOn, column: updated_on, type: datetime, hidden: true}
      - {field: CountryID, column: id, type: int, hidden: true}
`;
const SCREEN = `
  dialling-codes:
    screen: 10
    title: screens.diallingCodes.title
    menu: {group: settings, icon: pi-phone, after: ras-settings}
    tabs:
      - {id: codes, title: tabs.diallingCodes, view: VW_DiallingCodes, add: diallingCode, addText: actions.addDiallingCode}
`;
const FORM = `# The dialling-codes screen's add dialog (written by the low-code proof).
resource: DiallingCode
table: country
key: {field: CountryID, column: id}
screen: 10
width: 500
view: VW_DiallingCodes
success: messages.diallingCodeAdded
fields:
  - {field: countryCode, column: country_code, type: text, required: true, maxLength: 3, transform: [trim, upper]}
  - {field: countryName, column: country_name, type: text, required: true, maxLength: 100, transform: [trim]}
  - {field: countryTelCode, column: country_tel_code, type: text, maxLength: 10, transform: [trim]}
`;
// Per language: the labels under each top-level key of labels/<lang>.yaml.
const LABELS = {
  en: { screens: 'Dialling codes', tab: 'Codes', add: 'Add code', added: 'Dialling code added',
    fields: ['Country code', 'Country', 'Dialling code'], form: ['Add a dialling code', 'Code', 'Country', 'Dialling code'] },
  sv: { screens: 'Riktnummer', tab: 'Nummer', add: 'Lägg till nummer', added: 'Riktnumret har lagts till',
    fields: ['Landskod', 'Land', 'Riktnummer'], form: ['Lägg till ett riktnummer', 'Kod', 'Land', 'Riktnummer'] },
  es: { screens: 'Prefijos telefónicos', tab: 'Prefijos', add: 'Añadir prefijo', added: 'Prefijo añadido',
    fields: ['Código de país', 'País', 'Prefijo'], form: ['Añadir un prefijo', 'Código', 'País', 'Prefijo'] },
  pt: { screens: 'Indicativos telefónicos', tab: 'Indicativos', add: 'Adicionar indicativo', added: 'Indicativo adicionado',
    fields: ['Código do país', 'País', 'Indicativo'], form: ['Adicionar um indicativo', 'Código', 'País', 'Indicativo'] },
};

/** Writes text into file right after the first line that is exactly `mark`. */
function insertAfter(file, mark, text) {
  const s = readFileSync(file, 'utf8');
  const at = s.indexOf(`\n${mark}\n`);
  assert(at >= 0, `${file} has no line ${mark}`);
  const cut = at + mark.length + 2;
  writeFileSync(file, s.slice(0, cut) + text + s.slice(cut));
}

const q = (s) => JSON.stringify(s);

function writeScreenFiles() {
  for (const [lang, l] of Object.entries(LABELS)) {
    const file = path.join(DIR, 'labels', `${lang}.yaml`);
    insertAfter(file, 'views:', `  VW_DiallingCodes:\n    fields: {CountryCode: ${q(l.fields[0])}, CountryName: ${q(l.fields[1])}, CountryTelCode: ${q(l.fields[2])}}\n`);
    insertAfter(file, 'forms:', `  diallingCode:\n    title: ${q(l.form[0])}\n    fields: {countryCode: ${q(l.form[1])}, countryName: ${q(l.form[2])}, countryTelCode: ${q(l.form[3])}}\n`);
    insertAfter(file, 'screens:', `  diallingCodes: {title: ${q(l.screens)}}\n`);
    insertAfter(file, 'tabs:', `  diallingCodes: ${q(l.tab)}\n`);
    insertAfter(file, 'actions:', `  addDiallingCode: ${q(l.add)}\n`);
    insertAfter(file, 'messages:', `  diallingCodeAdded: ${q(l.added)}\n`);
  }
  writeFileSync(path.join(DIR, 'forms', 'diallingCode.yaml'), FORM);
  // views.yaml last: the reload that takes the screen finds its labels and form already there.
  insertAfter(path.join(DIR, 'views.yaml'), 'screens:', SCREEN.slice(1));
  insertAfter(path.join(DIR, 'views.yaml'), 'views:', VIEW.slice(1));
}

async function main() {
  const browser = await launchBrowser();
  const sv = LABELS.sv;
  const suffix = Date.now().toString(36).slice(-3).toUpperCase();
  const code = `X${suffix.slice(-2)}`;
  try {
    const { context, page } = await openPage(browser, { viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    const problems = collectProblems(page, () => false);
    await signIn(page);

    await check('before: the server lists no such screen', async () => {
      const screens = (await callApi(page, 'GET', '/meta/screens')).body;
      assert(!screens.data.some((s) => s.route === 'dialling-codes'), 'the screen is there already');
    });

    await check('the files are written; the running server takes them (--watch), no build in between', async () => {
      writeScreenFiles();
      // The condition: the running server lists the new screen. Each look asks it once more
      // (a look starts a request when none is under way and reads the last answer).
      await page.waitForFunction(
        () => {
          const w = /** @type {any} */ (window);
          if (!w.screensProbe) {
            w.screensProbe = fetch('/api/meta/screens', { headers: { Authorization: `Bearer ${localStorage.getItem('token')}` } })
              .then((answer) => answer.json())
              .then((body) => {
                w.screensListed = body.data.some((s) => s.route === 'dialling-codes');
              })
              .finally(() => {
                w.screensProbe = null;
              });
          }
          return w.screensListed === true;
        },
        null,
        { timeout: 4 * TIMEOUT, polling: 250 },
      );
      const labels = (await callApi(page, 'GET', '/meta/labels/sv')).body;
      assert(labels.data.screens.diallingCodes.title === sv.screens, `Swedish labels ${JSON.stringify(labels.data.screens.diallingCodes)}`);
    });

    await check('in Swedish: the menu entry under Settings after Countries, the title and the column headers', async () => {
      await byTestId(page, 'language-button').click();
      await byTestId(page, 'language-option-sv').click();
      // A fresh page load: the screen list and the labels are read anew, as a user's next visit does.
      await page.reload();
      await byTestId(page, 'menu-group-toggle-settings').click();
      const links = await byTestId(page, 'menu-group-settings').locator('a').evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.textContent.trim()]));
      const at = links.findIndex(([href]) => href.endsWith('/dashboard/ras-settings'));
      assert(at >= 0 && links[at + 1]?.[0].endsWith('/dashboard/dialling-codes') && links[at + 1]?.[1] === sv.screens, `menu ${JSON.stringify(links)}`);
      await afterGrid(page, () => byTestId(page, 'menu-group-settings').locator('a[href$="/dashboard/dialling-codes"]').click());
      await byTestId(page, 'grid-VW_DiallingCodes').waitFor();
      const title = await byTestId(page, 'screen-title').textContent();
      assert(title === sv.screens, `title ${title}`);
      const headers = await byTestId(page, 'grid-VW_DiallingCodes').locator('.rdg-header-row .grid-header__label').allTextContents();
      assert(JSON.stringify(headers) === JSON.stringify(sv.fields), `headers ${JSON.stringify(headers)}`);
      await shot(page, 'addscreen-sv');
    });

    await check('a row through the new form, in Swedish', async () => {
      await byTestId(page, 'grid-add').click();
      const dialog = byTestId(page, 'form-dialog-diallingCode');
      await dialog.waitFor();
      const header = await dialog.locator('.p-dialog-title').textContent();
      assert(header === sv.form[0], `dialog title ${header}`);
      await page.locator('#root_countryCode').fill(code.toLowerCase());
      await page.locator('#root_countryName').fill(`Provland ${suffix}`);
      await page.locator('#root_countryTelCode').fill('+999');
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/DiallingCode') && r.request().method() === 'POST'),
        byTestId(page, 'form-save').click(),
      ]);
      assert(response.status() === 201, `POST /api/DiallingCode answered ${response.status()}: ${await response.text()}`);
      const toast = page.locator('.p-toast-message-success').last();
      await toast.waitFor();
      assert((await toast.textContent()).includes(sv.added), `toast ${await toast.textContent()}`);
      await dialog.waitFor({ state: 'detached' });
      await clearToasts(page);
    });

    await check('filter and sort the new grid', async () => {
      await filterBy(page, 'CountryName', 'Provland');
      await page.waitForFunction(() => /^1\D/.test(document.querySelector('[data-testid="grid-total"]')?.textContent ?? ''), null, { timeout: TIMEOUT });
      const row = await byTestId(page, 'grid-VW_DiallingCodes').locator('.rdg-row').first().textContent();
      assert(row.includes(code) && row.includes('+999'), `row ${row}`);
      const orders = [];
      for (let i = 0; i < 2; i++) {
        const body = await afterGrid(page, () => byTestId(page, 'header-CountryCode').click());
        orders.push(`${body.SortField} ${body.SortOrder}`);
      }
      assert(JSON.stringify(orders) === JSON.stringify(['CountryCode asc', 'CountryCode desc']), `orders ${orders}`);
    });

    await check('edit the dialling code in its cell: saved through the grid with its version', async () => {
      const header = byTestId(page, 'grid-VW_DiallingCodes').locator('.rdg-header-row .rdg-cell', { has: page.locator('[data-testid="header-CountryTelCode"]') });
      const col = Number(await header.getAttribute('aria-colindex'));
      const cell = byTestId(page, 'grid-VW_DiallingCodes').locator('.rdg-row', { hasText: code }).locator(`.rdg-cell[aria-colindex="${col}"]`);
      await cell.dblclick();
      const editor = byTestId(page, 'editor-CountryTelCode');
      await editor.waitFor();
      await editor.fill(' +998 ');
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/grid/row') && r.request().method() === 'PUT'),
        editor.press('Enter'),
      ]);
      assert(response.status() === 200, `PUT answered ${response.status()}: ${await response.text()}`);
      const body = JSON.parse(response.request().postData());
      assert(body.ViewName === 'VW_DiallingCodes' && body.Version, `body ${JSON.stringify(body)}`);
      const page1 = (await callApi(page, 'POST', '/grid', { ViewName: 'VW_DiallingCodes', PageSize: 5, Filters: [{ field: 'CountryCode', op: 'equals', value: code }] })).body;
      assert(page1.data.dataList[0]?.CountryTelCode === '+998', `saved ${JSON.stringify(page1.data.dataList)}`);
    });

    await check('export: Dialling_Codes.csv with the Swedish headers and the edited row', async () => {
      const exportMenu = byTestId(page, 'grid-export');
      await exportMenu.locator('button').last().click(); // the menu of formats
      const [file] = await Promise.all([page.waitForEvent('download'), page.locator('.p-menuitem', { hasText: 'CSV' }).first().click()]);
      assert(file.suggestedFilename() === 'Dialling_Codes.csv', `file name ${file.suggestedFilename()}`);
      const text = readFileSync(await file.path(), 'utf8').replace(/^\uFEFF/, '');
      const [head, ...rows] = text.trim().split(/\r?\n/);
      assert(head === sv.fields.join(','), `header ${head}`);
      // (a leading + is quoted so a spreadsheet does not read it as a formula)
      assert(rows.some((r) => r.startsWith(`${code},Provland ${suffix},'+998`)), `rows ${rows.join(' | ')}`);
    });

    await check('no page errors', async () => {
      assert(problems.length === 0, problems.join('\n'));
    });
    await context.close();
  } finally {
    await browser.close();
  }
}

await run(main);
