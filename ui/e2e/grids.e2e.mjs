// Browser test of the metadata screens (grids, form dialogs, inline edit, export, actions) in
// headless Debian Chromium (playwright-core, no browser download). Run against a server that
// serves the built UI:
//   BASE_URL=http://127.0.0.1:8080 ADMIN_PASSWORD=... node e2e/grids.e2e.mjs
// Prints one line per check and a closing "e2e: N passed, M failed"; exits non-zero on a failure.
import { readFileSync } from 'node:fs';
import {
  TIMEOUT,
  afterGrid, assert, byTestId, clearToasts, collectProblems, createChecks, filterBy, firstTwoLines, launchBrowser,
  loadTranslations, openPage, openScreen, shot, signIn,
} from './lib.mjs';

const en = loadTranslations('en');

const { check, run } = createChecks({ describe: firstTwoLines });

/** Waits for a toast of the given severity and returns its text; closes it. */
async function toastText(page, severity) {
  const toast = page.locator(`.p-toast-message-${severity}`).last();
  await toast.waitFor();
  const text = (await toast.textContent()) ?? '';
  return text;
}

/** The grid cell of `field` in the row whose `keyField` cell shows `keyText`. */
function cellIn(page, viewName, rowText, columnIndex) {
  return byTestId(page, `grid-${viewName}`).locator('.rdg-row', { hasText: rowText }).locator(`.rdg-cell[aria-colindex="${columnIndex}"]`);
}

async function columnIndex(page, viewName, field) {
  const header = byTestId(page, `grid-${viewName}`).locator('.rdg-header-row .rdg-cell', { has: page.locator(`[data-testid="header-${field}"]`) });
  return Number(await header.getAttribute('aria-colindex'));
}

async function main() {
  const browser = await launchBrowser();
  const suffix = Date.now().toString(36).slice(-4).toUpperCase();
  try {
    const { context, page } = await openPage(browser, { viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    // The browser logs every 4xx/5xx answer; the reprocess and sync actions may answer an error.
    const problems = collectProblems(
      page,
      (msg) => /status of (4|5)\d\d/.test(msg.text()) && /\/api\/(bank\/reprocess|CurrencyExchangeRate\/sync)$/.test(msg.location().url ?? ''),
      { withUrl: true },
    );

    await signIn(page);
    const code = `q${suffix.slice(-2).toLowerCase()}`; // typed lower case, stored upper case
    const CODE = code.toUpperCase();
    const name = `Zeta ${suffix} Land`;

    await check('country list (ras-settings): title, grid columns from metadata, default sort', async () => {
      await openScreen(page, 'ras-settings', 'VW_TblMasterCountry');
      const title = await byTestId(page, 'screen-title').textContent();
      assert(title === en.screens.rasSettings.title, `title ${title}`);
      const headers = await byTestId(page, 'grid-VW_TblMasterCountry').locator('.rdg-header-row .grid-header__label').allTextContents();
      const f = en.views.VW_TblMasterCountry.fields;
      const expected = [f.CountryCode, f.CountryName, f.SubCountryCode, f.Trigram, f.CountryTelCode];
      assert(JSON.stringify(headers) === JSON.stringify(expected), `headers ${JSON.stringify(headers)}`);
    });

    await check('add a country through the dialog: 500px, code comes back upper case, success toast', async () => {
      await byTestId(page, 'grid-add').click();
      const dialog = byTestId(page, 'form-dialog-country');
      await dialog.waitFor();
      await page.locator('#root_countryCode').waitFor();
      const width = await dialog.evaluate((el) => el.offsetWidth);
      assert(width === 500, `dialog width ${width}`);
      const header = await dialog.locator('.p-dialog-title').textContent();
      assert(header === en.forms.country.title, `dialog title ${header}`);
      const labels = await dialog.locator('label').allTextContents();
      assert(labels.some((l) => l.includes(en.forms.country.fields.countryCode) && l.includes('*')), `labels ${labels}`);
      // Save with nothing typed: the required-fields message, the dialog stays.
      await byTestId(page, 'form-save').click();
      assert((await toastText(page, 'error')).includes(en.BANK_SETTINGS.REQUIRED_FIELDS), 'no required-fields toast');
      await clearToasts(page);
      await page.locator('#root_countryCode').fill(code);
      await page.locator('#root_countryName').fill(`  ${name} `);
      await page.locator('#root_trigram').fill('zql');
      await shot(page, 'country-dialog');
      const [response, reload] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/Country') && r.request().method() === 'POST'),
        afterGrid(page, () => byTestId(page, 'form-save').click()),
      ]);
      assert(reload.PageNumber === 0, `grid reloaded at offset ${reload.PageNumber}`);
      assert(response.status() === 201, `POST /api/Country answered ${response.status()}`);
      const sent = JSON.parse(response.request().postData());
      assert(sent.countryCode === CODE && sent.countryName === name && sent.trigram === 'ZQL', `sent ${JSON.stringify(sent)}`);
      assert((await toastText(page, 'success')).includes(en.messages.countryAdded), 'no success toast');
      await dialog.waitFor({ state: 'detached' });
      await clearToasts(page);
    });

    await check('filter by the new code: one row, with the code upper case', async () => {
      await filterBy(page, 'CountryCode', CODE);
      await page.waitForFunction(() => document.querySelector('[data-testid="grid-total"]')?.textContent === '1 row', null, { timeout: TIMEOUT });
      const rows = byTestId(page, 'grid-VW_TblMasterCountry').locator('.rdg-row');
      assert((await rows.count()) === 1, `rows ${await rows.count()}`);
      const text = await rows.first().textContent();
      assert(text.includes(CODE) && text.includes(name), `row ${text}`);
      assert(await byTestId(page, 'filter-CountryCode').evaluate((el) => el.classList.contains('is-active')), 'filter icon not active');
      await shot(page, 'country-filtered');
    });

    await check('edit the name inline: saved with its version, still there after a reload', async () => {
      const col = await columnIndex(page, 'VW_TblMasterCountry', 'CountryName');
      const cell = cellIn(page, 'VW_TblMasterCountry', CODE, col);
      await cell.dblclick();
      const editor = byTestId(page, 'editor-CountryName');
      await editor.waitFor();
      await editor.fill(`${name} Edited`);
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/grid/row') && r.request().method() === 'PUT'),
        editor.press('Enter'),
      ]);
      const body = JSON.parse(response.request().postData());
      assert(response.status() === 200, `PUT answered ${response.status()}: ${await response.text()}`);
      assert(body.ViewName === 'VW_TblMasterCountry' && body.Values.CountryName === `${name} Edited` && body.Version, `body ${JSON.stringify(body)}`);
      await openScreen(page, 'ras-settings', 'VW_TblMasterCountry');
      await filterBy(page, 'CountryCode', CODE);
      await byTestId(page, 'grid-VW_TblMasterCountry').locator('.rdg-row', { hasText: `${name} Edited` }).waitFor();
    });

    await check('export xlsx: Country_List.xlsx, a zip file', async () => {
      const [file] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'grid-export').locator('button').first().click()]);
      assert(file.suggestedFilename() === 'Country_List.xlsx', `file name ${file.suggestedFilename()}`);
      const saved = await file.path();
      const head = readFileSync(saved).subarray(0, 2).toString('latin1');
      assert(head === 'PK', `file starts with ${JSON.stringify(head)}`);
    });

    await check('150 more countries, page size 100: fewer than 100 row elements in the page', async () => {
      await page.evaluate(async () => {
        // Once per database: a second run finds them there already.
        const probe = await fetch('/api/grid', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${localStorage.getItem('token')}` },
          body: JSON.stringify({ ViewName: 'VW_TblMasterCountry', PageSize: 10, PageNumber: 0, Filters: [{ field: 'CountryName', op: 'startsWith', value: 'Bulk ' }], SortField: 'CountryName', SortOrder: 'asc' }),
        });
        if ((await probe.json()).data.totalCount >= 150) return;
        const token = localStorage.getItem('token');
        const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
        const calls = [];
        for (let i = 0; i < 150; i++) {
          const code = `J${letters[Math.floor(i / 26)]}${letters[i % 26]}`;
          calls.push(fetch('/api/Country', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
            body: JSON.stringify({ countryCode: code, countryName: `Bulk ${String(i).padStart(3, '0')}` }),
          }));
        }
        await Promise.all(calls);
      });
      await openScreen(page, 'ras-settings', 'VW_TblMasterCountry');
      const total = await byTestId(page, 'grid-total').textContent();
      const count = Number(total.replace(/\D/g, ''));
      assert(count >= 151, `total ${total}`);
      const loaded = await page.evaluate(() => document.querySelectorAll('.rdg-row').length);
      assert(loaded > 0 && loaded < 100, `row elements ${loaded}`);
      // Scroll to the end of the 100 rows: still virtualised.
      await byTestId(page, 'grid-VW_TblMasterCountry').locator('.rdg').evaluate((el) => {
        el.scrollTop = el.scrollHeight;
      });
      // The grid has rendered the rows at the end (virtualised: only those near them).
      await page.waitForFunction(() => [...document.querySelectorAll('.rdg-row')].some((r) => Number(r.getAttribute('aria-rowindex')) >= 100));
      const after = await page.evaluate(() => document.querySelectorAll('.rdg-row').length);
      assert(after < 100, `row elements after scrolling ${after}`);
      await shot(page, 'country-list');
    });

    await check('sort by a header click: asc, desc, then back to the default sort', async () => {
      const orders = [];
      for (let i = 0; i < 3; i++) {
        const body = await afterGrid(page, () => byTestId(page, 'header-CountryCode').click());
        orders.push(`${body.SortField} ${body.SortOrder}`);
      }
      assert(JSON.stringify(orders) === JSON.stringify(['CountryCode asc', 'CountryCode desc', 'CountryName asc']), `orders ${orders}`);
    });

    await check('page change sends the row offset', async () => {
      const body = await afterGrid(page, () => byTestId(page, 'grid-pager').locator('.p-paginator-next').click());
      assert(body.PageNumber === 100 && body.PageSize === 100, `paging ${body.PageNumber}/${body.PageSize}`);
    });

    await check('an inline edit answered after the user paged changes nothing on the new page; the next edit saves its own row', async () => {
      await openScreen(page, 'ras-settings', 'VW_TblMasterCountry');
      await filterBy(page, 'CountryName', 'Bulk ');
      const grid = byTestId(page, 'grid-VW_TblMasterCountry');
      const col = await columnIndex(page, 'VW_TblMasterCountry', 'CountryName');
      // The save reaches the server at once; its answer is held until the user has paged.
      let release;
      const held = new Promise((resolve) => { release = resolve; });
      let saved;
      const reachedServer = new Promise((resolve) => { saved = resolve; });
      const slowSave = async (route) => {
        if (route.request().method() !== 'PUT') return route.continue();
        const response = await route.fetch();
        saved();
        await held;
        return route.fulfill({ response });
      };
      await page.route('**/api/grid/row', slowSave);
      try {
        await cellIn(page, 'VW_TblMasterCountry', 'Bulk 000', col).dblclick();
        await byTestId(page, 'editor-CountryName').fill('Bulk 000 renamed');
        await byTestId(page, 'editor-CountryName').press('Enter');
        await reachedServer;
        // "Please wait" covers the page while the save is pending; the keyboard still pages.
        await byTestId(page, 'grid-pager').locator('.p-paginator-next').focus();
        await afterGrid(page, () => page.keyboard.press('Enter'));
        await grid.locator('.rdg-row', { hasText: 'Bulk 100' }).waitFor();
        const answered = page.waitForResponse((r) => r.url().endsWith('/api/grid/row') && r.request().method() === 'PUT');
        release();
        await (await answered).finished();
        // Two frames: the answer's promise chain has run and React has drawn what it did.
        await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      } finally {
        await page.unroute('**/api/grid/row', slowSave);
      }
      // The late answer was for page 1: the first row of page 2 is still Bulk 100 ...
      const first = grid.locator('.rdg-row').first().locator(`.rdg-cell[aria-colindex="${col}"]`);
      assert((await first.textContent()) === 'Bulk 100', `first row of page 2 shows ${await first.textContent()}`);
      // ... and editing it saves Bulk 100, not the row of page 1.
      await first.dblclick();
      await byTestId(page, 'editor-CountryName').fill('Bulk 100 renamed');
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/grid/row') && r.request().method() === 'PUT'),
        byTestId(page, 'editor-CountryName').press('Enter'),
      ]);
      assert(response.status() === 200, `second edit answered ${response.status()}: ${await response.text()}`);
      const names = await page.evaluate(async () => {
        const answer = await fetch('/api/grid', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${localStorage.getItem('token')}` },
          body: JSON.stringify({ ViewName: 'VW_TblMasterCountry', PageSize: 10, PageNumber: 0, Filters: [{ field: 'CountryName', op: 'contains', value: 'renamed' }], SortField: 'CountryName', SortOrder: 'asc' }),
        });
        return (await answer.json()).data.dataList.map((row) => row.CountryName);
      });
      assert(JSON.stringify(names) === JSON.stringify(['Bulk 000 renamed', 'Bulk 100 renamed']), `renamed rows ${JSON.stringify(names)}`);
    });

    const provider = `Prov ${suffix}`;
    await check('bank settings: titled as its menu entry (Bank Settings), add an actor on the Actors tab', async () => {
      await openScreen(page, 'bank-settings', 'VW_TransactionProviders');
      const title = await byTestId(page, 'screen-title').textContent();
      assert(title === en.screens.bankSettings.title && title === en.menu.bankSettings, `title ${title}`);
      const tabs = await page.locator('.metadata-tabs .p-tabview-nav li .p-tabview-title').allTextContents();
      assert(JSON.stringify(tabs) === JSON.stringify([en.tabs.actors, en.tabs.accounts]), `tabs ${tabs}`);
      await byTestId(page, 'grid-add').click();
      const dialog = byTestId(page, 'form-dialog-transactionProvider');
      await page.locator('#root_trans').waitFor();
      const width = await dialog.evaluate((el) => el.offsetWidth);
      assert(width === 450, `dialog width ${width}`);
      await page.locator('#root_trans').fill(`T${suffix}`);
      await page.locator('#root_providers').fill(provider);
      await page.locator('#root_priority').fill('3');
      await shot(page, 'actor-dialog');
      await byTestId(page, 'form-save').click();
      assert((await toastText(page, 'success')).includes(en.messages.actorAdded), 'no success toast');
      await dialog.waitFor({ state: 'detached' });
      const row = byTestId(page, 'grid-VW_TransactionProviders').locator('.rdg-row', { hasText: provider });
      await row.waitFor();
      assert((await row.textContent()).includes('IN'), 'IN_OUT default IN not shown');
      await clearToasts(page);
      await shot(page, 'bank-settings');
    });

    await check('config settings: add a setting with the provider lookup (Save waits for a valid form), then delete it with the trash icon', async () => {
      await openScreen(page, 'config-settings', 'VW_ConfigSettings');
      await byTestId(page, 'grid-add').click();
      const dialog = byTestId(page, 'form-dialog-configSetting');
      await dialog.waitFor();
      const lookup = byTestId(page, 'lookup-root_providerName');
      await lookup.waitFor();
      await lookup.click();
      await page.locator('.p-dropdown-panel .p-dropdown-item', { hasText: provider }).click();
      await page.locator('#root_transactionType').click();
      await page.locator('.p-dropdown-panel .p-dropdown-item', { hasText: en.config.transactionTypes.settlement }).click();
      await page.locator('#root_dateThreshold').fill('3');
      await page.locator('#root_amountThreshold').fill('1.5');
      // Spec 03: valid only with providerName, transactionType and providerActor; Save waits.
      assert(await byTestId(page, 'form-save').isDisabled(), 'Save is enabled before the provider actor is filled in');
      await page.locator('#root_providerActor').fill('Card');
      await page.waitForFunction(() => !document.querySelector('[data-testid="form-save"]')?.disabled);
      await shot(page, 'config-dialog');
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/ConfigSettings') && r.request().method() === 'POST'),
        byTestId(page, 'form-save').click(),
      ]);
      assert(response.status() === 201, `POST answered ${response.status()}: ${await response.text()}`);
      const sent = JSON.parse(response.request().postData());
      assert(sent.providerName === provider && sent.transactionType === 2 && sent.amountThreshold === '1.5', `sent ${JSON.stringify(sent)}`);
      const id = (await response.json()).data.Id;
      await dialog.waitFor({ state: 'detached' });
      const row = byTestId(page, 'grid-VW_ConfigSettings').locator('.rdg-row', { hasText: provider });
      await row.waitFor();
      assert((await row.textContent()).includes(en.views.VW_ConfigSettings.values.TransactionType['2']), `row ${await row.textContent()}`);
      await clearToasts(page);
      await shot(page, 'config-settings');
      await byTestId(page, `row-delete-${id}`).click();
      const confirm = page.locator('.p-confirm-dialog');
      await confirm.waitFor();
      assert((await confirm.textContent()).includes(en.grid.deleteConfirm), 'no delete question');
      await shot(page, 'config-delete-confirm');
      const [del] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'DELETE'),
        confirm.locator('.p-confirm-dialog-accept').click(),
      ]);
      assert(del.status() === 204 || del.status() === 200, `DELETE answered ${del.status()}`);
      await row.waitFor({ state: 'detached' });
    });

    await check('extraction logs: the three tabs of the spec and Ticket Files, the tab choice is remembered', async () => {
      await openScreen(page, 'extraction-logs', 'VW_BankFileExtractionLog');
      const tabs = await page.locator('.metadata-tabs .p-tabview-nav li .p-tabview-title').allTextContents();
      assert(JSON.stringify(tabs) === JSON.stringify([en.tabs.bankFiles, en.tabs.settlementFiles, en.tabs.transactionFiles, en.tabs.ticketFiles]), `tabs ${tabs}`);
      await byTestId(page, 'tab-settlementFiles').click();
      await byTestId(page, 'grid-VW_SettlementExtractionLog').waitFor();
      await byTestId(page, 'grid-empty').waitFor();
      await shot(page, 'extraction-logs');
      await page.reload();
      await byTestId(page, 'grid-VW_SettlementExtractionLog').waitFor();
    });

    await check('data processed: Reprocess asks, then Yes shows a toast (triggered or failed)', async () => {
      await openScreen(page, 'csvprocessed', 'VW_BankFinal');
      await clearToasts(page);
      await byTestId(page, 'grid-action-reprocess').click();
      const question = page.locator('.p-confirm-dialog');
      await question.waitFor();
      await question.locator('.p-confirm-dialog-accept').click();
      const toast = page.locator('.p-toast-message').last();
      await toast.waitFor();
      const text = await toast.textContent();
      assert(text.includes(en.messages.reprocessTriggered) || text.includes(en.messages.reprocessFailed), `toast ${text}`);
      await shot(page, 'csvprocessed');
    });

    await check('exchange rates: sync shows a toast; add dialog is 500px, Save waits for a three-letter code', async () => {
      await openScreen(page, 'cera-settings', 'VW_CurrencyExchangeRate');
      await clearToasts(page);
      await byTestId(page, 'grid-action-sync').click();
      await page.locator('.p-toast-message').last().waitFor();
      await byTestId(page, 'grid-add').click();
      const dialog = byTestId(page, 'form-dialog-exchangeRate');
      await page.locator('#root_exchangeRateOn').waitFor();
      assert((await dialog.evaluate((el) => el.offsetWidth)) === 500, 'dialog width');
      // The app's date picker reads typed text in the user's format (its placeholder).
      const datePattern = await page.locator('#root_exchangeRateOn').getAttribute('placeholder');
      await page.locator('#root_exchangeRateOn').fill(datePattern.replace('YYYY', '2026').replace('MM', '03').replace('DD', '04'));
      // Currency codes are letters only (a check constraint).
      const rateCode = `r${String.fromCharCode(97 + (Date.now() % 26), 97 + (Math.floor(Date.now() / 26) % 26))}`;
      await page.locator('#root_currency').fill('  Test krona ');
      await page.locator('#root_usd').fill('0.09512345');
      // Save waits for a valid form: a two-letter code is not one.
      await page.locator('#root_code').fill(rateCode.slice(0, 2));
      await page.waitForFunction(() => document.querySelector('[data-testid="form-save"]')?.disabled === true);
      await page.locator('#root_code').fill(rateCode);
      await clearToasts(page);
      await byTestId(page, 'form-save').click();
      const added = await page.locator('.p-toast-message').last().textContent();
      assert(added.includes(en.messages.rateAdded), `toast ${added}`);
      await dialog.waitFor({ state: 'detached' });
      const row = byTestId(page, 'grid-VW_CurrencyExchangeRate').locator('.rdg-row', { hasText: rateCode.toUpperCase() });
      await row.waitFor();
      const text = await row.textContent();
      assert(text.includes('04-03-2026') && text.includes('0.095123'), `row ${text}`);
      await clearToasts(page);
      await shot(page, 'cera-settings');
    });

    await check('no page errors, console errors or CSP violations', async () => {
      assert(problems.length === 0, `${problems.length}: ${problems.slice(0, 3).join(' | ')}`);
    });
    await context.close();
  } finally {
    await browser.close();
  }
}

await run(main);
