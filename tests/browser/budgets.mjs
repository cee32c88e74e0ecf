// Page budgets of the built static site (issue 8; scripts/test.sh step "page-budgets"). Prints each
// figure and fails when a budget breaks:
//   transfer     every file of the site gzip-compressed (-9), summed: <= 600 KB (600,000 bytes); the
//                files the page actually requests must all be site files (nothing is fetched that
//                this total does not count)
//   first frame  navigation start -> the app's first drawn frame (window.vramlens.frames becomes 1,
//                recorded by a property setter, so no polling delay): median of 5 cold loads (a new
//                browser context each) <= 500 ms, headless Chromium (SwiftShader WebGL2) on loopback
//   idle         after the page settles (no frame for 1 s), 0 frames drawn during the next 3 s
//   offline      no request leaves the machine (any non-loopback request is aborted and fails)
// Speed figures (printed; budget checked only with --strict-speed, timings on shared runners are
// noisy): the 10,000-point sweep natively, under node and in Chromium as WebAssembly; budget: wasm
// within 3x of native.
//
// Usage: node budgets.mjs --site build/web/site [--bench-wasm build/web/bench] [--bench-native build/native/bench]
//                         [--chromium /usr/bin/chromium] [--strict-speed]
import { finish, launchChromium } from './harness.mjs';
import { createServer } from 'node:http';
import { readFile, readdir } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { extname, join, normalize, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const argv = process.argv.slice(2);
const opt = (name, fallback) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : fallback; };
const flag = (name) => argv.includes(`--${name}`);
const siteDir = resolve(opt('site', 'build/web/site'));
const benchWasmDir = opt('bench-wasm', null) && resolve(opt('bench-wasm'));
const benchNativeDir = opt('bench-native', null) && resolve(opt('bench-native'));
const executablePath = opt('chromium', process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium');
const strictSpeed = flag('strict-speed');

const BUDGET_TRANSFER_BYTES = 600_000;
const BUDGET_FIRST_FRAME_MS = 500;
const LOADS = 5;
const IDLE_MS = 3000;
const BUDGET_WASM_RATIO = 3;

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
let rawTotal = 0, gzTotal = 0;
console.log(`site ${siteDir}:`);
for (const f of siteFiles) {
  const body = await readFile(join(siteDir, f));
  const gz = gzipSync(body, { level: 9 }).length;
  rawTotal += body.length; gzTotal += gz;
  console.log(`  ${f.padEnd(34)} ${String(body.length).padStart(10)} B raw ${String(gz).padStart(10)} B gzip`);
}
console.log('page budgets:');
figure('transfer (all files, gzip -9)', `${(gzTotal / 1000).toFixed(1)} KB`, `${BUDGET_TRANSFER_BYTES / 1000} KB`, gzTotal <= BUDGET_TRANSFER_BYTES);
if (gzTotal > BUDGET_TRANSFER_BYTES) fail(`site transfer ${gzTotal} B gzip > ${BUDGET_TRANSFER_BYTES} B`);

// ---- a static server on loopback (the site at /, the wasm benchmark at /bench/) -------------
const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
               '.json': 'application/json', '.ttf': 'font/ttf', '.woff2': 'font/woff2', '.png': 'image/png' };
const BENCH_PAGE = '<!doctype html><meta charset="utf-8"><title>sweep</title>' +
  '<script>var Module = { print: (t) => console.log(t), printErr: (t) => console.warn(t), arguments: ["15"] };</script>' +
  '<script src="vramlens_sweep_timing.js"></script>';
const requested = new Set();
const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  let root = siteDir, rel = path.slice(1);
  if (path.startsWith('/bench/')) {
    if (!benchWasmDir) { res.writeHead(404).end(); return; }
    root = benchWasmDir; rel = path.slice('/bench/'.length);
    if (rel === '' || rel === 'index.html') { res.writeHead(200, { 'Content-Type': MIME['.html'] }).end(BENCH_PAGE); return; }
  } else {
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';
    requested.add(normalize(rel));
  }
  rel = normalize(rel);
  if (rel.startsWith('..')) { res.writeHead(403).end(); return; }
  try {
    const body = await readFile(join(root, rel));
    res.writeHead(200, { 'Content-Type': MIME[extname(rel)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' }).end(body);
  } catch {
    res.writeHead(404).end('not found');
  }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const origin = `http://127.0.0.1:${server.address().port}`;

const isLoopback = (u) => {
  const { protocol, hostname } = new URL(u);
  if (['data:', 'blob:', 'about:'].includes(protocol)) return true;
  return ['127.0.0.1', 'localhost', '[::1]'].includes(hostname);
};

// Records the time of the first drawn frame: the app sets window.vramlens.frames after each frame.
const recordFirstFrame = () => {
  let hook;
  Object.defineProperty(window, 'vramlens', {
    configurable: true,
    get() { return hook; },
    set(v) {
      hook = v;
      let frames = v.frames ?? 0;
      Object.defineProperty(v, 'frames', {
        enumerable: true, configurable: true,
        get() { return frames; },
        set(x) { if (frames < 1 && x >= 1 && window.__vlFirstFrameMs === undefined) window.__vlFirstFrameMs = performance.now(); frames = x; },
      });
    },
  });
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

const firstFrames = [];
let idleFrames = null;
try {
  for (let i = 0; i < LOADS; ++i) {
    const { context, page } = await newPage();
    await page.addInitScript(recordFirstFrame);
    await page.goto(`${origin}/`, { waitUntil: 'load', timeout: 60_000 });
    await page.waitForFunction(() => window.__vlFirstFrameMs !== undefined || (window.vramlens && window.vramlens.error),
                               null, { timeout: 60_000 });
    const r = await page.evaluate(() => ({ ms: window.__vlFirstFrameMs, error: window.vramlens && window.vramlens.error }));
    if (r.error) throw new Error(`the app did not start: ${r.error}`);
    firstFrames.push(r.ms);
    if (i === LOADS - 1) {
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
    }
    await context.close();
  }
  const sorted = [...firstFrames].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  console.log(`  first frame, ${LOADS} cold loads (ms): ${firstFrames.map((x) => x.toFixed(0)).join(', ')}`);
  figure('first rendered frame (median)', `${median.toFixed(0)} ms`, `${BUDGET_FIRST_FRAME_MS} ms`, median <= BUDGET_FIRST_FRAME_MS);
  if (median > BUDGET_FIRST_FRAME_MS) fail(`first frame median ${median.toFixed(0)} ms > ${BUDGET_FIRST_FRAME_MS} ms`);
  figure(`frames drawn in ${IDLE_MS / 1000} s idle`, idleFrames, 0, idleFrames === 0);
  if (idleFrames !== 0) fail(`the idle page drew ${idleFrames} frames in ${IDLE_MS} ms`);
  figure('requests leaving the machine', offsite.length, 0, offsite.length === 0);
  for (const u of offsite) fail(`request to a non-loopback host: ${u}`);
  const uncounted = [...requested].filter((f) => !siteFiles.includes(f));
  if (uncounted.length) fail(`the page requested files that are not in the site: ${uncounted.join(', ')}`);
  console.log(`  files the page requested: ${[...requested].sort().join(', ')}`);

  // ---- speed: the sweep natively, under node and in Chromium --------------------------------
  if (benchWasmDir || benchNativeDir) {
    console.log('speed figures (10,000-point sweep, median of 15 runs):');
    const parse = (text) => Number((/median_ms=([0-9.]+)/.exec(text) ?? [])[1]);
    const figures = {};
    if (benchNativeDir)
      figures.native = parse(execFileSync(join(benchNativeDir, 'vramlens_sweep_timing'), ['15'], { encoding: 'utf8' }));
    if (benchWasmDir) {
      figures.node = parse(execFileSync(process.execPath, ['--no-experimental-fetch', join(benchWasmDir, 'vramlens_sweep_timing.js'), '15'],
                                        { encoding: 'utf8' }));
      const { context, page } = await newPage();
      const line = new Promise((ok) => page.on('console', (m) => { if (/median_ms=/.test(m.text())) ok(m.text()); }));
      await page.goto(`${origin}/bench/`, { waitUntil: 'load', timeout: 60_000 });
      figures.chromium = parse(await Promise.race([line, page.waitForTimeout(120_000).then(() => '')]));
      await context.close();
    }
    for (const [where, ms] of Object.entries(figures)) {
      const ratio = figures.native ? ms / figures.native : NaN;
      const ok = where === 'native' ? ms <= 10 : !(ratio > BUDGET_WASM_RATIO);
      figure(`sweep ${where}`, `${ms.toFixed(2)} ms`, where === 'native' ? '10 ms' : `${BUDGET_WASM_RATIO}x native`, ok);
      if (where !== 'native' && Number.isFinite(ratio)) console.log(`    ${where} / native = ${ratio.toFixed(2)}x`);
      if (!ok && strictSpeed) fail(`sweep ${where}: ${ms.toFixed(2)} ms over budget`);
    }
  }
} catch (err) {
  fail(err.message);
} finally {
  await browser.close();
  server.close();
}

finish('page budgets', failures, 'all within budget');
