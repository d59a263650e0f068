// Browser test of four-eyes approvals, "one match, four eyes": with the forcedMatch rule on, a
// second user forces a match of a ticket and a transaction that cannot match (two currencies,
// far apart) through the API and is told it waits for approval (202, nothing matched); the admin
// sees the request on the Approvals screen in words, approves it with a reason, and the match
// exists; the requester's Home lists the request as approved, by whom and why; the month is
// closed (the Reconcile tab says so, an undo dated in it is refused) and reopened; the audit
// trail lists all of it. Runs first of the scripts (alphabetically), so it brings its own records
// (two CSV imports dated 2025-02, away from the demo data's days), reopens the month it closed
// and turns the rule off again.
//   BASE_URL=http://127.0.0.1:8080 ADMIN_PASSWORD=... node e2e/approvals.e2e.mjs
// Prints one line per check and a closing "e2e: N passed, M failed"; exits non-zero on a failure.
import path from 'node:path';
import {
  ADMIN_PASSWORD, ADMIN_USER, BASE_URL, SCREENSHOT_DIR,
  afterGrid, assert, byTestId, clearToasts, collectProblems, createChecks, firstTwoLines, launchBrowser, loadTranslations,
  openPage, openScreen, shot, signIn, submitSignIn, waitForHash,
} from './lib.mjs';

const en = loadTranslations('en');
const IMPORT_TIMEOUT = 60_000; // an import is a background job: allow for a busy machine
const stamp = Date.now();
const NUMBER = `6${String(stamp).slice(-12)}`; // the ticket's number, and the transaction's reference
const DAY = '2025-02-11';
const ROLE = `E2E Asker ${stamp}`;
const REQUESTER = { username: `asker${stamp}`, password: 'Asker#2026a', email: `asker.${stamp}@ledgerdesk.test` };
const REASON = 'The bank confirmed both are the same sale';

let failurePage = null;
// Each step needs the one before it: after a failure the rest are skipped.
const { check, run } = createChecks({
  describe: firstTwoLines,
  stopAfterFailure: true,
  onFailure: () => failurePage?.screenshot({ path: path.join(SCREENSHOT_DIR, 'approvals-failure.png'), fullPage: true }).catch(() => {}),
});

// ---- the API, as the admin or the requester -------------------------------------------------
async function login(username, password) {
  const res = await fetch(`${BASE_URL}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const token = (await res.json())?.data?.token;
  assert(token, `sign-in of ${username}: ${res.status}`);
  return token;
}

/** A call with a token: {status, body} whatever the answer. */
async function call(token, method, url, body) {
  const isForm = body instanceof FormData;
  const res = await fetch(`${BASE_URL}/api${url}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(isForm || body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: isForm ? body : body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** A call that must succeed: its data. */
async function must(token, method, url, body) {
  const { status, body: answer } = await call(token, method, url, body);
  assert(status >= 200 && status < 300 && answer?.succeeded !== false, `${method} ${url}: ${status} ${JSON.stringify(answer)}`);
  return answer?.data;
}

async function importCsv(token, kind, name, lines) {
  const form = new FormData();
  form.set('kind', kind);
  form.set('format', 'csv');
  form.set('file', new Blob([lines.join('\n') + '\n'], { type: 'text/csv' }), name);
  const { importId } = await must(token, 'POST', '/imports', form);
  const until = Date.now() + IMPORT_TIMEOUT;
  for (;;) {
    const f = await must(token, 'GET', `/imports/${importId}`);
    if (f.status === 'succeeded') return;
    assert(f.status !== 'failed' && Date.now() < until, `import ${name}: ${JSON.stringify(f)}`);
    await new Promise((resolve) => setTimeout(resolve, 250)); // polls the job's state, as tasks.e2e does
  }
}

/** Turns a four-eyes rule on or off: an inline edit of its row (VW_ApprovalRules) with the row's version. */
async function setRule(token, action, enabled) {
  const page = await must(token, 'POST', '/grid', {
    ViewName: 'VW_ApprovalRules', PageSize: 50, PageNumber: 0, Filters: [], SortField: 'Position', SortOrder: 'asc',
  });
  const row = page.dataList.find((r) => r.Action === action);
  assert(row, `no approval rule ${action}: ${JSON.stringify(page.dataList)}`);
  if (row.Enabled === enabled) return;
  await must(token, 'PUT', '/grid/row', { ViewName: 'VW_ApprovalRules', Key: action, Values: { Enabled: enabled }, Version: row.UpdatedOn });
}

/** The rows of the approvals grid that show `text`. */
const requestRow = (page, text) => page.locator('[data-testid="grid-VW_Approvals"] .rdg-row', { hasText: text });

async function main() {
  const admin = await login(ADMIN_USER, ADMIN_PASSWORD);
  let ruleOn = false;
  let monthClosed = false;
  let requester = '';
  let ticketId = 0;
  let transactionId = 0;
  let requestId = 0;
  // What the approver reads: the request in words, the level by its name (en.json's forcedMatch line).
  const what = en.serverMessages.approvals.what.forcedMatch
    .replace('{{left}}', NUMBER)
    .replace('{{right}}', NUMBER)
    .replace('$t(recon.levels.{{level}})', en.recon.tabs.ticketTransaction);

  const browser = await launchBrowser();
  try {
    const { page } = await openPage(browser, { viewport: { width: 1440, height: 900 } });
    failurePage = page;
    const problems = collectProblems(page, () => false, { withUrl: true });

    await check('set-up through the API: forcedMatch on, a requester holding Home, Reconcile and Approvals, a ticket and a transaction that cannot match', async () => {
      await setRule(admin, 'forcedMatch', true);
      ruleOn = true;
      const role = await must(admin, 'POST', '/roles', { roleName: ROLE, description: 'four-eyes browser test' });
      await must(admin, 'PUT', `/roles/${role.id}/screens`, { screenIds: [1, 13, 17] });
      const { user } = await must(admin, 'POST', '/users', {
        username: REQUESTER.username, firstName: 'Ada', lastName: 'Asker', email: REQUESTER.email, mobileNumber: '', dateOfBirth: null,
        password: REQUESTER.password, dateFormat: 'DD-MM-YYYY HH:mm:ss', languageCode: 'en', enableTwoFactor: false, twoFactorType: 0,
      });
      await must(admin, 'PUT', `/users/${user.id}/roles`, { roleIds: [role.id] });
      // 100 SEK against 5,000 NOK: no rate, no currency tolerance or far outside it, so only a forced match pairs them
      await importCsv(admin, 'ticket', `tickets-approvals-${stamp}.csv`, [
        'TicketNumber,TransDate,PaymentType,CountryCode,Currency,TransactionCode,SaleAmount',
        `${NUMBER},${DAY},CC,SE,SEK,TKTT,100.00`,
      ]);
      await importCsv(admin, 'transaction', `transactions-approvals-${stamp}.csv`, [
        'ClientUniqueID,ProcessingDate,ProviderActor,AcquiringBank,PaymentMethod,Currency,TransactionAmount,TransactionType',
        `${NUMBER},${DAY},nuvei,Bank A,Visa,NOK,5000.00,Sale`,
      ]);
      requester = await login(REQUESTER.username, REQUESTER.password);
      const candidates = await must(requester, 'POST', '/recon/ticket-transaction/candidates', {
        fromDate: DAY, toDate: DAY, currency: [], provider: [], clientUniqueId: NUMBER,
      });
      ticketId = candidates.item1.find((r) => r.ticket_number === NUMBER)?.id;
      transactionId = candidates.item2.find((r) => r.ClientUniqueID === NUMBER)?.id;
      assert(ticketId && transactionId, `candidates ${JSON.stringify(candidates)}`);
    });

    await check('the requester forces the match: refused without force, then 202 "sent for approval" and nothing matched', async () => {
      const refused = await call(requester, 'POST', '/recon/ticket-transaction/match', { leftIds: [ticketId], rightIds: [transactionId] });
      assert(refused.status === 400 && refused.body.field === 'force', `unforced: ${refused.status} ${JSON.stringify(refused.body)}`);
      const { status, body } = await call(requester, 'POST', '/recon/ticket-transaction/match', {
        leftIds: [ticketId], rightIds: [transactionId], force: true, reason: 'Same sale, paid in another currency',
      });
      assert(status === 202, `forced: ${status} ${JSON.stringify(body)}`);
      assert(body.succeeded === false && body.code === 'approvals.pending' && body.params?.action === 'forcedMatch', `envelope ${JSON.stringify(body)}`);
      requestId = body.params.id;
      assert(Number(requestId) > 0, `request id ${JSON.stringify(body.params)}`);
      const chain = await must(admin, 'GET', `/recon/chain/ticket/${ticketId}`);
      assert(!chain.links.some((l) => l.matchId), `matched before approval: ${JSON.stringify(chain.links)}`);
      const mine = (await must(requester, 'GET', '/approvals')).mine;
      assert(mine.some((r) => r.id === requestId && r.status === 'pending'), `GET /approvals mine ${JSON.stringify(mine)}`);
    });

    await check('admin: the Approvals screen lists the request as pending, with what it asks in words', async () => {
      await signIn(page);
      await page.locator('nav a[href="#/dashboard/approvals"]').waitFor();
      await openScreen(page, 'approvals', 'VW_Approvals');
      assert((await byTestId(page, 'screen-title').textContent()) === en.screens.approvals.title, 'screen title');
      const tabs = (await page.locator('.p-tabview-nav li').allTextContents()).filter((t) => t.trim() !== ''); // (less the ink bar)
      assert(JSON.stringify(tabs) === JSON.stringify([en.tabs.approvals, en.tabs.periods]), `tabs ${JSON.stringify(tabs)}`);
      const row = requestRow(page, what);
      await row.waitFor();
      const text = await row.textContent();
      // (the grid renders the columns in view: who asked is further right)
      for (const want of [String(requestId), en.approvals.status.pending, en.views.VW_Approvals.values.Action.forcedMatch]) {
        assert(text.includes(want), `the request's row lacks ${want}: ${text}`);
      }
      assert(!/approvals\.|views\.|\$t\(/.test(text), `an untranslated key: ${text}`);
      const headers = await byTestId(page, 'grid-VW_Approvals').locator('.rdg-header-row').textContent();
      for (const field of ['Id', 'Action', 'What']) {
        assert(headers.includes(en.views.VW_Approvals.fields[field]), `header ${field} missing: ${headers}`);
      }
      await shot(page, 'approvals');
    });

    await check('admin approves it with a reason: the success toast, and the row says Approved', async () => {
      const row = requestRow(page, what);
      await row.locator('input[type="checkbox"]').click();
      await byTestId(page, 'grid-chosen').waitFor();
      await byTestId(page, 'grid-action-approve').click();
      await byTestId(page, 'action-dialog-approve').waitFor();
      await byTestId(page, 'action-approve-reason').fill(REASON);
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith(`/api/approvals/${requestId}/approve`) && r.request().method() === 'POST'),
        // the grid reads its page again after the action
        page.waitForResponse((r) => r.url().endsWith('/api/grid') && (r.request().postData() ?? '').includes('VW_Approvals')),
        byTestId(page, 'action-apply').click(),
      ]);
      assert(answer.status() === 200, `approve: ${answer.status()} ${await answer.text()}`);
      await page.locator('.p-toast-message-success', { hasText: en.messages.approved }).waitFor();
      await byTestId(page, 'action-dialog-approve').waitFor({ state: 'detached' });
      await page.waitForFunction(
        ([w, status]) => [...document.querySelectorAll('[data-testid="grid-VW_Approvals"] .rdg-row')].some((r) => r.textContent.includes(w) && r.textContent.includes(status)),
        [what, en.approvals.status.approved],
      );
      // who decided and why, in the view's columns further right
      const { dataList } = await must(admin, 'POST', '/grid', {
        ViewName: 'VW_Approvals', PageSize: 10, PageNumber: 0, Filters: [{ field: 'Id', op: 'equals', value: requestId }], SortField: 'Id', SortOrder: 'asc',
      });
      const [decided] = dataList;
      assert(decided?.Status === 'approved' && decided.DecidedBy === ADMIN_USER && decided.DecisionReason === REASON && decided.RequestedBy === REQUESTER.username,
        `the request as the grid reads it: ${JSON.stringify(dataList)}`);
      await clearToasts(page);
      await shot(page, 'approvals-approved');
    });

    await check("the match exists now: the ticket's chain shows it live, forced, made as the requester", async () => {
      const chain = await must(admin, 'GET', `/recon/chain/ticket/${ticketId}`);
      const link = chain.links.find((l) => l.matchId && l.to?.id === transactionId);
      assert(link && link.rule === 'forced' && link.status !== 'unmatched', `links ${JSON.stringify(chain.links)}`);
      assert(link.createdBy === REQUESTER.username, `made by ${link.createdBy}`);
    });

    await check("the requester's Home lists the request as approved, by whom and why", async () => {
      const home = await must(requester, 'GET', '/home');
      assert(home.approvals?.waiting === 0, `waiting ${JSON.stringify(home.approvals)}`);
      const mine = home.approvals.mine.find((r) => r.id === requestId);
      assert(mine?.status === 'approved' && mine.decidedBy === ADMIN_USER && mine.decisionReason === REASON, `mine ${JSON.stringify(home.approvals.mine)}`);
      const { context: other, page: asker } = await openPage(browser, { viewport: { width: 1440, height: 900 } });
      try {
        await submitSignIn(asker, REQUESTER.username, REQUESTER.password);
        await waitForHash(asker, '#/dashboard/home');
        const item = byTestId(asker, 'home-approvals').locator(`[data-testid="home-approval"][data-status="approved"]`, { hasText: what });
        await item.waitFor();
        const text = await item.textContent();
        assert(text.includes(en.approvals.status.approved) && text.includes(ADMIN_USER) && text.includes(REASON), `home: ${text}`);
        assert((await byTestId(asker, 'home-approvals-waiting').textContent()).includes(en.home.approvals.waiting_other.replace('{{formatted}}', '0')), 'waiting count');
        await shot(asker, 'approvals-home');
      } finally {
        await other.close();
      }
    });

    await check('the Closed periods tab closes February 2025 for every level: the month typed in the user\'s format, no level chosen', async () => {
      await openScreen(page, 'approvals', 'VW_Approvals');
      await afterGrid(page, () => page.locator('.p-tabview-nav li', { hasText: en.tabs.periods }).click(), (b) => b.includes('VW_ClosedPeriods'));
      await byTestId(page, 'grid-VW_ClosedPeriods').waitFor();
      await byTestId(page, 'grid-action-close').click();
      const dialog = byTestId(page, 'action-dialog-close');
      await dialog.waitFor();
      assert((await dialog.textContent()).includes(en.messages.closeConfirm), 'the confirmation question');
      const month = page.locator('#action-close-month');
      const pattern = await month.getAttribute('placeholder'); // the user's date format without its day, e.g. MM-YYYY
      await month.fill(pattern.replace('YYYY', '2025').replace('MM', '02'));
      await month.press('Tab');
      const level = byTestId(page, 'action-close-level');
      await page.waitForFunction(() => document.querySelector('[data-testid="action-close-level"] .p-dropdown-label')?.textContent !== '');
      assert((await level.locator('.p-dropdown-label').textContent()) === en.actions.allLevels, 'the level placeholder');
      await level.click();
      const options = await page.locator('.p-dropdown-panel .p-dropdown-item').allTextContents();
      assert(options.includes(en.recon.tabs.ticketTransaction) && options.includes(en.recon.tabs.settlementBank), `level options ${JSON.stringify(options)}`);
      await level.click(); // closes the list (Escape would close the dialog too)
      await page.locator('.p-dropdown-panel').waitFor({ state: 'detached' });
      await shot(page, 'approvals-close');
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/periods/2025-02/close') && r.request().method() === 'POST'),
        byTestId(page, 'action-apply').click(),
      ]);
      assert(answer.status() === 200, `close: ${answer.status()} ${await answer.text()}`);
      monthClosed = true;
      assert(answer.request().postDataJSON().level === null, `close sent ${answer.request().postData()}`);
      await page.locator('.p-toast-message-success', { hasText: en.messages.periodClosed }).waitFor();
      await page.locator('[data-testid="grid-VW_ClosedPeriods"] .rdg-row', { hasText: '2025-02' }).filter({ hasText: en.periods.status.closed }).waitFor();
      await clearToasts(page);
    });

    await check('the Reconcile tab of those days says February is closed, by whom and when; a write dated in it is refused', async () => {
      await page.goto(`${BASE_URL}/#/dashboard/bank-settlement?tab=0&fromDate=2025-02-01&toDate=2025-02-28`);
      const note = byTestId(page, 'closed-periods');
      await note.waitFor();
      const text = await note.textContent();
      assert(text.includes(en.periods.allLevels) && text.includes(ADMIN_USER) && /02.2025|2025.02/.test(text), `note: ${text}`);
      assert((await note.getAttribute('role')) === 'status', 'the note is no status');
      await shot(page, 'approvals-recon-note');
      const chain = await must(admin, 'GET', `/recon/chain/ticket/${ticketId}`);
      const matchId = chain.links.find((l) => l.matchId)?.matchId;
      const undo = await call(admin, 'DELETE', `/recon/ticket-transaction/match/${matchId}`, { reason: 'wrong pair' });
      assert(undo.status === 409 && undo.body.code === 'periods.closed' && undo.body.params?.month === '2025-02', `undo in a closed month: ${undo.status} ${JSON.stringify(undo.body)}`);
    });

    await check('February is reopened with a reason: the row says Reopened', async () => {
      // (the screen opens on the tab last shown, or the one a link names)
      await openScreen(page, 'approvals?tab=periods', 'VW_ClosedPeriods');
      const row = page.locator('[data-testid="grid-VW_ClosedPeriods"] .rdg-row', { hasText: '2025-02' });
      await row.locator('input[type="checkbox"]').click();
      await byTestId(page, 'grid-action-reopen').click();
      await byTestId(page, 'action-reopen-reason').fill('Late bank bookings');
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/periods/2025-02/reopen') && r.request().method() === 'POST'),
        byTestId(page, 'action-apply').click(),
      ]);
      assert(answer.status() === 200, `reopen: ${answer.status()} ${await answer.text()}`);
      monthClosed = false;
      await page.locator('.p-toast-message-success', { hasText: en.messages.periodReopened }).waitFor();
      await row.filter({ hasText: en.periods.status.reopened }).waitFor();
      const periods = await must(admin, 'GET', '/periods');
      assert(periods.every((p) => p.reopenedOn), `a closing is still in force: ${JSON.stringify(periods)}`);
      await shot(page, 'approvals-periods');
      await clearToasts(page);
    });

    await check('the audit trail lists the request, the approval, the match and the closing', async () => {
      await openScreen(page, 'audit', 'VW_AuditLog');
      assert((await byTestId(page, 'screen-title').textContent()) === en.screens.audit.title, 'screen title');
      const grid = byTestId(page, 'grid-VW_AuditLog');
      await grid.locator('.rdg-row').first().waitFor();
      const text = await grid.textContent();
      for (const action of ['approval.request', 'approval.approve', 'recon.match.forced', 'period.close', 'period.reopen']) {
        assert(text.includes(action), `no ${action} on the first page`);
      }
      const headers = await grid.locator('.rdg-header-row').textContent();
      for (const field of ['At', 'User', 'Action', 'Entity']) assert(headers.includes(en.views.VW_AuditLog.fields[field]), `header ${field} missing: ${headers}`);
      await shot(page, 'audit');
    });

    await check('no page or console errors', async () => {
      assert(problems.length === 0, problems.join('; '));
    });
  } finally {
    // later scripts force matches and run reconciliations of their own: the month opens, the rule goes off
    if (monthClosed) await must(admin, 'POST', '/periods/2025-02/reopen', { reason: 'browser test cleanup' }).catch((error) => console.log(`FAIL  reopening 2025-02: ${error.message}`));
    if (ruleOn) await setRule(admin, 'forcedMatch', false).catch((error) => console.log(`FAIL  turning forcedMatch off again: ${error.message}`));
    await browser.close();
  }
}

await run(main);
