// Browser test of the application shell in headless Debian Chromium (playwright-core, no
// browser download). Run against a server that serves the built UI and /assets/app-config.json:
//   BASE_URL=http://127.0.0.1:8080 node e2e/shell.e2e.mjs
// Prints one line per check and a closing "e2e: N passed, M failed"; exits non-zero on a failure.
import path from 'node:path';
import {
  ADMIN_USER, BASE_URL, SCREENSHOT_DIR, TIMEOUT,
  assert, byTestId, collectProblems, createChecks, launchBrowser, loadTranslations, openPage, signIn, waitForHash, settled
} from './lib.mjs';

const LANGUAGES = ['en', 'sv', 'es', 'pt'];
const translations = Object.fromEntries(LANGUAGES.map((code) => [code, loadTranslations(code)]));
const SESSION_KEYS = [
  'currentUser', 'token', 'screenIds', 'userRoles', 'defaultLang',
  'dashboardFilters', 'bankSettlementTabIndex', 'bankOverviewParams', 'jwt_token',
];

const { check, run } = createChecks();

async function main() {
  const browser = await launchBrowser();
  try {
    const { context, page } = await openPage(browser, { viewport: { width: 1280, height: 800 } });
    // The browser logs every 4xx answer; the wrong-password check causes one on purpose.
    const problems = collectProblems(page, (msg) => msg.text().includes('status of 401') && msg.location().url.endsWith('/api/auth/login'));

    await check('start lands on #/login with the sign-in form', async () => {
      await page.goto(`${BASE_URL}/`);
      await waitForHash(page, '#/login');
      await byTestId(page, 'login-form').waitFor();
      for (const id of ['#username', '#password', '[data-testid="sign-in"]']) {
        assert(await page.locator(id).isVisible(), `${id} not visible`);
      }
      assert(await byTestId(page, 'sign-in').isDisabled(), 'Sign in should be disabled while empty');
      assert(await page.evaluate(() => !!localStorage.getItem('ApplicationConfig')), 'ApplicationConfig not stored');
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'login.png'), fullPage: true });
    });

    await check('a wrong password shows the server message and stays on login', async () => {
      await page.locator('#username').fill(ADMIN_USER);
      await page.locator('#password').fill('Wrong#Passw0rd');
      await byTestId(page, 'sign-in').click();
      const error = byTestId(page, 'login-error');
      await error.waitFor();
      assert((await error.textContent()).includes('Invalid username or password'), `error ${await error.textContent()}`);
      assert(await page.evaluate(() => !localStorage.getItem('token')), 'a token was stored');
      await waitForHash(page, '#/login');
    });

    await check('a signed-in session opens #/dashboard/home with sidebar, menu and home screen', async () => {
      await signIn(page);
      await page.goto(`${BASE_URL}/#/dashboard`);
      await waitForHash(page, '#/dashboard/home');
      await byTestId(page, 'sidebar').waitFor({ state: 'visible' });
      await byTestId(page, 'sidebar-menu').waitFor({ state: 'visible' });
      const title = await byTestId(page, 'screen-title').textContent();
      assert(title === translations.en.screens.home.title, `title is ${title}`);
      assert(await byTestId(page, 'screen-home').isVisible(), 'home screen not visible');
      const box = await byTestId(page, 'sidebar').boundingBox();
      assert(box && Math.round(box.width) === 250 && box.x === 0, `sidebar box ${JSON.stringify(box)}`);
    });

    await check('Settings opens with its four entries; Users and Roles are main entries after it, then the administration screens', async () => {
      const m = translations.en.menu;
      await byTestId(page, 'menu-group-toggle-settings').click();
      const settings = byTestId(page, 'menu-group-items-settings');
      await settings.waitFor();
      const labels = (await settings.locator('a').allTextContents()).map((s) => s.trim());
      const expected = [m.bankSettings, m.exchangeRates, m.countryList, m.configSettings];
      assert(JSON.stringify(labels) === JSON.stringify(expected), `settings entries ${JSON.stringify(labels)}`);
      // metadata screens' entries open them at #/dashboard/<route>
      const settingsHrefs = await settings.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      const expectedSettings = ['bank-settings', 'cera-settings', 'ras-settings', 'config-settings'].map((r) => `#/dashboard/${r}`);
      assert(JSON.stringify(settingsHrefs) === JSON.stringify(expectedSettings), `settings links ${JSON.stringify(settingsHrefs)}`);
      assert((await byTestId(page, 'menu-group-toggle-administration').count()) === 0, 'an Administration group folds Settings away');
      const main = (await byTestId(page, 'sidebar-menu').locator(':scope > ul > li > a').allTextContents()).map((s) => s.trim());
      // the metadata screens of the administration group (views.yaml) follow Users and Roles
      const administration = [translations.en.screens.audit.title];
      assert(JSON.stringify(main.slice(-3)) === JSON.stringify([m.users, m.roles, ...administration]), `main entries ${JSON.stringify(main)}`);
      const mainHrefs = await byTestId(page, 'sidebar-menu').locator(':scope > ul > li > a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      const expectedMain = ['userslist', 'roleslist', 'audit'].map((r) => `#/dashboard/${r}`);
      assert(JSON.stringify(mainHrefs.slice(-3)) === JSON.stringify(expectedMain), `main links ${JSON.stringify(mainHrefs)}`);
      await byTestId(page, 'menu-group-toggle-settings').click();
      await settings.waitFor({ state: 'detached' });
    });

    for (const code of ['sv', 'es', 'pt', 'en']) {
      await check(`language ${code.toUpperCase()}: button, menu label, stored choice`, async () => {
        await byTestId(page, 'language-button').click();
        await byTestId(page, `language-option-${code}`).click();
        await page.waitForFunction(
          (c) => document.querySelector('[data-testid="language-button"]')?.textContent === c,
          code.toUpperCase(),
          { timeout: TIMEOUT },
        );
        const sidebar = byTestId(page, 'sidebar');
        const label = translations[code].menu.dataImport;
        await sidebar.getByText(label, { exact: true }).waitFor();
        const title = await byTestId(page, 'screen-title').textContent();
        assert(title === translations[code].screens.home.title, `home title ${title}`);
        const stored = await page.evaluate(() => localStorage.getItem('defaultLang'));
        assert(stored === JSON.stringify(code), `defaultLang is ${stored}`);
        await waitForHash(page, '#/dashboard/home');
        await page.locator('#language-menu').waitFor({ state: 'detached' });
        await page.mouse.move(640, 500); // keep hover effects out of the picture
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, `shell-${code}.png`), fullPage: true });
      });
    }

    await check('profile dialog opens 1000px wide from the avatar menu and closes', async () => {
      await byTestId(page, 'user-avatar').click();
      const header = byTestId(page, 'user-menu-header');
      await header.waitFor();
      const text = await header.textContent();
      assert(text.includes('System Administrator') && text.includes('admin@ledgerdesk.local'), `menu header ${text}`);
      await byTestId(page, 'user-menu-profile').click();
      const dialog = page.locator('.p-dialog');
      await dialog.waitFor();
      const title = await dialog.locator('.p-dialog-title').textContent();
      assert(title === translations.en.profile.myProfile, `dialog title ${title}`);
      // offsetWidth, not the bounding box: the opening animation scales the dialog.
      const width = await dialog.evaluate((el) => el.offsetWidth);
      assert(width === 1000, `dialog width ${width}`);
      await settled(page); // the opening animation finished before the screenshot
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'profile-dialog.png') });
      await dialog.locator('.p-dialog-footer').getByRole('button', { name: translations.en.common.cancel }).click();
      await dialog.waitFor({ state: 'detached' });
    });

    await check('screens take their ids from the list the server sends; one missing from it is denied', async () => {
      const screens = await page.evaluate(() => JSON.parse(localStorage.getItem('ApplicationConfig') ?? '{}').screens ?? []);
      assert(screens.length === 17 && screens.some((s) => s.route === 'dashboard/reports'), `screens ${JSON.stringify(screens)}`);
      const withoutReports = '**/assets/app-config.json';
      await page.route(withoutReports, async (route) => {
        const response = await route.fetch();
        const config = await response.json();
        await route.fulfill({ response, json: { ...config, screens: config.screens.filter((s) => s.route !== 'dashboard/reports') } });
      });
      try {
        await page.goto(`${BASE_URL}/#/dashboard/reports`);
        await page.reload(); // a start-up: the configuration is loaded again
        await byTestId(page, 'access-denied').waitFor();
        const hash = await page.evaluate(() => window.location.hash);
        assert(hash === '#/dashboard/unauthorized?returnUrl=%2Fdashboard%2Freports', `hash ${hash}`);
      } finally {
        await page.unroute(withoutReports);
      }
    });

    await check('a route outside screenIds shows Access Denied', async () => {
      await page.evaluate(() => localStorage.setItem('screenIds', JSON.stringify([1])));
      await page.goto(`${BASE_URL}/#/dashboard/roleslist`);
      await byTestId(page, 'access-denied').waitFor();
      const hash = await page.evaluate(() => window.location.hash);
      assert(hash === '#/dashboard/unauthorized?returnUrl=%2Fdashboard%2Froleslist', `hash ${hash}`);
      const title = await byTestId(page, 'screen-title').textContent();
      assert(title === translations.en.accessDenied.title, `title ${title}`);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'access-denied.png'), fullPage: true });
    });

    await check('sign out through the avatar menu and the confirmation ends on login with the keys cleared', async () => {
      await page.evaluate(() => {
        localStorage.setItem('dashboardFilters', '{}');
        localStorage.setItem('bankSettlementTabIndex', '1');
        localStorage.setItem('bankOverviewParams', '{}');
        localStorage.setItem('jwt_token', 'x');
      });
      await byTestId(page, 'user-avatar').click();
      await byTestId(page, 'user-menu-signout').click();
      const dialog = page.locator('.p-confirm-dialog');
      await dialog.waitFor();
      const header = await dialog.locator('.p-dialog-title').textContent();
      const message = await dialog.locator('.p-confirm-dialog-message').textContent();
      assert(header === translations.en.shell.signOut, `header ${header}`);
      assert(message === translations.en.shell.signOutConfirm, `message ${message}`);
      await settled(page); // the opening animation finished before the screenshot
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'sign-out-confirm.png') });
      await dialog.locator('.p-confirm-dialog-accept').click();
      await waitForHash(page, '#/login');
      await byTestId(page, 'login-form').waitFor();
      const left = await page.evaluate((keys) => keys.filter((k) => localStorage.getItem(k) !== null), SESSION_KEYS);
      assert(left.length === 0, `keys left: ${left.join(', ')}`);
      assert((await byTestId(page, 'user-avatar').count()) === 0, 'avatar still shown');
    });

    await check('no page errors, console errors or CSP violations', async () => {
      assert(problems.length === 0, problems.join(' | '));
    });
    await context.close();

    await check('narrow screen (<= 768px): sidebar starts hidden, the toggle shows it', async () => {
      const { context: mobile, page: p } = await openPage(browser, { viewport: { width: 390, height: 800 } });
      await p.goto(`${BASE_URL}/#/login`);
      await byTestId(p, 'login-form').waitFor();
      await signIn(p);
      await p.goto(`${BASE_URL}/#/dashboard/home`);
      await byTestId(p, 'screen-title').waitFor();
      assert(!(await byTestId(p, 'sidebar').isVisible()) || (await byTestId(p, 'sidebar').boundingBox()).x < 0, 'sidebar visible at start');
      await byTestId(p, 'sidebar-toggle').click();
      await p.waitForFunction(() => document.querySelector('[data-testid="sidebar"]').getBoundingClientRect().x === 0, null, { timeout: TIMEOUT });
      await p.screenshot({ path: path.join(SCREENSHOT_DIR, 'mobile-menu.png') });
      await mobile.close();
    });

    await check('a failed configuration load shows the error screen', async () => {
      const { context: broken, page: p } = await openPage(browser);
      await p.route('**/assets/app-config.json', (route) => route.fulfill({ status: 503, body: '' }));
      await p.goto(`${BASE_URL}/`);
      await byTestId(p, 'config-error').waitFor();
      const text = await byTestId(p, 'config-error').textContent();
      assert(text.includes(translations.en.app.configError.title), `error screen text ${text}`);
      await p.screenshot({ path: path.join(SCREENSHOT_DIR, 'config-error.png') });
      await broken.close();
    });
  } finally {
    await browser.close();
  }
}

await run(main);
