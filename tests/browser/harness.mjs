// Shared pieces of the browser tests: command-line flags, a static server on loopback that mounts
// the built site under a sub-path (proving the page uses relative URLs only), headless Chromium
// with WebGL2 through SwiftShader (flags from ../shared/notes/toolchain.md), and driving the app
// as a person does (openApp, settle, item, click).
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';

// --name value pairs into an object: parseArgs(['--site', 'x']) -> { site: 'x' }.
export function parseArgs(argv = process.argv.slice(2)) {
  return Object.fromEntries(argv.reduce((acc, a, i, all) =>
    a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc, []));
}

const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
               '.css': 'text/css', '.json': 'application/json', '.png': 'image/png', '.svg': 'image/svg+xml',
               '.ttf': 'font/ttf', '.woff2': 'font/woff2', '.ico': 'image/x-icon' };

// Serves siteDir at http://127.0.0.1:<free port><subPath>. Options: mounts {'/bench/': dir} serves
// more folders under their own prefixes, pages {'/ref/': html} fixed pages, onRequest(rel) sees each
// site file asked for. Nothing is cached (each page load fetches every file). Returns
// { url, origin, close() }.
export async function serveSite(siteDir, subPath = '/some/sub/path/', { mounts = {}, pages = {}, onRequest = () => {} } = {}) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path in pages) {
      res.writeHead(200, { 'Content-Type': MIME['.html'], 'Cache-Control': 'no-store' }).end(pages[path]);
      return;
    }
    const mount = Object.keys(mounts).find((m) => path.startsWith(m));
    const [root, prefix] = mount ? [mounts[mount], mount] : [siteDir, subPath];
    if (!path.startsWith(prefix)) { res.writeHead(404).end('outside the site'); return; }
    let rel = normalize(path.slice(prefix.length) || 'index.html');
    if (rel.startsWith('..')) { res.writeHead(403).end(); return; }
    if (rel.endsWith('/')) rel += 'index.html';
    if (!mount) onRequest(rel);
    try {
      const body = await readFile(join(root, rel));
      res.writeHead(200, { 'Content-Type': MIME[extname(rel)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { url: `${origin}${subPath}`, origin, close: () => server.close() };
}

// An init script (page.addInitScript): records when each frame is drawn (the app and the reference
// page set window.vramlens.frames after each frame) in window.__vlFrameTimes, and each mouse move's
// time stamp in window.__vlInputTimes, both in performance.now() milliseconds.
export const recordFrames = () => {
  window.__vlFrameTimes = [];
  window.__vlInputTimes = [];
  addEventListener('mousemove', (e) => window.__vlInputTimes.push(e.timeStamp), { capture: true });
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
        set(x) { if (x !== frames) window.__vlFrameTimes.push(performance.now()); frames = x; },
      });
    },
  });
};

// An init script (openApp's opts.init): records, for each key press, copy, cut, paste, wheel and
// touch start, whether its default was prevented, in window.__vlSeen [{type, key, prevented}]. It
// only reads: it sees each event first (a capture listener on window, added before the page's
// own) and reads defaultPrevented once the event has been dispatched to all of them.
export const observeDefaults = () => {
  window.__vlSeen = [];
  for (const type of ['keydown', 'copy', 'cut', 'paste', 'wheel', 'touchstart'])
    window.addEventListener(type, (e) => setTimeout(() => window.__vlSeen.push({ type, key: e.key ?? '', prevented: e.defaultPrevented })),
                            { capture: true, passive: true });
};
// What observeDefaults recorded since the last call (and forget it).
export const takeSeen = (page) => page.evaluate(() => window.__vlSeen.splice(0));

// Headless Chromium (Debian's package) with WebGL2 via SwiftShader and no background networking.
export function launchChromium(executablePath = process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium') {
  return chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--enable-unsafe-swiftshader', '--use-angle=swiftshader'],
  });
}

// Ends a browser test: prints one summary line and exits non-zero when anything failed.
// One test file's checks: check() prints a result and records a failure; section() runs a part and
// records what it threw, so the file goes on to its next part. `failures` goes to finish().
export function checks() {
  const failures = [];
  const check = (ok, what) => { if (ok) console.log(`  ok: ${what}`); else { failures.push(what); console.error(`  FAIL: ${what}`); } };
  async function section(name, fn) {
    try { await fn(); } catch (e) { failures.push(`${name}: ${e.message.split('\n')[0]}`); console.error(`  FAIL: ${name}: ${e.message.split('\n')[0]}`); }
  }
  return { failures, check, section };
}

export function finish(name, failures, passedText = 'passed') {
  if (failures.length) {
    console.error(`${name}: FAILED (${failures.length} problem(s))`);
    process.exit(1);
  }
  console.log(`${name}: ${passedText}`);
}

export const APP_TIMEOUT_MS = 90_000;

// A new tab (own context: viewport, touch, clipboard permissions) on url, once the app is ready and
// the whole model list is here. opts.route(ctx): run before the page opens; opts.init: a script run in the page before the app's own (page.addInitScript); opts.locale and opts.colorScheme:
// the browser's language (navigator.language) and the system's light or dark preference.
// Uncaught page errors go to onError (the tests count them as failures).
export async function openApp(browser, url, opts = {}, onError = () => {}) {
  const ctx = await browser.newContext({ viewport: opts.viewport ?? { width: 1280, height: 800 },
    deviceScaleFactor: opts.dpr ?? 1, isMobile: !!opts.mobile, hasTouch: !!(opts.mobile || opts.touch),
    locale: opts.locale, colorScheme: opts.colorScheme, permissions: ['clipboard-read', 'clipboard-write'] });
  // A loaded machine can take longer than Playwright's 30 s to load the page (the wasm compiles
  // before the load event): navigations get the app's start-up limit.
  ctx.setDefaultNavigationTimeout(APP_TIMEOUT_MS);
  if (opts.route) await opts.route(ctx);  // e.g. ctx.route(...) to hold back or refuse a file
  const page = await ctx.newPage();
  if (opts.init) await page.addInitScript(opts.init);
  page.on('console', (m) => { if (m.type() === 'error') console.error(`  [console] ${m.text().slice(0, 300)}`); });
  page.on('pageerror', (e) => onError(`page error: ${e.message}`));
  await page.goto(url);
  await page.waitForFunction(() => window.vramlens && (window.vramlens.ready || window.vramlens.error), null,
                             { timeout: APP_TIMEOUT_MS });
  const err = await page.evaluate(() => window.vramlens.error);
  if (err) throw new Error(`page failed to start: ${err}`);
  // The whole model list, fetched after the first view (issue 16; web/ui/app.h ModelList): the tests
  // use any preset. opts.anyModels: do not wait (a test of the wait itself).
  if (!opts.anyModels) {
    await page.waitForFunction(() => !['wanted', 'loading'].includes(window.vramlens.models), null, { timeout: APP_TIMEOUT_MS });
  }
  // A link that waited for the list opens when it arrives; its estimate is drawn in the frames after: let them settle
  // before a test reads the page (on a busy machine a read right away saw the default's answer).
  await settle(page);
  return page;
}

export const appState = (page) => page.evaluate(() => window.vramlens.state());
const frames = (page) => page.evaluate(() => window.vramlens.frames);

// Wait until the app has drawn its frames after the last input (it pauses when idle).
export async function settle(page) {
  await page.waitForTimeout(60);
  let f = await frames(page);
  for (let i = 0; i < 50; i++) {
    await page.waitForTimeout(40);
    const g = await frames(page);
    if (g === f) return;
    f = g;
  }
}

// Where a widget is on screen (the app records each widget's rectangle under a key).
export async function item(page, key) {
  await settle(page);
  const it = await page.evaluate((k) => window.vramlens.item(k), key);
  if (!it) throw new Error(`no widget '${key}' on screen`);
  return it;
}

// A click as a person makes it: move, press, (a frame), release; or a tap on a touch screen.
export async function click(page, key, opts = {}) {
  const it = await item(page, key);
  if (opts.touch) await page.touchscreen.tap(it.cx, it.cy);
  else {
    await page.mouse.move(it.cx, it.cy);
    await page.waitForTimeout(50);
    await page.mouse.down();
    await page.waitForTimeout(50);
    await page.mouse.up();
  }
  await settle(page);
}

// Choose a model preset as a person does: click the model search, type, let the list filter, click the
// preset's row (its key is preset.<id>). Returns the app's state after the pick.
export async function choosePreset(page, query, id, opts = {}) {
  await click(page, 'model.search', opts);
  await page.keyboard.type(query, { delay: 20 });
  await settle(page);
  await click(page, `preset.${id}`, opts);
  return appState(page);
}

// A key press as a person makes it: the keys go down, stay down for a frame, come up. (Dear ImGui
// 1.86 reads which keys are down once per frame: a press and release between two frames is missed.)
export async function press(page, combo) {
  const keys = combo.split('+');
  for (const k of keys) await page.keyboard.down(k);
  await page.waitForTimeout(50);
  for (const k of keys.reverse()) await page.keyboard.up(k);
  await settle(page);
}

// Paste as a person does: the text goes on the system clipboard (the context grants clipboard
// access), a click on a widget that takes no text (the total) puts the keyboard on the page, Ctrl+V.
export async function paste(page, text, at = 'total') {
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  const it = await item(page, at);
  await page.mouse.click(it.cx, it.cy);
  await settle(page);
  await press(page, 'Control+V');
}

// Drop a file on the page. Playwright's documented way: a DataTransfer made in the page, dispatched
// with the drop event (no real drag-and-drop from outside the browser is possible in a test).
export async function dropFile(page, text, name = 'config.json') {
  const dt = await page.evaluateHandle(([t, n]) => {
    const d = new DataTransfer();
    d.items.add(new File([t], n, { type: 'application/json' }));
    return d;
  }, [text, name]);
  await page.locator('#canvas').dispatchEvent('drop', { dataTransfer: dt });
  await dt.dispose();
}

// The app's message line(s) as shown: ui.notice (what went wrong) and ui.status (what was done).
export const messages = (page) => page.evaluate(() => {
  const u = window.vramlens.state().ui;
  return `${u.notice}|${u.status}`;
});
// Wait until the app shows a message other than `before` (an action's answer), then let it draw.
export async function waitForMessage(page, before, timeout = 30_000) {
  await page.waitForFunction((b) => {
    const u = window.vramlens.state().ui;
    return `${u.notice}|${u.status}` !== b && `${u.notice}${u.status}` !== '';
  }, before, { timeout, polling: 100 });
  await settle(page);
}

// A finger from `from` to `to` (page CSS pixels), in `steps` moves a frame apart, then lifted;
// after `holdMs` of resting in place when given (no fling: the page stops where the finger did).
export async function swipe(page, from, to, steps = 6, holdMs = 0) {
  const cdp = await page.context().newCDPSession(page);
  const at = (i) => [{ x: from.x + (to.x - from.x) * i / steps, y: from.y + (to.y - from.y) * i / steps }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(0) });
  for (let i = 1; i <= steps; i++) {
    await page.waitForTimeout(20);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(i) });
  }
  for (let t = 0; t < holdMs; t += 50) {
    await page.waitForTimeout(50);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(steps) });
  }
  await page.waitForTimeout(20);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

// Scrolls the inputs (mouse wheel, or a swipe on a touch screen) until `key` is fully in the window,
// below `top`.
export async function scrollTo(page, key, at, top, touch) {
  const h = page.viewportSize().height;
  for (let i = 0; i < 30; i++) {
    const it = await item(page, key);
    if (it.y >= top && it.y + it.h <= h) return it;
    const dy = Math.max(-250, Math.min(250, it.y + it.h / 2 - (top + h) / 2));
    if (touch) await swipe(page, at, { x: at.x, y: at.y - dy });
    else {
      await page.mouse.move(at.x, at.y);
      await page.mouse.wheel(0, dy);
    }
    await settle(page);
  }
  throw new Error(`could not scroll '${key}' into view`);
}

// A click on a widget once the wheel has brought it into view below the top bar, or on a phone (touch)
// a tap once swiped into view below the tabs (the phone's Setup tab is taller than the screen); the
// swipes run along the screen's right edge, beside the lists that scroll by themselves (the presets).
export async function clickInView(page, key, touch) {
  if (touch) {
    const tabs = await item(page, 'tab.1');
    await scrollTo(page, key, { x: page.viewportSize().width - 15, y: 640 }, tabs.y + tabs.h, true);
  } else {
    await scrollTo(page, key, { x: (await item(page, key)).cx, y: 450 }, 60, false);
  }
  await click(page, key, { touch });
}

// Click a field, select all it holds, type `text`, press Enter (which lets go of the field).
export async function typeInto(page, key, text) {
  await click(page, key);
  // The field has the keyboard before Ctrl+A selects its text (the app says so to the page, for its keys).
  await page.waitForFunction(() => window.Module._vl_text_active() === 1, null, { timeout: 10_000 });
  await press(page, 'Control+a');
  await page.keyboard.type(text, { delay: 30 });
  await press(page, 'Enter');
  await settle(page);
}

// `vramlens estimate` of a scenario (its JSON on stdin), as JSON: the native CLI's numbers for the page's own scenario.
export function cliEstimate(cliPath, scenarioJson) {
  return JSON.parse(execFileSync(cliPath, ['estimate', '-', '--format', 'json'], { input: scenarioJson, encoding: 'utf8' }));
}

// The common start of a browser test that drives the page (and compares with the native CLI): its flags
// (--site, --cli, --chromium), the site served under a sub-path, headless Chromium, checks(), open() for a
// new page of the app, and run(name, body), which runs the test's sections, closes the browser and the
// server whatever happened and prints the result (finish).
export async function startPageTest(subPath = '/vramlens/') {
  const args = parseArgs();
  const siteDir = resolve(args.site ?? 'build/web/site');
  const cliPath = resolve(args.cli ?? process.env.VRAMLENS_CLI ?? 'build/native/cli/vramlens');
  const c = checks();
  const server = await serveSite(siteDir, subPath);
  const browser = await launchChromium(args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium');
  const open = (opts, url = server.url) => openApp(browser, url, opts, (what) => c.failures.push(what));
  async function run(name, body) {
    try {
      await body();
    } catch (e) {
      c.failures.push(String(e && e.stack || e));
      console.error(e);
    } finally {
      await browser.close();
      server.close();
    }
    finish(name, c.failures, 'all checks passed');
  }
  return { ...c, cliPath, server, open, run };
}
