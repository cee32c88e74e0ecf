// Browser test of vLLM speculative decoding in the inference panel (issue 18 item 4), the real page in headless
// Chromium, mouse and keyboard only (scripts/test-browser-ui.sh):
//   1. Inference mode, Llama-3.1-8B picked by the search, engine vLLM, the Advanced section opened by the mouse,
//      EAGLE-3 chosen in its combo and 3 tokens typed: the scenario holds infer.speculative, the breakdown gets the
//      drafter's components and the KV pool fewer blocks;
//   2. the page's numbers are `vramlens estimate`'s for the page's own scenario (the native CLI);
//   3. mtp on a model without MTP layers is listed disabled, so the method stays eagle3;
//   4. the share link opens the same speculative config.
//
// Usage: node speculative.mjs --site build/web/site [--cli build/native/cli/vramlens] [--chromium /usr/bin/chromium]
import { appState as state, choosePreset, click, cliEstimate as cliEstimateOf, item, scrollTo, settle, startPageTest, typeInto } from './harness.mjs';

const { check, section, cliPath, server, open, run } = await startPageTest();
const QUIET_MS = 1300;  // changes closer together share one history entry (shell/bridge.js historyQuietMs)

const speculative = async (page) => JSON.parse((await state(page)).scenario).infer?.speculative ?? {};
const component = (s, id) => s.components.find((c) => c.id === id)?.bytes;
const cliEstimate = (scenarioJson) => cliEstimateOf(cliPath, scenarioJson);

await run('browser-speculative', async () => {
  console.log('desktop 1280x900');
  await section('speculative decoding', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    const inputs = await item(page, 'section.model');
    const reach = async (key) => scrollTo(page, key, { x: inputs.x + 8, y: 450 }, 0, false);

    await click(page, 'mode.2');
    check((await state(page)).ui.mode === 'infer', 'Inference is the third mode');
    await choosePreset(page, 'llama 3.1 8b', 'llama-3.1-8b');
    await reach('infer.engine');
    await click(page, 'infer.engine');
    await click(page, 'infer.engine.vllm');
    const before = await state(page);
    check(before.ok && component(before, 'spec.draft_weights') === undefined, 'vLLM without speculation: no drafter');

    await reach('section.advanced');
    await click(page, 'section.advanced');
    await reach('infer.speculative.method');
    await click(page, 'infer.speculative.method');
    await click(page, 'infer.speculative.method.eagle3');
    await reach('infer.speculative.num_speculative_tokens');
    await typeInto(page, 'infer.speculative.num_speculative_tokens', '3');
    const after = await state(page);
    const sp = await speculative(page);
    check(sp.method === 'eagle3' && sp.num_speculative_tokens === 3, `the combo and the field set infer.speculative: ${JSON.stringify(sp)}`);
    check(after.ok && component(after, 'spec.draft_weights') > 0 && component(after, 'spec.draft_kv') > 0 &&
          component(after, 'spec.drafter_buffers') > 0, 'the breakdown has the drafter\'s weights, KV layers and buffers');
    check(after.kv_blocks < before.kv_blocks, `the pool holds fewer blocks (${before.kv_blocks} -> ${after.kv_blocks})`);

    const cli = cliEstimate(after.scenario);
    check(cli.components.length === after.components.length &&
          cli.components.every((c, i) => c.id === after.components[i].id && c.bytes === after.components[i].bytes),
          'every component is `vramlens estimate`\'s for the same scenario');
    check(cli.total_bytes === after.total_bytes, `the total is the CLI's (${after.total_bytes})`);

    // Llama-3.1-8B has no MTP layers: the core's rule lists mtp disabled, a click leaves eagle3.
    await reach('infer.speculative.method');
    await click(page, 'infer.speculative.method');
    await click(page, 'infer.speculative.method.mtp');
    await page.keyboard.press('Escape');
    await settle(page);
    check((await speculative(page)).method === 'eagle3', 'mtp, refused for this model, is not taken');

    await page.waitForTimeout(QUIET_MS);
    const link = (await state(page)).link;
    await page.context().close();
    const linked = await open({ viewport: { width: 1280, height: 900 } }, `${server.url}#${link}`);
    const back = await speculative(linked);
    check(back.method === 'eagle3' && back.num_speculative_tokens === 3, `the link opens the same config: ${JSON.stringify(back)}`);
    check((await state(linked)).total_bytes === after.total_bytes, 'and the same total');
    await linked.context().close();
  });

  // The vLLM release (infer.vllm_version): 0.6.4 counted the CUDA context inside gpu_memory_utilization's budget,
  // the default (0.21) leaves it beside the budget; typed with the real keyboard.
  await section('vLLM release', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    const inputs = await item(page, 'section.model');
    const reach = async (key) => scrollTo(page, key, { x: inputs.x + 8, y: 450 }, 0, false);
    await click(page, 'mode.2');
    await reach('infer.engine');
    await click(page, 'infer.engine');
    await click(page, 'infer.engine.vllm');
    const now = await state(page);
    check(now.ok && component(now, 'cuda_context') > 0, 'the default release leaves the CUDA context beside the budget');
    await reach('section.advanced');
    await click(page, 'section.advanced');
    await reach('infer.vllm_version');
    await typeInto(page, 'infer.vllm_version', '0.6.4');
    const old = await state(page);
    check(JSON.parse(old.scenario).infer?.vllm_version === '0.6.4', `the field sets infer.vllm_version: ${JSON.parse(old.scenario).infer?.vllm_version}`);
    check(old.ok && component(old, 'cuda_context') === undefined && component(old, 'engine.non_torch') > component(now, 'engine.non_torch'),
          'under 0.6.4 the context is in the budget\'s non-torch memory');
    const cli = cliEstimate(old.scenario);
    check(cli.total_bytes === old.total_bytes, `the total is the CLI's (${old.total_bytes})`);
    await page.context().close();
  });
});
