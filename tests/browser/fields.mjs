// Browser test: number fields and the model search take what people type (scripts/test-browser-ui.sh).
// The real page in headless Chromium, real mouse and keys (Playwright), on a desktop and on a phone (taps; a
// tapped field is edited in the page's text box, a real input, the inputs on the Setup tab):
//   1. a whole-number field takes the shorthands of model cards (core/number_input.h): "32K" is
//      32 x 1024 = 32768 tokens, "1e4" 10000, "4k" 4096; what is no whole number ("3.5", "12abc")
//      shows an error under the field and leaves the value as it was, never a prefix (3, 12); fixing
//      the text takes the error away;
//   2. the model search finds "llama3 8b" (Llama-3-8B and Llama-3.1-8B, not the 70B) and a full
//      Hugging Face id with its organisation and variant ("Qwen/Qwen2.5-32B-Instruct": Qwen2.5-32B only).
//
// Usage: node fields.mjs --site build/web/site [--chromium /usr/bin/chromium]
import { checks, appState as state, click, finish, item, launchChromium, openApp, parseArgs, press, scrollTo, serveSite, settle,
         typeInto } from './harness.mjs';
import { resolve } from 'node:path';

const args = parseArgs();
const siteDir = resolve(args.site ?? 'build/web/site');
const executablePath = args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium';

const { failures, check, section } = checks();

const server = await serveSite(siteDir, '/vramlens/');
const browser = await launchChromium(executablePath);
const open = (opts) => openApp(browser, server.url, opts, (what) => failures.push(what));

// The inference options as the app holds them (the scenario JSON leaves out defaults: batch 1, context 4096).
async function infer(page) {
  const i = JSON.parse((await state(page)).scenario).infer ?? {};
  return { batch: i.batch ?? 1, context: i.context ?? 4096 };
}
const hasError = async (page, field) => `error.${field}` in (await state(page)).items;
const presets = async (page) => Object.keys((await state(page)).items).filter((k) => k.startsWith('preset.')).sort();

const VIEWS = [
  { name: 'desktop 1280x900', opts: { viewport: { width: 1280, height: 900 } }, touch: false },
  { name: 'phone 390x844', opts: { viewport: { width: 390, height: 844 }, dpr: 3, mobile: true }, touch: true },
];
// On a phone: the Setup tab, and the field swiped into view below the tabs.
async function setup(page, view, key) {
  if (!view.touch) return;
  if ((await state(page)).ui.phone_tab !== 1) await click(page, 'tab.1', { touch: true });
  const tabs = await item(page, 'tab.1');
  await scrollTo(page, key, { x: 195, y: 640 }, tabs.y + tabs.h, true);
}
// Types `text` into a field as the viewport's user does: click, select all, type, Enter; on a phone a tap opens
// the page's text box, which takes the keys.
async function typeField(page, view, key, text) {
  if (!view.touch) return typeInto(page, key, text);
  await setup(page, view, key);
  await click(page, key, { touch: true });
  await page.waitForFunction(() => document.activeElement.id === 'vl-text', null, { timeout: 10_000 });
  await press(page, 'Control+a');
  await page.keyboard.type(text, { delay: 30 });
  await press(page, 'Enter');
  await settle(page);
}

try {
  for (const view of VIEWS) {
    console.log(view.name);
    await section(`${view.name}: number fields`, async () => {
      const page = await open(view.opts);
      for (const [text, want] of [['32K', 32768], ['1e4', 10000], ['4k', 4096], ['128k', 131072]]) {
        await typeField(page, view, 'infer.context', text);
        const got = (await infer(page)).context;
        check(got === want && !(await hasError(page, 'infer.context')), `context "${text}" is ${want} tokens (${got})`);
      }
      await typeField(page, view, 'infer.batch', '3.5');
      check((await infer(page)).batch === 1, `batch "3.5" is refused, the batch stays 1 (${(await infer(page)).batch})`);
      check(await hasError(page, 'infer.batch'), 'batch "3.5": an error shows under the field');
      await typeField(page, view, 'infer.batch', '4');
      check((await infer(page)).batch === 4 && !(await hasError(page, 'infer.batch')), 'batch "4" is taken and the error goes away');
      await typeField(page, view, 'infer.context', '12abc');
      check((await infer(page)).context === 131072 && await hasError(page, 'infer.context'),
            `context "12abc" is refused with an error, the context stays 131072 (${(await infer(page)).context})`);
      await page.context().close();
    });

    await section(`${view.name}: model search`, async () => {
      const page = await open(view.opts);
      await typeField(page, view, 'model.search', 'llama3 8b');
      let found = await presets(page);
      check(found.includes('preset.llama-3-8b') && found.includes('preset.llama-3.1-8b') && !found.includes('preset.llama-3.1-70b'),
            `"llama3 8b" finds Llama-3-8B and Llama-3.1-8B, not the 70B (${found.join(', ')})`);
      await typeField(page, view, 'model.search', 'Qwen/Qwen2.5-32B-Instruct');
      found = await presets(page);
      check(found.length === 1 && found[0] === 'preset.qwen2.5-32b', `"Qwen/Qwen2.5-32B-Instruct" finds Qwen2.5-32B only (${found.join(', ')})`);
      await click(page, 'preset.qwen2.5-32b', { touch: view.touch });
      check((await state(page)).ui.preset === 'qwen2.5-32b', `a ${view.touch ? 'tap' : 'click'} picks it`);
      await page.context().close();
    });
  }
} catch (e) {
  failures.push(String(e && e.stack || e));
  console.error(e);
} finally {
  await browser.close();
  server.close();
}
finish('browser-fields', failures, 'all checks passed');
