// Exact parameter counts of a ModelSpec: sums over its tensor inventory (model/layer_tensors.h).
#pragma once
#include <cstdint>

#include "model_spec.h"

namespace vl {

struct LayerParams {
    int64_t attention = 0;   // q, k, v, o (+ biases, qk-norms, MLA projections and norms)
    int64_t mlp = 0;         // dense MLP, or all routed + shared experts + router in an MoE layer
    int64_t norms = 0;       // layer norms of this layer
    int64_t active_mlp = 0;  // MLP params one token touches (top_k experts + shared + router)
    bool moe = false;
    bool sliding = false;    // uses the sliding window
    int64_t total() const { return attention + mlp + norms; }
    int64_t active() const { return attention + active_mlp + norms; }
};

// Which layers route to experts and which use the sliding window: ModelSpec's layer patterns, kept
// with the counts so per-layer questions need no ModelSpec (layer_is_moe / layer_is_sliding use it too).
struct LayerPattern {
    int64_t num_experts = 0;
    int64_t first_dense_layers = 0;
    int64_t moe_layer_freq = 1;
    int64_t sliding_window = 0;
    int64_t sliding_window_pattern = 0;
    bool moe(int64_t layer) const;      // layer (0-based) uses routed experts
    bool sliding(int64_t layer) const;  // layer (0-based) uses the sliding window
    int64_t moe_count(int64_t begin, int64_t end) const;  // MoE layers among [begin, end)
};
LayerPattern layer_pattern(const ModelSpec& m);

// The per-layer counts. Layers differ only in being dense or MoE (and sliding or global), so the table
// keeps one LayerParams per kind and answers layer i from the pattern: no per-layer storage, so
// counting parameters allocates nothing (estimate() counts them on every call).
class LayerTable {
public:
    LayerTable() = default;
    LayerTable(int64_t layers, const LayerPattern& pattern, const LayerParams& dense, const LayerParams& moe)
        : layers_(static_cast<size_t>(layers)), pattern_(pattern), dense_(dense), moe_(moe) {}
    size_t size() const { return layers_; }
    bool empty() const { return layers_ == 0; }
    LayerParams operator[](size_t layer) const {  // by value: the layer's kind with its sliding flag
        LayerParams l = kind(layer);
        l.sliding = pattern_.sliding(static_cast<int64_t>(layer));
        return l;
    }
    // The layer's counts without its sliding flag (sliding = false): for callers that need only sizes.
    const LayerParams& kind(size_t layer) const { return pattern_.moe(static_cast<int64_t>(layer)) ? moe_ : dense_; }
    const LayerParams& dense() const { return dense_; }
    const LayerParams& moe() const { return moe_; }
    const LayerPattern& pattern() const { return pattern_; }

private:
    size_t layers_ = 0;
    LayerPattern pattern_;
    LayerParams dense_, moe_;
};

struct ParamCounts {
    int64_t embedding = 0;        // token (+ learned position) embeddings
    int64_t lm_head = 0;          // 0 when tied
    int64_t final_norm = 0;
    int64_t embedding_norm = 0;   // LayerNorm after the embedding (BLOOM) + OPT project_in/out
    int64_t total = 0;            // every parameter in the checkpoint
    int64_t trainable = 0;        // parameters with gradients in full training (== total; buffers are not parameters)
    int64_t non_embedding = 0;    // total - embedding - lm_head
    int64_t active_per_token = 0; // MoE: parameters one token uses (dense: == total)
    int64_t largest_layer = 0;    // largest transformer layer (or embedding if larger), params
    LayerTable per_layer;         // one entry per layer; empty when params_only
};

// Exact counts from the architecture; params_only models get total = params_only and no breakdown.
// Call on a model that passed validate_model (sizes are then small enough not to overflow int64).
ParamCounts count_params(const ModelSpec& m);

bool layer_is_moe(const ModelSpec& m, int64_t layer);           // layer (0-based) uses routed experts
bool layer_is_sliding(const ModelSpec& m, int64_t layer);       // layer (0-based) uses the sliding window

}  // namespace vl
