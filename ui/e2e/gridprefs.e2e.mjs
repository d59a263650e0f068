// Browser test of what every engine grid keeps per user on the server (grid/useGridPrefs): on the
// country list, hide a column from the column chooser, move one by dragging its header, widen one,
// pin one (frozen first), save the current filter under a name; after a reload the layout and the
// saved filters are there again, and applying the saved filters filters the grid. Then Reset
// layout and deleting the saved filters put the grid back as the other scripts expect it.
//   BASE_URL=http://127.0.0.1:8080 ADMIN_PASSWORD=... node e2e/gridprefs.e2e.mjs
import {
  afterGrid, assert, byTestId, callApi, clearToasts, collectProblems, createChecks, filterBy, firstTwoLines, launchBrowser,
  loadTranslations, openPage, openScreen, settled, shot, signIn,
} from './lib.mjs';

const en = loadTranslations('en');
let page; // the one page of the run, for the picture of a failure
const { check, run } = createChecks({
  describe: firstTwoLines,
  stopAfterFailure: true,
  onFailure: async () => {
    if (page) await shot(page, 'gridprefs-failure').catch(() => {});
  },
});

const VIEW = 'VW_TblMasterCountry';
const KEY = 'grid.vw_tblmastercountry';

/** Waits for the grid's next preference write whose body passes `test`, and returns the body. */
async function afterSave(page, action, test = () => true) {
  const [response] = await Promise.all([
    page.waitForResponse(
      (r) => r.url().endsWith(`/api/preferences/${KEY}`) && r.request().method() === 'PUT' && test(JSON.parse(r.request().postData() ?? '{}')),
    ),
    action(),
  ]);
  assert(response.status() === 204, `the write answered ${response.status()}: ${await response.text()}`);
  return JSON.parse(response.request().postData());
}

/**
 * The data columns' headers in screen order (field, with * when react-data-grid froze it); the
 * row icons' column before them is frozen and first on every grid.
 */
async function headers(page) {
  return byTestId(page, `grid-${VIEW}`)
    .locator('.rdg-header-row [role="columnheader"]')
    .evaluateAll((cells) =>
      cells
        .filter((cell) => cell.querySelector('[data-testid^="header-"]'))
        .map((cell) => {
          const field = cell.querySelector('[data-testid^="header-"]').dataset.testid.replace('header-', '');
          return cell.classList.contains('rdg-cell-frozen-start') ? `${field}*` : field;
        }),
    );
}

const headerCell = (page, field) => byTestId(page, `grid-${VIEW}`).locator('.rdg-header-row [role="columnheader"]', { has: page.locator(`[data-testid="header-${field}"]`) });

async function openPanel(page, button, panel) {
  await byTestId(page, button).click();
  await byTestId(page, panel).waitFor();
  await settled(page);
}

async function closePanel(page, panel) {
  await page.keyboard.press('Escape');
  await page.mouse.click(5, 790);
  await byTestId(page, panel).waitFor({ state: 'detached' });
}

async function main() {
  const browser = await launchBrowser();
  const suffix = Date.now().toString(36).slice(-4).toUpperCase();
  const setName = `Prefs ${suffix}`;
  try {
    const opened = await openPage(browser, { viewport: { width: 1440, height: 900 } });
    page = opened.page;
    const problems = collectProblems(page, () => false, { withUrl: true });
    await signIn(page);

    await check('setup: three countries, two of them named for this run; no stored layout', async () => {
      const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
      const stamp = Date.now();
      for (const [i, name] of [`${setName} North`, `${setName} South`, `Other ${suffix}`].entries()) {
        const code = `W${letters[(Math.floor(stamp / 1000) + i * 7) % 26]}${letters[(Math.floor(stamp / 26000) + i) % 26]}`;
        const { status, body } = await callApi(page, 'POST', '/Country', { countryCode: code, countryName: name });
        assert(status === 201, `POST /Country ${code}: ${status} ${JSON.stringify(body)}`);
      }
      const { status } = await callApi(page, 'PUT', `/preferences/${KEY}`, {});
      assert(status === 204, `clearing the preferences answered ${status}`);
    });

    await check('the country list shows the metadata layout, and the toolbar offers Saved filters and Columns', async () => {
      await openScreen(page, 'ras-settings', VIEW);
      const shown = await headers(page);
      assert(JSON.stringify(shown) === JSON.stringify(['CountryCode', 'CountryName', 'SubCountryCode', 'Trigram', 'CountryTelCode']), `headers ${shown}`);
      assert((await byTestId(page, 'grid-filter-sets').textContent()).includes(en.grid.filterSets.button), 'no Saved filters button');
      assert((await byTestId(page, 'grid-columns').textContent()).includes(en.grid.columns.button), 'no Columns button');
    });

    await check('hide a column from the column chooser: it goes, and the layout is written', async () => {
      await openPanel(page, 'grid-columns', 'grid-columns-panel');
      // The chooser names the columns as their headers do, in the grid's order.
      const names = await byTestId(page, 'grid-columns-panel').locator('li').allTextContents();
      const labels = await byTestId(page, `grid-${VIEW}`).locator('.rdg-header-row .grid-header__label').allTextContents();
      assert(names.length === 5 && JSON.stringify(names) === JSON.stringify(labels), `chooser lists ${JSON.stringify(names)}, headers ${JSON.stringify(labels)}`);
      await shot(page, 'gridprefs-columns');
      const body = await afterSave(
        page,
        () => byTestId(page, 'column-show-SubCountryCode').click(),
        (b) => b.layout?.hidden?.includes('SubCountryCode'),
      );
      assert(JSON.stringify(body.layout.order) === JSON.stringify(['CountryCode', 'CountryName', 'SubCountryCode', 'Trigram', 'CountryTelCode']), `order ${body.layout.order}`);
      await closePanel(page, 'grid-columns-panel');
      assert(!(await headers(page)).includes('SubCountryCode'), 'the hidden column is still shown');
    });

    await check('move a column by dragging its header onto another: it takes that place', async () => {
      await afterSave(
        page,
        () => headerCell(page, 'Trigram').dragTo(headerCell(page, 'CountryCode')),
        (b) => b.layout?.order?.[0] === 'Trigram',
      );
      const shown = await headers(page);
      assert(JSON.stringify(shown) === JSON.stringify(['Trigram', 'CountryCode', 'CountryName', 'CountryTelCode']), `headers ${shown}`);
    });

    await check("widen a column with its header's resize handle", async () => {
      const cell = headerCell(page, 'CountryCode');
      const before = await cell.evaluate((el) => Math.round(el.getBoundingClientRect().width));
      const handle = await cell.locator('.rdg-resize-handle').boundingBox();
      const body = await afterSave(
        page,
        async () => {
          await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
          await page.mouse.down();
          await page.mouse.move(handle.x + 40, handle.y + handle.height / 2, { steps: 4 });
          await page.mouse.move(handle.x + 80, handle.y + handle.height / 2, { steps: 4 });
          await page.mouse.up();
        },
        (b) => (b.layout?.widths?.CountryCode ?? 0) >= before + 60,
      );
      const after = await cell.evaluate((el) => Math.round(el.getBoundingClientRect().width));
      assert(Math.abs(after - body.layout.widths.CountryCode) <= 1, `header ${after}px, stored ${body.layout.widths.CountryCode}px`);
    });

    await check('pin a column: frozen, first; it stays in view while the grid scrolls sideways', async () => {
      await openPanel(page, 'grid-columns', 'grid-columns-panel');
      await afterSave(page, () => byTestId(page, 'column-pin-CountryName').click(), (b) => JSON.stringify(b.layout?.pinned) === '["CountryName"]');
      assert((await byTestId(page, 'column-pin-CountryName').getAttribute('aria-pressed')) === 'true', 'the pin is not pressed');
      await shot(page, 'gridprefs-columns-pinned');
      await closePanel(page, 'grid-columns-panel');
      const shown = await headers(page);
      assert(JSON.stringify(shown) === JSON.stringify(['CountryName*', 'Trigram', 'CountryCode', 'CountryTelCode']), `headers ${shown}`);
      // Narrow the window so the grid scrolls sideways: the pinned column keeps its place.
      await page.setViewportSize({ width: 820, height: 900 });
      const grid = byTestId(page, `grid-${VIEW}`).locator('.rdg');
      await page.waitForFunction((v) => {
        const el = document.querySelector(`[data-testid="grid-${v}"] .rdg`);
        return el && el.scrollWidth > el.clientWidth;
      }, VIEW);
      const left = () => headerCell(page, 'CountryName').evaluate((el) => Math.round(el.getBoundingClientRect().left));
      const before = await left();
      await grid.evaluate((el) => { el.scrollLeft = el.scrollWidth; });
      await page.waitForFunction((v) => document.querySelector(`[data-testid="grid-${v}"] .rdg`).scrollLeft > 0, VIEW);
      await settled(page);
      assert((await left()) === before, `the pinned header moved from ${before} to ${await left()}`);
      await shot(page, 'gridprefs-pinned-scrolled');
      await page.setViewportSize({ width: 1440, height: 900 });
      await grid.evaluate((el) => { el.scrollLeft = 0; });
    });

    await check('save the current filter under a name', async () => {
      await filterBy(page, 'CountryName', setName);
      await page.waitForFunction(() => document.querySelector('[data-testid="grid-total"]')?.textContent === '2 rows');
      await openPanel(page, 'grid-filter-sets', 'grid-filter-sets-panel');
      assert((await byTestId(page, 'grid-filter-sets-panel').textContent()).includes(en.grid.filterSets.none), 'no "nothing saved yet" text');
      await byTestId(page, 'grid-filter-sets-save').click();
      await byTestId(page, 'filter-set-name').fill(setName);
      const body = await afterSave(page, () => byTestId(page, 'filter-set-save').click(), (b) => b.filterSets?.length === 1);
      const [saved] = body.filterSets;
      assert(saved.name === setName && saved.filters.CountryName?.value === setName && saved.filters.CountryName?.op === 'contains', `saved ${JSON.stringify(saved)}`);
      assert(body.layout?.pinned?.[0] === 'CountryName', 'the layout went missing from the write');
      await byTestId(page, 'filter-set-dialog').waitFor({ state: 'detached' });
      await page.locator('.p-toast-message', { hasText: en.grid.filterSets.saved.replace('{{name}}', setName) }).waitFor();
      assert((await byTestId(page, 'grid-filter-sets').textContent()) === setName, 'the toolbar does not name the set shown');
      await clearToasts(page);
      await shot(page, 'gridprefs-toolbar');
      await afterGrid(page, () => byTestId(page, 'grid-clear-filters').click(), (b) => JSON.parse(b).Filters.length === 0);
    });

    await check('after a reload: the same layout (hidden, moved, widened, pinned) and the saved filters', async () => {
      const [prefs] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith(`/api/preferences/${KEY}`) && r.request().method() === 'GET'),
        openScreen(page, 'ras-settings', VIEW),
      ]);
      assert(prefs.status() === 200, `GET answered ${prefs.status()}`);
      await byTestId(page, 'header-CountryName').waitFor();
      const shown = await headers(page);
      assert(JSON.stringify(shown) === JSON.stringify(['CountryName*', 'Trigram', 'CountryCode', 'CountryTelCode']), `headers ${shown}`);
      const stored = (await prefs.json()).data.layout.widths.CountryCode;
      const width = await headerCell(page, 'CountryCode').evaluate((el) => Math.round(el.getBoundingClientRect().width));
      assert(Math.abs(width - stored) <= 1, `width ${width}px, stored ${stored}px`);
      const total = await byTestId(page, 'grid-total').textContent();
      assert(total !== '2 rows', `the grid opened filtered: ${total}`);
      await openPanel(page, 'grid-filter-sets', 'grid-filter-sets-panel');
      await byTestId(page, `filter-set-${setName}`).waitFor();
      await shot(page, 'gridprefs-filter-sets');
    });

    await check('applying the saved filters filters the grid', async () => {
      const body = await afterGrid(page, () => byTestId(page, `filter-set-${setName}`).click(), (b) => JSON.parse(b).Filters.some((f) => f.field === 'CountryName'));
      const filter = body.Filters.find((f) => f.field === 'CountryName');
      assert(filter?.op === 'contains' && filter.value === setName, `filters ${JSON.stringify(body.Filters)}`);
      await page.waitForFunction(() => document.querySelector('[data-testid="grid-total"]')?.textContent === '2 rows');
      const rows = await byTestId(page, `grid-${VIEW}`).locator('.rdg-row').allTextContents();
      assert(rows.length === 2 && rows.every((r) => r.includes(setName)), `rows ${JSON.stringify(rows)}`);
      assert((await byTestId(page, 'grid-filter-sets').textContent()) === setName, 'the toolbar does not name the set shown');
      assert(await byTestId(page, 'filter-CountryName').evaluate((el) => el.classList.contains('is-active')), 'the filter icon is not active');
    });

    await check('Reset layout and deleting the saved filters bring back the default grid', async () => {
      await openPanel(page, 'grid-columns', 'grid-columns-panel');
      await afterSave(page, () => byTestId(page, 'grid-columns-reset').click(), (b) => b.layout === undefined);
      await closePanel(page, 'grid-columns-panel');
      const shown = await headers(page);
      assert(JSON.stringify(shown) === JSON.stringify(['CountryCode', 'CountryName', 'SubCountryCode', 'Trigram', 'CountryTelCode']), `headers ${shown}`);
      await openPanel(page, 'grid-filter-sets', 'grid-filter-sets-panel');
      await afterSave(page, () => byTestId(page, `filter-set-delete-${setName}`).click(), (b) => b.filterSets?.length === 0);
      await closePanel(page, 'grid-filter-sets-panel');
    });

    await check('no page errors, console errors or CSP violations', async () => {
      assert(problems.length === 0, `${problems.length}: ${problems.slice(0, 3).join(' | ')}`);
    });
  } finally {
    // Whatever failed, the admin's country list goes back to the default for the scripts after this one.
    if (page) await callApi(page, 'PUT', `/preferences/${KEY}`, {}).catch(() => {});
    await browser.close();
  }
}

await run(main);
