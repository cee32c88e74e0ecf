// The wasm in two (issue 16, cmake/split_wasm.py): the primary module holds what the default first view
// runs, the deferred one the rest. Checks, in headless Chromium with no service worker (its offline copy
// would fetch every file once the app runs):
//   first view   the default page draws and settles without asking for the deferred module: a stale
//                web/first-view-functions.txt (first-view code now deferred) fails here; rerun
//                scripts/wasm-split-measure.mjs --write-keep-list 1
//   first input  a mouse move starts the background fetch; the module is then instantiated once
//   early call   deferred code called before any input (a GGUF header's needs, vl_gguf_needs) loads the
//                module on the spot with a synchronous request and gives the same answer as after the
//                background load, with no page error
// Usage: node split.mjs --site build/web/site [--chromium PATH]
import { APP_TIMEOUT_MS, checks, finish, launchChromium, parseArgs, serveSite, settle } from './harness.mjs';
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';

const args = parseArgs();
const siteDir = resolve(args.site ?? 'build/web/site');
const { failures, check, section } = checks();
const deferredFile = readdirSync(siteDir).find((f) => f.endsWith('.deferred.wasm'));
check(!!deferredFile, `the site has a deferred wasm module (${deferredFile})`);

const requested = [];
const server = await serveSite(siteDir, '/split/', { onRequest: (rel) => requested.push(rel) });
const browser = await launchChromium(args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium');
const deferredRequests = () => requested.filter((f) => f.endsWith('.deferred.wasm')).length;

async function open() {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
  ctx.setDefaultNavigationTimeout(APP_TIMEOUT_MS);
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
    await page.mouse.move(400, 300);
    await page.mouse.move(420, 320);
    await page.waitForFunction(() => window.vramlens.deferred === 'ready', null, { timeout: 30_000 });
    check(deferredRequests() === 1, `the first input fetched the deferred module once (${deferredRequests()})`);
    afterBackground = await ggufNeeds(page);
    check(Number.isFinite(afterBackground), `deferred code runs after the background load (vl_gguf_needs: ${afterBackground})`);
    await ctx.close();
  });
  await section('deferred code before any input', async () => {
    const { ctx, page } = await open();
    check(deferredRequests() === 0, 'nothing deferred asked for before the call');
    const early = await ggufNeeds(page);
    check(await page.evaluate(() => window.vramlens.deferred) === 'ready', 'the call loaded the deferred module at once');
    check(deferredRequests() === 1, `with one request (${deferredRequests()})`);
    check(early === afterBackground, `the same answer as after the background load (${early} and ${afterBackground})`);
    await page.mouse.move(400, 300);
    await page.waitForTimeout(500);
    check(deferredRequests() === 1, `an input after that fetches nothing more (${deferredRequests()})`);
    await ctx.close();
  });
} finally {
  await browser.close();
  server.close();
}
finish('split', failures, 'all checks passed');
