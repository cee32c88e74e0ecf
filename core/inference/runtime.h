// Runtime memory of inference: prefill activations, logits of the sampled positions, engine
// reserves, and the engine profiles (transformers generate, vLLM, llama.cpp) with their documented
// defaults. Each quantity is one expression (core/formula.h) over a quantity maker q, so the number,
// the formula and the substituted text come from the same code; the double functions evaluate them
// over plain numbers.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "formula.h"
#include "inference/vllm_budget.h"
#include "inference/kv_cache.h"
#include "inference/weight_formats.h"
#include "model/image_tokens.h"
#include "model/layer_tensors.h"
#include "model_spec.h"
#include "scenario.h"

namespace vl {

// ---- engine profiles (defaults cited where they are defined) --------------------------------
// vLLM's non-torch memory and its budget by release: core/inference/vllm_budget.h.

// Tokens vLLM pushes through one profiling forward (max_num_batched_tokens): chunked prefill uses
// the chunk; before 0.8 otherwise max(max_model_len, 2048) (vLLM v0.6 SchedulerConfig default).
// From 0.8 (the V1 engine) chunked prefill is always on and the default (vllm serve) is 8192 tokens on a GPU
// of 70 GiB or more that is not an A100, else 2048 (engine/arg_utils.py get_batch_defaults [vllm-budget]).
int64_t vllm_batched_tokens(const InferenceOptions& o, const VllmRelease& release, double gpu_bytes, std::string_view gpu_name);

// Sequences vLLM schedules and samples at most (--max-num-seqs): as given, else vLLM's default, which its profile run
// samples [vllm-budget]: the V0 engine (before 0.8) 256 (EngineArgs); V1 0.8.0-0.8.3 1024 on every GPU (PR #15357
// raised it from 256); 0.8.4-0.8.5 1024 on a GPU whose name has H100 or H200, else 256 (PR #16158); from 0.9 1024 on a
// GPU of 70 GiB or more that is not an A100, else 256 (PR #17885, engine/arg_utils.py get_batch_defaults, the same
// rule as max_num_batched_tokens above).
int64_t vllm_max_num_seqs(const InferenceOptions& o, const VllmRelease& release, double gpu_bytes, std::string_view gpu_name);

// The same for vLLM's pooling runner (--runner pooling; --task embed / score / classify before 0.10), which serves an
// encoder or an embedder: with no --max-num-batched-tokens the scheduler raises the default to
// POOLING_MODEL_MAX_NUM_BATCHED_TOKENS = 32768, and on the V1 engine caps that default at max_num_seqs x
// max_model_len; an encoder's bidirectional attention turns chunked prefill off (chunked false), so its default
// starts from max(max_model_len, 2048) (SchedulerConfig.__post_init__ [vllm-pooling]).
int64_t vllm_pooling_batched_tokens(const InferenceOptions& o, const VllmRelease& release, double gpu_bytes, std::string_view gpu_name,
                                    bool chunked, int64_t max_num_seqs);

// Hugging Face text-embeddings-inference: --max-batch-tokens, the tokens of one batch (default 16384, router
// main.rs [tei-code]); infer.max_batched_tokens when set.
inline constexpr int64_t kTeiMaxBatchTokens = 16384;
int64_t tei_batch_tokens(const InferenceOptions& o);

// Sequences vLLM v0.6's MambaCacheManager holds states for (Mamba, Jamba): max_num_seqs (vllm_max_num_seqs), and with
// CUDA graphs padded to a captured batch size (_get_graph_batch_size: up to 2 as is, 4, then a
// multiple of 8) [vllm-code].
int64_t vllm_mamba_cache_sequences(const InferenceOptions& o, int64_t max_num_seqs);

// Prompt tokens per sequence: infer.prompt, or the whole context when it is 0 (the worst case).
int64_t prompt_tokens(const InferenceOptions& o);

// Tokens per sequence prefilled in one forward (the prompt, or the chunk when chunked).
int64_t prefill_tokens(const InferenceOptions& o);

// ---- activations ----------------------------------------------------------------------------
// The MLP width f (before the tp split): the dense ffn, or for MoE the larger of the dense layers'
// ffn and the top_k routed + shared expert widths one token passes through (vLLM LlamaMLP.forward).
template <class Q>
auto mlp_width(Q& q, const ModelSpec& m) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    if (m.moe.num_experts <= 0) return q("ffn", static_cast<double>(m.ffn));
    N moe = q("top_k", static_cast<double>(m.moe.top_k)) * q("expert_ffn", static_cast<double>(m.moe.expert_ffn));
    if (const int64_t shared = shared_expert_ffn(m); shared > 0) moe += q("shared_ffn", static_cast<double>(shared));
    return q.let("f", max_of(q("ffn", static_cast<double>(m.ffn)), moe));
}
double mlp_width(const ModelSpec& m);

// Live tensors at the MLP of one layer during a forward over `tokens` tokens (the inference
// activation peak; nothing is kept for backward): gate_up output (2f), activation output (f), down
// output, residual and normed input (3h) -> tokens * (3 * f/tp + 3h) * bytes; plain MLP: 2 * f/tp.
template <class Q, class N>
N mlp_live_bytes(Q& q, const ModelSpec& m, const N& tokens, int64_t tp, double act_bytes) {
    const N per_token = N(m.gated_mlp ? 3 : 2) * (mlp_width(q, m) / q("tp", static_cast<double>(tp))) +
                        N(3) * q("h", static_cast<double>(m.hidden));
    return tokens * per_token * q("act_bytes", act_bytes);
}
double mlp_live_bytes(const ModelSpec& m, int64_t tokens, int64_t tp, double act_bytes);

// Tensors a transformers forward keeps beside each layer's own for the whole layer loop, over `tokens`
// tokens [transformers-code]: the model's forward holds the embedding output in its local inputs_embeds
// (the loop rebinds hidden_states only), so h more per token from the second layer on; a rotary model
// also holds the rotary_emb output, cos and sin of [b, q, rotary dims] in the compute dtype, computed once
// for every layer (generate passes position ids of shape [b, q]; MLA rotates qk_rope_head_dim of each
// head; a partial rotary (GPT-NeoX rotary_pct) rotates fewer, counted whole here).
template <class Q, class N>
N hf_forward_inputs_bytes(Q& q, const ModelSpec& m, const N& tokens, double act_bytes) {
    N per_token = q("h", static_cast<double>(m.hidden));
    if (m.position == PositionKind::Rotary && m.heads > 0) {
        const double rot = m.attention == AttentionKind::MLA ? static_cast<double>(m.mla.qk_rope_head_dim) : static_cast<double>(m.head_dim);
        per_token += N(2) * q(m.attention == AttentionKind::MLA ? "rope_dim" : "head_dim", rot);
    }
    return tokens * per_token * q("act_bytes", act_bytes);
}
double hf_forward_inputs_bytes(const ModelSpec& m, int64_t tokens, double act_bytes);

// Live tensors at one Mamba mixer during a forward over `tokens` tokens without grad (generate's
// prefill with the fused kernels: MambaMixer / Mamba2Mixer cuda_kernels_forward) [transformers-code]:
// in_proj's output stays referenced to the end (x, the gate z and in Mamba2 B, C and dt are views of
// it): Mamba1 2 d_in, Mamba2 2 d_in + 2 groups d_state + heads; the causal conv's output (over x: d_in;
// Mamba2 over xBC: d_in + 2 groups d_state); Mamba1's delta (dt_proj.weight @ dt, d_in) and
// selective_scan's output with its z-gated copy (2 d_in) [mamba-ssm-code]; Mamba2's SSD output y (d_in);
// and as at the MLP the block's input, normed input and output (3h). Mamba1 splits d_in over tp
// (vLLM's MambaMixer); Mamba2 is not split (validate refuses tp > 1). The scans' own working memory is
// transformers' act.ssm_scan (inference/ssm_scan.h); vLLM and llama.cpp leave it out (a warning says so).
template <class Q, class N>
N mamba_mixer_live_bytes(Q& q, const ModelSpec& m, const N& tokens, int64_t tp, double act_bytes) {
    const SsmSpec& x = m.ssm;
    const N h3 = N(3) * q("h", static_cast<double>(m.hidden));
    if (x.kind == SsmKind::Mamba2) {
        const N d_in = q("d_inner", static_cast<double>(x.inner));
        const N gn = q("groups", static_cast<double>(x.groups)) * q("d_state", static_cast<double>(x.state));
        const N in_proj = N(2) * d_in + N(2) * gn + q("ssm_heads", static_cast<double>(x.heads));
        return tokens * (in_proj + (d_in + N(2) * gn) + d_in + h3) * q("act_bytes", act_bytes);
    }
    const N d_in = q("d_inner", static_cast<double>(x.inner)) / q("tp", static_cast<double>(tp));
    return tokens * (N(2) * d_in + d_in + d_in + N(2) * d_in + h3) * q("act_bytes", act_bytes);
}

// The larger of one layer's live tensors at its MLP and, for a Mamba model, at its Mamba mixer (the two
// sublayers run one after the other; a pure Mamba model has no MLP). A Gated DeltaNet layer counts the MLP's
// here; transformers' act.ssm_scan adds what its mixer needs beyond them (inference/ssm_scan.h).
inline bool has_mamba_mixer(const ModelSpec& m) { return m.ssm.kind == SsmKind::Mamba1 || m.ssm.kind == SsmKind::Mamba2; }
template <class Q, class N>
N layer_live_bytes(Q& q, const ModelSpec& m, const N& tokens, int64_t tp, double act_bytes) {
    if (!has_mamba_mixer(m)) return mlp_live_bytes(q, m, tokens, tp, act_bytes);
    if (!m.has_mlp()) return mamba_mixer_live_bytes(q, m, tokens, tp, act_bytes);
    return max_of(mlp_live_bytes(q, m, tokens, tp, act_bytes), mamba_mixer_live_bytes(q, m, tokens, tp, act_bytes));
}

// Eager attention (transformers eager_attention_forward, attn_implementation="eager") materialises
// the scores of every head: at the softmax the masked 16-bit scores (2 B), their fp32 softmax
// (softmax(..., dtype=float32), 4 B) and its cast back to the compute dtype (.to(query.dtype), 2 B)
// are live at once: b * heads/tp * q * kv * (2 + 4 + 2); plus the 4-D float mask of shape
// (b, 1, q, kv) in the compute dtype that masking_utils.eager_mask builds once per forward
// [transformers-code]. SDPA and FlashAttention-2 keep no scores [dao2022]. A vision tower's attention has no
// mask (mask false).
template <class Q>
auto eager_scores_bytes(Q& q, const ModelSpec& m, int64_t batch, int64_t q_tokens, int64_t kv_tokens, int64_t tp, bool mask = true) {
    const auto heads = q("heads", static_cast<double>(m.heads)) / q("tp", static_cast<double>(tp));  // tp divides heads (validate_parallel)
    const auto per_element = q("score_bytes", 2.0) + q("softmax_bytes", 4.0) + q("cast_bytes", 2.0);
    const auto scores = q("b", static_cast<double>(batch)) * q("q", static_cast<double>(q_tokens)) * q("s", static_cast<double>(kv_tokens));
    return mask ? scores * (heads * per_element + q("mask_bytes", 2.0)) : scores * (heads * per_element);
}
double eager_scores_bytes(const ModelSpec& m, int64_t batch, int64_t q_tokens, int64_t kv_tokens, int64_t tp);

// A vision tower's forward with nothing kept for backward (inference's prefill; a frozen tower in training), over
// `patches` positions (every image of the batch: batch_images images of g.patches each) [transformers-code]: the live
// tensors at one tower layer's MLP over every patch (the tower as a model of its own sizes, tower_view), with eager
// attention each crop's scores (CLIP/SigLIP batch the images; Qwen2-VL's and Qwen2.5-VL's non-flash paths attend image
// by image, split by cu_seqlens). MllamaVisionModel: the local encoder runs with output_hidden_states=True, so its input
// and every layer's output (L + 1 states of every image) stay alive until the intermediate ones are picked after the
// global encoder; the aspect-ratio mask [b x images, 1, n, n] of the padded tiles is built in the model's dtype
// [transformers-mllama].
template <class Q, class N>
N vision_forward_bytes(Q& q, const VisionSpec& v, const ImageGrid& g, const N& patches, int64_t batch_images, bool flash, double act_bytes) {
    const ModelSpec tower = tower_view(v);
    N vision = mlp_live_bytes(q, tower, patches, 1, act_bytes);
    // Eager scores per crop: LLaVA-NeXT's tower runs the base image and each tile as images of their own (g.crops).
    const int64_t window = g.crops > 0 ? g.patches / g.crops : g.patches;
    if (!flash) vision += eager_scores_bytes(q, tower, v.qwen() ? 1 : batch_images * g.crops, window, window, 1, false);
    if (v.mllama()) {
        vision += q("states_v", static_cast<double>(v.layers + 1)) * patches * q("h_v", static_cast<double>(v.hidden)) * q("act_bytes", act_bytes);
        if (flash) vision += patches * q("patches", static_cast<double>(g.patches)) * q("act_bytes", act_bytes);
    }
    return vision;
}

// Logits in transformers generate: the lm_head output for `positions` positions of each sequence in
// the compute dtype plus an fp32 copy. With logits_to_keep = 1 (generate's default since
// Transformers 4.45 for models whose forward takes it) only the last position: b * V * (2 + 4)
// (next_token_logits.float()); with logits_to_keep = 0 every prompt position, which older
// Transformers also upcast in forward (logits.float()): b * q * V * (2 + 4) [transformers-code].
template <class Q>
auto hf_logits_bytes(Q& q, const ModelSpec& m, int64_t batch, int64_t positions = 1) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    N per_seq = q("V", static_cast<double>(m.vocab));
    if (positions != 1) per_seq = q("positions", static_cast<double>(positions)) * per_seq;
    return q("b", static_cast<double>(batch)) * per_seq * (q("logit_bytes", 2.0) + q("fp32_copy_bytes", 4.0));
}
double hf_logits_bytes(const ModelSpec& m, int64_t batch, int64_t positions = 1);

// Positions whose logits transformers' prefill computes per sequence: logits_to_keep of them (at
// most the prefill's tokens), every prefill token when logits_to_keep = 0.
int64_t hf_logit_positions(const InferenceOptions& o);

// While DynamicLayer.update grows a layer's cache (self.keys = torch.cat([self.keys, k])), the old
// and the new tensor of that one layer coexist: one layer's keys of `tokens` tokens on top of the
// cache [transformers-code]. MLA caches one latent tensor per layer, counted whole.
template <class Q>
auto hf_cache_growth_bytes(Q& q, const ModelSpec& m, KvDtype t, int64_t tp, int64_t batch, int64_t tokens) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    const N one_tensor = m.attention == AttentionKind::MLA ? kv_elements(q, m, tp)
                                                            : q("kv_heads", static_cast<double>(kv_heads_per_rank(m, tp))) *
                                                                  q("head_dim", static_cast<double>(m.head_dim));
    return q("b", static_cast<double>(batch)) * q("s", static_cast<double>(tokens)) * one_tensor * kv_element_bytes(q, t);
}

// repeat_kv in transformers' attention: a layer's K and V copied to every query head, b x heads x s x head_dim each,
// both alive while the kernel runs (sdpa_attention_forward before PR #39412 or with a mask, eager_attention_forward)
// [transformers-pr39412]. Grouped-query layers only: with kv_heads = heads repeat_kv returns its input.
template <class Q>
auto hf_repeat_kv_bytes(Q& q, const ModelSpec& m, KvDtype t, int64_t tp, int64_t batch, int64_t tokens) {
    return q("b", static_cast<double>(batch)) * q("s", static_cast<double>(tokens)) * 2 * q("heads", static_cast<double>(m.heads / tp)) *
           q("head_dim", static_cast<double>(m.head_dim)) * kv_element_bytes(q, t);
}

// vLLM v0.6 sampler with top-k/top-p (the profile run sets top_p 0.99, top_k V-1): per sampled
// sequence and vocab entry it holds bf16 logits (2), fp32 logits (4), sorted logits (4), int64
// sort indices (8), top-k mask (1), probs (4), cumsum (4), top-p mask (1), inverse indices (8)
// and the re-gathered logits (4) = 40 bytes (sampler.py _apply_top_k_top_p).
inline constexpr double kVllmSamplerBytesPerLogit = 40;
template <class Q>
auto vllm_sampler_bytes(Q& q, const ModelSpec& m, int64_t seqs) {
    return q("max_num_seqs", static_cast<double>(seqs)) * q("V", static_cast<double>(m.vocab)) *
           q("sampler_bytes", kVllmSamplerBytesPerLogit);
}
double vllm_sampler_bytes(const ModelSpec& m, int64_t seqs);

// vLLM's pooler in the pooling runner's profile run (_dummy_pooler_run): each pooling task the model supports runs over
// the hidden states of the profiled tokens, the largest output a per-token one (token_embed: [T, h] in the model's
// dtype) [vllm-pooling]; no logits and no sampler.
template <class Q, class N>
N vllm_pooler_bytes(Q& q, const ModelSpec& m, const N& tokens, double act_bytes) {
    return tokens * q("h", static_cast<double>(m.hidden)) * q("act_bytes", act_bytes);
}

// llama.cpp compute buffer: ggml-alloc's plan for the worst-case graph of one ubatch of n_ub tokens
// against n_kv cached cells (llama_context::graph_reserve, every token an output), the high-water mark
// of the f32 intermediates that are live at once. The graph peaks at one of three places:
//   attention: without flash attention KQ = n_kv x n_ub x heads in f32 (soft_max_ext runs in place
//     on CUDA, so softmax(KQ) takes KQ's memory), the KQ mask n_kv x n_ub (f32, or f16 with flash
//     attention, build_attn_inp_kq_mask), and four n_embd x n_ub f32 activations (residual, normed
//     input, Q, attention output);
//   MLP: the up and gate outputs (f wide each, one for a plain MLP) and two n_embd-wide tensors;
//   output: the f32 logits of every position (n_vocab x n_ub), the normed hidden state, and at most
//     one freed f-wide MLP block below them that the logits do not fit into (ggml-alloc places a
//     tensor that fits no hole above the highest live one).
// CUDA logs: Mistral-7B n_ctx 2048 / 32768, n_ub 512, no FA: 164 / 2144 MiB (attention, exact);
// Llama-3-8B n_ctx 512: 258.5 MiB (ours 286.5, the output bound); GLM-4-32B n_ctx 32768 with FA:
// 353 MiB (output, exact) [llama-cpp-code] [lcpp-logdetective-106] [lcpp-bllossom-log] [lcpp-glm4-log].
// With flash attention before PR #23764 the attention peak holds the f32 mask copy and its f16 cast
// (llamacpp_mask_bytes): Qwen3.5 (32 layers, 8 of them attention) n_ctx 262144, n_ub 512: 262144 x 512 x 6 B
// = 768 MiB + 4 x 4096 x 512 x 4 = 32 MiB -> 800 MiB; log 808.02 MiB (PR #22546) [lcpp-pr23764].
// CANN's plan keeps KQ and softmax(KQ) both: 2 * n_kv * n_ub * heads * 4 + logits (flash: logits +
// 3 * f * n_ub * 4) [llama-cpp-cann-log].
// The attention peak of the CUDA plan above (KQ without flash attention, the mask, four hidden states).
// The KQ mask is a graph input, so ggml_backend_sched keeps it in the CPU backend's (CUDA_Host) compute buffer
// and copies it into the GPU split that reads it, a copy freed after its last reader (ggml/src/ggml-backend.cpp
// split_graph, read at 0054c01) [llama-cpp-code]. Before llama.cpp PR #23764 (merged 2026-05-27) the mask input
// was f32 even with flash attention and a ggml_cast to f16 on the GPU fed the FA kernels: at that cast, in the
// first attention layer, the f32 copy (4 B) and its f16 cast (2 B) are live at once (fa_mask_cast true)
// [lcpp-pr23764]; since then the input is f16 itself (build_attn_inp_kq_mask, read at 00395eb).
template <class Q>
auto llamacpp_mask_bytes(Q& q, int64_t n_kv, int64_t n_ub, bool flash, bool fa_mask_cast) {
    const auto kv_ub = q("n_ctx", static_cast<double>(n_kv)) * q("n_ub", static_cast<double>(n_ub));
    if (!flash) return kv_ub * q("mask_bytes", 4.0);
    if (fa_mask_cast) return kv_ub * (q("f32_mask_bytes", 4.0) + q("f16_cast_bytes", 2.0));
    return kv_ub * q("mask_bytes", 2.0);
}
template <class Q>
auto llamacpp_attention_bytes(Q& q, const ModelSpec& m, int64_t n_kv, int64_t n_ub, bool flash, bool fa_mask_cast) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    const N ub = q("n_ub", static_cast<double>(n_ub));
    const N f32 = q("f32_bytes", 4.0);
    const N kv = q("n_ctx", static_cast<double>(n_kv));
    const N mask = q.let("A_mask", llamacpp_mask_bytes(q, n_kv, n_ub, flash, fa_mask_cast));
    N attention = mask + N(4) * q("h", static_cast<double>(m.hidden)) * ub * f32;
    if (!flash) attention = q.let("A_kq", kv * ub * q("heads", static_cast<double>(m.heads)) * f32) + attention;
    return attention;
}
// with_attention false: the plan of a GPU whose attention runs on the CPU (--no-kv-offload pins every
// node from the KV store to the attention output to the CPU backend, src/llama-graph.cpp build_attn_mha
// [llama-cpp-code]): the MLP or the output peak only.
template <class Q>
auto llamacpp_compute_bytes(Q& q, const ModelSpec& m, int64_t n_kv, int64_t n_ub, bool flash, bool fa_mask_cast, LlamaCppBackend backend,
                            bool with_attention = true) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    const N ub = q("n_ub", static_cast<double>(n_ub));
    const N f32 = q("f32_bytes", 4.0);
    const N logits = q("V", static_cast<double>(m.vocab)) * ub * f32;
    if (backend == LlamaCppBackend::CANN) {
        if (flash) return logits + N(3) * mlp_width(q, m) * ub * f32;
        return N(2) * q("n_ctx", static_cast<double>(n_kv)) * ub * q("heads", static_cast<double>(m.heads)) * f32 + logits;
    }
    const N h = q("h", static_cast<double>(m.hidden));
    const N f = mlp_width(q, m);
    const N mlp = (N(m.gated_mlp ? 2 : 1) * f + N(2) * h) * ub * f32;
    const N output = logits + (f + h) * ub * f32;
    if (!with_attention) return max_of(mlp, output);
    return max_of(max_of(llamacpp_attention_bytes(q, m, n_kv, n_ub, flash, fa_mask_cast), mlp), output);
}
double llamacpp_compute_bytes(const ModelSpec& m, int64_t n_kv, int64_t n_ub, bool flash, bool fa_mask_cast, LlamaCppBackend backend,
                              bool with_attention = true);
double llamacpp_attention_bytes(const ModelSpec& m, int64_t n_kv, int64_t n_ub, bool flash, bool fa_mask_cast);

// bitsandbytes 4-bit dequantises a whole weight for a prefill matmul: the largest linear matrix
// of a layer in the compute dtype (bnb.matmul_4bit -> dequantize_4bit), per TP rank. The largest
// matrix: h * f (MoE: one expert's share, f / top_k), h * heads * head_dim, or h * ffn.
template <class Q>
auto bnb_largest_matrix(Q& q, const ModelSpec& m) {
    const auto h = q("h", static_cast<double>(m.hidden));
    const auto attn = h * (q("heads", static_cast<double>(m.heads)) * q("head_dim", static_cast<double>(m.head_dim)));
    if (m.moe.num_experts <= 0) return max_of(h * q("ffn", static_cast<double>(m.ffn)), attn);
    return max_of(max_of(h * mlp_width(q, m) / q("top_k", static_cast<double>(std::max(1, m.moe.top_k))), attn),
                  h * q("ffn", static_cast<double>(m.ffn)));
}
// With the head quantized too (infer.bnb_quantize_head) and run over more than one prefill position, its V x d is
// one of the matrices: Lit-GPT's GPT.forward applies lm_head to every position [litgpt-model-code].
template <class Q>
auto bnb_quantized_largest_matrix(Q& q, const ModelSpec& m, const InferenceOptions& o, bool head_dequantized) {
    if (!(o.bnb_quantize_head && head_dequantized)) return bnb_largest_matrix(q, m);
    return max_of(bnb_largest_matrix(q, m),
                  q("V", static_cast<double>(m.vocab)) * q("d", static_cast<double>(m.embed_dim > 0 ? m.embed_dim : m.hidden)));
}
// The prefill's dequantized copy of that matrix: compute-dtype bytes a weight; with an fp16 quant state
// (infer.bnb_fp16_quant_state) dequantize_4bit returns fp16 and MatMul4Bit.forward's .to(A.dtype) makes the
// compute-dtype copy while the fp16 one lives: 2 + compute bytes a weight [bitsandbytes-041-code]. (An fp16
// compute dtype would make that cast a no-op; a 16-bit compute here is bf16, as Lit-GPT's bf16-true runs.)
template <class Q>
auto bnb_dequant_bytes(Q& q, const ModelSpec& m, int64_t tp, const InferenceOptions& o, bool head_dequantized) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    const N compute = q("compute_bytes", o.fp32_compute ? 4.0 : 2.0);
    const N per_weight = o.bnb_fp16_quant_state ? q("fp16_bytes", 2.0) + compute : compute;
    return bnb_quantized_largest_matrix(q, m, o, head_dequantized) / q("tp", static_cast<double>(tp)) * per_weight;
}
double bnb_dequant_bytes(const ModelSpec& m, int64_t tp, const InferenceOptions& o, bool head_dequantized);
double bnb_largest_matrix(const ModelSpec& m);  // elements of that matrix (before the tp split)

// Re-quantizing as the checkpoint loads (infer.bnb_requantize_on_load): the model is already quantized on the GPU, and
// each loaded weight is cast to fp16 on the GPU and quantized again before the old tensors go: the largest quantized
// matrix's fp16 copy (2 B a weight) and what quantizing makes of it. LLM.int8 (double_quant): CB and CBt, int8 both,
// 1 + 1 B (CBt is deleted after); 4-bit (quantize_4bit): the packed data, data bits / 8, and the fp32 absmax of each
// block [lightning-bnb-plugin] [bitsandbytes-041-code].
template <class Q>
auto bnb_requantize_bytes(Q& q, const ModelSpec& m, int64_t tp, const InferenceOptions& o) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    const QuantLayout& l = weight_format(o.weights).layout;
    const N made = l.block == Block::InFeatures ? q("CB_bytes", 1.0) + q("CBt_bytes", 1.0)
                                                : N(l.data_bits) / N(8) + q("absmax_bytes", 4.0) / q("block", l.block_size);
    return bnb_quantized_largest_matrix(q, m, o, true) / q("tp", static_cast<double>(tp)) * (q("fp16_bytes", 2.0) + made);
}
double bnb_requantize_bytes(const ModelSpec& m, int64_t tp, const InferenceOptions& o);

}  // namespace vl
