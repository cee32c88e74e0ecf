// Browser test of the web app's UI (scripts/test.sh step "browser-ui"), driving the real page in
// headless Chromium (WebGL2 through SwiftShader) with mouse, keyboard, the clipboard and a file drop:
//   1. pick a model preset by typing in the search field and clicking it
//   2. switch to training, change precision (combo) and micro-batch (+ button)
//   3. the total the page shows equals the core's number for that scenario (test hook)
//   4. paste a config.json (system clipboard + Ctrl+V) -> the model is imported
//   5. open the shared link in a new page -> the same scenario; a tampered link -> defaults + notice
//   6. switch language and theme; the Chinese font and the core's messages in Chinese are fetched only
//      then (an English visit never asks for them), the notes and an error of the core are then in
//      Chinese; when the font's fetch fails the page says so and retries on request
//   7. exports (JSON, Markdown, CSV) through the clipboard and as downloads carry the core's total
//   8. screenshots: docs/screenshot-desktop.png (1280x800), docs/screenshot-phone.png (390x844, touch)
//
// Usage: node ui.mjs --site build/web/site [--docs DIR (default: a new temporary folder)] [--chromium /usr/bin/chromium]
import { appState as state, click, dropFile, finish, launchChromium, messages, openApp, parseArgs, paste, scrollTo,
         serveSite, settle, waitForMessage } from './harness.mjs';
import { readFile, mkdir } from 'node:fs/promises';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

const args = parseArgs();
const here = dirname(fileURLToPath(import.meta.url));
const siteDir = resolve(args.site ?? 'build/web/site');
// Screenshots go to docs/ only when asked (scripts/gen-docs.sh passes --docs docs): a test run never writes tracked files.
const docsDir = resolve(args.docs ?? mkdtempSync(join(tmpdir(), 'vl-ui-shots-')));
const executablePath = args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium';
const configPath = join(here, '../data/configs/gpt2.json');

const failures = [];
const check = (ok, what) => { if (ok) console.log(`  ok: ${what}`); else { failures.push(what); console.error(`  FAIL: ${what}`); } };

// ---- static server on loopback, under a sub-path -------------------------------------------
const SUB = '/vramlens/';
const requested = new Set();  // site files the pages asked for
const server = await serveSite(siteDir, SUB, { onRequest: (rel) => requested.add(rel) });
const ZH_FONT = 'zh-font.ttf';  // the site names it zh-font.<hash>.ttf (cmake/assemble_site.cmake)
const isZhFont = (rel) => /^zh-font\.[0-9a-f]{10}\.ttf$/.test(rel);
const fetchedZhFont = () => [...requested].some(isZhFont);
const ZH_MESSAGES = 'zh-messages.txt';  // the core's messages in Chinese, zh-messages.<hash>.txt on the site
const isZhMessages = (rel) => /^zh-messages\.[0-9a-f]{10}\.txt$/.test(rel);
const mirrorList = (page, id) => page.evaluate((i) => [...document.querySelectorAll(`#${i} li`)].map((li) => li.textContent), id);
const zhFont = async (page, want) => {
  await page.waitForFunction((w) => window.vramlens.state().ui.zh_font === w, want, { timeout: 30_000 })
    .catch(() => {});
  return (await state(page)).ui;
};
const base = server.url;

const browser = await launchChromium(executablePath);

const open = (url, opts = {}) => openApp(browser, url, opts, (what) => failures.push(what));
const frames = (page) => page.evaluate(() => window.vramlens.frames);
const fmt = (bytes, unit) => `${(bytes / (unit === 'GB' ? 1e9 : 2 ** 30)).toFixed(2)} ${unit}`;

try {
  // ---- desktop ---------------------------------------------------------------------------
  console.log('desktop 1280x800');
  const page = await open(base);
  let s = await state(page);
  check(s.ok && s.total_bytes > 0, `opens on a valid scenario (${s.shown_total})`);

  // 1. preset through the UI: type in the search box, click the match.
  await click(page, 'model.search');
  await page.keyboard.type('qwen2.5 7b', { delay: 20 });
  await settle(page);
  s = await state(page);
  const match = Object.keys(s.items).find((k) => k.startsWith('preset.') && k.includes('qwen2.5-7b'));
  check(!!match, `typing filters the presets (${match})`);
  check(!Object.keys(s.items).includes('preset.llama-3.1-8b'), 'non-matching presets are hidden');
  if (match) await click(page, match);
  s = await state(page);
  check(match && s.ui.preset === match.slice('preset.'.length), `preset picked: ${s.ui.preset}`);

  // 2. training, precision fp32, micro-batch 1 -> 4.
  await click(page, 'mode.0');
  await click(page, 'train.precision');
  await click(page, 'train.precision.fp32');
  await click(page, 'train.micro_batch.plus');
  await click(page, 'train.micro_batch.plus');
  s = await state(page);
  const sc = JSON.parse(s.scenario);
  check(s.ui.mode === 'train', 'mode is training');
  check(sc.train && sc.train.precision === 'fp32', `precision is fp32 (${sc.train && sc.train.precision})`);
  check(sc.train && sc.train.micro_batch === 4, `micro-batch is 4 (${sc.train && sc.train.micro_batch})`);

  // 3. the shown total is the core's number for exactly this scenario.
  check(s.ok && s.total_bytes === s.core_total_bytes, `shown estimate = core estimate (${s.total_bytes} vs ${s.core_total_bytes})`);
  check(s.shown_total === fmt(s.core_total_bytes, s.shown_unit), `shown text ${s.shown_total} = ${fmt(s.core_total_bytes, s.shown_unit)}`);
  await mkdir(docsDir, { recursive: true });
  await page.screenshot({ path: join(docsDir, 'screenshot-desktop.png') });
  console.log(`  screenshot: ${join(docsDir, 'screenshot-desktop.png')}`);

  // 5. the link: a new page with it shows the same scenario.
  const link = s.link;
  check(/^v1\./.test(link) && (await page.evaluate(() => location.hash)) === `#${link}`, 'the URL fragment holds the scenario');
  const page2 = await open(`${base}#${link}`);
  const s2 = await state(page2);
  check(s2.scenario === s.scenario && s2.total_bytes === s.total_bytes, 'the shared link restores the same scenario');
  check(!s2.ui.notice, 'no notice for a good link');
  const bad = link.slice(0, 10) + (link[10] === 'A' ? 'B' : 'A') + link.slice(11);
  const page3 = await open(`${base}#${bad}`);
  const s3 = await state(page3);
  check(s3.ok && !!s3.ui.notice, `a tampered link loads the defaults with a notice`);
  await page3.close();

  // 4. paste a config.json: on the system clipboard, then Ctrl+V on the page.
  const cfg = await readFile(configPath, 'utf8');
  await paste(page2, cfg);
  const s4 = await state(page2);
  const m4 = JSON.parse(s4.scenario).model;
  check(s4.ui.preset === '' && s4.ui.source === 3 && m4 && m4.hidden === 768 && m4.layers === 12,
        `pasted gpt2 config.json imported (hidden ${m4 && m4.hidden}, layers ${m4 && m4.layers})`);
  // GPT-2 has 1024 learned positions: the 2048-token sequence of the scenario is now invalid. The
  // page names the field and shows no number.
  check(!s4.ok && s4.errors.some((e) => e.field === 'train.seq_len') && s4.shown_total === '—',
        `the 2048-token sequence is reported at its field (${s4.errors.map((e) => e.field).join(', ')})`);
  // The sequence field is below the GPU section on a 800 px desktop window: the inputs scroll to it first.
  await scrollTo(page2, 'train.seq_len.minus', { x: 16, y: 600 }, 0, false);  // the column's margin: no list or text box there
  await click(page2, 'train.seq_len.minus');
  const s5 = await state(page2);
  check(s5.ok && s5.total_bytes === s5.core_total_bytes && s5.shown_total === fmt(s5.core_total_bytes, s5.shown_unit),
        `seq 1024: GPT-2 estimate shown = core (${s5.shown_total})`);

  // 6. language and theme. Until now every page was English: none asked for the Chinese font.
  check(!fetchedZhFont() && ![...requested].some(isZhMessages),
        `English pages do not fetch ${ZH_FONT} or ${ZH_MESSAGES} (fetched: ${[...requested].sort().join(', ')})`);
  const theme0 = s4.ui.theme;
  await click(page2, 'toggle.lang');
  const ui6 = await zhFont(page2, 'ready');
  check(ui6.zh_font === 'ready' && fetchedZhFont(), `中文 fetches ${ZH_FONT} (${ui6.zh_font} ${ui6.zh_font_error})`);
  await click(page2, 'toggle.theme');
  const s6 = await state(page2);
  check(s6.ui.lang === 'zh' && s6.ui.theme !== theme0, `language ${s6.ui.lang}, theme ${theme0} -> ${s6.ui.theme}`);
  await page2.screenshot({ path: join(docsDir, 'screenshot-desktop-zh.png') });
  // The core's messages in Chinese (web/ui/zh_messages.txt, fetched with the font, never in English).
  check([...requested].some(isZhMessages), `中文 fetches ${ZH_MESSAGES} (fetched: ${[...requested].sort().join(', ')})`);
  await page2.waitForFunction(() => document.querySelector('#vl-notes li')?.textContent.startsWith('峰值时按机制：'),
                              null, { timeout: 30_000 }).catch(() => {});
  const zhNotes = await mirrorList(page2, 'vl-notes');
  check(zhNotes[0]?.startsWith('峰值时按机制：') && !zhNotes[0].includes('By mechanism'),
        `the notes are in Chinese: the peak by mechanism (${zhNotes[0]})`);
  // Back to GPT-2's 2048-token sequence: the core's error, in Chinese, at the field and in the mirror.
  await click(page2, 'train.seq_len.plus');
  const s6e = await state(page2);
  check(!s6e.ok && s6e.errors.some((e) => e.field === 'train.seq_len') && Object.keys(s6e.items).includes('error.train.seq_len'),
        `seq 2048 on GPT-2 is an error shown at its field (${s6e.errors.map((e) => e.field).join(', ')})`);
  const zhErrors = await mirrorList(page2, 'vl-errors');
  check(zhErrors.includes('train.seq_len: 使用学习的位置编码时不能超过 max_position_embeddings（1024）；现为 2048'),
        `the error is in Chinese, with its field and numbers (${zhErrors.join(' | ')})`);
  await page2.close();

  // The Chinese font cannot be fetched (offline, a host without the file): the page says so in
  // English, which its built-in font draws; Retry fetches it again once it can be reached.
  const pageF = await open(base);
  await pageF.context().route('**/zh-font.*.ttf', (route) => route.abort('internetdisconnected'));
  await click(pageF, 'toggle.lang');
  const ui7 = await zhFont(pageF, 'failed');
  check(ui7.lang === 'zh' && ui7.zh_font === 'failed' && ui7.zh_font_error !== '',
        `a failed font fetch is reported (${ui7.zh_font}: ${ui7.zh_font_error})`);
  const shown7 = Object.keys((await state(pageF)).items);
  check(shown7.includes('zh_font.retry') && shown7.includes('zh_font.english'), 'the message offers Retry and English');
  await pageF.context().unroute('**/zh-font.*.ttf');
  await click(pageF, 'zh_font.retry');
  const ui8 = await zhFont(pageF, 'ready');
  check(ui8.zh_font === 'ready' && !Object.keys((await state(pageF)).items).includes('zh_font.retry'),
        `Retry loads the font once it can be reached (${ui8.zh_font})`);
  await click(pageF, 'toggle.lang');
  check((await state(pageF)).ui.lang === 'en', 'back to English');
  await pageF.close();

  // Drop a config.json file on the page.
  const page4 = await open(base);
  const before4 = await messages(page4);
  await dropFile(page4, cfg);
  await waitForMessage(page4, before4);
  const d4 = await state(page4);
  const dm = JSON.parse(d4.scenario).model;
  check(d4.ui.source === 3 && dm && dm.hidden === 768, 'a dropped config.json file is imported');
  await page4.close();

  // Embed mode: results first, no inputs, content height reported for the iframe.
  const embed = await open(`${base}?embed#${link}`, { viewport: { width: 600, height: 500 } });
  await settle(embed);
  const e1 = await state(embed);
  const h = await embed.evaluate(() => window.vramlens.contentHeight);
  check(e1.ui.embed && e1.scenario === s.scenario && !e1.items['mode.0'] && !!e1.items.total,
        'embed mode: same scenario, results only');
  check(h > 100, `embed mode reports its content height (${Math.round(h)} px)`);
  await embed.screenshot({ path: join(docsDir, 'screenshot-embed.png') });
  await embed.close();

  // The page is idle after input: no frames drawn while nothing changes.
  const f0 = await frames(page);
  await page.waitForTimeout(500);
  check((await frames(page)) === f0, 'idle page draws no frames');
  await page.close();

  // Exports: each format to the clipboard (read back through the Clipboard API) and as a download
  // (playwright's download event); both carry the core's total for this scenario.
  const tall = await open(`${base}#${link}`, { viewport: { width: 1280, height: 2000 } });
  const t0 = await state(tall);
  const total = t0.core_total_bytes;
  const gib = (total / 2 ** 30).toFixed(2);
  const peak = `Peak (${t0.peak_phase_label})`;
  const expect = {
    json: (text) => { const j = JSON.parse(text); return j.ok && j.total_bytes === total && j.peak_phase === t0.peak_phase_label; },
    markdown: (text) => text.split('\n').some((l) => l.startsWith(`| **${peak}**`) && l.includes(`**${gib}**`)),
    csv: (text) => text.split('\n').some((l) => { const f = l.split(','); return f[0] === 'total.peak' && Number(f[5]) === Math.round(total); }),  // whole bytes in CSV
  };
  const files = { json: 'vramlens.json', markdown: 'vramlens.md', csv: 'vramlens.csv' };
  for (const fmtName of ['json', 'markdown', 'csv']) {
    await tall.evaluate(() => navigator.clipboard.writeText(''));
    await click(tall, `export.copy.${fmtName}`);
    // The copy may wait for the deferred wasm on a busy machine (the export code is not in the first view): read the
    // clipboard until this format's text is there, for up to 10 s, so a late write is not read as the next format's.
    let clip = '';
    for (let i = 0; i < 100 && !(clip.length > 0 && expect[fmtName](clip)); ++i) {
      if (i > 0) await tall.waitForTimeout(100);
      clip = await tall.evaluate(() => navigator.clipboard.readText());
    }
    check(clip.length > 0 && expect[fmtName](clip), `${fmtName} copied to the clipboard carries the core's total (${total} B)`);
    const [dl] = await Promise.all([tall.waitForEvent('download', { timeout: 10_000 }), click(tall, `export.download.${fmtName}`)]);
    const text = await readFile(await dl.path(), 'utf8');
    check(dl.suggestedFilename() === files[fmtName] && text === clip,
          `${fmtName} download ${dl.suggestedFilename()} has the same text as the clipboard (${text.length} chars)`);
  }
  await tall.close();

  // ---- phone -----------------------------------------------------------------------------
  console.log('phone 390x844 (touch, dpr 3)');
  const phone = await open(`${base}#${link}`, { viewport: { width: 390, height: 844 }, dpr: 3, mobile: true });
  const p1 = await state(phone);
  check(p1.ok && p1.scenario === s.scenario, 'phone opens the same link');
  check(!!p1.items['tab.0'] && !!p1.items.total, 'phone layout: verdict on top, tabs below');
  const fit = p1.items.fitbar;
  check(fit && fit[0] >= 0 && fit[0] + fit[2] <= 390, 'fit bar fits the 390 px width');
  await phone.screenshot({ path: join(docsDir, 'screenshot-phone.png') });
  console.log(`  screenshot: ${join(docsDir, 'screenshot-phone.png')}`);
  // Typing on a phone: tap the field, the page's text box takes the keyboard.
  await click(phone, 'tab.1', { touch: true });
  await click(phone, 'model.search', { touch: true });
  const focused = await phone.evaluate(() => document.activeElement && document.activeElement.id);
  check(focused === 'vl-text', `tapping a text field focuses the page's text box (${focused})`);
  if (focused === 'vl-text') {
    await phone.keyboard.type('mistral', { delay: 20 });
    await phone.keyboard.press('Enter');
    await settle(phone);
    const p2 = await state(phone);
    check(p2.ui.filter === 'mistral', `the typed text reached the app (${p2.ui.filter})`);
    const shown = Object.keys(p2.items).filter((k) => k.startsWith('preset.'));
    // Mistral AI's models: Mistral, Mixtral, Ministral, and Mamba-Codestral (family Mistral).
    check(shown.length > 0 && shown.every((k) => ['mistral', 'mixtral', 'ministral', 'codestral'].some((w) => k.includes(w))),
          `the phone's preset list is filtered (${shown.join(', ')})`);
  }
  await phone.screenshot({ path: join(docsDir, 'screenshot-phone-setup.png') });
  await phone.close();
} catch (e) {
  failures.push(String(e && e.stack || e));
  console.error(e);
} finally {
  await browser.close();
  server.close();
}
finish('browser-ui', failures, 'all checks passed');
