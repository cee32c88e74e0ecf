// Browser test: the answer before the wasm, content-hashed files and the offline second visit
// (scripts/test-browser-ui.sh). The real page in headless Chromium, served under a sub-path:
//   1. the site's files: every file but index.html and sw.js carries the first 10 hex digits of its
//      SHA-256 in its name, and index.html names those files (so a host may cache them for a year).
//   2. with the wasm held back (page.route answers it only when the test says so), the page already
//      shows the default scenario's answer as HTML: the verdict, the total and one row per component,
//      with the values the CLI computes for that scenario (vramlens estimate --format json; the
//      amounts put into GiB and the verdict's words by hand here, not read from the page). Once the
//      wasm runs, the app's own results replace them with the same text and markup, and the HTML
//      panel gives way to the canvas. The CLI's scenario is checked to be the app's default one.
//   3. without JavaScript, the same answer is what the page shows.
//   4. a share link with its own scenario (from vramlens link) hides the default scenario's answer
//      until the app has computed the link's.
//   5. the whole model list, fetched after the first view: held back, the picker says it is loading and
//      a link naming another preset waits for it; refused, the picker says so and the link's error shows.
//   6. after a first visit (the service worker installed), offline (context.setOffline), a reload
//      still starts the app, which computes the same total, has the whole model list and answers a
//      click (Training).
//
// Usage: node firstview.mjs --site build/web/site --cli build/native/cli/vramlens [--chromium /usr/bin/chromium]
import { appState as state, checks, click, finish, launchChromium, openApp, parseArgs, serveSite, settle } from './harness.mjs';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const args = parseArgs();
const siteDir = resolve(args.site ?? 'build/web/site');
const cli = resolve(args.cli ?? 'build/native/cli/vramlens');
const executablePath = args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium';
const { failures, check, section } = checks();

// The default scenario (web/ui/app.cpp default_scenario: Llama-3.1-8B, inference, one H100 80GB),
// estimated by the CLI; part 2 checks that the app's own scenario gives the same total.
const cliOut = JSON.parse(execFileSync(cli, ['estimate', '--model', 'llama-3.1-8b', '--mode', 'infer', '--gpu', 'h100-80gb',
                                             '--format', 'json'], { encoding: 'utf8' }));
// By hand: GiB is 2^30 bytes, two decimals (one from 100 GiB: core/units.h bytes_label); whole bytes with commas.
const gib = (b) => { const x = b / 2 ** 30; return `${x.toFixed(x.toFixed(2).length >= 6 ? 1 : 2)} GiB`; };
const whole = (b) => Math.round(b).toLocaleString('en-US');
const expected = {
  total: `${(cliOut.total_bytes / 2 ** 30).toFixed(2)} GiB`,
  verdict: `${cliOut.fits ? 'Fits' : 'Does not fit'} · ${gib(Math.abs(cliOut.headroom_bytes))} ${cliOut.fits ? 'free' : 'over'} · ` +
           `${(cliOut.total_bytes / 2 ** 30).toFixed(2)} GiB / ${gib(cliOut.capacity_bytes)} per GPU · Peak `,
  rows: cliOut.components.filter((c) => Number.isFinite(c.bytes) && c.bytes >= 0).map((c) => whole(c.bytes)),
};
console.log(`  the CLI's answer for the default scenario: ${expected.verdict}${cliOut.peak_phase}; ${expected.rows.length} components`);

const mirror = (page) => page.evaluate(() => {
  const r = document.getElementById('vl-results');
  const box = r.getBoundingClientRect();
  return {
    shown: !r.hidden && box.width > 100 && box.height > 100 && getComputedStyle(r).visibility !== 'hidden',
    cls: r.className, hidden: r.hidden,
    verdict: document.getElementById('vl-verdict').textContent,
    total: document.getElementById('vl-total').textContent,
    rowBytes: [...document.querySelectorAll('#vl-table tbody tr')].map((tr) => tr.cells[1].textContent),
    table: document.getElementById('vl-table').outerHTML,
    text: r.innerText,
    section: r.textContent,
  };
});
function answerIsExpected(m, when) {
  check(m.shown, `${when}: the answer is shown as HTML (#vl-results ${m.cls}, ${m.hidden ? 'hidden' : 'not hidden'})`);
  check(m.total === expected.total, `${when}: its total is the CLI's (${m.total} = ${expected.total})`);
  check(m.verdict.startsWith(expected.verdict) && m.verdict.toLowerCase().endsWith(cliOut.peak_phase.toLowerCase()),
        `${when}: its verdict is the CLI's (${m.verdict} | ${expected.verdict}${cliOut.peak_phase})`);
  check(JSON.stringify(m.rowBytes) === JSON.stringify(expected.rows),
        `${when}: one row per component with the CLI's bytes (${m.rowBytes.join(', ')})`);
}

const server = await serveSite(siteDir, '/some/blog/vramlens/');
const browser = await launchChromium(executablePath);

await section('content-hashed file names', async () => {
  const names = await readdir(siteDir);
  const html = await readFile(join(siteDir, 'index.html'), 'utf8');
  for (const name of names.filter((n) => n !== 'index.html' && n !== 'sw.js')) {
    const sha = createHash('sha256').update(await readFile(join(siteDir, name))).digest('hex').slice(0, 10);
    check(name.split('.')[1] === sha, `${name} carries its content's hash (${sha})`);
    check(html.includes(`"${name}"`), `index.html names ${name}`);
  }
  check(names.includes('sw.js') && names.some((n) => /^vramlens\.[0-9a-f]{10}\.wasm$/.test(n)),
        `the site holds sw.js and a hashed vramlens.wasm (${names.join(', ')})`);
});

await section('the answer before the wasm, then the app', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => check(false, `page error: ${e.message}`));
  let release;
  const held = new Promise((ok) => { release = ok; });
  let asked = false;
  await page.route('**/*.wasm', async (route) => { asked = true; await held; await route.continue(); });
  await page.goto(server.url, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => document.getElementById('vl-verdict'), null, { timeout: 30_000 });
  const before = await mirror(page);
  check(!(await page.evaluate(() => window.vramlens.ready)), 'the app has not started (its wasm is held back)');
  answerIsExpected(before, 'before the wasm');
  check(await page.locator('#vl-verdict').isVisible() && await page.getByRole('status').textContent() === before.verdict,
        'the verdict is a visible status a screen reader reads');
  release();
  await page.waitForFunction(() => window.vramlens.ready || window.vramlens.error, null, { timeout: 90_000 });
  check(asked, 'the page did ask for the wasm');
  await settle(page);
  const st = await state(page);
  check(st.core_total_bytes === cliOut.total_bytes,
        `the app's default scenario is the CLI's (core total ${st.core_total_bytes} = ${cliOut.total_bytes})`);
  const after = await mirror(page);
  check(after.section === before.section, 'the results as text from the app are word for word the pre-rendered ones');
  check(after.table === before.table, 'and the table has the same markup');
  check(after.cls === 'vl-hidden' && !after.shown, `the HTML panel gives way to the canvas once the app runs (${after.cls})`);
  await ctx.close();
});

await section('without JavaScript', async () => {
  const ctx = await browser.newContext({ viewport: { width: 800, height: 900 }, javaScriptEnabled: false });
  const page = await ctx.newPage();
  await page.goto(server.url);
  const m = await mirror(page);
  answerIsExpected(m, 'no JavaScript');
  check(m.text.includes('These results are for the default scenario; the calculator needs JavaScript'),
        'with the answer, the page says why there is no calculator');
  await ctx.close();
});

await section('a link with its own scenario', async () => {
  const flags = ['--model', 'llama-3.1-8b', '--mode', 'train', '--micro-batch', '4', '--gpu', 'h100-80gb'];
  const printed = execFileSync(cli, ['link', ...flags], { encoding: 'utf8' }).trim();  // v1.… (or a URL with #v1.…)
  const link = `#${printed.slice(printed.indexOf('#') + 1)}`;
  const train = JSON.parse(execFileSync(cli, ['estimate', ...flags, '--format', 'json'], { encoding: 'utf8' }));
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  let release;
  const held = new Promise((ok) => { release = ok; });
  await page.route('**/*.wasm', async (route) => { await held; await route.continue(); });
  await page.goto(server.url + link, { waitUntil: 'domcontentloaded' });
  const m = await mirror(page);
  check(m.hidden && !m.shown && !(await page.locator('#vl-verdict').isVisible()),
        `the default scenario's answer is not shown for the link ${link.slice(0, 24)}… (hidden until the app answers)`);
  release();
  await page.waitForFunction(() => window.vramlens.ready || window.vramlens.error, null, { timeout: 90_000 });
  await settle(page);
  const after = await mirror(page);
  check(!after.hidden && after.total === `${(train.total_bytes / 2 ** 30).toFixed(2)} GiB`,
        `then the results as text are the link's (${after.total}, the CLI says ${train.total_bytes} B)`);
  await ctx.close();
});

// The wasm holds only the default model; the whole list (vramlens.<hash>.models.json) is fetched after
// the first view (web/ui/app.h ModelList). Held back, the picker says it is loading and a link naming
// another preset waits (the address bar keeps it, no error is said), then opens as the CLI computes it;
// refused, the picker says so, and the link's own error (the unknown preset) is said.
await section('the model list after the first view', async () => {
  const flags = ['--model', 'qwen2.5-7b', '--mode', 'infer', '--gpu', 'h100-80gb'];
  const printed = execFileSync(cli, ['link', ...flags], { encoding: 'utf8' }).trim();
  const link = `#${printed.slice(printed.indexOf('#') + 1)}`;
  const inLink = Buffer.from(link.slice(4), 'base64url').toString('latin1');  // "#v1." + base64url(JSON + CRC-32)
  check(inLink.includes('"qwen2.5-7b"'), `the CLI's link names the preset (${inLink.slice(0, 80)})`);
  const qwen = JSON.parse(execFileSync(cli, ['estimate', ...flags, '--format', 'json'], { encoding: 'utf8' }));
  let release;
  const held = new Promise((ok) => { release = ok; });
  const page = await openApp(browser, server.url + link, {
    anyModels: true,
    route: (ctx) => ctx.route('**/*.models.json', async (route) => { await held; await route.continue(); }),
  }, (what) => check(false, what));
  await settle(page);
  let st = await state(page);
  check(st.ui.models === 'loading' && await page.evaluate(() => window.vramlens.models) === 'loading',
        `held back, the model list is loading (${st.ui.models})`);
  check(!!st.items['models.loading'], 'the model picker says it is loading');
  check(st.ui.waiting === 'hash' && !!st.items['models.waiting'] && st.ui.notice === '',
        `the link waits for it, and no error is said (waiting "${st.ui.waiting}", notice "${st.ui.notice}")`);
  check(await page.evaluate(() => location.hash) === link, 'the address bar keeps the link meanwhile');
  check((await mirror(page)).hidden, 'and the page does not give the default answer as the link\'s (#vl-results hidden)');
  release();
  await page.waitForFunction(() => window.vramlens.models === 'whole', null, { timeout: 30_000 });
  await settle(page);
  st = await state(page);
  check(st.ui.preset === 'qwen2.5-7b' && st.total_bytes === qwen.total_bytes && st.ui.waiting === '' && !st.items['models.waiting'],
        `once it is here, the link opens: ${st.ui.preset}, ${st.total_bytes} B (the CLI: ${qwen.total_bytes} B)`);
  const shown = await mirror(page);
  check(!shown.hidden && shown.total === `${(qwen.total_bytes / 2 ** 30).toFixed(2)} GiB`, `and the results as text are the link's (${shown.total})`);
  await page.context().close();

  const refused = await openApp(browser, server.url + link, {
    anyModels: true, route: (ctx) => ctx.route('**/*.models.json', (route) => route.fulfill({ status: 404, body: 'gone' })),
  }, (what) => check(false, what));
  await refused.waitForFunction(() => window.vramlens.models === 'failed', null, { timeout: 30_000 });
  await settle(refused);
  st = await state(refused);
  check(st.ui.models_error.includes('404') && !!st.items['models.retry'],
        `a failed fetch is said in the picker, with Retry (${st.ui.models_error})`);
  check(st.ui.waiting === '' && st.ui.notice.includes('qwen2.5-7b') && st.ui.preset === 'llama-3.1-8b',
        `the waiting link's own error is said then (${st.ui.notice.slice(0, 100)})`);
  await refused.context().close();
});

await section('offline on the second visit', async () => {
  const page = await openApp(browser, server.url, {}, (what) => check(false, what));
  const ctx = page.context();
  check(await page.evaluate(() => navigator.serviceWorker.ready.then((r) => !!r.active)), 'a service worker is active after the first visit');
  await ctx.setOffline(true);
  check(await page.evaluate(() => fetch('not-in-the-site.txt').then(() => false, () => true)), 'offline: a request for the network fails');
  await page.reload();
  await page.waitForFunction(() => window.vramlens && (window.vramlens.ready || window.vramlens.error), null, { timeout: 90_000 });
  check(!(await page.evaluate(() => window.vramlens.error)), 'offline, the reloaded page starts the app');
  check(await page.evaluate(() => !!navigator.serviceWorker.controller), 'the page came from the service worker');
  const st = await state(page);
  check(st.total_bytes === cliOut.total_bytes, `offline, it computes the default scenario (${st.total_bytes} B)`);
  await page.waitForFunction(() => !['wanted', 'loading'].includes(window.vramlens.models), null, { timeout: 30_000 });
  check(await page.evaluate(() => window.vramlens.models) === 'whole', 'offline, the whole model list comes from the service worker');
  await click(page, 'mode.0');  // Training
  const train = await state(page);
  check(train.ui.mode === 'train' && train.total_bytes !== cliOut.total_bytes && train.ok,
        `offline, a click on Training gives a new answer (${train.shown_total})`);
  await ctx.close();
});

await browser.close();
server.close();
finish('first view', failures);
