// Browser test of the exception queue (dashboard/open-items, VW_ReconOpenItems) on the
// demo data set, after an automatic run of each level (the queue lists what runs left open; it
// runs after the other scripts, whose checks start from unreconciled data): its menu entry
// right under Reconcile, the open items oldest first, a filter to
// unmatched tickets, the sort by age both ways, two tickets assigned to a user in one task (the
// rows then show the task and the assignee), a ticket marked for investigation and back, the
// chain of a row opened on the reconcile screen, and screenshots in English and Swedish.
//   BASE_URL=http://127.0.0.1:8080 ADMIN_PASSWORD=... SKIP_DEMO=1 node e2e/workqueue.e2e.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  afterGrid, assert, byTestId, callApi, clearToasts, collectProblems, createChecks, firstTwoLines, launchBrowser, loadTranslations,
  openPage, shot, signIn,
} from './lib.mjs';

const en = loadTranslations('en');
const sv = loadTranslations('sv');
const { check, run } = createChecks({ describe: firstTwoLines, stopAfterFailure: true });
const VIEW = 'VW_ReconOpenItems';

function loadDemo() {
  if (process.env.SKIP_DEMO === '1') return;
  const bin = process.env.LEDGERDESK_BIN;
  assert(bin && process.env.DATABASE_URL, 'LEDGERDESK_BIN and DATABASE_URL are needed to load the demo data (or SKIP_DEMO=1)');
  const out = mkdtempSync(path.join(tmpdir(), 'ledgerdesk-demo-'));
  // (the scripts before this one loaded it already when the whole suite runs)
  const log = execFileSync(bin, ['demo', '-out', out, '--load', '--if-empty'], { env: process.env, encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });
  assert(/rows loaded|already has imports/.test(log), `demo load: ${log}`);
}

/**
 * The values of a column on the rendered rows. The grid renders only the columns in view, so it
 * is scrolled until the column's header is there; cells are matched by aria-colindex.
 */
async function columnTexts(page, field) {
  const grid = page.locator(`[data-testid="grid-${VIEW}"] .rdg`);
  for (const left of [0, 400, 800, 1200, 1600, 2400]) {
    await grid.evaluate((el, x) => (el.scrollLeft = x), left);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const index = await page.evaluate((f) => document.querySelector(`[data-testid="header-${f}"]`)?.closest('[role="columnheader"]')?.getAttribute('aria-colindex'), field);
    if (index) {
      return grid.locator('.rdg-row').evaluateAll((rows, i) => rows.map((r) => r.querySelector(`[role="gridcell"][aria-colindex="${i}"]`)?.textContent ?? ''), index);
    }
  }
  throw new Error(`no column ${field} in the grid`);
}

/** Sorts by a column (clicking its header) until the grid asks for the order wanted. */
async function sortBy(page, field, order) {
  for (let i = 0; i < 3; i++) {
    const body = await afterGrid(page, () => byTestId(page, `header-${field}`).click(), (b) => b.includes(VIEW));
    if (body.SortField === field && body.SortOrder === order) return body;
  }
  throw new Error(`the grid never sorted ${field} ${order}`);
}

async function main() {
  loadDemo();
  const browser = await launchBrowser();
  try {
    const { page } = await openPage(browser, { viewport: { width: 1440, height: 900 } });
    const problems = collectProblems(page, (msg) => /status of (4|5)\d\d/.test(msg.text()), { withUrl: true });
    await signIn(page);
    const stamp = Date.now().toString(36);

    await check('an automatic run of each level leaves its exceptions in the queue', async () => {
      for (const slug of ['ticket-transaction', 'transaction-settlement', 'settlement-bank']) {
        const run = await callApi(page, 'POST', `/recon/${slug}/auto`, {});
        assert(run.status === 200 && run.body?.data?.status === 'succeeded', `run ${slug}: ${run.status} ${JSON.stringify(run.body)}`);
      }
    });

    await check('the menu lists Open Items right under Reconcile and opens the queue, oldest first', async () => {
      // the metadata screens' entries come with the screens the server lists
      await byTestId(page, 'sidebar-menu').locator('a[href$="/dashboard/open-items"]').waitFor({ state: 'attached' });
      const links = await byTestId(page, 'sidebar-menu').locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      const at = links.findIndex((h) => h.endsWith('/dashboard/bank-settlement'));
      assert(at >= 0 && links[at + 1]?.endsWith('/dashboard/open-items'), `menu: ${links.join(' ')}`);
      const body = await afterGrid(page, () => page.goto(new URL(links[at + 1], page.url()).href), (b) => b.includes(VIEW));
      assert(body.SortField === 'AgeDays' && body.SortOrder === 'desc', `first request ${JSON.stringify(body)}`);
      await byTestId(page, `grid-${VIEW}`).waitFor();
      const ages = (await columnTexts(page, 'AgeDays')).map(Number);
      assert(ages.length > 5 && ages.every((a, i) => i === 0 || ages[i - 1] >= a), `ages not oldest first: ${ages.join(',')}`);
      assert(await page.getByText(en.screens.openItems.title).first().isVisible(), 'title');
    });

    await check('a filter to unmatched tickets, then the sort by age both ways', async () => {
      await byTestId(page, 'filter-Kind').click();
      await byTestId(page, 'filter-value-Kind').click();
      await afterGrid(page, () => page.locator('.p-dropdown-item, .p-multiselect-item', { hasText: en.views[VIEW].values.Kind.ticket }).first().click(),
        (b) => b.includes('"field":"Kind"'));
      await page.keyboard.press('Escape');
      await page.mouse.click(5, 790);
      const kinds = await columnTexts(page, 'Kind');
      assert(kinds.length > 0 && kinds.every((k) => k === en.views[VIEW].values.Kind.ticket), `kinds ${[...new Set(kinds)].join(',')}`);
      const asc = await sortBy(page, 'AgeDays', 'asc');
      assert(asc.Filters.some((f) => f.field === 'Kind'), 'the filter stays with the sort');
      const ages = (await columnTexts(page, 'AgeDays')).map(Number);
      assert(ages.every((a, i) => i === 0 || ages[i - 1] <= a), `ages not youngest first: ${ages.join(',')}`);
      await sortBy(page, 'AgeDays', 'desc');
    });

    let chosenRefs = [];
    await check('two tickets are assigned to the admin in one task: the rows show the task and the assignee', async () => {
      const rows = page.locator(`[data-testid="grid-${VIEW}"] .rdg-row`);
      chosenRefs = (await columnTexts(page, 'Reference')).slice(0, 2);
      await rows.nth(0).locator('input[type="checkbox"]').click();
      await rows.nth(1).locator('input[type="checkbox"]').click();
      await byTestId(page, 'grid-chosen').waitFor();
      await byTestId(page, 'grid-action-assign').click();
      await byTestId(page, 'action-dialog-assign').waitFor();
      await byTestId(page, 'action-assign-assignedToId').click();
      await page.locator('.p-dropdown-item', { hasText: 'admin' }).first().click();
      await byTestId(page, 'action-assign-taskName').fill(`Open items ${stamp}`);
      await shot(page, 'workqueue-assign-en');
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/recon/open-items/assign')),
        // the grid reads its page again after the action
        page.waitForResponse((r) => r.url().endsWith('/api/grid') && (r.request().postData() ?? '').includes(VIEW)),
        byTestId(page, 'action-apply').click(),
      ]);
      assert(response.status() === 200, `assign: ${response.status()} ${await response.text()}`);
      await page.locator('.p-toast-message-success').first().waitFor();
      await byTestId(page, 'action-dialog-assign').waitFor({ state: 'detached' });
      const refs = await columnTexts(page, 'Reference');
      const assignees = await columnTexts(page, 'Assignee');
      for (const ref of chosenRefs) {
        const i = refs.indexOf(ref);
        assert(i >= 0 && assignees[i] === 'admin', `ticket ${ref}: assignee '${assignees[i]}'`);
      }
      await clearToasts(page);
    });

    await check('an unmatched ticket is marked for investigation (status Investigation), then the mark is taken away', async () => {
      const rows = page.locator(`[data-testid="grid-${VIEW}"] .rdg-row`);
      const at = (await columnTexts(page, 'Status')).indexOf(en.recon.status.unmatched);
      assert(at >= 0, 'no unmatched ticket on the page');
      await rows.nth(at).locator('input[type="checkbox"]').click();
      await byTestId(page, 'grid-action-investigate').click();
      await byTestId(page, 'action-investigate-reason').fill('The customer says the card was charged twice');
      await afterGrid(page, () => byTestId(page, 'action-apply').click(), (b) => b.includes(VIEW));
      let statuses = await columnTexts(page, 'Status');
      assert(statuses[at] === en.recon.status.investigation, `status after the mark: ${statuses[at]}`);
      await rows.nth(at).locator('input[type="checkbox"]').click();
      await afterGrid(page, () => byTestId(page, 'grid-action-uninvestigate').click(), (b) => b.includes(VIEW));
      statuses = await columnTexts(page, 'Status');
      assert(statuses[at] === en.recon.status.unmatched, `status after the mark went: ${statuses[at]}`);
      await clearToasts(page);
    });

    await check('Open chain shows the record on the reconcile screen', async () => {
      const rows = page.locator(`[data-testid="grid-${VIEW}"] .rdg-row`);
      await rows.nth(0).locator('input[type="checkbox"]').click();
      await byTestId(page, 'grid-action-chain').click();
      await page.waitForURL(/#\/dashboard\/bank-settlement\?chain=ticket:\d+/);
      await byTestId(page, 'chain-panel').waitFor();
      await shot(page, 'workqueue-chain-en');
      await page.goBack();
      await byTestId(page, `grid-${VIEW}`).waitFor();
    });

    await check('a reconcile tab filters by status from its status column, then shows the open rows only', async () => {
      const REPORT = 'VW_ReconTicketTransaction';
      const today = new Date();
      const link = `${page.url().split('#')[0]}#/dashboard/bank-settlement?tab=0&fromDate=${today.getFullYear() - 2}-01-01&toDate=${today.toISOString().slice(0, 10)}`;
      await afterGrid(page, () => page.goto(link), (b) => b.includes(REPORT));
      await byTestId(page, `grid-${REPORT}`).locator('[data-testid="row-status"]').first().waitFor();
      const severities = () => byTestId(page, `grid-${REPORT}`).locator('[data-testid="row-status"]').evaluateAll((els) => els.map((e) => e.dataset.severity));
      await byTestId(page, 'filter-ReconcileStatusNumber').click();
      await byTestId(page, 'filter-value-ReconcileStatusNumber').click();
      // after the run, the day groups left are partly matched (no day is wholly unmatched)
      const body = await afterGrid(page, () => page.locator('.p-dropdown-item', { hasText: en.recon.status.partlyMatched }).first().click(),
        (b) => b.includes('"field":"ReconcileStatusNumber"'));
      assert(JSON.stringify(body.Filters) === JSON.stringify([{ field: 'ReconcileStatusNumber', op: 'equals', value: 2 }]), `filters ${JSON.stringify(body.Filters)}`);
      await page.keyboard.press('Escape');
      await page.mouse.click(5, 790);
      await page.waitForFunction((view) => [...document.querySelectorAll(`[data-testid="grid-${view}"] [data-testid="row-status"]`)].every((e) => e.dataset.severity === 'warning'), REPORT);
      const partial = await severities();
      assert(partial.length > 0 && partial.every((v) => v === 'warning'), `severities ${partial.join(',')}`);
      await shot(page, 'recon-status-filter-en');
      await afterGrid(page, () => byTestId(page, 'grid-open-only').click(), (b) => b.includes('"op":"in"'));
      await page.waitForFunction((view) => [...document.querySelectorAll(`[data-testid="grid-${view}"] [data-testid="row-status"]`)].some((e) => e.dataset.severity === 'warning'), REPORT);
      const open = await severities();
      assert(open.length > 0 && open.every((v) => v !== 'success'), `open only shows ${open.join(',')}`);
      // back to the queue
      await afterGrid(page, () => page.goto(`${page.url().split('#')[0]}#/dashboard/open-items`), (b) => b.includes(VIEW));
      await byTestId(page, `grid-${VIEW}`).waitFor();
    });

    await check('in Swedish: the menu, headers and values', async () => {
      await byTestId(page, 'language-button').click();
      await byTestId(page, 'language-option-sv').click();
      await page.getByText(sv.views[VIEW].fields.AgeDays).first().waitFor();
      await page.getByText(sv.menu.openItems).first().waitFor();
      await shot(page, 'workqueue-sv');
      await byTestId(page, 'language-button').click();
      await byTestId(page, 'language-option-en').click();
      await page.getByText(en.views[VIEW].fields.AgeDays).first().waitFor();
    });

    await check('no page or console errors beyond expected 4xx answers', async () => {
      assert(problems.length === 0, problems.join('; '));
    });
  } finally {
    await browser.close();
  }
}

await run(main);
