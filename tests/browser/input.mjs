// Browser test of what people give the page (scripts/test-browser-ui.sh, step "browser-ui"): no
// crash, no lost work, no silent wrong answer. The real page in headless Chromium, driven with the
// mouse, the keyboard, the system clipboard (Ctrl+V), a file drop and the address bar:
//   1. large input through paste, file drop and the URL hash (1.5 MB: read; 5 MB: refused with a
//      message): the app keeps drawing, answering and changing on a click, and shows a message
//   2. opening a share link keeps that link in the address bar (not the default scenario's)
//   3. a damaged link typed into the address bar of a tab that holds work keeps the work, says what
//      is wrong, and puts the work's link back in the address bar; Back still works
//   4. a scenario pasted where a config.json goes (and the other way round) reaches its own reader
//   5. the embed snippet from the Share panel, on a page of another origin: the app's height
//      message sizes its iframe; a message from any other origin does not
//
// Usage: node input.mjs --site build/web/site [--chromium /usr/bin/chromium]
import { appState as state, click, dropFile, finish, launchChromium, messages, openApp, parseArgs, paste, press,
         serveSite, settle, waitForMessage } from './harness.mjs';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = parseArgs();
const here = dirname(fileURLToPath(import.meta.url));
const siteDir = resolve(args.site ?? 'build/web/site');
const executablePath = args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium';

const failures = [];
const check = (ok, what) => { if (ok) console.log(`  ok: ${what}`); else { failures.push(what); console.error(`  FAIL: ${what}`); } };

const SUB = '/vramlens/';
const server = await serveSite(siteDir, SUB);
const base = server.url;
const browser = await launchChromium(executablePath);
const open = (url, opts = {}) => openApp(browser, url, opts, (what) => { failures.push(what); console.error(`  FAIL: ${what}`); });

// GPT-2's config.json from the Hub (tests/data/configs) with a "description" that makes the file
// `bytes` long: a real config as someone may have annotated it. Its shape: n_embd 768, n_layer 12.
const gpt2Config = JSON.parse(await readFile(join(here, '../data/configs/gpt2.json'), 'utf8'));
function bigConfig(bytes) {
  const empty = JSON.stringify({ description: '', ...gpt2Config });
  return JSON.stringify({ description: 'd'.repeat(bytes - empty.length), ...gpt2Config });
}
// A tokenizer.json's shape (the file next to config.json on the Hub): a string "version", added
// tokens, and a "model" holding the vocabulary; `bytes` long.
function tokenizerJson(bytes) {
  const vocab = {};
  let n = 200;
  for (let i = 0; n < bytes - 200; i++) { const t = `tok${i}`; vocab[t] = i; n += t.length + String(i).length + 4; }
  const j = { version: '1.0', truncation: null, padding: null, added_tokens: [{ id: 0, content: '<s>', special: true }],
              model: { type: 'BPE', vocab, merges: [] } };
  let s = JSON.stringify(j);
  return s.length < bytes ? s.slice(0, -1) + ' '.repeat(bytes - s.length) + '}' : s;
}
const kb = (n) => `${Math.round(n / 1e3)} KB`;  // as the app writes sizes from 10 KB to 10 MB ("5000 KB")
const LIMIT = 4 * 1024 * 1024;                   // core/json_input.h kMaxJsonInputBytes: 4 MiB

// The app still works: it answers the test hook, draws after input, and a click changes the unit.
async function stillWorks(page, what) {
  const s0 = await state(page);
  const f0 = await page.evaluate(() => window.vramlens.frames);
  await click(page, 'toggle.unit');
  const s1 = await state(page);
  const f1 = await page.evaluate(() => window.vramlens.frames);
  check(s1.ui.unit !== s0.ui.unit && f1 > f0, `${what}: the page still responds (unit ${s0.ui.unit} -> ${s1.ui.unit}, ${f1 - f0} frames drawn)`);
  await click(page, 'toggle.unit');
}
// A widget is on screen (inside the viewport): what the user can read.
async function visible(page, key) {
  const s = await state(page);
  const r = s.items[key];
  const vp = page.viewportSize();
  return !!r && r[0] >= 0 && r[1] >= 0 && r[1] + r[3] <= vp.height && r[2] > 0;
}
// A tab holding work: training, micro-batch 2 (two clicks away from the defaults).
async function tabWithWork(url = base) {
  const page = await open(url);
  await click(page, 'mode.0');
  await click(page, 'train.micro_batch.plus');
  const s = await state(page);
  if (s.ui.mode !== 'train') throw new Error('could not make work in the tab');
  return { page, work: s.scenario, link: s.link };
}
const linkOf = (page) => new URL(page.url()).hash.slice(1);
// One part of the test: an exception fails it and the next part still runs.
async function section(name, fn) {
  try { await fn(); } catch (e) { failures.push(`${name}: ${e.message.split('\n')[0]}`); console.error(`  FAIL: ${name}: ${e.message.split('\n')[0]}`); }
}

try {
  // ---- 1. large input ------------------------------------------------------------------------
  for (const bytes of [1_500_000, 5_000_000]) {
    const refused = bytes > LIMIT;
    const text = bigConfig(bytes);
    console.log(`large input: ${bytes} bytes (${refused ? 'over' : 'under'} the ${LIMIT}-byte limit)`);

    // Paste: the system clipboard, Ctrl+V on the page.
    await section(`paste ${bytes}`, async () => {
      const { page, work } = await tabWithWork();
      const before = await messages(page);
      await paste(page, text);
      await waitForMessage(page, before);
      const s = await state(page);
      if (refused) {
        check(s.ui.notice.startsWith(`The pasted text is ${kb(bytes)}; at most ${kb(LIMIT)} is read`) && s.scenario === work,
              `paste: refused with its size, the scenario unchanged ("${s.ui.notice.slice(0, 60)}…")`);
        check(await visible(page, 'notice'), 'paste: the message is on screen');
      } else {
        const m = JSON.parse(s.scenario).model;
        check(s.ui.status === 'This is a config.json: imported the model: gpt2' && m.hidden === 768 && m.layers === 12,
              `paste: the config.json is imported (${s.ui.status}; hidden ${m.hidden}, layers ${m.layers})`);
        check(await visible(page, 'status'), 'paste: the message is on screen');
      }
      await stillWorks(page, 'paste');
      await page.context().close();
    });
    // File drop.
    await section(`drop ${bytes}`, async () => {
      const { page, work } = await tabWithWork();
      const before = await messages(page);
      await dropFile(page, text);
      await waitForMessage(page, before);
      const s = await state(page);
      if (refused) {
        check(s.ui.notice.startsWith(`The dropped file is ${kb(bytes)}; at most ${kb(LIMIT)} is read`) && s.scenario === work,
              `drop: refused with its size, the scenario unchanged`);
        check(await visible(page, 'notice'), 'drop: the message is on screen');
      } else {
        const m = JSON.parse(s.scenario).model;
        check(s.ui.status === 'This is a config.json: imported the model: gpt2' && m.hidden === 768 && m.layers === 12,
              `drop: the config.json is imported (${s.ui.status})`);
        check(await visible(page, 'status'), 'drop: the message is on screen');
      }
      await stillWorks(page, 'drop');
      await page.context().close();
    });
    // The address bar of a tab that holds work: a huge hash.
    await section(`hash ${bytes}`, async () => {
      const { page, work, link } = await tabWithWork();
      const before = await messages(page);
      const huge = `v1.${'A'.repeat(bytes - 3)}`;
      let navigated = true;
      try { await page.goto(`${base}#${huge}`); } catch (e) { navigated = false; console.log(`  (Chromium refused the ${bytes}-byte URL: ${e.message.split('\n')[0].slice(0, 60)}…)`); }
      if (navigated) {
        await waitForMessage(page, before);
        const s = await state(page);
        check(s.scenario === work && (s.ui.notice.includes('your scenario was kept') || s.ui.notice.startsWith('The link is')),
              `hash: the work is kept, with a message ("${s.ui.notice.slice(0, 90)}…")`);
        check(await visible(page, 'notice'), 'hash: the message is on screen');
      } else {
        // Chromium does not take URLs over 2 MB (url::kMaxURLChars): the tab stays as it was.
        check(bytes > 2 * 1024 * 1024, `hash: only a URL over Chromium's 2 MB limit is refused by the browser`);
        check((await state(page)).scenario === work, 'hash: the work is kept');
      }
      check(linkOf(page) === link, `hash: the address bar holds the work's link again`);
      await stillWorks(page, 'hash');
      await page.context().close();
    });
    // A new tab opened on a huge link.
    if (bytes < 2 * 1024 * 1024) await section(`new tab ${bytes}`, async () => {
      const page = await open(`${base}#v1.${'A'.repeat(bytes - 3)}`);
      const s = await state(page);
      check(s.ok && s.ui.notice.startsWith('This link could not be read, so the defaults are shown: link: longer than 64 KiB'),
            `new tab on a ${bytes}-byte link: the defaults, and why (${s.ui.notice.slice(0, 80)}…)`);
      await stillWorks(page, 'new tab on a huge link');
      await page.context().close();
    });
  }
  // A tokenizer.json pasted by mistake (3 MB: read, then recognised as not a config).
  await section('tokenizer.json', async () => {
    const { page, work } = await tabWithWork();
    const before = await messages(page);
    await paste(page, tokenizerJson(3_000_000));
    await waitForMessage(page, before);
    const s = await state(page);
    check(s.scenario === work && s.ui.notice.includes('tokenizer.json') && s.ui.notice.startsWith('This is neither'),
          `a pasted 3 MB tokenizer.json is named as such, nothing changed ("${s.ui.notice.slice(0, 120)}…")`);
    await stillWorks(page, 'tokenizer.json');
    await page.context().close();
  });

  // ---- 2. a share link stays in the address bar -------------------------------------------------
  console.log('share link');
  await section('links', async () => {
    const { page: source, work, link } = await tabWithWork();
    await source.context().close();
    const tab = await open(`${base}#${link}`);
    await settle(tab);
    const t0 = await state(tab);
    check(t0.scenario === work, 'the link opens its scenario');
    check(linkOf(tab) === link, `the address bar still holds the link (…${linkOf(tab).slice(-16)}, opened …${link.slice(-16)})`);

    // ---- 3. a damaged link in a tab that holds work ----------------------------------------------
    console.log('damaged links');
    const garbled = link.slice(0, 12) + (link[12] === 'A' ? 'B' : 'A') + link.slice(13);
    for (const [name, bad] of [['truncated', link.slice(0, link.length - 7)], ['garbled', garbled]]) {
      const before = await messages(tab);
      await tab.goto(`${base}#${bad}`);  // typed into the address bar: same page, new fragment
      await waitForMessage(tab, before);
      const s = await state(tab);
      check(s.scenario === work, `${name} link: the scenario is unchanged`);
      check(s.ui.notice.startsWith('This link could not be read, so your scenario was kept: link:') && await visible(tab, 'notice'),
            `${name} link: says what is wrong (${s.ui.notice})`);
      check(linkOf(tab) === link, `${name} link: the address bar holds the work's link again`);
      await click(tab, 'notice');  // OK: dismissed
    }
    // Back and Forward between two good links: inference (a click), then the work's link typed again.
    await click(tab, 'mode.2');
    const inferLink = (await state(tab)).link;
    check(inferLink !== link && linkOf(tab) === inferLink, 'a click changes the scenario and the address bar');
    await tab.goto(`${base}#${link}`);
    await settle(tab);
    check((await state(tab)).scenario === work, 'typing the earlier link opens it again');
    await tab.goBack();
    await settle(tab);
    const back = await state(tab);
    check(linkOf(tab) === inferLink && back.ui.mode === 'infer', `Back: the previous scenario (${back.ui.mode})`);
    await tab.goForward();
    await settle(tab);
    check((await state(tab)).scenario === work && linkOf(tab) === link, 'Forward: the link again');
    await stillWorks(tab, 'after links');
    await tab.context().close();
  });

  // ---- 4. each kind of text reaches its own reader ---------------------------------------------
  console.log('scenario vs config.json');
  const scenarioFile = await readFile(join(here, '../../docs/examples/llama-3-8b-lora-4090.json'), 'utf8');
  const gpt2 = await readFile(join(here, '../data/configs/gpt2.json'), 'utf8');
  await section('importers', async () => {
    const page = await open(base, { viewport: { width: 1280, height: 1200 } });
    let before = await messages(page);
    await paste(page, scenarioFile);  // on the page
    await waitForMessage(page, before);
    let s = await state(page);
    let sc = JSON.parse(s.scenario);
    check(s.ui.status === 'This is a vramlens scenario: opened it.' && s.ui.mode === 'finetune' && s.ui.gpu === 'rtx-4090',
          `a pasted scenario file opens (${s.ui.status} mode ${s.ui.mode}, gpu ${s.ui.gpu})`);
    // Into the config.json box: click the box, Ctrl+V puts the text in it, Import.
    await click(page, 'status');  // OK: the message goes
    await click(page, 'model.source.3');
    await click(page, 'model.config');
    await page.evaluate((t) => navigator.clipboard.writeText(t), scenarioFile.replace('"rtx-4090"', '"rtx-3090"'));
    await press(page, 'Control+V');
    before = await messages(page);
    await click(page, 'model.import');
    await waitForMessage(page, before);
    s = await state(page);
    sc = JSON.parse(s.scenario);
    check(s.ui.status === 'This is a vramlens scenario: opened it.' && s.ui.gpu === 'rtx-3090' && s.ui.config_errors === 0,
          `a scenario pasted into the config.json box opens as a scenario (${s.ui.status} gpu ${s.ui.gpu})`);
    // A config.json in the same box.
    await click(page, 'status');
    await click(page, 'model.source.3');
    await click(page, 'model.config');
    await press(page, 'Control+A');
    await page.evaluate((t) => navigator.clipboard.writeText(t), gpt2);
    await press(page, 'Control+V');
    before = await messages(page);
    await click(page, 'model.import');
    await waitForMessage(page, before);
    s = await state(page);
    const m = JSON.parse(s.scenario).model;
    check(s.ui.status === 'This is a config.json: imported the model: gpt2' && m.hidden === 768 && s.ui.mode === 'finetune',
          `a config.json in the box imports the model, the rest stays (${s.ui.status})`);
    await stillWorks(page, 'importers');
    await page.context().close();
  });

  // ---- 5. the embed snippet --------------------------------------------------------------------
  console.log('embed snippet');
  await section('embed', async () => {
    const page = await open(base, { viewport: { width: 1280, height: 3000 } });
    await click(page, 'share.copy_snippet');
    const snippet = await page.evaluate(() => navigator.clipboard.readText());
    const appOrigin = new URL(base).origin;
    check(snippet.includes(`e.origin!=='${appOrigin}'`), `the snippet accepts only ${appOrigin}`);
    await page.context().close();

    // The blog (one origin) embeds the snippet and an iframe of a third origin, which posts a height.
    const pages = {
      '/blog.html': `<!doctype html><meta charset="utf-8"><body style="margin:0">${snippet}
        <iframe id="ad" src="ORIGIN3/other.html?h=1234" height="100"></iframe>
        <script>window.got = []; addEventListener('message', (e) => got.push([e.origin, e.data && e.data.vramlens_height]));</script>`,
      '/other.html': `<!doctype html><script>parent.postMessage({ vramlens_height: Number(new URLSearchParams(location.search).get('h')) }, '*');</script>`,
    };
    let thirdOrigin = '';
    const blogServer = createServer((req, res) => {
      const body = pages[new URL(req.url, 'http://x').pathname];
      if (!body) { res.writeHead(404).end(); return; }
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(body.replace('ORIGIN3', thirdOrigin));
    });
    const thirdServer = createServer((req, res) => {
      const body = pages[new URL(req.url, 'http://x').pathname];
      if (!body || !req.url.startsWith('/other.html')) { res.writeHead(404).end(); return; }
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(body);
    });
    await new Promise((ok) => blogServer.listen(0, '127.0.0.1', ok));
    await new Promise((ok) => thirdServer.listen(0, '127.0.0.1', ok));
    const blogOrigin = `http://127.0.0.1:${blogServer.address().port}`;
    thirdOrigin = `http://127.0.0.1:${thirdServer.address().port}`;
    try {
      const ctx = await browser.newContext({ viewport: { width: 900, height: 1200 } });
      const blog = await ctx.newPage();
      blog.on('pageerror', (e) => failures.push(`blog page error: ${e.message}`));
      await blog.goto(`${blogOrigin}/blog.html`);
      // The iframe may still be navigating when the blog's load event fires on a busy machine: wait for it (up to 30 s).
      let app = null;
      for (let i = 0; i < 300 && !(app = blog.frames().find((f) => f.url().startsWith(base))); i++) await blog.waitForTimeout(100);
      if (!app) throw new Error('the embedded app frame is missing');
      await app.waitForFunction(() => window.vramlens && window.vramlens.ready && window.vramlens.contentHeight > 0, null, { timeout: 90_000 });
      await blog.waitForFunction((o) => window.got.some(([origin]) => origin === o), appOrigin, { timeout: 30_000 });
      await blog.waitForFunction((o) => window.got.some(([origin]) => origin === o), thirdOrigin, { timeout: 30_000 });
      const heights = async () => blog.evaluate(() => [...document.querySelectorAll('iframe')].map((f) => f.getAttribute('height')));
      // The app posts its height again when its layout settles: wait for the last one to arrive.
      let reported = 0, appH = '', adH = '';
      for (let i = 0; i < 100; i++) {
        reported = await app.evaluate(() => Math.ceil(window.vramlens.contentHeight));
        [appH, adH] = await heights();
        if (appH === String(reported)) break;
        await blog.waitForTimeout(100);
      }
      check(appH === String(reported), `the app's message sizes its iframe (${appH} = the app's ${reported} px)`);
      check(adH === '100', `a height message from ${thirdOrigin} resizes no iframe (the other frame stays ${adH})`);
      // The app's iframe navigated to another origin (a link clicked inside it): that page's message
      // comes from the app iframe's window but not from the app's origin.
      const nGot = await blog.evaluate(() => window.got.length);
      await app.goto(`${thirdOrigin}/other.html?h=4321`);
      await blog.waitForFunction((n) => window.got.length > n && window.got.some(([, h]) => h === 4321), nGot, { timeout: 30_000 });
      [appH] = await heights();
      check(appH === String(reported), `a message from another origin in the app's iframe does not resize it (${appH})`);
      await ctx.close();
    } finally {
      blogServer.close();
      thirdServer.close();
    }
  });
} catch (e) {
  failures.push(String(e && e.stack || e));
  console.error(e);
} finally {
  await browser.close();
  server.close();
}
finish('browser-input', failures, 'all checks passed');
