// Helpers shared by the browser-test scripts (ui/e2e/*.e2e.mjs): the check bookkeeping and the
// closing summary, the browser and page setup, sign-in, and the grid and toast helpers more than
// one script uses. Not a test itself: the runner (e2e/e2e_test.go) only runs *.e2e.mjs files.
import { load as loadYaml } from 'js-yaml';
import { chromium } from 'playwright-core';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The server under test, without a trailing slash. */
export const BASE_URL = (process.env.BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
/** Where the screenshots go (the runner sets ui/e2e-artifacts). */
export const SCREENSHOT_DIR = path.resolve(process.env.SCREENSHOT_DIR ?? path.join(here, '..', 'e2e-artifacts'));
/** The default wait of every page and of waitForHash. */
export const TIMEOUT = 10_000;
/** The server's admin account: the runner passes its password. */
export const ADMIN_USER = process.env.ADMIN_USER ?? 'admin';
export const ADMIN_PASSWORD = process.env.ADMIN_PASSWORD ?? '';

/** The first line of an error: enough for the FAIL line of most checks. */
export function firstLine(error) {
  return String(error?.message ?? error).split('\n')[0];
}

/** Playwright names the locator on the lines after the first: keep them short but present. */
export function firstTwoLines(error) {
  const lines = String(error?.message ?? error).split('\n').filter((l) => l.trim() && !l.includes('Call log'));
  return lines.slice(0, 2).join(' / ');
}

/** One tally per script: check() prints a line per step, run() the closing summary and exit code. */
export function createChecks({
  describe = firstLine, // how an error is shortened on its FAIL line
  stopAfterFailure = false, // later steps depend on earlier ones: after a failure the rest are SKIP
  onFailure = null, // awaited after a FAIL line, e.g. a screenshot of the failing page
} = {}) {
  const results = [];
  let stop = false;

  async function check(name, fn) {
    if (stop) {
      results.push(false);
      console.log(`SKIP  ${name}`);
      return;
    }
    try {
      await fn();
      results.push(true);
      console.log(`ok    ${name}`);
    } catch (error) {
      results.push(false);
      if (stopAfterFailure) stop = true;
      console.log(`FAIL  ${name}: ${describe(error)}`);
      if (onFailure) await onFailure(error);
    }
  }

  async function run(main) {
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
  }

  return { check, run };
}

/** Throws with the message when the condition does not hold: the checks' assertion. */
export function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/** The UI marks what the tests look for with data-testid. */
export const byTestId = (page, id) => page.locator(`[data-testid="${id}"]`);

/** The app routes by hash: waits for one, and says where it is instead when it does not come. */
export async function waitForHash(page, expected) {
  await page.waitForFunction((h) => window.location.hash === h, expected, { timeout: TIMEOUT }).catch(async () => {
    throw new Error(`expected ${expected}, at ${await page.evaluate(() => window.location.hash)}`);
  });
}

/** The checks compare against the UI's own translation files, not copied strings. */
/** The texts a user sees in language code: the UI's own with the metadata's labels (labels/<code>.yaml) merged in, as the app merges them. */
export function loadTranslations(code) {
  const own = JSON.parse(readFileSync(path.join(here, '..', 'src', 'i18n', `${code}.json`), 'utf8'));
  const labels = loadYaml(readFileSync(path.join(here, '..', '..', 'labels', `${code}.yaml`), 'utf8'));
  return merge(own, labels);
}

function merge(into, from) {
  for (const [key, value] of Object.entries(from ?? {})) {
    into[key] = value && typeof value === 'object' && into[key] && typeof into[key] === 'object' ? merge(into[key], value) : value;
  }
  return into;
}

/** Debian's headless chromium (no browser download), with the screenshot folder ready. */
export async function launchBrowser() {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A fresh context and page with the tests' default timeout. */
export async function openPage(browser, contextOptions) {
  const context = await browser.newContext(contextOptions);
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  return { context, page };
}

/** Every page error and console error not `isExpected` (the browser logs every 4xx), for the closing check. */
export function collectProblems(page, isExpected, { withUrl = false /* append the message's source URL */ } = {}) {
  const problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (msg) => {
    if (msg.type() !== 'error' || isExpected(msg)) return;
    problems.push(withUrl ? `console error: ${msg.text()} ${msg.location().url ?? ''}` : `console error: ${msg.text()}`);
  });
  return problems;
}

/** Fills and submits the sign-in form; the caller waits for what should follow. */
export async function submitSignIn(page, username, password) {
  await page.goto(`${BASE_URL}/#/login`);
  await byTestId(page, 'login-form').waitFor();
  await page.locator('#username').fill(username);
  await page.locator('#password').fill(password);
  await byTestId(page, 'sign-in').click();
}

/** Signs in through the sign-in screen with the server's admin account. */
export async function signIn(page) {
  assert(ADMIN_PASSWORD, 'ADMIN_PASSWORD is not set');
  await resetAdminLanguage();
  await submitSignIn(page, ADMIN_USER, ADMIN_PASSWORD);
  await waitForHash(page, '#/dashboard/home');
}

/**
 * Puts the admin's saved language back to English through the API: the profile keeps a
 * language chosen with the globe button, so a script that showed Swedish would otherwise hand
 * its successors a Swedish admin. Signs out of the session it used.
 */
export async function resetAdminLanguage() {
  const login = await fetch(`${BASE_URL}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: ADMIN_USER, password: ADMIN_PASSWORD }),
  });
  const token = (await login.json())?.data?.token;
  if (!token) return;
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  try {
    const profile = (await (await fetch(`${BASE_URL}/api/profile`, { headers })).json())?.data;
    if (profile?.languageCode && profile.languageCode !== 'en') {
      const { id: _id, username: _username, ...stored } = profile;
      const saved = await fetch(`${BASE_URL}/api/profile`, { method: 'PUT', headers, body: JSON.stringify({ ...stored, languageCode: 'en' }) });
      assert(saved.ok, `resetting the admin's language: ${saved.status} ${await saved.text()}`);
    }
  } finally {
    await fetch(`${BASE_URL}/api/auth/logout`, { method: 'POST', headers });
  }
}

/** Closes every toast so the next check sees only its own. */
export async function clearToasts(page) {
  await page.evaluate(() => document.querySelectorAll('.p-toast-message .p-toast-icon-close').forEach((b) => b.click()));
  await page.locator('.p-toast-message').first().waitFor({ state: 'detached' }).catch(() => {});
}

/**
 * Waits until the page has rendered what the last input caused and every animation and
 * enter/exit transition has ended: a condition, never a time, so it holds on a busy machine.
 */
export async function settled(page) {
  // Two frames: whatever state the last event set has been rendered (and any transition begun).
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.waitForFunction(
    () =>
      document.getAnimations().every((a) => a.playState !== 'running') &&
      !document.querySelector('[class*="-enter-active"], [class*="-exit-active"], [class*="-appear-active"]'),
  );
}

/** A full-page screenshot without hover effects or half-finished animations. */
export async function shot(page, name) {
  await page.mouse.move(1270, 790); // keep hover effects out of the picture
  await settled(page); // dialogs and toasts finished animating
  // (a picture, not a check: on a busy two-core machine a full page may take longer to paint
  // than a check may wait)
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true, timeout: 4 * TIMEOUT });
}

/** Runs `action` and returns the grid request body it caused (POST /api/grid). */
export async function afterGrid(page, action, predicate = () => true) {
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/grid') && r.request().method() === 'POST' && predicate(r.request().postData() ?? '')),
    action(),
  ]);
  return JSON.parse(response.request().postData());
}

/** Opens a metadata screen and waits for its first grid's first answer. */
export async function openScreen(page, route, viewName) {
  const url = `${BASE_URL}/#/dashboard/${route}`;
  await afterGrid(page, () => (page.url() === url ? page.reload() : page.goto(url)));
  await byTestId(page, `grid-${viewName}`).waitFor();
  await byTestId(page, 'grid-total').waitFor();
}

/** Types into a column's filter popover and waits for the grid to answer with that filter. */
export async function filterBy(page, field, value) {
  await byTestId(page, `filter-${field}`).click();
  await afterGrid(page, () => byTestId(page, `filter-value-${field}`).fill(value), (body) => body.includes(`"field":"${field}"`));
  await page.keyboard.press('Escape');
  await page.mouse.click(5, 790);
  await byTestId(page, `filter-panel-${field}`).waitFor({ state: 'detached' });
}

/** Calls the API from the page with the signed-in token. */
export async function callApi(page, method, path, body) {
  return page.evaluate(
    async ({ method, path, body }) => {
      const response = await fetch(`/api${path}`, {
        method,
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${localStorage.getItem('token')}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json().catch(() => null) };
    },
    { method, path, body },
  );
}

/** Imports a CSV of a kind (bank, ticket, ...) through POST /api/imports and waits until it is loaded. */
export async function importCsv(page, kind, csv, name) {
  const id = await page.evaluate(
    async ({ kind, csv, name }) => {
      const form = new FormData();
      form.append('kind', kind);
      form.append('file', new Blob([csv], { type: 'text/csv' }), name);
      const response = await fetch('/api/imports', { method: 'POST', headers: { Authorization: `Bearer ${localStorage.getItem('token')}` }, body: form });
      const answer = await response.json();
      if (!answer.succeeded) throw new Error(`import: ${answer.error}`);
      return answer.data.importId;
    },
    { kind, csv, name },
  );
  for (let i = 0; i < 100; i++) {
    const { body } = await callApi(page, 'GET', `/imports/${id}`);
    if (body?.data?.status === 'succeeded') return;
    if (body?.data?.status === 'failed') throw new Error(`import failed: ${body.data.error}`);
    await page.waitForTimeout(200);
  }
  throw new Error('the import did not finish');
}
