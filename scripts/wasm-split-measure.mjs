// Measures what Emscripten's module splitting (-sSPLIT_MODULE, binaryen's wasm-split) would take
// off the first visit (issue 16): instruments the page's wasm (wasm-split --instrument), loads the
// default page in headless Chromium with it, reads the profile of the functions the first view ran
// (the instrumented module's __write_profile export), splits the uninstrumented wasm by that profile
// and prints the primary's and the deferred module's raw, gzip -9 and brotli (q 11) sizes, and the
// functions kept (names from the web build's symbol map). Run on purpose after a web build; it
// judges nothing and writes only under --out, and with --write-keep-list 1 the list of the functions
// the first view ran to web/first-view-functions.txt, which the web build keeps in the primary
// module (cmake/split_wasm.py). --wasm: the unsplit module (the web build leaves it in
// build/web/vramlens.wasm.orig; a build without -sSPLIT_MODULE: build/web/app/vramlens.wasm).
//   node scripts/wasm-split-measure.mjs [--site build/web/site] [--wasm build/web/vramlens.wasm.orig]
//        [--symbols build/web/vramlens.wasm.symbols] [--out build/web/split] [--chromium PATH]
//        [--write-keep-list 1]
import { launchChromium, openApp, parseArgs, serveSite, settle } from '../tests/browser/harness.mjs';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const args = parseArgs();
const site = resolve(args.site ?? 'build/web/site');
const wasm = resolve(args.wasm ?? 'build/web/vramlens.wasm.orig');
const symbols = resolve(args.symbols ?? 'build/web/vramlens.wasm.symbols');
const out = resolve(args.out ?? 'build/web/split');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// The features the link enables (top-level CMakeLists.txt: -mbulk-memory; Emscripten 3.1.6's defaults).
const FEATURES = ['--enable-bulk-memory', '--enable-sign-ext', '--enable-mutable-globals'];
const split = (...a) => execFileSync('wasm-split', [...FEATURES, ...a], { encoding: 'utf8', maxBuffer: 64 << 20 });
split('--instrument', wasm, '-o', join(out, 'instrumented.wasm'));

// The site with the instrumented module under the built module's hashed name.
const copy = join(out, 'site');
cpSync(site, copy, { recursive: true });
const hashed = readdirSync(copy).find((f) => /^vramlens\.[0-9a-f]{10}\.wasm$/.test(f));
cpSync(join(out, 'instrumented.wasm'), join(copy, hashed));

// Each instantiated module's exports, so that __write_profile can be called after the first view.
const keepExports = () => {
  const wrap = (name) => {
    const orig = WebAssembly[name];
    WebAssembly[name] = async function (...a) {
      const r = await orig.apply(this, a);
      (window.__vlWasmExports ??= []).push((r.instance ?? r).exports);
      return r;
    };
  };
  wrap('instantiate');
  wrap('instantiateStreaming');
};
// The first views profiled: the default page as different visitors see it (window sizes, a phone,
// dark and light, the UI in Chinese); a view not listed still works, its first frames only wait for
// the deferred module.
const VIEWS = [
  { name: 'desktop-1280x800', viewport: { width: 1280, height: 800 } },
  { name: 'desktop-1280x720', viewport: { width: 1280, height: 720 } },
  { name: 'desktop-1920x1080', viewport: { width: 1920, height: 1080 } },
  { name: 'desktop-1024x768', viewport: { width: 1024, height: 768 } },
  { name: 'desktop-1440x900-dark', viewport: { width: 1440, height: 900 }, colorScheme: 'dark' },
  { name: 'phone-390x844', viewport: { width: 390, height: 844 }, mobile: true, dpr: 3 },
  { name: 'tablet-820x1180', viewport: { width: 820, height: 1180 }, touch: true, dpr: 2 },
  { name: 'desktop-zh', viewport: { width: 1280, height: 800 }, locale: 'zh-CN' },
];
// The whole model list, fetched after the first view, is held back unanswered: its parse is deferred
// code (web/main.cpp hands the list over once the deferred module is in), not the first view's.
const holdModelList = (ctx) => ctx.route('**/*.models.json', () => {});
const server = await serveSite(copy);
const browser = await launchChromium(args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium');
const profiles = [];
try {
  for (const view of VIEWS) {
    const page = await openApp(browser, server.url, { ...view, init: keepExports, route: holdModelList, anyModels: true }, (e) => { throw new Error(e); });
    await settle(page);
    await page.waitForTimeout(1000);
    await settle(page);
    // What reaches the page with no input too: the window losing and regaining focus, hidden and shown,
    // resized, and closed (SDL's handlers of these run in the wasm; a synchronous load is refused while
    // the page is being closed, so their code must be in the primary).
    await page.evaluate(() => {
      for (const t of ['blur', 'focus', 'resize']) window.dispatchEvent(new Event(t));
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await settle(page);
    await page.evaluate(() => { window.dispatchEvent(new Event('beforeunload')); window.dispatchEvent(new Event('pagehide')); });
    const bytes = Buffer.from(await page.evaluate(() => {
      const x = window.__vlWasmExports.find((e) => e.__write_profile);
      const size = 1 << 20, p = Module._malloc(size);
      const n = x.__write_profile(p, size);
      const b = Array.from(Module.HEAPU8.subarray(p, p + n));
      Module._free(p);
      return b;
    }));
    const file = join(out, `${view.name}.prof`);
    writeFileSync(file, bytes);
    profiles.push(file);
    await page.context().close();
    console.log(`profiled ${view.name}`);
  }
} finally {
  await browser.close();
  server.close();
}
split('--merge-profiles', ...profiles, '-o', join(out, 'first-view.prof'));
const profile = readFileSync(join(out, 'first-view.prof'));


const log = split('--profile', join(out, 'first-view.prof'), wasm, '-o1', join(out, 'primary.wasm'),
                  '-o2', join(out, 'deferred.wasm'), '-v');
writeFileSync(join(out, 'split.log'), log);

// Function names by index (the symbol map: "index:name", the index counting the imported functions
// first). wasm-split names an unnamed module's functions by their index among the defined ones: the
// symbol map's index less the imports.
const imports = WebAssembly.Module.imports(new WebAssembly.Module(readFileSync(wasm))).filter((i) => i.kind === 'function').length;
const names = new Map(readFileSync(symbols, 'utf8').split('\n').filter(Boolean)
  .map((l) => { const i = l.indexOf(':'); return [String(Number(l.slice(0, i)) - imports), l.slice(i + 1)]; }));
const kept = [], moved = [];
for (const line of log.split('\n')) {
  const m = /^(Keeping|Splitting out) functions: (.*)$/.exec(line.trim());
  if (!m) continue;
  const list = m[2].split(',').map((s) => s.trim()).filter(Boolean);
  (m[1] === 'Keeping' ? kept : moved).push(...list);
}
writeFileSync(join(out, 'kept-functions.txt'), kept.map((f) => `${f} ${names.get(f) ?? ''}`).join('\n') + '\n');
if (args['write-keep-list']) {
  const list = resolve(dirname(fileURLToPath(import.meta.url)), '../web/first-view-functions.txt');
  const sorted = [...new Set(kept.map((f) => names.get(f)).filter(Boolean))].sort();
  writeFileSync(list, '# The functions the default first view runs, kept in the page\'s primary wasm module; the\n' +
    '# rest is deferred (cmake/split_wasm.py). Written by scripts/wasm-split-measure.mjs --write-keep-list 1\n' +
    '# from a profile of the default page: rerun it when tests/browser/split.mjs finds the first view\n' +
    '# loading the deferred module. One name per line, as the symbol map spells it.\n' + sorted.join('\n') + '\n');
  console.log(`wrote ${list}: ${sorted.length} functions`);
}

const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
const sizes = (f) => {
  const b = readFileSync(f);
  return [b.length, gzipSync(b, { level: 9 }).length,
          brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length];
};
console.log(`profile: ${profile.length} B; functions kept ${kept.length}, split out ${moved.length}`);
console.log(`${'module'.padEnd(12)} ${'raw'.padStart(12)} ${'gzip -9'.padStart(10)} ${'brotli'.padStart(10)}`);
for (const [name, f] of [['whole', wasm], ['primary', join(out, 'primary.wasm')], ['deferred', join(out, 'deferred.wasm')]]) {
  const [raw, gz, br] = sizes(f);
  console.log(`${name.padEnd(12)} ${String(raw).padStart(10)} B ${kb(gz).padStart(10)} ${kb(br).padStart(10)}`);
}
