// Browser test of the home screen (screen 1): tickets and bank bookings of one month imported
// through the API, then the month's figures in Chromium - level counts and match rate, the
// trend chart, the oldest unmatched, the bank totals - followed to the screens that explain
// them, and screenshots in English and Swedish.
//   BASE_URL=http://127.0.0.1:8080 ADMIN_PASSWORD=... node e2e/home.e2e.mjs
import {
  BASE_URL,
  assert, byTestId, callApi, collectProblems, createChecks, firstTwoLines, launchBrowser, loadTranslations, importCsv, openPage, shot, signIn,
} from './lib.mjs';

const en = loadTranslations('en');
const sv = loadTranslations('sv');
const { check, run } = createChecks({ describe: firstTwoLines });

/**
 * Types a month (YYYY-MM) into the month field, in the user's format its placeholder shows
 * (MM-YYYY for DD-MM-YYYY users), and waits for that month's figures (at once when it shows them
 * already).
 */
async function showMonth(page, month) {
  const input = page.locator('#home-month');
  const pattern = await input.getAttribute('placeholder');
  const [year, mon] = month.split('-');
  const typed = pattern.replace('YYYY', year).replace('MM', mon);
  if ((await input.inputValue()) === typed) {
    await byTestId(page, 'home-level-1').waitFor();
    return;
  }
  await input.fill(typed);
  await Promise.all([
    page.waitForResponse((r) => r.url().includes(`/api/home?month=${month}`) && r.status() === 200),
    input.press('Enter'),
  ]);
  await byTestId(page, 'home-level-1').waitFor();
}

async function main() {
  const browser = await launchBrowser();
  const suffix = Date.now().toString(36).slice(-5).toUpperCase();
  const actor = `Home${suffix}`;
  // A month no other script imports into; the figures below are this script's alone.
  const month = '2019-05';
  try {
    const { page } = await openPage(browser, { viewport: { width: 1400, height: 900 } });
    const problems = collectProblems(page, () => false);
    await signIn(page);

    await check('setup: three tickets and two bank bookings of May 2019 imported through the API', async () => {
      const p = await callApi(page, 'POST', '/TransactionProviders', {
        trans: actor, providers: `Home ${suffix}`, priority: 1, IN_OUT: 'IN', distrRvnSettle: 'Yes', distrDriver: 'No', affectsBalance: 'Yes', reconMapping: `HOME-${suffix}`,
      });
      assert(p.status === 201 || p.status === 200, `actor ${p.status}`);
      const rate = await callApi(page, 'POST', '/CurrencyExchangeRate', { exchangeRateOn: '2019-01-01', code: 'USD', currency: 'US Dollar', usd: '1', eur: '0', sek: '0', nok: '0', dkk: '0' });
      assert([200, 201, 409].includes(rate.status), `rate ${rate.status}`);
      const n = String(Date.now()).slice(-9);
      await importCsv(page, 'ticket', [
        'TicketNumber,TransDate,PaymentType,CountryCode,Currency,TransactionCode,SaleAmount',
        `1${n}001,2019-05-03,CC,SE,USD,T1,1500.00`,
        `1${n}002,2019-05-10,CC,SE,USD,T2,20.25`,
        `1${n}003,2019-05-20,CC,SE,USD,T3,4.75`,
      ].join('\n') + '\n', `home-tickets-${suffix}.csv`);
      await importCsv(page, 'bank', [
        'BankAccount,BookedDate,InterestDate,Text,AmountLocal,Currency,BankArchiveReference,Number,BookedBalanceLocalCurrency',
        `US00HOME${suffix},2019-05-06,,HOME-${suffix} payout,2500.00,USD,H${suffix}1,1,`,
        `US00HOME${suffix},2019-05-07,,HOME-${suffix} payout,100.50,USD,H${suffix}2,2,`,
      ].join('\n') + '\n', `home-bank-${suffix}.csv`);
    });

    await check('home: the figures of the chosen month, in English', async () => {
      await page.goto(`${BASE_URL}/#/dashboard/home`);
      await byTestId(page, 'screen-home').waitFor();
      await showMonth(page, month);
      const unmatched = await byTestId(page, 'home-level-1-unmatched-count').textContent();
      assert(unmatched === '3', `level 1 unmatched ${unmatched}`);
      const rate = await byTestId(page, 'home-level-1-rate').textContent();
      assert(rate?.startsWith('0.0 %'), `match rate ${rate}`);
      const oldest = byTestId(page, 'home-oldest-row').first();
      assert((await oldest.textContent())?.includes('03-05-2019'), `oldest row ${await oldest.textContent()} (the user's date format DD-MM-YYYY)`);
      const bankIn = await byTestId(page, 'home-bank-in').textContent();
      assert(bankIn === '2,600.50 USD', `bank in ${bankIn}`);
      await byTestId(page, 'home-trend-chart').locator('.recharts-line').first().waitFor();
      await byTestId(page, 'home-tasks').waitFor();
      await byTestId(page, 'home-imports').waitFor();
      await shot(page, 'home-en');
    });

    await check("following the bank figure opens the actor's bookings of the month", async () => {
      await byTestId(page, 'home-bank').getByRole('link', { name: actor }).click();
      await page.waitForFunction(() => window.location.hash.startsWith('#/dashboard/csvprocessed?'));
      const hash = await page.evaluate(() => decodeURIComponent(window.location.hash));
      assert(hash.includes('BookedDate=2019-05-01..2019-05-31') && hash.includes(`Actor=${actor}`), `link ${hash}`);
      await byTestId(page, 'grid-linked').waitFor();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="grid-VW_BankFinal"] .rdg-row').length === 2);
    });

    await check('following a level opens the reconcile screen on its tab with the month', async () => {
      await page.goBack();
      await showMonth(page, month);
      await byTestId(page, 'home-level-1-link').click();
      await page.waitForFunction(() => window.location.hash.startsWith('#/dashboard/bank-settlement?'));
      const hash = await page.evaluate(() => window.location.hash);
      assert(hash.includes('tab=0') && hash.includes('fromDate=2019-05-01') && hash.includes('toDate=2019-05-31'), `link ${hash}`);
    });

    await check('Swedish: labels, numbers and dates in the reader\'s language', async () => {
      await page.goto(`${BASE_URL}/#/dashboard/home`);
      await byTestId(page, 'screen-home').waitFor();
      await byTestId(page, 'language-button').click();
      await byTestId(page, 'language-option-sv').click();
      // The screen may render anew with the language: choose the month once it shows Swedish.
      await page.waitForFunction((t) => document.querySelector('[data-testid="screen-title"]')?.textContent === t, sv.screens.home.title);
      await showMonth(page, month);
      await page.waitForFunction((t) => document.querySelector('[data-testid="home-tasks"] h2')?.textContent === t, sv.home.tasks.title);
      const bankIn = (await byTestId(page, 'home-bank-in').textContent()) ?? '';
      assert(/^2\s600,50 USD$/.test(bankIn), `Swedish amount ${JSON.stringify(bankIn)}`);
      await byTestId(page, 'home-trend-chart').locator('.recharts-line').first().waitFor();
      // The legend names the levels in Swedish, with no English label of its own ("... legend icon").
      const legend = await byTestId(page, 'home-trend-chart').locator('.chart-legend__item').allTextContents();
      assert(legend.includes(sv.home.levels['1']), `legend ${legend}`);
      const labels = await byTestId(page, 'home-trend-chart').locator('[aria-label]').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
      assert(!labels.some((l) => /legend icon/.test(l ?? '')), `English legend labels ${labels}`);
      await shot(page, 'home-sv');
      await byTestId(page, 'language-button').click();
      await byTestId(page, 'language-option-en').click();
      await page.waitForFunction((t) => document.querySelector('[data-testid="home-tasks"] h2')?.textContent === t, en.home.tasks.title);
    });

    // First user, second round, item 13: at 390 px Home was 436 px wide, the oldest unmatched
    // wrapped its dates onto three lines and cut off the age.
    await check('phone width (390 x 844): no sideways scrolling; the oldest unmatched readable', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${BASE_URL}/#/dashboard/home`);
      await byTestId(page, 'screen-home').waitFor();
      await showMonth(page, month);
      await byTestId(page, 'home-oldest-row').first().waitFor();
      await byTestId(page, 'home-trend-chart').locator('.recharts-line').first().waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert(width <= 390, `the page is ${width} px wide`);
      const rows = await byTestId(page, 'home-oldest-row').evaluateAll((trs) =>
        trs.map((tr) => {
          const date = tr.querySelector('.home-oldest__date');
          const age = tr.querySelector('[data-testid="home-oldest-age"]');
          const range = document.createRange();
          range.selectNodeContents(date);
          const box = age.getBoundingClientRect();
          return { date: date.textContent, dateLines: range.getClientRects().length, age: age.textContent, ageShown: box.width > 0 && box.right <= 390 && age.scrollWidth <= age.clientWidth };
        }),
      );
      assert(rows.length === 3, `${rows.length} rows`);
      for (const r of rows) assert(r.dateLines === 1 && r.ageShown, `row ${JSON.stringify(r)}`);
      await shot(page, 'home-390');
      await page.setViewportSize({ width: 1400, height: 900 });
    });

    await check('no page errors', async () => {
      assert(problems.length === 0, problems.join('; '));
    });
  } finally {
    await browser.close();
  }
}

run(main);
