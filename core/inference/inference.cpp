// estimate_inference: weights by format, KV cache, runtime memory and the engine's own rules, for
// the most loaded GPU. vLLM is modelled as it behaves: it takes gpu_memory_utilization x memory and
// fills what weights, non-torch memory and the profiled activation peak leave with KV blocks.
#include "inference/inference.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "formula.h"
#include "inference/kv_cache.h"
#include "inference/runtime.h"
#include "inference/weight_formats.h"
#include "parallel.h"
#include "units.h"

namespace vl {

namespace {

constexpr unsigned kLoadOn = phase_bit(Phase::Load) | phase_bit(Phase::Forward) | phase_bit(Phase::Step);
constexpr unsigned kServing = phase_bit(Phase::Forward) | phase_bit(Phase::Step);
constexpr unsigned kPrefill = phase_bit(Phase::Forward);
constexpr double kActBytes = 2;  // activations in the 16-bit compute dtype

Component comp(const char* id, const char* label, Category cat, unsigned phases, const char* source) {
    Component c;
    c.id = id; c.label = label; c.category = cat; c.phases = phases; c.source = source;
    return c;
}

// TRANSITIONAL: a hand-written formula beside the number (removed once all are expressions).
LegacyComponent comp(const char* id, const char* label, Category cat, double bytes, unsigned phases,
                     const char* formula, const char* source) {
    LegacyComponent lc;
    lc.c = comp(id, label, cat, phases, source);
    lc.c.bytes = bytes;
    lc.formula = formula;
    return lc;
}

// The stage whose GPU holds the most: weights plus the KV cache of the requested sequences.
struct StagePick {
    int64_t stage = 0, begin = 0, end = 0;
    WeightBytes w;
    double kv_seq_bytes = 0;  // one sequence of infer.context tokens on this stage
};

StagePick pick_stage(const Scenario& s, const ParamCounts& pc, int64_t block, bool cap_window) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    StagePick best;
    double best_total = -1;
    const int64_t L = m.architecture_known() ? m.layers : 0;
    for (int64_t st = 0; st < s.parallel.pp; ++st) {
        StagePick p;
        p.stage = st;
        const StageInfo si = pipeline_stage(L, s.parallel.pp, st);
        p.begin = si.layer_begin;
        p.end = si.layer_end;
        p.w = stage_weight_bytes(m, pc, o, s.parallel, st);
        if (m.architecture_known())
            p.kv_seq_bytes = kv_sequence_bytes(m, o.kv_dtype, s.parallel.tp, p.begin, p.end, o.context, block, cap_window);
        const double total = p.w.total() + static_cast<double>(o.batch) * p.kv_seq_bytes;
        if (total > best_total) { best_total = total; best = p; }
    }
    return best;
}

// Parameters of the stage's layer matrices and norms (derivation text only).
double stage_params(const ParamCounts& pc, const StagePick& p, bool norms) {
    double n = 0;
    for (int64_t i = p.begin; i < p.end && i < static_cast<int64_t>(pc.per_layer.size()); ++i) {
        const LayerParams& l = pc.per_layer[static_cast<size_t>(i)];
        n += norms ? static_cast<double>(l.norms) : static_cast<double>(l.attention + l.mlp);
    }
    return n;
}

void add_weights(const Scenario& s, Detail d, Estimate& e, const StagePick& p) {
    const InferenceOptions& o = s.infer;
    const WeightFormat f = o.weights;
    const double tp = static_cast<double>(s.parallel.tp);
    add(e, d, comp("weights.linear", "Weights: layer matrices", Category::Weights, p.w.linear, kLoadOn,
                        weight_format_formula(f), weight_format_source(f)),
        [&] {
            if (e.params.per_layer.empty())  // params-only: every parameter at the linear rate, over tp * pp
                return derive("{} * {} / 8 / {} / {}", e.params.total, linear_bits_per_weight(o, s.model.hidden), tp, s.parallel.pp);
            const double P = stage_params(e.params, p, false);
            if (!(P > 0)) return derive("0");
            // one bits-per-weight for every matrix: its closed form; GGUF mixes, LLM.int8 (row scales
            // by width), expert parallelism (experts split by ep, not tp) and the MoE router (replicated,
            // not split by tp): the stage's mean
            const bool all_split_by_tp = s.parallel.ep == 1 && (s.parallel.tp == 1 || s.model.moe.num_experts == 0);
            if (all_split_by_tp && !is_gguf(f) && f != WeightFormat::INT8) {
                if (f == WeightFormat::GPTQ4 || f == WeightFormat::AWQ4) return derive("{} * (4 + (16 + 4)/{}) / 8 / {}", P, o.group_size, tp);
                if (f == WeightFormat::NF4 || f == WeightFormat::FP4)
                    return o.double_quant ? derive("{} * (4 + 8/64 + 32/(64 * 256)) / 8 / {}", P, tp) : derive("{} * (4 + 32/64) / 8 / {}", P, tp);
                return derive("{} * {} / 8 / {}", P, linear_bits_per_weight(o, s.model.hidden), tp);
            }
            return derive("{} * {} / 8 / {}", P, p.w.linear * 8 * tp / P, tp);
        });
    // Learned positions and the embedding norm/projections are replicated (parallel.h edge_shard).
    const bool embed_all_split = e.params.embedding_norm == 0 &&
                                 e.params.embedding == s.model.vocab * (s.model.embed_dim > 0 ? s.model.embed_dim : s.model.hidden);
    if (p.w.embedding > 0)
        add(e, d, comp("weights.embedding", "Weights: embedding", Category::Weights, p.w.embedding, kLoadOn,
                            embed_all_split ? "P_embed * bits(embed) / 8 / tp"
                                            : "(V * d_embed / tp + P_pos + P_embed_norm) * bits(embed) / 8 (positions, embedding norm replicated)",
                            is_gguf(f) ? "llama.cpp: token_embd takes the base type (Q6_K when tied) [llama-cpp-code]"
                                       : "embeddings are not quantized (transformers/vLLM quantize nn.Linear only) [transformers-code] [vllm-code]"),
            [&] {
                if (embed_all_split) {
                    const double P = static_cast<double>(e.params.embedding);
                    return derive("{} * {} / 8 / {}", P, p.w.embedding * 8 * tp / P, tp);
                }
                const EdgeShard es = edge_shard(s.model, e.params, s.parallel, pipeline_stage(s.model.layers, s.parallel.pp, p.stage));
                const double word = es.word_embedding * tp;
                return derive("({} / {} + {}) * {} / 8", word, tp, es.embedding_other,
                              p.w.embedding * 8 / (es.word_embedding + es.embedding_other));
            });
    if (p.w.lm_head > 0)
        add(e, d, comp("weights.lm_head", "Weights: output head", Category::Weights, p.w.lm_head, kLoadOn,
                            "V * d * bits(head) / 8 / tp",
                            is_gguf(f) ? "llama.cpp llama_tensor_get_type: output.weight -> Q6_K (Q8_0 for Q8_0) [llama-cpp-code]"
                                       : "lm_head kept 16-bit (transformers get_keys_to_not_convert; vLLM ParallelLMHead) [transformers-code] [vllm-code]"),
            [&] {
                const double V = static_cast<double>(s.model.vocab);
                const double h = static_cast<double>(s.model.embed_dim > 0 ? s.model.embed_dim : s.model.hidden);
                return derive("{} * {} * {} / 8 / {}", V, h, p.w.lm_head * 8 * tp / (V * h), tp);
            });
    if (p.w.other > 0)
        add(e, d, comp("weights.norms", "Weights: norms", Category::Weights, p.w.other, kLoadOn,
                            "P_norm * bits / 8 (replicated on every TP rank)",
                            "norms stay unquantized; llama.cpp keeps 1-D tensors in f32 (convert_hf_to_gguf) [llama-cpp-code]"),
            [&] {
                const bool last = p.stage == s.parallel.pp - 1;
                const double P = stage_params(e.params, p, true) + (last ? static_cast<double>(e.params.final_norm) : 0.0);
                return P > 0 ? derive("{} * {} / 8", P, p.w.other * 8 / P) : derive("{}", p.w.other);
            });
}

// vLLM sizes the pool in blocks; the other engines hold every token, sliding-window layers only
// the window (transformers SlidingWindowCache / llama.cpp SWA cache).
const char* kv_formula(bool mla, bool paged, bool sliding) {
    if (paged) return mla ? "max(num_gpu_blocks, b * ceil(s/B)) * B * L * kv_elem * bytes, kv_elem = kv_lora_rank + rope_dim"
                          : "max(num_gpu_blocks, b * ceil(s/B)) * B * L * kv_elem * bytes, kv_elem = 2 * max(1, kv_heads/tp) * head_dim";
    if (sliding) return "b * (L_full * s + L_window * min(s, window)) * kv_elem * bytes, kv_elem = 2 * max(1, kv_heads/tp) * head_dim";
    return mla ? "b * s * L * kv_elem * bytes, kv_elem = kv_lora_rank + rope_dim"
               : "b * s * L * kv_elem * bytes, kv_elem = 2 * max(1, kv_heads/tp) * head_dim";
}

// `paged`: vLLM (bytes = max(pool, requested) in whole blocks, e.kv filled); otherwise every token
// of every sequence, sliding-window layers capped at the window.
void add_kv(const Scenario& s, Detail d, Estimate& e, const StagePick& p, double bytes, bool paged, const char* source) {
    const InferenceOptions& o = s.infer;
    const ModelSpec& m = s.model;
    const bool mla = m.attention == AttentionKind::MLA;
    int64_t window_layers = 0;
    if (!paged)
        for (int64_t i = p.begin; i < p.end; ++i) window_layers += layer_is_sliding(m, i) ? 1 : 0;
    add(e, d, comp("kv_cache", "KV cache", Category::KVCache, bytes, kServing, kv_formula(mla, paged, window_layers > 0), source),
        [&] {
            const Derivation elem = mla ? derive("({} + {})", m.mla.kv_lora_rank, m.mla.qk_rope_head_dim)
                                        : derive("2 * {} * {}", kv_heads_per_rank(m, s.parallel.tp), m.head_dim);
            const double bpe = kv_bytes_per_element(o.kv_dtype);
            const int64_t L = p.end - p.begin;
            if (paged)
                return derive("max({}, {} * {}) * {} * {} * {} * {}", e.kv.blocks, o.batch, (o.context + o.block_size - 1) / o.block_size,
                              o.block_size, L, elem, bpe);
            if (window_layers > 0)
                return derive("{} * ({} * {} + {} * {}) * {} * {}", o.batch, L - window_layers, o.context, window_layers,
                              std::min(o.context, m.sliding_window), elem, bpe);
            return derive("{} * {} * {} * {} * {}", o.batch, o.context, L, elem, bpe);
        });
}

// KV capacity of an engine that allocates on demand: what the memory left by everything else holds.
void fill_free_capacity(const Scenario& s, Estimate& e, double bytes_per_token, double others_at_peak) {
    e.kv.bytes_per_token = bytes_per_token;
    e.kv.block_size = 1;
    const double free_bytes = std::max(0.0, e.gpu_capacity_bytes - others_at_peak);
    e.kv.pool_bytes = free_bytes;
    e.kv.tokens = bytes_per_token > 0 ? static_cast<int64_t>(std::floor(free_bytes / bytes_per_token)) : 0;
    e.kv.blocks = e.kv.tokens;
    e.kv.sequences = s.infer.context > 0 ? e.kv.tokens / s.infer.context : 0;
}

double sum_non_kv(const Estimate& e) {
    double t = 0;
    for (const Component& c : e.components)
        if (!c.host && c.category != Category::KVCache && (c.phases & kServing)) t += c.bytes;
    return t;
}

void estimate_transformers(const Scenario& s, Detail d, Estimate& e) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    const int64_t tp = s.parallel.tp;
    const StagePick p = pick_stage(s, e.params, 1, true);
    add_weights(s, d, e, p);
    add(e, d, comp("cuda_context", "CUDA context", Category::Overhead, s.overheads.cuda_context_bytes, kLoadOn,
                        "overheads.cuda_context_bytes", "CUDA context + kernels (not in torch.cuda.max_memory_allocated [pytorch-docs])"),
        [&] { return derive("{}", s.overheads.cuda_context_bytes); });
    if (!m.architecture_known()) {
        e.warnings.push_back("model known only by parameter count: KV cache and activations need the architecture");
        return;
    }
    if (o.weights == WeightFormat::NF4 || o.weights == WeightFormat::FP4)
        add(e, d, comp("weights.dequant", "4-bit dequantized weight (prefill)", Category::Buffers,
                            bnb_dequant_bytes(m, tp, o.fp32_compute), kPrefill,
                            "largest_matrix / tp * compute_bytes", "bitsandbytes matmul_4bit dequantizes the weight for prefill [bitsandbytes-code]"),
            [&] { return derive("{} / {} * {}", bnb_largest_matrix(m), tp, o.fp32_compute ? 4 : 2); });
    add_kv(s, d, e, p, static_cast<double>(o.batch) * p.kv_seq_bytes, false,
           "vLLM paper Sec 3 (2 * L * kv_heads * head_dim * bytes per token) [vllm-paper §3]; DynamicCache holds every token [transformers-code]");
    const int64_t q = prefill_tokens(o);
    const int64_t prompt = o.prompt > 0 ? o.prompt : o.context;
    add(e, d, comp("act.prefill_mlp", "Prefill activations (MLP)", Category::Activations,
                        mlp_live_bytes(m, o.batch * q, tp, kActBytes), kPrefill,
                        "b * q * (k * f/t + 3h) * 2 (k = 3 gated, 2 plain; f = ffn, or top_k * expert_ffn + shared for MoE)", "live tensors at one layer's MLP (no activations kept for backward)"),
        [&] { return derive("{} * {} * ({} * {} / {} + 3 * {}) * {}", o.batch, q, m.gated_mlp ? 3 : 2, mlp_width(m), tp, m.hidden, kActBytes); });
    if (!o.flash_attention)
        add(e, d, comp("act.attention_scores", "Attention scores (eager)", Category::Activations,
                            eager_scores_bytes(m, o.batch, q, prompt, tp), kPrefill,
                            "b * max(1, a/t) * q * s * (2 + 4)", "eager attention keeps 16-bit scores and the fp32 softmax"),
            [&] { return derive("{} * {} * {} * {} * (2 + 4)", o.batch, std::max<int64_t>(1, m.heads / tp), q, prompt); });
    add(e, d, comp("logits", "Logits (sampled positions)", Category::Logits, hf_logits_bytes(m, o.batch), kServing,
                        "b * V * (2 + 4)", "transformers generate: last position only, bf16 + fp32 copy [transformers-code]"),
        [&] { return derive("{} * {} * (2 + 4)", o.batch, m.vocab); });
    fill_free_capacity(s, e, kv_bytes_per_token(m, o.kv_dtype, tp, p.begin, p.end), sum_non_kv(e));
}

void estimate_llamacpp(const Scenario& s, Detail d, Estimate& e) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    const StagePick p = pick_stage(s, e.params, 1, true);
    add_weights(s, d, e, p);
    add(e, d, comp("cuda_context", "CUDA context", Category::Overhead, s.overheads.cuda_context_bytes, kLoadOn,
                        "overheads.cuda_context_bytes", "CUDA context + ggml backend kernels"),
        [&] { return derive("{}", s.overheads.cuda_context_bytes); });
    if (!m.architecture_known()) {
        e.warnings.push_back("model known only by parameter count: KV cache and compute buffer need the architecture");
        return;
    }
    // llama.cpp allocates n_ctx cells up front, shared by the parallel sequences (-c = context * -np).
    const int64_t n_ctx = o.context * o.batch;
    add_kv(s, d, e, p, static_cast<double>(o.batch) * p.kv_seq_bytes, false,
           "llama.cpp llama_kv_cache: n_ctx cells * n_layer * (n_embd_k_gqa + n_embd_v_gqa) * type size [llama-cpp-code]");
    const int64_t n_ub = std::min(o.ubatch, n_ctx);
    const double cb = llamacpp_compute_bytes(m, n_ctx, n_ub, o.flash_attention);
    add(e, d, comp("engine.compute_buffer", "llama.cpp compute buffer", Category::Buffers, cb, kServing,
                        o.flash_attention ? "V * n_ub * 4 + 3 * f * n_ub * 4 (f = ffn, or top_k * expert_ffn + shared for MoE)" : "2 * n_ctx * n_ub * heads * 4 + V * n_ub * 4",
                        "ggml graph for one ubatch: f32 KQ + softmax and output logits (approximation of ggml-alloc) [llama-cpp-code]"),
        [&] {
            return o.flash_attention ? derive("{} * {} * 4 + 3 * {} * {} * 4", m.vocab, n_ub, mlp_width(m), n_ub)
                                     : derive("2 * {} * {} * {} * 4 + {} * {} * 4", n_ctx, n_ub, m.heads, m.vocab, n_ub);
        });
    fill_free_capacity(s, e, kv_bytes_per_token(m, o.kv_dtype, s.parallel.tp, p.begin, p.end), sum_non_kv(e));
}

// vLLM sizes one KV pool for all workers: the fewest blocks any pipeline stage's GPU can hold
// (vLLM v0.6 DistributedGPUExecutor.initialize_cache: num_gpu_blocks = min over workers). The stage
// shown is that one; it does not depend on the batch (every stage needs the same number of blocks).
StagePick vllm_limiting_stage(const Scenario& s, const ParamCounts& pc, double capacity, double fixed_bytes) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    StagePick best;
    int64_t best_blocks = -1;
    for (int64_t st = 0; st < s.parallel.pp; ++st) {
        StagePick p;
        p.stage = st;
        const StageInfo si = pipeline_stage(m.layers, s.parallel.pp, st);
        p.begin = si.layer_begin;
        p.end = si.layer_end;
        p.w = stage_weight_bytes(m, pc, o, s.parallel, st);
        const double block_bytes = kv_bytes_per_token(m, o.kv_dtype, s.parallel.tp, p.begin, p.end) * static_cast<double>(o.block_size);
        const double available = capacity - p.w.total() - fixed_bytes;
        const int64_t blocks = (available > 0 && block_bytes > 0) ? static_cast<int64_t>(std::floor(available / block_bytes)) : 0;
        // Fewest blocks; among stages that hold none, the one with the most weights.
        if (best_blocks < 0 || blocks < best_blocks || (blocks == best_blocks && p.w.total() > best.w.total())) {
            best_blocks = blocks;
            best = p;
        }
    }
    return best;
}

void estimate_vllm(const Scenario& s, Detail d, Estimate& e) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    const int64_t tp = s.parallel.tp;
    const int64_t block = o.block_size;
    e.gpu_capacity_bytes = o.gpu_memory_utilization * s.gpu.memory_bytes;
    e.warnings.push_back("vLLM: capacity is gpu_memory_utilization x GPU memory; the KV pool fills the rest of it");
    const double non_torch = vllm_non_torch_bytes(o, tp);
    const int64_t T = vllm_batched_tokens(o);
    const double fwd = m.architecture_known() ? mlp_live_bytes(m, T, tp, kActBytes) : 0;
    const double sampler = m.architecture_known()
                               ? vllm_sampler_bytes(m, o.max_num_seqs) + static_cast<double>(T) * static_cast<double>(m.hidden) * kActBytes
                               : 0;
    const double act = std::max(fwd, sampler);
    // vLLM v0 gives every layer every token (no sliding-window savings in the paged pool).
    const StagePick p = m.architecture_known() ? vllm_limiting_stage(s, e.params, e.gpu_capacity_bytes, non_torch + act)
                                               : pick_stage(s, e.params, block, false);
    add_weights(s, d, e, p);
    add(e, d, comp("engine.non_torch", "Non-torch memory (CUDA context, NCCL)", Category::Overhead, non_torch, kLoadOn,
                        "non_torch [+ comm_buffers when tp > 1] (1.79 GiB each), or infer.engine_overhead_bytes",
                        "vLLM v0.6 memory profiling on H100 (PR #10511): non_torch_memory 1.79 GiB tp1, 3.58 GiB tp2 [vllm-pr10511]"),
        [&] {
            if (o.engine_overhead_bytes >= 0) return derive("{}", o.engine_overhead_bytes);
            return tp > 1 ? derive("{} + {}", kVllmNonTorchBytes, kVllmCommBuffersBytes) : derive("{}", kVllmNonTorchBytes);
        });
    if (!m.architecture_known()) {
        e.warnings.push_back("model known only by parameter count: KV cache and activations need the architecture");
        return;
    }
    add(e, d, comp("act.profile_peak", "Activation peak (profile run)", Category::Activations, act, kServing,
                        "max(T * (k * f/t + 3h) * 2, seqs * V * 40 + T * h * 2) (k = 3 gated, 2 plain)",
                        "vLLM profile_run: max_num_batched_tokens through the model, max_num_seqs sampled (top-k/top-p path) [vllm-code]"),
        [&] {
            return derive("max({} * ({} * {} / {} + 3 * {}) * {}, {} * {} * {} + {} * {} * {})", T, m.gated_mlp ? 3 : 2, mlp_width(m), tp,
                          m.hidden, kActBytes, o.max_num_seqs, m.vocab, kVllmSamplerBytesPerLogit, T, m.hidden, kActBytes);
        });

    const double per_token = kv_bytes_per_token(m, o.kv_dtype, tp, p.begin, p.end);
    const double block_bytes = per_token * static_cast<double>(block);
    const double available = e.gpu_capacity_bytes - p.w.total() - non_torch - act;  // vLLM available_kv_cache_memory
    const int64_t blocks = (available > 0 && block_bytes > 0) ? static_cast<int64_t>(std::floor(available / block_bytes)) : 0;
    const int64_t blocks_per_seq = (o.context + block - 1) / block;
    e.kv.bytes_per_token = per_token;
    e.kv.block_size = block;
    e.kv.blocks = blocks;
    e.kv.tokens = blocks * block;
    e.kv.sequences = blocks_per_seq > 0 ? blocks / blocks_per_seq : 0;
    e.kv.pool_bytes = static_cast<double>(blocks) * block_bytes;
    const double needed = static_cast<double>(o.batch * blocks_per_seq) * block_bytes;
    // The pool is what vLLM allocates; a request beyond it shows as KV bytes over the capacity.
    const double kv_bytes = std::max(e.kv.pool_bytes, needed);
    add_kv(s, d, e, p, kv_bytes, true,
           "vLLM: num_gpu_blocks = floor(available_kv_cache_memory / (block_size * kv bytes per token)) [vllm-code]; Kwon et al. 2023 [vllm-paper]");
    if (needed > e.kv.pool_bytes)
        e.warnings.push_back("vLLM KV pool holds " + std::to_string(e.kv.tokens) + " tokens (" + std::to_string(blocks) + " blocks); " +
                                    std::to_string(o.batch) + " sequences of " + std::to_string(o.context) + " tokens need " +
                                    std::to_string(o.batch * blocks_per_seq) + " blocks");
    if (o.cuda_graphs)
        e.warnings.push_back("vLLM: CUDA graph memory is captured after the KV pool and is not included (enforce_eager avoids it)");
}

}  // namespace

void estimate_inference(const Scenario& s, Detail d, Estimate& e) {
    switch (s.infer.engine) {
        case Engine::Transformers: estimate_transformers(s, d, e); break;
        case Engine::VLLM: estimate_vllm(s, d, e); break;
        case Engine::LlamaCpp: estimate_llamacpp(s, d, e); break;
    }
}

void validate_inference(const Scenario& s, std::vector<FieldError>& errs) {
    const InferenceOptions& o = s.infer;
    auto range = [&](const char* field, int64_t v, int64_t lo, int64_t hi) {
        if (v < lo || v > hi)
            errs.push_back({field, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]; got " + std::to_string(v)});
    };
    range("infer.batch", o.batch, 1, 1000000);
    range("infer.context", o.context, 1, 100000000);
    range("infer.prompt", o.prompt, 0, o.context);
    range("infer.prefill_chunk", o.prefill_chunk, 0, 100000000);
    range("infer.block_size", o.block_size, 1, 100000);
    range("infer.max_num_seqs", o.max_num_seqs, 1, 1000000);
    range("infer.max_batched_tokens", o.max_batched_tokens, 0, 100000000);
    range("infer.ubatch", o.ubatch, 1, 1000000);
    if (o.weights == WeightFormat::GPTQ4 || o.weights == WeightFormat::AWQ4) range("infer.group_size", o.group_size, 1, 1000000);
    if (!(o.gpu_memory_utilization > 0 && o.gpu_memory_utilization <= 1))
        errs.push_back({"infer.gpu_memory_utilization", "must be in (0, 1]; got " + std::to_string(o.gpu_memory_utilization)});
    if (std::isnan(o.engine_overhead_bytes) || o.engine_overhead_bytes > 1e13)
        errs.push_back({"infer.engine_overhead_bytes", "must be a byte count (< 0 = engine default); got " + std::to_string(o.engine_overhead_bytes)});
    if (o.engine == Engine::LlamaCpp) {
        const bool ok = is_gguf(o.weights) || o.weights == WeightFormat::FP32 || o.weights == WeightFormat::FP16 ||
                        o.weights == WeightFormat::BF16;
        if (!ok) errs.push_back({"infer.weights", std::string("llama.cpp loads GGUF files: use FP32/FP16/BF16 or a GGUF type; got ") + weight_format_name(o.weights)});
        if (s.parallel.tp != 1)
            errs.push_back({"parallel.tp", "llama.cpp splits layers across GPUs (use parallel.pp); tensor parallel must be 1; got " + std::to_string(s.parallel.tp)});
    }
    if (o.engine == Engine::Transformers && is_gguf(o.weights))
        errs.push_back({"infer.weights", std::string("transformers dequantizes GGUF on load; use llama.cpp or vLLM for ") + weight_format_name(o.weights)});
    if (o.engine == Engine::VLLM && (o.kv_dtype == KvDtype::INT8 || o.kv_dtype == KvDtype::INT4))
        errs.push_back({"infer.kv_dtype", std::string("vLLM caches KV in fp16/bf16/fp8; got ") + kv_dtype_name(o.kv_dtype)});
    if (s.model.architecture_known() && s.model.attention == AttentionKind::MLA && s.model.mla.kv_lora_rank <= 0)
        errs.push_back({"model.kv_lora_rank", "MLA needs kv_lora_rank > 0; got " + std::to_string(s.model.mla.kv_lora_rank)});
    if (s.parallel.pp > 1 && s.model.architecture_known() && s.parallel.pp > s.model.layers)
        errs.push_back({"parallel.pp", "must not exceed num_hidden_layers (" + std::to_string(s.model.layers) + "); got " + std::to_string(s.parallel.pp)});
}

}  // namespace vl
