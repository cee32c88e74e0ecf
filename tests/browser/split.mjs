// The wasm in two (issue 16, cmake/split_wasm.py): the primary module holds what the default first view
// runs, the deferred one the rest. Checks, in headless Chromium with no service worker (its offline copy
// would fetch every file once the app runs):
//   first view   the default page draws and settles without asking for the deferred module: a stale
//                web/first-view-functions.txt (first-view code now deferred) fails here; rerun
//                scripts/wasm-split-measure.mjs --write-keep-list 1
//                (the whole model list held back: once here, it fetches the deferred module too)
//   first input  a mouse move starts the background fetch; the module is then instantiated once
//   model list   the whole model list, fetched after the first view, is handed to the app only once the
//                deferred module is instantiated (its parse is deferred code): with the module held
//                back the list stays loading; released, the list is whole, from one request; its
//                background fetch refused once, the picker says why the list failed, naming the module
//                (the failure's own code loads it synchronously, the second request)
//   early call   deferred code called before any input (a GGUF header's needs, vl_gguf_needs) loads the
//                module on the spot with a synchronous request and gives the same answer as after the
//                background load, with no page error
//   moved data   the strings only deferred code names (cmake/split_data.py) are zero in memory after the
//                first view and, once the deferred module is instantiated, byte for byte those of the
//                whole module the link wrote (build/web/vramlens.wasm.orig, beside the site)
// Usage: node split.mjs --site build/web/site [--chromium PATH]
import { APP_TIMEOUT_MS, checks, finish, launchChromium, parseArgs, serveSite, settle } from './harness.mjs';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const args = parseArgs();
const siteDir = resolve(args.site ?? 'build/web/site');
const { failures, check, section } = checks();
const deferredFile = readdirSync(siteDir).find((f) => f.endsWith('.deferred.wasm'));
check(!!deferredFile, `the site has a deferred wasm module (${deferredFile})`);

// [[address, bytes]] of a wasm file's active data segments (memory 0, i32.const offsets).
function dataSegments(bytes) {
  let pos = 8;
  const u = () => { let r = 0, s = 0, b; do { b = bytes[pos++]; r += (b & 0x7f) * 2 ** s; s += 7; } while (b & 0x80); return r; };
  while (pos < bytes.length) {
    const id = bytes[pos++], size = u(), end = pos + size;
    if (id !== 11) { pos = end; continue; }
    const out = [];
    for (let n = u(); n > 0; n--) {
      if (u() !== 0 || bytes[pos++] !== 0x41) throw new Error('unexpected data segment');
      const addr = u();  // unsigned LEB: the addresses are positive and below 2^31, so their sign bit is clear
      if (bytes[pos++] !== 0x0b) throw new Error('unexpected data segment offset');
      const len = u();
      out.push([addr, bytes.subarray(pos, pos + len)]);
      pos += len;
    }
    return out;
  }
  return [];
}
const moved = dataSegments(readFileSync(join(siteDir, deferredFile)));
const movedBytes = moved.reduce((n, [, b]) => n + b.length, 0);
check(movedBytes > 0, `the deferred module carries the strings only its code names (${moved.length} runs, ${movedBytes} B)`);
const origFile = join(dirname(siteDir), 'vramlens.wasm.orig');
if (existsSync(origFile)) {
  const image = new Map();
  for (const [a, b] of dataSegments(readFileSync(origFile))) image.set(a, b);
  const starts = [...image.keys()].sort((x, y) => x - y);
  const origByte = (addr) => {
    let lo = 0, hi = starts.length - 1, at = -1;
    while (lo <= hi) { const m = (lo + hi) >> 1; if (starts[m] <= addr) { at = m; lo = m + 1; } else hi = m - 1; }
    const seg = at < 0 ? null : image.get(starts[at]);
    return seg && addr - starts[at] < seg.length ? seg[addr - starts[at]] : 0;
  };
  const differ = moved.filter(([a, b]) => b.some((v, i) => v !== origByte(a + i))).length;
  check(differ === 0, `the moved strings are the whole module's own bytes (${differ} of ${moved.length} runs differ)`);
} else {
  console.log(`  (no ${origFile}: the moved strings are compared with memory only)`);
}
// How many moved runs differ from the deferred module's bytes in the page's memory; zero: true when
// every moved byte is zero there (the first view, before the module).
const memoryDiffers = (page, zero) => page.evaluate(([runs, zero]) => runs.filter(([a, b]) =>
  b.some((v, i) => Module.HEAPU8[a + i] !== (zero ? 0 : v))).length,
  [moved.map(([a, b]) => [a, Array.from(b)]), zero]);

const requested = [];
const server = await serveSite(siteDir, '/split/', { onRequest: (rel) => requested.push(rel) });
const browser = await launchChromium(args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium');
const deferredRequests = () => requested.filter((f) => f.endsWith('.deferred.wasm')).length;

// The whole model list held back unanswered: its arrival fetches the deferred module (web/main.cpp).
const holdModelList = (ctx) => ctx.route('**/*.models.json', () => {});
async function open(hold = holdModelList) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
  ctx.setDefaultNavigationTimeout(APP_TIMEOUT_MS);
  await hold(ctx);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => failures.push(`page error: ${e.message}`));
  requested.length = 0;
  await page.goto(server.url);
  await page.waitForFunction(() => window.vramlens && (window.vramlens.ready || window.vramlens.error), null,
                             { timeout: APP_TIMEOUT_MS });
  const err = await page.evaluate(() => window.vramlens.error);
  if (err) throw new Error(`page failed to start: ${err}`);
  await settle(page);
  return { ctx, page };
}
// vl_gguf_needs over the first 16 bytes of a GGUF header ("GGUF", version 3, 2 tensors), file size 1 MB.
const ggufNeeds = (page) => page.evaluate(() => {
  const bytes = [0x47, 0x47, 0x55, 0x46, 3, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0];
  const p = Module._malloc(bytes.length);
  Module.HEAPU8.set(bytes, p);
  try { return Module.ccall('vl_gguf_needs', 'number', ['number', 'number', 'number'], [p, bytes.length, 1 << 20]); }
  finally { Module._free(p); }
});

let afterBackground;
try {
  await section('first view, then the first input', async () => {
    const { ctx, page } = await open();
    await page.waitForTimeout(1000);
    await settle(page);
    check(deferredRequests() === 0, `the default first view asked for no deferred module (asked ${deferredRequests()} times)`);
    check(await page.evaluate(() => window.vramlens.deferred) === 'no', 'the deferred module is not loaded after the first view');
    const early = await memoryDiffers(page, true);
    check(early === 0, `the moved strings are not in memory before it (${early} of ${moved.length} runs are)`);
    await page.mouse.move(400, 300);
    await page.mouse.move(420, 320);
    await page.waitForFunction(() => window.vramlens.deferred === 'ready', null, { timeout: 30_000 });
    check(deferredRequests() === 1, `the first input fetched the deferred module once (${deferredRequests()})`);
    const differ = await memoryDiffers(page, false);
    check(differ === 0, `after it, the moved strings are in memory byte for byte (${differ} of ${moved.length} runs differ)`);
    afterBackground = await ggufNeeds(page);
    check(Number.isFinite(afterBackground), `deferred code runs after the background load (vl_gguf_needs: ${afterBackground})`);
    await ctx.close();
  });
  await section('deferred code before any input', async () => {
    const { ctx, page } = await open();
    check(deferredRequests() === 0, 'nothing deferred asked for before the call');
    const early = await ggufNeeds(page);
    check(await page.evaluate(() => window.vramlens.deferred) === 'ready', 'the call loaded the deferred module at once');
    const differ = await memoryDiffers(page, false);
    check(differ === 0, `with the moved strings in memory (${differ} of ${moved.length} runs differ)`);
    check(deferredRequests() === 1, `with one request (${deferredRequests()})`);
    check(early === afterBackground, `the same answer as after the background load (${early} and ${afterBackground})`);
    await page.mouse.move(400, 300);
    await page.waitForTimeout(500);
    check(deferredRequests() === 1, `an input after that fetches nothing more (${deferredRequests()})`);
    await ctx.close();
  });
  await section('the model list waits for the deferred module', async () => {
    let release;
    const held = new Promise((r) => { release = r; });
    const { ctx, page } = await open((c) => c.route('**/*.deferred.wasm', async (route) => { await held; await route.continue(); }));
    await page.waitForFunction(() => window.vramlens.deferred === 'loading', null, { timeout: 30_000 });
    await page.waitForTimeout(500);
    await settle(page);
    check(requested.some((f) => f.endsWith('.models.json')), 'the model list was fetched after the first view');
    const models = await page.evaluate(() => window.vramlens.models);
    check(models === 'loading', `with the deferred module held back, the list is not handed over (${models})`);
    release();
    await page.waitForFunction(() => window.vramlens.models !== 'loading', null, { timeout: 30_000 });
    const after = await page.evaluate(() => [window.vramlens.models, window.vramlens.deferred]);
    check(after[0] === 'whole' && after[1] === 'ready', `released, the list is whole with the module ready (${after})`);
    check(deferredRequests() === 1, `from one request of the deferred module (${deferredRequests()})`);
    await ctx.close();
  });
  await section('the model list when the deferred module\'s fetch fails', async () => {
    let asked = 0;
    const { ctx, page } = await open((c) => c.route('**/*.deferred.wasm', (route) =>
      asked++ ? route.continue() : route.fulfill({ status: 404, body: 'gone' })));
    await page.waitForFunction(() => window.vramlens.models !== 'wanted' && window.vramlens.models !== 'loading', null, { timeout: 30_000 });
    const st = await page.evaluate(() => window.vramlens.state());
    check(st.ui.models === 'failed' && st.ui.models_error.includes('.deferred.wasm') && st.ui.models_error.includes('404'),
          `the list failed, saying why (${st.ui.models}: ${st.ui.models_error})`);
    check(asked === 2 && await page.evaluate(() => window.vramlens.deferred) === 'ready',
          `the failure's code loaded the module with a second request (${asked} requests)`);
    await ctx.close();
  });
} finally {
  await browser.close();
  server.close();
}
finish('split', failures, 'all checks passed');
