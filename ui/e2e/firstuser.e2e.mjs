// Browser test of what a first user tripped over (issue 10) and the rest of specs 01 and 02:
// server messages in the reader's language, password reset reasons and rules, the first
// permitted screen and Go Back, filters on what the grid shows, the phone width, the
// exchange-rate dialog, Escape in the profile dialog, the language menu after Back, the
// language kept in the profile, the menu by permission, deletes, Refresh and the sort.
//   BASE_URL=http://127.0.0.1:8080 ADMIN_PASSWORD=... node e2e/firstuser.e2e.mjs
// Names carry Date.now() because other scripts share the server. Prints one line per check
// and a closing "e2e: N passed, M failed"; exits non-zero on a failure.
import path from 'node:path';
import {
  ADMIN_PASSWORD, ADMIN_USER, BASE_URL, SCREENSHOT_DIR,
  afterGrid, assert, byTestId, clearToasts, collectProblems, createChecks, filterBy, launchBrowser, loadTranslations, openPage,
  openScreen, shot, signIn, submitSignIn, waitForHash, settled
} from './lib.mjs';

const en = loadTranslations('en');
const sv = loadTranslations('sv');
const es = loadTranslations('es');
const stamp = Date.now();
const ROLE = `E2E Logs ${stamp}`;
const CLERK = { username: `logs${stamp}`, password: 'Logs#2026a', email: `logs.${stamp}@ledgerdesk.test` };

let failurePage = null;
const { check, run } = createChecks({
  onFailure: () => failurePage?.screenshot({ path: path.join(SCREENSHOT_DIR, 'firstuser-failure.png'), fullPage: true }).catch(() => {}),
});

/** A call to the API with the signed-in user's token; returns {status, body}. */
async function apiCall(page, method, url, body, form) {
  return page.evaluate(
    async ([method, url, body, form]) => {
      const headers = { Authorization: `Bearer ${localStorage.getItem('token')}` };
      let payload;
      if (form) {
        payload = new FormData();
        payload.append('kind', form.kind);
        payload.append('file', new Blob([form.content], { type: 'text/csv' }), form.name);
      } else if (body !== undefined) {
        headers['Content-Type'] = 'application/json';
        payload = JSON.stringify(body);
      }
      const response = await fetch(`/api${url}`, { method, headers, body: payload });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    [method, url, body, form],
  );
}

async function chooseLanguage(page, code) {
  await byTestId(page, 'language-button').click();
  await byTestId(page, `language-option-${code}`).click();
  await page.waitForFunction((c) => document.documentElement.lang === c, code);
}

async function signOut(page) {
  await byTestId(page, 'user-avatar').click();
  await byTestId(page, 'user-menu-signout').click();
  await page.locator('.p-confirm-dialog .p-confirm-dialog-accept').click();
  await waitForHash(page, '#/login');
}

const toast = (page, text) => page.locator('.p-toast-message', { hasText: text }).first();

function bankCsv(rows) {
  return [
    'BankAccount,BookedDate,InterestDate,Text,AmountLocal,Currency,BankArchiveReference,Number,BookedBalanceLocalCurrency',
    ...rows.map((r, i) => `5000-9876,2026-03-0${i + 1},2026-03-0${i + 1},${r},10${i}.00,GBP,FU${stamp}${i},${i + 1},100.00`),
    '',
  ].join('\n');
}

async function main() {
  const browser = await launchBrowser();
  try {
    const { context, page } = await openPage(browser, { viewport: { width: 1280, height: 800 } });
    failurePage = page;
    // 4xx answers are logged by the browser; the refusals below are on purpose.
    const problems = collectProblems(page, (msg) => /status of (400|403|409)/.test(msg.text()));

    await check('password reset: the rules show before typing, what the server refuses is not sent, the server reason is shown', async () => {
      await page.goto(`${BASE_URL}/#/forgot-password`);
      await page.locator('#email').fill(`nobody.${stamp}@ledgerdesk.test`);
      await page.getByRole('button', { name: en.forgotPassword.sendCode }).click();
      await page.locator('#code').waitFor();
      const special = byTestId(page, 'password-rule-special');
      assert((await special.textContent()).includes('! @ #'), 'the special-character rule is not shown before typing');
      await page.locator('#code').fill('123456');
      await page.locator('#new-password').fill('Password2026');
      const strength = await byTestId(page, 'password-strength').getAttribute('data-strength');
      assert(strength !== 'strong', `"Password2026" is called ${strength}, the server refuses it`);
      await page.getByRole('button', { name: en.forgotPassword.resetPassword }).click();
      await byTestId(page, 'new-password-error').waitFor();
      await page.locator('#new-password').fill('Tq7#mZp2vLx');
      assert((await byTestId(page, 'password-strength').getAttribute('data-strength')) === 'strong', 'a valid password is not strong');
      await page.getByRole('button', { name: en.forgotPassword.resetPassword }).click();
      await toast(page, 'wrong or no longer valid').waitFor();
    });

    await signIn(page);

    await check('setup: a role granting only Extraction Logs and Country List, and a user holding it', async () => {
      const role = await apiCall(page, 'POST', '/roles', { roleName: ROLE, description: 'first-user test' });
      assert(role.status === 201 || role.status === 200, `role ${role.status} ${JSON.stringify(role.body)}`);
      const roleId = role.body.data.id;
      const screens = await apiCall(page, 'PUT', `/roles/${roleId}/screens`, { screenIds: [12, 10] });
      assert(screens.status === 200, `screens ${screens.status}`);
      const user = await apiCall(page, 'POST', '/users', {
        username: CLERK.username, firstName: 'Lena', lastName: 'Logs', email: CLERK.email, mobileNumber: '', dateOfBirth: null,
        password: CLERK.password, dateFormat: 'DD/MM/YYYY HH:mm:ss', languageCode: 'en', enableTwoFactor: false, twoFactorType: 0,
      });
      assert(user.status === 201 || user.status === 200, `user ${user.status} ${JSON.stringify(user.body)}`);
      const userId = user.body.data.user?.userId ?? user.body.data.user?.id ?? user.body.data.userId;
      const roles = await apiCall(page, 'PUT', `/users/${userId}/roles`, { roleIds: [roleId] });
      assert(roles.status === 200, `user roles ${roles.status}`);
      CLERK.roleId = roleId;
    });

    await check('a refused duplicate upload is in the extraction log; the message shows the date in the user format', async () => {
      const content = bankCsv([`FIRST USER ${stamp} A`, `FIRST USER ${stamp} B`]);
      const first = await apiCall(page, 'POST', '/imports', undefined, { kind: 'bank', name: `fu-${stamp}.csv`, content });
      assert(first.status === 200 || first.status === 201 || first.status === 202, `first upload ${first.status} ${JSON.stringify(first.body)}`);
      const id = first.body.data.importId;
      for (let tries = 0; ; tries++) {
        const state = await apiCall(page, 'GET', `/imports/${id}`);
        if (state.body.data.status === 'succeeded') break;
        assert(state.body.data.status !== 'failed' && tries < 240, `import ${JSON.stringify(state.body.data)}`);
        await page.waitForTimeout(250);
      }
      const second = await apiCall(page, 'POST', '/imports', undefined, { kind: 'bank', name: `fu-again-${stamp}.csv`, content });
      assert(second.status === 409 && second.body.code === 'import.duplicate', `second upload ${second.status} ${JSON.stringify(second.body)}`);
      assert(!Number.isNaN(Date.parse(second.body.params.when)), `when ${second.body.params.when}`);
    });

    await check('extraction log: the Status filter "ERROR" finds the refused upload; texts read in Swedish', async () => {
      await chooseLanguage(page, 'sv');
      await openScreen(page, 'extraction-logs', 'VW_BankFileExtractionLog');
      await filterBy(page, 'Status', 'error');
      const total = await byTestId(page, 'grid-total').textContent();
      assert(!/^0 /.test(total), `"error" found ${total}`);
      const grid = byTestId(page, 'grid-VW_BankFileExtractionLog');
      await grid.getByText(`fu-again-${stamp}.csv: avvisad vid uppladdning, inget inläst`).first().waitFor();
      await grid.getByText('Filen importerades redan').first().waitFor();
      await shot(page, 'firstuser-extraction-log-sv');
    });

    await check('a date filter is the app date picker in the user format', async () => {
      await openScreen(page, 'extraction-logs', 'VW_BankFileExtractionLog');
      await byTestId(page, 'filter-CreatedOn').click();
      const input = page.locator('#filter-value-CreatedOn');
      await input.waitFor();
      assert((await input.getAttribute('type')) !== 'date', 'the filter is the browser date input');
      const pattern = await input.getAttribute('placeholder');
      const now = new Date();
      const pad = (n) => String(n).padStart(2, '0');
      const iso = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
      const typed = pattern.replace('YYYY', String(now.getFullYear())).replace('MM', pad(now.getMonth() + 1)).replace('DD', pad(now.getDate()));
      await input.fill(typed);
      const body = await afterGrid(page, () => input.press('Tab'), (b) => b.includes(iso));
      assert(JSON.stringify(body.Filters).includes(iso), `filters ${JSON.stringify(body.Filters)}`);
      await page.keyboard.press('Escape');
      await page.mouse.click(5, 790);
      await page.waitForFunction(() => !/^0 /.test(document.querySelector('[data-testid="grid-total"]')?.textContent ?? '0 '));
    });

    await check('text equals ignores case: "gbp" finds the GBP bookings', async () => {
      await chooseLanguage(page, 'en');
      await openScreen(page, 'csvprocessed', 'VW_BankFinal');
      await byTestId(page, 'filter-Currency').click();
      await byTestId(page, 'filter-op-Currency').click();
      await page.locator('.p-dropdown-item', { hasText: new RegExp(`^${en.grid.operators.equals}$`) }).first().click();
      const body = await afterGrid(
        page,
        () => byTestId(page, 'filter-value-Currency').fill('gbp'),
        (b) => b.includes('"op":"equals"') && b.includes('gbp'),
      );
      assert(JSON.stringify(body.Filters).includes('"equals"'), `filters ${JSON.stringify(body.Filters)}`);
      await page.keyboard.press('Escape');
      const total = await byTestId(page, 'grid-total').textContent();
      assert(!/^0 /.test(total), `equals gbp found ${total}`);
    });

    await check('server errors in the reader language: the duplicate upload on the Data Import screen', async () => {
      await chooseLanguage(page, 'es');
      await page.goto(`${BASE_URL}/#/dashboard/financialdocument`);
      await byTestId(page, 'import-kind-bank').click();
      await byTestId(page, 'import-file-input').setInputFiles({
        name: `fu-third-${stamp}.csv`, mimeType: 'text/csv', buffer: Buffer.from(bankCsv([`FIRST USER ${stamp} A`, `FIRST USER ${stamp} B`])),
      });
      const row = page.locator(`[data-testid="import-row"][data-file="fu-third-${stamp}.csv"]`).first();
      await row.locator('text=Este archivo ya se importó').waitFor();
      const text = await row.textContent();
      assert(!text.includes('UTC'), `the date is not in the user format: ${text}`);
      assert(/\d{2}-\d{2}-\d{4} \d{2}:\d{2}/.test(text), `no DD-MM-YYYY HH:mm date: ${text}`);
    });

    await check('role screens are named in the reader language', async () => {
      await page.goto(`${BASE_URL}/#/dashboard/roles/add`);
      await page.locator('.checkbox-list__item label', { hasText: es.serverMessages.webScreen['2'] }).first().waitFor();
      await chooseLanguage(page, 'en');
    });

    await check('the menu: Users and Roles follow Settings; Settings stays open on Users', async () => {
      await page.goto(`${BASE_URL}/#/dashboard/cera-settings`);
      const menu = byTestId(page, 'sidebar-menu');
      await menu.locator('a', { hasText: en.menu.exchangeRates }).waitFor();
      const labels = (await menu.locator('a, button').allTextContents()).map((s) => s.trim());
      const settings = labels.indexOf(en.menu.settings);
      assert(settings >= 0 && labels.indexOf(en.menu.users) > settings && labels.indexOf(en.menu.roles) > settings, `menu ${labels}`);
      await menu.locator('a', { hasText: en.menu.users }).click();
      await waitForHash(page, '#/dashboard/userslist');
      await menu.locator('a', { hasText: en.menu.exchangeRates }).waitFor();
    });

    await check('exchange-rate dialog: the date picker in the user format, a pasted " chf " kept, Save says what is missing', async () => {
      await openScreen(page, 'cera-settings', 'VW_CurrencyExchangeRate');
      await byTestId(page, 'grid-add').click();
      const dialog = byTestId(page, 'form-dialog-exchangeRate');
      await dialog.waitFor();
      const missing = byTestId(page, 'form-missing');
      await missing.waitFor();
      assert((await missing.textContent()).includes(en.forms.exchangeRate.fields.code), `missing: ${await missing.textContent()}`);
      const date = dialog.locator('#root_exchangeRateOn');
      assert((await date.getAttribute('type')) !== 'date', 'the date is the browser date input');
      assert((await date.getAttribute('placeholder')) === 'DD-MM-YYYY', `placeholder ${await date.getAttribute('placeholder')}`);
      const code = dialog.locator('#root_code');
      await code.focus();
      await code.fill(' chf ');
      assert((await code.inputValue()) === ' chf ', `code input: "${await code.inputValue()}"`);
      await dialog.locator('#root_currency').fill('Swiss franc');
      await date.fill('03-02-2026');
      await date.press('Tab');
      await page.waitForFunction(() => !document.querySelector('[data-testid="form-missing"]'));
      const [created] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/CurrencyExchangeRate') && r.request().method() === 'POST'),
        byTestId(page, 'form-save').click(),
      ]);
      const sent = JSON.parse(created.request().postData());
      assert(sent.code === 'CHF' && sent.exchangeRateOn === '2026-02-03', `sent ${JSON.stringify(sent)}`);
      assert(created.status() === 201 || created.status() === 200, `create ${created.status()}`);
      await dialog.waitFor({ state: 'detached' });
    });

    await check('inline edit of a date cell: the date picker in the user format (DD-MM-YYYY), Enter saves', async () => {
      await filterBy(page, 'Code', 'CHF');
      const grid = byTestId(page, 'grid-VW_CurrencyExchangeRate');
      const header = grid.locator('.rdg-header-row .rdg-cell', { has: page.locator('[data-testid="header-ExchangeRateOn"]') });
      const col = await header.getAttribute('aria-colindex');
      const cell = grid.locator('.rdg-row', { hasText: 'CHF' }).locator(`.rdg-cell[aria-colindex="${col}"]`);
      assert((await cell.textContent()) === '03-02-2026', `cell ${await cell.textContent()}`);
      await cell.dblclick();
      const input = byTestId(page, 'editor-ExchangeRateOn').locator('input');
      await input.waitFor();
      assert((await input.getAttribute('type')) !== 'date', 'the editor is the browser date input');
      assert((await input.getAttribute('placeholder')) === 'DD-MM-YYYY', `placeholder ${await input.getAttribute('placeholder')}`);
      assert((await input.inputValue()) === '03-02-2026', `editor shows ${await input.inputValue()}`);
      await input.fill('05-02-2026');
      const [saved] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/grid/row') && r.request().method() === 'PUT'),
        input.press('Enter'),
      ]);
      const body = JSON.parse(saved.request().postData());
      assert(saved.status() === 200, `PUT answered ${saved.status()}: ${await saved.text()}`);
      assert(body.Values.ExchangeRateOn === '2026-02-05', `sent ${JSON.stringify(body.Values)}`);
      await page.waitForFunction(
        ([c]) => [...document.querySelectorAll('[data-testid="grid-VW_CurrencyExchangeRate"] .rdg-row')].some((r) => r.querySelector(`.rdg-cell[aria-colindex="${c}"]`)?.textContent === '05-02-2026'),
        [col],
      );
      // Escape leaves the stored date as it was, without a call.
      await cell.dblclick();
      await input.waitFor();
      await input.fill('09-09-2026');
      let put = false;
      const onRequest = (r) => { if (r.url().endsWith('/api/grid/row')) put = true; };
      page.on('request', onRequest);
      await input.press('Escape');
      await input.waitFor({ state: 'detached' });
      await cell.click();
      page.off('request', onRequest);
      assert(!put && (await cell.textContent()) === '05-02-2026', `after Escape: ${await cell.textContent()}, PUT ${put}`);
      await openScreen(page, 'cera-settings', 'VW_CurrencyExchangeRate'); // unfiltered again
    });

    await check('delete an exchange rate with the trash icon and a confirmation', async () => {
      await filterBy(page, 'Code', 'CHF');
      const trash = page.locator('[data-testid^="row-delete-"]').first();
      await trash.click();
      await page.locator('.p-confirm-dialog', { hasText: en.grid.deleteConfirm }).waitFor();
      await afterGrid(page, () => page.locator('.p-confirm-dialog .p-confirm-dialog-accept').click());
      await page.waitForFunction(() => /^0 /.test(document.querySelector('[data-testid="grid-total"]')?.textContent ?? ''));
    });

    await check('Refresh goes back to the default sort', async () => {
      await openScreen(page, 'ras-settings', 'VW_TblMasterCountry');
      await afterGrid(page, () => byTestId(page, 'header-CountryCode').click());
      const body = await afterGrid(page, () => byTestId(page, 'grid-refresh').click());
      assert(body.SortField === 'CountryName' && body.SortOrder === 'asc', `refresh sent ${body.SortField} ${body.SortOrder}`);
    });

    await check('a role held by a user is not deleted: the server says why', async () => {
      await openScreen(page, 'roleslist', 'VW_RolesList');
      await filterBy(page, 'RoleName', ROLE);
      await page.locator(`[data-testid="row-delete-${CLERK.roleId}"]`).click();
      await page.locator('.p-confirm-dialog .p-confirm-dialog-accept').click();
      await toast(page, 'assigned to 1 user').waitFor();
      await clearToasts(page);
    });

    await check('the language chosen with the globe is there at the next sign-in', async () => {
      const saved = (r) => r.url().endsWith('/api/profile') && r.request().method() === 'PUT';
      await Promise.all([page.waitForResponse(saved), chooseLanguage(page, 'sv')]);
      await signOut(page);
      await page.evaluate(() => localStorage.removeItem('defaultLang'));
      await chooseLanguage(page, 'en');
      // Not signIn: it puts the admin's language back to English first.
      await submitSignIn(page, ADMIN_USER, ADMIN_PASSWORD);
      await waitForHash(page, '#/dashboard/home');
      await page.waitForFunction(() => document.documentElement.lang === 'sv');
      await Promise.all([page.waitForResponse(saved), chooseLanguage(page, 'en')]);
    });

    await check('Swedish: the sidebar entries fit', async () => {
      await chooseLanguage(page, 'sv');
      await page.goto(`${BASE_URL}/#/dashboard/config-settings`);
      const link = byTestId(page, 'sidebar-menu').locator('a', { hasText: sv.menu.configSettings });
      await link.waitFor();
      const overflow = await byTestId(page, 'sidebar-menu').evaluate((menu) =>
        [...menu.querySelectorAll('a, button')].filter((a) => a.scrollWidth > a.clientWidth + 1).map((a) => a.textContent),
      );
      assert(overflow.length === 0, `cut off: ${overflow.join(', ')}`);
      await chooseLanguage(page, 'en');
    });

    await signOut(page);

    await check('a role without Home lands on its first screen, sees only its entries, and Go Back stays inside', async () => {
      await submitSignIn(page, CLERK.username, CLERK.password);
      await waitForHash(page, '#/dashboard/extraction-logs');
      await byTestId(page, 'sidebar-menu').locator('a', { hasText: en.menu.extractionLogs }).waitFor();
      const labels = (await byTestId(page, 'sidebar-menu').locator('a, button').allTextContents()).map((s) => s.trim());
      assert(JSON.stringify(labels) === JSON.stringify([en.menu.extractionLogs, en.menu.settings]), `menu ${labels}`);
      await byTestId(page, 'user-avatar').click();
      await byTestId(page, 'user-menu-signout').waitFor();
      assert((await byTestId(page, 'user-menu-users').count()) === 0, 'the avatar menu offers Users');
      await byTestId(page, 'user-avatar').click();
      await byTestId(page, 'user-menu-signout').waitFor({ state: 'hidden' });
      await page.goto(`${BASE_URL}/#/dashboard/home`);
      await byTestId(page, 'access-denied').waitFor();
      await byTestId(page, 'go-back').click();
      await page.waitForFunction(() => window.location.hash.startsWith('#/dashboard/') && !window.location.hash.includes('unauthorized'));
      assert(page.url().startsWith(BASE_URL), `left the app: ${page.url()}`);
    });
    await signOut(page);
    await context.close();

    // In pages of their own: what an earlier check left open must not hide these two.
    await check('the language menu, browser Back, the avatar: no error', async () => {
      const fresh = await openPage(browser, { viewport: { width: 1280, height: 800 } });
      const errors = collectProblems(fresh.page, () => true);
      try {
        await signIn(fresh.page);
        await fresh.page.goto(`${BASE_URL}/#/dashboard/ras-settings`);
        await byTestId(fresh.page, 'grid-VW_TblMasterCountry').waitFor();
        await byTestId(fresh.page, 'language-button').click();
        await byTestId(fresh.page, 'language-option-sv').waitFor();
        await fresh.page.goBack();
        await waitForHash(fresh.page, '#/dashboard/home');
        await byTestId(fresh.page, 'screen-title').waitFor();
        await byTestId(fresh.page, 'user-avatar').click();
        await byTestId(fresh.page, 'user-menu-signout').waitFor().catch(() => {});
        assert(errors.length === 0, errors.join('; '));
        await byTestId(fresh.page, 'user-menu-signout').waitFor();
      } finally {
        await fresh.context.close();
      }
    });

    await check('profile dialog: Escape closes the open dropdown, not the dialog with its edits', async () => {
      const fresh = await openPage(browser, { viewport: { width: 1280, height: 800 } });
      try {
        await signIn(fresh.page);
        await byTestId(fresh.page, 'user-avatar').click();
        await byTestId(fresh.page, 'user-menu-profile').click();
        const dialog = byTestId(fresh.page, 'profile-dialog');
        await dialog.waitFor();
        await fresh.page.locator('#profile-firstName').fill('Edited');
        await byTestId(fresh.page, 'profile-languageCode').click();
        await fresh.page.locator('.p-dropdown-panel').waitFor();
        await fresh.page.keyboard.press('Escape');
        await fresh.page.locator('.p-dropdown-panel').waitFor({ state: 'detached' });
        // Had that Escape closed the dialog, its exit transition would have begun within the
        // frames settled waits for; once every transition has ended, it must still be open.
        await settled(fresh.page);
        assert(await dialog.isVisible(), 'Escape closed the dialog');
        assert((await fresh.page.locator('#profile-firstName').inputValue()) === 'Edited', 'the edit is lost');
        await fresh.page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
      } finally {
        await fresh.context.close();
      }
    });

    const phone = await openPage(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    failurePage = phone.page;
    await check('phone width 390: the Data Import screen fits, the language button and avatar are on screen', async () => {
      await signIn(phone.page);
      await phone.page.goto(`${BASE_URL}/#/dashboard/financialdocument`);
      await byTestId(phone.page, 'screen-data-import').waitFor();
      await phone.page.locator('.imports-table').waitFor(); // the recent imports of the checks above
      const width = await phone.page.evaluate(() => document.documentElement.scrollWidth);
      await shot(phone.page, 'firstuser-phone-data-import');
      if (width > 390) {
        // Name the widest elements that run past the screen, so the failure says what to fix.
        const wide = await phone.page.evaluate(() =>
          [...document.querySelectorAll('body *')]
            .map((e) => ({ e, right: e.getBoundingClientRect().right }))
            .filter((x) => x.right > 391)
            .sort((a, b) => b.right - a.right)
            .slice(0, 4)
            .map(({ e, right }) => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} to ${Math.round(right)}`),
        );
        throw new Error(`the page is ${width}px wide: ${wide.join(', ')}`);
      }
      for (const id of ['language-button', 'user-avatar']) {
        const box = await byTestId(phone.page, id).boundingBox();
        assert(box && box.x >= 0 && box.x + box.width <= 390, `${id} at ${JSON.stringify(box)}`);
      }
    });
    await phone.context.close();

    await check('no page errors', async () => {
      assert(problems.length === 0, problems.join('; '));
    });
  } finally {
    await browser.close();
  }
}

run(main);
