// Page budgets of the built static site (scripts/test.sh step "page-budgets"): what does not depend
// on how fast or busy the machine is. Prints each figure and fails when one is broken:
//   transfer     a first visit in English: every file of the site but the on-demand ones (the
//                Chinese font, *.ttf, and messages, *.txt, fetched only when the UI is shown in 中文; the
//                wasm's deferred half, *.deferred.wasm, fetched after the first view) gzip-compressed
//                (-9), summed: <= BUDGET_TRANSFER_BYTES; the files the page actually requests must
//                all be site files and none of the on-demand ones (nothing is fetched that this
//                total does not count). The total with 中文 is printed, not judged.
//   loads        the page starts (window.vramlens.error stays unset) and draws its first frame
//   idle         after the page settles (no frame for 1 s), 0 frames drawn during the next 3 s
//   offline      no request leaves the machine (any non-loopback request is aborted and fails)
// Timings (first frame, input -> frame, the sweep natively and as WebAssembly) are benchmarks, not
// tests: scripts/bench.sh (tests/browser/page-timing.mjs) prints them against their budgets.
//
// Usage: node budgets.mjs --site build/web/site [--chromium /usr/bin/chromium]
import { finish, launchChromium, recordFrames, serveSite } from './harness.mjs';
import { readFile, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const argv = process.argv.slice(2);
const opt = (name, fallback) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : fallback; };
const siteDir = resolve(opt('site', 'build/web/site'));
const executablePath = opt('chromium', process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium');

const BUDGET_TRANSFER_BYTES = 350_000;  // issue 16's target; 347.6 KB measured by this script on 2026-11-28 (local build of branch page-weight-3: SDL2's GL name table out and SDL2 -Oz, ImGui's cursor bitmap out, transformers_stage's other families in cold(), the fonts without unused glyphs and tables, two GL glue options; keep list regenerated); before it, 369.0 KB measured by this script on 2026-11-28 (local build of branch page-weight-list: the whole model list handed to the wasm only once the deferred module is in, its parse out of the first view; keep list regenerated) + 4 KB; before it, 373.8 KB measured by this script on 2026-11-28 (local build of branch page-weight-strings: the messages of error and warning branches, the other engines' estimates and the model families the first view does not run in cold() functions, deferred with their text; keep list regenerated) + 4 KB; before it, 395.1 KB measured by this script on 2026-11-28 (local build of branch page-weight2: the strings only deferred code names moved to the deferred wasm, wasm-opt -Oz over the primary) + 4 KB; before it, 404.6 KB measured by this script on 2026-11-27 (local build of branch page-weight: the model list fetched after the first view, the Latin font without Latin Extended-A) + 4 KB; before it, 417.2 KB measured by this script on 2026-11-27 (main after the merges of encoder-decoders, cuBLAS workspaces, VLM training and the split; keep list regenerated) + 4 KB; before it, 415.3 KB measured by this script on 2026-11-27 (local build of branch wasm-split: the wasm split in two, the deferred half fetched after the first view; 588.5 KB unsplit) + 4 KB (docs/performance.md)
const onDemand = (f) => f.endsWith('.ttf') || f.endsWith('.txt');  // web/main.cpp fetches the Chinese font and messages when needed
// The wasm's deferred half (cmake/split_wasm.py): the page fetches it on the first input or once the whole
// model list has arrived, which it waits for (shell/index.html, web/main.cpp), and the service worker keeps it for offline use once the app runs, both after the first view.
// tests/browser/split.mjs checks that the first view itself does not ask for it.
// The whole model list (web/ui/app.h ModelList): web/main.cpp fetches it after the first view, which shows
// the default model the wasm holds.
const afterFirstView = (f) => f.endsWith('.deferred.wasm') || f.endsWith('.models.json');
const IDLE_MS = 3000;

const failures = [];
const fail = (what) => { failures.push(what); console.log(`  FAIL: ${what}`); };
const figure = (name, value, budget, ok) =>
  console.log(`  ${name.padEnd(34)} ${String(value).padStart(14)}   budget ${String(budget).padEnd(12)} ${ok ? 'ok' : 'OVER BUDGET'}`);

// ---- transfer size ---------------------------------------------------------------------------
async function filesUnder(dir, prefix = '') {
  const out = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...await filesUnder(join(dir, e.name), `${prefix}${e.name}/`));
    else out.push(`${prefix}${e.name}`);
  }
  return out;
}
const siteFiles = await filesUnder(siteDir);
let gzTotal = 0, gzOnDemand = 0, gzLater = 0;
console.log(`site ${siteDir}:`);
for (const f of siteFiles) {
  const body = await readFile(join(siteDir, f));
  const gz = gzipSync(body, { level: 9 }).length;
  if (onDemand(f)) gzOnDemand += gz; else if (afterFirstView(f)) gzLater += gz; else gzTotal += gz;
  const note = onDemand(f) ? ' (on demand)' : afterFirstView(f) ? ' (after the first view)' : '';
  console.log(`  ${f.padEnd(34)} ${String(body.length).padStart(10)} B raw ${String(gz).padStart(10)} B gzip${note}`);
}
console.log('page budgets:');
figure('first visit, English (gzip -9)', `${(gzTotal / 1000).toFixed(1)} KB`, `${BUDGET_TRANSFER_BYTES / 1000} KB`, gzTotal <= BUDGET_TRANSFER_BYTES);
console.log(`  (with the deferred wasm and the model list, fetched after the first view: ${((gzTotal + gzLater) / 1000).toFixed(1)} KB gzip; with 中文 too: ${((gzTotal + gzLater + gzOnDemand) / 1000).toFixed(1)} KB gzip, the font fetched when chosen)`);
if (gzTotal > BUDGET_TRANSFER_BYTES) fail(`first-visit transfer ${gzTotal} B gzip > ${BUDGET_TRANSFER_BYTES} B`);

// ---- a static server on loopback (the site at /), recording which files the page asks for -----
const requested = new Set();
const server = await serveSite(siteDir, '/', { onRequest: (rel) => requested.add(rel) });
const { origin } = server;

const isLoopback = (u) => {
  const { protocol, hostname } = new URL(u);
  if (['data:', 'blob:', 'about:'].includes(protocol)) return true;
  return ['127.0.0.1', 'localhost', '[::1]'].includes(hostname);
};

const browser = await launchChromium(executablePath);  // SwiftShader WebGL2, no background networking
const offsite = [];
async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (isLoopback(u)) return route.continue();
    offsite.push(u);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('pageerror', (err) => fail(`uncaught exception: ${err.message}`));
  return { context, page };
}

let idleFrames = null;
try {
  const { context, page } = await newPage();
  await page.addInitScript(recordFrames);
  await page.goto(`${origin}/`, { waitUntil: 'load', timeout: 60_000 });
  await page.waitForFunction(() => window.__vlFrameTimes.length > 0 || (window.vramlens && window.vramlens.error), null, { timeout: 60_000 });
  const error = await page.evaluate(() => window.vramlens && window.vramlens.error);
  if (error) throw new Error(`the app did not start: ${error}`);
  figure('page loads and draws a frame', 'yes', 'yes', true);
  // Settled: no new frame for 1 s (the app draws a few frames after start, then pauses).
  const frames = () => page.evaluate(() => window.vramlens.frames);
  let last = await frames(), still = 0;
  for (let t = 0; t < 20_000 && still < 1000; t += 100) {
    await page.waitForTimeout(100);
    const f = await frames();
    still = f === last ? still + 100 : 0;
    last = f;
  }
  const before = await frames();
  await page.waitForTimeout(IDLE_MS);
  idleFrames = (await frames()) - before;
  await context.close();
  figure(`frames drawn in ${IDLE_MS / 1000} s idle`, idleFrames, 0, idleFrames === 0);
  if (idleFrames !== 0) fail(`the idle page drew ${idleFrames} frames in ${IDLE_MS} ms`);
  figure('requests leaving the machine', offsite.length, 0, offsite.length === 0);
  for (const u of offsite) fail(`request to a non-loopback host: ${u}`);
  const uncounted = [...requested].filter((f) => !siteFiles.includes(f) || onDemand(f));  // the deferred wasm: the service worker's offline copy
  if (uncounted.length) fail(`the page requested files that are not in the site or only needed later: ${uncounted.join(', ')}`);
  console.log(`  files the page requested: ${[...requested].sort().join(', ')}`);
} catch (err) {
  fail(err.message);
} finally {
  await browser.close();
  server.close();
}

finish('page budgets', failures, 'all within budget');
