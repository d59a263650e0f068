// Browser test of the Data Import screen in headless Debian Chromium (playwright-core): a bank
// CSV uploaded and loaded, the same file refused as a duplicate (409), a ticket file failing with
// its row error, the loaded rows on the processed bank files grid and the extraction-log row.
//   BASE_URL=http://127.0.0.1:8080 ADMIN_PASSWORD=... node e2e/imports.e2e.mjs
// Prints one line per check and a closing "e2e: N passed, M failed"; exits non-zero on a failure.
import { chromium } from 'playwright-core';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const BASE_URL = (process.env.BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
const SCREENSHOT_DIR = path.resolve(process.env.SCREENSHOT_DIR ?? path.join(here, '..', 'e2e-artifacts'));
const TIMEOUT = 10_000;
const IMPORT_TIMEOUT = 60_000; // an import is a background job: allow for a busy machine
const en = JSON.parse(readFileSync(path.join(here, '..', 'src', 'i18n', 'en.json'), 'utf8'));

const results = [];

async function check(name, fn) {
  try {
    await fn();
    results.push(true);
    console.log(`ok    ${name}`);
  } catch (error) {
    results.push(false);
    const lines = String(error?.message ?? error).split('\n').filter((l) => l.trim() && !l.includes('Call log'));
    console.log(`FAIL  ${name}: ${lines.slice(0, 2).join(' / ')}`);
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

const byTestId = (page, id) => page.locator(`[data-testid="${id}"]`);

async function waitForHash(page, expected) {
  await page.waitForFunction((h) => window.location.hash === h, expected, { timeout: TIMEOUT }).catch(async () => {
    throw new Error(`expected ${expected}, at ${await page.evaluate(() => window.location.hash)}`);
  });
}

const ADMIN_USER = process.env.ADMIN_USER ?? 'admin';
const ADMIN_PASSWORD = process.env.ADMIN_PASSWORD ?? '';

async function signIn(page) {
  assert(ADMIN_PASSWORD, 'ADMIN_PASSWORD is not set');
  await page.goto(`${BASE_URL}/#/login`);
  await byTestId(page, 'login-form').waitFor();
  await page.locator('#username').fill(ADMIN_USER);
  await page.locator('#password').fill(ADMIN_PASSWORD);
  await byTestId(page, 'sign-in').click();
  await waitForHash(page, '#/dashboard/home');
}

/** Runs `action` and returns the grid request body it caused (POST /api/grid). */
async function afterGrid(page, action, predicate = () => true) {
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/grid') && r.request().method() === 'POST' && predicate(r.request().postData() ?? '')),
    action(),
  ]);
  return JSON.parse(response.request().postData());
}

async function openScreen(page, route, viewName) {
  const url = `${BASE_URL}/#/dashboard/${route}`;
  await afterGrid(page, () => (page.url() === url ? page.reload() : page.goto(url)));
  await byTestId(page, `grid-${viewName}`).waitFor();
  await byTestId(page, 'grid-total').waitFor();
}

async function filterBy(page, field, value) {
  await byTestId(page, `filter-${field}`).click();
  await afterGrid(page, () => byTestId(page, `filter-value-${field}`).fill(value), (body) => body.includes(`"field":"${field}"`));
  await page.keyboard.press('Escape');
  await page.mouse.click(5, 790);
  await byTestId(page, `filter-panel-${field}`).waitFor({ state: 'detached' });
}

/** The grid renders only the columns in view: scrolls right until the column's header exists. */
async function scrollToColumn(page, viewName, field) {
  const grid = byTestId(page, `grid-${viewName}`).locator('.rdg');
  for (let i = 0; i < 20 && !(await byTestId(page, `filter-${field}`).count()); i++) {
    await grid.evaluate((el) => {
      el.scrollLeft += 300;
    });
    await page.waitForTimeout(50);
  }
  await byTestId(page, `filter-${field}`).scrollIntoViewIfNeeded();
}

async function clearToasts(page) {
  await page.evaluate(() => document.querySelectorAll('.p-toast-message .p-toast-icon-close').forEach((b) => b.click()));
  await page.locator('.p-toast-message').first().waitFor({ state: 'detached' }).catch(() => {});
}

async function shot(page, name) {
  await page.mouse.move(1270, 790);
  await page.waitForTimeout(250);
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** The newest upload row of a file (the screen lists the newest first). */
const uploadRow = (page, fileName) => page.locator(`[data-testid="import-row"][data-file="${fileName}"]`).first();

/** Waits until the newest row of the file shows one of `statuses`; returns the status. */
async function waitForStatus(page, fileName, statuses) {
  const handle = await page.waitForFunction(
    ([name, wanted]) => {
      const row = document.querySelector(`[data-testid="import-row"][data-file="${name}"]`);
      const status = row?.getAttribute('data-status');
      return status && wanted.includes(status) ? status : null;
    },
    [fileName, statuses],
    { timeout: IMPORT_TIMEOUT },
  ).catch(async () => {
    const row = uploadRow(page, fileName);
    const text = (await row.count()) ? await row.textContent() : 'no row';
    throw new Error(`${fileName} never reached ${statuses.join('/')}: ${text}`);
  });
  return handle.jsonValue();
}

/** Chooses a kind and uploads one file; returns the POST /api/imports response. */
async function upload(page, kind, filePath) {
  await byTestId(page, `import-kind-${kind}`).click();
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/imports') && r.request().method() === 'POST', { timeout: IMPORT_TIMEOUT }),
    byTestId(page, 'import-file-input').setInputFiles(filePath),
  ]);
  return response;
}

async function main() {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ledgerdesk-e2e-'));
  const stamp = Date.now();
  const bankName = `bank-e2e-${stamp}.csv`;
  const bankPath = path.join(dir, bankName);
  const texts = [1, 2, 3].map((n) => `E2E import ${stamp} row ${n}`);
  writeFileSync(
    bankPath,
    [
      'BankAccount,BookedDate,InterestDate,Text,AmountLocal,Currency,BankArchiveReference,Number,BookedBalanceLocalCurrency',
      `5000-1234,2026-03-02,2026-03-02,${texts[0]},1250.50,SEK,E2E${stamp}A,1,10250.50`,
      `5000-1234,2026-03-03,2026-03-03,${texts[1]},-300.25,SEK,E2E${stamp}B,2,9950.25`,
      `5000-1234,2026-03-04,2026-03-05,${texts[2]},75.00,SEK,E2E${stamp}C,3,10025.25`,
      '',
    ].join('\n'),
  );
  const ticketName = `tickets-e2e-${stamp}.csv`;
  const ticketPath = path.join(dir, ticketName);
  writeFileSync(
    ticketPath,
    ['TicketNumber,TransDate,PaymentType,CountryCode,Currency,TransactionCode,SaleAmount', `${String(stamp).slice(-12).padStart(12, '1')},2026-03-04,CARD,SE,SEK,SALE,100.00`, ''].join('\n'),
  );

  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const problems = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(TIMEOUT);
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (msg) => {
      // The browser logs every 4xx answer: the duplicate upload answers 409 on purpose.
      const url = msg.location().url ?? '';
      const expected = /status of 409/.test(msg.text()) && url.endsWith('/api/imports');
      if (msg.type() === 'error' && !expected) problems.push(`console error: ${msg.text()} ${url}`);
    });

    await signIn(page);

    await check('data import screen: title, four kinds, layouts of the kind, drop zone waits for a kind', async () => {
      const [layouts] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/imports/layouts')),
        page.goto(`${BASE_URL}/#/dashboard/financialdocument`),
      ]);
      assert(layouts.status() === 200, `GET /api/imports/layouts answered ${layouts.status()}`);
      await byTestId(page, 'screen-data-import').waitFor();
      const title = await byTestId(page, 'screen-title').textContent();
      assert(title === en.screens.financialDocument.title, `title ${title}`);
      for (const kind of ['bank', 'transaction', 'settlement', 'ticket']) {
        const label = await byTestId(page, `import-kind-${kind}`).textContent();
        assert(label === en.imports.kinds[kind], `kind ${kind}: ${label}`);
      }
      assert(await byTestId(page, 'import-file-input').isDisabled(), 'file input enabled before a kind is chosen');
      await byTestId(page, 'recent-imports').waitFor();
      await byTestId(page, 'import-kind-bank').click();
      const shown = await byTestId(page, 'import-layout').textContent();
      assert(shown.includes(en.imports.detectLayout), `layout shows ${shown}`);
      await byTestId(page, 'import-layout').click();
      const options = await page.locator('.p-dropdown-panel .p-dropdown-item').allTextContents();
      assert(options[0] === en.imports.detectLayout && options.length > 1, `layout options ${JSON.stringify(options)}`);
      await page.keyboard.press('Escape');
    });

    await check('upload a bank CSV: 201, then polled to succeeded with 3 rows loaded, success toast', async () => {
      const response = await upload(page, 'bank', bankPath);
      assert(response.status() === 201, `POST /api/imports answered ${response.status()}: ${await response.text()}`);
      const sent = response.request().headers()['content-type'] ?? '';
      assert(sent.startsWith('multipart/form-data'), `content type ${sent}`);
      const status = await waitForStatus(page, bankName, ['succeeded', 'failed']);
      const outcome = await uploadRow(page, bankName).locator('[data-testid="import-outcome"]').textContent();
      assert(status === 'succeeded', `status ${status}: ${outcome}`);
      assert(outcome.startsWith('3 rows loaded'), `outcome ${outcome}`);
      const toast = page.locator('.p-toast-message-success', { hasText: bankName });
      await toast.waitFor();
      // The recent list is refreshed with the new import on top.
      await page.locator('[data-testid="recent-row"]', { hasText: bankName }).first().waitFor();
    });

    await check('the same file again: 409, the duplicate message on its row', async () => {
      await clearToasts(page);
      const response = await upload(page, 'bank', bankPath);
      assert(response.status() === 409, `POST answered ${response.status()}`);
      const message = (await response.json()).error;
      const status = await waitForStatus(page, bankName, ['duplicate', 'refused', 'succeeded', 'failed']);
      assert(status === 'duplicate', `status ${status}`);
      const outcome = await uploadRow(page, bankName).locator('[data-testid="import-outcome"]').textContent();
      assert(outcome === message && /already imported/i.test(outcome), `outcome ${outcome} (server said ${message})`);
      const tag = await uploadRow(page, bankName).locator('[data-testid="import-status"]').textContent();
      assert(tag === en.imports.phase.duplicate, `tag ${tag}`);
    });

    await check('a ticket file with a 12-digit ticket number fails; its row error names line 2', async () => {
      const response = await upload(page, 'ticket', ticketPath);
      assert(response.status() === 201, `POST answered ${response.status()}: ${await response.text()}`);
      const status = await waitForStatus(page, ticketName, ['succeeded', 'failed']);
      assert(status === 'failed', `status ${status}`);
      const row = uploadRow(page, ticketName);
      await row.locator('[data-testid="import-row-errors-toggle"]').click();
      const items = await row.locator('[data-testid="import-row-errors"] li').allTextContents();
      assert(items.length >= 1 && items[0].startsWith('line 2'), `row errors ${JSON.stringify(items)}`);
      assert(await page.locator('.p-toast-message-error', { hasText: ticketName }).count(), 'no error toast');
      await shot(page, 'imports');
      await clearToasts(page);
      await shot(page, 'imports-no-toasts');
    });

    await check('recent imports: coloured status tags for the uploads', async () => {
      await byTestId(page, 'recent-refresh').click();
      const bank = page.locator('[data-testid="recent-row"]', { hasText: bankName }).first();
      const ticket = page.locator('[data-testid="recent-row"]', { hasText: ticketName }).first();
      await bank.locator('.p-tag-success').waitFor();
      await ticket.locator('.p-tag-danger').waitFor();
      const cells = await bank.locator('td').allTextContents();
      assert(cells.includes(en.imports.kinds.bank) && cells.includes('3') && cells.includes(ADMIN_USER), `cells ${JSON.stringify(cells)}`);
    });

    await check('the extraction-log link opens the Bank Files tab with a SUCCESS row for the file', async () => {
      // Another tab remembered: the link must choose the bank files tab itself.
      await page.evaluate(() => sessionStorage.setItem('ledgerdesk.screenTab.extraction-logs', 'settlementFiles'));
      const loaded = page.locator(`[data-testid="import-row"][data-file="${bankName}"][data-status="succeeded"]`);
      await afterGrid(page, () => loaded.locator('[data-testid="import-log-link"]').click());
      await waitForHash(page, '#/dashboard/extraction-logs');
      await byTestId(page, 'grid-VW_BankFileExtractionLog').waitFor();
      await filterBy(page, 'Description', bankName);
      const row = byTestId(page, 'grid-VW_BankFileExtractionLog').locator('.rdg-row', { hasText: bankName });
      await row.first().waitFor();
      const text = await row.first().textContent();
      assert(text.includes('SUCCESS'), `row ${text}`);
      assert(await row.first().locator('.grid-badge--success').count(), 'SUCCESS is not green');
      await shot(page, 'imports-extraction-log');
    });

    await check('processed bank files: the uploaded rows are in the grid (Text filter)', async () => {
      await openScreen(page, 'csvprocessed', 'VW_BankFinal');
      await scrollToColumn(page, 'VW_BankFinal', 'Text');
      await filterBy(page, 'Text', texts[1]);
      const row = byTestId(page, 'grid-VW_BankFinal').locator('.rdg-row', { hasText: texts[1] });
      await row.first().waitFor();
      const total = await byTestId(page, 'grid-total').textContent();
      assert(total === '1 row', `total ${total}`);
      await shot(page, 'imports-csvprocessed');
    });

    await check('no page errors, console errors or CSP violations', async () => {
      assert(problems.length === 0, `${problems.length}: ${problems.slice(0, 3).join(' | ')}`);
    });
    await context.close();
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (error) {
  results.push(false);
  console.log(`FAIL  e2e setup: ${error?.message ?? error}`);
}
const passed = results.filter(Boolean).length;
const failed = results.length - passed;
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
