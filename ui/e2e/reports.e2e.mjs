// Browser test of the reports screen (bank overview, screen 15): bookings imported through the
// API, then the pivot and its chart in Chromium - grouping, sort with RowTotal last, text filter,
// pager, parameters kept in local storage, Excel export, a cell's link to the bookings it sums,
// the load failure, and screenshots in English and Swedish.
//   BASE_URL=http://127.0.0.1:8080 ADMIN_PASSWORD=... node e2e/reports.e2e.mjs
import {
  BASE_URL,
  assert, byTestId, callApi, collectProblems, createChecks, firstTwoLines, launchBrowser, loadTranslations, importCsv, openPage, shot, signIn,
  waitForHash,
} from './lib.mjs';

const en = loadTranslations('en');
const sv = loadTranslations('sv');
const { check, run } = createChecks({ describe: firstTwoLines });

/** Runs `action` and waits for the bank overview answer it causes. */
async function afterOverview(page, action) {
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/reports/bank-overview') && r.request().method() === 'POST'),
    action(),
  ]);
  return response.json();
}

const periods = (page) => byTestId(page, 'pivot-row').locator('th').allTextContents();
const headers = (page) => byTestId(page, 'pivot-table').locator('thead th').allTextContents();
const cell = (page, period, key) => byTestId(page, 'pivot-row').filter({ has: page.locator('th', { hasText: new RegExp(`^${period}$`) }) }).locator(`[data-testid="pivot-cell-${key}"]`);
// The x-axis ticks: the periods (the y-axis ticks are compact numbers such as 1.4K). Days and
// months are in the admin's date format, DD-MM-YYYY (25-12-2025, 12-2025); years, halves,
// quarters and weeks as the server names them (2026, 2026-H1, 2026-Q1, 2026-W01).
const PERIOD = /^(\d{4}(-[HQW]\d+)?|(\d\d-)?\d\d-\d{4})$/;
const chartTicks = async (page) =>
  (await byTestId(page, 'bank-overview-chart').locator('.recharts-cartesian-axis-tick-value').allTextContents()).filter((t) => PERIOD.test(t));

async function chooseOption(page, name, label) {
  await byTestId(page, `reports-param-${name}`).click();
  await page.locator('.p-dropdown-item', { hasText: new RegExp(`^${label}$`) }).click();
}

async function main() {
  const browser = await launchBrowser();
  const suffix = Date.now().toString(36).slice(-5).toUpperCase();
  const nuvei = `Nuvei${suffix}`;
  const amex = `Amex${suffix}`;
  try {
    const { page } = await openPage(browser, { viewport: { width: 1400, height: 900 }, acceptDownloads: true });
    const problems = collectProblems(page, (msg) => /status of 500/.test(msg.text()));
    await signIn(page);

    await check('setup: two actors, a USD rate and a bank statement imported through the API', async () => {
      for (const p of [
        { trans: nuvei, providers: `Nuvei ${suffix}`, priority: 0, IN_OUT: 'IN', distrRvnSettle: 'Yes', distrDriver: 'No', affectsBalance: 'Yes', reconMapping: `NUVEI-${suffix}` },
        { trans: amex, providers: `Amex ${suffix}`, priority: 0, IN_OUT: 'IN', distrRvnSettle: 'Yes', distrDriver: 'Yes', affectsBalance: 'Yes', reconMapping: `AMEX-${suffix}` },
      ]) {
        const { status, body } = await callApi(page, 'POST', '/TransactionProviders', p);
        assert(status === 201 || status === 200, `actor ${status} ${JSON.stringify(body)}`);
      }
      const rate = await callApi(page, 'POST', '/CurrencyExchangeRate', { exchangeRateOn: '2020-01-01', code: 'USD', currency: 'US Dollar', usd: '1', eur: '0', sek: '0', nok: '0', dkk: '0' });
      assert([200, 201, 409].includes(rate.status), `rate ${rate.status} ${JSON.stringify(rate.body)}`);
      const lines = [
        'BankAccount,BookedDate,InterestDate,Text,AmountLocal,Currency,BankArchiveReference,Number,BookedBalanceLocalCurrency',
        `US00RPT${suffix},2025-12-29,,NUVEI-${suffix} payout 1,1234.50,USD,R${suffix}1,1,`,
        `US00RPT${suffix},2026-01-15,,NUVEI-${suffix} payout 2,100.00,USD,R${suffix}2,2,`,
        `US00RPT${suffix},2026-01-20,,AMEX-${suffix} settlement 1,200.25,USD,R${suffix}3,3,`,
        `US00RPT${suffix},2026-03-02,,AMEX-${suffix} settlement 2,50.00,USD,R${suffix}4,4,`,
        `US00RPT${suffix},2026-03-03,,NUVEI-${suffix} fee,-10.00,USD,R${suffix}5,5,`,
      ];
      await importCsv(page, 'bank', lines.join('\n') + '\n', `reports-${suffix}.csv`);
    });

    await check('reports screen: title, Period first, an actor column each, Total last, RowTotal last row', async () => {
      await page.evaluate(() => localStorage.removeItem('bankOverviewParams'));
      await afterOverview(page, () => page.goto(`${BASE_URL}/#/dashboard/reports`));
      await byTestId(page, 'pivot-table').waitFor();
      const title = await byTestId(page, 'screen-title').textContent();
      assert(title === en.REPORTS.TITLE, `title ${title}`);
      const h = await headers(page);
      assert(h[0] === en.reports.period && h[h.length - 1] === en.reports.total, `headers ${h}`);
      assert(h.includes(nuvei) && h.includes(amex), `actor columns ${h}`);
      const p = await periods(page);
      assert(p[p.length - 1] === en.reports.rowTotal, `last row ${p[p.length - 1]}`);
      // Months in the user's date format without the day (first user, second round, item 9).
      for (const month of ['12-2025', '01-2026', '02-2026', '03-2026']) assert(p.includes(month), `no row ${month} in ${p}`);
      assert((await byTestId(page, 'reports-filter-badge').count()) === 0, 'a badge with the defaults');
    });

    await check('amounts: 2 decimals, thousands separators, right-aligned; the month without bookings is empty', async () => {
      assert((await cell(page, '12-2025', nuvei).textContent()) === '1,234.50', `Dec ${await cell(page, '12-2025', nuvei).textContent()}`);
      assert((await cell(page, '01-2026', amex).textContent()) === '200.25', 'Jan Amex');
      assert((await cell(page, '02-2026', nuvei).textContent()) === '', 'Feb is not empty');
      const align = await cell(page, '01-2026', nuvei).evaluate((el) => getComputedStyle(el).textAlign);
      assert(align === 'right', `aligned ${align}`);
    });

    let monthTicks = [];
    await check('chart: a stacked bar per period with a segment per actor', async () => {
      const chart = byTestId(page, 'bank-overview-chart');
      await chart.locator('.recharts-bar-rectangle').first().waitFor();
      monthTicks = await chartTicks(page);
      assert(monthTicks.length > 0 && monthTicks.every((t) => /^\d\d-\d{4}$/.test(t)), `ticks ${monthTicks}`);
      const legend = await chart.locator('.chart-legend__item').allTextContents();
      assert(legend.includes(nuvei) && legend.includes(amex), `legend ${legend}`);
      // Recharts' own legend labelled each mark "<actor> legend icon" in English.
      const labels = await chart.locator('[aria-label]').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
      assert(!labels.some((l) => /legend icon/.test(l ?? '')), `English legend labels ${labels}`);
      await shot(page, 'reports-month-en');
    });

    await check('grouping Week: the badge counts 1, ISO weeks across the year boundary, table and chart change', async () => {
      await byTestId(page, 'reports-filters-toggle').click();
      await chooseOption(page, 'dateGroupingType', en.reports.options.Week);
      await shot(page, 'reports-filters-en');
      await afterOverview(page, () => byTestId(page, 'reports-apply').click());
      assert((await byTestId(page, 'reports-filter-badge').textContent()) === '1', 'badge');
      // Other scripts' bookings may add periods and pages: the text filter finds this one.
      await byTestId(page, 'pivot-filter').fill('2026-W01');
      await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="pivot-row"] th')].some((th) => th.textContent === '2026-W01'));
      assert((await cell(page, '2026-W01', nuvei).textContent()) === '1,234.50', 'the booking of 2025-12-29 is in 2026-W01');
      await byTestId(page, 'pivot-filter').fill('');
      await page.waitForFunction(
        (before) => {
          const ticks = [...document.querySelectorAll('[data-testid="bank-overview-chart"] .recharts-cartesian-axis-tick-value')]
            .map((t) => t.textContent ?? '')
            .filter((t) => /^\d{4}(-[\dHQW].*)?$/.test(t));
          return ticks.length > 0 && ticks.join() !== before && ticks.some((t) => /-W\d\d$/.test(t));
        },
        monthTicks.join(),
      );
      const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('bankOverviewParams') ?? '{}'));
      assert(stored.dateGroupingType === 'Week' && stored.inOutFilter === 'In', `stored ${JSON.stringify(stored)}`);
    });

    await check('sort: a header click sorts and toggles, RowTotal stays last', async () => {
      await byTestId(page, 'pivot-filter').fill('2026-W0'); // the weeks of this script's bookings, on one page
      await byTestId(page, 'pivot-header-Total').click();
      let p = await periods(page);
      assert(p[p.length - 1] === en.reports.rowTotal, 'RowTotal not last ascending');
      await byTestId(page, 'pivot-header-Total').click();
      p = await periods(page);
      assert(p[p.length - 1] === en.reports.rowTotal, 'RowTotal not last descending');
      const sort = await byTestId(page, 'pivot-table').locator('thead th').last().getAttribute('aria-sort');
      assert(sort === 'descending', `aria-sort ${sort}`);
      await byTestId(page, 'pivot-filter').fill('');
    });

    await check("text filter and 'No data found.'", async () => {
      await byTestId(page, 'pivot-filter').fill('2026-W01');
      let p = await periods(page);
      assert(p.length === 2 && p[0] === '2026-W01', `filtered ${p}`);
      await byTestId(page, 'pivot-filter').fill('no such period at all');
      assert((await byTestId(page, 'pivot-empty').textContent()) === en.reports.noData, 'empty text');
      await byTestId(page, 'pivot-filter').fill('');
      p = await periods(page);
      assert(p.length > 2, 'the filter did not clear');
    });

    await check("pager: Rows 25, 'Page 1 of N', Next", async () => {
      const rows = (await periods(page)).length;
      await byTestId(page, 'pivot-page-size').click();
      await page.locator('.p-dropdown-item', { hasText: /^25$/ }).click();
      const all = await page.evaluate(() => document.querySelectorAll('[data-testid="pivot-row"]').length);
      assert(all <= 25, `${all} rows on a page of 25`);
      const label = await byTestId(page, 'pivot-page').textContent();
      assert(/^Page 1 of \d+$/.test(label ?? ''), `pager ${label}`);
      if (rows > 25) {
        await byTestId(page, 'pivot-next').click();
        assert(/^Page 2 of/.test((await byTestId(page, 'pivot-page').textContent()) ?? ''), 'next');
      }
    });

    await check('the parameters come back after a reload', async () => {
      await afterOverview(page, () => page.reload());
      await byTestId(page, 'pivot-table').waitFor();
      assert((await byTestId(page, 'reports-filter-badge').textContent()) === '1', 'badge after reload');
      const first = (await periods(page))[0] ?? '';
      assert(/^\d{4}-W\d\d$/.test(first), `still weeks: ${first}`);
    });

    await check('Excel export of the rows shown', async () => {
      const [download] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'pivot-export').click()]);
      assert(download.suggestedFilename() === 'Bank_Overview.xlsx', `file ${download.suggestedFilename()}`);
    });

    await check('a cell opens the processed bank files filtered to its period and actor', async () => {
      await byTestId(page, 'reports-filters-toggle').click();
      await chooseOption(page, 'dateGroupingType', en.reports.options.Month);
      await afterOverview(page, () => byTestId(page, 'reports-apply').click());
      await byTestId(page, 'pivot-filter').fill('01-2026');
      await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="pivot-row"] th')].some((th) => th.textContent === '01-2026'));
      await cell(page, '01-2026', nuvei).locator('a').click();
      await page.waitForFunction(() => window.location.hash.startsWith('#/dashboard/csvprocessed?'));
      const hash = await page.evaluate(() => window.location.hash);
      assert(hash.includes('BookedDate=2026-01-01..2026-01-31') && hash.includes(`Actor=${nuvei}`), `link ${hash}`);
      await byTestId(page, 'grid-linked').waitFor();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="grid-VW_BankFinal"] .rdg-row').length === 1);
      const text = await byTestId(page, 'grid-VW_BankFinal').locator('.rdg-row').first().textContent();
      assert(text?.includes(`NUVEI-${suffix} payout 2`), `row ${text}`);
      await shot(page, 'reports-linked-bookings');
    });

    await check('Swedish: labels, numbers and the chart in the reader\'s language', async () => {
      await afterOverview(page, () => page.goto(`${BASE_URL}/#/dashboard/reports`));
      await byTestId(page, 'language-button').click();
      await byTestId(page, 'language-option-sv').click();
      await page.waitForFunction((t) => document.querySelector('[data-testid="screen-title"]')?.textContent === t, sv.REPORTS.TITLE);
      await page.waitForFunction((t) => document.querySelector('[data-testid="pivot-table"] thead th')?.textContent === t, sv.reports.period);
      const h = await headers(page);
      assert(h[0] === sv.reports.period, `headers ${h}`);
      await byTestId(page, 'pivot-filter').fill('12-2025');
      const dec = (await cell(page, '12-2025', nuvei).textContent()) ?? '';
      assert(/^1\s234,50$/.test(dec), `Swedish amount ${JSON.stringify(dec)}`);
      await byTestId(page, 'bank-overview-chart').locator('.recharts-bar-rectangle').first().waitFor();
      await shot(page, 'reports-month-sv');
      await byTestId(page, 'language-button').click();
      await byTestId(page, 'language-option-en').click();
    });

    await check("a failed load says 'Failed to load bank overview.'", async () => {
      await page.route('**/api/reports/bank-overview', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"succeeded":false,"error":"boom"}' }));
      await page.reload();
      await byTestId(page, 'pivot-error').waitFor();
      assert((await byTestId(page, 'pivot-error').textContent()) === en.reports.loadFailed, 'error text');
      await page.unroute('**/api/reports/bank-overview');
      await waitForHash(page, '#/dashboard/reports');
    });

    await check('no page errors', async () => {
      assert(problems.length === 0, problems.join('; '));
    });
  } finally {
    await browser.close();
  }
}

run(main);
