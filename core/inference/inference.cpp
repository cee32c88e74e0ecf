// estimate_inference: weights by format, KV cache, runtime memory and the engine's own rules, for
// the most loaded GPU. vLLM is modelled as it behaves: it takes gpu_memory_utilization x memory and
// fills what weights, non-torch memory and the profiled activation peak leave with KV blocks.
#include "inference/inference.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "cold.h"
#include "cuda_context.h"
#include "cublas_workspace.h"
#include "enum_names.h"
#include "formula.h"
#include "inference/generate_replay.h"
#include "inference/kv_cache.h"
#include "inference/runtime.h"
#include "inference/speculative.h"
#include "inference/ssm_scan.h"
#include "inference/vllm_budget.h"
#include "inference/vllm_moe.h"
#include "inference/weight_formats.h"
#include "model/image_tokens.h"
#include "model/layer_tensors.h"
#include "allocator_reserve.h"
#include "parallel.h"
#include "units.h"

namespace vl {

namespace {

constexpr unsigned kLoadOn = phase_bit(Phase::Load) | phase_bit(Phase::Forward) | phase_bit(Phase::Step);
constexpr unsigned kServing = phase_bit(Phase::Forward) | phase_bit(Phase::Step);
constexpr unsigned kPrefill = phase_bit(Phase::Forward);
constexpr double kActBytes = 2;  // activations in the 16-bit compute dtype

// The stage whose GPU holds the most: weights plus the KV cache of the requested sequences.
struct StagePick {
    int64_t stage = 0, begin = 0, end = 0;
    StageWeightParams params;  // its weights, grouped by how they are stored
    WeightBytes w;
    double kv_seq_bytes = 0;  // one sequence of infer.context tokens on this stage (KV cache, and a Mamba layer's state)
};

// The image states each sequence's cross-attention layers keep K and V of (Llama 3.2 Vision; 0 for other models).
int64_t cross_states(const Scenario& s) {
    return s.model.vision.mllama() && s.infer.images > 0 ? s.infer.images * image_grid(s.model.vision, s.infer.image_width, s.infer.image_height).cross_tokens : 0;
}

// An encoder-decoder's generate(): infer.context is the encoder's source, infer.target_len the tokens the decoder generates
// (0: as many as the source), the length of its self-attention cache.
int64_t seq2seq_target(const InferenceOptions& o) { return o.target_len > 0 ? o.target_len : o.context; }

// What one sequence holds on stage p whatever its length: a Mamba layer's recurrent state, Llama 3.2 Vision's cross-attention
// KV of its images, an encoder-decoder's cross-attention KV of its source (0 for a plain transformer).
double state_per_sequence(const Scenario& s, const StagePick& p) {
    Numbers n;
    const int64_t images = cross_states(s);
    const bool seq2seq = s.model.seq2seq.active();
    return (s.model.ssm.active() ? ssm_sequence_bytes(s.model, p.begin, p.end, ssm_state_layout(s.infer, s.model.ssm), s.parallel.tp) : 0) +
           (images > 0 ? cross_kv_sequence_bytes(n, s.model, s.infer.kv_dtype, s.parallel.tp, p.begin, p.end, images) : 0.0) +
           (seq2seq ? cross_kv_sequence_bytes(n, s.model, s.infer.kv_dtype, s.parallel.tp, p.begin, p.end, s.infer.context, "s_src") : 0.0);
}

StagePick stage_at(const Scenario& s, const ParamCounts& pc, int64_t stage) {
    StagePick p;
    p.stage = stage;
    const StageInfo si = pipeline_stage(s.model.architecture_known() ? s.model.layers : 0, s.parallel.pp, stage);
    p.begin = si.layer_begin;
    p.end = si.layer_end;
    p.params = stage_weight_params(s.model, pc, s.infer, s.parallel, stage);
    p.w = s.infer.engine == Engine::LlamaCpp && gguf_bytes_describe(s.model, s.infer.weights) ? gguf_stage_weight_bytes(s.model, s.parallel, stage)
                                                                             : weight_bytes(p.params, s.model, s.infer, s.parallel);
    return p;
}

// embedding_on_host: the stage's token embedding is not GPU memory (llama.cpp's input layer).
StagePick pick_stage(const Scenario& s, const ParamCounts& pc, int64_t block, bool cap_window, bool embedding_on_host = false) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    StagePick best;
    double best_total = -1;
    for (int64_t st = 0; st < s.parallel.pp; ++st) {
        StagePick p = stage_at(s, pc, st);
        if (m.architecture_known()) {
            p.kv_seq_bytes = kv_sequence_bytes(m, o.kv_dtype, s.parallel.tp, p.begin, p.end, o.context, block, cap_window);
            p.kv_seq_bytes += state_per_sequence(s, p);
        }
        const double gpu_weights = p.w.total() - (embedding_on_host ? p.w.embedding : 0.0);
        const double total = gpu_weights + static_cast<double>(o.batch) * p.kv_seq_bytes;
        if (total > best_total) { best_total = total; best = p; }
    }
    return best;
}

// The 1-D tensors kept unquantized: a Mamba layer's conv1d, A_log, D and dt bias are among them.
const char* norms_label(const ModelSpec& m) {
    return m.ssm.active() ? "Weights: norms and Mamba conv1d, A, D, dt bias" : "Weights: norms";
}

// The parameters of the vision tower and of the projector one GPU holds: vLLM splits the tower's and the projector's
// parallel linear layers over the tp ranks (each tensor's split in vision_tensors) [vllm-code]; transformers keeps them
// whole on every rank [transformers-code]. A transformers bitsandbytes load (infer.weights nf4, fp4, int8) converts every
// nn.Linear but the head, the tower's and the projector's too (vision_linear) [transformers-bnb-skip]: those are `bnb`
// (and their output rows, for LLM.int8's row scales); GPTQ/AWQ checkpoints and vLLM's quantization configs leave the
// visual modules unquantized [vllm-code].
struct VisionRankParams {
    double tower = 0, projector = 0, bnb = 0, bnb_rows = 0;
};
VisionRankParams vision_rank_params(const Scenario& s) {
    VisionRankParams r;
    const double tp = s.infer.engine == Engine::VLLM ? static_cast<double>(s.parallel.tp) : 1.0;
    const bool bnb_load = s.infer.engine == Engine::Transformers && is_bitsandbytes(s.infer.weights);
    for (const Tensor& t : vision_tensors(s.model)) {
        if (bnb_load && vision_linear(t)) {
            r.bnb += static_cast<double>(t.params());
            r.bnb_rows += static_cast<double>(t.count * t.rows);
        } else {
            (t.kind == TensorKind::VisionTower ? r.tower : r.projector) += tensor_shard(t, tp, 1, 1);
        }
    }
    return r;
}

// A vision-language model's vision tower and projector (ModelSpec::vision) on a GPU of the first pipeline stage: the
// first stage runs the image encoder before the language model's first layer (transformers' and vLLM's
// *ForConditionalGeneration forward), in the model's dtype but for the linears a bitsandbytes load converts, which take
// the format's bits as the language model's do (LLM.int8: 8 bits and one scale per output row) [transformers-code]
// [vllm-code] [transformers-bnb-skip]; its rank's share by vision_rank_params. The caller adds it on stage 0 only.
template <class Q>
auto vision_weight_bytes(Q& q, const Scenario& s) {
    const VisionRankParams r = vision_rank_params(s);
    const auto dense = (q("P_vision_rank", r.tower) + q("P_projector_rank", r.projector)) * q("weight_bytes", model_dtype_bytes(s.infer));
    if (!(r.bnb > 0)) return dense;
    return dense + matrix_layout_bytes(q, "P_vision_linear", r.bnb, r.bnb_rows, weight_format(s.infer.weights).layout, s.infer);
}

// vLLM's rotary tables: get_rope builds one RotaryEmbedding per distinct configuration (kept in _ROPE_DICT, shared by
// every layer that asks for it), whose cos_sin_cache holds cos and sin of rotary_dim / 2 angles per row, cast to the
// model's dtype and registered as a buffer while the model loads, so "Model loading took" counts it
// (vllm/model_executor/layers/rotary_embedding.py get_rope, RotaryEmbedding._compute_cos_sin_cache) [vllm-code].
// rotary_dim: head_dim x partial_rotary_factor (MLA: qk_rope_head_dim). Rows by rope_scaling (RopeSpec): max_position
// (none, llama3, mrope); max_position x factor (LinearScalingRotaryEmbedding, DynamicNTKScalingRotaryEmbedding);
// original_max_position x factor (YaRNScalingRotaryEmbedding); original_max_position + max_position
// (Phi3LongRoPEScaledRotaryEmbedding: its short and long tables side by side); and Gemma 3's window layers, whose
// rope_local_base_freq with no scaling is a second configuration: one table more of max_position rows
// (vllm/model_executor/models/gemma3.py Gemma3Attention) [vllm-code]. 0 for a model without rotary positions.
bool has_rope_cache(const ModelSpec& m) { return m.architecture_known() && m.position == PositionKind::Rotary && m.heads > 0; }
template <class Q>
auto vllm_rope_rows(Q& q, const ModelSpec& m) {
    const RopeSpec& r = m.rope;
    const auto max_position = [&] { return q("max_position", static_cast<double>(m.max_position)); };
    const auto original = [&] { return q("original_max_position", static_cast<double>(r.original_max_position)); };
    using N = std::decay_t<decltype(q("", 0))>;
    N rows{};
    switch (r.scaling) {
        case RopeScaling::None: rows = rows + max_position(); break;
        case RopeScaling::Linear:
        case RopeScaling::Dynamic: rows = rows + ceil_of(max_position() * q("rope_factor", r.factor)); break;
        case RopeScaling::Yarn: rows = rows + ceil_of(original() * q("rope_factor", r.factor)); break;
        case RopeScaling::LongRope: rows = rows + original() + max_position(); break;
    }
    if (r.local_table) rows = rows + max_position();
    return rows;
}
template <class Q>
auto vllm_rope_cache_bytes(Q& q, const ModelSpec& m, const InferenceOptions& o) {
    const double rot = m.attention == AttentionKind::MLA ? static_cast<double>(m.mla.qk_rope_head_dim)
                                                         : std::floor(static_cast<double>(m.head_dim) * m.rope.partial);
    return q.let("rope_rows", vllm_rope_rows(q, m)) * q("rotary_dim", rot) * q("weight_bytes", model_dtype_bytes(o));
}
// vLLM's MXFP4 experts on this GPU as its MoE backend lays them out (vllm_moe.h): nullopt when the estimate has
// none (another engine or format, no routed experts here, or a backend not modelled: ROCm).
struct Mxfp4Experts {
    VllmMoeBackend backend;
    Mxfp4Layout layout;
    int64_t inter = 0, hidden = 0;  // I per expert-tp partition, h
    double routed = 0;              // the routed experts' matrix parameters on this GPU
    bool scales_twice = false;      // Triton on Hopper: the swizzled scales beside the loaded ones (vllm_moe.h)
};
std::optional<Mxfp4Experts> vllm_mxfp4_experts(const Scenario& s, const StageWeightParams& w) {
    const ModelSpec& m = s.model;
    const std::optional<VllmRelease> r = parse_vllm_version(s.infer.vllm_version);
    if (s.infer.engine != Engine::VLLM || s.infer.weights != WeightFormat::MXFP4 || !r || m.moe.num_experts == 0 ||
        m.moe.expert_ffn <= 0 || !(w.routed > 0))
        return std::nullopt;
    const VllmMoeBackend b = vllm_mxfp4_backend(s.infer.vllm_moe_backend, *r, s.gpu.name);
    if (b == VllmMoeBackend::Auto) return std::nullopt;
    return Mxfp4Experts{b, mxfp4_layout(b), m.moe.expert_ffn / expert_tp(s.parallel, ExpertSplit::EpOrTp), m.hidden, w.routed,
                        b == VllmMoeBackend::Triton && gpu_arch(s.gpu.name) == GpuArch::Hopper};
}
template <class Q>
auto vllm_mxfp4_layout_bytes(Q& q, const Scenario& s, const Mxfp4Experts& x) {
    return vllm_mxfp4_padding_bytes(q, x.routed, x.inter, x.hidden, x.layout, layout_bits(q, weight_format(WeightFormat::MXFP4).layout, s.infer));
}
template <class Q>
auto vllm_mxfp4_scale_copy_bytes(Q& q, const Mxfp4Experts& x) {
    return vllm_triton_scale_copy_bytes(q, x.routed, x.inter, vllm_round_up(x.inter, x.layout.intermediate_align), x.hidden);
}

// What vLLM holds from loading beside the language model's stage weights: the tower on stage 0, the rotary table,
// the MoE backend's padding of MXFP4 experts.
double vllm_load_extra_bytes(const Scenario& s, const StagePick& p) {
    Numbers n;
    const std::optional<Mxfp4Experts> x = vllm_mxfp4_experts(s, p.params);
    return (s.model.vision.active() && p.stage == 0 ? vision_weight_bytes(n, s) : 0.0) +
           (has_rope_cache(s.model) ? vllm_rope_cache_bytes(n, s.model, s.infer) : 0.0) + (x ? vllm_mxfp4_layout_bytes(n, s, *x) : 0.0) +
           (x && x->scales_twice ? vllm_mxfp4_scale_copy_bytes(n, *x) : 0.0);
}

void add_weights(const Scenario& s, Detail d, Estimate& e, const StagePick& p) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    const StageWeightParams& w = p.params;
    const bool gguf = is_gguf(o.weights);
    if (m.vision.active() && p.stage == 0)
        add(e, d, comp("weights.vision", "Weights: vision tower and projector", Category::Weights, kLoadOn,
                       vision_rank_params(s).bnb > 0
                           ? "the image encoder and projector of a vision-language model on the first stage; a bitsandbytes load "
                             "converts their nn.Linear weights too (replace_with_bnb_linear skips only the head) [transformers-bnb-skip]"
                           : "the image encoder and projector of a vision-language model, unquantized, on the first stage "
                             "(transformers / vLLM *ForConditionalGeneration); vLLM splits their parallel linear layers over tp "
                             "[transformers-code] [vllm-code]"),
            [&](auto& q) { return vision_weight_bytes(q, s); });
    if (o.engine == Engine::VLLM && has_rope_cache(m))
        add(e, d, comp("buffers.rope_cache", "Rotary cos/sin table (vLLM)", Category::Buffers, kLoadOn,
                       "vLLM get_rope: one cos_sin_cache [rows, rotary_dim] per distinct rotary configuration (rows by "
                       "rope_scaling; Gemma 3's window layers have one of their own) in the model's dtype, allocated at load "
                       "[vllm-code]"),
            [&](auto& q) { return vllm_rope_cache_bytes(q, m, o); });
    add(e, d, comp("weights.linear", "Weights: layer matrices", Category::Weights, kLoadOn, weight_format_source(o.weights)),
        [&](auto& q) { return linear_weight_bytes(q, w, m, o, s.parallel); });
    if (const std::optional<Mxfp4Experts> x = vllm_mxfp4_experts(s, w)) {
        add(e, d, comp("weights.moe_layout", vllm_moe_layout_label(x->backend),
                       Category::Weights, kLoadOn,
                       "vLLM Mxfp4MoEMethod.create_weights: each expert's intermediate and hidden sizes rounded up to the backend's "
                       "alignment, biases in the backend's dtype; the backend by GPU and release, or infer.vllm_moe_backend [vllm-mxfp4]"),
            [&](auto& q) { return vllm_mxfp4_layout_bytes(q, s, *x); });
        if (x->scales_twice)
            add(e, d, comp("weights.moe_scale_copy", "Weights: MXFP4 expert scales swizzled for vLLM's Triton kernel", Category::Weights,
                           kLoadOn,
                           "vLLM _swizzle_mxfp4 on Hopper: a copy of each expert's e8m0 scales in triton_kernels' HopperMXScaleLayout "
                           "(rows padded to 256, columns to 2); the loaded w13/w2_weight_scale stay registered "
                           "[vllm-mxfp4] [triton-kernels-layouts]"),
                [&](auto& q) { return vllm_mxfp4_scale_copy_bytes(q, *x); });
        else if (x->backend == VllmMoeBackend::Triton)
            cold([&] { e.warnings.push_back("vLLM's Triton MoE kernel off Hopper: its copy of the MXFP4 expert scales in the GPU's layout is not "
                                            "counted (counted on Hopper only)"); });
    } else if (o.engine == Engine::VLLM && o.weights == WeightFormat::MXFP4 && m.moe.num_experts > 0 && o.vllm_moe_backend == VllmMoeBackend::Auto &&
             gpu_arch(s.gpu.name) == GpuArch::AMD)
        cold([&] { e.warnings.push_back("vLLM on ROCm: the padding of the MXFP4 experts (to 128 or 256 by gfx architecture and release) is not "
                                        "counted; set infer.vllm_moe_backend to count a CUDA backend's"); });
    if (p.w.embedding > 0)
        add(e, d, comp("weights.embedding", "Weights: embedding", Category::Weights, kLoadOn,
                       gguf ? "llama.cpp: token_embd takes the base type (Q6_K when tied) [llama-cpp-code]"
                            : "embeddings are not quantized (transformers/vLLM quantize nn.Linear only) [transformers-code] [vllm-code]"),
            [&](auto& q) { return embedding_weight_bytes(q, w, m, o, s.parallel); });
    if (p.w.lm_head > 0)
        add(e, d, comp("weights.lm_head", "Weights: output head", Category::Weights, kLoadOn,
                       gguf ? "llama.cpp llama_tensor_get_type: output.weight -> Q6_K (Q8_0 for Q8_0) [llama-cpp-code]"
                       : o.bnb_quantize_head && is_bitsandbytes(o.weights)
                            ? "Lightning Fabric BitsandbytesPrecision swaps every nn.Linear, lm_head too [lightning-bnb-plugin]"
                            : "lm_head kept 16-bit (transformers get_keys_to_not_convert; vLLM ParallelLMHead) [transformers-code] [vllm-code]"),
            [&](auto& q) { return lm_head_weight_bytes(q, w, m, o, s.parallel); });
    if (p.w.other > 0)
        add(e, d, comp("weights.norms", norms_label(m), Category::Weights, kLoadOn,
                       "norms stay unquantized, replicated on every TP rank; llama.cpp keeps 1-D tensors in f32 (convert_hf_to_gguf) [llama-cpp-code]"),
            [&](auto& q) { return norm_weight_bytes(q, w, o); });
}

// torch.autocast over fp32 weights (infer.autocast) casts each matmul's fp32 weight to 16 bits; the
// embedding lookup and the norms are not autocast ops. cached_cast keeps the cast of a leaf that requires
// grad until the outermost autocast exits (Lightning Fabric wraps each forward call in one), so with
// Cached every layer matrix and the output layer are held in 16 bits besides their fp32 copies through
// each prefill and decode forward; a frozen weight's cast is not cached and lives for its op only (PerOp:
// the largest one at a time) [pytorch-autocast-code].
template <class Q>
auto autocast_cast_bytes(Q& q, const Scenario& s, const StagePick& p) {
    const ModelSpec& m = s.model;
    const EdgeShard& edge = p.params.edge;
    const bool last = p.stage == s.parallel.pp - 1;
    const double head = edge.lm_head > 0 ? edge.lm_head : m.tied_embeddings && last ? edge.word_embedding : 0.0;
    const auto bytes = q("cast_bytes", 2.0);
    if (s.infer.autocast == InferAutocast::Cached) return (q("P_linear", p.params.linear) + q("P_head", head)) * bytes;
    return max_of(bnb_largest_matrix(q, m) / q("tp", static_cast<double>(s.parallel.tp)), q("P_head", head)) * bytes;
}

void add_autocast_casts(const Scenario& s, Detail d, Estimate& e, const StagePick& p) {
    const bool cached = s.infer.autocast == InferAutocast::Cached;
    add(e, d, comp("weights.autocast_casts", cached ? "16-bit casts of the matmul weights (autocast cache)" : "16-bit cast of the largest matmul weight (autocast, per op)",
                   Category::Weights, kServing,
                   cached ? "PyTorch autocast cached_cast: 16-bit casts of fp32 leaf weights that require grad, kept until the forward's autocast exits [pytorch-autocast-code]"
                          : "PyTorch autocast cached_cast: a frozen (requires_grad=False) weight's cast is not cached, freed after its op [pytorch-autocast-code]"),
        [&](auto& q) { return autocast_cast_bytes(q, s, p); });
}

constexpr const char* kMlaDecompressedSource =
    "MLA with infer.mla_cache = decompressed: each head's K (nope + rope dims) and V in the cache, as the remote-code "
    "modeling_deepseek.py passes them to past_key_value.update [deepseek-v2-remote-code]";

// Whether the stage has attention layers, so a KV cache: none on a pure state-space model (Mamba), nor
// on a stage of a hybrid that holds only Mamba layers.
bool has_kv_layers(const ModelSpec& m, const StagePick& p) { return layer_pattern(m).attention_count(p.begin, p.end) > 0; }

// Every token of every sequence; when cap_window, sliding-window layers hold only the window (at
// least window_floor tokens).
void add_kv(const Scenario& s, Detail d, Estimate& e, const StagePick& p, const char* source, bool cap_window, int64_t window_floor = 0,
            unsigned phases = kServing, const char* floor_name = "s_prefill") {
    const InferenceOptions& o = s.infer;
    if (!has_kv_layers(s.model, p)) return;
    if (s.model.attention == AttentionKind::MLA && s.model.mla.decompressed_cache) source = kMlaDecompressedSource;
    add(e, d, comp("kv_cache", "KV cache", Category::KVCache, phases, source), [&](auto& q) {
        return q("b", static_cast<double>(o.batch)) *
               kv_sequence_bytes(q, s.model, o.kv_dtype, s.parallel.tp, p.begin, p.end, o.context, 1, cap_window, window_floor, floor_name);
    });
}

// Llama 3.2 Vision's cross-attention layers on stage p: K and V of every image's states per sequence.
void add_cross_kv(const Scenario& s, Detail d, Estimate& e, const StagePick& p) {
    const InferenceOptions& o = s.infer;
    const ModelSpec& m = s.model;
    const int64_t states = cross_states(s);
    if (states == 0 || layer_pattern(m).cross_count(p.begin, p.end) == 0) return;
    add(e, d, comp("kv_cache.cross", "Cross-attention KV cache (images)", Category::KVCache, kServing,
                   "MllamaTextCrossAttention: each cross-attention layer caches K and V of the images' states (images x tiles x "
                   "(patches + 1)), whatever the context [transformers-mllama]"),
        [&](auto& q) { return q("b", static_cast<double>(o.batch)) * cross_kv_sequence_bytes(q, m, o.kv_dtype, s.parallel.tp, p.begin, p.end, states); });
}

void warn_mamba_working_memory(Estimate& e, const SsmSpec& x) {
    cold([&] { e.warnings.push_back(x.kind == SsmKind::GatedDeltaNet
                                        ? std::string("the Gated DeltaNet layers' working memory in the forward (the chunked delta rule's intermediates) is not "
                                                      "modelled yet; only their recurrent state is counted")
                                        : std::string("the Mamba scans' own working memory in the forward (their fp32 chunk states) is not modelled yet; "
                                                      "the mixer's input, output and gate tensors and the recurrent state are counted")); });
}

// The recurrent state of the Mamba layers on stage p: one per sequence, the same at any context length.
void add_ssm_state(const Scenario& s, Detail d, Estimate& e, const StagePick& p, const char* source) {
    const ModelSpec& m = s.model;
    if (!m.ssm.active() || layer_pattern(m).ssm_count(p.begin, p.end) == 0) return;
    const SsmStateLayout l = ssm_state_layout(s.infer, s.model.ssm);
    const char* label = m.ssm.kind == SsmKind::GatedDeltaNet ? "Recurrent state (Gated DeltaNet conv + delta-rule state)"
                                                              : "Recurrent state (Mamba conv + SSM)";
    add(e, d, comp("ssm_state", label, Category::KVCache, kServing, source), [&](auto& q) {
        return q("b", static_cast<double>(s.infer.batch)) * ssm_sequence_bytes(q, m, p.begin, p.end, l, s.parallel.tp);
    });
}

// The state-space mixers' own working memory in transformers' prefill (core/inference/ssm_scan.h), on the path
// infer.ssm_kernels names. act.prefill_mlp holds the larger of one layer's MLP and mixer tensors (a Gated DeltaNet
// layer's: the MLP's), so this row is what the mixer with its scan needs beyond that:
// max(A_mixer + W_scan - A_layer, 0); a pure Mamba model's layer is its mixer, so W_scan.
void add_ssm_working_memory(const Scenario& s, Detail d, Estimate& e, const StagePick& p, int64_t q_tokens) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    const int64_t tp = s.parallel.tp;
    if (!m.ssm.active() || layer_pattern(m).ssm_count(p.begin, p.end) == 0) return;
    const bool torch = o.ssm_kernels == SsmKernels::Torch;
    const bool gdn = m.ssm.kind == SsmKind::GatedDeltaNet;
    if (gdn && !torch) {
        cold([&] { e.warnings.push_back("the Gated DeltaNet layers' working memory under flash-linear-attention's kernels (chunk_gated_delta_rule's "
                                        "intermediates) is not modelled yet; only their recurrent state is counted (infer.ssm_kernels torch "
                                        "counts transformers' torch path)"); });
        return;
    }
    const bool mamba1 = m.ssm.kind == SsmKind::Mamba1;
    const char* label = gdn      ? "Gated DeltaNet mixer and its chunked delta rule (torch path)"
                        : torch  ? (mamba1 ? "Mamba scan working memory (torch path, fp32 discretised A, B, B*x)"
                                           : "Mamba2 SSD working memory (torch path, fp32 chunk tensors)")
                                 : (mamba1 ? "Mamba scan working memory (mamba-ssm, fp32 chunk states)"
                                           : "Mamba2 SSD working memory (mamba-ssm, chunk states and CB)");
    const char* source = gdn ? "Qwen3_5GatedDeltaNet's 16-bit tensors and torch_chunk_gated_delta_rule's fp32 working set, beyond the "
                               "layer's MLP (max(A_mixer - A_mlp, 0)) [transformers-ssm-torch]"
                         : torch ? (mamba1 ? "MambaMixer.slow_forward: discrete_A, discrete_B, deltaB_u (b, d_inner, q, d_state) in fp32, "
                                             "live to the mixer's end [transformers-ssm-torch]"
                                           : "Mamba2Mixer.torch_forward: the chunked SSD's fp32 intermediates, at their peak G_intermediate "
                                             "(b, c, l, l, H, n) with the tensors live beside it [transformers-ssm-torch]")
                                 : (mamba1 ? "mamba-ssm selective_scan_fn: the fp32 chunk states x (b, d_inner, ceil(q / 2048), 2 d_state) "
                                             "that the returned last state views [mamba-ssm-code]"
                                           : "mamba-ssm mamba_chunk_scan_combined: dA_cumsum, dt, the chunk states and CB [mamba-ssm-code]");
    add(e, d, comp("act.ssm_scan", label, Category::Activations, kPrefill, source), [&](auto& q) {
        using N = std::decay_t<decltype(q("", 0.0))>;
        const auto tokens = q("b", static_cast<double>(o.batch)) * q("q", static_cast<double>(q_tokens));
        if (gdn) {
            const N mixer = q.let("A_mixer", gdn_torch_mixer_bytes(q, m, o.batch, q_tokens) + gdn_torch_rule_bytes(q, m, o.batch, q_tokens));
            return max_of(mixer - q.let("A_mlp", mlp_live_bytes(q, m, tokens, tp, kActBytes)), 0);
        }
        const N scan = torch ? (mamba1 ? mamba1_torch_scan_bytes(q, m, o.batch, q_tokens, tp) : mamba2_torch_scan_bytes(q, m, o.batch, q_tokens))
                             : (mamba1 ? mamba1_fused_scan_bytes(q, m, o.batch, q_tokens, tp) : mamba2_fused_scan_bytes(q, m, o.batch, q_tokens));
        if (!m.has_mlp()) return scan;
        const N mixer = q.let("A_mixer", mamba_mixer_live_bytes(q, m, tokens, tp, kActBytes));
        const N w = q.let("W_scan", scan);
        return max_of(mixer + w - q.let("A_layer", layer_live_bytes(q, m, tokens, tp, kActBytes)), 0);
    });
}

// Tokens a transformers DynamicSlidingWindowLayer holds after a prefill forward: the storage of
// torch.cat([cached window - 1, chunk]) that its window slice keeps alive (the whole prompt when
// the prompt is prefilled at once) [transformers-code].
int64_t hf_sliding_prefill_tokens(const InferenceOptions& o, const ModelSpec& m) {
    const int64_t prompt = prompt_tokens(o);
    if (o.prefill_chunk <= 0 || o.prefill_chunk >= prompt) return prompt;
    return std::min(prompt, o.prefill_chunk + std::max<int64_t>(m.sliding_window - 1, 0));
}

// Tokens of the longest layer cache on the stage (the one DynamicLayer.update grows last).
int64_t longest_layer_tokens(const Scenario& s, const StagePick& p, int64_t window_floor) {
    const ModelSpec& m = s.model;
    const int64_t ctx = s.infer.context;
    if (!s.infer.sliding_window_cache || m.sliding_window <= 0) return ctx;
    for (int64_t i = p.begin; i < p.end; ++i)
        if (!layer_is_sliding(m, i)) return ctx;
    return std::min(ctx, std::max(m.sliding_window, window_floor));
}

// KV capacity of an engine that allocates on demand: what the memory left by everything else holds.
// A state-space model's sequences also hold their Mamba layers' recurrent state, and Llama 3.2 Vision's their images'
// cross-attention KV (state_bytes each, state_per_sequence), so a sequence of infer.context tokens takes
// context * bytes_per_token + state_bytes (an encoder-decoder's: its generated tokens, `tokens`, in the self-attention cache).
void fill_free_capacity(const Scenario& s, Estimate& e, double bytes_per_token, double others_at_peak, double state_bytes = 0, int64_t tokens = 0) {
    const int64_t per_sequence = tokens > 0 ? tokens : s.infer.context;
    e.kv.bytes_per_token = bytes_per_token;
    e.kv.block_size = 1;
    const double free_bytes = std::max(0.0, e.gpu_capacity_bytes - others_at_peak);
    e.kv.pool_bytes = free_bytes;
    e.kv.tokens = bytes_per_token > 0 ? static_cast<int64_t>(std::floor(free_bytes / bytes_per_token)) : 0;
    e.kv.blocks = e.kv.tokens;
    if (state_bytes > 0)
        e.kv.sequences = static_cast<int64_t>(std::floor(free_bytes / (static_cast<double>(per_sequence) * bytes_per_token + state_bytes)));
    else
        e.kv.sequences = per_sequence > 0 ? e.kv.tokens / per_sequence : 0;
}


// GPU bytes of everything but the KV cache, in the phase where they peak.
double sum_non_kv(const Estimate& e) {
    return phase_totals(e.components, kAllCategories & ~category_bit(Category::KVCache)).peak_bytes();
}

// A forward under no_grad: the live tensors at one layer's MLP over batch * q_tokens tokens, and with
// eager attention the scores of q_tokens queries against kv_tokens keys.
void add_forward_activations(const Scenario& s, Detail d, Estimate& e, const char* mlp_label, int64_t q_tokens, int64_t kv_tokens) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    const int64_t tp = s.parallel.tp;
    // A state-space model: the Mamba mixer's live tensors, or the larger of them and the MLP's (Jamba).
    const char* label = !has_mamba_mixer(m) ? mlp_label
                        : m.has_mlp()   ? "Prefill activations (MLP or Mamba mixer, the larger)"
                                        : "Prefill activations (Mamba mixer)";
    add(e, d, comp("act.prefill_mlp", label, Category::Activations, kPrefill,
                   has_mamba_mixer(m) ? "live tensors at one layer's MLP or Mamba mixer (no activations kept for backward) [transformers-code]"
                                  : "live tensors at one layer's MLP (no activations kept for backward)"),
        [&](auto& q) {
            return layer_live_bytes(q, m, q("b", static_cast<double>(o.batch)) * q("q", static_cast<double>(q_tokens)), tp, kActBytes);
        });
    const bool rotary = m.position == PositionKind::Rotary && m.heads > 0;
    add(e, d, comp("act.prefill_inputs", rotary ? "Embedding output and rotary cos/sin (held through the layers)" : "Embedding output (held through the layers)",
                   Category::Activations, kPrefill,
                   "the model's forward keeps inputs_embeds while its layer loop rebinds hidden_states, and rotary_emb's cos/sin "
                   "[b, q, rotary dims] serve every layer [transformers-code]"),
        [&](auto& q) {
            return hf_forward_inputs_bytes(q, m, q("b", static_cast<double>(o.batch)) * q("q", static_cast<double>(q_tokens)), kActBytes);
        });
    // A pure state-space model (Mamba) has no attention layer, so no scores and no 4-D mask.
    const bool attention = m.heads > 0;
    if (!o.flash_attention && attention)
        add(e, d, comp("act.attention_scores", "Attention scores (eager)", Category::Activations, kPrefill,
                       "eager_attention_forward: masked scores, fp32 softmax and its 16-bit cast per head, plus the 4-D mask [transformers-code]"),
            [&](auto& q) { return eager_scores_bytes(q, m, o.batch, q_tokens, kv_tokens, tp); });
}

// The image encoder in transformers' prefill (stage 0): the processor stacks every image of the batch (LLaVA-NeXT: every
// image's base view and tiles) into one pixel_values, and the tower runs them in one forward before the language model's layers [transformers-code];
// its live tensors at one layer's MLP over all b x images x patches, with eager attention each image's scores
// (CLIP/SigLIP batch the images; Qwen2.5-VL's eager path attends image by image). Its working tensors are freed
// before the language model's layers run, so the forward peaks at the larger of the two: the component is what
// the encoder needs beyond the prefill's activations, max(A_vision - A_prefill, 0).
void add_vision_encoder(const Scenario& s, Detail d, Estimate& e) {
    const InferenceOptions& o = s.infer;
    const VisionSpec& v = s.model.vision;
    const ImageGrid g = image_grid(v, o.image_width, o.image_height);
    // The prefill's activation rows added before this one (act.prefill_*, the eager scores): what the encoder is compared with.
    double prefill = 0;
    for (const Component& c : e.components)
        if (std::string_view(c.id).starts_with("act.prefill") || std::string_view(c.id) == "act.attention_scores") prefill += c.bytes;
    add(e, d, comp("act.vision_encoder", "Vision encoder (beyond the prefill's activations)", Category::Activations, kPrefill,
                   "the image encoder runs before the language model's layers: live tensors at one tower layer's MLP over every "
                   "patch, eager attention scores per image [transformers-code]; peak max(A_vision, A_prefill), A_prefill the prefill rows"),
        [&](auto& q) {
            using N = std::decay_t<decltype(q("", 0.0))>;
            const N patches = q("b", static_cast<double>(o.batch)) * q("images", static_cast<double>(o.images)) *
                              q("patches", static_cast<double>(g.patches));
            const N vision = vision_forward_bytes(q, v, g, patches, o.batch * o.images, o.flash_attention, kActBytes);
            return max_of(q.let("A_vision", vision) - q("A_prefill", prefill), N(0));
        });
}

// The largest tensor a transformers forward allocates and frees, for the allocator's split holes
// (allocator_reserve.h) [transformers-code]: one MLP intermediate of the forward's tokens (a gate or up
// projection's output; a routed expert's over every token, as the per-expert loop runs it), with eager
// attention one layer's fp32 softmax, and the kept positions' fp32 logits when more than the last.
TransientTensor hf_largest_transient(const Scenario& s, int64_t q_tokens, int64_t kv_tokens, int64_t logit_positions) {
    const ModelSpec& m = s.model;
    const double b = static_cast<double>(s.infer.batch), tp = static_cast<double>(s.parallel.tp);
    const double rows = b * static_cast<double>(q_tokens);
    const double ffn = static_cast<double>(std::max(m.ffn, m.moe.expert_ffn));
    return largest_of({
        {"T_mlp", rows, ffn / tp, kActBytes},
        {"T_softmax", s.infer.flash_attention ? 0 : rows * static_cast<double>(m.heads) / tp,
         static_cast<double>(kv_tokens), 4},
        {"T_logits", logit_positions > 1 ? b * static_cast<double>(logit_positions) : 0,
         static_cast<double>(m.vocab), 4},
    });
}

// An encoder's forward (BertModel, as embedding and reranker servers run it): batch sequences of
// infer.context tokens through the layers under no_grad, no cache and no logits; what it returns is
// last_hidden_state [b, s, h] (and the pooled first token) [transformers-code]. An embedder (model.embedder:
// Qwen3Model) runs the same forward with causal attention, as sentence-transformers' encode calls it (the
// base model with the config's use_cache, true in Qwen3-Embedding's config) [sentence-transformers-code]: the
// forward builds a DynamicCache and returns it in past_key_values, so every layer's K/V of the batch is live when
// the last layer runs [transformers-code].
void encoder_forward(const Scenario& s, Detail d, Estimate& e, const StagePick& p) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    if (m.embedder)
        add(e, d, comp("kv_cache", "KV cache the forward returns (use_cache)", Category::KVCache, kPrefill,
                       "the base model's forward with config.use_cache builds a DynamicCache of every layer's K/V and returns it "
                       "(past_key_values) [transformers-code]; sentence-transformers calls it without use_cache=False [sentence-transformers-code]"),
            [&](auto& q) {
                return q("b", static_cast<double>(o.batch)) * q("s", static_cast<double>(o.context)) *
                       kv_bytes_per_token(q, m, o.kv_dtype, s.parallel.tp, p.begin, p.end);
            });
    add_forward_activations(s, d, e, "Forward activations (MLP)", o.context, o.context);
    add(e, d, comp("act.hidden_out", "Output hidden states", Category::Activations, kPrefill,
                   "the base model (BertModel, Qwen3Model) returns last_hidden_state [b, s, h] in the compute dtype [transformers-code]"),
        [&](auto& q) {
            return q("b", static_cast<double>(o.batch)) * q("s", static_cast<double>(o.context)) * q("h", static_cast<double>(m.hidden)) *
                   q("act_bytes", kActBytes);
        });
    add_fragmentation(s, d, e, hf_largest_transient(s, o.context, o.context, 0));
}

// transformers generate() for an encoder-decoder (T5ForConditionalGeneration, BartForConditionalGeneration) [transformers-t5]
// [transformers-bart]: the encoder runs once over the b x s_src source (infer.context), a forward like a decoder's prefill
// (add_forward_activations), and its last hidden state stays for every step (encoder_outputs); the decoder's
// EncoderDecoderCache holds each decoder layer's self-attention K/V of the generated tokens (seq2seq_target), grown by
// torch.cat, and its cross-attention K/V of the source, projected once at the first step; each step's logits are the last
// position's [transformers-code].
void seq2seq_generate(const Scenario& s, Detail d, Estimate& e, const StagePick& p) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    const int64_t tp = s.parallel.tp, source = o.context, target = seq2seq_target(o);
    add(e, d, comp("kv_cache", "KV cache (decoder self-attention)", Category::KVCache, kServing,
                   "vLLM paper Sec 3 (2 * L * kv_heads * head_dim * bytes per token) [vllm-paper §3] over the decoder's layers and its "
                   "generated tokens; EncoderDecoderCache's self_attention_cache [transformers-code] [transformers-t5]"),
        [&](auto& q) { return q("b", static_cast<double>(o.batch)) * kv_sequence_bytes(q, m, o.kv_dtype, tp, p.begin, p.end, target, 1, false); });
    add(e, d, comp("kv_cache.cross", "Cross-attention KV cache (the source)", Category::KVCache, kServing,
                   "EncoderDecoderCache's cross_attention_cache: each decoder layer's K and V of the encoder output, projected at the "
                   "first step [transformers-code] [transformers-t5]"),
        [&](auto& q) { return q("b", static_cast<double>(o.batch)) * cross_kv_sequence_bytes(q, m, o.kv_dtype, tp, p.begin, p.end, source, "s_src"); });
    add(e, d, comp("act.encoder_output", "Encoder output (kept for every step)", Category::Activations, kServing,
                   "generate() runs the encoder once and passes encoder_outputs.last_hidden_state [b, s_src, h] to every decoder step "
                   "[transformers-code]"),
        [&](auto& q) {
            return q("b", static_cast<double>(o.batch)) * q("s_src", static_cast<double>(source)) * q("h", static_cast<double>(m.hidden)) *
                   q("act_bytes", kActBytes);
        });
    add(e, d, comp("buffers.kv_growth", "KV cache growth copy (decode)", Category::Buffers, phase_bit(Phase::Step),
                   "DynamicLayer.update: torch.cat builds a layer's new keys while the old ones are alive [transformers-code]"),
        [&](auto& q) { return hf_cache_growth_bytes(q, m, o.kv_dtype, tp, o.batch, target); });
    add_forward_activations(s, d, e, "Encoder forward activations (MLP)", source, source);
    add(e, d, comp("logits", "Logits (last position)", Category::Logits, kServing,
                   "transformers generate: each decoder step's last-position logits in 16 bit + fp32 copy [transformers-code]"),
        [&](auto& q) { return hf_logits_bytes(q, m, o.batch); });
    add_fragmentation(s, d, e, hf_largest_transient(s, source, source, 1));
    fill_free_capacity(s, e, kv_bytes_per_token(m, o.kv_dtype, tp, p.begin, p.end), sum_non_kv(e), state_per_sequence(s, p), target);
}

// The holes the KV cache's growth leaves in the caching allocator's segments while generate() decodes:
// generate() replayed through the allocator model (inference/generate_replay.h), with the GPU's memory
// less the weights and the CUDA context as its capacity. The holes are the replay's reserved bytes above
// what the decode step allocates and the reserve it already has (overhead.fragmentation); a request that
// does not fit in the replay adds its bytes, so the estimate says what PyTorch says: out of memory.
void add_decode_holes(const Scenario& s, Detail d, Estimate& e, const StagePick& p) {
    const InferenceOptions& o = s.infer;
    const int64_t prompt = prompt_tokens(o);
    if (s.overheads.expandable_segments || prompt >= o.context) return;
    if (const char* why = replay_generate_why_not(s); *why != '\0') {
        cold([&] { e.warnings.push_back(std::string("transformers generate(): the caching allocator's holes from the KV cache's growth during decode "
                                                    "are not modelled here (") + why +
                                        "); they can reach several times the cache: set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                                        "(overheads.expandable_segments)"); });
        return;
    }
    const double beside = phase_totals(e.components).gpu[static_cast<int>(Phase::Load)];
    const GenerateReplay r = replay_generate(s, p.end - p.begin, e.gpu_usable_bytes - beside);
    if (r.truncated)
        cold([&] { e.warnings.push_back("transformers generate(): the caching allocator is replayed for the first " + std::to_string(r.tokens) + " of " +
                                        std::to_string(o.context - prompt) +
                                        " new tokens only; the holes grow further: set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                                        "(overheads.expandable_segments)"); });
    // What the decode step allocates beside the weights (the KV cache, its growth copy, the logits) and the
    // reserve it already has; the replay's reserved memory beyond both is the holes, so the step's total
    // beside the weights and the context is the larger of the two.
    const int step = static_cast<int>(Phase::Step);
    const double allocated = phase_totals(e.components, kAllCategories & ~category_bit(Category::Weights) & ~category_bit(Category::Overhead)).gpu[step];
    double reserve = 0;
    for (const Component& c : e.components)
        if (std::string_view(c.id) == "overhead.fragmentation" && (c.phases & phase_bit(Phase::Step))) reserve = c.bytes;
    const double failed = r.out_of_memory ? r.failed_request : 0;
    if (r.peak_reserved + failed <= allocated + reserve) return;
    if (r.capacity_reached && !r.out_of_memory)
        cold([&] { e.warnings.push_back("transformers generate(): PyTorch's caching allocator keeps the decode's freed blocks cached until they fill the GPU "
                                        "(the replay reached the GPU's free memory and released its empty segments), so the estimate takes about the "
                                        "whole GPU and its headroom does not say how much more fits: set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
                                        "(overheads.expandable_segments) for a headroom that does"); });
    add(e, d, comp("overhead.fragmentation.decode", "Allocator holes from the KV cache's growth (decode)", Category::Overhead, phase_bit(Phase::Step),
                   "generate() replayed through PyTorch's caching allocator: DynamicLayer.update's torch.cat per step [transformers-code], "
                   "best-fit blocks split and merged in segments [pytorch-cuda-alloc]; H100 runs [vramlens-h100-runs]"),
        [&](auto& q) {
            auto reserved = q("R_replay", r.peak_reserved);
            if (r.out_of_memory) reserved += q("failed_request", failed);
            return reserved - q("allocated_decode", allocated) - q("reserve_decode", reserve);
        });
}

// A checkpoint that stores a tied head as a tensor of its own (infer.untied_head_on_load): transformers 4.x
// _load_pretrained_model loads every key of the model's state_dict() (a tied lm_head.weight is one) onto its
// device, which replaces the tied parameter by a second tensor, and from_pretrained ties the weights again,
// freeing it, only after the last shard [transformers-code]; AutoAWQ <= 0.2.6 save_quantized writes every
// state_dict() entry, cloned, so its tied checkpoints carry both [autoawq-code]. On the stage that holds the
// output (one stage: the first holds the embedding), the head's elements in the checkpoint's 16 bits, at load only.
void add_head_load_copy(Detail d, Estimate& e, const StagePick& p) {
    add(e, d, comp("weights.head_load_copy", "Tied output head loaded as a second tensor (until tie_weights)", Category::Weights, phase_bit(Phase::Load),
                   "transformers from_pretrained loads a checkpoint's lm_head.weight beside the tied embedding and ties them after the "
                   "last shard [transformers-code]; AutoAWQ <= 0.2.6 save_quantized stores the tied head [autoawq-code]"),
        [&](auto& q) { return q("P_head", p.params.edge.word_embedding) * q("checkpoint_bytes", 2.0); });
}

// The components of transformers generate on the GPU of pipeline stage p.
void transformers_stage(const Scenario& s, Detail d, Estimate& e, const StagePick& p) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    const int64_t tp = s.parallel.tp;
    const int64_t floor = m.architecture_known() ? hf_sliding_prefill_tokens(o, m) : 0;
    add_weights(s, d, e, p);
    // The model families and options the page's first view does not run are functions of their own (cold.h).
    if (o.untied_head_on_load && m.tied_embeddings) cold([&] {
        if (s.parallel.pp == 1) add_head_load_copy(d, e, p);
        else e.warnings.push_back("infer.untied_head_on_load: the tied head loaded a second time before tie_weights() is not counted with pipeline stages (parallel.pp > 1)");
    });
    if (o.autocast != InferAutocast::Off && m.architecture_known()) cold([&] { add_autocast_casts(s, d, e, p); });
    add(e, d, comp("cuda_context", "CUDA context", Category::Overhead, kLoadOn, cuda_context_source(s)),
        [&](auto& q) { return q("cuda_context_bytes", cuda_context_bytes(s)); });
    add_cublas_workspace(s, d, e, kServing);  // from prefill's first matmul on
    if (!m.architecture_known()) {
        cold([&] { e.warnings.push_back("model known only by parameter count: KV cache and activations need the architecture"); });
        return;
    }
    if (weight_format(o.weights).prefill_dequant) cold([&] {
        const bool head = hf_logit_positions(o) > 1;  // one position takes gemv_4bit, no dequantized copy [bitsandbytes-code]
        add(e, d, comp("weights.dequant", "4-bit dequantized weight (prefill)", Category::Buffers, kPrefill,
                       o.bnb_fp16_quant_state ? "bitsandbytes matmul_4bit dequantizes the weight for prefill, to fp16 (the quant state's "
                                                "dtype), then casts it to the compute dtype [bitsandbytes-041-code]"
                                              : "bitsandbytes matmul_4bit dequantizes the weight for prefill [bitsandbytes-code]"),
            [&](auto& q) { return bnb_dequant_bytes(q, m, tp, o, head); });
    });
    if (o.bnb_requantize_on_load && is_bitsandbytes(o.weights)) cold([&] {
        add(e, d, comp("weights.requantize", "fp16 copy and new quantized tensors of the loading weight", Category::Buffers,
                       phase_bit(Phase::Load),
                       "Lightning Fabric BitsandbytesPrecision _quantize_on_load_hook (Lit-GPT InferenceLinear8bitLt): each loaded "
                       "weight quantized again beside the quantized model [lightning-bnb-plugin] [bitsandbytes-041-code]"),
            [&](auto& q) { return bnb_requantize_bytes(q, m, tp, o); });
    });
    if (m.encoder || m.embedder) {
        cold([&] { encoder_forward(s, d, e, p); });
        return;
    }
    if (m.seq2seq.active()) {
        cold([&] { seq2seq_generate(s, d, e, p); });
        return;
    }
    const bool sliding = m.sliding_window > 0;
    const int64_t prompt = prompt_tokens(o);
    add_kv(s, d, e, p,
           !sliding ? "vLLM paper Sec 3 (2 * L * kv_heads * head_dim * bytes per token) [vllm-paper §3]; DynamicCache holds every token [transformers-code]"
           : o.sliding_window_cache
               ? "DynamicCache(config) (transformers >= 4.56): sliding layers keep the window, and the prefill's whole K/V until the first decode step (DynamicSlidingWindowLayer) [transformers-code]"
               : "DynamicCache() without config (transformers < 4.56, dynamic_full): every layer keeps every token, sliding window or not [transformers-code]",
           o.sliding_window_cache, floor, prompt < o.context ? phase_bit(Phase::Step) : kServing);
    if (cross_states(s) > 0) cold([&] { add_cross_kv(s, d, e, p); });
    if (m.ssm.active()) cold([&] {
        add_ssm_state(s, d, e, p,
                      m.ssm.kind == SsmKind::GatedDeltaNet
                          ? "transformers Qwen3NextDynamicCache: conv_states [b, 2 key_dim + value_dim, d_conv] in the model's dtype and "
                            "recurrent_states [b, value heads, head_k_dim, head_v_dim] in fp32 per linear-attention layer [transformers-code]; "
                            "Gated DeltaNet [yang2024-gated-deltanet]"
                          : "transformers MambaCache / Mamba2Cache / HybridMambaAttentionDynamicCache: conv_states [b, channels, d_conv] and "
                            "ssm_states [b, d_inner, d_state] per Mamba layer in the model's dtype [transformers-code]; Mamba [gu2023-mamba]");
    });
    // A prompt shorter than the context: the prefill's cache holds the prompt only (the cache grows
    // token by token in decode), so the prefill's peak adds its activations to a smaller cache.
    const bool kv_layers = has_kv_layers(m, p);
    if (prompt < o.context && kv_layers)
        add(e, d, comp("prefill.kv_cache", "KV cache at prefill (prompt only)", Category::KVCache, kPrefill,
                       "DynamicCache holds the prompt's tokens when the prefill forward peaks [transformers-code]"),
            [&](auto& q) {
                return q("b", static_cast<double>(o.batch)) *
                       kv_sequence_bytes(q, m, o.kv_dtype, tp, p.begin, p.end, prompt, 1, o.sliding_window_cache, floor);
            });
    const int64_t grown = longest_layer_tokens(s, p, floor);
    // repeat_kv runs after the cache's torch.cat has dropped the old keys, so a decode step holds the larger of the two.
    const bool repeats = (o.sdpa_repeats_kv || !o.flash_attention) && m.attention != AttentionKind::MLA && m.kv_heads < m.heads;
    if (kv_layers && !repeats)
        add(e, d, comp("buffers.kv_growth", "KV cache growth copy (decode)", Category::Buffers, phase_bit(Phase::Step),
                   "DynamicLayer.update: torch.cat builds a layer's new keys while the old ones are alive [transformers-code]"),
        [&](auto& q) { return hf_cache_growth_bytes(q, m, o.kv_dtype, tp, o.batch, grown); });
    if (kv_layers && repeats) cold([&] {
        add(e, d, comp("buffers.kv_growth", "KV cache growth copy or repeat_kv copies (decode), the larger", Category::Buffers, phase_bit(Phase::Step),
                       "DynamicLayer.update: torch.cat builds a layer's new keys while the old ones are alive [transformers-code]; then "
                       "attention copies the layer's K and V to every query head (repeat_kv) [transformers-pr39412]"),
            [&](auto& q) {
                return max_of(q.let("growth", hf_cache_growth_bytes(q, m, o.kv_dtype, tp, o.batch, grown)),
                              q.let("repeat_kv", hf_repeat_kv_bytes(q, m, o.kv_dtype, tp, o.batch, grown)));
            });
    });
    const int64_t q_tokens = prefill_tokens(o);
    add_forward_activations(s, d, e, "Prefill activations (MLP)", q_tokens, prompt);
    if (m.ssm.active()) cold([&] { add_ssm_working_memory(s, d, e, p, q_tokens); });
    if (m.vision.active() && o.images > 0 && p.stage == 0) cold([&] { add_vision_encoder(s, d, e); });
    const int64_t positions = hf_logit_positions(o);
    add(e, d, comp("logits", positions == 1 ? "Logits (last position)" : "Logits (prefill positions)", Category::Logits,
                   positions == 1 ? kServing : kPrefill,
                   positions == 1 ? "transformers generate: logits_to_keep = 1, last position in 16 bit + fp32 copy [transformers-code]"
                                  : "transformers forward: logits of every kept prompt position, upcast to fp32 (logits_to_keep) [transformers-code]"),
        [&](auto& q) { return hf_logits_bytes(q, m, o.batch, positions); });
    if (positions != 1)
        add(e, d, comp("logits.decode", "Logits (decode step)", Category::Logits, phase_bit(Phase::Step),
                       "transformers generate: each decode step's last-position logits + fp32 copy [transformers-code]"),
            [&](auto& q) { return hf_logits_bytes(q, m, o.batch); });
    add_fragmentation(s, d, e, hf_largest_transient(s, q_tokens, prompt, positions));  // PyTorch's caching allocator, as training
    add_decode_holes(s, d, e, p);
    fill_free_capacity(s, e, kv_bytes_per_token(m, o.kv_dtype, tp, p.begin, p.end), sum_non_kv(e), state_per_sequence(s, p));
}

// The stage shown is the one whose GPU peaks highest: prefill and decode hold different caches
// (prompt vs context, sliding layers), so the stage with the most weights + decode cache need not be
// the one with the highest prefill peak.
void estimate_transformers(const Scenario& s, Detail d, Estimate& e) {
    int64_t best = 0;
    if (s.parallel.pp > 1) {
        double best_peak = -1;
        for (int64_t st = 0; st < s.parallel.pp; ++st) {
            Estimate t;
            t.gpu_capacity_bytes = e.gpu_capacity_bytes;
            t.params = e.params;
            transformers_stage(s, Detail::NumbersOnly, t, stage_at(s, e.params, st));
            const double peak = phase_totals(t.components).peak_bytes();
            if (peak > best_peak) { best_peak = peak; best = st; }
        }
    }
    transformers_stage(s, d, e, stage_at(s, e.params, best));
}

// A model imported from a GGUF file: llama.cpp loads each tensor as the file stores it, so every
// class's bytes are the file's (weight_formats.h gguf_bytes_describe) while infer.weights is the file's type.
void llamacpp_file_weights(const Scenario& s, Detail d, Estimate& e, const StagePick& p) {
    const ModelSpec& m = s.model;
    const GgufTensorBytes& g = m.gguf_bytes;
    add(e, d, comp("weights.linear", "Weights: layer tensors (GGUF file)", Category::Weights, kLoadOn,
                   "the GGUF file's tensor table: the bytes of blk.<i>.* of this GPU's layers, as stored [gguf-spec]"),
        [&](auto& q) { return gguf_blocks_bytes(q, g, p.begin, p.end); });
    if (p.w.embedding > 0) {
        Component c = comp("weights.embedding", "Weights: token embedding (host, GGUF file)", Category::Weights, kLoadOn,
                           "the GGUF file's tensor table: token_embd.weight [gguf-spec], kept on the CPU (load_tensors) [llama-cpp-code]");
        c.host = true;
        add(e, d, std::move(c), [&](auto& q) { return gguf_token_embd_bytes(q, g); });
    }
    if (p.w.lm_head > 0)
        add(e, d, comp("weights.lm_head", g.output > 0 ? "Weights: output (GGUF file)" : "Weights: output (copy of the tied token_embd, GGUF file)",
                       Category::Weights, kLoadOn,
                       g.output > 0 ? "the GGUF file's tensor table: output.weight [gguf-spec]"
                                    : "the GGUF file's tensor table: token_embd.weight [gguf-spec], loaded again as the output of a tied model "
                                      "(TENSOR_DUPLICATED) [llama-cpp-code]"),
            [&](auto& q) { return gguf_output_bytes(q, m); });
    if (p.w.other > 0)
        add(e, d, comp("weights.norms", "Weights: other tensors (GGUF file)", Category::Weights, kLoadOn,
                       "the GGUF file's tensor table: the tensors outside the blocks other than token_embd and output (output_norm, ...) [gguf-spec]"),
            [&](auto& q) { return gguf_other_bytes(q, g); });
}

// llama.cpp keeps the input layer on the CPU (llama_model::load_tensors: token_embd is looked up
// by get_rows on the host and never offloaded), so the token embedding is host memory; the output
// layer goes to the GPU with the last layer, and a tied model loads a copy of token_embd there as
// its output (TENSOR_DUPLICATED) [llama-cpp-code].
void llamacpp_weights(const Scenario& s, Detail d, Estimate& e, const StagePick& p) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    const StageWeightParams& w = p.params;
    if (gguf_bytes_describe(m, o.weights)) {
        llamacpp_file_weights(s, d, e, p);
        return;
    }
    add(e, d, comp("weights.linear", "Weights: layer matrices", Category::Weights, kLoadOn, weight_format_source(o.weights)),
        [&](auto& q) { return linear_weight_bytes(q, w, m, o, s.parallel); });
    if (p.w.embedding > 0) {
        Component c = comp("weights.embedding", "Weights: token embedding (host)", Category::Weights, kLoadOn,
                           "llama.cpp: the input layer stays on the CPU (load_tensors); token_embd takes the base type (Q6_K when tied) [llama-cpp-code]");
        c.host = true;
        add(e, d, std::move(c), [&](auto& q) { return embedding_weight_bytes(q, w, m, o, s.parallel); });
        if (m.tied_embeddings && !(p.w.lm_head > 0) && p.stage == s.parallel.pp - 1)
            add(e, d, comp("weights.lm_head", "Weights: output (copy of the tied embedding)", Category::Weights, kLoadOn,
                           "llama.cpp: a tied model loads token_embd again as output.weight on the output layer's GPU (TENSOR_DUPLICATED) [llama-cpp-code]"),
                [&](auto& q) { return embedding_weight_bytes(q, w, m, o, s.parallel); });
    }
    if (p.w.lm_head > 0)
        add(e, d, comp("weights.lm_head", "Weights: output head", Category::Weights, kLoadOn,
                       "llama.cpp llama_tensor_get_type: output.weight -> Q6_K (Q8_0 for Q8_0) [llama-cpp-code]"),
            [&](auto& q) { return lm_head_weight_bytes(q, w, m, o, s.parallel); });
    if (p.w.other > 0)
        add(e, d, comp("weights.norms", norms_label(m), Category::Weights, kLoadOn,
                       "norms stay unquantized; llama.cpp keeps 1-D tensors in f32 (convert_hf_to_gguf) [llama-cpp-code]"),
            [&](auto& q) { return norm_weight_bytes(q, w, o); });
}

void estimate_llamacpp(const Scenario& s, Detail d, Estimate& e) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    // llama.cpp shrinks the window layers' cache only for the architectures it runs with a sliding window.
    const bool swa = o.sliding_window_cache && llamacpp_uses_swa(m);
    const StagePick p = pick_stage(s, e.params, 1, swa, true);
    llamacpp_weights(s, d, e, p);
    add(e, d, comp("cuda_context", "CUDA context", Category::Overhead, kLoadOn, cuda_context_source(s)),
        [&](auto& q) { return q("cuda_context_bytes", cuda_context_bytes(s)); });
    if (!m.architecture_known()) {
        cold([&] { e.warnings.push_back("model known only by parameter count: KV cache and compute buffer need the architecture"); });
        return;
    }
    // llama.cpp allocates n_ctx cells up front, shared by the parallel sequences (-c = context * -np).
    const int64_t n_ctx = o.context * o.batch;
    const int64_t n_ub = std::min(o.ubatch, n_ctx);
    add_kv(s, d, e, p,
           swa ? "llama.cpp llama_kv_cache_iswa: n_ctx cells on the full layers, GGML_PAD(min(n_ctx, n_swa + n_ubatch), 256) per sequence on the window layers [llama-cpp-code] [llama-cpp-swa]"
           : m.sliding_window > 0 ? "llama.cpp llama_kv_cache: n_ctx cells on every layer (this architecture runs without its sliding window in llama.cpp, or --swa-full) [llama-cpp-code] [llama-cpp-swa]"
                                  : "llama.cpp llama_kv_cache: n_ctx cells * n_layer * (n_embd_k_gqa + n_embd_v_gqa) * type size [llama-cpp-code]",
           swa, swa ? llamacpp_swa_cells(m.sliding_window, n_ub) : 0, kServing, "swa_cells");
    add_ssm_state(s, d, e, p,
                  "llama.cpp llama_memory_recurrent: per sequence (-np) and recurrent layer, r = (d_conv - 1) * channels and "
                  "s = d_state * d_inner elements, F32 [llama-cpp-code]; Mamba [gu2023-mamba]");
    if (m.ssm.active() && layer_pattern(m).ssm_count(p.begin, p.end) > 0) warn_mamba_working_memory(e, m.ssm);
    const bool cuda = o.llamacpp_backend == LlamaCppBackend::CUDA;
    add(e, d, comp("engine.compute_buffer", cuda ? "llama.cpp compute buffer (CUDA)" : "llama.cpp compute buffer (CANN)", Category::Buffers, kServing,
                   cuda ? (o.flash_attention && o.llamacpp_fa_mask_cast
                               ? "ggml-alloc plan of the worst-case ubatch graph on CUDA: the larger of attention (the f32 KQ mask copy and its f16 cast, llama.cpp before PR #23764), MLP and f32 logits; CUDA0 compute buffer log lines [llama-cpp-code] [lcpp-pr23764] [lcpp-glm4-log]"
                               : "ggml-alloc plan of the worst-case ubatch graph on CUDA: the larger of attention (f32 KQ, softmax in place, the KQ mask), MLP and f32 logits; CUDA0 compute buffer log lines [llama-cpp-code] [lcpp-logdetective-106] [lcpp-bllossom-log] [lcpp-glm4-log]")
                        : "ggml graph for one ubatch on CANN: f32 KQ + softmax and output logits [llama-cpp-cann-log]"),
        [&](auto& q) { return llamacpp_compute_bytes(q, m, n_ctx, n_ub, o.flash_attention, o.llamacpp_fa_mask_cast, o.llamacpp_backend); });
    fill_free_capacity(s, e, kv_bytes_per_token(m, o.kv_dtype, s.parallel.tp, p.begin, p.end), sum_non_kv(e), state_per_sequence(s, p));
}

// vLLM sizes one KV pool for all workers: the fewest blocks any pipeline stage's GPU can hold
// (vLLM v0.6 DistributedGPUExecutor.initialize_cache: num_gpu_blocks = min over workers). The stage
// shown is that one; it does not depend on the batch (every stage needs the same number of blocks).
// vLLM v0.6's Mamba cache on stage p: the recurrent state of vllm_mamba_cache_sequences() sequences,
// allocated by the profile run's forward and kept, so the KV pool is sized after it [vllm-code].
// vLLM's max_num_seqs for the scenario (runtime.h vllm_max_num_seqs): its default follows the release and the GPU's
// CUDA-visible total and name.
int64_t vllm_seqs(const Scenario& s) {
    return vllm_max_num_seqs(s.infer, parse_vllm_version(s.infer.vllm_version).value_or(VllmRelease{}), s.gpu.usable_bytes(), s.gpu.name);
}
template <class Q>
auto vllm_mamba_cache_bytes(Q& q, const Scenario& s, const StagePick& p) {
    return q("mamba_seqs", static_cast<double>(vllm_mamba_cache_sequences(s.infer, vllm_seqs(s)))) *
           ssm_sequence_bytes(q, s.model, p.begin, p.end, ssm_state_layout(s.infer, s.model.ssm), s.parallel.tp);
}
double vllm_mamba_cache_bytes(const Scenario& s, const StagePick& p) {
    Numbers n;
    return s.model.ssm.active() ? vllm_mamba_cache_bytes(n, s, p) : 0;
}

StagePick vllm_limiting_stage(const Scenario& s, const ParamCounts& pc, double capacity, double fixed_bytes) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    StagePick best;
    int64_t best_blocks = -1;
    for (int64_t st = 0; st < s.parallel.pp; ++st) {
        const StagePick p = stage_at(s, pc, st);
        const double block_bytes = kv_bytes_per_token(m, o.kv_dtype, s.parallel.tp, p.begin, p.end) * static_cast<double>(o.block_size);
        const double available = capacity - p.w.total() - vllm_load_extra_bytes(s, p) - fixed_bytes - vllm_mamba_cache_bytes(s, p);
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
    // vLLM's requested memory: gpu_memory_utilization x torch.cuda.mem_get_info()'s total, the CUDA-visible total
    // (v1/worker/gpu_worker.py determine_available_memory, read at 0012cf6 [vllm-code]). What the release's budget
    // leaves outside (the CUDA context, later the NCCL buffers) must fit beside it (vllm_budget.h).
    const VllmRelease release = parse_vllm_version(o.vllm_version).value();  // validated
    const VllmBudget budget = vllm_budget(release).value();
    const double requested = o.gpu_memory_utilization * e.gpu_usable_bytes;
    const double context = cuda_context_bytes(s);
    Numbers n;
    const int64_t pp = s.parallel.pp;
    const NcclSetup nccl = vllm_nccl_setup(s, release);
    const double comm_outside = vllm_comm_outside(budget, tp, pp) ? vllm_pynccl_bytes(n, nccl, tp, pp) : 0;
    const double outside = (vllm_context_outside(budget) ? context : 0) + comm_outside;
    e.gpu_capacity_bytes = std::min(requested + outside, e.gpu_usable_bytes);
    cold([&] { e.warnings.push_back(std::string("vLLM: the KV pool fills gpu_memory_utilization x the GPU memory CUDA reports, less what the budget holds; ") +
                                    vllm_budget_text(budget)); });
    // An encoder or an embedder runs on vLLM's pooling runner: the pooler instead of the sampler, and an encoder's
    // EncoderOnlyAttention has no KV cache spec, so no KV pool (an attention-free KV cache config) [vllm-pooling].
    const bool pooling = m.encoder || m.embedder;
    const int64_t seqs = vllm_seqs(s);
    const int64_t T = pooling ? vllm_pooling_batched_tokens(o, release, e.gpu_usable_bytes, s.gpu.name, !m.encoder, seqs)
                              : vllm_batched_tokens(o, release, e.gpu_usable_bytes, s.gpu.name);
    const auto non_torch_bytes = [&](auto& q) { return vllm_non_torch_bytes(q, o, nccl, tp, pp, budget, context); };
    // Speculative decoding (infer.speculative): the drafter's weights, persistent inputs, KV layers and
    // forward in the profile run; ngram has no drafter, only the rejection sampler and lookahead slots.
    const std::optional<Drafter> drafter = m.architecture_known() ? speculative_drafter(s) : std::nullopt;
    const bool speculative = o.speculative.method != SpecMethod::None && m.architecture_known();
    // The profile run's activation peak: max_num_batched_tokens through the MLP (or a Mamba mixer), or
    // the sampler of max_num_seqs sequences plus the hidden states of those tokens. With speculative
    // decoding the sampler check adds the rejection sampler's dummy logits, and the drafter's own forward
    // over the same tokens runs while the target's output hidden states are held [vllm-spec-decode].
    const auto profile_peak = [&](auto& q) {
        using N = std::decay_t<decltype(q("", 0.0))>;
        const auto tokens = q("T", static_cast<double>(T));
        const auto hidden_out = tokens * q("h", static_cast<double>(m.hidden)) * q("act_bytes", kActBytes);
        N sampler = pooling ? vllm_pooler_bytes(q, m, tokens, kActBytes) : vllm_sampler_bytes(q, m, seqs);
        if (speculative) sampler += rejection_logits_bytes(q, m, seqs);
        auto peak = max_of(layer_live_bytes(q, m, tokens, tp, kActBytes), sampler + hidden_out);
        if (drafter) peak = max_of(peak, q.let("A_draft", layer_live_bytes(q, drafter->model, tokens, drafter->tp, kActBytes)) + hidden_out);
        return peak;
    };
    const double non_torch = non_torch_bytes(n);
    const double act = m.architecture_known() ? profile_peak(n) : 0;
    const double draft_fixed = drafter ? draft_weight_bytes(n, *drafter) + drafter_buffer_bytes(n, *drafter, T, kActBytes) : 0;
    // vLLM v0 gives every layer every token (no sliding-window savings in the paged pool).
    const StagePick p = m.architecture_known() ? vllm_limiting_stage(s, e.params, requested, non_torch + act + draft_fixed)
                                               : pick_stage(s, e.params, block, false);
    add_weights(s, d, e, p);
    if (drafter) add_drafter(*drafter, T, kActBytes, d, e);
    add(e, d, comp("engine.non_torch", budget == VllmBudget::WholeDevice ? "Non-torch memory in vLLM's budget (CUDA context, NCCL)"
                                                                           : "Non-torch memory in vLLM's budget",
                   Category::Overhead, kLoadOn,
                   "non_torch_memory logged by vLLM 0.6.5-0.10: 0.07-0.16 GiB at tp 1 [vllm-pr12126]; at tp > 1 NCCL communicators, "
                   "each channels x (ring 12 MiB + tree 12 MiB at 3+ ranks) + NVLink SHARP by NCCL version [nccl-p2p-code] "
                   "[nccl-nvls-code]: the tp group's torch process group (made in the profile run) and, before 0.11, the PyNccl "
                   "ones and the custom all-reduce [vllm-comm-code]; what the budget holds by release [vllm-budget]"),
        non_torch_bytes);
    if (vllm_context_outside(budget))
        add(e, d, comp("cuda_context", "CUDA context (beside vLLM's budget)", Category::Overhead, kLoadOn, cuda_context_source(s)),
            [&](auto& q) { return q("cuda_context_bytes", context); });
    if (comm_outside > 0)
        add(e, d, comp("engine.nccl", "PyNccl and custom all-reduce buffers (beside vLLM's budget)", Category::Overhead, kLoadOn,
                       "vLLM 0.11+: the start-up snapshot follows init_worker_distributed_environment [vllm-budget], where the tp and pp "
                       "groups' PyNccl communicators and the custom all-reduce are made [vllm-comm-code]; each communicator channels x "
                       "(ring 12 MiB + tree 12 MiB at 3+ ranks) + NVLink SHARP by NCCL version [nccl-p2p-code] [nccl-nvls-code]"),
            [&](auto& q) { return vllm_pynccl_bytes(q, nccl, tp, pp); });
    if (!m.architecture_known()) {
        cold([&] { e.warnings.push_back("model known only by parameter count: KV cache and activations need the architecture"); });
        return;
    }
    add(e, d, comp("act.profile_peak", "Activation peak (profile run)", Category::Activations, kServing,
                   pooling ? "vLLM profile_run of the pooling runner: max_num_batched_tokens through the model, then the pooler over their "
                             "hidden states (no sampler) [vllm-pooling]"
                           : "vLLM profile_run: max_num_batched_tokens through the model, max_num_seqs sampled (top-k/top-p path) [vllm-code]"),
        profile_peak);

    const double mamba_cache = vllm_mamba_cache_bytes(s, p);
    if (mamba_cache > 0)
        add(e, d, comp("ssm_state", "Mamba cache (recurrent states of max_num_seqs sequences)", Category::KVCache, kServing,
                       "vLLM v0.6 MambaCacheManager: conv (d_conv - 1 columns) and temporal states for max_num_seqs sequences, padded to a "
                       "CUDA-graph batch size, in the model's dtype, allocated by the profile run [vllm-code]; Mamba [gu2023-mamba]"),
            [&](auto& q) { return vllm_mamba_cache_bytes(q, s, p); });
    const double target_per_token = m.encoder ? 0 : kv_bytes_per_token(m, o.kv_dtype, tp, p.begin, p.end);  // pooling: an encoder has no pool
    const double per_token = target_per_token + (drafter ? draft_kv_bytes_per_token(*drafter, o.kv_dtype) : 0);  // one pool for both
    const double block_bytes = per_token * static_cast<double>(block);
    const double available = requested - p.w.total() - vllm_load_extra_bytes(s, p) - non_torch - act - mamba_cache - draft_fixed;  // vLLM available_kv_cache_memory
    const int64_t blocks = (available > 0 && block_bytes > 0) ? static_cast<int64_t>(std::floor(available / block_bytes)) : 0;
    const int64_t lookahead = speculative_lookahead(o);
    const int64_t blocks_per_seq = (o.context + lookahead + block - 1) / block;
    e.kv.bytes_per_token = per_token;
    e.kv.block_size = block;
    e.kv.blocks = blocks;
    e.kv.tokens = blocks * block;
    e.kv.sequences = blocks_per_seq > 0 ? blocks / blocks_per_seq : 0;
    if (m.ssm.active() && per_token <= 0) e.kv.sequences = vllm_mamba_cache_sequences(o, seqs);  // no KV: the Mamba cache's slots
    if (m.encoder) e.kv.sequences = seqs;  // no KV: the scheduler's limit
    e.kv.pool_bytes = static_cast<double>(blocks) * block_bytes;
    // The pool is what vLLM allocates; a request beyond it shows as KV bytes over the capacity. No
    // attention layer (a pure Mamba model): no KV pool.
    if (target_per_token > 0) {
    add(e, d, comp("kv_cache", "KV cache", Category::KVCache, kServing,
                   m.attention == AttentionKind::MLA && m.mla.decompressed_cache ? kMlaDecompressedSource :
                   "vLLM: num_gpu_blocks = floor(available_kv_cache_memory / (block_size * kv bytes per token)) [vllm-code]; Kwon et al. 2023 [vllm-paper]"),
        [&](auto& q) {
            return max_of(q("num_gpu_blocks", static_cast<double>(blocks)), vllm_sequence_blocks(q, o)) * q("B", static_cast<double>(block)) *
                   kv_bytes_per_token(q, m, o.kv_dtype, tp, p.begin, p.end);
        });
    const double needed = static_cast<double>(o.batch * blocks_per_seq) * block_bytes;
    if (needed > e.kv.pool_bytes)
        cold([&] { e.warnings.push_back("vLLM KV pool holds " + std::to_string(e.kv.tokens) + " tokens (" + std::to_string(blocks) + " blocks); " +
                                               std::to_string(o.batch) + " sequences of " + std::to_string(o.context) + " tokens need " +
                                               std::to_string(o.batch * blocks_per_seq) + " blocks"); });
    }
    if (m.encoder)
        cold([&] { e.warnings.push_back("vLLM's pooling runner: an encoder's attention (EncoderOnlyAttention) keeps no KV cache, so no KV pool is allocated "
                                        "and the budget's rest stays free [vllm-pooling]"); });
    if (drafter) add_drafter_kv(*drafter, o, blocks, d, e);
    if (mamba_cache > 0) warn_mamba_working_memory(e, m.ssm);
    if (mamba_cache > 0 && m.ssm.kind == SsmKind::GatedDeltaNet)
        cold([&] { e.warnings.push_back("vLLM runs Gated DeltaNet models (Qwen3-Next, Qwen3.5) on its V1 engine, whose hybrid KV-cache manager keeps "
                                        "each sequence's recurrent state in the KV pool instead of a separate cache for max_num_seqs sequences: the "
                                        "total (gpu_memory_utilization x memory) is the same, the split between states and KV tokens shown is v0.6's"); });
    if (m.vision.mllama())
        cold([&] { e.warnings.push_back("vLLM: Llama 3.2 Vision's cross-attention layers are counted without a cache (text only, no images); "
                                        "vLLM's encoder-decoder cache for images is not modelled (infer.images needs engine transformers)"); });
    if (m.vision.active())
        cold([&] { e.warnings.push_back("vLLM: the profile run of a vision-language model also encodes dummy images (its encoder budget) before the KV pool "
                                        "is sized; that encoder forward is not modelled (the activation peak is the language model's)"); });
    if (o.cuda_graphs)
        cold([&] { e.warnings.push_back(budget == VllmBudget::InstanceGraphs
                                            ? "vLLM >= 0.21: its estimate of the CUDA graphs' memory is taken from the KV pool, which is smaller than shown "
                                              "by that (not modelled; enforce_eager avoids it)"
                                            : "vLLM: CUDA graph memory is captured after the KV pool and is not included (enforce_eager avoids it)"); });
    if (speculative)
        cold([&] { e.warnings.push_back("vLLM speculative decoding (" + drafter_text(o.speculative) + ", " + std::to_string(o.speculative.num_speculative_tokens) +
                                        " tokens): the rejection sampler's working tensors beyond its dummy logits and the drafter's CUDA graphs are not counted"); });
}

// Hugging Face text-embeddings-inference (TEI), the embedding and reranker server [tei-code]: its candle backend loads
// the weights in --dtype and holds no KV cache (each batch is one forward, pooled); at start-up it warms up with one
// batch of max_batch_tokens tokens (requests of max_input_length tokens each), un-padded through flash attention
// (varlen, no scores), and any full batch reaches that peak again. The router never batches more tokens, so the
// memory follows max_batch_tokens, not infer.batch. Tensors are freed as the forward goes (no caching allocator).
void estimate_tei(const Scenario& s, Detail d, Estimate& e) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    add_weights(s, d, e, pick_stage(s, e.params, 1, false));
    add(e, d, comp("cuda_context", "CUDA context", Category::Overhead, kLoadOn, cuda_context_source(s)),
        [&](auto& q) { return q("cuda_context_bytes", cuda_context_bytes(s)); });
    if (!m.architecture_known()) {
        cold([&] { e.warnings.push_back("model known only by parameter count: activations need the architecture"); });
        return;
    }
    const int64_t T = tei_batch_tokens(o);
    add(e, d, comp("act.tei_batch", "Activation peak (a batch of max_batch_tokens)", Category::Activations, kServing,
                   "TEI warmup and every full batch of max_batch_tokens un-padded tokens: the larger of one layer's live tensors at its "
                   "MLP (flash attention keeps no scores) and the last hidden states [T, h] the pooler reads [tei-code]"),
        [&](auto& q) {
            const auto tokens = q("T", static_cast<double>(T));
            return max_of(layer_live_bytes(q, m, tokens, 1, kActBytes), tokens * q("h", static_cast<double>(m.hidden)) * q("act_bytes", kActBytes));
        });
    if (o.batch * o.context > T)
        cold([&] { e.warnings.push_back("TEI batches at most max_batch_tokens (" + std::to_string(T) + ") tokens; the rest of " + std::to_string(o.batch) +
                                        " sequences of " + std::to_string(o.context) + " tokens wait in its queue, so the memory is a batch of " +
                                        std::to_string(T) + " tokens (infer.max_batched_tokens sets --max-batch-tokens)"); });
}

}  // namespace

void estimate_inference(const Scenario& scenario, Detail d, Estimate& e) {
    // The MLA cache layout is the engine version's, not the checkpoint's: the KV formulas read it
    // from the model they are given.
    std::optional<Scenario> decompressed;
    if (scenario.model.attention == AttentionKind::MLA && scenario.infer.mla_cache == MlaCache::Decompressed) {
        decompressed = scenario;
        decompressed->model.mla.decompressed_cache = true;
    }
    // Image tokens join each sequence beside its infer.context tokens (and its prompt's): the KV cache, the prefill and the
    // logits count them as the language model sees them (model/image_tokens.h).
    const int64_t image_tokens = sequence_image_tokens(scenario.model, scenario.infer);
    if (image_tokens > 0) {
        if (!decompressed) decompressed = scenario;
        decompressed->infer.context += image_tokens;
        if (decompressed->infer.prompt > 0) decompressed->infer.prompt += image_tokens;
        e.warnings.push_back(image_tokens_note(scenario.model, scenario.infer));
    }
    const Scenario& s = decompressed ? *decompressed : scenario;
    const GgufTensorBytes& g = s.model.gguf_bytes;
    if (!g.empty() && !gguf_bytes_describe(s.model, g.type))
        cold([&] { e.warnings.push_back("model.gguf_bytes: the GGUF file's tensor bytes have " + std::to_string(g.layers.size()) + " blocks but the model has " +
                                        std::to_string(s.model.layers) + " layers, so they no longer describe it: the weights are sized by the rules of " +
                                        weight_format_name(s.infer.weights) + " instead (import the file again for its bytes)"); });
    else if (!g.empty() && s.infer.engine == Engine::LlamaCpp && g.type != s.infer.weights)
        cold([&] { e.warnings.push_back(std::string("model.gguf_bytes: the imported GGUF file is ") + weight_format_name(g.type) + "; " +
                                        weight_format_name(s.infer.weights) + " is another file, sized by its format's rules (choose " +
                                        weight_format_name(g.type) + " again for the file's own bytes)"); });
    else if (!g.empty() && s.infer.engine != Engine::LlamaCpp)
        cold([&] { e.warnings.push_back(std::string("model.gguf_bytes: the GGUF file's tensor bytes are what llama.cpp loads; with engine ") +
                                        enum_name(s.infer.engine) + " the weights are sized by the rules of " + weight_format_name(s.infer.weights)); });
    // Each engine's estimate is a function of its own (cold.h): the page's first view runs one engine's,
    // and the web build defers the others' code and text.
    switch (s.infer.engine) {
        case Engine::Transformers: cold([&] { estimate_transformers(s, d, e); }); break;
        case Engine::VLLM: cold([&] { estimate_vllm(s, d, e); }); break;
        case Engine::LlamaCpp: cold([&] { estimate_llamacpp(s, d, e); }); break;
        case Engine::TEI: cold([&] { estimate_tei(s, d, e); }); break;
    }
}

void validate_inference(const Scenario& s, std::vector<FieldError>& errs) {
    const InferenceOptions& o = s.infer;
    auto range = [&](const char* field, int64_t v, int64_t lo, int64_t hi) {
        if (v < lo || v > hi)
            cold([&] { errs.push_back({field, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]; got " + std::to_string(v)}); });
    };
    range("infer.batch", o.batch, 1, 1000000);
    range("infer.context", o.context, 1, 100000000);
    range("infer.prompt", o.prompt, 0, reported(errs, "infer.context") ? 100000000 : o.context);
    range("infer.prefill_chunk", o.prefill_chunk, 0, 100000000);
    range("infer.block_size", o.block_size, 1, 100000);
    range("infer.max_num_seqs", o.max_num_seqs, 0, 1000000);  // 0: vLLM's default
    range("infer.max_batched_tokens", o.max_batched_tokens, 0, 100000000);
    range("infer.ubatch", o.ubatch, 1, 1000000);
    range("infer.logits_to_keep", o.logits_to_keep, 0, reported(errs, "infer.context") ? 100000000 : o.context);
    validate_images(s.model, o, errs);
    range("infer.target_len", o.target_len, 0, 100000000);
    if (s.model.seq2seq.active() && o.engine != Engine::Transformers)
        cold([&] { errs.push_back({"infer.engine", std::string("an encoder-decoder (") + s.model.model_type +
                                                       ") is sized as transformers generate() runs it; its other engines are not modelled: use engine transformers"}); });
    else if (s.model.seq2seq.active() && s.parallel.pp > 1)
        cold([&] { errs.push_back({"parallel.pp", std::string("pipeline parallelism for an encoder-decoder (") + s.model.model_type + ") is not modelled yet; use pp 1"}); });
    if (!s.model.seq2seq.active() && o.target_len != 0 && s.model.architecture_known())
        cold([&] { errs.push_back({"infer.target_len", "is the decoder's length of an encoder-decoder (t5, mt5, bart); this model has one stack: leave it 0"}); });
    // Zamba / Zamba2 (model.ssm.shared_blocks): transformers (Zamba2HybridDynamicCache) and vLLM (zamba2.py, Zamba2 only)
    // run them; llama.cpp has no Zamba architecture (a Zamba2 port, ggml-org/llama.cpp PR #21412, is not merged)
    // [transformers-zamba2] [llamacpp-zamba2-pr]; vLLM's model registry lists Zamba2ForCausalLM and no ZambaForCausalLM [vllm-code].
    if (s.model.ssm.shared_blocks > 0 && o.engine == Engine::LlamaCpp)
        cold([&] { errs.push_back({"infer.engine", std::string("llama.cpp has no Zamba architecture (") + s.model.model_type +
                                                       ": model.ssm.shared_blocks, shared transformer blocks over a Mamba backbone); use transformers" +
                                                       (s.model.ssm.kind == SsmKind::Mamba2 ? " or vllm" : "")}); });
    else if (s.model.ssm.shared_blocks > 0 && s.model.ssm.kind != SsmKind::Mamba2 && o.engine == Engine::VLLM)
        cold([&] { errs.push_back({"infer.engine", std::string("vLLM runs Zamba2 (zamba2.py) but not Zamba v1's Mamba1 backbone with a shared block (") +
                                                       s.model.model_type + ": model.ssm.shared_blocks); use transformers"}); });
    const bool pooling = s.model.encoder || s.model.embedder;
    if (pooling && o.engine == Engine::LlamaCpp)
        cold([&] { errs.push_back({"infer.engine", std::string("an embedding or reranker model (") + s.model.model_type + ") is sized as transformers, vLLM's "
                                                   "pooling runner or TEI serve it; llama.cpp's embedding server is not modelled: use engine transformers, vllm or tei"}); });
    if (!pooling && o.engine == Engine::TEI)
        cold([&] { errs.push_back({"infer.engine", "tei (text-embeddings-inference) serves embedding and reranker models: choose an encoder (BERT, XLM-RoBERTa) "
                                                   "or an embedder (model.embedder, Qwen3-Embedding), or another engine"}); });
    if (o.engine == Engine::TEI && o.weights != WeightFormat::FP16 && o.weights != WeightFormat::BF16 && o.weights != WeightFormat::FP32)
        cold([&] { errs.push_back({"infer.weights", std::string("TEI loads the weights in float16, bfloat16 or float32 (--dtype); got ") + weight_format_name(o.weights)}); });
    if (o.engine == Engine::TEI && (s.parallel.tp != 1 || s.parallel.pp != 1) && !reported(errs, "parallel"))
        cold([&] { errs.push_back({"parallel.tp", "TEI serves a model on one GPU (--device-id): tensor and pipeline parallel must be 1; got tp " +
                                                      std::to_string(s.parallel.tp) + ", pp " + std::to_string(s.parallel.pp)}); });
    if (pooling && o.speculative.method != SpecMethod::None)
        cold([&] { errs.push_back({"infer.speculative.method", "drafts tokens for generation; an embedding or reranker model generates none: set it to none"}); });
    if (weight_format(o.weights).layout.block == Block::GroupSize) range("infer.group_size", o.group_size, 1, 1000000);
    if (!(o.gpu_memory_utilization > 0 && o.gpu_memory_utilization <= 1))
        cold([&] { errs.push_back({"infer.gpu_memory_utilization", "must be in (0, 1]; got " + std::to_string(o.gpu_memory_utilization)}); });
    if (std::isnan(o.engine_overhead_bytes) || o.engine_overhead_bytes > 1e13)
        cold([&] { errs.push_back({"infer.engine_overhead_bytes", "must be a byte count (< 0 = engine default); got " + std::to_string(o.engine_overhead_bytes)}); });
    if (o.engine == Engine::LlamaCpp) {
        const bool ok = is_gguf(o.weights) || o.weights == WeightFormat::FP32 || o.weights == WeightFormat::FP16 ||
                        o.weights == WeightFormat::BF16;
        if (!ok) cold([&] { errs.push_back({"infer.weights", std::string("llama.cpp loads GGUF files: use FP32/FP16/BF16 or a GGUF type; got ") + weight_format_name(o.weights)}); });
        if ((o.kv_dtype == KvDtype::INT8 || o.kv_dtype == KvDtype::INT4) && !o.flash_attention)
            cold([&] { errs.push_back({"infer.kv_dtype", std::string("llama.cpp quantizes the V cache only with flash attention (\"V cache quantization requires flash_attn\"): "
                                                                     "set infer.flash_attention to true or use fp16/bf16; got ") + kv_dtype_name(o.kv_dtype)}); });
        if (s.parallel.tp != 1 && !reported(errs, "parallel"))
            cold([&] { errs.push_back({"parallel.tp", "llama.cpp splits layers across GPUs (use parallel.pp); tensor parallel must be 1; got " + std::to_string(s.parallel.tp)}); });
    }
    if (o.engine == Engine::Transformers && is_gguf(o.weights))
        cold([&] { errs.push_back({"infer.weights", std::string("transformers dequantizes GGUF on load; use llama.cpp or vLLM for ") + weight_format_name(o.weights)}); });
    // The bitsandbytes integration settings describe a PyTorch run whose weights bitsandbytes quantized.
    const bool bnb_run = o.engine == Engine::Transformers && is_bitsandbytes(o.weights);
    for (const auto& [field, on] : {std::pair{"infer.bnb_quantize_head", o.bnb_quantize_head},
                                    std::pair{"infer.bnb_fp16_quant_state", o.bnb_fp16_quant_state},
                                    std::pair{"infer.bnb_requantize_on_load", o.bnb_requantize_on_load}})
        if (on && !bnb_run)
            cold([&, field = field] { errs.push_back({field, std::string("describes bitsandbytes weights in a PyTorch run: needs infer.engine transformers and infer.weights "
                                                                         "nf4, fp4 or int8, or set it to false; got ") + weight_format_name(o.weights)}); });
    if (o.untied_head_on_load && o.engine != Engine::Transformers)
        cold([&] { errs.push_back({"infer.untied_head_on_load", "describes transformers' from_pretrained (a tied head loaded before tie_weights()); vLLM "
                                                                "and llama.cpp skip a tied head's tensor: set infer.engine to transformers, or set it to false"}); });
    validate_speculative(s, errs);
    if (o.engine == Engine::VLLM) {
        const std::optional<VllmRelease> r = parse_vllm_version(o.vllm_version);
        if (!r)
            cold([&] { errs.push_back({"infer.vllm_version", "must be a vLLM release such as \"0.6.5\" or \"0.11.2\" (vllm --version); got \"" +
                                                                 o.vllm_version.substr(0, 40) + "\""}); });
        else if (!vllm_budget(*r))
            cold([&] { errs.push_back({"infer.vllm_version", "releases before 0.2.5 sized the KV cache from PyTorch's allocated peak alone and are not "
                                                             "modelled: use 0.2.5 or later; got \"" + o.vllm_version.substr(0, 40) + "\""}); });
    }
    if (o.engine == Engine::VLLM && (o.kv_dtype == KvDtype::INT8 || o.kv_dtype == KvDtype::INT4))
        cold([&] { errs.push_back({"infer.kv_dtype", std::string("vLLM caches KV in fp16/bf16/fp8; got ") + kv_dtype_name(o.kv_dtype)}); });
    if (o.autocast != InferAutocast::Off && (o.weights != WeightFormat::FP32 || o.engine != Engine::Transformers))
        cold([&] { errs.push_back({"infer.autocast", std::string("torch.autocast casts fp32 weights in a PyTorch forward: needs infer.weights fp32 and "
                                                                 "infer.engine transformers (or set infer.autocast to off); got ") +
                                                         weight_format_name(o.weights) + " on " + enum_name(o.engine)}); });
}

}  // namespace vl
