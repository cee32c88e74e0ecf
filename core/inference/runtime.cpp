// Runtime memory of inference. One formula per quantity; citations in runtime.h.
#include "inference/runtime.h"

#include <algorithm>

#include "model/layer_tensors.h"

namespace vl {

double vllm_non_torch_bytes(const InferenceOptions& o, int64_t tp) {
    if (o.engine_overhead_bytes >= 0) return o.engine_overhead_bytes;
    return kVllmNonTorchBytes + (tp > 1 ? kVllmCommBuffersBytes : 0.0);
}

int64_t vllm_batched_tokens(const InferenceOptions& o) {
    if (o.max_batched_tokens > 0) return o.max_batched_tokens;
    if (o.prefill_chunk > 0) return o.prefill_chunk;
    return std::max<int64_t>(o.context, 2048);
}

int64_t prefill_tokens(const InferenceOptions& o) {
    const int64_t prompt = o.prompt > 0 ? o.prompt : o.context;
    return o.prefill_chunk > 0 ? std::min(o.prefill_chunk, prompt) : prompt;
}

double mlp_width(const ModelSpec& m) {
    double f = static_cast<double>(m.ffn);
    if (m.moe.num_experts > 0) {
        const double shared = static_cast<double>(shared_expert_ffn(m));
        f = std::max(f, static_cast<double>(m.moe.top_k) * static_cast<double>(m.moe.expert_ffn) + shared);
    }
    return f;
}

double mlp_live_bytes(const ModelSpec& m, int64_t tokens, int64_t tp, double act_bytes) {
    const double f = mlp_width(m) / static_cast<double>(tp);
    const double per_token = (m.gated_mlp ? 3 : 2) * f + 3 * static_cast<double>(m.hidden);
    return static_cast<double>(tokens) * per_token * act_bytes;
}

double eager_scores_bytes(const ModelSpec& m, int64_t batch, int64_t q_tokens, int64_t kv_tokens, int64_t tp) {
    const double heads = static_cast<double>(std::max<int64_t>(1, m.heads / tp));
    return static_cast<double>(batch) * heads * static_cast<double>(q_tokens) * static_cast<double>(kv_tokens) * (2 + 4);
}

double hf_logits_bytes(const ModelSpec& m, int64_t batch) {
    return static_cast<double>(batch) * static_cast<double>(m.vocab) * (2 + 4);
}

double vllm_sampler_bytes(const ModelSpec& m, int64_t seqs) {
    return static_cast<double>(seqs) * static_cast<double>(m.vocab) * kVllmSamplerBytesPerLogit;
}

double llamacpp_compute_bytes(const ModelSpec& m, int64_t n_kv, int64_t n_ub, bool flash) {
    const double ub = static_cast<double>(n_ub);
    const double logits = static_cast<double>(m.vocab) * ub * 4;
    if (flash) return logits + 3 * mlp_width(m) * ub * 4;
    return 2 * static_cast<double>(n_kv) * ub * static_cast<double>(m.heads) * 4 + logits;
}

double bnb_largest_matrix(const ModelSpec& m) {
    const double h = static_cast<double>(m.hidden);
    return std::max({h * mlp_width(m) / (m.moe.num_experts > 0 ? std::max(1, m.moe.top_k) : 1),
                     h * static_cast<double>(m.heads * m.head_dim),
                     h * static_cast<double>(m.ffn)});
}

double bnb_dequant_bytes(const ModelSpec& m, int64_t tp, bool fp32_compute) {
    return bnb_largest_matrix(m) / static_cast<double>(tp) * (fp32_compute ? 4 : 2);
}

}  // namespace vl
