// KV cache (issue 5): bytes per token and per sequence for MHA/GQA/MQA, MLA's compressed cache,
// sliding-window layers, quantized KV dtypes and paged blocks.
#pragma once
#include <cstdint>

#include "model_spec.h"
#include "scenario.h"

namespace vl {

// Bytes of one cached element, scale overhead included.
double kv_bytes_per_element(KvDtype t);
const char* kv_dtype_name(KvDtype t);

// Elements one layer caches per token on one tensor-parallel rank:
// standard attention 2 * kv_heads_per_rank * head_dim (K and V); MLA kv_lora_rank + qk_rope_head_dim.
int64_t kv_elements_per_token_layer(const ModelSpec& m, int64_t tp);


// Bytes of the KV cache of one sequence of `tokens` tokens for layers [begin, end) on one rank.
// Sliding-window layers hold at most the window when cap_window; each layer's length is rounded up
// to whole blocks of block_size tokens (1 = no paging).
double kv_sequence_bytes(const ModelSpec& m, KvDtype t, int64_t tp, int64_t begin, int64_t end,
                         int64_t tokens, int64_t block_size, bool cap_window);

// Bytes per token with every layer holding every token (vLLM's pool unit, the "KV per token" of [vllm-paper §3]).
double kv_bytes_per_token(const ModelSpec& m, KvDtype t, int64_t tp, int64_t begin, int64_t end);

}  // namespace vl
