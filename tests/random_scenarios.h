// Random scenarios for the property tests (tests/invariants_test.cpp, tests/derivation_test.cpp):
// real presets, synthetic architectures and parameter-count-only models, every mode, engine,
// precision, optimizer, recomputation policy and parallel layout. Mostly valid; callers keep the
// ones validate() accepts.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "model/hf_config.h"
#include "model/presets.h"
#include "training/finetune.h"
#include "scenario.h"
#include "units.h"

namespace vl::test {

struct Rng {
    std::mt19937_64 g;
    explicit Rng(uint64_t seed) : g(seed) {}
    int64_t range(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(g); }
    double real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(g); }
    bool chance(double p) { return std::bernoulli_distribution(p)(g); }
    template <class T, size_t N>
    T pick(const std::array<T, N>& a) { return a[static_cast<size_t>(range(0, static_cast<int64_t>(N) - 1))]; }
    template <class E>
    E enum_upto(E last) { return static_cast<E>(range(0, static_cast<int64_t>(last))); }
};

inline uint64_t env_u64(const char* name, uint64_t fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    return std::strtoull(v, nullptr, 10);
}

// ---- random models ------------------------------------------------------------------------------
inline ModelSpec synthetic_model(Rng& r) {
    ModelSpec m;
    m.name = "synthetic";
    m.model_type = "synthetic";
    m.heads = r.pick(std::array<int64_t, 9>{1, 2, 4, 8, 12, 16, 32, 64, 71});
    std::vector<int64_t> divisors;
    for (int64_t k = 1; k <= m.heads; ++k)
        if (m.heads % k == 0) divisors.push_back(k);
    m.kv_heads = divisors[static_cast<size_t>(r.range(0, static_cast<int64_t>(divisors.size()) - 1))];
    m.head_dim = r.pick(std::array<int64_t, 5>{32, 64, 80, 128, 256});
    m.hidden = r.chance(0.7) ? m.heads * m.head_dim : 64 * r.range(1, 128);
    m.layers = r.range(1, 80);
    m.ffn = r.chance(0.5) ? m.hidden * r.range(2, 4) : 128 * r.range(1, 200);
    m.vocab = r.range(1000, 260000);
    m.gated_mlp = r.chance(0.7);
    m.qkv_bias = r.chance(0.3);
    m.attn_out_bias = r.chance(0.2);
    m.mlp_bias = r.chance(0.2);
    m.norm = r.chance(0.7) ? NormKind::RMSNorm : NormKind::LayerNorm;
    m.norms_per_layer = static_cast<int>(r.range(1, 4));
    m.qk_norm = r.chance(0.2);
    m.final_norm = r.chance(0.9);
    m.tied_embeddings = r.chance(0.3);
    m.position = r.enum_upto(PositionKind::None);
    m.max_position = r.pick(std::array<int64_t, 4>{2048, 8192, 32768, 131072});
    m.position_offset = m.position == PositionKind::Learned && r.chance(0.3) ? 2 : 0;
    m.embedding_norm = r.chance(0.1);
    m.parallel_attn_mlp = r.chance(0.2);
    if (r.chance(0.3)) {
        m.sliding_window = r.pick(std::array<int64_t, 3>{512, 4096, 8192});
        m.sliding_window_pattern = static_cast<int>(r.range(0, 6));
    } else {
        m.sliding_window = 0;
    }
    if (r.chance(0.2)) {
        m.moe.num_experts = static_cast<int>(r.pick(std::array<int64_t, 4>{4, 8, 16, 64}));
        m.moe.top_k = static_cast<int>(r.range(1, std::min(8, m.moe.num_experts)));
        m.moe.expert_ffn = 64 * r.range(1, 40);
        m.moe.shared_experts = static_cast<int>(r.range(0, 2));
        m.moe.first_dense_layers = static_cast<int>(r.range(0, std::min<int64_t>(3, m.layers)));
        m.moe.moe_layer_freq = static_cast<int>(r.range(1, 2));
        m.moe.router_bias = r.chance(0.3);
    }
    if (r.chance(0.1)) {
        m.attention = AttentionKind::MLA;
        m.mla.q_lora_rank = r.chance(0.5) ? 0 : 512 * r.range(1, 3);
        m.mla.kv_lora_rank = 128 * r.range(1, 4);
        m.mla.qk_rope_head_dim = 64;
        m.mla.qk_nope_head_dim = 128;
        m.mla.v_head_dim = 128;
        m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
    }
    return m;
}

inline ModelSpec random_model(Rng& r) {
    const double u = r.real(0, 1);
    if (u < 0.55) {
        const auto& presets = model_presets();
        return presets[static_cast<size_t>(r.range(0, static_cast<int64_t>(presets.size()) - 1))].spec;
    }
    if (u < 0.62) return model_from_param_count(r.range(10'000'000, 1'000'000'000'000));
    return synthetic_model(r);
}

inline int64_t pow2_upto(Rng& r, int64_t max_log2) { return int64_t{1} << r.range(0, max_log2); }

// ---- random scenarios (mostly valid; the caller keeps the valid ones) ---------------------------
inline Scenario random_scenario(Rng& r) {
    Scenario s;
    s.model = random_model(r);
    const ModelSpec& m = s.model;
    const double mode = r.real(0, 1);
    s.mode = mode < 0.4 ? Mode::Train : mode < 0.65 ? Mode::FineTune : Mode::Infer;

    TrainingOptions& t = s.train;
    t.precision = r.enum_upto(Precision::AutocastBF16);
    t.fp32_grad_accum = r.chance(0.2);
    t.fp32_grad_copy = r.chance(0.1);
    t.optimizer = r.enum_upto(Optimizer::Custom);
    t.custom_optimizer_bytes_per_param = r.real(0, 16);
    t.micro_batch = r.chance(0.9) ? r.range(1, 16) : r.range(1, 512);
    t.seq_len = r.pick(std::array<int64_t, 8>{128, 512, 1024, 2048, 4096, 8192, 32768, 131072});
    if (m.position == PositionKind::Learned && m.architecture_known()) t.seq_len = std::min(t.seq_len, m.max_position);
    t.grad_accum_steps = r.range(1, 16);
    t.recompute = r.enum_upto(Recompute::EveryK);
    t.recompute_every_k = static_cast<int>(r.range(1, 4));
    t.flash_attention = r.chance(0.8);
    t.dropout = r.chance(0.3) ? 0.1 : 0.0;
    t.attention_dropout = r.pick(std::array<double, 3>{-1, 0, 0.1});
    t.fp32_logits = r.chance(0.8);
    t.loss = r.enum_upto(LossImpl::Fused);
    if (r.chance(0.12)) t.compat = static_cast<Compat>(r.range(1, 3));
    if (r.chance(0.2)) t.activation_formula = r.enum_upto(ActivationFormula::Coefficient);
    t.activation_coefficient = r.real(0, 40);
    t.optimizer_state_dtype = r.enum_upto(StateDtype::BF16);
    t.optimizer_impl = static_cast<OptimizerImpl>(t.recompute_every_k % 4);  // every value, from a draw made above (no new draw: the stream stays)
    t.extra_fp32_weight_copy = r.chance(0.1);
    if (!m.architecture_known() && r.chance(0.5)) t.params_only_largest_layer = m.params_only / r.range(10, 200);

    FineTuneOptions& f = s.finetune;
    f.method = r.enum_upto(FineTuneMethod::QLoRA);
    f.lora_rank = pow2_upto(r, 8);
    // one draw over the seven attention and MLP targets (the stream as before the Mamba targets); a state-space model's
    // mixer takes the q/k/v/o bits as in_proj/x_proj/dt_proj/out_proj too (no new draw)
    f.lora_targets = static_cast<unsigned>(r.range(1, kLoraAttention | kLoraMlp));
    if (m.ssm.active()) f.lora_targets |= (f.lora_targets & kLoraAttention) * (kLoraInProj / kLoraQ);
    // targets that name no layer of the model are refused (PEFT: "not found"): then the model's first (no new draw)
    if (const unsigned present = lora_targets_present(m); present != 0 && (f.lora_targets & present) == 0)
        f.lora_targets |= present & ~(present - 1);
    f.double_quant = r.chance(0.5);
    f.paged_optimizer = r.chance(0.5);
    f.adapters_fp32 = r.chance(0.7);
    f.lora_dropout = r.chance(0.3) ? 0.05 : 0.0;
    f.quant_block = r.pick(std::array<int64_t, 3>{32, 64, 128});
    f.quant_block2 = r.pick(std::array<int64_t, 2>{128, 256});

    InferenceOptions& o = s.infer;
    o.engine = r.enum_upto(Engine::LlamaCpp);
    if (o.engine == Engine::LlamaCpp)
        o.weights = r.chance(0.8) ? static_cast<WeightFormat>(r.range(static_cast<int64_t>(WeightFormat::GGUF_Q8_0),
                                                                    static_cast<int64_t>(WeightFormat::GGUF_Q5_K_S)))
                                  : r.enum_upto(WeightFormat::BF16);
    else
        o.weights = r.enum_upto(WeightFormat::FP4);
    o.group_size = r.pick(std::array<int64_t, 3>{32, 64, 128});
    o.double_quant = r.chance(0.5);
    o.kv_dtype = o.engine == Engine::VLLM ? r.enum_upto(KvDtype::FP8) : r.enum_upto(KvDtype::INT4);
    o.batch = r.chance(0.9) ? r.range(1, 64) : r.range(1, 4096);
    o.context = r.pick(std::array<int64_t, 7>{128, 1000, 2048, 4096, 8192, 32768, 131072});
    o.prefill_chunk = r.chance(0.3) ? r.pick(std::array<int64_t, 3>{256, 512, 8192}) : 0;
    o.gpu_memory_utilization = r.real(0.5, 1.0);
    o.block_size = r.pick(std::array<int64_t, 3>{8, 16, 32});
    o.cuda_graphs = r.chance(0.5);
    o.flash_attention = r.chance(0.7);
    o.prompt = r.chance(0.3) ? r.range(0, o.context) : 0;
    o.max_num_seqs = r.pick(std::array<int64_t, 3>{1, 64, 256});
    o.max_batched_tokens = r.chance(0.3) ? r.pick(std::array<int64_t, 3>{512, 2048, 16384}) : 0;
    o.ubatch = r.pick(std::array<int64_t, 3>{128, 512, 2048});
    o.fp32_compute = r.chance(0.2);
    o.engine_overhead_bytes = r.chance(0.2) ? r.real(0, 4e9) : -1;
    o.llamacpp_backend = r.enum_upto(LlamaCppBackend::CANN);
    o.llamacpp_fa_mask_cast = r.chance(0.3);
    o.mla_cache = r.enum_upto(MlaCache::Decompressed);
    // llama.cpp quantizes the V cache only with flash attention (validate_inference).
    if (o.engine == Engine::LlamaCpp && (o.kv_dtype == KvDtype::INT8 || o.kv_dtype == KvDtype::INT4)) o.flash_attention = true;

    Parallelism& p = s.parallel;
    p.tp = o.engine == Engine::LlamaCpp && s.mode == Mode::Infer ? 1 : pow2_upto(r, 3);
    p.pp = r.chance(0.7) ? 1 : pow2_upto(r, 2);
    p.cp = s.mode != Mode::Infer && r.chance(0.15) ? 2 : 1;
    p.dp = r.chance(0.3) ? 1 : pow2_upto(r, 7);
    p.ep = m.moe.num_experts > 0 && r.chance(0.5) ? std::min(p.dp, pow2_upto(r, 3)) : 1;
    p.zero = static_cast<int>(r.range(0, 3));
    p.shard_group = r.chance(0.15) && p.dp >= 2 ? p.dp / 2 : 0;
    p.schedule = r.enum_upto(PipelineSchedule::GPipe);
    p.virtual_stages = p.schedule == PipelineSchedule::Interleaved && p.pp > 1 && r.chance(0.5) ? 2 : 1;
    // Megatron's uneven split on some two-stage training layouts (by the model, not a draw: the draws stay as they were)
    if (s.mode != Mode::Infer && p.pp == 2 && p.virtual_stages == 1 && m.architecture_known() && m.layers >= 4 && m.layers % 3 == 0)
        p.last_stage_layers = m.layers / 2 - 1;
    p.offload_optimizer = p.zero >= 1 && r.chance(0.2);
    p.offload_params = p.zero == 3 && r.chance(0.2);
    p.sp = p.tp > 1 && r.chance(0.5);
    p.gpus_per_node = r.chance(0.8) ? 8 : 4;
    s.gpu_count = p.dp * p.tp * p.pp * p.cp;

    const auto& gpus = gpu_presets();
    s.gpu = gpus[static_cast<size_t>(r.range(0, static_cast<int64_t>(gpus.size()) - 1))].gpu();

    Overheads& ov = s.overheads;
    ov.cuda_context_bytes = r.real(0, 2.0 * kGiB);
    ov.fragmentation = r.chance(0.2) ? 0.0 : r.real(0, 0.3);
    ov.temp_buffers = r.chance(0.8);
    ov.bucket_bytes = r.real(0, 5e8);
    ov.backward_working_set = r.chance(0.8);
    f.save_embedding = r.chance(0.2);  // drawn last: the scenarios drawn before them stay as they were
    f.save_lm_head = r.chance(0.2);
    return s;
}


}  // namespace vl::test
