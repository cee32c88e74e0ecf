// Browser test: the page keeps the browser's keyboard and clipboard (scripts/test-browser-ui.sh).
// The real page in headless Chromium, real keys (Playwright keyboard), the system clipboard
// (permissions granted), on a desktop and a phone viewport:
//   1. every kind of text field (model search, model name, a whole number, a decimal number, the
//      config.json box) takes Ctrl+A, Ctrl+V, Ctrl+C and Ctrl+X; copy and cut are the browser's own
//      events (one is seen, the key's default was not prevented), and the clipboard then holds the
//      field's text. On a phone the field is edited in the page's text box, a real input.
//   2. browser shortcuts keep their default, outside a field and in one: zoom (Ctrl+= / Ctrl+- /
//      Ctrl+0, Ctrl+wheel), find (Ctrl+F), the address bar (Ctrl+L), reload (F5), Back (Alt+Left),
//      Ctrl+C outside a field; the keys a field uses (Ctrl+A, Backspace, arrows) stay the app's.
//   3. type-ahead in the open GPU list, as in a native <select>.
// Whether a default was prevented is read by a listener on window that only observes
// (harness.mjs observeDefaults); headless Chromium has no zoom or find bar to look at.
//
// Usage: node keyboard.mjs --site build/web/site [--chromium /usr/bin/chromium]
import { checks, appState as state, click, finish, item, launchChromium, observeDefaults, openApp, parseArgs, press,
         serveSite, settle, takeSeen } from './harness.mjs';
import { readFile } from 'node:fs/promises';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = parseArgs();
const here = dirname(fileURLToPath(import.meta.url));
const siteDir = resolve(args.site ?? 'build/web/site');
const executablePath = args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium';

const { failures, check, section } = checks();

const server = await serveSite(siteDir, '/vramlens/');
const browser = await launchChromium(executablePath);
const open = (opts) => openApp(browser, server.url, { init: observeDefaults, ...opts }, (what) => failures.push(what));

const clip = (page) => page.evaluate(() => navigator.clipboard.readText());
const setClip = (page, t) => page.evaluate((x) => navigator.clipboard.writeText(x), t);
const scenario = async (page) => JSON.parse((await state(page)).scenario);
// The keydown of `key` and the `type` event (copy, cut) among the observed events.
const keyEvent = (seen, key) => seen.find((e) => e.type === 'keydown' && e.key.toLowerCase() === key);
const gpt2 = await readFile(join(here, '../data/configs/gpt2.json'), 'utf8');

// Ctrl+A Ctrl+V, Ctrl+A Ctrl+C, Ctrl+X, Ctrl+V in the field with the keyboard. `value` reads what the
// app holds for the field (null: the test hook does not show it); `text` is pasted, then copied and
// cut back, then pasted again.
async function clipboardKeys(page, name, text, value, { cutEmpties = true } = {}) {
  await takeSeen(page);
  await setClip(page, text);
  await press(page, 'Control+a');
  await press(page, 'Control+v');
  if (value) check(await value(page) === text, `${name}: Ctrl+A, Ctrl+V puts the clipboard's text in (${JSON.stringify((await value(page)).slice(0, 40))})`);
  let seen = await takeSeen(page);
  check(seen.some((e) => e.type === 'paste') && !keyEvent(seen, 'v').prevented, `${name}: the paste is the browser's paste event`);

  await setClip(page, '(not copied)');
  await press(page, 'Control+a');
  await press(page, 'Control+c');
  seen = await takeSeen(page);
  check(keyEvent(seen, 'a').prevented, `${name}: Ctrl+A is the field's select-all (its default prevented)`);
  check(seen.some((e) => e.type === 'copy') && !keyEvent(seen, 'c').prevented,
        `${name}: Ctrl+C fires the browser's copy event (key default kept)`);
  check(await clip(page) === text, `${name}: Ctrl+C copied the field's text (${JSON.stringify((await clip(page)).slice(0, 40))})`);

  await setClip(page, '(not cut)');
  await press(page, 'Control+x');
  seen = await takeSeen(page);
  check(seen.some((e) => e.type === 'cut') && !keyEvent(seen, 'x').prevented, `${name}: Ctrl+X fires the browser's cut event`);
  check(await clip(page) === text, `${name}: Ctrl+X put the field's text on the clipboard`);
  if (value && cutEmpties) check(await value(page) === '', `${name}: Ctrl+X took the text out of the field`);
  await press(page, 'Control+v');  // put it back
  if (value) check(await value(page) === text, `${name}: Ctrl+V puts it back`);
}

// Keys pressed with the canvas focused: which had their default prevented.
async function defaults(page, keys) {
  const out = {};
  for (const k of keys) {
    await takeSeen(page);
    await press(page, k);
    const last = k.split('+').pop().toLowerCase();
    const ev = (await takeSeen(page)).find((e) => e.type === 'keydown' && (e.key.toLowerCase() === last ||
      (last === 'equal' && e.key === '=') || (last === 'minus' && e.key === '-')));
    out[k] = ev ? ev.prevented : 'not seen';
  }
  return out;
}
const BROWSER_KEYS = ['Control+Equal', 'Control+Minus', 'Control+0', 'Control+f', 'Control+l', 'F5', 'Alt+ArrowLeft'];

try {
  // ---- desktop ---------------------------------------------------------------------------------
  console.log('desktop 1280x900');
  await section('desktop fields', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    // One-line text: the model search.
    await click(page, 'model.search');
    await clipboardKeys(page, 'model search', 'qwen2.5 7b', async (p) => (await state(p)).ui.filter);
    // A whole number: training's micro-batch.
    await click(page, 'mode.0');
    await click(page, 'train.micro_batch');
    await clipboardKeys(page, 'micro-batch (whole number)', '16', async (p) => String((await scenario(p)).train.micro_batch),
                        { cutEmpties: false });  // an empty number field keeps its number
    await click(page, 'total');
    check((await scenario(page)).train.micro_batch === 16, 'micro-batch 16 after the field lets go');
    // A decimal number: the parameter count (params-only model, in billions).
    await click(page, 'model.source.2');
    await click(page, 'model.params');
    await clipboardKeys(page, 'parameters (decimal number)', '13.5', async (p) => String((await scenario(p)).model.params / 1e9),
                        { cutEmpties: false });
    await click(page, 'total');
    // Text: a custom model's name.
    await click(page, 'model.source.1');
    await click(page, 'model.name');
    await clipboardKeys(page, 'model name', 'My 13B model', async (p) => (await scenario(p)).model.name);
    await click(page, 'total');
    // Many lines: the config.json box; Import reads what was pasted.
    await click(page, 'model.source.3');
    await click(page, 'model.config');
    const before = (await scenario(page)).model.hidden;
    await clipboardKeys(page, 'config.json box', gpt2, null);
    await click(page, 'model.import');
    const m = (await scenario(page)).model;
    check(m.hidden === 768 && m.layers === 12 && before !== 768, `config.json box: the pasted config imports (hidden ${m.hidden}, layers ${m.layers})`);
    await page.context().close();
  });

  await section('desktop GPU type-ahead', async () => {
    // As in a native <select>: with the GPU list open, typed letters and digits go to the first GPU whose
    // name holds them (any case, spaces and punctuation ignored); Enter picks it; a pause starts over.
    const page = await open({ viewport: { width: 1280, height: 900 } });
    await click(page, 'gpu');
    await page.keyboard.type('4090', { delay: 60 });
    await press(page, 'Enter');
    const g = (await scenario(page)).gpu;  // a preset's id
    check(g === 'rtx-4090', `typing 4090 in the open GPU list and Enter picks the RTX 4090 (${JSON.stringify(g)})`);
    await click(page, 'gpu');
    await page.keyboard.type('h1', { delay: 60 });
    await page.waitForTimeout(1300);  // a pause: what comes next is a new search, not "h1a100"
    await page.keyboard.type('A100', { delay: 60 });
    await press(page, 'Enter');
    const a = (await scenario(page)).gpu;
    check(/^a100/.test(a), `after a pause the typing starts over: A100 is found (${JSON.stringify(a)})`);
    await page.context().close();
  });

  await section('desktop shortcuts', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    await click(page, 'total');  // the canvas has the keyboard, no field does
    check(await page.evaluate(() => document.activeElement.id) === 'canvas', 'the canvas has the keyboard');
    const out = await defaults(page, [...BROWSER_KEYS, 'Control+c']);
    check(Object.values(out).every((p) => p === false), `outside a field, browser shortcuts keep their default (${JSON.stringify(out)})`);
    await takeSeen(page);
    await press(page, 'Control+c');
    const copy = (await takeSeen(page)).find((e) => e.type === 'copy');
    check(copy && !copy.prevented, 'Ctrl+C outside a field: the browser copies as on any page (its copy event not taken)');

    // In a field: the browser's keys stay the browser's, the field's keys are the app's.
    await click(page, 'model.search');
    await page.keyboard.type('llama', { delay: 30 });
    await settle(page);
    const appKeys = await defaults(page, ['ArrowLeft', 'Backspace', 'Control+a']);
    check(Object.values(appKeys).every((p) => p === true), `in a field, its editing keys are the app's (${JSON.stringify(appKeys)})`);
    check((await state(page)).ui.filter === 'llaa', `ArrowLeft then Backspace edited the field: llama -> llaa (${(await state(page)).ui.filter})`);
    const inField = await defaults(page, BROWSER_KEYS);
    check(Object.values(inField).every((p) => p === false), `in a field, browser shortcuts keep their default (${JSON.stringify(inField)})`);

    // Ctrl+wheel over the inputs: the browser's zoom; the app does not scroll.
    const y0 = (await item(page, 'mode.0')).y;
    const it = await item(page, 'model.search');
    await page.mouse.move(it.cx, it.cy + 200);
    await takeSeen(page);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, 400);
    await page.keyboard.up('Control');
    await settle(page);
    const wheel = (await takeSeen(page)).filter((e) => e.type === 'wheel');
    check(wheel.length > 0 && wheel.every((e) => !e.prevented), 'Ctrl+wheel keeps its default (zoom)');
    check((await item(page, 'mode.0')).y === y0, 'Ctrl+wheel does not scroll the inputs');
    await page.context().close();
  });

  // ---- phone -----------------------------------------------------------------------------------
  console.log('phone 390x844 (touch)');
  await section('phone', async () => {
    const page = await open({ viewport: { width: 390, height: 844 }, dpr: 3, mobile: true });
    await click(page, 'tab.1', { touch: true });  // Setup
    // A tapped field is edited in the page's text box: the browser's own input, clipboard and all.
    for (const [key, text, value, before] of [
      ['model.search', 'mistral', async (p) => (await state(p)).ui.filter],
      ['model.num_hidden_layers', '40', async (p) => String((await scenario(p)).model.layers), 'model.source.1'],
    ]) {
      if (before) await click(page, before, { touch: true });
      await click(page, key, { touch: true });
      check(await page.evaluate(() => document.activeElement.id) === 'vl-text', `${key}: a tap opens the page's text box`);
      await setClip(page, text);
      await press(page, 'Control+a');
      await press(page, 'Control+v');
      await setClip(page, '(not copied)');
      await press(page, 'Control+a');
      await press(page, 'Control+c');
      check(await clip(page) === text, `${key}: Ctrl+V then Ctrl+C in the text box (${await clip(page)})`);
      await page.keyboard.press('Enter');
      await settle(page);
      check(await value(page) === text, `${key}: the pasted text reached the app (${await value(page)})`);
    }
    await click(page, 'total', { touch: true });
    const out = await defaults(page, [...BROWSER_KEYS, 'Control+c']);
    check(Object.values(out).every((p) => p === false), `phone, outside a field: browser shortcuts keep their default (${JSON.stringify(out)})`);
    await page.context().close();
  });
} catch (e) {
  failures.push(String(e && e.stack || e));
  console.error(e);
} finally {
  await browser.close();
  server.close();
}
finish('browser-keyboard', failures, 'all checks passed');
