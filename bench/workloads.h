// The scenarios the speed figures are measured on (issue 8), shared by the Google Benchmark binary
// (bench/estimate_bench.cpp) and the portable sweep timer (bench/sweep_timing.cpp, native and
// WebAssembly), so both time exactly the same work. Built from plain ModelSpecs (no presets), so
// the numbers do not move when the preset list changes.
#pragma once
#include <cstdint>
#include <vector>

#include "estimate.h"
#include "solvers.h"

namespace vl::bench {

// Llama-3.1-8B (ModelSpec's defaults), bf16 mixed AdamW, 8 GPUs with ZeRO-1: the app's default kind.
inline Scenario train_llama8b() {
    Scenario s;
    s.mode = Mode::Train;
    s.train.micro_batch = 4;
    s.train.seq_len = 4096;
    s.parallel.dp = 8;
    s.parallel.zero = 1;
    s.gpu_count = 8;
    return s;
}

// A 61-layer MLA + MoE model (DeepSeek-V3's config.json sizes) over tp 8, pp 8, ep 8: the most
// work one estimate does (two pipeline stages walked, 61 layers counted).
inline Scenario train_deepseek_v3() {
    Scenario s;
    ModelSpec& m = s.model;
    m.name = "DeepSeek-V3"; m.model_type = "deepseek_v3";
    m.vocab = 129280; m.hidden = 7168; m.layers = 61; m.heads = 128; m.kv_heads = 128; m.ffn = 18432;
    m.attention = AttentionKind::MLA;
    m.mla = {1536, 512, 64, 128, 128};
    m.head_dim = 192;
    m.moe.num_experts = 256; m.moe.top_k = 8; m.moe.expert_ffn = 2048; m.moe.shared_experts = 1;
    m.moe.first_dense_layers = 3; m.moe.router_bias = true;
    m.max_position = 163840;
    s.train.micro_batch = 1;
    s.train.seq_len = 4096;
    s.train.recompute = Recompute::Selective;
    s.parallel.tp = 8; s.parallel.pp = 8; s.parallel.ep = 8; s.parallel.dp = 8; s.parallel.zero = 1; s.parallel.sp = true;
    s.gpu_count = 8 * 8 * 8;
    return s;
}

inline Scenario qlora_llama8b() {
    Scenario s;
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::QLoRA;
    s.finetune.lora_targets = kLoraAllLinear;
    s.train.seq_len = 2048;
    return s;
}

inline Scenario lora_llama8b() {
    Scenario s = qlora_llama8b();
    s.finetune.method = FineTuneMethod::LoRA;
    return s;
}

inline Scenario infer_vllm_llama8b() {
    Scenario s;
    s.mode = Mode::Infer;
    s.infer.engine = Engine::VLLM;
    s.infer.batch = 32;
    s.infer.context = 8192;
    return s;
}

inline Scenario infer_transformers_llama8b() {
    Scenario s;
    s.mode = Mode::Infer;
    s.infer.batch = 8;
    s.infer.context = 8192;
    return s;
}

inline Scenario infer_llamacpp_llama8b() {
    Scenario s = infer_transformers_llama8b();
    s.infer.engine = Engine::LlamaCpp;
    s.infer.weights = WeightFormat::GGUF_Q4_K_M;
    return s;
}

// The chart sweep: 100 micro-batches x 100 sequence lengths of train_llama8b = 10,000 estimates,
// NumbersOnly, as the sweep chart evaluates them. Returns the sum of the totals (so the work is used).
inline constexpr int kSweepPoints = 10'000;
inline double sweep_10k(const Scenario& base) {
    Scenario s = base;
    double sum = 0;
    for (int64_t b = 1; b <= 100; ++b) {
        s.train.micro_batch = b;
        for (int64_t k = 1; k <= 100; ++k) {
            s.train.seq_len = 128 * k;
            sum += estimate(s, Detail::NumbersOnly).total_bytes;
        }
    }
    return sum;
}

// A fixed piece of plain work that involves no vramlens code (integer hashing, floating point, a
// small array), timed in the same run as the figures: a figure divided by it is far less sensitive
// to the machine and to what else runs on it than the figure alone, so ratios compare across runs.
// About 1 ms natively.
inline double reference_work() {
    double v[256] = {};
    uint64_t x = 88172645463325252ull;
    double sum = 0;
    for (int i = 0; i < 400000; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const double d = static_cast<double>(x >> 11) * 0x1p-53;
        v[i & 255] = v[(i * 7 + 3) & 255] * 0.5 + d;
        sum += v[i & 255];
    }
    return sum;
}

// Llama-3-70B (meta-llama/Meta-Llama-3-70B config.json sizes) for the planners.
inline ModelSpec llama3_70b() {
    ModelSpec m;
    m.name = "Llama-3-70B"; m.family = "Llama 3";
    m.vocab = 128256; m.hidden = 8192; m.layers = 80; m.heads = 64; m.kv_heads = 8; m.head_dim = 128; m.ffn = 28672;
    m.max_position = 8192;
    return m;
}

// Qwen3-30B-A3B (Qwen/Qwen3-30B-A3B config.json sizes): 48 layers, each 128 routed experts, top 8.
inline ModelSpec qwen3_30b_a3b() {
    ModelSpec m;
    m.name = "Qwen3-30B-A3B"; m.family = "Qwen3-MoE"; m.model_type = "qwen3_moe";
    m.vocab = 151936; m.hidden = 2048; m.layers = 48; m.heads = 32; m.kv_heads = 4; m.head_dim = 128; m.ffn = 6144;
    m.qk_norm = true;
    m.max_position = 40960;
    m.moe.num_experts = 128; m.moe.top_k = 8; m.moe.expert_ffn = 768;
    return m;
}

}  // namespace vl::bench
