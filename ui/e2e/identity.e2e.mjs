// Browser test of user and role administration, permissions, password reset, two-factor
// sign-in and the profile, in headless Debian Chromium (playwright-core), all through the UI:
//   BASE_URL=http://127.0.0.1:8080 ADMIN_PASSWORD=... MAILBOX_URL=http://127.0.0.1:9999 node e2e/identity.e2e.mjs
// MAILBOX_URL/latest?to=<address> answers 404 or {code, data} for the newest mail to that
// address. Names carry Date.now() because other scripts share the server. Prints one line per
// check and a closing "e2e: N passed, M failed"; exits non-zero on a failure.
import path from 'node:path';
import {
  resetAdminLanguage,
  ADMIN_PASSWORD, ADMIN_USER, BASE_URL, SCREENSHOT_DIR, TIMEOUT,
  assert, byTestId, collectProblems, createChecks, launchBrowser, loadTranslations, openPage, submitSignIn, waitForHash, settled
} from './lib.mjs';

const MAILBOX_URL = (process.env.MAILBOX_URL ?? '').replace(/\/+$/, '');
const en = loadTranslations('en');

const suffix = Date.now();
const ROLE_NAME = `E2E Clerk ${suffix}`;
const USER = {
  username: `clerk${suffix}`,
  firstName: 'Carla',
  lastName: 'Lind',
  email: `clerk.${suffix}@ledgerdesk.test`,
  password: 'Clerk#2026a',
  newPassword: 'Reset#2026b',
};

let failurePage = null; // set once the browser is up: a failing check leaves a screenshot
// Later steps depend on earlier ones: after a failure the rest are skipped.
const { check, run } = createChecks({
  stopAfterFailure: true,
  onFailure: () => failurePage?.screenshot({ path: path.join(SCREENSHOT_DIR, 'identity-failure.png'), fullPage: true }).catch(() => {}),
});

async function signOut(page) {
  await byTestId(page, 'user-avatar').click();
  await byTestId(page, 'user-menu-signout').click();
  await page.locator('.p-confirm-dialog .p-confirm-dialog-accept').click();
  await waitForHash(page, '#/login');
  await byTestId(page, 'login-form').waitFor();
}

async function latestCode(email) {
  const response = await fetch(`${MAILBOX_URL}/latest?to=${encodeURIComponent(email)}`);
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`mailbox answered ${response.status}`);
  const body = await response.json();
  return body.code || null;
}

/** Polls the mailbox until a code other than `previous` arrives for `email`. */
async function newCode(email, previous, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const code = await latestCode(email);
    if (code && code !== previous) return code;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`no new code for ${email} within ${timeoutMs} ms`);
}

/** The text of a date in the signed-in user's date format (the calendar reads typed text in it). */
async function dateText(page, y, m, d) {
  const format = await page.evaluate(() => JSON.parse(localStorage.getItem('currentUser') ?? '{}').dateFormat ?? 'DD-MM-YYYY');
  const pattern = format.split(' ')[0];
  const pad = (n) => String(n).padStart(2, '0');
  return pattern.replace('YYYY', String(y)).replace('MM', pad(m)).replace('DD', pad(d));
}

async function toastWith(page, text) {
  await page.locator('.p-toast-message', { hasText: text }).first().waitFor();
}

async function checkBox(page, label) {
  await page.locator('.checkbox-list__item label', { hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }).click();
}

async function main() {
  assert(ADMIN_PASSWORD, 'ADMIN_PASSWORD is not set');
  assert(MAILBOX_URL, 'MAILBOX_URL is not set');
  const browser = await launchBrowser();
  let userId = null;
  let resetCode = null;
  try {
    const { context, page } = await openPage(browser, { viewport: { width: 1280, height: 900 } });
    failurePage = page;
    // The browser logs every 4xx answer; the 403 probe below causes one on purpose.
    const problems = collectProblems(page, (msg) => msg.text().includes('status of 403') && msg.location().url.endsWith('/api/users'));

    await check('admin signs in; the role list (metadata grid) shows its header and Add Role opens the role form', async () => {
      await resetAdminLanguage(); // an earlier script may have left the admin's profile in Swedish
      await submitSignIn(page, ADMIN_USER, ADMIN_PASSWORD);
      await waitForHash(page, '#/dashboard/home');
      await byTestId(page, 'screen-title').waitFor();
      await page.goto(`${BASE_URL}/#/dashboard/roleslist`);
      await byTestId(page, 'grid-VW_RolesList').waitFor();
      const title = await byTestId(page, 'screen-title').textContent();
      assert(title === en.screens.rolesList.title, `title ${title}`);
      const add = byTestId(page, 'grid-add');
      assert((await add.textContent()).includes(en.actions.addRole), `add button ${await add.textContent()}`);
      await add.click();
      await waitForHash(page, '#/dashboard/roles/add');
      await byTestId(page, 'role-form').waitFor();
    });

    await check('the role form creates a role granting Home and Data Import', async () => {
      await page.locator('#role-description').waitFor();
      await page.locator('label[for="screen-1"]').waitFor(); // screens loaded
      assert(await byTestId(page, 'form-save').isDisabled(), 'Save enabled on an empty form');
      await page.locator('#role-roleName').fill(ROLE_NAME);
      await page.locator('#role-description').fill('Imports documents (browser test)');
      await page.locator('label[for="screen-1"]').click();
      await page.locator('label[for="screen-2"]').click();
      assert(await page.locator('#screen-1').isChecked(), 'Home not checked');
      assert(!(await page.locator('#screen-all').isChecked()), 'select-all checked with two screens');
      await page.mouse.move(1200, 880);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'role-form.png'), fullPage: true });
      const created = page.waitForResponse((r) => r.url().endsWith('/api/roles') && r.request().method() === 'POST');
      const screens = page.waitForResponse((r) => /\/api\/roles\/\d+\/screens$/.test(r.url()) && r.request().method() === 'PUT');
      screens.catch(() => {});
      await byTestId(page, 'form-save').click();
      assert((await created).status() === 201, 'role not created');
      const body = (await screens).request().postDataJSON();
      assert(JSON.stringify(body.screenIds) === '[1,2]', `screens sent ${JSON.stringify(body)}`);
      await waitForHash(page, '#/dashboard/roleslist');
      await toastWith(page, en.roles.messages.created);
    });

    await check('the user form creates a user holding that role', async () => {
      await page.goto(`${BASE_URL}/#/dashboard/userslist`);
      await byTestId(page, 'grid-VW_UserList').waitFor();
      await byTestId(page, 'grid-add').click();
      await waitForHash(page, '#/dashboard/users/add');
      await page.locator('.checkbox-list__item label', { hasText: ROLE_NAME }).waitFor();
      await page.locator('#user-username').fill(USER.username);
      await page.locator('#user-email').fill(USER.email);
      await page.locator('#user-firstName').fill(USER.firstName);
      await page.locator('#user-lastName').fill(USER.lastName);
      await page.locator('#user-dateOfBirth').click();
      const dob = await dateText(page, 1990, 6, 15);
      await page.locator('#user-dateOfBirth').pressSequentially(dob);
      await page.keyboard.press('Tab');
      const shown = await page.locator('#user-dateOfBirth').inputValue();
      assert(shown === dob, `date of birth shows ${shown} after typing ${dob}`);
      await page.locator('#user-password').fill(USER.password);
      const rules = await page.locator('[data-testid^="password-rule-"][data-met="true"]').count();
      assert(rules === 5, `${rules} password rules met`);
      await checkBox(page, ROLE_NAME);
      await page.locator('.p-datepicker').waitFor({ state: 'detached' }).catch(() => {});
      await page.mouse.move(1200, 880);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'user-form.png'), fullPage: true });
      const created = page.waitForResponse((r) => r.url().endsWith('/api/users') && r.request().method() === 'POST');
      const roles = page.waitForResponse((r) => /\/api\/users\/\d+\/roles$/.test(r.url()) && r.request().method() === 'PUT');
      roles.catch(() => {}); // awaited below; a failure before that must not crash the script
      await byTestId(page, 'form-save').click();
      const response = await created;
      assert(response.status() === 201, `create answered ${response.status()}`);
      const sent = response.request().postDataJSON();
      assert(sent.dateOfBirth === '1990-06-15', `dateOfBirth sent ${sent.dateOfBirth}`);
      userId = (await response.json()).data.user.id;
      assert((await roles).ok(), 'roles not set');
      await waitForHash(page, '#/dashboard/userslist');
      await toastWith(page, en.users.messages.created);
      await signOut(page);
    });

    await check('the new user is refused a screen outside the role, in the UI and by the API (403)', async () => {
      await submitSignIn(page, USER.username, USER.password);
      await waitForHash(page, '#/dashboard/home');
      await byTestId(page, 'screen-title').waitFor();
      const ids = await page.evaluate(() => JSON.parse(localStorage.getItem('screenIds') ?? '[]'));
      assert(JSON.stringify([...ids].sort()) === '[1,2]', `screenIds ${JSON.stringify(ids)}`);
      await page.goto(`${BASE_URL}/#/dashboard/userslist`);
      await byTestId(page, 'access-denied').waitFor();
      const status = await page.evaluate(
        async (base) => (await fetch(`${base}/api/users`, { headers: { Authorization: `Bearer ${localStorage.getItem('token')}` } })).status,
        BASE_URL,
      );
      assert(status === 403, `GET /api/users answered ${status}`);
      await signOut(page);
    });

    await check('forgot password: the mailed code sets a new password, which then signs in', async () => {
      const before = await latestCode(USER.email);
      await page.getByText(en.login.forgotPassword).click();
      await waitForHash(page, '#/forgot-password');
      await page.locator('#email').fill(USER.email);
      await page.getByRole('button', { name: en.forgotPassword.sendCode }).click();
      await page.locator('#code').waitFor();
      resetCode = await newCode(USER.email, before);
      await page.locator('#code').fill(resetCode);
      await page.locator('#new-password').fill(USER.newPassword);
      await page.getByRole('button', { name: en.forgotPassword.resetPassword }).click();
      await waitForHash(page, '#/login');
      await toastWith(page, en.forgotPassword.resetDone);
      await submitSignIn(page, USER.username, USER.newPassword);
      await waitForHash(page, '#/dashboard/home');
      await byTestId(page, 'screen-title').waitFor();
      await signOut(page);
    });

    await check('admin turns on two-factor (Email) on the edit form', async () => {
      await submitSignIn(page, ADMIN_USER, ADMIN_PASSWORD);
      await waitForHash(page, '#/dashboard/home');
      await byTestId(page, 'screen-title').waitFor();
      // Through the users grid: newest first, the pencil opens the edit form.
      await page.goto(`${BASE_URL}/#/dashboard/userslist`);
      await byTestId(page, `row-edit-${userId}`).click();
      await waitForHash(page, `#/dashboard/users/edit/${userId}`);
      await page.waitForFunction((name) => document.querySelector('#user-username')?.value === name, USER.username);
      assert(await page.locator(`#role-${await roleIdOf(page)}`).isChecked(), 'role not shown as held');
      assert(await byTestId(page, 'form-save').isDisabled(), 'Save enabled before any change');
      await page.locator('label[for="user-enableTwoFactor"]').click();
      const type = await byTestId(page, 'two-factor-type').textContent();
      assert(type.includes(en.users.form.twoFactorTypes.email), `two-factor type ${type}`);
      await page.mouse.move(1200, 880);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'user-form-edit.png'), fullPage: true });
      const updated = page.waitForResponse((r) => r.url().endsWith(`/api/users/${userId}`) && r.request().method() === 'PUT');
      await byTestId(page, 'form-save').click();
      const sent = (await updated).request().postDataJSON();
      assert(sent.enableTwoFactor === true && sent.twoFactorType === 1, `sent ${JSON.stringify(sent)}`);
      await waitForHash(page, '#/dashboard/userslist');
      await toastWith(page, en.users.messages.updated);
      await signOut(page);
    });

    await check('the user signs in with the mailed 6-digit code', async () => {
      await submitSignIn(page, USER.username, USER.newPassword);
      await byTestId(page, 'two-factor-form').waitFor();
      const code = await newCode(USER.email, resetCode);
      await page.locator('#otp').fill(code);
      await page.getByRole('button', { name: en.login.twoFactor.verify }).click();
      await waitForHash(page, '#/dashboard/home');
      await byTestId(page, 'screen-title').waitFor();
    });

    await check('the profile dialog saves a new first name; after the reload the avatar shows it', async () => {
      await byTestId(page, 'user-avatar').click();
      await byTestId(page, 'user-menu-profile').click();
      const dialog = page.locator('.p-dialog', { has: page.locator('#profile-form') });
      await dialog.waitFor();
      await page.waitForFunction((name) => document.querySelector('#profile-firstName')?.value === name, USER.firstName);
      const width = await dialog.evaluate((el) => el.offsetWidth);
      assert(width === 1000, `dialog width ${width}`);
      const avatar = await byTestId(page, 'profile-avatar').textContent();
      assert(avatar === USER.username[0].toUpperCase(), `dialog avatar ${avatar}`);
      assert(await page.locator('#profile-username').evaluate((el) => el.readOnly), 'username editable');
      assert(await page.locator('#profile-dateOfBirth').evaluate((el) => el.readOnly), 'date of birth typable');
      await page.locator('#profile-firstName').fill('Zelda');
      await settled(page); // the opening animation finished before the screenshot
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'profile-form.png') });
      const reloaded = page.waitForEvent('load', { timeout: TIMEOUT });
      reloaded.catch(() => {});
      await byTestId(page, 'profile-save').click();
      await toastWith(page, en.profile.updated);
      await reloaded;
      await page.waitForFunction(() => document.querySelector('[data-testid="user-avatar"]')?.textContent === 'ZL');
      await byTestId(page, 'user-avatar').click();
      const header = await byTestId(page, 'user-menu-header').textContent();
      assert(header.includes(`Zelda ${USER.lastName}`), `menu header ${header}`);
      await byTestId(page, 'user-menu-signout').click(); // the menu is open already
      await page.locator('.p-confirm-dialog .p-confirm-dialog-accept').click();
      await waitForHash(page, '#/login');
    });

    await check('no page errors or unexpected console errors', async () => {
      assert(problems.length === 0, problems.join(' | '));
    });
    await context.close();
  } finally {
    await browser.close();
  }
}

/** The id of the test role, read from the role checkboxes of the user form. */
async function roleIdOf(page) {
  const label = page.locator('.checkbox-list__item label', { hasText: ROLE_NAME });
  await label.waitFor();
  return (await label.getAttribute('for')).replace('role-', '');
}

await run(main);
