// KV cache sizes over plain numbers (the expressions and their citations are in kv_cache.h).
#include "inference/kv_cache.h"

namespace vl {

double kv_bytes_per_element(KvDtype t) {
    Numbers n;
    return kv_element_bytes(n, t);
}

int64_t kv_elements_per_token_layer(const ModelSpec& m, int64_t tp) {
    Numbers n;
    return static_cast<int64_t>(kv_elements(n, m, tp));
}

double kv_sequence_bytes(const ModelSpec& m, KvDtype t, int64_t tp, int64_t begin, int64_t end,
                         int64_t tokens, int64_t block_size, bool cap_window, int64_t window_floor) {
    Numbers n;
    return kv_sequence_bytes(n, m, t, tp, begin, end, tokens, block_size, cap_window, window_floor);
}

bool llamacpp_uses_swa(const ModelSpec& m) {
    if (m.sliding_window <= 0) return false;
    for (const char* t : {"gemma2", "gemma3", "gemma3_text", "cohere2", "gpt_oss", "llama4", "llama4_text"})
        if (m.model_type == t) return true;
    return false;
}

double kv_bytes_per_token(const ModelSpec& m, KvDtype t, int64_t tp, int64_t begin, int64_t end) {
    Numbers n;
    return kv_bytes_per_token(n, m, t, tp, begin, end);
}

double model_dtype_bytes(const InferenceOptions& o) { return o.weights == WeightFormat::FP32 ? 4.0 : 2.0; }

SsmStateLayout ssm_state_layout(const InferenceOptions& o, const SsmSpec& x) {
    if (o.engine == Engine::LlamaCpp) return {false, 4, 4};
    const double model_dtype = model_dtype_bytes(o);
    const bool transformers = o.engine == Engine::Transformers;
    // The delta-rule state: fp32 as transformers' kernels return it; vLLM's in mamba_ssm_dtype.
    const bool fp32_state = x.kind == SsmKind::GatedDeltaNet && (transformers || x.fp32_state);
    return {transformers, model_dtype, fp32_state ? 4 : model_dtype};
}

double ssm_sequence_bytes(const ModelSpec& m, int64_t begin, int64_t end, const SsmStateLayout& l, int64_t tp) {
    Numbers n;
    return ssm_sequence_bytes(n, m, begin, end, l, tp);
}

}  // namespace vl
