// Exact parameter counts of a ModelSpec: sums over its tensor inventory (model/layer_tensors.h).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "model_spec.h"

namespace vl {

// What a layer is made of: attention or a state-space (Mamba) mixer, a dense MLP or routed experts; on a
// model that lists its layers (SsmSpec::layer_list, Nemotron-H), a mixer alone or an MLP alone.
struct LayerKind {
    bool moe = false;       // the MLP is routed experts
    bool ssm = false;       // the mixer is a Mamba block instead of attention
    bool no_mixer = false;  // an MLP-only layer (Nemotron-H '-' / 'E')
    bool no_mlp = false;    // a mixer-only layer (Nemotron-H 'M' / '*')
    bool cross = false;     // a cross-attention layer (Mllama's text_config.cross_attention_layers): attends to the image
    // A Zamba hybrid layer (SsmSpec::shared_blocks, layer_list 'h'): a Mamba layer alone that first runs a shared transformer
    // block (its attention keeps a KV cache here), with its own linear and adapters; shared_owner: the block's weights are
    // counted on this layer (the first invocation of each block), once for the model.
    bool shared = false;
    bool shared_owner = false;
    // 0..11, LayerTable's slot: mixer (attention, Mamba, none, cross-attention) x MLP (dense, MoE, none); 12, 13: a Zamba
    // hybrid layer, without or with its block's weights
    size_t index() const {
        if (shared) return shared_owner ? 13u : 12u;
        return (cross ? 9u : no_mixer ? 6u : ssm ? 3u : 0u) + (no_mlp ? 2u : moe ? 1u : 0u);
    }
    static LayerKind of_index(size_t k) {
        if (k >= 12) return {false, true, false, true, false, true, k == 13};
        return {k % 3 == 1, k / 3 == 1, k / 3 == 2, k % 3 == 2, k / 3 == 3};
    }
};
inline constexpr size_t kLayerKinds = 14;

struct LayerParams {
    int64_t attention = 0;   // q, k, v, o (+ biases, qk-norms, MLA projections and norms)
    int64_t ssm = 0;         // the Mamba mixer (in_proj, conv1d, x_proj/dt_proj or dt_bias, A_log, D, norm, out_proj)
    int64_t mlp = 0;         // dense MLP, or all routed + shared experts + router in an MoE layer
    int64_t norms = 0;       // layer norms of this layer
    int64_t active_mlp = 0;  // MLP params one token touches (top_k experts + shared + router)
    LayerKind kind;
    bool sliding = false;    // uses the sliding window
    int64_t total() const { return attention + ssm + mlp + norms; }
    int64_t active() const { return attention + ssm + active_mlp + norms; }
};

// Which layers route to experts and which use the sliding window: ModelSpec's layer patterns, kept
// with the counts so per-layer questions need no ModelSpec (layer_is_moe / layer_is_sliding use it too).
struct LayerPattern {
    int64_t num_experts = 0;
    int64_t first_dense_layers = 0;
    int64_t moe_layer_freq = 1;
    int64_t sliding_window = 0;
    int64_t sliding_window_pattern = 0;
    bool ssm_model = false;             // a model with Mamba layers (ModelSpec::ssm)
    int64_t attn_period = 0;            // SsmSpec::attn_period / attn_offset
    int64_t attn_offset = 0;
    bool parallel_attention = false;    // SsmSpec::parallel_attention: attention beside every Mamba mixer
    // SsmSpec::layer_list, or Mllama's cross-attention layers among self-attention ones (VisionSpec::cross_layers), one
    // code per layer (kMixer* + kNoMlp); listed == 0: the periodic rule.
    // kShared: a Zamba hybrid layer ('h'); kSharedOwner: one of the first shared_blocks of them, which hold the blocks' weights.
    static constexpr uint8_t kMixerAttention = 0, kMixerSsm = 1, kMixerNone = 2, kMixerCross = 3, kNoMlp = 4, kShared = 8, kSharedOwner = 16;
    int64_t listed = 0;
    std::array<uint8_t, kMaxListedLayers> codes{};
    // An encoder-decoder (Seq2SeqSpec): its encoder's layers, listed first. They attend without a cache, so attention() (the
    // layers whose KV cache grows with the context) is the decoder's layers only; cross() too.
    int64_t encoder_layers = 0;
    bool moe(int64_t layer) const;      // layer (0-based) uses routed experts
    bool sliding(int64_t layer) const;  // layer (0-based) uses the sliding window
    bool ssm(int64_t layer) const;      // layer (0-based) has a Mamba mixer instead of attention
    bool attention(int64_t layer) const;  // layer (0-based) has self-attention (and so a KV cache by context), beside its mixer or alone
    bool cross(int64_t layer) const;      // layer (0-based) is a cross-attention layer (its KV cache is the image's, not the context's)
    int64_t cross_count(int64_t begin, int64_t end) const;  // cross-attention layers among [begin, end)
    LayerKind kind(int64_t layer) const;
    int64_t moe_count(int64_t begin, int64_t end) const;  // MoE layers among [begin, end)
    int64_t attention_count(int64_t begin, int64_t end) const;  // attention layers among [begin, end)
    int64_t ssm_count(int64_t begin, int64_t end) const;        // Mamba layers among [begin, end)
    int64_t mlp_count(int64_t begin, int64_t end) const;        // layers with an MLP slot among [begin, end)
    // The layers among [begin, end) of each kind: f(LayerKind, count) for every kind with count > 0,
    // in LayerKind::index order (dense before MoE, attention before Mamba).
    template <class F>
    void for_each_kind(int64_t begin, int64_t end, F&& f) const {
        if (end <= begin) return;
        if (!ssm_model && listed == 0) {
            const int64_t n_moe = moe_count(begin, end);
            if (end - begin - n_moe > 0) f(LayerKind{false, false}, end - begin - n_moe);
            if (n_moe > 0) f(LayerKind{true, false}, n_moe);
            return;
        }
        int64_t n[kLayerKinds] = {};
        for (int64_t i = begin; i < end; ++i) ++n[kind(i).index()];
        for (size_t k = 0; k < kLayerKinds; ++k)
            if (n[k] > 0) f(LayerKind::of_index(k), n[k]);
    }
};
LayerPattern layer_pattern(const ModelSpec& m);

// The per-layer counts. Layers differ only in their kind (dense or MoE, attention or Mamba, or one alone) and in
// being sliding or global, so the table keeps one LayerParams per kind and answers layer i from the
// pattern: no per-layer storage, so counting parameters allocates nothing (estimate() counts them on
// every call).
class LayerTable {
public:
    LayerTable() = default;
    LayerTable(int64_t layers, const LayerPattern& pattern, const std::array<LayerParams, kLayerKinds>& kinds)
        : layers_(static_cast<size_t>(layers)), pattern_(pattern), kinds_(kinds) {}
    size_t size() const { return layers_; }
    bool empty() const { return layers_ == 0; }
    LayerParams operator[](size_t layer) const {  // by value: the layer's kind with its sliding flag
        LayerParams l = kind(layer);
        l.sliding = pattern_.sliding(static_cast<int64_t>(layer));
        return l;
    }
    // The layer's counts without its sliding flag (sliding = false): for callers that need only sizes.
    const LayerParams& kind(size_t layer) const { return of(pattern_.kind(static_cast<int64_t>(layer))); }
    const LayerParams& of(LayerKind k) const { return kinds_[k.index()]; }
    const LayerParams& dense() const { return of({false, false}); }  // a dense attention layer
    const LayerParams& moe() const { return of({true, false}); }     // an MoE attention layer
    const LayerPattern& pattern() const { return pattern_; }

private:
    friend void count_params(const ModelSpec& m, struct ParamCounts& p);  // fills a table in place
    size_t layers_ = 0;
    LayerPattern pattern_;
    std::array<LayerParams, kLayerKinds> kinds_{};
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
    int64_t mtp = 0;              // multi-token-prediction layers the checkpoint also holds (not in total)
    int64_t vision = 0;           // a vision-language model's vision tower (not in total; ModelSpec::vision)
    int64_t projector = 0;        // its projector into the language model (not in total)
    LayerTable per_layer;         // one entry per layer; empty when params_only
};

// Exact counts from the architecture; params_only models get total = params_only and no breakdown.
// Call on a model that passed validate_model (sizes are then small enough not to overflow int64).
ParamCounts count_params(const ModelSpec& m);
// The same counts written into p (every field): estimate() fills its Estimate's own ParamCounts, which
// spares copying the 0.9 KB result per estimate (a memcpy call per copy in WebAssembly).
void count_params(const ModelSpec& m, ParamCounts& p);

bool layer_is_moe(const ModelSpec& m, int64_t layer);           // layer (0-based) uses routed experts
bool layer_is_sliding(const ModelSpec& m, int64_t layer);       // layer (0-based) uses the sliding window
bool layer_list_char_known(char c);                              // c is one of SsmSpec::layer_list's characters

}  // namespace vl
