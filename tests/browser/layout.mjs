// Browser test: nothing in the inputs is cut off (scripts/test-browser-ui.sh). The real page in
// headless Chromium, real mouse and touch (Playwright), at 1280 and 1920 wide and on a phone:
//   every LoRA target checkbox (q_proj ... down_proj) lies inside the inputs column, and a click (a
//   tap) on it switches that target on and off in the scenario. The row used to run past the
//   column's edge, so down_proj could not be reached.
// And a dropdown's rows, and the model preset list's: on a phone each is a finger tall (44 CSS px), so a
// tap 44 px below the first row's middle picks the second item; on a desktop they stay a text line.
//
// Usage: node layout.mjs --site build/web/site [--chromium /usr/bin/chromium]
import { checks, appState as state, click, clickInView, finish, item, launchChromium, openApp, parseArgs, scrollTo, serveSite, settle }
  from './harness.mjs';
import { resolve } from 'node:path';

const args = parseArgs();
const siteDir = resolve(args.site ?? 'build/web/site');
const executablePath = args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium';

const { failures, check, section } = checks();

const server = await serveSite(siteDir, '/vramlens/');
const browser = await launchChromium(executablePath);
const open = (opts) => openApp(browser, server.url, opts, (what) => failures.push(what));

// PEFT's names of the linear layers LoRA can adapt (core/enum_names.cpp lora_target_names).
const TARGETS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];
// The targets the scenario adapts: the scenario JSON leaves out the default (q_proj, v_proj, as PEFT
// does for Llama) and "all-linear" for every target (the seven a Llama shows and a Mamba mixer's four).
async function targets(page) {
  const t = JSON.parse((await state(page)).scenario).finetune?.lora_targets;
  if (t === undefined) return ['q_proj', 'v_proj'];
  return t === 'all-linear' ? [...TARGETS, 'in_proj', 'x_proj', 'dt_proj', 'out_proj'] : t;
}

async function loraTargets(page, name, touch) {
  const column = await item(page, 'section.model');  // the header spans the inputs column
  const right = column.x + column.w;
  // On a phone the verdict and the tabs stay on top; the inputs scroll below them.
  const tabs = touch ? await item(page, 'tab') : null;
  const top = tabs ? tabs.y + tabs.h : 0;
  const at = { x: column.x + 8, y: (top + page.viewportSize().height) / 2 };  // beside the controls
  for (const t of TARGETS) {
    const key = `finetune.lora_targets.${t}`;
    const it = await scrollTo(page, key, at, top, touch);
    check(it.x >= column.x - 1 && it.x + it.w <= right + 0.5,
          `${name}: ${t} lies inside the inputs column (${Math.round(it.x)}..${Math.round(it.x + it.w)} within ${Math.round(column.x)}..${Math.round(right)})`);
    const before = (await targets(page)).includes(t);
    await click(page, key, { touch });
    const after = (await targets(page)).includes(t);
    check(after === !before, `${name}: a ${touch ? 'tap' : 'click'} on ${t} switches it ${after ? 'on' : 'off'}`);
    await click(page, key, { touch });
    check((await targets(page)).includes(t) === before, `${name}: a second one switches ${t} back`);
  }
}

// The engine dropdown lists core/enum_names.cpp's Engine table in its order; the page opens in inference
// with transformers. Row pitch: on a phone 44 CSS px (Apple's smallest hit target, web/ui/widgets.h
// kFingerRowPx); on a desktop a text line, the 16 px font (web/main.cpp kFontPixels) and the 5 px gap
// between items (web/ui/layout.cpp apply_style ItemSpacing.y) = 21 px.
const ENGINES = ['transformers', 'vllm', 'llama.cpp'];
async function dropdownRows(page, name, touch, rowPx) {
  const column = await item(page, 'section.model');
  const tabs = touch ? await item(page, 'tab') : null;
  const top = tabs ? tabs.y + tabs.h : 0;
  const at = { x: column.x + 8, y: (top + page.viewportSize().height) / 2 };
  await scrollTo(page, 'infer.engine', at, top, touch);
  for (const k of [1, 2, 0]) {
    await click(page, 'infer.engine', { touch });
    const first = await item(page, `infer.engine.${ENGINES[0]}`);
    const second = await item(page, `infer.engine.${ENGINES[1]}`);
    check(Math.abs(first.h - rowPx) < 0.5 && Math.abs(second.y - first.y - rowPx) < 0.5,
          `${name}: the engine list's rows are ${rowPx} px apart and as tall (${first.h}, ${second.y - first.y})`);
    const y = first.cy + k * rowPx;
    if (touch) await page.touchscreen.tap(first.cx, y);
    else {
      await page.mouse.move(first.cx, y);
      await page.mouse.down();
      await page.waitForTimeout(50);
      await page.mouse.up();
    }
    await settle(page);
    // The scenario JSON leaves out a default: no engine is transformers (core/scenario.h).
    const engine = JSON.parse((await state(page)).scenario).infer?.engine ?? 'transformers';
    check(engine === ENGINES[k], `${name}: a ${touch ? 'tap' : 'click'} ${k * rowPx} px below the first row's middle picks ${ENGINES[k]} (${engine})`);
  }
}

// The preset list opens scrolled to the default model, Llama-3.1-8B, which the two larger Llama 3.1
// presets follow (assets/presets/models.json order).
const PRESETS = ['llama-3.1-8b', 'llama-3.1-70b', 'llama-3.1-405b'];
async function presetRows(page, name, touch, rowPx) {
  const first = await item(page, `preset.${PRESETS[0]}`);
  const second = await item(page, `preset.${PRESETS[1]}`);
  check(Math.abs(first.h - rowPx) < 0.5 && Math.abs(second.y - first.y - rowPx) < 0.5,
        `${name}: the preset list's rows are ${rowPx} px apart and as tall (${first.h}, ${second.y - first.y})`);
  for (const k of [1, 0]) {
    const row = await item(page, `preset.${PRESETS[0]}`);  // where it is now: picking a model can move the page
    const y = row.cy + k * rowPx;
    if (touch) await page.touchscreen.tap(row.cx, y);
    else await page.mouse.click(row.cx, y);
    await settle(page);
    const picked = (await state(page)).ui.preset;
    check(picked === PRESETS[k], `${name}: a ${touch ? 'tap' : 'click'} ${k * rowPx} px below the first row's middle picks ${PRESETS[k]} (${picked})`);
  }
}

try {
  console.log('dropdown rows');
  await section('dropdown rows: desktop 1280 (mouse)', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    await dropdownRows(page, 'desktop', false, 21);
    await page.context().close();
  });
  await section('dropdown rows: phone 390x844 (touch)', async () => {
    const page = await open({ viewport: { width: 390, height: 844 }, dpr: 3, mobile: true });
    await click(page, 'tab.1', { touch: true });  // Setup
    await dropdownRows(page, 'phone', true, 44);
    await page.context().close();
  });
  await section('preset rows: desktop 1280 (mouse)', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    await presetRows(page, 'desktop', false, 21);
    await page.context().close();
  });
  await section('preset rows: phone 390x844 (touch)', async () => {
    const page = await open({ viewport: { width: 390, height: 844 }, dpr: 3, mobile: true });
    await click(page, 'tab.1', { touch: true });  // Setup
    await presetRows(page, 'phone', true, 44);
    await page.context().close();
  });
  for (const width of [1280, 1920]) {
    console.log(`desktop ${width}x900`);
    await section(`desktop ${width}`, async () => {
      const page = await open({ viewport: { width, height: 900 } });
      await click(page, 'mode.1');            // Fine-tune
      await click(page, 'finetune.method.1'); // LoRA
      await loraTargets(page, `${width} wide`, false);
      await page.context().close();
    });
  }
  console.log('phone 390x844 (touch)');
  await section('phone', async () => {
    const page = await open({ viewport: { width: 390, height: 844 }, dpr: 3, mobile: true });
    await click(page, 'tab.1', { touch: true });  // Setup: model and GPU first, the mode below them
    await clickInView(page, 'mode.1', true);
    await clickInView(page, 'finetune.method.1', true);
    await loraTargets(page, 'phone', true);
    await page.context().close();
  });
} catch (e) {
  failures.push(String(e && e.stack || e));
  console.error(e);
} finally {
  await browser.close();
  server.close();
}
finish('browser-layout', failures, 'all checks passed');
