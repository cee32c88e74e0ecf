// Browser test: wheel and touch behave as on a web page (scripts/test-browser-ui.sh). The real page
// in headless Chromium, real input: Playwright's mouse wheel, and touches through the DevTools
// protocol (Input.dispatchTouchEvent: the browser's own touch pipeline, gestures and scrolling included).
//   1. a swipe that starts on a button, a stepper, a number field or a section header scrolls and
//      presses or changes nothing (on a phone, and on a desktop-sized touch screen); a tap still
//      presses, also with a finger that moves a few pixels
//   2. the embed snippet on a tall blog page (another origin): a wheel and a swipe over the embed,
//      which has nothing to scroll, scroll the blog; a swipe that starts on the embed's button does
//      not press it
//   3. the app still takes the wheel where it scrolls something (the inputs column)
//
// Usage: node scroll.mjs --site build/web/site [--chromium /usr/bin/chromium]
import { checks, appState as state, click, finish, item, launchChromium, observeDefaults, openApp, parseArgs, serveSite, settle,
         swipe, takeSeen } from './harness.mjs';
import { resolve } from 'node:path';

const args = parseArgs();
const siteDir = resolve(args.site ?? 'build/web/site');
const executablePath = args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium';

const { failures, check, section } = checks();

const server = await serveSite(siteDir, '/vramlens/');
const browser = await launchChromium(executablePath);
const open = (url, opts) => openApp(browser, url, { init: observeDefaults, ...opts }, (what) => failures.push(what));

const center = (it) => ({ x: it.cx, y: it.cy });
const up = (p, dy) => ({ x: p.x, y: p.y - dy });
// What a swipe must leave as it was: the scenario, the phone tab, and which widgets there are
// (a section opened or closed adds or removes some), and no text box open.
async function snapshot(page) {
  const s = await state(page);
  return { scenario: s.scenario, tab: s.ui.phone_tab, unit: s.ui.unit, keys: Object.keys(s.items).sort().join(','),
           editing: await page.evaluate(() => document.activeElement && document.activeElement.id) };
}
const same = (a, b) => a.scenario === b.scenario && a.tab === b.tab && a.unit === b.unit && a.keys === b.keys && b.editing !== 'vl-text';

// Swipes at x (in the scrolling column, beside any list that scrolls by itself) until the widget
// `key` is well inside the screen, below `top` (where the scrolling column starts, + a margin).
async function intoView(page, key, x, top = 180) {
  const h = page.viewportSize().height;
  for (let i = 0; i < 12; i++) {
    const it = await item(page, key);
    if (it.cy > top && it.cy < h - 200) return it;
    const d = it.cy >= h - 200 ? 150 : -150;
    await swipe(page, { x, y: h / 2 + d }, { x, y: h / 2 - d });
    await settle(page);
  }
  throw new Error(`could not bring ${key} into view`);
}

// ---- 1. a swipe is a scroll -----------------------------------------------------------------------
// Swipes 150 px up starting on each widget (at dx from its left edge, else its centre): the app
// scrolls and nothing else changes.
async function swipesScroll(name, page, column, starts) {
  for (const [what, key, dx] of starts) {
    const it = await intoView(page, key, column.x, column.top);
    const from = { x: it.x + (dx ?? it.w / 2), y: it.cy };
    const before = await snapshot(page);
    await swipe(page, from, up(from, 150));
    await settle(page);
    const after = await snapshot(page);
    const moved = it.y - (await item(page, key)).y;
    check(same(before, after), `${name}: a swipe starting on ${what} changes nothing`);
    check(moved > 100, `${name}: ... and scrolls (${what} moved up ${Math.round(moved)} px with a 150 px swipe)`);
    await swipe(page, from, up(from, -150));  // back
    await settle(page);
  }
}

try {
  console.log('phone 390x844 (touch)');
  await section('phone swipes', async () => {
    const page = await open(server.url, { viewport: { width: 390, height: 844 }, mobile: true });  // dpr 1: software WebGL draws 9x fewer pixels
    await click(page, 'tab.1', { touch: true });  // Setup: taller than the screen
    const tabs = await item(page, 'tab.0');  // the verdict and the tabs stay on top; the tab below scrolls
    const column = { x: 390 - 15, top: tabs.y + tabs.h + 80 };  // right of the model list, in the scrolling tab
    await swipesScroll('phone', page, column, [
      ['the Training button', 'mode.0'],
      ['a model preset', 'preset.llama-3.1-8b'],
      ['the batch + button', 'infer.batch.plus'],
      ['the batch number field', 'infer.batch'],
    ]);
    // A tap presses, also when the finger moves a few pixels.
    const it = await intoView(page, 'mode.0', column.x, column.top);
    await swipe(page, center(it), { x: it.cx + 3, y: it.cy - 3 }, 2);
    await settle(page);
    check((await state(page)).ui.mode === 'train', `a tap that moves 3 px presses the Training button (${(await state(page)).ui.mode})`);
    // Training's verdict lists the levers that would make it fit: the tabs moved down, the scrolling tab starts lower.
    const tabsNow = await item(page, 'tab.0');
    const below = { x: column.x, top: tabsNow.y + tabsNow.h + 80 };
    await swipesScroll('phone, training', page, below, [
      ['the Mode header\'s arrow (a header closes as soon as its arrow is pressed)', 'section.mode', 12],
      ['the micro-batch - button', 'train.micro_batch.minus'],
    ]);
    const f = await intoView(page, 'train.micro_batch', below.x, below.top);
    await page.touchscreen.tap(f.cx, f.cy);
    await settle(page);
    check(await page.evaluate(() => document.activeElement.id) === 'vl-text', 'a tap on a number field opens the text box');
    await page.context().close();
  });

  console.log('desktop 1280x800 touch screen');
  await section('desktop swipes', async () => {
    const page = await open(server.url, { viewport: { width: 1280, height: 800 }, touch: true });
    await click(page, 'mode.0');  // training: the inputs column is taller than the window
    const column = { x: (await item(page, 'mode.2')).x + (await item(page, 'mode.2')).w + 4 };  // the inputs column's right margin
    await swipesScroll('desktop touch', page, column, [
      ['the Fine-tune button', 'mode.1'],
      ['the micro-batch - button', 'train.micro_batch.minus'],
      ['the micro-batch field', 'train.micro_batch'],
      ['the GPU header\'s arrow', 'section.gpu', 12],
    ]);
    await page.context().close();
  });

  // ---- 2. the embed on a tall blog page -----------------------------------------------------------
  console.log('embed on a tall page');
  const snippetPage = await open(server.url, { viewport: { width: 1280, height: 3000 } });
  await click(snippetPage, 'share.copy_snippet');
  const snippet = await snippetPage.evaluate(() => navigator.clipboard.readText());
  await snippetPage.context().close();
  const para = '<p>' + 'A paragraph of the blog post around the calculator. '.repeat(12) + '</p>';
  const blog = await serveSite(siteDir, '/unused/', { pages: { '/post.html':
    `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
     <body style="margin:0 16px;font:16px serif"><h1>Will it fit?</h1>${para.repeat(6)}${snippet}${para.repeat(20)}</body>` } });
  for (const [name, opts] of [['desktop', { viewport: { width: 1280, height: 800 } }],
                              ['phone', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }]]) {
    await section(`embed ${name}`, async () => {
      const ctx = await browser.newContext(opts);
      const page = await ctx.newPage();
      page.on('pageerror', (e) => failures.push(`blog page error: ${e.message}`));
      await page.goto(`${blog.origin}/post.html`);
      // Scroll the embed's top into view as a reader does, over the text (the iframe loads lazily).
      // The finger rests before it lifts, so the page does not fling past (a loaded machine saw
      // 20 flings end 600 px off); after each move wait until the page rests, then move back or
      // on by what is left, until its top is within the first 300 px.
      const iframe = page.locator('iframe').first();
      const rest = async () => {
        let last = NaN;
        for (let i = 0; i < 40; i++) {
          const y = await page.evaluate(() => scrollY);
          if (y === last) return;
          last = y;
          await page.waitForTimeout(150);
        }
      };
      for (let i = 0; i < 20; i++) {
        await rest();
        const y = (await iframe.boundingBox()).y;
        if (y >= 0 && y <= 300) break;
        const dy = Math.max(-400, Math.min(400, y - 150));  // > 0: the page moves up
        if (name === 'desktop') {
          await page.mouse.move(20, 20);
          await page.mouse.wheel(0, dy);
        } else {
          await swipe(page, { x: 8, y: 500 }, { x: 8, y: 500 - dy }, 10, 300);
        }
      }
      await rest();
      const top = (await iframe.boundingBox()).y;
      check(top >= 0 && top < 400, `${name}: the embed is in view (top at ${Math.round(top)} px)`);
      let frame = null;
      for (let i = 0; i < 300 && !frame; i++) {
        frame = page.frames().find((f) => f.url().startsWith(server.url)) ?? null;
        if (!frame) await page.waitForTimeout(100);
      }
      if (!frame) throw new Error('the embedded app frame is missing');
      await frame.waitForFunction(() => window.vramlens && window.vramlens.ready && window.vramlens.contentHeight > 0, null, { timeout: 90_000 });
      // The blog sizes the iframe to the app (the snippet's script): wait until it has.
      await page.waitForFunction(() => { const f = document.querySelector('iframe'); return f && Number(f.height) !== 480; }, null, { timeout: 30_000 });
      await frame.evaluate(() => new Promise((ok) => setTimeout(ok, 300)));
      const unit = () => frame.evaluate(() => window.vramlens.state().ui.unit);
      const unitButton = async () => {
        const b = await frame.evaluate(() => window.vramlens.item('toggle.unit'));
        const bb = await page.locator('iframe').first().boundingBox();
        return { x: bb.x + b.cx, y: bb.y + b.cy };
      };
      // A tap (a click) on the embed's unit button presses it, and leaves the blog where it is.
      const unit0 = await unit();
      const y0 = await page.evaluate(() => scrollY);
      let at = await unitButton();
      if (name === 'phone') await page.touchscreen.tap(at.x, at.y);
      else await page.mouse.click(at.x, at.y, { delay: 50 });
      await frame.waitForFunction((u) => window.vramlens.state().ui.unit !== u, unit0, { timeout: 10_000 }).catch(() => {});
      const unit1 = await unit();
      check(unit1 !== unit0, `${name}: a ${name === 'phone' ? 'tap' : 'click'} on the embed's unit button presses it (${unit0} -> ${unit1})`);
      check(await page.evaluate(() => scrollY) === y0, `${name}: ... and the blog does not move (scrollY ${Math.round(y0)})`);
      // Over the embed, which has nothing to scroll, a wheel or a swipe scrolls the blog. The
      // swipe starts on the unit button: nothing is pressed.
      at = await unitButton();
      if (name === 'desktop') {
        await page.mouse.move(at.x, at.y + 150);
        await page.mouse.wheel(0, 300);
      } else {
        await swipe(page, at, up(at, 250));
      }
      await page.waitForTimeout(500);
      const y1 = await page.evaluate(() => scrollY);
      check(y1 > y0 + 100, `${name}: ${name === 'desktop' ? 'a wheel' : 'a swipe'} over the embed scrolls the blog (scrollY ${Math.round(y0)} -> ${Math.round(y1)})`);
      await frame.evaluate(() => new Promise((ok) => setTimeout(ok, 300)));
      check(await unit() === unit1, `${name}: nothing in the embed was pressed`);
      await ctx.close();
    });
  }
  blog.close();

  // ---- 3. the app keeps the wheels it uses ---------------------------------------------------------
  console.log('desktop wheel');
  await section('desktop wheel', async () => {
    const page = await open(server.url, { viewport: { width: 1280, height: 800 } });
    await click(page, 'mode.0');
    const y0 = (await item(page, 'mode.0')).y;
    const it = await item(page, 'section.advanced');
    await page.mouse.move(it.x + 20, 700);
    await takeSeen(page);
    await page.mouse.wheel(0, 200);
    await settle(page);
    const seen = (await takeSeen(page)).filter((e) => e.type === 'wheel');
    const y1 = (await item(page, 'mode.0')).y;
    check(y1 < y0 && seen.length > 0 && seen.every((e) => e.prevented), `a wheel over the inputs scrolls them (${y0} -> ${y1}) and is the app's`);
    await page.context().close();
  });
} catch (e) {
  failures.push(String(e && e.stack || e));
  console.error(e);
} finally {
  await browser.close();
  server.close();
}
finish('browser-scroll', failures, 'all checks passed');
