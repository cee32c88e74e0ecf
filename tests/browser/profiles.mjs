// Browser test of the framework profile dropdown (issue 14), with real mouse input in headless Chromium:
//   1. fine-tuning: open the "Framework profile" dropdown, pick the QLoRA script's profile -> its fields are set,
//      the profile line and the peak by mechanism are shown, the shown total is the core's number
//   2. change a field the profile set (LoRA rank "-") -> the line says "custom (from <label>)", the link keeps the profile
//   3. "custom (no profile)" -> no profile, the fields stay as they are
//   4. a profile of fine-tuning is dropped when the mode becomes inference; vLLM picked there sets the engine
//   5. Megatron-LM on 8 GPUs: the PyTorch release field (train.torch_version, shown with more than one GPU) typed
//      with the real keyboard; PyTorch 2.6's NCCL 2.21 connects the tree at creation, so the communicators grow
//
// Usage: node profiles.mjs --site build/web/site [--chromium /usr/bin/chromium]
import { appState as state, checks, click, finish, item, launchChromium, openApp, parseArgs, scrollTo, serveSite, typeInto } from './harness.mjs';
import { resolve } from 'node:path';

const args = parseArgs();
const siteDir = resolve(args.site ?? 'build/web/site');
const executablePath = args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium';
const { failures, check, section } = checks();
const server = await serveSite(siteDir, '/vramlens/');
const browser = await launchChromium(executablePath);
const scenario = (s) => JSON.parse(s.scenario);

try {
  const page = await openApp(browser, server.url, {}, (what) => failures.push(what));
  await section('pick a profile', async () => {
    await click(page, 'mode.1');  // fine-tuning
    await click(page, 'profile');
    await click(page, 'profile.peft-qlora');
    const s = await state(page);
    const sc = scenario(s);
    check(sc.profile === 'peft-qlora', `the scenario names the profile (${sc.profile})`);
    check(sc.finetune === undefined || sc.finetune.lora_rank === undefined, 'the profile\'s own settings are not repeated in the link');
    check(s.profile_text.startsWith('profile: PEFT + bitsandbytes QLoRA') && s.profile_text.includes('finetune.lora_rank = 64'),
          `the profile line names what it sets (${s.profile_text.slice(0, 80)}...)`);
    check(s.mechanisms_text.startsWith('By mechanism at the peak: '), `the peak by mechanism is shown (${s.mechanisms_text.slice(0, 60)}...)`);
    check(s.ok && s.total_bytes === s.core_total_bytes, `shown estimate = core estimate (${s.total_bytes} vs ${s.core_total_bytes})`);
  });
  await section('change a field the profile set', async () => {
    await click(page, 'finetune.lora_rank.minus');
    const s = await state(page);
    const sc = scenario(s);
    check(sc.profile === 'peft-qlora' && sc.finetune && sc.finetune.lora_rank !== undefined && sc.finetune.lora_rank !== 64,
          `the rank changed and the profile is kept (${sc.finetune && sc.finetune.lora_rank})`);
    check(s.profile_text === 'custom (from PEFT + bitsandbytes QLoRA (the QLoRA reference script))', `custom from the profile (${s.profile_text})`);
    const again = await openApp(browser, `${server.url}#${s.link}`, {}, (what) => failures.push(what));
    const s2 = await state(again);
    check(s2.scenario === s.scenario && s2.total_bytes === s.total_bytes, 'the link restores the profile and the changed rank');
    await again.close();
  });
  await section('custom (no profile)', async () => {
    const before = scenario(await state(page));
    await click(page, 'profile');
    await click(page, 'profile.none');
    const s = await state(page);
    const sc = scenario(s);
    check(sc.profile === undefined && s.profile_text === '', 'no profile');
    check(sc.finetune && sc.finetune.method === 'qlora' && sc.finetune.lora_rank === before.finetune.lora_rank,
          'the fields stay as the profile and the edit left them');
  });
  await section('a profile of another mode', async () => {
    await click(page, 'profile');
    await click(page, 'profile.peft-lora');
    await click(page, 'mode.2');  // inference
    let s = await state(page);
    check(scenario(s).profile === undefined && s.ok, 'switching to inference drops the fine-tuning profile');
    await click(page, 'profile');
    await click(page, 'profile.vllm');
    s = await state(page);
    const sc = scenario(s);
    // The link leaves out what the profile sets; the estimate is vLLM's (its non-torch memory component).
    check(sc.profile === 'vllm' && s.components.some((c) => c.id === 'engine.non_torch'), `vLLM picked (${sc.profile})`);
    check(s.ok && s.total_bytes === s.core_total_bytes, 'shown estimate = core estimate with vLLM');
  });
  await section('Megatron-LM on 8 GPUs: the PyTorch release', async () => {
    const p = await openApp(browser, server.url, { viewport: { width: 1280, height: 900 } }, (what) => failures.push(what));
    const inputs = await item(p, 'section.model');
    const reach = async (key) => scrollTo(p, key, { x: inputs.x + 8, y: 450 }, 0, false);
    const nccl = (s) => s.components.find((c) => c.id === 'overhead.cuda_context.nccl')?.bytes ?? 0;
    await click(p, 'mode.0');  // training
    await click(p, 'profile');
    await click(p, 'profile.megatron-lm');
    await reach('gpu_count');
    await typeInto(p, 'gpu_count', '8');
    const now = await state(p);
    check(now.ok && nccl(now) > 0, `8 GPUs: the process groups' communicators (${nccl(now)} B)`);
    await reach('train.torch_version');
    await typeInto(p, 'train.torch_version', '2.6');
    const old = await state(p);
    check(scenario(old).train?.torch_version === '2.6', `the field sets train.torch_version (${scenario(old).train?.torch_version})`);
    check(old.ok && nccl(old) > nccl(now), `PyTorch 2.6's NCCL connects the tree at creation: more (${nccl(old)} > ${nccl(now)} B)`);
    check(old.total_bytes === old.core_total_bytes, 'shown estimate = core estimate');
    await p.close();
  });
} finally {
  await browser.close();
  await server.close();
}
finish('profiles', failures);
