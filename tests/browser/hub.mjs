// Browser test: importing a model by repo id (issue 17), against the test Hub (tests/hub/fake_hub.mjs)
// with its generated repos (tests/hub/fixtures.mjs). The real page in headless Chromium, real mouse
// and keys (Playwright); the page is pointed at the test Hub by a script run before the app
// (window.vramlensTestHubEndpoint), never by its URL.
//   1. nothing is requested before the Import button is pressed (the test Hub's request log is empty
//      after loading, choosing the tab and typing), and the page says once what will be sent;
//   2. the dense, MoE, AWQ, GPTQ, FP8, LoRA, multimodal and GGUF repos import: the model's name, its
//      parameter count and weight format as the page shows them equal the fixtures' hand-summed values;
//   3. a gated repo without a token says it needs one; with the token typed it imports, and no request
//      to the CDN host carries the token; not found, rate-limited (429) and an unreachable Hub say so,
//      with the offline alternative;
//   4. the link after an import, opened with the Hub unreachable, gives the same model.
//
// Usage: node hub.mjs --site build/web/site [--chromium /usr/bin/chromium]
import { checks, appState as state, click, finish, launchChromium, openApp, parseArgs, press, serveSite, settle }
  from './harness.mjs';
import { startFakeHub } from '../hub/fake_hub.mjs';
import { buildRepos, EXPECTED, GATED_TOKEN, MISSING_REPO } from '../hub/fixtures.mjs';
import { resolve } from 'node:path';

const args = parseArgs();
const siteDir = resolve(args.site ?? 'build/web/site');
const executablePath = args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium';

const { failures, check } = checks();

const hub = await startFakeHub({ repos: buildRepos() });
const server = await serveSite(siteDir, '/vramlens/');
const browser = await launchChromium(executablePath);
const init = `window.vramlensTestHubEndpoint = ${JSON.stringify(hub.endpoint)};`;
const open = (url = server.url) => openApp(browser, url, { init, viewport: { width: 1280, height: 1000 } }, (what) => failures.push(what));

// Click a field, select all it holds, type `text`, press Enter (which lets go of the field).
async function typeInto(page, key, text) {
  await click(page, key);
  await page.waitForFunction(() => window.Module._vl_text_active() === 1, null, { timeout: 10_000 });
  await press(page, 'Control+a');
  await page.keyboard.type(text, { delay: 15 });
  await press(page, 'Enter');
  await settle(page);
}

// Type the repo, press Import, wait for the answer (state 2: done, 3: failed).
async function importRepo(page, ref) {
  await typeInto(page, 'model.hub', ref);
  await click(page, 'model.hub_import');
  await page.waitForFunction(() => [2, 3].includes(window.vramlens.state().ui.hub.state), null, { timeout: 30_000, polling: 100 });
  await settle(page);
  const s = await state(page);
  return { ...s.ui.hub, params: s.params_total, scenario: JSON.parse(s.scenario), link: s.link };
}

const weights = (sc) => sc.infer?.weights ?? 'bf16';

try {
  console.log('nothing is requested before the click');
  const page = await open();
  await click(page, 'model.source.3');
  const s0 = await state(page);
  check(s0.ui.hub.endpoint === hub.endpoint, `the test build's endpoint: ${s0.ui.hub.endpoint}`);
  check(!s0.ui.hub.asked, 'no request asked for yet');
  await typeInto(page, 'model.hub', 'test-org/dense-tiny');
  check(hub.log.length === 0, `no request before the click (${hub.log.length}: ${hub.log.map((e) => e.url).join(', ')})`);

  console.log('dense, MoE, AWQ, GPTQ, FP8, LoRA, multimodal and GGUF repos import');
  const cases = [
    ['test-org/dense-tiny', 'bf16'],
    ['test-org/moe-tiny', 'bf16'],
    ['test-org/awq-tiny', 'awq-4bit'],
    ['test-org/gptq-tiny', 'gptq-4bit'],
    ['test-org/fp8-tiny', 'fp8'],
    ['test-org/dense-tiny-lora', null],  // fine-tuning: the LoRA settings are checked below, not an inference format
    ['test-org/vlm-tiny', 'bf16'],
    [`${hub.endpoint}/test-org/gguf-tiny/blob/main/${EXPECTED['test-org/gguf-tiny'].file}`, null],
  ];
  let denseLink = '';
  for (const [ref, format] of cases) {
    const repo = ref.startsWith('http') ? 'test-org/gguf-tiny' : ref;
    const r = await importRepo(page, ref);
    const name = repo.split('/')[1];
    check(r.state === 2, `${repo}: imported (${r.message})`);
    check(r.message.startsWith(`Imported: ${name} (${repo}@`), `${repo}: the page names the model: ${r.message}`);
    check(r.params === EXPECTED[repo].params_total, `${repo}: ${r.params} parameters, ${EXPECTED[repo].params_total} expected`);
    if (format) check(weights(r.scenario) === format, `${repo}: weight format ${weights(r.scenario)}, ${format} expected`);
    check(r.scenario.model?.source?.hub === repo, `${repo}: the link names the repo (${JSON.stringify(r.scenario.model?.source)})`);
    if (repo === 'test-org/dense-tiny') {
      denseLink = r.link;
      check(r.facts.includes('Checkpoint parameters: 1,704 (BF16 1,664, F32 40)'), `dense: parameters per dtype shown: ${r.facts.join(' | ')}`);
    }
    if (repo === 'test-org/awq-tiny')
      check(r.facts.includes('quantized: 2,304 parameters in 7 weights; not quantized: 1,072 in 5 tensors'), `AWQ: split shown: ${r.facts.join(' | ')}`);
    if (repo === 'test-org/dense-tiny-lora') {
      check(r.scenario.mode === 'finetune' && r.scenario.finetune?.lora_rank === 4, `LoRA: fine-tuning at rank 4 (${JSON.stringify(r.scenario.finetune)})`);
      check(r.facts.some((f) => f.startsWith('LoRA adapter on test-org/dense-tiny: rank 4')), `LoRA: adapter shown: ${r.facts.join(' | ')}`);
    }
    if (repo === 'test-org/gguf-tiny')
      check(r.facts.some((f) => f.includes('Q4_K 1,376,256')), `GGUF: the tensors' types shown: ${r.facts.join(' | ')}`);
  }
  check((await state(page)).ui.hub.asked === true, 'a request was made: the notice of what is sent is no longer shown');

  console.log('gated: a token is needed; with it the import works and the token never reaches the CDN');
  const gated = await importRepo(page, 'test-org/gated-tiny');
  check(gated.state === 3 && gated.message.includes('is a gated model: it needs a Hugging Face access token'), `gated without a token: ${gated.message}`);
  check(gated.message.includes('paste or drop config.json into the page'), 'gated: the offline alternative is said');
  await typeInto(page, 'model.hub_token', GATED_TOKEN);
  const opened = await importRepo(page, 'test-org/gated-tiny');
  check(opened.state === 2 && opened.params === EXPECTED['test-org/gated-tiny'].params_total, `gated with the token: ${opened.message}`);
  const toCdn = hub.log.filter((e) => e.host === 'cdn' && (e.headers.authorization || JSON.stringify(e).includes(GATED_TOKEN)));
  check(toCdn.length === 0, `no CDN request carries the token (${toCdn.length})`);
  check(hub.log.some((e) => e.host === 'cdn'), 'the checkpoint headers came from the CDN host');
  check(!(await state(page)).link.includes(GATED_TOKEN) && !page.url().includes(GATED_TOKEN), 'the token is in neither the link nor the address bar');
  const ranges = hub.log.filter((e) => e.host === 'cdn' && e.method === 'GET');
  check(ranges.every((e) => /^bytes=0-\d+$/.test(e.headers.range ?? '')), 'every CDN read is one Range: bytes=0-N request');

  console.log('not found, rate-limited, unreachable');
  const missing = await importRepo(page, MISSING_REPO);
  check(missing.state === 3 && missing.message.includes(`${MISSING_REPO} was not found`), `not found: ${missing.message}`);
  const busy = await importRepo(page, 'test-org/busy');
  // The Hub's CORS headers do not expose Retry-After (fake_hub.mjs copies them), so the page cannot
  // read the wait: it says to wait a minute.
  check(busy.state === 3 && busy.message.includes('rate-limiting requests (429): wait a minute'), `429: ${busy.message}`);

  console.log('the link after an import opens with the Hub unreachable');
  await hub.close();
  const down = await importRepo(page, 'test-org/dense-tiny');
  check(down.state === 3 && down.message.startsWith('could not reach the Hugging Face Hub to read test-org/dense-tiny'), `unreachable: ${down.message}`);
  check(down.message.includes('paste or drop config.json into the page'), 'unreachable: the offline alternative is said');
  const before = hub.log.length;
  const again = await open(`${server.url}#${denseLink}`);
  await settle(again);
  const s2 = await state(again);
  const model = JSON.parse(s2.scenario).model;
  check(s2.params_total === EXPECTED['test-org/dense-tiny'].params_total, `the link's model: ${s2.params_total} parameters`);
  check(model.name === 'dense-tiny' && model.source?.hub === 'test-org/dense-tiny', `the link's model is named and sourced: ${JSON.stringify(model.source)}`);
  check(again.url().endsWith(denseLink), 'the address bar holds the link');
  check(hub.log.length === before, 'opening the link requested nothing from the Hub');
} catch (e) {
  failures.push(`exception: ${e.stack ?? e}`);
} finally {
  await browser.close();
  server.close();
  await hub.close().catch(() => {});
}
finish('hub import', failures);
