// Browser test: the page works from the keyboard and with a screen reader (scripts/test-browser-ui.sh).
// The real page in headless Chromium, real keys and mouse (Playwright), on a desktop and a phone viewport:
//   1. Tab from the page's start reaches the "Results as text" button (shown while it has focus);
//      Enter shows the results as text, which the mouse selects and Ctrl+C copies; Escape closes it.
//   2. Shift+Tab leaves the page for the browser's toolbar, and the app's focus ring goes with the
//      keyboard; Tab from the toolbar lands on the page's first control, with a focus ring;
//      Tab from the page into the canvas lands on its first control, Shift+Tab from after it on its last,
//      every time; in the canvas, Tab and Shift+Tab move through every kind of control (buttons, section headers,
//      text fields), one at a time, in order, with a focus ring drawn around the focused one; Enter
//      presses a focused button; a value typed in a field reached by Tab changes the scenario.
//   3. the HTML mirror of the results (#vl-results) says what the app state says, after each change:
//      the total, the verdict (a polite live region), one table row per component, the total row, the
//      peak by mechanism and the framework profile line the canvas draws above the table.
//   4. axe-core (npm, tests/browser/package.json) finds no serious or critical violation.
//
// Usage: node a11y.mjs --site build/web/site [--chromium /usr/bin/chromium] [--axe path/to/axe.min.js]
import { checks, appState as state, click, clickInView, finish, item, launchChromium, openApp, parseArgs, press, serveSite, settle }
  from './harness.mjs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const args = parseArgs();
const siteDir = resolve(args.site ?? 'build/web/site');
const executablePath = args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium';

const { failures, check, section } = checks();

// axe-core's browser build, from tests/browser/node_modules (scripts/deps.sh runs npm ci there).
let axeSource = null;
try {
  axeSource = await readFile(args.axe ?? createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
} catch (e) {
  check(false, `axe-core is installed (run scripts/deps.sh, which runs npm ci in tests/browser): ${e.message.split('\n')[0]}`);
}

const server = await serveSite(siteDir, '/vramlens/');
const browser = await launchChromium(executablePath);
const open = (opts) => openApp(browser, server.url, opts, (what) => check(false, what));
const scenario = async (page) => JSON.parse((await state(page)).scenario);
const active = (page) => page.evaluate(() => document.activeElement && document.activeElement.id);
const text = (page, sel) => page.evaluate((s) => document.querySelector(s).textContent, sel);

// The HTML mirror against the app state: the same total, verdict, one row per component.
async function mirrorMatches(page, when, wantProfile = false) {
  const st = await state(page);
  const m = await page.evaluate(() => ({
    total: document.getElementById('vl-total').textContent,
    verdict: document.getElementById('vl-verdict').textContent,
    role: document.getElementById('vl-verdict').getAttribute('role'),
    live: document.getElementById('vl-verdict').getAttribute('aria-live'),
    rows: document.querySelectorAll('#vl-table tbody tr').length,
    foot: [...document.querySelectorAll('#vl-table tfoot td')].map((c) => c.textContent),
    notes: [...document.querySelectorAll('#vl-notes li')].map((li) => li.textContent),
  }));
  const components = st.components.filter((c) => Number.isFinite(c.bytes) && c.bytes >= 0).length;
  check(m.total === st.shown_total, `${when}: the mirror's total is the app's (${m.total} = ${st.shown_total})`);
  const verdict = st.fits ? 'Fits' : 'Does not fit';
  check(m.verdict.startsWith(`${verdict} ·`) && m.verdict.includes(st.shown_total),
        `${when}: the mirror's verdict says "${verdict}" and the total (${m.verdict})`);
  check(m.role === 'status' && m.live === 'polite', `${when}: the verdict is a polite live region`);
  check(m.rows === components, `${when}: one table row per component (${m.rows} = ${components})`);
  check(m.foot.includes(st.shown_total.split(' ')[0]), `${when}: the table's total row has the total (${m.foot.join(' | ')})`);
  // The lines the canvas draws above the table (results.cpp), first among the notes as the CLI prints them.
  if (st.ok) {
    const keys = Object.keys(st.items);  // the canvas draws the line with the components' table (not on the phone's Setup tab)
    const drawn = (key) => !keys.some((k) => k.startsWith('row.')) || keys.includes(key);
    check(st.mechanisms_text.startsWith('By mechanism at the peak: ') && m.notes[0] === st.mechanisms_text && drawn('mechanisms'),
          `${when}: the canvas and the mirror say the peak by mechanism (${m.notes[0]})`);
    check((wantProfile ? st.profile_text.startsWith('profile: ') : !st.profile_text) &&
          (!st.profile_text || (m.notes[1] === st.profile_text && drawn('profile_line'))),
          `${when}: ... and the framework profile line (${st.profile_text || 'none'})`);
  }
  return st;
}

// axe-core over the whole page: no serious or critical violation.
async function axeCheck(page, when) {
  if (!axeSource) return;
  await page.addScriptTag({ content: axeSource });
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help }));
  });
  const bad = found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  for (const v of found) console.log(`  axe (${when}): ${v.impact} ${v.id} x${v.nodes}: ${v.help}`);
  check(bad.length === 0, `${when}: axe-core finds no serious or critical violation (${bad.map((v) => v.id).join(', ') || 'none'})`);
}

// Presses Tab until the app's focus is on `key` (at most `max` presses); the keys focused on the way.
async function tabTo(page, key, max = 80, combo = 'Tab') {
  const seen = [];
  for (let i = 0; i < max; i++) {
    await press(page, combo);
    const f = (await state(page)).ui.focus;
    seen.push(f);
    if (f === key) return seen;
  }
  throw new Error(`Tab never reached '${key}' (went through ${seen.join(', ')})`);
}

// What the screen shows in a rectangle around a widget (PNG bytes).
async function shot(page, key, pad = 6) {
  const it = await item(page, key);
  return page.screenshot({ clip: { x: it.x - pad, y: it.y - pad, width: it.w + 2 * pad, height: it.h + 2 * pad } });
}

try {
  // ---- desktop ---------------------------------------------------------------------------------
  console.log('desktop 1280x900');
  await section('desktop: results as text', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    await mirrorMatches(page, 'at start');
    await axeCheck(page, 'desktop, at start');
    // From the page's start, Tab reaches the button first; it shows while it has focus.
    await press(page, 'Tab');
    check(await active(page) === 'vl-show-text', `Tab from the page's start focuses "Results as text" (${await active(page)})`);
    const box = await page.locator('#vl-show-text').boundingBox();
    check(box && box.width > 40 && box.height > 20, `the focused button is shown (${JSON.stringify(box)})`);
    await press(page, 'Enter');
    check(await page.locator('#vl-results').isVisible() && await active(page) === 'vl-hide-text',
          'Enter shows the results as text, focus in it');
    const st = await state(page);
    // Select the total with the mouse (a triple click selects its paragraph) and copy it.
    await page.locator('#vl-total').click({ clickCount: 3 });
    await page.evaluate(() => navigator.clipboard.writeText('(not copied)'));
    await press(page, 'Control+c');
    const copied = (await page.evaluate(() => navigator.clipboard.readText())).trim();
    check(copied === st.shown_total, `the total is selected and copied as text (${copied})`);
    await axeCheck(page, 'desktop, results as text shown');
    await press(page, 'Escape');
    check(!(await page.locator('#vl-results').isVisible()) || (await page.locator('#vl-results').boundingBox()).width <= 1,
          'Escape hides the results as text');
    check(await active(page) === 'canvas', `... and gives the keyboard back to the app (${await active(page)})`);
    // A framework profile: its line, as the canvas draws it, follows the peak by mechanism in the mirror.
    await click(page, 'profile');
    await click(page, 'profile.vllm');
    await mirrorMatches(page, 'with the vLLM profile', true);
    await page.context().close();
  });

  await section('desktop: Tab through the controls', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    await press(page, 'Tab');  // "Results as text"
    await press(page, 'Tab');  // the canvas
    check(await active(page) === 'canvas' && (await state(page)).ui.focus === 'toggle.lang',
          `the second Tab gives the app the keyboard, on its first control (${await active(page)}, ${(await state(page)).ui.focus})`);
    // Tab: the next controls in the order drawn (the top bar, the model section).
    const seen = await tabTo(page, 'model.search', 30);
    check(seen[0] === 'toggle.theme' && seen[1] === 'toggle.unit',
          `Tab goes through the top bar's buttons in order (toggle.lang, ${seen.slice(0, 2).join(', ')})`);
    check(seen.includes('section.model') && seen.indexOf('section.model') < seen.indexOf('model.search'),
          `... then the Model section's header and its controls (${seen.join(', ')})`);
    check(seen.every((k, i) => k && (i === 0 || k !== seen[i - 1])), 'each Tab moves the focus to another control');
    check((await state(page)).ui.focus_ring, 'the focused control shows it (focus ring, or a field being edited)');
    // Shift+Tab goes back, one control at a time.
    await press(page, 'Shift+Tab');
    check((await state(page)).ui.focus === seen[seen.length - 2], `Shift+Tab goes back to ${seen[seen.length - 2]} (${(await state(page)).ui.focus})`);
    // The focus ring is drawn: around the theme button while it has the focus, and not after it moved on.
    await tabTo(page, 'toggle.theme', 40, 'Shift+Tab');
    const withRing = await shot(page, 'toggle.theme');
    await press(page, 'Tab');
    check((await state(page)).ui.focus === 'toggle.unit', 'Tab moves on to the unit button');
    const without = await shot(page, 'toggle.theme');
    check(!withRing.equals(without), 'a focus ring is drawn around the focused button (the pixels around it change when it moves on)');
    // Enter presses the focused button: Training.
    await tabTo(page, 'mode.0');
    check((await state(page)).ui.mode === 'infer', 'the page opens in inference');
    await press(page, 'Enter');
    check((await state(page)).ui.mode === 'train', `Enter on the focused "Training" button selects training (${(await state(page)).ui.mode})`);
    await mirrorMatches(page, 'after Enter chose training');
    // A field reached by Tab takes what is typed.
    await tabTo(page, 'train.micro_batch');
    await press(page, 'Control+a');
    await page.keyboard.type('3', { delay: 40 });
    await press(page, 'Enter');
    check((await scenario(page)).train.micro_batch === 3, `a micro-batch typed after Tab reached the field (${(await scenario(page)).train.micro_batch})`);
    // As in a web form, Enter lets go of the text but keeps the focus on the field; Tab then goes on.
    check(await page.evaluate(() => window.Module._vl_text_active()) === 0 && (await state(page)).ui.focus === 'train.micro_batch',
          `Enter released the field's text and kept the focus on it (${(await state(page)).ui.focus})`);
    await mirrorMatches(page, 'after typing micro-batch 3');
    // Back to the field (Shift+Tab, Tab) to edit it again: a micro-batch that does not fit.
    await press(page, 'Shift+Tab');
    await press(page, 'Tab');
    check((await state(page)).ui.focus === 'train.micro_batch', `Shift+Tab, Tab come back to the field (${(await state(page)).ui.focus})`);
    await press(page, 'Control+a');
    await page.keyboard.type('512', { delay: 40 });
    await press(page, 'Enter');
    const st = await mirrorMatches(page, 'after typing micro-batch 512');
    check((await scenario(page)).train.micro_batch === 512 && !st.fits,
          `micro-batch 512 does not fit, and the mirror says so (${(await scenario(page)).train.micro_batch}, fits ${st.fits})`);
    await page.context().close();
  });

  await section('desktop: Tab leaves the app at its ends (no keyboard trap)', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    await press(page, 'Tab');  // "Results as text"
    await press(page, 'Tab');  // the canvas
    const seen = [];
    for (let i = 0; i < 300 && await active(page) === 'canvas'; i++) {
      await press(page, 'Tab');
      if (await active(page) === 'canvas') seen.push((await state(page)).ui.focus);
    }
    check(await active(page) !== 'canvas', `Tab after the last control leaves the app (after ${seen.length} controls; focus on '${await active(page)}')`);
    const named = seen.filter((k) => k);  // a list or a chart box is a stop without a key
    check(new Set(named).size === named.length, `... without going round to the first control again (${seen.slice(-3).join(', ')})`);
    check(['toggle.unit', 'infer.batch', 'gpu', 'share.copy_link'].every((k) => named.includes(k)),
          `... having gone through the top bar, the inputs and the share panel (${named.length} named controls)`);
    // Shift+Tab from after the app gives it the keyboard on its last control, each time; Tab there
    // leaves again, Shift+Tab goes back one control.
    const last = seen[seen.length - 1];
    for (let round = 1; round <= 3; round++) {
      await press(page, 'Shift+Tab');
      const f = (await state(page)).ui.focus;
      check(await active(page) === 'canvas' && f === last,
            `round ${round}: Shift+Tab from after the app lands on its last control, ${last} (${await active(page)}, ${f})`);
      if (round === 2) {
        await press(page, 'Shift+Tab');
        check((await state(page)).ui.focus === seen[seen.length - 2], `... and Shift+Tab goes back to ${seen[seen.length - 2]}`);
        await press(page, 'Tab');
      }
      await press(page, 'Tab');
      check(await active(page) !== 'canvas', `round ${round}: ... and Tab on it leaves the app again (${await active(page)})`);
    }
    await page.context().close();
  });

  await section('desktop: Tab from before the app lands on its first control, each time', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    await press(page, 'Tab');  // "Results as text"
    for (let round = 1; round <= 3; round++) {
      await press(page, 'Tab');
      const f = (await state(page)).ui.focus;
      check(await active(page) === 'canvas' && f === 'toggle.lang',
            `round ${round}: Tab from "Results as text" lands on the app's first control (${await active(page)}, ${f})`);
      // Into the app and back out by Shift+Tab, a different number of steps each round.
      for (let i = 0; i < round; i++) await press(page, 'Tab');
      for (let i = 0; i < round; i++) await press(page, 'Shift+Tab');
      check((await state(page)).ui.focus === 'toggle.lang', `round ${round}: Shift+Tab comes back to the first control`);
      await press(page, 'Shift+Tab');
      check(await active(page) === 'vl-show-text', `round ${round}: ... and Shift+Tab on it leaves for "Results as text" (${await active(page)})`);
    }
    // A click on the app (no Tab) is no entry by Tab.
    await click(page, 'toggle.unit');
    check(await active(page) === 'canvas' && (await state(page)).ui.focus !== 'toggle.lang',
          `a click gives the app the keyboard without moving the focus to the first control (focus '${(await state(page)).ui.focus}')`);
    await page.context().close();
  });

  // The browser's toolbar: in headless Chromium, Shift+Tab on the page's first control gives the focus
  // to the browser (document.hasFocus() turns false), and Tab then brings it back into the page, as
  // Tab from the address bar does.
  await section('desktop: Shift+Tab out of the page, Tab back in from the browser\'s toolbar', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    const hasFocus = () => page.evaluate(() => document.hasFocus());
    await press(page, 'Tab');  // "Results as text"
    await press(page, 'Tab');  // the canvas, on the app's first control
    check((await state(page)).ui.focus_ring, 'the app shows the focus ring on its first control');
    // Out backwards: the canvas lets Shift+Tab go, and its focus ring goes with the keyboard.
    await press(page, 'Shift+Tab');
    const after = await state(page);
    check(await active(page) === 'vl-show-text' && !after.ui.focus_ring,
          `Shift+Tab on the app's first control leaves the app, which then draws no focus ring (${await active(page)}, ring ${after.ui.focus_ring})`);
    await press(page, 'Shift+Tab');
    check(!(await hasFocus()) && await active(page) !== 'canvas', `Shift+Tab on the page's first control leaves the page for the browser (${await active(page)})`);
    check(!(await state(page)).ui.focus_ring, '... with no focus ring left in the app');
    // Back in from the toolbar: the page's first control, shown with its focus ring; the next Tab the app's.
    await press(page, 'Tab');
    const ring = await page.evaluate(() => {
      const b = document.activeElement, cs = getComputedStyle(b), r = b.getBoundingClientRect();
      return { id: b.id, outline: cs.outlineStyle, width: parseFloat(cs.outlineWidth), w: r.width, h: r.height };
    });
    check(await hasFocus() && ring.id === 'vl-show-text' && ring.outline === 'solid' && ring.width >= 2 && ring.w > 40 && ring.h > 20,
          `Tab from the toolbar lands on the page's first control, shown with a focus ring (${JSON.stringify(ring)})`);
    await press(page, 'Tab');
    const st = await state(page);
    check(await active(page) === 'canvas' && st.ui.focus === 'toggle.lang' && st.ui.focus_ring,
          `the next Tab: the app's first control, with its focus ring (${st.ui.focus}, ring ${st.ui.focus_ring})`);
    await page.context().close();
  });

  await section('desktop: language and theme', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    const lang = () => page.evaluate(() => document.documentElement.lang);
    const st0 = await state(page);
    check(st0.ui.lang === 'en' && await lang() === 'en', `an English browser gets English, <html lang="en"> (${st0.ui.lang}, ${await lang()})`);
    await click(page, 'toggle.lang');
    await click(page, 'toggle.theme');
    const st1 = await state(page);
    check(st1.ui.lang === 'zh' && await lang() === 'zh-Hans', `中文 sets <html lang="zh-Hans"> (${st1.ui.lang}, ${await lang()})`);
    // The next visit (same browser profile) starts in the language and theme chosen.
    await page.reload();
    await page.waitForFunction(() => window.vramlens && window.vramlens.ready, null, { timeout: 90_000 });
    const st2 = await state(page);
    check(st2.ui.lang === 'zh' && st2.ui.theme === st1.ui.theme && st1.ui.theme !== st0.ui.theme && await lang() === 'zh-Hans',
          `the next visit keeps 中文 and the ${st1.ui.theme} theme (${st2.ui.lang}, ${st2.ui.theme}, <html lang="${await lang()}">)`);
    await page.context().close();
  });

  // ---- phone -----------------------------------------------------------------------------------
  console.log('phone 390x844 (touch)');
  await section('phone', async () => {
    const page = await open({ viewport: { width: 390, height: 844 }, dpr: 3, mobile: true });
    await mirrorMatches(page, 'phone, at start');
    await axeCheck(page, 'phone');
    await click(page, 'tab.1', { touch: true });  // Setup
    await clickInView(page, 'mode.0', true);  // Training, below the model and the GPU
    check((await state(page)).ui.mode === 'train', 'a tap on Training selects training');
    await mirrorMatches(page, 'phone, after choosing training');
    await page.context().close();
  });
} catch (e) {
  failures.push(String(e && e.stack || e));
  console.error(e);
} finally {
  await browser.close();
  server.close();
}
finish('browser-a11y', failures, 'all checks passed');
