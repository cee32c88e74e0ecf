// Exact parameter counts: the sums of the tensor inventory (model/layer_tensors.h). Tests check the
// totals against published counts (model cards, papers, llama.cpp), not against this file.
#include "param_count.h"

#include <algorithm>
#include <array>

#include "model/layer_tensors.h"

namespace vl {

LayerPattern layer_pattern(const ModelSpec& m) {
    return {m.moe.num_experts, m.moe.first_dense_layers, m.moe.moe_layer_freq, m.sliding_window, m.sliding_window_pattern,
            m.ssm.active(), m.ssm.attn_period, m.ssm.attn_offset};
}

// Mamba layers: every layer of a state-space model but those that keep attention, i % attn_period ==
// attn_offset (Jamba: JambaModel builds JambaAttentionDecoderLayer there, JambaMambaDecoderLayer
// elsewhere [transformers-code]).
bool LayerPattern::ssm(int64_t layer) const {
    if (!ssm_model) return false;
    return !(attn_period > 0 && layer % attn_period == attn_offset);
}

int64_t LayerPattern::attention_count(int64_t begin, int64_t end) const {
    if (end <= begin) return 0;
    if (!ssm_model) return end - begin;
    int64_t n = 0;
    for (int64_t i = begin; i < end; ++i) n += ssm(i) ? 0 : 1;
    return n;
}

// MoE layers: after first_dense_layers, every moe_layer_freq-th layer (Qwen2-MoE decoder_sparse_step:
// (i+1) % step == 0; DeepSeek first_k_dense_replace with moe_layer_freq 1).
bool LayerPattern::moe(int64_t layer) const {
    if (num_experts <= 0 || layer < first_dense_layers) return false;
    const int64_t freq = std::max<int64_t>(1, moe_layer_freq);
    return (layer + 1) % freq == 0;
}

// Sliding window: every layer (Mistral), or all but every n-th (Gemma2 n=2, Gemma3 n=6:
// modeling_gemma3 is_sliding = (i+1) % sliding_window_pattern != 0).
bool LayerPattern::sliding(int64_t layer) const {
    if (sliding_window <= 0) return false;
    if (sliding_window_pattern <= 0) return true;
    return (layer + 1) % sliding_window_pattern != 0;
}

// Layer numbers i+1 in (max(begin, first_dense_layers), end] divisible by moe_layer_freq.
int64_t LayerPattern::moe_count(int64_t begin, int64_t end) const {
    if (num_experts <= 0) return 0;
    begin = std::max(begin, first_dense_layers);
    if (end <= begin) return 0;
    const int64_t freq = std::max<int64_t>(1, moe_layer_freq);
    return end / freq - begin / freq;
}

bool layer_is_moe(const ModelSpec& m, int64_t layer) { return layer_pattern(m).moe(layer); }
bool layer_is_sliding(const ModelSpec& m, int64_t layer) { return layer_pattern(m).sliding(layer); }
bool layer_is_ssm(const ModelSpec& m, int64_t layer) { return layer_pattern(m).ssm(layer); }

// One layer's counts from its tensors: the attention module or the Mamba mixer, the MLP (dense, or
// routed + shared experts + router) and the layer norms. A token uses top_k of the routed experts and
// all the rest.
static LayerParams layer_params(const ModelSpec& m, LayerKind kind) {
    LayerParams l;
    l.kind = kind;
    for_each_layer_tensor(m, kind, [&](const Tensor& t) {
        const int64_t p = t.params();
        switch (t.kind) {
            case TensorKind::Attention: l.attention += p; break;
            case TensorKind::Ssm: l.ssm += p; break;
            case TensorKind::Norm: l.norms += p; break;
            default:
                l.mlp += p;
                l.active_mlp += t.routed() ? m.moe.top_k * t.elements() : p;
                break;
        }
    });
    return l;
}

ParamCounts count_params(const ModelSpec& m) {
    ParamCounts p;
    if (!m.architecture_known()) {
        p.total = p.trainable = p.active_per_token = p.non_embedding = p.largest_layer = m.params_only;
        return p;
    }
    // Outside the layers: token (+ learned position) embeddings, lm_head (+ bias; tied: none of its
    // own), BLOOM's embedding norm and OPT's project_in/out, the final norm.
    int64_t token_embedding = 0;
    for_each_model_tensor(m, [&](const Tensor& t) {
        const int64_t n = t.params();
        switch (t.kind) {
            case TensorKind::Embedding:
                p.embedding += n;
                if (t.split == TensorSplit::Vocab) token_embedding = n;
                break;
            case TensorKind::Head: p.lm_head += n; break;
            case TensorKind::FinalNorm: p.final_norm += n; break;
            default: p.embedding_norm += n; break;
        }
    });

    // Every layer is one of four kinds, dense or MoE, attention or Mamba (each present kind counted
    // once: the numeric path runs per estimate); the table answers per layer.
    const LayerPattern pattern = layer_pattern(m);
    std::array<LayerParams, 4> kinds{};
    int64_t layers_total = 0, layers_active = 0, largest = 0;
    pattern.for_each_kind(0, m.layers, [&](LayerKind k, int64_t n) {
        const LayerParams l = layer_params(m, k);
        kinds[k.index()] = l;
        layers_total += n * l.total();
        layers_active += n * l.active();
        largest = std::max(largest, l.total());
    });
    p.per_layer = LayerTable(m.layers, pattern, kinds);

    const int64_t outside_layers = p.embedding + p.lm_head + p.embedding_norm + p.final_norm;
    p.total = outside_layers + layers_total;
    p.trainable = p.total;
    p.non_embedding = p.total - p.embedding - p.lm_head;
    p.active_per_token = outside_layers + layers_active;
    p.largest_layer = std::max({largest, token_embedding, p.lm_head});
    for_each_mtp_tensor(m, [&](const Tensor& t) { p.mtp += t.params(); });
    return p;
}

}  // namespace vl
