// Parallel splitting rules shared by training and inference.
// MINIMAL version written by the inference helper (issue 5) before the training helper's
// parallel rules landed; the lead reconciles it with theirs. Pure functions, no state.
#pragma once
#include <algorithm>
#include <cstdint>

namespace vl {

// Layers held by pipeline stage `stage` of `pp`: an even split, the remainder going to the first
// stages (Megatron-LM / vLLM get_pp_indices split layers contiguously and as evenly as possible).
inline int64_t first_layer_of_stage(int64_t layers, int64_t pp, int64_t stage) {
    const int64_t base = layers / pp, extra = layers % pp;
    return stage * base + std::min(stage, extra);
}
inline int64_t layers_on_stage(int64_t layers, int64_t pp, int64_t stage) {
    return first_layer_of_stage(layers, pp, stage + 1) - first_layer_of_stage(layers, pp, stage);
}

// KV heads held by one tensor-parallel rank: heads are split across ranks, and when tp exceeds
// the KV heads each rank keeps a replica of one (vLLM QKVParallelLinear:
// num_kv_heads = max(1, total_num_kv_heads // tp_size)).
inline int64_t kv_heads_per_rank(int64_t kv_heads, int64_t tp) {
    return std::max<int64_t>(1, kv_heads / tp);
}

}  // namespace vl
