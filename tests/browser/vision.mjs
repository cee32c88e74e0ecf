// Browser test of a vision-language model's images in the inference panel (issue 18 item 3), the real page in
// headless Chromium, mouse and keyboard only (scripts/test-browser-ui.sh):
//   1. Inference mode with a text model: no images field;
//   2. Qwen2.5-VL-7B picked by the search: the images field appears; 2 images of 1280 x 720 typed: the scenario
//      holds them, their tokens join the sequence (the KV cache grows) and the total grows;
//   3. the page's numbers are `vramlens estimate`'s for the page's own scenario (the native CLI);
//   4. the share link opens the same images;
//   5. an encoder-decoder (FLAN-T5-Small) in inference: the generated-tokens field (infer.target_len) appears, a typed
//      value reaches the scenario, and the page's total is the CLI's with transformers' generate().
//
// Usage: node vision.mjs --site build/web/site [--cli build/native/cli/vramlens] [--chromium /usr/bin/chromium]
import { appState as state, choosePreset, click, cliEstimate, item, scrollTo, settle, startPageTest, typeInto } from './harness.mjs';

const { check, section, cliPath, server, open, run } = await startPageTest();
const QUIET_MS = 1300;  // changes closer together share one history entry (shell/bridge.js historyQuietMs)

const infer = async (page) => JSON.parse((await state(page)).scenario).infer ?? {};
const component = (s, id) => s.components.find((c) => c.id === id)?.bytes;
const onPage = (page, key) => page.evaluate((k) => window.vramlens.item(k) !== null, key);

await run('browser-vision', async () => {
  console.log('desktop 1280x900');
  await section('images of a vision-language model', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    const inputs = await item(page, 'section.model');
    const reach = async (key) => scrollTo(page, key, { x: inputs.x + 8, y: 450 }, 0, false);

    await click(page, 'mode.2');
    check((await state(page)).ui.mode === 'infer', 'Inference is the third mode');
    await settle(page);
    check(!(await onPage(page, 'infer.images')), 'a text model (the default Llama-3.1-8B) has no images field');

    await choosePreset(page, 'qwen2.5 vl 7b', 'qwen2.5-vl-7b');
    const text = await state(page);
    check(text.ok && component(text, 'weights.vision') > 0, 'the tower\'s weights are loaded with the model');

    await reach('infer.images');
    await typeInto(page, 'infer.images', '2');
    await reach('infer.image_width');
    await typeInto(page, 'infer.image_width', '1280');
    await reach('infer.image_height');
    await typeInto(page, 'infer.image_height', '720');
    const withImages = await state(page);
    const i = await infer(page);
    check(i.images === 2 && i.image_width === 1280 && i.image_height === 720,
          `the fields set infer.images, image_width, image_height: ${JSON.stringify(i)}`);
    // Qwen2.5-VL's rule: 1280 x 720 resizes to 1288 x 728 (multiples of 28), 46 x 26 merged patches = 1,196 tokens each.
    check(withImages.ok && component(withImages, 'kv_cache') > component(text, 'kv_cache'), 'the images\' tokens join the KV cache');
    check(withImages.total_bytes > text.total_bytes, `the total grows (${text.total_bytes} -> ${withImages.total_bytes})`);

    const cli = cliEstimate(cliPath, withImages.scenario);
    check(cli.components.length === withImages.components.length &&
          cli.components.every((c, k) => c.id === withImages.components[k].id && c.bytes === withImages.components[k].bytes),
          'every component is `vramlens estimate`\'s for the same scenario');
    check(cli.total_bytes === withImages.total_bytes, `the total is the CLI's (${withImages.total_bytes})`);

    await page.waitForTimeout(QUIET_MS);
    const link = (await state(page)).link;
    await page.context().close();
    const linked = await open({ viewport: { width: 1280, height: 900 } }, `${server.url}#${link}`);
    const back = await infer(linked);
    check(back.images === 2 && back.image_width === 1280 && back.image_height === 720, `the link opens the same images: ${JSON.stringify(back)}`);
    check((await state(linked)).total_bytes === withImages.total_bytes, 'and the same total');
    await linked.context().close();
  });

  await section('an encoder-decoder\'s generated tokens', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    const inputs = await item(page, 'section.model');
    const reach = async (key) => scrollTo(page, key, { x: inputs.x + 8, y: 450 }, 0, false);
    await click(page, 'mode.2');
    await settle(page);
    check(!(await onPage(page, 'infer.target_len')), 'a one-stack model (the default Llama-3.1-8B) has no target field');
    await choosePreset(page, 'flan t5 small', 'flan-t5-small');
    await reach('infer.engine');
    await click(page, 'infer.engine');
    await click(page, 'infer.engine.transformers');
    await reach('infer.target_len');
    await typeInto(page, 'infer.target_len', '32');
    const s = await state(page);
    check(s.ok && (await infer(page)).target_len === 32 && component(s, 'kv_cache.cross') > 0,
          `infer.target_len is 32, the cross-attention cache is a row: ${JSON.stringify(await infer(page))}`);
    const cli = cliEstimate(cliPath, s.scenario);
    check(cli.total_bytes === s.total_bytes, `the total is the CLI's (${s.total_bytes})`);
    await page.context().close();
  });
});
