// `vramlens import <repo id | Hub URL>` and `--model <repo id>` against the test Hub (issue 17): the
// real binary, HF_ENDPOINT pointed at tests/hub/fake_hub.mjs, HF_HOME an empty temporary folder (the
// user's cache and token are never read). Every value asserted is hand-derived in fixtures.mjs.
//   node tests/hub/cli_import.mjs <path to vramlens>        (ctest: hub.cli_import)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

import { startFakeHub } from './fake_hub.mjs';
import { BUSY_RETRY_AFTER, EXPECTED, GATED_TOKEN, MISSING_REPO, PR_REVISION, buildRepos } from './fixtures.mjs';

const VRAMLENS = process.argv[2];
if (!VRAMLENS || !fs.existsSync(VRAMLENS)) {
  console.error('usage: node tests/hub/cli_import.mjs <path to the vramlens binary>');
  process.exit(2);
}
const OFFLINE_TAIL = 'Without the network: download the model\'s config.json';

let hub;
let repos;
let home;

before(async () => {
  repos = buildRepos();
  hub = await startFakeHub({ repos });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'vramlens-hf-home-'));
});
after(async () => {
  await hub.close();
  fs.rmSync(home, { recursive: true, force: true });
});

// Runs vramlens (asynchronously: the test Hub answers from this process's event loop).
function run(args, env = {}) {
  const base = { PATH: process.env.PATH, HOME: home, HF_HOME: home, HF_ENDPOINT: hub.endpoint };
  return new Promise((resolve) => {
    execFile(VRAMLENS, args, { env: { ...base, ...env }, maxBuffer: 64 << 20 }, (error, stdout, stderr) =>
      resolve({ status: error ? error.code : 0, stdout, stderr }));
  });
}

// The requests made while `fn` ran.
async function logged(fn) {
  const from = hub.log.length;
  const result = await fn();
  return { ...result, requests: hub.log.slice(from) };
}

async function importJson(source, env) {
  const r = await logged(() => run(['import', source, '--format', 'json'], env));
  assert.equal(r.status, 0, r.stderr);
  return { ...r, json: JSON.parse(r.stdout) };
}

const byDtype = (list) => Object.fromEntries(list.map((d) => [d.dtype ?? d.type, { tensors: d.tensors, elements: d.elements, bytes: d.bytes }]));

for (const id of ['test-org/dense-tiny', 'test-org/moe-tiny', 'test-org/awq-tiny', 'test-org/gptq-tiny', 'test-org/fp8-tiny', 'test-org/dense-tiny-lora', 'test-org/vlm-tiny']) {
  test(`import ${id}: the counts and sizes from its headers are the hand-summed ones`, async () => {
    const want = EXPECTED[id];
    const { json, stderr, requests } = await importJson(id);
    assert.match(stderr, new RegExp(`read from the Hugging Face Hub \\(${hub.endpoint.replace(/[.]/g, '\\.')}\\), ${id} at main`));
    assert.equal(json.params.total, want.params_total);
    assert.deepEqual(byDtype(json.checkpoint.dtypes), want.dtypes);
    assert.equal(json.checkpoint.tensor_bytes, want.tensor_bytes);
    const shardNames = Object.keys(repos[id].files).filter((n) => n.endsWith('.safetensors'));
    const fileBytes = shardNames.reduce((a, n) => a + repos[id].files[n].size, 0);
    assert.equal(json.checkpoint.file_bytes, fileBytes);
    if (want.quantization) {
      const q = json.quantization;
      assert.deepEqual({ method: q.method, bits: q.bits, group_size: q.group_size, weights: q.weights }, want.quantization);
      assert.deepEqual(json.checkpoint.quantized, want.quantized);
      assert.deepEqual(json.checkpoint.not_quantized, want.not_quantized);
    }
    if (want.adapter) {
      assert.equal(json.adapter.base_model, want.base_model);
      assert.equal(json.adapter.rank, want.adapter.rank);
      assert.equal(json.adapter.alpha, want.adapter.alpha);
      assert.equal(json.adapter.lora_targets, want.adapter.lora_targets);
      // The base model's config.json came from its own repo.
      assert.ok(requests.some((r) => r.host === 'hub' && r.url.startsWith(`/${want.base_model}/resolve/main/config.json`)));
    }
    // Only headers: each shard was asked for its first 8 bytes, then up to the header's end.
    for (const n of shardNames) {
      const ranges = requests.filter((r) => r.host === 'cdn' && r.url.split('?')[0].endsWith(`/${n}`)).map((r) => r.headers.range);
      assert.deepEqual(ranges, ['bytes=0-7', `bytes=8-${repos[id].files[n].head.length - 1}`], n);
    }
  });
}

test('import a GGUF repo: metadata, tensor types and per-layer bytes from its header, read by growing ranges', async () => {
  const id = 'test-org/gguf-tiny';
  const want = EXPECTED[id];
  const { json, requests } = await importJson(id);
  assert.equal(json.params.total, want.params_total);
  for (const [k, v] of Object.entries(want.gguf)) assert.deepEqual(json.gguf[k], v, k);
  assert.deepEqual(byDtype(json.gguf.types), want.types);
  const file = repos[id].files[want.file];
  assert.equal(json.gguf.file_bytes, file.size);
  // The bytes asked for are the header's neighbourhood, not the 1.5 MB of tensors.
  let asked = 0;
  for (const r of requests.filter((x) => x.host === 'cdn')) {
    const m = /^bytes=(\d+)-(\d+)$/.exec(r.headers.range ?? '');
    assert.ok(m, `every CDN request is a range request; got ${r.headers.range}`);
    asked += Math.min(Number(m[2]), file.size - 1) - Number(m[1]) + 1;
  }
  assert.ok(asked >= file.head.length && asked <= 2 * 65536, `asked for ${asked} bytes of ${file.size}`);
  // The same file by its URL.
  const byUrl = await importJson(`${hub.endpoint}/${id}/blob/main/${want.file}`);
  assert.equal(byUrl.json.gguf.tensor_bytes, want.gguf.tensor_bytes);
});

test('a CDN that ignores Range: the whole-file answer is cut after the bytes needed', async () => {
  const id = 'test-org/no-range-tiny';
  const { json, requests } = await importJson(id);
  assert.equal(json.params.total, EXPECTED[id].params_total);
  assert.deepEqual(byDtype(json.checkpoint.dtypes), EXPECTED[id].dtypes);
  assert.equal(json.checkpoint.file_bytes, repos[id].files['model.safetensors'].size);
  assert.ok(requests.some((r) => r.host === 'cdn' && r.status === 200));
});

test("a GGUF split in parts: every part's header is read, counts and sizes summed", async () => {
  const id = 'test-org/gguf-split';
  const want = EXPECTED[id];
  for (const source of [id, `${hub.endpoint}/${id}/blob/main/${want.files[1]}`]) {
    const { json, requests } = await importJson(source);
    assert.equal(json.params.total, want.params_total);
    for (const [k, v] of Object.entries(want.gguf)) assert.deepEqual(json.gguf[k], v, k);
    assert.deepEqual(byDtype(json.gguf.types), want.types);
    assert.equal(json.gguf.file_bytes, want.files.reduce((a, n) => a + repos[id].files[n].size, 0));
    assert.ok(json.warnings.some((w) => w.includes('a GGUF split in 2 parts')));
    for (const n of want.files) assert.ok(requests.some((r) => r.host === 'cdn' && r.url.includes(`/${n}?`)), n);
  }
});

test('a revision holding "/" is sent percent-encoded, as huggingface_hub does', async () => {
  const { json, requests } = await importJson(`test-org/dense-tiny@${PR_REVISION}`);
  assert.equal(json.params.total, EXPECTED['test-org/dense-tiny'].params_total);
  assert.ok(requests.some((r) => r.url === '/api/models/test-org/dense-tiny/revision/refs%2Fpr%2F1' && r.status === 200));
  const commit = repos['test-org/dense-tiny'].revisions[PR_REVISION];
  assert.ok(requests.filter((r) => r.host === 'hub' && r.url.includes('/resolve/')).every((r) => r.url.includes(`/resolve/${commit}/`)));
});

test('a gated repo: without a token the message says a token is needed; with HF_TOKEN it is read, and the CDN never sees the token', async () => {
  const id = 'test-org/gated-tiny';
  const denied = await logged(() => run(['import', id]));
  assert.equal(denied.status, 1);
  assert.match(denied.stderr, /test-org\/gated-tiny is a gated model: it needs a Hugging Face access token/);
  assert.ok(denied.stderr.includes(OFFLINE_TAIL));
  assert.ok(denied.requests.some((r) => r.status === 401 && !r.headers.authorization));

  const wrong = await run(['import', id], { HF_TOKEN: 'hf_not_the_right_one' });
  assert.equal(wrong.status, 1);
  assert.match(wrong.stderr, /is a gated model/);

  const allowed = await importJson(id, { HF_TOKEN: GATED_TOKEN });
  assert.equal(allowed.json.params.total, EXPECTED[id].params_total);
  assert.deepEqual(byDtype(allowed.json.checkpoint.dtypes), EXPECTED[id].dtypes);
  const hubRequests = allowed.requests.filter((r) => r.host === 'hub');
  const cdnRequests = allowed.requests.filter((r) => r.host === 'cdn');
  assert.ok(hubRequests.length > 0 && cdnRequests.length > 0);
  for (const r of hubRequests) assert.equal(r.headers.authorization, `Bearer ${GATED_TOKEN}`, r.url);
  for (const r of cdnRequests) assert.equal(r.headers.authorization, undefined, `the token reached the CDN host: ${r.url}`);
});

test('the token file huggingface_hub writes ($HF_HOME/token) is read when HF_TOKEN is not set', async () => {
  const tokenHome = fs.mkdtempSync(path.join(os.tmpdir(), 'vramlens-hf-token-'));
  try {
    fs.writeFileSync(path.join(tokenHome, 'token'), `${GATED_TOKEN}\n`);
    const r = await importJson('test-org/gated-tiny', { HF_HOME: tokenHome });
    assert.equal(r.json.params.total, EXPECTED['test-org/gated-tiny'].params_total);
    assert.ok(r.requests.filter((x) => x.host === 'cdn').every((x) => x.headers.authorization === undefined));
  } finally {
    fs.rmSync(tokenHome, { recursive: true, force: true });
  }
});

test('a repo that does not exist: 401 without a token (it may be private), 404 with one', async () => {
  const anonymous = await run(['import', MISSING_REPO]);
  assert.equal(anonymous.status, 1);
  assert.match(anonymous.stderr, /test-org\/does-not-exist was not found, or it is private or gated and needs a Hugging Face access token/);
  assert.ok(anonymous.stderr.includes(OFFLINE_TAIL));
  const withToken = await run(['import', MISSING_REPO], { HF_TOKEN: 'hf_some_token' });
  assert.equal(withToken.status, 1);
  assert.match(withToken.stderr, /test-org\/does-not-exist was not found on the Hub/);
  const missingFile = await run(['import', `${hub.endpoint}/test-org/gguf-tiny/resolve/main/missing.gguf`]);
  assert.equal(missingFile.status, 1);
  assert.match(missingFile.stderr, /test-org\/gguf-tiny has no file missing\.gguf/);
  const missingRevision = await run(['import', 'test-org/dense-tiny@no-such-branch']);
  assert.equal(missingRevision.status, 1);
  assert.match(missingRevision.stderr, /test-org\/dense-tiny has no such revision/);
});

test('rate-limited: the message says how long to wait', async () => {
  const r = await run(['import', 'test-org/busy']);
  assert.equal(r.status, 1);
  assert.ok(r.stderr.includes(`rate-limiting requests (429): wait ${BUSY_RETRY_AFTER} s and try again`), r.stderr);
  assert.ok(r.stderr.includes(OFFLINE_TAIL));
});

test('an endpoint nobody answers: the message says the Hub could not be reached', async () => {
  const closed = http.createServer();
  await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = closed.address().port;
  await new Promise((resolve) => closed.close(resolve));
  const r = await run(['import', 'test-org/dense-tiny'], { HF_ENDPOINT: `http://127.0.0.1:${port}` });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /could not reach the Hugging Face Hub to read test-org\/dense-tiny \(.*http:\/\/127\.0\.0\.1:\d+\)/);
  assert.ok(r.stderr.includes(OFFLINE_TAIL));
});

test('a bad repo id says which forms are expected', async () => {
  const r = await logged(() => run(['import', 'org/na--me']));
  assert.equal(r.status, 1);
  assert.match(r.stderr, /model: .*cannot contain "--"/);
  assert.equal(r.requests.length, 0);
});

test('estimate --model <repo id> sizes the model read from the Hub', async () => {
  const r = await logged(() => run(['estimate', '--model', 'test-org/dense-tiny', '--format', 'json']));
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.scenario.model.hidden, 8);
  assert.equal(j.scenario.model.layers, 2);
  assert.equal(j.scenario.model.kv_heads, 1);
  assert.ok(r.requests.some((x) => x.url.endsWith('/config.json') && x.status === 200));
});

test('the local HF cache is asked first: a cached repo is read without a request', async () => {
  const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'vramlens-hf-cache-'));
  try {
    const commit = repos['test-org/moe-tiny'].sha;
    const snap = path.join(cacheHome, 'hub', 'models--test-org--moe-tiny', 'snapshots', commit);
    fs.mkdirSync(snap, { recursive: true });
    fs.mkdirSync(path.join(cacheHome, 'hub', 'models--test-org--moe-tiny', 'refs'), { recursive: true });
    fs.writeFileSync(path.join(cacheHome, 'hub', 'models--test-org--moe-tiny', 'refs', 'main'), commit);
    const f = repos['test-org/moe-tiny'].files['config.json'];
    fs.writeFileSync(path.join(snap, 'config.json'), f.read(0, f.size));
    const r = await importJson('test-org/moe-tiny', { HF_HOME: cacheHome });
    assert.equal(r.json.params.total, EXPECTED['test-org/moe-tiny'].params_total);
    assert.match(r.stderr, /read from the Hugging Face cache/);
    assert.equal(r.requests.length, 0);
  } finally {
    fs.rmSync(cacheHome, { recursive: true, force: true });
  }
});
