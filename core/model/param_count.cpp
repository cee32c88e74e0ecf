// Exact parameter counts: the sums of the tensor inventory (model/layer_tensors.h). Tests check the
// totals against published counts (model cards, papers, llama.cpp), not against this file.
#include "param_count.h"

#include <algorithm>
#include <array>

#include "model/layer_tensors.h"

namespace vl {

// SsmSpec::layer_list's character -> LayerPattern's code; 0xff for a character that names no layer kind
// (validate_model refuses it).
static uint8_t layer_code(char c) {
    using P = LayerPattern;
    switch (c) {
        case kLayerAttentionMlp: return P::kMixerAttention;
        case kLayerMambaMlp: return P::kMixerSsm;
        case kLayerAttention: return P::kMixerAttention | P::kNoMlp;
        case kLayerMamba: return P::kMixerSsm | P::kNoMlp;
        case kLayerMlp: return P::kMixerNone;
        case kLayerMambaShared: return P::kMixerSsm | P::kNoMlp | P::kShared;
        default: return 0xff;
    }
}

bool layer_list_char_known(char c) { return layer_code(c) != 0xff; }

// The pattern written into p, every field (the codes past the list are never read).
static void fill_layer_pattern(const ModelSpec& m, LayerPattern& p) {
    p.num_experts = m.moe.num_experts;
    p.first_dense_layers = m.moe.first_dense_layers;
    p.moe_layer_freq = m.moe.moe_layer_freq;
    p.sliding_window = m.sliding_window;
    p.sliding_window_pattern = m.sliding_window_pattern;
    p.ssm_model = m.ssm.active();
    p.attn_period = m.ssm.attn_period;
    p.attn_offset = m.ssm.attn_offset;
    p.parallel_attention = m.ssm.active() && m.ssm.parallel_attention;
    p.listed = 0;
    p.encoder_layers = 0;
    // Mllama: every layer self-attention but text_config.cross_attention_layers (MllamaTextModel builds
    // MllamaCrossAttentionDecoderLayer there, MllamaSelfAttentionDecoderLayer elsewhere [transformers-mllama]).
    const std::vector<int64_t>& cross = m.vision.cross_layers;
    if (m.vision.mllama() && !cross.empty() && m.layers > 0 && m.layers <= kMaxListedLayers) {
        p.listed = m.layers;
        for (int64_t i = 0; i < m.layers; ++i) p.codes[static_cast<size_t>(i)] = LayerPattern::kMixerAttention;
        for (int64_t c : cross)
            if (c >= 0 && c < m.layers) p.codes[static_cast<size_t>(c)] = LayerPattern::kMixerCross;
        return;
    }
    // An encoder-decoder: the encoder's layers (self-attention), then the decoder's (self- and cross-attention; Seq2SeqSpec).
    if (m.seq2seq.active() && m.layers > 0 && m.layers <= kMaxListedLayers) {
        p.listed = m.layers;
        const int64_t encoder = m.layers - m.seq2seq.decoder_layers;
        p.encoder_layers = encoder;
        for (int64_t i = 0; i < m.layers; ++i) p.codes[static_cast<size_t>(i)] = i < encoder ? LayerPattern::kMixerAttention : LayerPattern::kMixerCross;
        return;
    }
    const std::string& list = m.ssm.layer_list;
    if (p.ssm_model && !list.empty() && static_cast<int64_t>(list.size()) <= kMaxListedLayers) {
        p.listed = static_cast<int64_t>(list.size());
        int64_t invocations = 0;  // Zamba: invocation i runs block i % shared_blocks, so the first shared_blocks hold the weights
        for (size_t i = 0; i < list.size(); ++i) {
            uint8_t c = layer_code(list[i]);
            if (c != 0xff && (c & LayerPattern::kShared) != 0 && invocations++ < m.ssm.shared_blocks) c |= LayerPattern::kSharedOwner;
            p.codes[i] = c == 0xff ? LayerPattern::kMixerAttention : c;
        }
    }
}

LayerPattern layer_pattern(const ModelSpec& m) {
    LayerPattern p;
    fill_layer_pattern(m, p);
    return p;
}

// Mamba layers: every layer of a state-space model but those that keep attention, i % attn_period ==
// attn_offset (Jamba: JambaModel builds JambaAttentionDecoderLayer there, JambaMambaDecoderLayer
// elsewhere [transformers-code]); on a listed model, the layers the list names Mamba (Nemotron-H's
// hybrid_override_pattern 'M' [transformers-code]). Layers past the list's end are attention layers.
bool LayerPattern::ssm(int64_t layer) const {
    if (!ssm_model) return false;
    if (listed > 0) return layer < listed && (codes[static_cast<size_t>(layer)] & 3u) == kMixerSsm;
    return !(attn_period > 0 && layer % attn_period == attn_offset);
}

// Attention layers: a transformer's, a hybrid's non-Mamba layers, and with parallel_attention every
// Mamba layer too (Falcon-H1's FalconH1DecoderLayer holds self_attn beside mamba [transformers-code]).
bool LayerPattern::attention(int64_t layer) const {
    if (!ssm_model && listed == 0) return true;
    if (encoder_layers > 0) return layer >= encoder_layers;  // an encoder-decoder's decoder layers (their self-attention cache)
    if (parallel_attention && ssm(layer)) return true;
    if (listed > 0) return layer >= listed || (codes[static_cast<size_t>(layer)] & 3u) == kMixerAttention || (codes[static_cast<size_t>(layer)] & kShared) != 0;
    return !ssm(layer);
}

bool LayerPattern::cross(int64_t layer) const { return listed > 0 && layer < listed && (codes[static_cast<size_t>(layer)] & 3u) == kMixerCross; }

int64_t LayerPattern::cross_count(int64_t begin, int64_t end) const {
    int64_t n = 0;
    for (int64_t i = begin; i < end && listed > 0; ++i) n += cross(i) ? 1 : 0;
    return n;
}

LayerKind LayerPattern::kind(int64_t layer) const {
    const uint8_t c = listed > 0 && layer < listed ? codes[static_cast<size_t>(layer)] : 0;
    return {moe(layer), ssm(layer), (c & 3u) == kMixerNone, (c & kNoMlp) != 0, (c & 3u) == kMixerCross, (c & kShared) != 0, (c & kSharedOwner) != 0};
}

int64_t LayerPattern::attention_count(int64_t begin, int64_t end) const {
    if (end <= begin) return 0;
    if (!ssm_model && listed == 0) return end - begin;
    int64_t n = 0;
    for (int64_t i = begin; i < end; ++i) n += attention(i) ? 1 : 0;
    return n;
}

int64_t LayerPattern::ssm_count(int64_t begin, int64_t end) const {
    int64_t n = 0;
    for (int64_t i = begin; i < end && ssm_model; ++i) n += ssm(i) ? 1 : 0;
    return n;
}

int64_t LayerPattern::mlp_count(int64_t begin, int64_t end) const {
    if (end <= begin) return 0;
    if (listed == 0) return end - begin;
    int64_t n = 0;
    for (int64_t i = begin; i < end; ++i) n += kind(i).no_mlp ? 0 : 1;
    return n;
}

// MoE layers: after first_dense_layers, every moe_layer_freq-th layer (Qwen2-MoE decoder_sparse_step:
// (i+1) % step == 0; DeepSeek first_k_dense_replace with moe_layer_freq 1).
bool LayerPattern::moe(int64_t layer) const {
    if (num_experts <= 0 || layer < first_dense_layers) return false;
    if (listed > 0 && layer < listed && (codes[static_cast<size_t>(layer)] & kNoMlp) != 0) return false;  // a mixer alone
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
    if (listed > 0) {
        int64_t n = 0;
        for (int64_t i = begin; i < end; ++i) n += moe(i) ? 1 : 0;
        return n;
    }
    begin = std::max(begin, first_dense_layers);
    if (end <= begin) return 0;
    const int64_t freq = std::max<int64_t>(1, moe_layer_freq);
    return end / freq - begin / freq;
}

bool layer_is_moe(const ModelSpec& m, int64_t layer) { return layer_pattern(m).moe(layer); }
bool layer_is_sliding(const ModelSpec& m, int64_t layer) { return layer_pattern(m).sliding(layer); }

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
    count_params(m, p);
    return p;
}

void count_params(const ModelSpec& m, ParamCounts& p) {
    p.embedding = p.lm_head = p.final_norm = p.embedding_norm = p.mtp = p.vision = p.projector = 0;
    LayerTable& table = p.per_layer;
    table.layers_ = 0;
    if (!m.architecture_known()) {
        p.total = p.trainable = p.active_per_token = p.non_embedding = p.largest_layer = m.params_only;
        return;
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

    // Every layer is one of the LayerKinds, dense or MoE, attention or Mamba, or a mixer or an MLP alone
    // (each present kind counted once: the numeric path runs per estimate); the table answers per layer
    // and is built where it lives, in p (no copy of the pattern and the kinds).
    fill_layer_pattern(m, table.pattern_);
    table.kinds_ = {};
    int64_t layers_total = 0, layers_active = 0, largest = 0;
    table.pattern_.for_each_kind(0, m.layers, [&](LayerKind k, int64_t n) {
        LayerParams& l = table.kinds_[k.index()];
        l = layer_params(m, k);
        layers_total += n * l.total();
        layers_active += n * l.active();
        largest = std::max(largest, l.total());
    });
    table.layers_ = static_cast<size_t>(m.layers);

    const int64_t outside_layers = p.embedding + p.lm_head + p.embedding_norm + p.final_norm;
    p.total = outside_layers + layers_total;
    p.trainable = p.total;
    p.non_embedding = p.total - p.embedding - p.lm_head;
    p.active_per_token = outside_layers + layers_active;
    p.largest_layer = std::max({largest, token_embedding, p.lm_head});
    for_each_mtp_tensor(m, [&](const Tensor& t) { p.mtp += t.params(); });
    for (const Tensor& t : vision_tensors(m)) (t.kind == TensorKind::VisionTower ? p.vision : p.projector) += t.params();
}

}  // namespace vl
