// Browser test: Back and Forward step through scenarios (scripts/test-browser-ui.sh). The real page
// in headless Chromium, driven with the mouse, the keyboard, the clipboard and taps; Back and
// Forward are the browser's (page.goBack / page.goForward), and what is checked is what the page
// shows (model, mode, GPU) and the address bar (page.url()).
//   1. a new mode, GPU or model, and an import (a pasted config.json), each add a history entry
//   2. other changes (micro-batch steps), and the steps of a quick run of changes (the parameter
//      count stepped four times right after switching to a parameter count), add none
//   3. Back goes through the entries in reverse, each showing its scenario as it was left;
//      Forward comes back; neither adds entries
// On a desktop and a phone viewport.
//
// Usage: node history.mjs --site build/web/site [--chromium /usr/bin/chromium]
import { checks, appState as state, click, clickInView, finish, item, launchChromium, openApp, parseArgs, paste, serveSite,
         settle } from './harness.mjs';
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
const open = (opts) => openApp(browser, server.url, opts, (what) => failures.push(what));
const gpt2 = await readFile(join(here, '../data/configs/gpt2.json'), 'utf8');

// Changes closer together than this share one history entry (shell/bridge.js historyQuietMs = 1000).
const QUIET_MS = 1300;
const entries = (page) => page.evaluate(() => history.length);
// What the page shows of a scenario, and the link in the address bar.
async function shown(page) {
  const s = await state(page);
  const sc = JSON.parse(s.scenario);
  return { mode: s.ui.mode, preset: s.ui.preset, gpu: s.ui.gpu, source: s.ui.source, batch: sc.train?.micro_batch ?? null,
           hidden: sc.model.hidden ?? null, params: sc.model.params ?? null, link: s.link,
           bar: new URL(page.url()).hash.slice(1) };
}
const describe = (v) => `${v.mode}, ${v.preset || (v.params ? `${v.params / 1e9}B params` : `hidden ${v.hidden}`)}, ${v.gpu || 'custom GPU'}` +
                        (v.batch ? `, micro-batch ${v.batch}` : '');
// Back or Forward, then what the page shows once the app has opened the link.
async function go(page, dir) {
  if (dir < 0) await page.goBack();
  else await page.goForward();
  await page.waitForFunction(() => window.vramlens.state().link === location.hash.slice(1), null, { timeout: 10_000 }).catch(() => {});
  await settle(page);
  return shown(page);
}
// Back through `states` (newest first, the one shown now excluded), then Forward to the newest.
async function walk(name, page, states, newest) {
  const n0 = await entries(page);
  for (const [i, want] of states.entries()) {
    const got = await go(page, -1);
    check(got.mode === want.mode && got.preset === want.preset && got.gpu === want.gpu && got.batch === want.batch &&
          got.hidden === want.hidden && got.params === want.params && got.bar === want.link && got.link === want.link,
          `${name}: Back ${i + 1}: ${describe(got)} (expected ${describe(want)}), the address bar holds its link`);
  }
  let last = null;
  for (let i = 0; i < states.length; i++) last = await go(page, +1);
  check(last.link === newest.link && last.bar === newest.link && describe(last) === describe(newest),
        `${name}: Forward ${states.length} times returns to the newest (${describe(last)})`);
  check(await entries(page) === n0, `${name}: Back and Forward add no entries (${await entries(page)})`);
}

try {
  console.log('desktop 1280x900');
  await section('desktop', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    const n0 = await entries(page);
    const seen = [await shown(page)];  // each entry as it was left, oldest first
    const wait = () => page.waitForTimeout(QUIET_MS);

    await wait();
    await click(page, 'mode.0');                       // mode: an entry
    for (let i = 0; i < 3; i++) await click(page, 'train.micro_batch.plus');  // micro-batch 1 -> 8: none
    seen.push(await shown(page));
    check(seen[1].mode === 'train' && seen[1].batch === 8 && await entries(page) === n0 + 1,
          `training, then micro-batch 1 -> 8: one entry (${await entries(page) - n0})`);

    await wait();
    await click(page, 'gpu');                          // GPU: an entry
    await click(page, 'gpu.a100-80gb');
    seen.push(await shown(page));
    check(seen[2].gpu === 'a100-80gb' && await entries(page) === n0 + 2, `A100 80GB: one more entry`);

    await wait();
    await click(page, 'model.search');                 // typing a filter changes nothing
    await page.keyboard.type('qwen2.5 7b', { delay: 30 });
    await settle(page);
    check(await entries(page) === n0 + 2, 'typing in the model search adds no entry');
    await click(page, 'preset.qwen2.5-7b');            // model: an entry
    seen.push(await shown(page));
    check(seen[3].preset === 'qwen2.5-7b' && await entries(page) === n0 + 3, 'Qwen2.5 7B: one more entry');

    await wait();
    await paste(page, gpt2);                           // an import: an entry
    await page.waitForFunction(() => JSON.parse(window.vramlens.state().scenario).model.hidden === 768, null, { timeout: 30_000 });
    await settle(page);
    seen.push(await shown(page));
    check(seen[4].hidden === 768 && await entries(page) === n0 + 4, 'a pasted config.json (GPT-2): one more entry');

    await wait();
    await click(page, 'model.source.2');               // a parameter count, then four steps in a burst: one entry
    // The burst is quick for a person (each step within the page's quiet time of the one before);
    // on a loaded machine a test's clicks can be seconds apart, so the quiet time is widened for
    // the burst and put back: what is checked is the rule, not the speed of the machine.
    const quiet = await page.evaluate(() => window.vramlens.historyQuietMs);
    await page.evaluate(() => { window.vramlens.historyQuietMs = 600_000; });
    for (let i = 0; i < 4; i++) await click(page, 'model.params.plus');
    await settle(page);
    await page.evaluate((ms) => { window.vramlens.historyQuietMs = ms; }, quiet);
    const newest = await shown(page);
    check(newest.params === 11e9 && await entries(page) === n0 + 5,
          `a parameter count stepped 7 -> 11 B right away: one more entry (${newest.params / 1e9} B, ${await entries(page) - n0} entries)`);

    await walk('desktop', page, seen.slice().reverse(), newest);
    await page.context().close();
  });

  console.log('phone 390x844 (touch)');
  await section('phone', async () => {
    const page = await open({ viewport: { width: 390, height: 844 }, mobile: true });
    const n0 = await entries(page);
    const seen = [await shown(page)];
    await click(page, 'tab.1', { touch: true });       // the Setup tab: not a scenario change
    await page.waitForTimeout(QUIET_MS);
    await click(page, 'preset.llama-3.1-70b', { touch: true });  // at the top of the tab
    seen.push(await shown(page));
    await page.waitForTimeout(QUIET_MS);
    await clickInView(page, 'mode.0', true);           // below the model and the GPU
    const newest = await shown(page);
    check(seen[1].preset === 'llama-3.1-70b' && newest.mode === 'train' && await entries(page) === n0 + 2,
          `phone: Llama 3.1 70B, then training: two entries (${await entries(page) - n0})`);
    await walk('phone', page, seen.slice().reverse(), newest);
    await page.context().close();
  });
} catch (e) {
  failures.push(String(e && e.stack || e));
  console.error(e);
} finally {
  await browser.close();
  server.close();
}
finish('browser-history', failures, 'all checks passed');
