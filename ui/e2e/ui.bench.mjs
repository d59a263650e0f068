// The UI targets of DESIGN.md section 7, measured (not asserted): initial JavaScript gzipped,
// and the time to the first screen on localhost, cold (a fresh browser context each load, so
// nothing is cached), the median of several loads. Run by e2e/bench_test.go (BenchmarkUI).
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_PASSWORD, ADMIN_USER, BASE_URL, byTestId, launchBrowser } from './lib.mjs';

const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const LOADS = 7;

/** The scripts index.html loads at start (entry and module preloads), gzipped. */
function initialJavaScript() {
  const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
  const files = [...html.matchAll(/<(?:script[^>]*src|link[^>]*rel="modulepreload"[^>]*href)="\/?([^"]+\.js)"/g)].map((m) => m[1]);
  let raw = 0;
  let gzipped = 0;
  for (const file of new Set(files)) {
    const bytes = readFileSync(path.join(dist, file));
    raw += bytes.length;
    gzipped += gzipSync(bytes, { level: 9 }).length;
  }
  return { files: files.length, raw, gzipped };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

const js = initialJavaScript();
const browser = await launchBrowser();
const signInTimes = [];
const homeTimes = [];
try {
  for (let i = 0; i < LOADS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    let start = Date.now();
    await page.goto(`${BASE_URL}/`, { waitUntil: 'commit' });
    await page.locator('#username').waitFor();
    signInTimes.push(Date.now() - start);
    await page.locator('#username').fill(ADMIN_USER);
    await page.locator('#password').fill(ADMIN_PASSWORD);
    start = Date.now();
    await byTestId(page, 'sign-in').click();
    await page.waitForFunction(() => location.hash.includes('dashboard'));
    await page.locator('.sidebar').waitFor();
    homeTimes.push(Date.now() - start);
    await context.close();
  }
} finally {
  await browser.close();
}

console.log('| measure | value | target |');
console.log('|---|---|---|');
console.log(`| initial JavaScript (${js.files} files) | ${kib(js.gzipped)} gzipped (${kib(js.raw)} raw) | under 350 KiB gzipped |`);
console.log(`| first screen, cold: sign-in form shown | ${median(signInTimes)} ms (median of ${LOADS}; ${Math.min(...signInTimes)} to ${Math.max(...signInTimes)}) | under 1 s |`);
console.log(`| sign-in to the home screen | ${median(homeTimes)} ms (median of ${LOADS}) | - |`);
