// Browser test of the Data Import screen in headless Debian Chromium (playwright-core): a bank
// CSV uploaded and loaded, the same file refused as a duplicate (409), a ticket file failing with
// its row error, the loaded rows on the processed bank files grid and the extraction-log row.
//   BASE_URL=http://127.0.0.1:8080 ADMIN_PASSWORD=... node e2e/imports.e2e.mjs
// Prints one line per check and a closing "e2e: N passed, M failed"; exits non-zero on a failure.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ADMIN_USER, BASE_URL,
  afterGrid, assert, byTestId, clearToasts, collectProblems, createChecks, filterBy, firstTwoLines, launchBrowser,
  loadTranslations, openPage, openScreen, shot, signIn, waitForHash, settled
} from './lib.mjs';

const IMPORT_TIMEOUT = 60_000; // an import is a background job: allow for a busy machine
const en = loadTranslations('en');

const { check, run } = createChecks({ describe: firstTwoLines });

/** The grid renders only the columns in view: scrolls right until the column's header exists. */
async function scrollToColumn(page, viewName, field) {
  const grid = byTestId(page, `grid-${viewName}`).locator('.rdg');
  for (let i = 0; i < 20 && !(await byTestId(page, `filter-${field}`).count()); i++) {
    await grid.evaluate((el) => {
      el.scrollLeft += 300;
    });
    await settled(page); // the columns scrolled into view are rendered
  }
  await byTestId(page, `filter-${field}`).scrollIntoViewIfNeeded();
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

  // Two MT940 files of one account: the second repeats the first statement (every line with the
  // same reference, NONREF) and adds a later one whose number skips a statement.
  const account = `DE89370400440532${String(stamp).slice(-6)}`;
  const statement = (number, day, open, close, lines) =>
    [`:20:STARTUMS`, `:25:${account}`, `:28C:${number}/1`, `:60F:C2603${day}EUR${open}`,
      ...lines.flatMap(([amount, text]) => [`:61:2603${day}03${day}${amount}NTRFNONREF//SAMEREF`, `:86:${text}`]),
      `:62F:C2603${day}EUR${close}`, '-'].join('\n');
  const first = statement('00001', '02', '100,00', '90,00', [['D5,00', `E2E fee ${stamp}`], ['D5,00', `E2E fee ${stamp}`]]);
  const mtFirstName = `statement-e2e-${stamp}-1.sta`;
  const mtBothName = `statement-e2e-${stamp}-1-3.sta`;
  writeFileSync(path.join(dir, mtFirstName), `${first}\n`);
  writeFileSync(path.join(dir, mtBothName), `${first}\n${statement('00003', '04', '90,00', '190,00', [['C100,00', `E2E payout ${stamp}`]])}\n`);

  const browser = await launchBrowser();
  try {
    const { context, page } = await openPage(browser, { viewport: { width: 1280, height: 800 } });
    // The browser logs every 4xx answer: the duplicate upload answers 409 on purpose.
    const problems = collectProblems(
      page,
      (msg) => /status of 409/.test(msg.text()) && (msg.location().url ?? '').endsWith('/api/imports'),
      { withUrl: true },
    );

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
      const { error: message, code, params } = await response.json();
      assert(code === 'import.duplicate', `code ${code}`);
      const status = await waitForStatus(page, bankName, ['duplicate', 'refused', 'succeeded', 'failed']);
      assert(status === 'duplicate', `status ${status}`);
      // The row shows the message from its code, with the time in the user's date format.
      const outcome = await uploadRow(page, bankName).locator('[data-testid="import-outcome"]').textContent();
      assert(/already imported/i.test(outcome) && outcome.includes(`#${params.id} (${params.file})`) && !outcome.includes('UTC'),
        `outcome ${outcome} (server said ${message})`);
      const tag = await uploadRow(page, bankName).locator('[data-testid="import-status"]').textContent();
      assert(tag === en.imports.phase.duplicate, `tag ${tag}`);
    });

    await check('MT940: equal lines with one reference all load; an overlapping file loads only the new one and names the rest', async () => {
      await clearToasts(page);
      await upload(page, 'bank', path.join(dir, mtFirstName));
      assert((await waitForStatus(page, mtFirstName, ['succeeded', 'failed'])) === 'succeeded', 'first statement not loaded');
      let outcome = await uploadRow(page, mtFirstName).locator('[data-testid="import-outcome"]').textContent();
      assert(outcome.startsWith('2 rows loaded'), `outcome ${outcome}`);
      await upload(page, 'bank', path.join(dir, mtBothName));
      assert((await waitForStatus(page, mtBothName, ['succeeded', 'failed'])) === 'succeeded', 'second file not loaded');
      const row = uploadRow(page, mtBothName);
      outcome = await row.locator('[data-testid="import-outcome"]').textContent();
      assert(outcome.startsWith('1 row loaded') && outcome.includes('2'), `outcome ${outcome}`);
      await row.locator('[data-testid="import-row-notes-toggle"]').click();
      const items = await row.locator('[data-testid="import-row-notes"] li').allTextContents();
      assert(items.length === 3, `notes ${JSON.stringify(items)}`);
      assert(items.filter((i) => i.includes(mtFirstName) && i.includes(en.imports.notLoaded)).length === 2, `present notes ${JSON.stringify(items)}`);
      assert(items.some((i) => i.includes('is number 3') && i.includes('number 1')), `gap note ${JSON.stringify(items)}`);
      await shot(page, 'imports-statement-notes');
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

    await check('the extraction-log link opens the Bank Files tab on the file\'s own SUCCESS row; the chip shows them all', async () => {
      // Another tab remembered: the link must choose the bank files tab itself.
      await page.evaluate(() => sessionStorage.setItem('ledgerdesk.screenTab.extraction-logs', 'settlementFiles'));
      const loaded = page.locator(`[data-testid="import-row"][data-file="${bankName}"][data-status="succeeded"]`);
      const href = await loaded.locator('[data-testid="import-log-link"]').getAttribute('href');
      assert(/#\/dashboard\/extraction-logs\?tab=bankFiles&Id=\d+$/.test(href), `link ${href}`);
      await afterGrid(page, () => loaded.locator('[data-testid="import-log-link"]').click());
      const grid = byTestId(page, 'grid-VW_BankFileExtractionLog');
      await grid.waitFor();
      await byTestId(page, 'grid-linked').waitFor();
      await page.waitForFunction(() => document.querySelector('[data-testid="grid-total"]')?.textContent === '1 row');
      const row = grid.locator('.rdg-row', { hasText: bankName });
      const text = await row.textContent();
      assert(text.includes('SUCCESS'), `row ${text}`);
      assert(await row.locator('.grid-badge--success').count(), 'SUCCESS is not green');
      await shot(page, 'imports-extraction-log');
      await byTestId(page, 'grid-linked').click();
      await waitForHash(page, '#/dashboard/extraction-logs');
      await byTestId(page, 'grid-linked').waitFor({ state: 'detached' });
    });

    await check('processed bank files: Reprocess asks first; No sends nothing', async () => {
      await openScreen(page, 'csvprocessed', 'VW_BankFinal');
      let posted = 0;
      const count = (r) => {
        if (r.url().endsWith('/api/bank/reprocess')) posted++;
      };
      page.on('request', count);
      await byTestId(page, 'grid-action-reprocess').click();
      const dialog = page.locator('.p-confirm-dialog');
      await dialog.waitFor();
      const text = await dialog.locator('.p-confirm-dialog-message').textContent();
      assert(text === en.messages.reprocessConfirm, `question ${text}`);
      await dialog.locator('.p-confirm-dialog-reject').click();
      await dialog.waitFor({ state: 'detached' });
      await settled(page);
      page.off('request', count);
      assert(posted === 0, `${posted} reprocess requests after No`);
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

await run(main);
