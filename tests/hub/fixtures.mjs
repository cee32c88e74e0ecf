// The test Hub's repositories (issue 17), generated here, never downloaded. Node, no dependencies.
//
// Exports (for tests/hub/fake_hub.mjs, the CLI test tests/hub/cli_import.mjs and the page's tests):
//   buildRepos()          -> { [repoId]: Repo }   every repo below, ready for startFakeHub({ repos })
//   EXPECTED              -> { [repoId]: {...} }  hand-derived values a test asserts (see each repo)
//   GATED_TOKEN           the token that opens test-org/gated-tiny
//   BUSY_RETRY_AFTER      the Retry-After (seconds) test-org/busy answers with
//   MISSING_REPO          a repo id the Hub does not have
//   PR_REVISION           "refs/pr/1": a revision of test-org/dense-tiny whose name holds "/"
//   fileBytes(repo, names) the sum of those files' sizes (header + data, as written here)
//   safetensorsFile(), ggufFile(), virtualFile(): the writers, for tests that need another file
//
// A Repo is { id, sha, revisions: { name: sha }, gated: false | "manual", token?, alwaysStatus?,
// retryAfter?, noRanges?, files: { path: File } } (noRanges: its CDN ignores Range, as some mirrors do); a File is { size, lfs, read(start, end) -> Buffer } holding a
// real header and then virtual zero bytes up to its full size (never materialized). LFS files
// (*.safetensors, *.gguf) are redirected to the CDN host, as the Hub does.
//
// Counts are summed by hand in the comments from the shapes written here; parameter counts follow
// the model's config.json (every weight matrix, norm, embedding and untied lm_head). Byte sizes:
// BF16/F16 2 bytes, F32/I32 4, F8_E4M3 1 [safetensors-spec]; GGML Q4_K 144 bytes per 256 weights,
// Q6_K 210 per 256, F32 4 per weight [llama-cpp-code]. Each fixture checks its own sums when built
// (checkSums), so a slip in a comment's arithmetic fails here, not in the code under test.

export const GATED_TOKEN = 'hf_test_gated_token_0123456789';
export const BUSY_RETRY_AFTER = 7;
export const MISSING_REPO = 'test-org/does-not-exist';
export const PR_REVISION = 'refs/pr/1';

const DTYPE_BYTES = { BF16: 2, F16: 2, F32: 4, I32: 4, F8_E4M3: 1 };

// A file of `size` bytes whose first bytes are `head` and the rest zeros.
export function virtualFile(head, size, lfs) {
  if (size < head.length) throw new Error('virtualFile: size below the header');
  return {
    size,
    lfs,
    head,
    read(start, end) {  // [start, end)
      const out = Buffer.alloc(Math.max(0, end - start));
      if (start < head.length) head.copy(out, 0, start, Math.min(end, head.length));
      return out;
    },
  };
}

const product = (shape) => shape.reduce((a, b) => a * b, 1);

// safetensors: 8-byte little-endian header length, the JSON header (padded with spaces to a multiple
// of 8, as the safetensors writer does), then the tensors' data back to back [safetensors-spec].
export function safetensorsFile(tensors) {
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const t of tensors) {
    const bytes = product(t.shape) * DTYPE_BYTES[t.dtype];
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const head = Buffer.alloc(8 + json.length);
  head.writeBigUInt64LE(BigInt(json.length), 0);
  head.write(json, 8, 'latin1');
  return virtualFile(head, head.length + offset, true);
}

// GGUF v3 [gguf-spec]: "GGUF", u32 version, u64 tensor count, u64 metadata count, the metadata pairs
// (string key, u32 type, value), the tensor infos (name, u32 n_dims, u64 dims, u32 ggml type, u64
// offset), zero padding to the alignment (32), then the data, each tensor padded to 32.
const GGUF_TYPE = { u16: 2, i32: 5, u32: 4, string: 8, array: 9 };
export const GGML = { F32: { id: 0, block: 1, bytes: 4 }, F16: { id: 1, block: 1, bytes: 2 }, Q4_K: { id: 12, block: 256, bytes: 144 }, Q6_K: { id: 14, block: 256, bytes: 210 } };
export function ggufFile({ metadata, tensors }) {
  const parts = [];
  const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b); };
  const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b); };
  const str = (s) => { const b = Buffer.from(s, 'utf8'); u64(b.length); parts.push(b); };
  parts.push(Buffer.from('GGUF', 'latin1'));
  u32(3);
  u64(tensors.length);
  u64(metadata.length);
  for (const [key, type, value] of metadata) {
    str(key);
    u32(GGUF_TYPE[type]);
    if (type === 'u32' || type === 'i32') u32(value);
    else if (type === 'u16') { const b = Buffer.alloc(2); b.writeUInt16LE(value); parts.push(b); }
    else if (type === 'string') str(value);
    else { u32(GGUF_TYPE.string); u64(value.length); for (const s of value) str(s); }  // array of strings
  }
  let offset = 0;
  for (const t of tensors) {
    str(t.name);
    u32(t.dims.length);
    for (const d of t.dims) u64(d);
    u32(GGML[t.type].id);
    u64(offset);
    const bytes = (product(t.dims) / GGML[t.type].block) * GGML[t.type].bytes;
    offset += bytes + ((32 - (bytes % 32)) % 32);
  }
  let head = Buffer.concat(parts);
  head = Buffer.concat([head, Buffer.alloc((32 - (head.length % 32)) % 32)]);
  return virtualFile(head, head.length + offset, true);
}

const jsonFile = (obj) => virtualFile(Buffer.from(JSON.stringify(obj, null, 2) + '\n', 'utf8'), Buffer.byteLength(JSON.stringify(obj, null, 2) + '\n'), false);

// Llama-style tensors, HF names. d: { hidden, inter, layers, heads, kv, headDim, vocab }.
function llamaTensors(d, { prefix = '', dtype = 'BF16', normDtype = dtype, layers = [...Array(d.layers).keys()], embed = true, head = true, moe = null } = {}) {
  const t = [];
  const m = `${prefix}model.`;
  if (embed) t.push({ name: `${m}embed_tokens.weight`, dtype, shape: [d.vocab, d.hidden] });
  for (const i of layers) {
    const l = `${m}layers.${i}.`;
    t.push({ name: `${l}input_layernorm.weight`, dtype: normDtype, shape: [d.hidden] });
    t.push({ name: `${l}self_attn.q_proj.weight`, dtype, shape: [d.heads * d.headDim, d.hidden] });
    t.push({ name: `${l}self_attn.k_proj.weight`, dtype, shape: [d.kv * d.headDim, d.hidden] });
    t.push({ name: `${l}self_attn.v_proj.weight`, dtype, shape: [d.kv * d.headDim, d.hidden] });
    t.push({ name: `${l}self_attn.o_proj.weight`, dtype, shape: [d.hidden, d.heads * d.headDim] });
    t.push({ name: `${l}post_attention_layernorm.weight`, dtype: normDtype, shape: [d.hidden] });
    if (moe) {
      t.push({ name: `${l}block_sparse_moe.gate.weight`, dtype, shape: [moe.experts, d.hidden] });
      for (let e = 0; e < moe.experts; ++e) {
        t.push({ name: `${l}block_sparse_moe.experts.${e}.w1.weight`, dtype, shape: [d.inter, d.hidden] });
        t.push({ name: `${l}block_sparse_moe.experts.${e}.w2.weight`, dtype, shape: [d.hidden, d.inter] });
        t.push({ name: `${l}block_sparse_moe.experts.${e}.w3.weight`, dtype, shape: [d.inter, d.hidden] });
      }
    } else {
      t.push({ name: `${l}mlp.gate_proj.weight`, dtype, shape: [d.inter, d.hidden] });
      t.push({ name: `${l}mlp.up_proj.weight`, dtype, shape: [d.inter, d.hidden] });
      t.push({ name: `${l}mlp.down_proj.weight`, dtype, shape: [d.hidden, d.inter] });
    }
  }
  if (head) {
    t.push({ name: `${m}norm.weight`, dtype: normDtype, shape: [d.hidden] });
    t.push({ name: `${prefix}lm_head.weight`, dtype, shape: [d.vocab, d.hidden] });
  }
  return t;
}

function llamaConfig(d, extra = {}) {
  return {
    architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: d.hidden, intermediate_size: d.inter,
    num_hidden_layers: d.layers, num_attention_heads: d.heads, num_key_value_heads: d.kv, head_dim: d.headDim,
    vocab_size: d.vocab, max_position_embeddings: 2048, rms_norm_eps: 1e-5, tie_word_embeddings: false, torch_dtype: 'bfloat16', ...extra,
  };
}

// The seven projections of one Llama layer with hidden 16, intermediate 32, 2 heads, 1 KV head,
// head_dim 8: [name, in, out].
const PROJ16 = [
  ['self_attn.q_proj', 16, 16], ['self_attn.k_proj', 16, 8], ['self_attn.v_proj', 16, 8], ['self_attn.o_proj', 16, 16],
  ['mlp.gate_proj', 16, 32], ['mlp.up_proj', 16, 32], ['mlp.down_proj', 32, 16],
];
const D16 = { hidden: 16, inter: 32, layers: 1, heads: 2, kv: 1, headDim: 8, vocab: 32 };
// What a quantized checkpoint keeps 16-bit: embed_tokens [32,16] 512, lm_head [32,16] 512, three norms [16] 48.
function kept16(dtype) {
  return [
    { name: 'model.embed_tokens.weight', dtype, shape: [32, 16] },
    { name: 'model.layers.0.input_layernorm.weight', dtype, shape: [16] },
    { name: 'model.layers.0.post_attention_layernorm.weight', dtype, shape: [16] },
    { name: 'model.norm.weight', dtype, shape: [16] },
    { name: 'lm_head.weight', dtype, shape: [32, 16] },
  ];
}

function sha(seed) {
  let h = 0x811c9dc5;
  let out = '';
  for (let i = 0; out.length < 40; ++i) {
    h ^= seed.charCodeAt(i % seed.length) + i;
    h = Math.imul(h, 0x01000193) >>> 0;
    out += (h & 0xf).toString(16);
  }
  return out;
}

function repo(id, files, extra = {}) {
  const s = sha(id);
  return { id, sha: s, revisions: { main: s }, gated: false, files, ...extra };
}

// Sums over safetensors files by dtype, for checkSums and the API's `safetensors` field.
export function safetensorsCounts(files) {
  const by = {};
  for (const f of files) {
    const n = Number(f.head.readBigUInt64LE(0));
    const header = JSON.parse(f.head.subarray(8, 8 + n).toString('latin1'));
    for (const [name, t] of Object.entries(header)) {
      if (name === '__metadata__') continue;
      by[t.dtype] ??= { tensors: 0, elements: 0, bytes: 0 };
      by[t.dtype].tensors += 1;
      by[t.dtype].elements += product(t.shape);
      by[t.dtype].bytes += t.data_offsets[1] - t.data_offsets[0];
    }
  }
  return by;
}

function checkSums(id, files, expected) {
  const got = safetensorsCounts(files);
  const want = expected.dtypes;
  if (JSON.stringify(Object.keys(got).sort()) !== JSON.stringify(Object.keys(want).sort()) ||
      Object.keys(want).some((k) => JSON.stringify(got[k]) !== JSON.stringify(want[k])))
    throw new Error(`fixtures: ${id}: the hand sums ${JSON.stringify(want)} differ from the tensors written ${JSON.stringify(got)}`);
}

// ---- the hand-derived values ------------------------------------------------------------------
export const EXPECTED = {
  // Llama, hidden 8, intermediate 16, 2 layers, 2 heads, 1 KV head, head_dim 4, vocab 32, untied.
  // Per layer: q [8,8] 64 + k [4,8] 32 + v [4,8] 32 + o [8,8] 64 + gate [16,8] 128 + up 128 + down
  // [8,16] 128 = 576 BF16, two norms [8] = 16 F32. Embedding [32,8] 256, lm_head 256 BF16, final
  // norm 8 F32. BF16: 256 + 2 x 576 + 256 = 1664 elements, 3328 bytes, 2 + 2 x 7 = 16 tensors;
  // F32: 2 x 16 + 8 = 40 elements, 160 bytes, 5 tensors. Parameters: 1664 + 40 = 1704.
  // Shard 1: embedding + layer 0 (10 tensors); shard 2: layer 1, norm, lm_head (11).
  'test-org/dense-tiny': {
    params_total: 1704,
    dtypes: { BF16: { tensors: 16, elements: 1664, bytes: 3328 }, F32: { tensors: 5, elements: 40, bytes: 160 } },
    tensor_bytes: 3488,
    shards: ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors'],
  },
  // Mixtral, hidden 8, intermediate 16, 1 layer, 2 heads, 1 KV head, head_dim 4, 2 experts (2 per
  // token), vocab 32, all BF16: embedding 256 + attention 192 + router [2,8] 16 + 2 experts x 384 +
  // two norms 16 + final norm 8 + lm_head 256 = 1512 elements, 3024 bytes; tensors 1 + 4 + 2 + 1 +
  // 6 + 2 = 16 (embedding, q k v o, two norms, router, 2 x 3 experts' matrices, norm, lm_head).
  'test-org/moe-tiny': {
    params_total: 1512,
    dtypes: { BF16: { tensors: 16, elements: 1512, bytes: 3024 } },
    tensor_bytes: 3024,
  },
  // AWQ 4-bit, group 16, on Llama hidden 16 / intermediate 32 / 1 layer / 2 heads / 1 KV head /
  // head_dim 8 / vocab 32. Config parameters: embedding 512 + q 256 + k 128 + v 128 + o 256 + gate
  // 512 + up 512 + down 512 + norms 32 + final norm 16 + lm_head 512 = 3376.
  // qweight I32 [in, out/8]: 16x2 + 16x1 + 16x1 + 16x2 + 16x4 + 16x4 + 32x2 = 288 elements (1152
  // bytes), 8 weights each: 2304 parameters; qzeros I32 [in/16, out/8]: 2+1+1+2+4+4+4 = 18 (72
  // bytes); scales F16 [in/16, out]: 16+8+8+16+32+32+32 = 144 (288 bytes). Kept F16: embedding 512,
  // lm_head 512, norms 48 = 1072. F16: 1072 + 144 = 1216 elements, 2432 bytes, 5 + 7 tensors; I32:
  // 306 elements, 1224 bytes, 14 tensors. Quantized: 7 weights, 2304 parameters, 1152 + 72 + 288 =
  // 1512 bytes with 14 scale/zero tensors; not quantized: 5 tensors, 1072 parameters, 2144 bytes.
  'test-org/awq-tiny': {
    params_total: 3376,
    dtypes: { F16: { tensors: 12, elements: 1216, bytes: 2432 }, I32: { tensors: 14, elements: 306, bytes: 1224 } },
    tensor_bytes: 3656,
    quantization: { method: 'awq', bits: 4, group_size: 16, weights: 'awq-4bit' },
    quantized: { tensors: 7, params: 2304, bytes: 1512, constant_tensors: 14 },
    not_quantized: { tensors: 5, params: 1072, bytes: 2144 },
  },
  // GPTQ 4-bit, group 16, same model. qweight I32 [in/8, out]: 2x16 + 2x8 + 2x8 + 2x16 + 2x32 +
  // 2x32 + 4x16 = 288 elements (1152 bytes, 2304 parameters); qzeros as AWQ 18 (72 bytes); scales
  // F16 144 (288 bytes); g_idx I32 [in]: 6 x 16 + 32 = 128 (512 bytes). I32: 288 + 18 + 128 = 434
  // elements, 1736 bytes, 21 tensors. Quantized bytes 1152 + 72 + 288 + 512 = 2024 with 21 constants.
  'test-org/gptq-tiny': {
    params_total: 3376,
    dtypes: { F16: { tensors: 12, elements: 1216, bytes: 2432 }, I32: { tensors: 21, elements: 434, bytes: 1736 } },
    tensor_bytes: 4168,
    quantization: { method: 'gptq', bits: 4, group_size: 16, weights: 'gptq-4bit' },
    quantized: { tensors: 7, params: 2304, bytes: 2024, constant_tensors: 21 },
    not_quantized: { tensors: 5, params: 1072, bytes: 2144 },
  },
  // FP8 (compressed-tensors, float 8-bit, one scale per output channel), same model. weight
  // F8_E4M3 [out, in]: 256 + 128 + 128 + 256 + 512 + 512 + 512 = 2304 elements = bytes = parameters;
  // weight_scale BF16 [out, 1]: 16 + 8 + 8 + 16 + 32 + 32 + 16 = 128 (256 bytes). Kept BF16 1072
  // (2144 bytes). BF16: 1200 elements, 2400 bytes, 12 tensors; F8_E4M3: 2304, 2304 bytes, 7 tensors.
  'test-org/fp8-tiny': {
    params_total: 3376,
    dtypes: { BF16: { tensors: 12, elements: 1200, bytes: 2400 }, F8_E4M3: { tensors: 7, elements: 2304, bytes: 2304 } },
    tensor_bytes: 4704,
    quantization: { method: 'compressed-tensors', bits: 8, group_size: -1, weights: 'fp8' },
    quantized: { tensors: 7, params: 2304, bytes: 2560, constant_tensors: 7 },
    not_quantized: { tensors: 5, params: 1072, bytes: 2144 },
  },
  // LoRA r 4, alpha 8, on q_proj and v_proj of test-org/dense-tiny (its config gives the model,
  // 1704 parameters). Per layer: q lora_A [4,8] 32 + lora_B [8,4] 32, v lora_A [4,8] 32 + lora_B
  // [4,4] 16 = 112 F32; 2 layers: 224 elements, 896 bytes, 8 tensors.
  'test-org/dense-tiny-lora': {
    params_total: 1704,
    base_model: 'test-org/dense-tiny',
    adapter: { rank: 4, alpha: 8, lora_targets: 'q_proj,v_proj' },
    dtypes: { F32: { tensors: 8, elements: 224, bytes: 896 } },
    tensor_bytes: 896,
  },
  // LLaVA-style: text_config is dense-tiny's Llama (1704 parameters counted from the config, the
  // language model only), all BF16 in the file: 1704 + the vision tower's patch embedding [16,3,2,2]
  // 192 + the projector [8,16] 128 = 2024 elements, 4048 bytes, 21 + 2 = 23 tensors.
  'test-org/vlm-tiny': {
    params_total: 1704,
    dtypes: { BF16: { tensors: 23, elements: 2024, bytes: 4048 } },
    tensor_bytes: 4048,
  },
  // GGUF v3, llama: embedding 256, 2 blocks, 4 heads, 2 KV heads (head_dim 64), feed-forward 512,
  // context 4096, a 2048-token vocabulary, output.weight present (untied).
  // Per block: attn_norm F32 [256] 1024 B; attn_q Q4_K [256,256] 65536 w -> 256 blocks x 144 =
  // 36864 B; attn_k Q4_K [256,128] 32768 w -> 18432 B; attn_v Q6_K [256,128] -> 128 x 210 = 26880 B;
  // attn_output Q4_K 36864 B; ffn_norm F32 1024 B; ffn_gate, ffn_up Q4_K [256,512] 131072 w -> 512 x
  // 144 = 73728 B each; ffn_down Q6_K [512,256] -> 512 x 210 = 107520 B. Block: 376064 B, 590336 w.
  // token_embd Q4_K [256,2048] 524288 w -> 294912 B; output Q6_K [256,2048] -> 2048 x 210 = 430080 B;
  // output_norm F32 [256] 1024 B. Every size is a multiple of 32 (no padding): data 2 x 376064 +
  // 294912 + 430080 + 1024 = 1478144 B. Q4_K: 1 + 2 x 5 = 11 tensors, 524288 + 2 x 425984 =
  // 1376256 w, 774144 B; Q6_K: 1 + 2 x 2 = 5, 524288 + 2 x 163840 = 851968 w, 698880 B; F32: 5,
  // 1280 w, 5120 B. Parameters (from the metadata as a config): 524288 + 2 x 590336 + 256 + 524288
  // = 2229504.
  'test-org/gguf-tiny': {
    file: 'gguf-tiny-Q4_K_M.gguf',
    params_total: 2229504,
    gguf: { architecture: 'llama', context_length: 4096, block_count: 2, head_count: 4, head_count_kv: 2, embedding_length: 256, feed_forward_length: 512, tensor_bytes: 1478144, layer_bytes: [376064, 376064], other_bytes: 726016 },
    types: { Q4_K: { tensors: 11, elements: 1376256, bytes: 774144 }, Q6_K: { tensors: 5, elements: 851968, bytes: 698880 }, F32: { tensors: 5, elements: 1280, bytes: 5120 } },
  },
  // gguf-tiny written as llama.cpp's gguf-split does, in 2 parts: part 1 holds the metadata, the
  // embedding and block 0, part 2 (split keys only) block 1, output_norm and output. Summed over the
  // parts, every count and size is gguf-tiny's; the file size is the two parts' sizes.
  'test-org/gguf-split': {
    files: ['gguf-split-Q4_K_M-00001-of-00002.gguf', 'gguf-split-Q4_K_M-00002-of-00002.gguf'],
    params_total: 2229504,
    gguf: { architecture: 'llama', context_length: 4096, block_count: 2, head_count: 4, head_count_kv: 2, embedding_length: 256, feed_forward_length: 512, tensor_bytes: 1478144, layer_bytes: [376064, 376064], other_bytes: 726016 },
    types: { Q4_K: { tensors: 11, elements: 1376256, bytes: 774144 }, Q6_K: { tensors: 5, elements: 851968, bytes: 698880 }, F32: { tensors: 5, elements: 1280, bytes: 5120 } },
  },
  // moe-tiny's files on a CDN that ignores Range and answers 200 with the whole file.
  'test-org/no-range-tiny': { params_total: 1512, dtypes: { BF16: { tensors: 16, elements: 1512, bytes: 3024 } }, tensor_bytes: 3024 },
  // Gated: moe-tiny's files behind GATED_TOKEN.
  'test-org/gated-tiny': { params_total: 1512, dtypes: { BF16: { tensors: 16, elements: 1512, bytes: 3024 } }, tensor_bytes: 3024 },
};

// ---- the repos -------------------------------------------------------------------------------
export function buildRepos() {
  const repos = {};
  const add = (r) => { repos[r.id] = r; };

  const dense = { hidden: 8, inter: 16, layers: 2, heads: 2, kv: 1, headDim: 4, vocab: 32 };
  {
    const id = 'test-org/dense-tiny';
    const s1 = safetensorsFile(llamaTensors(dense, { normDtype: 'F32', layers: [0], head: false }));
    const s2 = safetensorsFile(llamaTensors(dense, { normDtype: 'F32', layers: [1], embed: false }));
    const [n1, n2] = EXPECTED[id].shards;
    checkSums(id, [s1, s2], EXPECTED[id]);
    const weightMap = {};
    for (const [name, f] of [[n1, s1], [n2, s2]]) {
      const n = Number(f.head.readBigUInt64LE(0));
      for (const k of Object.keys(JSON.parse(f.head.subarray(8, 8 + n).toString('latin1')))) if (k !== '__metadata__') weightMap[k] = name;
    }
    const r = repo(id, {
      'config.json': jsonFile(llamaConfig(dense, { _name_or_path: id })),
      'model.safetensors.index.json': jsonFile({ metadata: { total_size: EXPECTED[id].tensor_bytes }, weight_map: weightMap }),
      [n1]: s1,
      [n2]: s2,
      'README.md': jsonFile({ note: 'test repo' }),
    });
    r.revisions[PR_REVISION] = sha(id + PR_REVISION);
    add(r);
  }

  const moeFiles = (id) => {
    const t = llamaTensors(dense, { layers: [0], moe: { experts: 2 } });
    const f = safetensorsFile(t);
    checkSums(id, [f], EXPECTED[id]);
    return {
      'config.json': jsonFile({
        architectures: ['MixtralForCausalLM'], model_type: 'mixtral', _name_or_path: id, hidden_size: 8, intermediate_size: 16,
        num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1, head_dim: 4, vocab_size: 32, num_local_experts: 2,
        num_experts_per_tok: 2, max_position_embeddings: 2048, tie_word_embeddings: false, torch_dtype: 'bfloat16',
      }),
      'model.safetensors': f,
    };
  };
  add(repo('test-org/moe-tiny', moeFiles('test-org/moe-tiny')));
  add(repo('test-org/gated-tiny', moeFiles('test-org/gated-tiny'), { gated: 'manual', token: GATED_TOKEN }));
  add(repo('test-org/no-range-tiny', moeFiles('test-org/no-range-tiny'), { noRanges: true }));

  {
    const id = 'test-org/awq-tiny';
    const t = kept16('F16');
    for (const [p, i, o] of PROJ16) {
      const l = `model.layers.0.${p}.`;
      t.push({ name: `${l}qweight`, dtype: 'I32', shape: [i, o / 8] });
      t.push({ name: `${l}qzeros`, dtype: 'I32', shape: [i / 16, o / 8] });
      t.push({ name: `${l}scales`, dtype: 'F16', shape: [i / 16, o] });
    }
    const f = safetensorsFile(t);
    checkSums(id, [f], EXPECTED[id]);
    add(repo(id, {
      'config.json': jsonFile(llamaConfig(D16, { _name_or_path: id, torch_dtype: 'float16', quantization_config: { quant_method: 'awq', bits: 4, group_size: 16, version: 'gemm', zero_point: true } })),
      'model.safetensors': f,
    }));
  }
  {
    const id = 'test-org/gptq-tiny';
    const t = kept16('F16');
    for (const [p, i, o] of PROJ16) {
      const l = `model.layers.0.${p}.`;
      t.push({ name: `${l}qweight`, dtype: 'I32', shape: [i / 8, o] });
      t.push({ name: `${l}qzeros`, dtype: 'I32', shape: [i / 16, o / 8] });
      t.push({ name: `${l}scales`, dtype: 'F16', shape: [i / 16, o] });
      t.push({ name: `${l}g_idx`, dtype: 'I32', shape: [i] });
    }
    const f = safetensorsFile(t);
    checkSums(id, [f], EXPECTED[id]);
    add(repo(id, {
      'config.json': jsonFile(llamaConfig(D16, { _name_or_path: id, torch_dtype: 'float16', quantization_config: { quant_method: 'gptq', bits: 4, group_size: 16, desc_act: false, sym: true } })),
      'model.safetensors': f,
    }));
  }
  {
    const id = 'test-org/fp8-tiny';
    const t = kept16('BF16');
    for (const [p, i, o] of PROJ16) {
      const l = `model.layers.0.${p}.`;
      t.push({ name: `${l}weight`, dtype: 'F8_E4M3', shape: [o, i] });
      t.push({ name: `${l}weight_scale`, dtype: 'BF16', shape: [o, 1] });
    }
    const f = safetensorsFile(t);
    checkSums(id, [f], EXPECTED[id]);
    add(repo(id, {
      'config.json': jsonFile(llamaConfig(D16, {
        _name_or_path: id,
        quantization_config: {
          quant_method: 'compressed-tensors', format: 'float-quantized', ignore: ['lm_head'],
          config_groups: { group_0: { targets: ['Linear'], weights: { num_bits: 8, type: 'float', strategy: 'channel', symmetric: true, dynamic: false } } },
        },
      })),
      'model.safetensors': f,
    }));
  }
  {
    const id = 'test-org/dense-tiny-lora';
    const t = [];
    for (const i of [0, 1]) {
      const l = `base_model.model.model.layers.${i}.self_attn.`;
      t.push({ name: `${l}q_proj.lora_A.weight`, dtype: 'F32', shape: [4, 8] });
      t.push({ name: `${l}q_proj.lora_B.weight`, dtype: 'F32', shape: [8, 4] });
      t.push({ name: `${l}v_proj.lora_A.weight`, dtype: 'F32', shape: [4, 8] });
      t.push({ name: `${l}v_proj.lora_B.weight`, dtype: 'F32', shape: [4, 4] });
    }
    const f = safetensorsFile(t);
    checkSums(id, [f], EXPECTED[id]);
    add(repo(id, {
      'adapter_config.json': jsonFile({ peft_type: 'LORA', task_type: 'CAUSAL_LM', base_model_name_or_path: 'test-org/dense-tiny', r: 4, lora_alpha: 8, lora_dropout: 0.05, target_modules: ['q_proj', 'v_proj'], bias: 'none' }),
      'adapter_model.safetensors': f,
    }));
  }
  {
    const id = 'test-org/vlm-tiny';
    const t = llamaTensors(dense, { prefix: 'language_model.' });
    t.push({ name: 'vision_tower.vision_model.embeddings.patch_embedding.weight', dtype: 'BF16', shape: [16, 3, 2, 2] });
    t.push({ name: 'multi_modal_projector.linear_1.weight', dtype: 'BF16', shape: [8, 16] });
    const f = safetensorsFile(t);
    checkSums(id, [f], EXPECTED[id]);
    const text = llamaConfig(dense);
    delete text.architectures;
    add(repo(id, {
      'config.json': jsonFile({
        architectures: ['LlavaForConditionalGeneration'], model_type: 'llava', _name_or_path: id, tie_word_embeddings: false,
        text_config: text, vision_config: { model_type: 'clip_vision_model', hidden_size: 16, intermediate_size: 32, num_hidden_layers: 1, num_attention_heads: 2, image_size: 4, patch_size: 2 },
      }),
      'model.safetensors': f,
    }));
  }
  {
    const id = 'test-org/gguf-tiny';
    const tensors = [{ name: 'token_embd.weight', dims: [256, 2048], type: 'Q4_K' }];
    for (const i of [0, 1]) {
      const b = `blk.${i}.`;
      tensors.push(
        { name: `${b}attn_norm.weight`, dims: [256], type: 'F32' },
        { name: `${b}attn_q.weight`, dims: [256, 256], type: 'Q4_K' },
        { name: `${b}attn_k.weight`, dims: [256, 128], type: 'Q4_K' },
        { name: `${b}attn_v.weight`, dims: [256, 128], type: 'Q6_K' },
        { name: `${b}attn_output.weight`, dims: [256, 256], type: 'Q4_K' },
        { name: `${b}ffn_norm.weight`, dims: [256], type: 'F32' },
        { name: `${b}ffn_gate.weight`, dims: [256, 512], type: 'Q4_K' },
        { name: `${b}ffn_up.weight`, dims: [256, 512], type: 'Q4_K' },
        { name: `${b}ffn_down.weight`, dims: [512, 256], type: 'Q6_K' },
      );
    }
    tensors.push({ name: 'output_norm.weight', dims: [256], type: 'F32' }, { name: 'output.weight', dims: [256, 2048], type: 'Q6_K' });
    const metadata = (name) => [
      ['general.architecture', 'string', 'llama'],
      ['general.name', 'string', name],
      ['llama.context_length', 'u32', 4096],
      ['llama.embedding_length', 'u32', 256],
      ['llama.block_count', 'u32', 2],
      ['llama.feed_forward_length', 'u32', 512],
      ['llama.attention.head_count', 'u32', 4],
      ['llama.attention.head_count_kv', 'u32', 2],
      ['tokenizer.ggml.tokens', 'array', Array.from({ length: 2048 }, (_, i) => `tok${i}`)],
    ];
    const f = ggufFile({ metadata: metadata('gguf-tiny'), tensors });
    if (f.size - f.head.length !== EXPECTED[id].gguf.tensor_bytes) throw new Error(`fixtures: ${id}: data ${f.size - f.head.length} != ${EXPECTED[id].gguf.tensor_bytes}`);
    add(repo(id, { [EXPECTED[id].file]: f, 'README.md': jsonFile({ note: 'GGUF test repo' }) }));

    const splitId = 'test-org/gguf-split';
    const split = (no) => [['split.no', 'u16', no], ['split.count', 'u16', 2], ['split.tensors.count', 'i32', tensors.length]];
    const cut = 1 + 9;  // token_embd and block 0's nine tensors
    const p1 = ggufFile({ metadata: [...metadata('gguf-split'), ...split(0)], tensors: tensors.slice(0, cut) });
    const p2 = ggufFile({ metadata: split(1), tensors: tensors.slice(cut) });
    if (p1.size - p1.head.length + p2.size - p2.head.length !== EXPECTED[splitId].gguf.tensor_bytes) throw new Error(`fixtures: ${splitId}: data sizes differ`);
    const [n1, n2] = EXPECTED[splitId].files;
    add(repo(splitId, { [n1]: p1, [n2]: p2 }));
  }
  add(repo('test-org/busy', { 'config.json': jsonFile(llamaConfig(dense)) }, { alwaysStatus: 429, retryAfter: BUSY_RETRY_AFTER }));
  return repos;
}

// The sum of a repo's safetensors (or GGUF) file sizes, as the fixture wrote them.
export function fileBytes(repoObj, names) {
  return names.reduce((a, n) => a + repoObj.files[n].size, 0);
}
