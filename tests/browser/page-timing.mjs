// Page timing: a benchmark, not a test (run by scripts/bench.sh). Prints each figure against its
// budget and against a reference measured in the same run on the same machine, so that a figure
// taken on a busy machine can be told apart from a slower page:
//   first answer    navigation start -> the first paint of the answer the HTML carries before the
//                   wasm (the verdict, web/prerender; its Element Timing renderTime), median of the
//                   same N cold loads. No budget. Reference: a static page of one paragraph (timed
//                   the same way) and a tiny canvas, no script, loaded the same way.
//   first frame     navigation start -> the app's first drawn frame (window.vramlens.frames becomes
//                   1, caught by a property setter: no polling delay); median of N cold loads (a new
//                   browser context each: a first visit, no service worker). Budget 500 ms.
//                   Reference: a page that draws one WebGL2 frame and nothing else, loaded the
//                   same way.
//   input -> frame  a real mouse move (Playwright) -> the next frame the app draws: the event's
//                   timeStamp to the frame's performance.now(), median of M moves on the settled
//                   page. Budget 100 ms (the RAIL model's response goal, web.dev/rail). Reference:
//                   the same moves on the reference page, which redraws on mousemove.
//   sweep           the 10,000-point chart sweep (bench/sweep_timing.cpp), natively, under node and
//                   in Chromium as WebAssembly. Budgets: 10 ms natively; WebAssembly within 3x of
//                   native (the ratio is measured in this run). Reference: bench::reference_work,
//                   timed by the same binary between the sweeps. Each row also names the heap
//                   allocations one estimate makes there (the timer counts them; not a budget).
// Headless Chromium uses SwiftShader (software WebGL2) on loopback.
//
// The exit status says whether the measurement worked (the page loaded, the binaries ran), never
// whether a figure is within budget: 0 when every figure was measured, 1 otherwise.
//
// Usage: node page-timing.mjs --site build/web/site [--bench-wasm build/web/bench]
//                             [--bench-native build/native/bench] [--chromium /usr/bin/chromium]
//                             [--loads 5] [--moves 10] [--runs 15]
import { launchChromium, parseArgs, recordFrames, serveSite } from './harness.mjs';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const args = parseArgs();
const siteDir = resolve(args.site ?? 'build/web/site');
const benchWasmDir = args['bench-wasm'] ? resolve(args['bench-wasm']) : null;
const benchNativeDir = args['bench-native'] ? resolve(args['bench-native']) : null;
const executablePath = args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium';
const LOADS = Number(args.loads ?? 5), MOVES = Number(args.moves ?? 10), RUNS = Number(args.runs ?? 15);

const BUDGET = { firstFrameMs: 500, inputToFrameMs: 100, sweepNativeMs: 10, wasmPerNative: 3 };
const problems = [];
const broken = (what) => { problems.push(what); console.log(`  NOT MEASURED: ${what}`); };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;
const rows = [];
// One printed row: the figure, its budget and verdict (information only), the reference and the ratio.
function row(what, value, budget, within, reference, ratio) {
  rows.push([what, value, budget, within === null ? '' : within ? 'within budget' : 'over budget', reference ?? '', ratio ?? '']);
}

// ---- a static server on loopback: the site at /, the reference page at /ref/, the wasm sweep at /bench/
const BENCH_PAGE = '<!doctype html><meta charset="utf-8"><title>sweep</title>' +
  `<script>var Module = { print: (t) => console.log(t), printErr: (t) => console.warn(t), arguments: ["${RUNS}"] };</script>` +
  '<script src="vramlens_sweep_timing.js"></script>';
// The reference page: a full-window WebGL2 canvas that clears once at start and once per mousemove
// (requestAnimationFrame, as the app's main loop), counting frames in window.vramlens.frames.
const REF_PAGE = `<!doctype html><meta charset="utf-8"><title>reference</title>
<style>html,body{margin:0;height:100%;overflow:hidden}canvas{display:block;width:100vw;height:100vh}</style>
<canvas id="c"></canvas><script>
const c = document.getElementById('c');
c.width = innerWidth; c.height = innerHeight;
const gl = c.getContext('webgl2');
window.vramlens = { frames: 0, ready: true };
let pending = false, n = 0;
function frame() {
  pending = false; n = (n + 1) % 8;
  gl.clearColor(0.1 + n / 40, 0.2, 0.3, 1); gl.clear(gl.COLOR_BUFFER_BIT);
  window.vramlens.frames = window.vramlens.frames + 1;
}
function wake() { if (!pending) { pending = true; requestAnimationFrame(frame); } }
addEventListener('mousemove', wake);
wake();
</script>`;
// The reference for the first answer: static HTML, one paragraph marked as the app's verdict is, and
// a tiny canvas; no script.
const REF_ANSWER_PAGE = `<!doctype html><meta charset="utf-8"><title>reference answer</title>
<p elementtiming="answer">Fits · 63.27 GiB free · 16.38 GiB / 79.65 GiB per GPU</p><canvas width="8" height="8"></canvas>`;
const refPages = { '/ref/': REF_PAGE, '/ref-answer/': REF_ANSWER_PAGE };
const server = await serveSite(siteDir, '/', benchWasmDir
  ? { pages: { ...refPages, '/bench/': BENCH_PAGE }, mounts: { '/bench/': benchWasmDir } }
  : { pages: refPages });
const { origin } = server;

const browser = await launchChromium(executablePath);
async function open(url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  await context.route('**/*', (route) => (/^http:\/\/127\.0\.0\.1[:/]/.test(route.request().url()) ? route.continue() : route.abort()));
  const page = await context.newPage();
  page.on('pageerror', (err) => broken(`uncaught exception on ${url}: ${err.message}`));
  await page.addInitScript(recordFrames);
  await page.addInitScript(recordAnswer);
  await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
  await page.waitForFunction(() => window.__vlFrameTimes.length > 0 || (window.vramlens && window.vramlens.error), null, { timeout: 60_000 });
  const error = await page.evaluate(() => window.vramlens && window.vramlens.error);
  if (error) throw new Error(`${url} did not start: ${error}`);
  return { context, page };
}
// Waits until no frame has been drawn for quietMs.
async function settle(page, quietMs = 500) {
  await page.waitForFunction((q) => {
    const t = window.__vlFrameTimes;
    return performance.now() - (t.length ? t[t.length - 1] : 0) > q;
  }, quietMs, { timeout: 30_000, polling: 50 });
}
// An init script: when the element marked elementtiming="answer" is first painted, in
// window.__vlAnswerTime (performance.now() milliseconds; Element Timing's renderTime).
const recordAnswer = () => {
  window.__vlAnswerTime = null;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (e.identifier === 'answer' && window.__vlAnswerTime === null) window.__vlAnswerTime = e.renderTime || e.loadTime;
  }).observe({ type: 'element', buffered: true });
};
// N cold loads: { frame: [first frame ms], answer: [first paint of the HTML answer ms] (withAnswer) }.
async function firstFrames(url, withAnswer = false) {
  const out = { frame: [], answer: [] };
  for (let i = 0; i < LOADS; ++i) {
    const { context, page } = await open(url);
    out.frame.push(await page.evaluate(() => window.__vlFrameTimes[0]));
    if (!withAnswer) { await context.close(); continue; }
    await page.waitForFunction(() => window.__vlAnswerTime !== null, null, { timeout: 10_000 })
      .catch(() => broken(`${url}: no paint of the element marked elementtiming="answer"`));
    out.answer.push(await page.evaluate(() => window.__vlAnswerTime));
    await context.close();
  }
  return out;
}
// N cold loads of a page with no frames of its own: [first paint of its answer ms].
async function firstAnswers(url) {
  const out = [];
  for (let i = 0; i < LOADS; ++i) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.addInitScript(recordAnswer);
    await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
    await page.waitForFunction(() => window.__vlAnswerTime !== null, null, { timeout: 10_000 })
      .catch(() => broken(`${url}: no paint of the element marked elementtiming="answer"`));
    out.push(await page.evaluate(() => window.__vlAnswerTime));
    await context.close();
  }
  return out;
}
async function inputToFrame(url) {
  const { context, page } = await open(url);
  const out = [];
  await settle(page);
  for (let i = 0; i < MOVES; ++i) {
    const before = await page.evaluate(() => ({ frames: window.__vlFrameTimes.length, inputs: window.__vlInputTimes.length }));
    await page.mouse.move(300 + 40 * (i % 5), 200 + 30 * (i % 3));
    await page.waitForFunction((b) => window.__vlInputTimes.length > b.inputs &&
      window.__vlFrameTimes.slice(b.frames).some((t) => t >= window.__vlInputTimes[b.inputs]), before, { timeout: 30_000, polling: 'raf' });
    out.push(await page.evaluate((b) => {
      const input = window.__vlInputTimes[b.inputs];
      return window.__vlFrameTimes.slice(b.frames).find((t) => t >= input) - input;
    }, before));
    await settle(page, 300);
  }
  await context.close();
  return out;
}

try {
  console.log(`page timing (${LOADS} cold loads, ${MOVES} mouse moves, ${RUNS} sweep runs; headless Chromium, SwiftShader):`);
  const appLoads = await firstFrames(`${origin}/`, true), refLoads = await firstFrames(`${origin}/ref/`);
  const refAnswers = await firstAnswers(`${origin}/ref-answer/`);
  const app = appLoads.frame, ref = refLoads.frame;
  console.log(`  first answer (HTML), app (ms): ${appLoads.answer.map((x) => x.toFixed(0)).join(', ')}`);
  console.log(`  first answer, reference (ms):  ${refAnswers.map((x) => x.toFixed(0)).join(', ')}`);
  console.log(`  first frame, app (ms):       ${app.map((x) => x.toFixed(0)).join(', ')}`);
  console.log(`  first frame, reference (ms): ${ref.map((x) => x.toFixed(0)).join(', ')}`);
  const aa = median(appLoads.answer), ra = median(refAnswers);
  row('first visible answer, HTML (median)', ms(aa), '—', null, ms(ra), `${(aa / ra).toFixed(2)}x`);
  const a = median(app), r = median(ref);
  row('first canvas frame (median)', ms(a), `${BUDGET.firstFrameMs} ms`, a <= BUDGET.firstFrameMs, ms(r), `${(a / r).toFixed(2)}x`);

  const appIn = await inputToFrame(`${origin}/`), refIn = await inputToFrame(`${origin}/ref/`);
  console.log(`  input -> frame, app (ms):       ${appIn.map((x) => x.toFixed(1)).join(', ')}`);
  console.log(`  input -> frame, reference (ms): ${refIn.map((x) => x.toFixed(1)).join(', ')}`);
  const ai = median(appIn), ri = median(refIn);
  row('input -> frame (median)', ms(ai), `${BUDGET.inputToFrameMs} ms`, ai <= BUDGET.inputToFrameMs, ms(ri), `${(ai / ri).toFixed(2)}x`);

  // "sweep_10k median_ms=4.512 ... reference_ms=1.020 ... allocs_per_estimate=1.00 ..." -> { ms, ref, allocs }
  const parse = (where, text) => {
    const m = /median_ms=([0-9.]+) min_ms=([0-9.]+) reference_ms=([0-9.]+)/.exec(text ?? '');
    if (!m) { broken(`the sweep timer printed no figure (${where}): ${String(text).slice(0, 200)}`); return null; }
    const a = /allocs_per_estimate=([0-9.]+)/.exec(text);
    return { ms: Number(m[1]), min: Number(m[2]), ref: Number(m[3]), allocs: a ? a[1] : '?' };
  };
  const sweep = {};
  if (benchNativeDir)
    sweep.native = parse('native', execFileSync(join(benchNativeDir, 'vramlens_sweep_timing'), [String(RUNS)], { encoding: 'utf8' }));
  if (benchWasmDir) {
    sweep.node = parse('node', execFileSync(process.execPath, ['--no-experimental-fetch', join(benchWasmDir, 'vramlens_sweep_timing.js'), String(RUNS)],
                                            { encoding: 'utf8' }));
    const context = await browser.newContext();
    const page = await context.newPage();
    const line = new Promise((ok) => page.on('console', (m) => { if (/median_ms=/.test(m.text())) ok(m.text()); }));
    await page.goto(`${origin}/bench/`, { waitUntil: 'load', timeout: 60_000 });
    sweep.chromium = parse('chromium', await Promise.race([line, page.waitForTimeout(120_000).then(() => 'timed out after 120 s')]));
    await context.close();
  }
  for (const [where, f] of Object.entries(sweep)) {
    if (!f) continue;
    const perRef = `${(f.ms / f.ref).toFixed(2)}x`;
    if (where === 'native') row(`sweep native (${f.allocs} allocations per estimate)`, ms(f.ms), `${BUDGET.sweepNativeMs} ms`, f.ms <= BUDGET.sweepNativeMs, ms(f.ref), perRef);
    else {
      // The medians' ratio, and the fastest runs' ratio: native and WebAssembly run one after the
      // other, so a burst of load on a shared machine moves the medians' ratio far more than the minima's.
      const ratio = sweep.native ? f.ms / sweep.native.ms : null;
      const fastest = sweep.native ? `, fastest runs ${(f.min / sweep.native.min).toFixed(2)}x` : '';
      row(`sweep ${where} (${ratio ? `${ratio.toFixed(2)}x native${fastest}` : 'no native figure'}; ${f.allocs} allocations per estimate)`, ms(f.ms),
          `${BUDGET.wasmPerNative}x native`, ratio ? ratio <= BUDGET.wasmPerNative : null, ms(f.ref), perRef);
    }
  }
} catch (err) {
  broken(err.message);
} finally {
  await browser.close();
  server.close();
}

const head = ['figure', 'measured', 'budget', 'verdict (not a test)', 'reference', 'figure / reference'];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
for (const r of [head, ...rows]) console.log('  ' + r.map((c, i) => String(c).padEnd(widths[i])).join('  '));
if (problems.length) {
  console.error(`page timing: ${problems.length} figure(s) could not be measured`);
  process.exit(1);
}
console.log('page timing: every figure measured (the verdicts above are information, not a pass/fail)');
