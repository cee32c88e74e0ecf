// Hand-built ModelSpecs for the inference and solver tests, from the models' config.json as listed
// in tests/data/inference/models.md (copied from the reference set, with sources).
#pragma once
#include "model_spec.h"
#include "scenario.h"

namespace vl::test {

inline ModelSpec llama(const char* name, int64_t vocab, int64_t hidden, int64_t layers, int64_t heads,
                       int64_t kv_heads, int64_t ffn, int64_t max_pos = 8192) {
    ModelSpec m;
    m.name = name; m.model_type = "llama";
    m.vocab = vocab; m.hidden = hidden; m.layers = layers; m.heads = heads; m.kv_heads = kv_heads;
    m.head_dim = hidden / heads; m.ffn = ffn; m.max_position = max_pos;
    return m;
}

inline ModelSpec llama3_8b() { return llama("Meta-Llama-3-8B", 128256, 4096, 32, 32, 8, 14336); }
inline ModelSpec llama2_7b() { return llama("Llama-2-7b", 32000, 4096, 32, 32, 32, 11008, 4096); }
inline ModelSpec llama2_13b() { return llama("Llama-2-13b", 32000, 5120, 40, 40, 40, 13824, 4096); }
inline ModelSpec llama2_70b() { return llama("Llama-2-70b", 32000, 8192, 80, 64, 8, 28672, 4096); }
inline ModelSpec llama3_70b() { return llama("Meta-Llama-3-70B", 128256, 8192, 80, 64, 8, 28672); }
inline ModelSpec mistral_7b() {
    ModelSpec m = llama("Mistral-7B-v0.1", 32000, 4096, 32, 32, 8, 14336, 32768);
    m.sliding_window = 4096;
    return m;
}
inline ModelSpec qwen25_7b() {
    ModelSpec m = llama("Qwen2.5-7B", 152064, 3584, 28, 28, 4, 18944, 131072);
    m.qkv_bias = true;
    return m;
}
inline ModelSpec qwen3_06b() {
    ModelSpec m = llama("Qwen3-0.6B", 151936, 1024, 28, 16, 8, 3072, 40960);
    m.head_dim = 128; m.qk_norm = true; m.tied_embeddings = true;
    return m;
}
// GPT-style: LayerNorm, learned positions, biases, plain (non-gated) MLP.
inline ModelSpec gpt_style(const char* name, int64_t vocab, int64_t hidden, int64_t layers, int64_t heads,
                           int64_t kv_heads, int64_t ffn, int64_t max_pos) {
    ModelSpec m = llama(name, vocab, hidden, layers, heads, kv_heads, ffn, max_pos);
    m.norm = NormKind::LayerNorm; m.position = PositionKind::Learned; m.gated_mlp = false;
    m.qkv_bias = m.attn_out_bias = m.mlp_bias = true; m.tied_embeddings = true;
    return m;
}
inline ModelSpec opt_13b() { return gpt_style("opt-13b", 50272, 5120, 40, 40, 40, 20480, 2048); }
inline ModelSpec octocoder() { return gpt_style("octocoder", 49152, 6144, 40, 48, 1, 24576, 8192); }  // MQA
inline ModelSpec gpt3_175b() { return gpt_style("gpt3-175b", 50257, 12288, 96, 96, 96, 49152, 2048); }
inline ModelSpec deepseek_v3() {
    ModelSpec m = llama("DeepSeek-V3", 129280, 7168, 61, 128, 128, 18432, 163840);
    m.head_dim = 192;  // qk_nope_head_dim + qk_rope_head_dim
    m.attention = AttentionKind::MLA;
    m.mla = MLASpec{1536, 512, 64, 128, 128};
    m.moe.num_experts = 256; m.moe.top_k = 8; m.moe.expert_ffn = 2048; m.moe.shared_experts = 1;
    m.moe.first_dense_layers = 3; m.moe.router_bias = true;
    return m;
}

// Meta-Llama-3-8B served at its max_position_embeddings (8192 tokens) by `engine`.
inline Scenario llama3_8b_serving(Engine engine, WeightFormat weights, KvDtype kv) {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = llama3_8b();
    s.infer.engine = engine;
    s.infer.weights = weights;
    s.infer.kv_dtype = kv;
    s.infer.context = 8192;
    return s;
}

// Reference case 26: llama.cpp serving Meta-Llama-3-8B-Instruct as GGUF F16 with n_ctx 8192
// (llama.cpp docs/backend/CANN.md example log); flash attention on unless a test turns it off.
inline Scenario llamacpp_case26() { return llama3_8b_serving(Engine::LlamaCpp, WeightFormat::FP16, KvDtype::FP16); }

// Case 25 (tests/inference_engines_test.cpp): Meta-Llama-3-8B in bf16 on vLLM, max_model_len 8192. The vLLM log
// (PR #10511): total_gpu_memory 79.22 GiB and usable 0.9 x total = 71.29 GiB, both printed to 2 decimals; together
// they pin total to [79.215, 79.2167) GiB.
inline Scenario vllm_llama3_8b(int64_t tp) {
    Scenario s = llama3_8b_serving(Engine::VLLM, WeightFormat::BF16, KvDtype::BF16);
    s.infer.gpu_memory_utilization = 0.9;
    s.gpu.memory_bytes = 79.216 * 1073741824.0;
    // PR #10511's draft (between 0.6.4.post1 and 0.6.5) counted the whole non-torch memory in the budget and
    // logged it: 1.79 GiB at tp 1, 3.58 GiB at tp 2, given here so the rest of the log is what is checked.
    s.infer.vllm_version = "0.6.4";
    s.infer.engine_overhead_bytes = 1.79 * 1073741824.0 * static_cast<double>(tp);
    s.parallel.tp = tp;
    s.gpu_count = tp;
    return s;
}

}  // namespace vl::test
