// Browser test of Run locally (issue 19) in the real page, headless Chromium, mouse, keyboard and
// touch only (scripts/test-browser-ui.sh):
//   1. choose Run locally, change the model (search + click), the weight type (combo) and the context
//      (typed), add a second GPU and make it an RTX 3060 12GB in its list
//   2. the plan the test hook gives is `vramlens plan`'s for the same flags (the native CLI), and the
//      HTML mirror (#vl-results) shows its verdict, a row per device and the launch line
//   3. Copy puts the launch line on the system clipboard
//   4. Back and Forward step through the Run locally scenarios; a shared link opens the same plan
//   5. on a phone (390x844, touch): Run locally, a second GPU, the plan and Copy by taps
//   6. Advanced placement: opened by the mouse, --n-cpu-moe typed on Qwen3-30B-A3B; the launch line and
//      the per-device table change as `vramlens plan --n-cpu-moe` says; Back and Forward; a link with a
//      GPU not in the presets opens with it
//   7. the vision projector: its .gguf (generated here) chosen in the real file picker the button opens;
//      the per-device table's Vision column, the image encoder and the launch line are `vramlens plan
//      --mmproj FILE`'s; the link opens the same plan
//
// Usage: node local.mjs --site build/web/site [--cli build/native/cli/vramlens] [--chromium /usr/bin/chromium]
import { checks, appState as state, choosePreset, click, finish, item, launchChromium, openApp, parseArgs, scrollTo, serveSite,
         settle, typeInto } from './harness.mjs';
import { ggufFile } from '../hub/fixtures.mjs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const args = parseArgs();
const siteDir = resolve(args.site ?? 'build/web/site');
const cliPath = resolve(args.cli ?? process.env.VRAMLENS_CLI ?? 'build/native/cli/vramlens');
const executablePath = args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium';
const { failures, check, section } = checks();

const server = await serveSite(siteDir, '/vramlens/');
const browser = await launchChromium(executablePath);
const open = (opts, url = server.url) => openApp(browser, url, opts, (what) => failures.push(what));
const QUIET_MS = 1300;  // changes closer together share one history entry (shell/bridge.js historyQuietMs)

const local = async (page) => (await state(page)).local;
// A shared link in a new page: on a busy machine the link's scenario (a preset from the model list fetched after the
// first view) and its plan may come a few frames after the app starts; wait until the page holds the link, then settle.
const openLink = async (link) => {
  const p = await open({ viewport: { width: 1280, height: 900 } }, `${server.url}#${link}`);
  await p.waitForFunction((l) => window.vramlens.state().link === l, link, { timeout: 10_000 }).catch(() => {});
  await settle(p);
  return p;
};
const scenario = async (page) => JSON.parse((await state(page)).scenario);
const cliPlan = (flags) => JSON.parse(execFileSync(cliPath, ['plan', ...flags, '--format', 'json'], { encoding: 'utf8' }));
// The HTML mirror as a screen reader gets it.
const mirror = (page) => page.evaluate(() => ({
  verdict: document.getElementById('vl-verdict').textContent,
  rows: [...document.querySelectorAll('#vl-table tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent)),
  notes: [...document.querySelectorAll('#vl-notes li')].map((li) => li.textContent),
}));
const clipboard = (page) => page.evaluate(() => navigator.clipboard.readText());

try {
  console.log('desktop 1280x900');
  await section('desktop', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    const inputs = await item(page, 'section.model');
    const inInputs = { x: inputs.x + 8, y: 450 };
    const reach = async (key, at = inInputs) => scrollTo(page, key, at, 0, false);

    await click(page, 'mode.3');
    check((await state(page)).ui.mode === 'local', 'Run locally is the fourth mode');
    await page.waitForTimeout(QUIET_MS);
    const first = (await state(page)).link;

    await choosePreset(page, 'qwen2.5 7b', 'qwen2.5-7b');
    await reach('local.weights');
    await click(page, 'local.weights');
    await click(page, 'local.weights.q8_0');
    await reach('local.context');
    await typeInto(page, 'local.context', '16k');
    await reach('local.gpus.add');
    await click(page, 'local.gpus.add');
    await reach('local.gpus.1');
    await click(page, 'local.gpus.1');
    await click(page, 'local.gpus.1.rtx-3060-12gb');
    const sc = await scenario(page);
    check(sc.mode === 'local' && JSON.stringify(sc.local?.gpus) === '["rtx-4090","rtx-3060-12gb"]' && sc.local?.weights === 'q8_0' &&
          sc.local?.context === 16384, `the scenario: ${JSON.stringify(sc.local)}`);

    const plan = await local(page);
    const cli = cliPlan(['--model', 'qwen2.5-7b', '--weights', 'q8_0', '--ctx', '16384', '--gpu', 'rtx-4090', '--gpu', 'rtx-3060-12gb',
                         '--ram', '64GB']);
    check(plan.ok && plan.fits === cli.fits && plan.largest_context === cli.max_context,
          `verdict and largest context are the CLI's (fits ${plan.fits}, ${plan.largest_context})`);
    check(plan.devices.length === cli.devices.length &&
          plan.devices.every((d, i) => d.name === cli.devices[i].name && d.weights === cli.devices[i].weights_bytes &&
                                       d.kv === cli.devices[i].kv_bytes && d.compute === cli.devices[i].compute_bytes),
          `each device's weights, KV and compute are the CLI's (${plan.devices.map((d) => d.name).join(', ')})`);
    check(plan.launch[0]?.text === cli.launch, `the launch line is the CLI's: ${plan.launch[0]?.text}`);

    const m = await mirror(page);
    check(m.verdict.startsWith('Fits'), `the HTML mirror's verdict: ${m.verdict}`);
    check(m.rows.length === 3 && m.rows[1][0] === cli.devices[1].name, `the HTML mirror has a row per device (${m.rows.map((r) => r[0]).join(', ')})`);
    check(m.notes.includes(`Launch (llama-server): ${cli.launch}`), 'the HTML mirror has the launch line');

    const results = await item(page, 'local.verdict');
    await scrollTo(page, 'local.copy.0', { x: results.x + 8, y: 450 }, 0, false);
    await page.evaluate(() => navigator.clipboard.writeText(''));
    await click(page, 'local.copy.0');
    check(await clipboard(page) === cli.launch, 'Copy puts the launch line on the clipboard');

    // Which model fits best on this machine: the button ranks the current presets; the rows are `vramlens plan --rank`'s.
    await scrollTo(page, 'local.rank', { x: results.x + 8, y: 450 }, 0, false);
    await click(page, 'local.rank');
    await page.waitForFunction(() => (window.vramlens.state().local?.rank ?? []).length > 0, null, { timeout: 60_000 }).catch(() => {});
    const ranked = (await local(page)).rank;
    const cliRank = cliPlan(['--rank', '--ctx', '16384', '--gpu', 'rtx-4090', '--gpu', 'rtx-3060-12gb', '--ram', '64GB']).rows.slice(0, 10);
    check(ranked.length === cliRank.length && ranked.every((r, i) => r.id === cliRank[i].id && r.weights === cliRank[i].weights),
          `the ranking is the CLI's: ${ranked.map((r) => `${r.id} ${r.weights}`).join(', ')}`);
    const notes = (await mirror(page)).notes.filter((n) => n.startsWith('Which model fits best on this machine'));
    check(notes.length === ranked.length && notes[0].includes(' 1. '), `the HTML mirror lists the ranking (${notes.length} rows)`);

    // History: one more change (Ollama), then Back shows the llama.cpp plan with two GPUs, Forward Ollama.
    await page.waitForTimeout(QUIET_MS);
    const before = await state(page);
    await reach('local.engine.1');
    await click(page, 'local.engine.1');
    const ollama = await local(page);
    check(ollama.launch.length === 2 && ollama.launch[0].text.startsWith('PARAMETER num_gpu'), `Ollama's settings: ${ollama.launch.map((l) => l.text).join(' | ')}`);
    await page.waitForTimeout(QUIET_MS);
    await page.goBack();
    await page.waitForFunction((l) => window.vramlens.state().link === l, before.link, { timeout: 10_000 }).catch(() => {});
    await settle(page);
    const back = await state(page);
    check(back.link === before.link && back.ui.mode === 'local' && back.local?.launch[0]?.text === cli.launch,
          'Back: the llama.cpp plan with two GPUs again');
    await page.goForward();
    await page.waitForFunction((l) => window.vramlens.state().link !== l, before.link, { timeout: 10_000 }).catch(() => {});
    await settle(page);
    check((await scenario(page)).local?.engine === 'ollama', 'Forward: Ollama again');
    check(first !== before.link, 'the first Run locally scenario is an earlier entry');

    // A shared link opens the same plan.
    const link = (await state(page)).link;
    const other = await openLink(link);
    const o = await local(other);
    check(JSON.stringify(o.launch) === JSON.stringify(ollama.launch) && (await state(other)).ui.mode === 'local', 'the link opens the same plan');
    await other.context().close();
    await page.context().close();
  });

  console.log('advanced placement 1280x900');
  await section('advanced placement', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    const inputs = await item(page, 'section.model');
    const reach = async (key) => scrollTo(page, key, { x: inputs.x + 8, y: 450 }, 0, false);
    await click(page, 'mode.3');
    await choosePreset(page, 'qwen3 30b', 'qwen3-30b-a3b');
    await page.waitForTimeout(QUIET_MS);
    const before = await state(page);
    const rowsBefore = (await mirror(page)).rows;
    check(before.local?.ok && !before.local.launch[0]?.text.includes('--n-cpu-moe'), `Qwen3-30B-A3B planned: ${before.local?.launch[0]?.text}`);

    await reach('section.placement');
    await click(page, 'section.placement');
    await reach('local.n_cpu_moe');
    await typeInto(page, 'local.n_cpu_moe', '20');
    const plan = await local(page);
    const cli = cliPlan(['--model', 'qwen3-30b-a3b', '--ctx', '4096', '--gpu', 'rtx-4090', '--ram', '64GB', '--n-cpu-moe', '20']);
    check((await scenario(page)).local?.n_cpu_moe === 20, 'the field sets local.n_cpu_moe');
    check(cli.launch.includes(' --n-cpu-moe 20 ') && plan.launch[0]?.text === cli.launch, `the launch line is the CLI's: ${plan.launch[0]?.text}`);
    check(plan.devices.length === cli.devices.length &&
          plan.devices.every((d, i) => d.weights === cli.devices[i].weights_bytes && d.total === cli.devices[i].total_bytes),
          'each device is the CLI\'s with --n-cpu-moe 20');
    const rowsAfter = (await mirror(page)).rows;
    const host = rowsAfter[rowsAfter.length - 1];
    check(host[1].includes('experts of layers 0-19') && host.join('|') !== rowsBefore[rowsBefore.length - 1].join('|') &&
          rowsAfter[0].join('|') !== rowsBefore[0].join('|'), `the per-device table changed: ${host.join(' | ')}`);

    await page.waitForTimeout(QUIET_MS);
    await page.goBack();
    await page.waitForFunction((l) => window.vramlens.state().link === l, before.link, { timeout: 10_000 }).catch(() => {});
    await settle(page);
    const back = await local(page);
    check((await scenario(page)).local?.n_cpu_moe === undefined && back.launch[0]?.text === before.local.launch[0].text,
          'Back: the automatic placement again');
    await page.goForward();
    await page.waitForFunction((l) => window.vramlens.state().link !== l, before.link, { timeout: 10_000 }).catch(() => {});
    await settle(page);
    check((await scenario(page)).local?.n_cpu_moe === 20 && (await local(page)).launch[0]?.text === cli.launch, 'Forward: --n-cpu-moe 20 again');
    await page.context().close();

    // A link with a GPU not in the presets (made by `vramlens link` from a scenario file) opens with it.
    const dir = mkdtempSync(join(tmpdir(), 'vramlens-local-'));
    const file = join(dir, 'custom.json');
    writeFileSync(file, JSON.stringify({ version: 1, model: 'llama-3.1-8b', mode: 'local',
      local: { gpus: [], custom_gpus: [{ name: 'My 16G card', memory_gib: 16, bandwidth_gbs: 500, fp16_tflops: 0 }] } }));
    const link = execFileSync(cliPath, ['link', file], { encoding: 'utf8' }).trim();
    rmSync(dir, { recursive: true });
    const other = await openLink(link);
    const o = await local(other);
    check(o.ok && o.devices[0]?.name === 'My 16G card' && o.devices[0].capacity < 16 * 2 ** 30 && o.devices[0].capacity > 15 * 2 ** 30,
          `the custom GPU's link opens with it: ${o.devices[0]?.name}, ${o.devices[0]?.capacity}`);
    const otherInputs = await item(other, 'section.model');
    await scrollTo(other, 'local.custom_gpus[0].memory_gib', { x: otherInputs.x + 8, y: 450 }, 0, false);
    check((await item(other, 'local.custom_gpus[0].memory_gib')) !== null, 'its fields are in the device list');
    await other.context().close();
  });

  console.log('vision projector 1280x900');
  await section('vision projector', async () => {
    // A Qwen-VL-style projector (web/tests/run_local_test.cpp's): one F16 [64, 64] tensor (8192 B), encoder n_embd 64,
    // n_ff 256, 4 heads, patch 16, merge 2: the load-time image is 1472 px, 8464 patches; its compute buffer without
    // flash attention 1163563008 B on the first GPU and 26136832 B of image inputs in RAM.
    const f = ggufFile({
      metadata: [
        ['general.architecture', 'string', 'clip'], ['clip.vision.projector_type', 'string', 'qwen3vl_merger'],
        ['clip.vision.embedding_length', 'u32', 64], ['clip.vision.feed_forward_length', 'u32', 256],
        ['clip.vision.attention.head_count', 'u32', 4], ['clip.vision.block_count', 'u32', 1],
        ['clip.vision.image_size', 'u32', 768], ['clip.vision.patch_size', 'u32', 16], ['clip.vision.spatial_merge_size', 'u32', 2],
      ],
      tensors: [{ name: 'v.blk.0.attn_q.weight', dims: [64, 64], type: 'F16' }],
    });
    const bytes = Buffer.concat([f.head, Buffer.alloc(f.size - f.head.length)]);
    const dir = mkdtempSync(join(tmpdir(), 'vramlens-mmproj-'));
    const file = join(dir, 'mmproj-qwen.gguf');
    writeFileSync(file, bytes);
    const page = await open({ viewport: { width: 1280, height: 900 } });
    const inputs = await item(page, 'section.model');
    const reach = async (key) => scrollTo(page, key, { x: inputs.x + 8, y: 450 }, 0, false);
    await click(page, 'mode.3');
    await reach('section.placement');
    await click(page, 'section.placement');
    await reach('local.mmproj_pick');
    const chooser = page.waitForEvent('filechooser', { timeout: 10_000 });
    await click(page, 'local.mmproj_pick');
    await (await chooser).setFiles({ name: 'mmproj-qwen.gguf', mimeType: 'application/octet-stream', buffer: bytes });
    await page.waitForFunction(() => JSON.parse(window.vramlens.state().scenario).local?.mmproj_bytes === 8192, null, { timeout: 10_000 })
      .catch(() => {});
    await settle(page);
    const sc = (await scenario(page)).local ?? {};
    check(sc.mmproj_bytes === 8192 && sc.mmproj_encoder?.projector === 'qwen3vl_merger' && sc.mmproj_file === 'mmproj-qwen.gguf',
          `the picked file's header sets the projector: ${JSON.stringify({ b: sc.mmproj_bytes, e: sc.mmproj_encoder, f: sc.mmproj_file })}`);
    const plan = await local(page);
    const cli = cliPlan(['--model', 'llama-3.1-8b', '--ctx', '4096', '--gpu', 'rtx-4090', '--ram', '64GB', '--mmproj', file]);
    check(plan.ok && plan.devices[0]?.vision === 8192 + 1163563008 && plan.devices[1]?.vision === 26136832,
          `the projector and its encoder's buffers by hand: ${plan.devices.map((d) => d.vision).join(', ')}`);
    check(plan.devices.length === cli.devices.length &&
          plan.devices.every((d, i) => d.vision === cli.devices[i].mmproj_bytes + cli.devices[i].mmproj_compute_bytes &&
                                       d.total === cli.devices[i].total_bytes), 'each device is the CLI\'s with --mmproj');
    check(plan.launch[0]?.text === cli.launch.replace(file, 'mmproj-qwen.gguf'), `the launch line is the CLI's: ${plan.launch[0]?.text}`);
    const encoder = execFileSync(cliPath, ['plan', '--model', 'llama-3.1-8b', '--ctx', '4096', '--gpu', 'rtx-4090', '--ram', '64GB',
      '--mmproj', file], { encoding: 'utf8' }).split('\n').find((l) => l.startsWith('image encoder ('));
    const m = await mirror(page);
    check(encoder && m.notes.includes(encoder), `the HTML mirror has the CLI's image encoder line: ${encoder}`);
    const head = await page.evaluate(() => [...document.querySelectorAll('#vl-table thead th')].map((th) => th.textContent));
    check(head.includes('Vision') && m.rows[0].length === head.length, `the per-device table has a Vision column: ${head.join(', ')}`);
    rmSync(dir, { recursive: true });
    const link = (await state(page)).link;
    await page.context().close();
    const other = await openLink(link);
    const o = await local(other);
    check(o.ok && o.devices[0]?.vision === plan.devices[0].vision && o.launch[0]?.text === plan.launch[0].text,
          'the link opens the same plan (the encoder travels, not the file)');
    await other.context().close();
  });

  console.log('phone 390x844 (touch)');
  await section('phone', async () => {
    const page = await open({ viewport: { width: 390, height: 844 }, mobile: true });
    await click(page, 'tab.1', { touch: true });          // Setup
    await click(page, 'section.model', { touch: true });  // fold the model list: the device list comes up
    await click(page, 'mode.3', { touch: true });
    const tabs = await item(page, 'tab');
    const at = { x: 30, y: (tabs.y + tabs.h + 844) / 2 };
    await scrollTo(page, 'local.gpus.add', at, tabs.y + tabs.h, true);
    await click(page, 'local.gpus.add', { touch: true });
    const sc = await scenario(page);
    check(JSON.stringify(sc.local?.gpus) === '["rtx-4090","rtx-4090"]', `phone: a second RTX 4090 (${JSON.stringify(sc.local?.gpus)})`);
    const cli = cliPlan(['--model', 'llama-3.1-8b', '--weights', 'q4_k_m', '--ctx', '4096', '--gpu', 'rtx-4090', '--gpu', 'rtx-4090', '--ram', '64GB']);
    const plan = await local(page);
    check(plan.launch[0]?.text === cli.launch, `phone: the launch line is the CLI's: ${plan.launch[0]?.text}`);
    await click(page, 'tab.0', { touch: true });          // Results
    await scrollTo(page, 'local.copy.0', at, tabs.y + tabs.h, true);
    await page.evaluate(() => navigator.clipboard.writeText(''));
    await click(page, 'local.copy.0', { touch: true });
    check(await clipboard(page) === cli.launch, 'phone: a tap on Copy puts the launch line on the clipboard');
    const m = await mirror(page);
    check(m.rows.length === 3 && m.verdict.startsWith('Fits'), `phone: the HTML mirror: ${m.verdict}`);
    await page.context().close();
  });
} finally {
  await browser.close();
  server.close();
}
finish('local', failures);
