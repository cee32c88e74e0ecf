// Runtime memory of inference over plain numbers (the expressions and their citations are in runtime.h).
#include "inference/runtime.h"

#include <algorithm>

#include "cuda_context.h"
#include "inference/vllm_budget.h"
#include "units.h"
#include "model/layer_tensors.h"

namespace vl {

int64_t vllm_mamba_cache_sequences(const InferenceOptions& o, int64_t max_num_seqs) {
    const int64_t n = max_num_seqs;
    if (!o.cuda_graphs || n <= 2) return n;
    if (n <= 4) return 4;
    return (n + 7) / 8 * 8;
}

// get_batch_defaults' larger defaults (PR #17885): a GPU of 70 GiB or more that is not an A100 [vllm-budget].
static bool vllm_large_batch_gpu(double gpu_bytes, std::string_view gpu_name) {
    return gpu_bytes >= 70 * kGiB && !gpu_name_has(gpu_name, "a100");
}

int64_t vllm_batched_tokens(const InferenceOptions& o, const VllmRelease& release, double gpu_bytes, std::string_view gpu_name) {
    if (o.max_batched_tokens > 0) return o.max_batched_tokens;
    if (o.prefill_chunk > 0) return o.prefill_chunk;
    if (vllm_v1_engine(release)) return vllm_large_batch_gpu(gpu_bytes, gpu_name) ? 8192 : 2048;
    return std::max<int64_t>(o.context, 2048);
}

int64_t vllm_max_num_seqs(const InferenceOptions& o, const VllmRelease& release, double gpu_bytes, std::string_view gpu_name) {
    if (o.max_num_seqs > 0) return o.max_num_seqs;
    if (!vllm_v1_engine(release)) return 256;
    if (release.major == 0 && release.minor == 8)
        return release.patch <= 3 || gpu_name_has(gpu_name, "h100") || gpu_name_has(gpu_name, "h200") ? 1024 : 256;
    return vllm_large_batch_gpu(gpu_bytes, gpu_name) ? 1024 : 256;
}

int64_t vllm_pooling_batched_tokens(const InferenceOptions& o, const VllmRelease& release, double gpu_bytes, std::string_view gpu_name,
                                    bool chunked, int64_t max_num_seqs) {
    if (o.max_batched_tokens > 0) return o.max_batched_tokens;
    if (chunked && o.prefill_chunk > 0) return o.prefill_chunk;
    const int64_t base = chunked ? vllm_batched_tokens(o, release, gpu_bytes, gpu_name) : std::max<int64_t>(o.context, 2048);
    const int64_t t = std::max<int64_t>(base, 32768);
    return vllm_v1_engine(release) ? std::min(t, max_num_seqs * o.context) : t;
}

int64_t tei_batch_tokens(const InferenceOptions& o) { return o.max_batched_tokens > 0 ? o.max_batched_tokens : kTeiMaxBatchTokens; }

int64_t prompt_tokens(const InferenceOptions& o) { return o.prompt > 0 ? o.prompt : o.context; }

int64_t prefill_tokens(const InferenceOptions& o) {
    const int64_t prompt = prompt_tokens(o);
    return o.prefill_chunk > 0 ? std::min(o.prefill_chunk, prompt) : prompt;
}

double mlp_width(const ModelSpec& m) {
    Numbers n;
    return mlp_width(n, m);
}

double mlp_live_bytes(const ModelSpec& m, int64_t tokens, int64_t tp, double act_bytes) {
    Numbers n;
    return mlp_live_bytes(n, m, static_cast<double>(tokens), tp, act_bytes);
}

double hf_forward_inputs_bytes(const ModelSpec& m, int64_t tokens, double act_bytes) {
    Numbers n;
    return hf_forward_inputs_bytes(n, m, static_cast<double>(tokens), act_bytes);
}

double eager_scores_bytes(const ModelSpec& m, int64_t batch, int64_t q_tokens, int64_t kv_tokens, int64_t tp) {
    Numbers n;
    return eager_scores_bytes(n, m, batch, q_tokens, kv_tokens, tp);
}

double hf_logits_bytes(const ModelSpec& m, int64_t batch, int64_t positions) {
    Numbers n;
    return hf_logits_bytes(n, m, batch, positions);
}

int64_t hf_logit_positions(const InferenceOptions& o) {
    const int64_t q = prefill_tokens(o);
    return o.logits_to_keep > 0 ? std::min(o.logits_to_keep, q) : q;
}

double vllm_sampler_bytes(const ModelSpec& m, int64_t seqs) {
    Numbers n;
    return vllm_sampler_bytes(n, m, seqs);
}

double llamacpp_compute_bytes(const ModelSpec& m, int64_t n_kv, int64_t n_ub, bool flash, bool fa_mask_cast, LlamaCppBackend backend,
                              bool with_attention) {
    Numbers n;
    return llamacpp_compute_bytes(n, m, n_kv, n_ub, flash, fa_mask_cast, backend, with_attention);
}

double llamacpp_attention_bytes(const ModelSpec& m, int64_t n_kv, int64_t n_ub, bool flash, bool fa_mask_cast) {
    Numbers n;
    return llamacpp_attention_bytes(n, m, n_kv, n_ub, flash, fa_mask_cast);
}

double bnb_largest_matrix(const ModelSpec& m) {
    Numbers n;
    return bnb_largest_matrix(n, m);
}

double bnb_dequant_bytes(const ModelSpec& m, int64_t tp, const InferenceOptions& o, bool head_dequantized) {
    Numbers n;
    return bnb_dequant_bytes(n, m, tp, o, head_dequantized);
}

double bnb_requantize_bytes(const ModelSpec& m, int64_t tp, const InferenceOptions& o) {
    Numbers n;
    return bnb_requantize_bytes(n, m, tp, o);
}

}  // namespace vl
