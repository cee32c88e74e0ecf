// Browser test of the everyday details of issue 15's "annoying" list (scripts/test-browser-ui.sh), each on a
// desktop (mouse and keys) and a phone viewport (taps, the page's text box), in the real page in headless Chromium:
//   1. the charts give their values: the pointer (a tap on a phone) over the breakdown bar names the weights with
//      their bytes, over the sweep chart's first and last points the batch and its total, which are the native
//      CLI's (`vramlens estimate` for that batch);
//   2. a scenario that does not fit lists single changes that fit: a click (a tap) on QLoRA makes it the
//      scenario, and the total is then the CLI's for it; the "link opened" line, shown while the link's scenario
//      is on screen, is gone after that change;
//   3. a pasted config.json with a syntax error says where (line and column, counted by hand below) and what to
//      do; a BERT config imports as an encoder with its hand-summed parameter count; a UMT5 config (t5, mt5 and bart import) is refused as an
//      encoder-decoder model, the model kept, and no "Imported" line is shown;
//   4. the exports (CSV copied) carry the changes that fit, as the page lists them;
//   5. the GPU picker and the verdict are in view without scrolling on a desktop; a phone keeps the verdict above
//      its tabs on every tab, also with the GPU picker swiped into view on the Setup tab;
//   6. a first visit follows the system: a Chinese browser with a light system theme gets 中文 (<html lang>) and
//      the light theme.
// (Number shorthands and the model search on both viewports: fields.mjs; dropdowns a finger tall and opaque:
// layout.mjs; the GPU count's wording, replicas x TP x PP: web/tests/ui_test.cpp on a desktop and a phone.)
//
// Usage: node everyday.mjs --site build/web/site [--cli build/native/cli/vramlens] [--chromium /usr/bin/chromium]
import { appState as state, clickInView, cliEstimate, click, item, press, scrollTo, settle, startPageTest } from './harness.mjs';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const { check, section, cliPath, server, open, run } = await startPageTest();

const VIEWS = [
  { name: 'desktop 1280x900', opts: { viewport: { width: 1280, height: 900 } }, touch: false },
  { name: 'phone 390x844', opts: { viewport: { width: 390, height: 844 }, dpr: 3, mobile: true }, touch: true },
];
const scenario = async (page) => JSON.parse((await state(page)).scenario);
const GiB = 2 ** 30;
// A "12.34 GiB" the page shows equals `bytes` to the digits it shows.
const shows = (text, bytes) => {
  const m = /^([\d.]+) GiB$/.exec(text.trim());
  if (!m) return false;
  const decimals = (m[1].split('.')[1] ?? '').length;
  return Math.abs(Number(m[1]) - bytes / GiB) <= 0.5 * 10 ** -decimals + 1e-9;
};
const link = (...flags) => execFileSync(cliPath, ['link', ...flags], { encoding: 'utf8' }).trim();

// The pointer to a point of the page: the mouse moves there, or a finger taps it.
async function pointAt(page, x, y, touch) {
  if (touch) await page.touchscreen.tap(x, y);
  else await page.mouse.move(x, y, { steps: 3 });
  await settle(page);
  return (await state(page)).ui.tooltip;
}

// A paste into the config.json box (Setup on a phone), then Import.
async function importConfig(page, text, touch) {
  if (touch) await click(page, 'tab.1', { touch });
  await clickInView(page, 'model.source.3', touch);
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await clickInView(page, 'model.config', touch);
  if (touch) {
    await page.waitForFunction(() => document.activeElement.id === 'vl-area', null, { timeout: 10_000 });
    await press(page, 'Control+a');
    await press(page, 'Control+v');
    await press(page, 'Escape');  // the phone's text box lets go of the field
  } else {
    await press(page, 'Control+a');
    await press(page, 'Control+v');
  }
  await clickInView(page, 'model.import', touch);
  return state(page);
}

await run('browser-everyday', async () => {
  const bert = await readFile(join(here, '../data/configs/bert-base-uncased.json'), 'utf8');
  for (const view of VIEWS) {
    console.log(view.name);
    const touch = view.touch;

    await section(`${view.name}: the charts give their values`, async () => {
      const page = await open(view.opts);
      const s = await state(page);
      const cli = cliEstimate(cliPath, s.scenario);
      // The bar's first segment is the weights: the GPU-resident weight components at the peak.
      const weights = cli.components.filter((c) => c.category === 'weights' && !c.host && c.phases.includes(cli.peak_phase))
        .reduce((a, c) => a + c.bytes, 0);
      const bar = await item(page, 'stack');
      const t1 = await pointAt(page, bar.x + 3, bar.cy, touch);
      const m1 = /^Weights: (.+) \(([\d.]+)%\)$/.exec(t1);
      check(m1 && shows(m1[1], weights), `the bar's first segment: "${t1}" (the CLI's weights ${(weights / GiB).toFixed(3)} GiB)`);
      const top = touch ? (await item(page, 'tab.0')).y + (await item(page, 'tab.0')).h : 0;
      const sweep = touch ? await scrollTo(page, 'sweep', { x: 195, y: 700 }, top, true) : await item(page, 'sweep');
      // The sweep's points lie 6 px inside its left and right edges, in its upper 150 px.
      for (const x of [sweep.x + 6, sweep.x + sweep.w - 6]) {
        const t = await pointAt(page, x, sweep.y + 75, touch);
        const m = /^batch = (\d+): (.+)$/.exec(t);
        const at = m && cliEstimate(cliPath, JSON.stringify({ ...JSON.parse(s.scenario), infer: { ...(JSON.parse(s.scenario).infer ?? {}), batch: Number(m[1]) } }));
        check(m && shows(m[2], at.total_bytes), `the sweep at x ${Math.round(x - sweep.x)}: "${t}" (the CLI's total ${at ? (at.total_bytes / GiB).toFixed(3) : '?'} GiB)`);
      }
      await page.context().close();
    });

    await section(`${view.name}: a change that fits is one click away, and the link's line goes with the change`, async () => {
      const page = await open(view.opts);
      // A link pasted where a config.json goes opens its scenario (a phone has no other paste target).
      let s = await importConfig(page, `${server.url}#${link('--model', 'llama-3.1-8b', '--mode', 'finetune', '--method', 'full', '--gpu', 'rtx-4090')}`, touch);
      check(!s.fits && 'lever.qlora' in s.items, `a full fine-tune of Llama-3.1-8B on an RTX 4090 does not fit and offers QLoRA (${s.fits})`);
      check(s.ui.status.startsWith('This is a vramlens link: opened it') && 'status' in s.items, `the link's line is shown: "${s.ui.status}"`);
      // The CSV export (the Share tab on a phone) lists the same change, with its peak.
      if (touch) await click(page, 'tab.2', { touch });
      await clickInView(page, 'export.copy.csv', touch);  // the results column's end on a desktop
      let csv = '';  // the page writes the clipboard as the app asks it, a moment after the click
      for (let i = 0; i < 50 && !csv.startsWith('id,'); i++) {
        csv = await page.evaluate(() => navigator.clipboard.readText());
        if (!csv.startsWith('id,')) await page.waitForTimeout(100);
      }
      const row = csv.split('\n').find((l) => l.startsWith('lever.qlora,QLoRA,'));
      const leverBytes = row ? Number(row.split(',')[5]) : NaN;  // id, label, category, phases, host, bytes (whole)
      check(leverBytes > 0, `the CSV export lists the change QLoRA with its peak (${row})`);
      if (touch) await click(page, 'lever.qlora', { touch });  // above the tabs
      else {  // the results column's start, clear of the desktop's top bar (a click at y 60-90 px lands on it)
        await scrollTo(page, 'lever.qlora', { x: (await item(page, 'lever.qlora')).cx, y: 450 }, 120, false);
        await click(page, 'lever.qlora', { touch });
      }
      s = await state(page);
      const sc = JSON.parse(s.scenario);
      const cli = cliEstimate(cliPath, s.scenario);
      check(sc.finetune?.method === 'qlora' && s.fits && s.total_bytes === cli.total_bytes && cli.fits,
            `QLoRA applied: fits, ${(s.total_bytes / GiB).toFixed(2)} GiB = the CLI's ${(cli.total_bytes / GiB).toFixed(2)} GiB`);
      check(Math.round(cli.total_bytes) === leverBytes, `... the peak the export listed for it (${leverBytes})`);
      check(s.ui.status === '' && !('status' in s.items), `after the change the link's line is gone ("${s.ui.status}")`);
      await page.context().close();
    });

    await section(`${view.name}: pasted configs say what they are`, async () => {
      const page = await open(view.opts);
      const before = (await scenario(page)).model;
      // Line 3 is `  "hidden_size": 4096,,`: the parser stops at the second comma, the 23rd character.
      let s = await importConfig(page, '{\n  "model_type": "llama",\n  "hidden_size": 4096,,\n  "num_hidden_layers": 32\n}', touch);
      check(/line 3, column 23/.test(s.ui.notice), `a syntax error is placed: "${s.ui.notice.slice(0, 160)}"`);
      check(JSON.stringify((await scenario(page)).model) === JSON.stringify(before), 'the model is kept');
      s = await importConfig(page, bert, touch);
      const m = (await scenario(page)).model;
      // bert-base-uncased: embeddings 30522x768 + 512x768 + 2x768 + LayerNorm 1536 = 23,837,184; 12 layers of
      // 4 x (768x768 + 768) + 2 x 768x3072 + 3072 + 768 + 2 x 1536 = 7,087,872; pooler 768x768 + 768 = 590,592.
      const want = 23_837_184 + 12 * 7_087_872 + 590_592;
      check(s.params_total === want && m.model_type === 'bert' && s.ui.status === 'This is a config.json: imported the model: bert',
            `BERT imports as an encoder: ${s.params_total} parameters (${want} by hand), "${s.ui.status.slice(0, 60)}"`);
      // t5, mt5 and bart import; UMT5 (another encoder-decoder) does not yet.
      const umt5 = '{"architectures": ["UMT5ForConditionalGeneration"], "model_type": "umt5", "d_model": 512, "num_layers": 6}';
      const kept = (await scenario(page)).model;
      s = await importConfig(page, umt5, touch);
      check(s.ui.notice.includes('"umt5" is an encoder-decoder model') && s.ui.status === '' &&
            JSON.stringify((await scenario(page)).model) === JSON.stringify(kept),
            `UMT5 is refused in words, the BERT model kept, no "Imported" line: "${s.ui.notice.slice(0, 120)}"`);
      await page.context().close();
    });

    await section(`${view.name}: the GPU and the verdict in view`, async () => {
      const page = await open(view.opts);
      const h = view.opts.viewport.height;
      const inView = async (key) => { const it = await item(page, key); return it.y >= 0 && it.y + it.h <= h; };
      if (!touch) {
        check(await inView('gpu') && await inView('total'), 'the GPU picker and the total are on screen without scrolling');
      } else {
        // A phone keeps the verdict above its tabs, on every tab; the GPU comes right after the model on the Setup tab.
        for (const tab of ['tab.0', 'tab.1', 'tab.2']) {
          await click(page, tab, { touch });
          check(await inView('total') && await inView('fit'), `${tab}: the total and the verdict are on screen`);
        }
        await click(page, 'tab.1', { touch });
        check(await inView('gpu') && await inView('total') && await inView('fit'), 'Setup: the GPU picker and the verdict on screen without scrolling');
      }
      await page.context().close();
    });

    await section(`${view.name}: a first visit follows the browser's language and the system's theme`, async () => {
      const page = await open({ ...view.opts, locale: 'zh-CN', colorScheme: 'light' });
      const s = await state(page);
      const lang = await page.evaluate(() => document.documentElement.lang);
      check(s.ui.lang === 'zh' && lang === 'zh-Hans' && s.ui.theme === 'light', `zh-CN and a light system: ${s.ui.lang}, <html lang="${lang}">, ${s.ui.theme}`);
      const en = await open({ ...view.opts, locale: 'en-GB', colorScheme: 'dark' });
      const t = await state(en);
      check(t.ui.lang === 'en' && t.ui.theme === 'dark', `en-GB and a dark system: ${t.ui.lang}, ${t.ui.theme}`);
      await page.context().close();
      await en.context().close();
    });
  }
});
