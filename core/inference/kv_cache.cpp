// KV cache sizes. One formula each; the citation sits beside it.
#include "inference/kv_cache.h"

#include <algorithm>

#include "param_count.h"
#include "parallel.h"

namespace vl {

double kv_bytes_per_element(KvDtype t) {
    switch (t) {
        case KvDtype::FP16: case KvDtype::BF16: return 2;
        case KvDtype::FP8: return 1;               // e4m3/e5m2 with one fp32 scale per tensor (vLLM kv_cache_dtype fp8)
        case KvDtype::INT8: return 34.0 / 32;      // ggml q8_0 cache: 32 int8 + fp16 scale per block (llama.cpp -ctk q8_0)
        case KvDtype::INT4: return 18.0 / 32;      // ggml q4_0 cache: 32 nibbles + fp16 scale (llama.cpp -ctk q4_0)
    }
    return 2;
}

const char* kv_dtype_name(KvDtype t) {
    switch (t) {
        case KvDtype::FP16: return "fp16";
        case KvDtype::BF16: return "bf16";
        case KvDtype::FP8: return "fp8";
        case KvDtype::INT8: return "int8 (q8_0)";
        case KvDtype::INT4: return "int4 (q4_0)";
    }
    return "?";
}

int64_t kv_elements_per_token_layer(const ModelSpec& m, int64_t tp) {
    // MLA caches the compressed latent c_KV and the decoupled RoPE key, shared by all heads and
    // replicated on every TP rank: (d_c + d_h^R) per layer (DeepSeek-V2 Table 1), no factor 2.
    if (m.attention == AttentionKind::MLA) return m.mla.kv_lora_rank + m.mla.qk_rope_head_dim;
    // K and V: 2 * kv_heads * head_dim per layer ([vllm-paper §3], generalised to GQA/MQA).
    return 2 * kv_heads_per_rank(m, tp) * m.head_dim;
}

double kv_sequence_bytes(const ModelSpec& m, KvDtype t, int64_t tp, int64_t begin, int64_t end,
                         int64_t tokens, int64_t block_size, bool cap_window) {
    const double per_layer_token = static_cast<double>(kv_elements_per_token_layer(m, tp)) * kv_bytes_per_element(t);
    const int64_t bs = std::max<int64_t>(block_size, 1);
    double total = 0;
    for (int64_t i = begin; i < end; ++i) {
        const int64_t held = (cap_window && layer_is_sliding(m, i)) ? std::min(tokens, m.sliding_window) : tokens;
        const int64_t rounded = (held + bs - 1) / bs * bs;  // paged: whole blocks ([vllm-paper §4.1])
        total += static_cast<double>(rounded) * per_layer_token;
    }
    return total;
}

double kv_bytes_per_token(const ModelSpec& m, KvDtype t, int64_t tp, int64_t begin, int64_t end) {
    return static_cast<double>(end - begin) * static_cast<double>(kv_elements_per_token_layer(m, tp)) * kv_bytes_per_element(t);
}

}  // namespace vl
