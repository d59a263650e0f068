// Browser test of files that arrive by themselves (INBOX_DIR, intake.yaml): a ticket file with a
// bad row and an empty one are dropped into the drop folder as a copying tool writes them (a
// .part name, then renamed); both end in failed/ with their result beside them, and Home lists
// them as alerts in the reader's language. Configuration Settings shows the schedules of
// intake.yaml in their own tab, and the profile's daily-digest box is saved. Only failing files
// are dropped: a file that loads would start the after-intake runs and reconcile the demo data
// the later scripts expect unreconciled.
//   BASE_URL=http://127.0.0.1:8080 ADMIN_PASSWORD=... INBOX_DIR=/path/to/inbox node e2e/intake.e2e.mjs
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  assert, byTestId, callApi, collectProblems, createChecks, firstTwoLines, launchBrowser, loadTranslations, openPage, settled, shot, signIn,
  TIMEOUT,
} from './lib.mjs';

const en = loadTranslations('en');
const { check, run } = createChecks({ describe: firstTwoLines, stopAfterFailure: true });
const INBOX = process.env.INBOX_DIR;
const VIEW = 'VW_IntakeSchedules';

/** Writes a file into a kind's folder as a copying tool does: under a .part name, then renamed. */
function drop(kind, name, content) {
  const part = path.join(INBOX, kind, `${name}.part`);
  writeFileSync(part, content);
  renameSync(part, path.join(INBOX, kind, name));
}

/** Waits for a condition, checking it every 200 ms up to a bound (never a time it counts on). */
async function until(what, cond, within = 60_000) {
  const end = Date.now() + within;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${within / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function main() {
  assert(INBOX && existsSync(path.join(INBOX, 'ticket')), `INBOX_DIR ${INBOX} has no ticket folder: is the server watching it?`);
  const browser = await launchBrowser();
  try {
    const { page } = await openPage(browser, { viewport: { width: 1440, height: 900 } });
    const problems = collectProblems(page, (msg) => /status of (4|5)\d\d/.test(msg.text()), { withUrl: true });
    await signIn(page);
    const stamp = Date.now().toString(36);
    const bad = `tickets-${stamp}.csv`;
    const empty = `empty-${stamp}.csv`;

    await check('a bad file and an empty one dropped into the folder end in failed/ with their results', async () => {
      drop('ticket', bad, 'TicketNumber,TransDate,PaymentType,CountryCode,Currency,TransactionCode,SaleAmount\n1250000000001,2026-03-01,CC,SE,SEK,TKTT,12x\n');
      drop('ticket', empty, '');
      for (const name of [bad, empty]) {
        await until(`${name} in failed/`, () => existsSync(path.join(INBOX, 'failed', name)));
      }
      const badResult = JSON.parse(readFileSync(path.join(INBOX, 'failed', `${bad}.result.json`), 'utf8'));
      assert(badResult.outcome === 'failed' && badResult.import?.rowErrors?.length === 1, `bad result ${JSON.stringify(badResult)}`);
      const emptyResult = JSON.parse(readFileSync(path.join(INBOX, 'failed', `${empty}.result.json`), 'utf8'));
      assert(emptyResult.outcome === 'refused' && emptyResult.error, `empty result ${JSON.stringify(emptyResult)}`);
    });

    await check('Home lists both as intake alerts, newest first', async () => {
      await page.goto(`${page.url().split('#')[0]}#/dashboard/home`);
      await until('the alerts on Home', async () => {
        await page.reload(); // Home reads its figures as it opens
        await byTestId(page, 'home-alerts').waitFor({ timeout: TIMEOUT });
        const text = await byTestId(page, 'home-alerts').textContent();
        return text.includes(bad) && text.includes(empty);
      });
      const rows = await byTestId(page, 'home-alert').allTextContents();
      assert(rows.slice(0, 2).every((r) => r.includes(en.home.alerts.kinds.intakeFailed)), `alerts ${rows.join(' | ')}`);
      await byTestId(page, 'home-alerts').scrollIntoViewIfNeeded();
      await settled(page);
      await shot(page, 'intake-home-alerts-en');
    });

    await check('Configuration Settings lists the schedules of intake.yaml in their own tab', async () => {
      await byTestId(page, 'home-alerts').locator('a').first().click();
      await byTestId(page, `grid-${VIEW}`).waitFor();
      await byTestId(page, 'grid-total').waitFor();
      const text = await byTestId(page, `grid-${VIEW}`).textContent();
      for (const want of ['ticket-transaction', 'transaction-settlement', 'settlement-bank', en.views[VIEW].values.Kind.run, en.views[VIEW].values.Kind.digest]) {
        assert(text.includes(want), `the schedules grid lacks ${want}: ${text.slice(0, 400)}`);
      }
      await shot(page, 'intake-schedules-en');
    });

    await check('the profile saves the daily digest', async () => {
      await byTestId(page, 'user-avatar').click();
      await byTestId(page, 'user-menu-profile').click();
      await page.locator('#profile-form').waitFor();
      await page.waitForFunction(() => !!document.querySelector('#profile-firstName')?.value);
      const box = byTestId(page, 'profile-daily-digest');
      await box.click();
      const reloaded = page.waitForEvent('load', { timeout: TIMEOUT });
      reloaded.catch(() => {});
      await byTestId(page, 'profile-save').click();
      await reloaded;
      const profile = await callApi(page, 'GET', '/profile');
      assert(profile.status === 200 && profile.body?.data?.dailyDigest === true, `profile ${JSON.stringify(profile.body)}`);
      const off = await callApi(page, 'PUT', '/profile', { ...profile.body.data, dailyDigest: false });
      assert(off.status === 200 && off.body?.data?.dailyDigest === false, `turning it off: ${off.status}`);
    });

    await check('no page or console errors beyond expected 4xx answers', async () => {
      assert(problems.length === 0, problems.join('; '));
    });
  } finally {
    await browser.close();
  }
}

await run(main);
