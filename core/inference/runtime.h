// Runtime memory of inference (issue 5): prefill activations, logits of the sampled positions,
// engine reserves, and the engine profiles (transformers generate, vLLM, llama.cpp) with their
// documented defaults.
#pragma once
#include <cstdint>

#include "model_spec.h"
#include "scenario.h"

namespace vl {

// ---- engine profiles (defaults cited where they are defined) --------------------------------
// vLLM non-torch memory per GPU (CUDA context, cuBLAS/cuDNN handles, CUDA runtime): 1.79 GiB at
// tp = 1, 3.58 GiB at tp = 2 on H100 80GB (vLLM v0.6.x profiling log [vllm-pr10511]); the difference is
// NCCL and custom all-reduce buffers, present only when tp > 1.
inline constexpr double kVllmNonTorchBytes = 1.79 * 1024 * 1024 * 1024;
inline constexpr double kVllmCommBuffersBytes = 1.79 * 1024 * 1024 * 1024;
double vllm_non_torch_bytes(const InferenceOptions& o, int64_t tp);

// Tokens vLLM pushes through one profiling forward (max_num_batched_tokens): chunked prefill uses
// the chunk; otherwise max(max_model_len, 2048) (vLLM v0.6 SchedulerConfig default).
int64_t vllm_batched_tokens(const InferenceOptions& o);

// Tokens per sequence prefilled in one forward (the prompt, or the chunk when chunked).
int64_t prefill_tokens(const InferenceOptions& o);

// ---- activations ----------------------------------------------------------------------------
// Live tensors at the MLP of one layer during a forward over `tokens` tokens (the inference
// activation peak; nothing is kept for backward): gate_up output (2f), activation output (f), down
// output, residual and normed input (3h) -> tokens * (3f/t + 3h) * bytes; plain MLP: 2f/t.
// f = the dense ffn, or top_k routed + shared expert widths for MoE (vLLM LlamaMLP.forward).
double mlp_live_bytes(const ModelSpec& m, int64_t tokens, int64_t tp, double act_bytes);
double mlp_width(const ModelSpec& m);  // that f (before the tp split)

// Eager (non-flash) attention materialises the scores: batch * heads/t * q * kv elements, held in
// 16-bit plus the fp32 softmax (transformers eager_attention_forward) = 6 bytes each.
double eager_scores_bytes(const ModelSpec& m, int64_t batch, int64_t q_tokens, int64_t kv_tokens, int64_t tp);

// Logits of the sampled positions in transformers generate: bf16 logits of the last position plus
// their fp32 copy (logits_to_keep = 1; next_token_logits.float()) = batch * V * (2 + 4).
double hf_logits_bytes(const ModelSpec& m, int64_t batch);

// vLLM v0.6 sampler with top-k/top-p (the profile run sets top_p 0.99, top_k V-1): per sampled
// sequence and vocab entry it holds bf16 logits (2), fp32 logits (4), sorted logits (4), int64
// sort indices (8), top-k mask (1), probs (4), cumsum (4), top-p mask (1), inverse indices (8)
// and the re-gathered logits (4) = 40 bytes (sampler.py _apply_top_k_top_p).
inline constexpr double kVllmSamplerBytesPerLogit = 40;
double vllm_sampler_bytes(const ModelSpec& m, int64_t seqs);

// llama.cpp compute buffer for a ubatch of n_ub tokens against n_kv cached cells: without flash
// attention KQ and softmax(KQ) in f32 (2 * n_kv * n_ub * heads * 4) plus the f32 output logits
// (V * n_ub * 4); with flash attention the scores are not materialised and the MLP intermediates
// (3 * ffn * n_ub * 4) take their place. An approximation of ggml-alloc's graph plan.
double llamacpp_compute_bytes(const ModelSpec& m, int64_t n_kv, int64_t n_ub, bool flash);

// bitsandbytes 4-bit dequantises a whole weight for a prefill matmul: the largest linear matrix
// of a layer in the compute dtype (bnb.matmul_4bit -> dequantize_4bit), per TP rank.
double bnb_dequant_bytes(const ModelSpec& m, int64_t tp, bool fp32_compute);
double bnb_largest_matrix(const ModelSpec& m);  // elements of that matrix (before the tp split)

}  // namespace vl
