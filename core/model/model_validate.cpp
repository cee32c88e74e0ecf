// ModelSpec rules (issue 3). Each error names the Hugging Face config.json field and the rule, with
// the offending value. Bounds keep count_params inside int64 and reject typos (hidden 40960000).
#include "model/model_validate.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "cold.h"
#include "model/layer_tensors.h"
#include "text_format.h"
#include "param_count.h"
#include "parallel.h"

namespace vl {

namespace {

// Sanity bounds: far above any published model (largest hidden 25600 in Korthikanti 2022 Table 3,
// largest vocab 256k Gemma, most experts 256 DeepSeek-V3), far below int64 overflow in count_params.
constexpr int64_t kMaxHidden = 1'000'000;
constexpr int64_t kMaxFfn = 10'000'000;
constexpr int64_t kMaxVocab = 100'000'000;
constexpr int64_t kMaxLayers = 100'000;
constexpr int64_t kMaxHeads = 100'000;
constexpr int64_t kMaxExperts = 100'000;
constexpr int64_t kMaxPositions = 1'000'000'000;
constexpr double kMaxParams = 1e13;  // 10 trillion: no checkpoint is near this

struct Checker {
    std::vector<FieldError>& errs;
    std::string_view prefix;

    void fail(const char* field, std::string msg) { errs.push_back({std::string(prefix) + field, std::move(msg)}); }

    // lo <= v <= hi; returns whether it held.
    bool range(const char* field, int64_t v, int64_t lo, int64_t hi) {
        if (v < lo) {
            cold([&] { fail(field, (lo == 1 ? std::string("must be > 0") : "must be >= " + std::to_string(lo)) +
                                       "; got " + std::to_string(v)); });
            return false;
        }
        if (v > hi) {
            cold([&] { fail(field, "must be at most " + std::to_string(hi) + " (absurd size); got " + std::to_string(v)); });
            return false;
        }
        return true;
    }
};

// The parameter count in double (no overflow), from the tensor inventory, to reject absurd models
// before count_params sums it in int64. Called once every size is within the bounds above, where one
// tensor has at most 1e18 elements (an MoE block: 1e5 experts * 1e7 * 1e6), within int64.
double params_in_double(const ModelSpec& m) {
    double total = 0;
    for_each_model_tensor(m, [&](const Tensor& t) { total += static_cast<double>(t.params()); });
    for (const Tensor& t : vision_tensors(m)) total += static_cast<double>(t.params());
    layer_pattern(m).for_each_kind(0, m.layers, [&](LayerKind k, int64_t n) {
        double layer = 0;
        for (const Tensor& t : layer_tensors(m, k)) layer += static_cast<double>(t.params());
        total += static_cast<double>(n) * layer;
    });
    return total;
}

// The inventory multiplies at most two dimensions (heads * head_dim) when it builds a shape: with each
// below 2^31 no product overflows int64, even on a model validate_model rejects.
bool dims_in_int32(const ModelSpec& m) {
    const MLASpec& x = m.mla;
    for (const int64_t v : {m.vocab, m.hidden, m.heads, m.kv_heads, m.head_dim, m.ffn, m.embed_dim, m.max_position, m.position_offset,
                            int64_t{m.moe.num_experts}, m.moe.expert_ffn, int64_t{m.moe.shared_experts}, m.moe.shared_expert_ffn,
                            x.q_lora_rank, x.kv_lora_rank, x.qk_rope_head_dim, x.qk_nope_head_dim, x.v_head_dim, m.ssm.inner,
                            m.ssm.state, m.ssm.conv_kernel, m.ssm.dt_rank, m.ssm.heads, m.ssm.groups, m.vision.hidden, m.vision.ffn,
                            m.vision.image_size, m.vision.patch, m.vision.channels, m.vision.temporal_patch, m.vision.merge,
                            m.seq2seq.decoder_layers, m.seq2seq.relative_buckets})
        if (v < 0 || v > INT32_MAX) return false;
    return true;
}

// A Hugging Face name part (organization or repository) or a revision: letters, digits and . _ -
// (and / in a branch name), no "..": it is put into Hub URLs when the model is fetched again.
bool hub_name_text(const std::string& s, size_t max, bool slash) {
    if (s.empty() || s.size() > max || s.find("..") != std::string::npos) return false;
    for (char ch : s) {
        const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
                        ch == '-' || (slash && ch == '/');
        if (!ok) return false;
    }
    return true;
}

// SsmSpec::layer_list: one known character per layer, instead of the attention period.
void validate_layer_list(const ModelSpec& m, Checker& c, bool layers_ok) {
    const std::string& list = m.ssm.layer_list;
    if (list.empty()) return;
    // appended piecewise: GCC 12 -O3 warns falsely (-Wrestrict) on a chain of + with single characters
    std::string kinds = "one character per layer: ";
    const std::pair<char, const char*> meaning[] = {{kLayerMambaMlp, "Mamba + MLP"}, {kLayerAttentionMlp, "attention + MLP"},
                                                    {kLayerMamba, "Mamba alone"},    {kLayerAttention, "attention alone"},
                                                    {kLayerMlp, "MLP alone"},        {kLayerMambaShared, "Mamba after a shared block (Zamba)"}};
    for (const auto& [ch, what] : meaning) {
        if (ch != kLayerMambaMlp) kinds += ", ";
        kinds += '\'';
        kinds += ch;
        kinds += "' ";
        kinds += what;
    }
    const int64_t n = static_cast<int64_t>(list.size());
    if (n > kMaxListedLayers)
        cold([&] { c.fail("ssm.layer_list", "lists " + std::to_string(n) + " layers; at most " + std::to_string(kMaxListedLayers) + " can be listed"); });
    else if (layers_ok && n != m.layers)
        cold([&] { c.fail("ssm.layer_list", "must list num_hidden_layers (" + std::to_string(m.layers) + ") layers, " + kinds + "; got " + std::to_string(n)); });
    for (size_t i = 0; i < list.size(); ++i)
        if (!layer_list_char_known(list[i])) {
            std::string msg = "[";
            msg += std::to_string(i);
            msg += "] is '";
            msg += list[i];
            msg += "'; use ";
            msg += kinds;
            cold([&] { c.fail("ssm.layer_list", msg); });
            break;
        }
    if (m.ssm.attn_period != 0)
        cold([&] { c.fail("ssm.attn_period", "must be 0 when ssm.layer_list names every layer; got " + std::to_string(m.ssm.attn_period)); });
}

// Zamba's shared transformer blocks (SsmSpec::shared_blocks): run by the 'h' layers of ssm.layer_list, in front of a Mamba
// mixer; an MLP of intermediate_size; adapters only with a rank.
void validate_shared_blocks(const ModelSpec& m, Checker& c) {
    const SsmSpec& x = m.ssm;
    const int64_t invocations = static_cast<int64_t>(std::count(x.layer_list.begin(), x.layer_list.end(), kLayerMambaShared));
    if (!c.range("ssm.shared_blocks", x.shared_blocks, 0, kMaxLayers)) return;
    if (invocations > 0 && x.shared_blocks == 0)
        cold([&] { c.fail("ssm.shared_blocks", "must be at least 1: ssm.layer_list has " + std::to_string(invocations) +
                                                   " 'h' layers, which run a shared transformer block (Zamba num_mem_blocks)"); });
    if (x.shared_blocks > 0 && invocations == 0)
        cold([&] { c.fail("ssm.shared_blocks", "is " + std::to_string(x.shared_blocks) +
                                                   " but no layer runs a shared block: mark those layers 'h' in ssm.layer_list, or set 0"); });
    if (x.shared_blocks > 0 && x.kind == SsmKind::GatedDeltaNet)
        cold([&] { c.fail("ssm.shared_blocks", "is for a Mamba backbone (Zamba: Mamba1, Zamba2: Mamba2); set ssm.kind mamba1 or mamba2, or 0"); });
    if (x.shared_blocks > 0 && m.ffn <= 0)
        cold([&] { c.fail("intermediate_size", "must be at least 1: the shared blocks hold an MLP of that width; got " + std::to_string(m.ffn)); });
    c.range("ssm.adapter_rank", x.adapter_rank, 0, kMaxHidden);
    if (x.attn_adapters && x.adapter_rank <= 0)
        cold([&] { c.fail("ssm.attn_adapters", "needs ssm.adapter_rank above 0 (the adapters' rank); got " + std::to_string(x.adapter_rank)); });
}

// The Mamba mixer's sizes (SsmSpec), named as in the scenario (model.ssm.*): Mamba1 needs d_inner,
// d_state, d_conv and dt_rank; Mamba2 heads that split d_inner evenly, groups that split the heads and a chunk size.
void validate_ssm(const ModelSpec& m, Checker& c, bool layers_ok) {
    const SsmSpec& x = m.ssm;
    c.range("ssm.inner", x.inner, 1, kMaxFfn);
    c.range("ssm.state", x.state, 1, 65536);
    c.range("ssm.conv_kernel", x.conv_kernel, 1, 1024);
    if (c.range("ssm.attn_period", x.attn_period, 0, layers_ok ? m.layers : kMaxLayers) && x.attn_period > 0)
        c.range("ssm.attn_offset", x.attn_offset, 0, x.attn_period - 1);
    else if (x.attn_offset != 0)
        cold([&] { c.fail("ssm.attn_offset", "must be 0 when ssm.attn_period is 0 (no attention layer); got " + std::to_string(x.attn_offset)); });
    validate_layer_list(m, c, layers_ok);
    // Attention beside the mixer (Falcon-H1) is on every layer: no attention-only layers, a Mamba mixer.
    if (x.parallel_attention && (x.attn_period != 0 || !x.layer_list.empty()))
        cold([&] { c.fail("ssm.parallel_attention", "puts attention beside the mixer on every layer, so ssm.attn_period must be 0 and ssm.layer_list empty"); });
    else if (x.parallel_attention && x.kind == SsmKind::GatedDeltaNet)
        cold([&] { c.fail("ssm.parallel_attention", "is for a Mamba mixer (Falcon-H1's Mamba2); a Gated DeltaNet layer has no attention beside it"); });
    // Zamba's fields, checked in a function the page's first view (a model without them) does not run (cold.h).
    if (x.shared_blocks != 0 || x.adapter_rank != 0 || x.attn_adapters || x.layer_list.find(kLayerMambaShared) != std::string::npos)
        cold([&] { validate_shared_blocks(m, c); });
    if (x.kind == SsmKind::Mamba1) {
        c.range("ssm.dt_rank", x.dt_rank, 1, kMaxHidden);
    } else if (x.kind == SsmKind::GatedDeltaNet) {
        // Gated DeltaNet: value heads (ssm.heads) of equal width, key heads (ssm.groups) shared by them.
        if (c.range("ssm.heads", x.heads, 1, kMaxHeads) && x.inner > 0 && x.inner % x.heads != 0)
            cold([&] { c.fail("ssm.heads", "linear_num_value_heads must divide ssm.inner (linear_num_value_heads * linear_value_head_dim = " +
                                               std::to_string(x.inner) + "); got " + std::to_string(x.heads)); });
        if (c.range("ssm.groups", x.groups, 1, kMaxHeads) && x.heads > 0 && x.heads % x.groups != 0)
            cold([&] { c.fail("ssm.groups", "linear_num_key_heads must divide linear_num_value_heads (" + std::to_string(x.heads) + "); got " +
                                                std::to_string(x.groups)); });
    } else {
        if (c.range("ssm.heads", x.heads, 1, kMaxHeads) && x.inner > 0 && x.inner % x.heads != 0)
            cold([&] { c.fail("ssm.heads", "must divide ssm.inner (" + std::to_string(x.inner) + ": heads of equal head_dim); got " + std::to_string(x.heads)); });
        if (c.range("ssm.groups", x.groups, 1, kMaxHeads) && x.heads > 0 && x.heads % x.groups != 0)
            cold([&] { c.fail("ssm.groups", "must divide ssm.heads (" + std::to_string(x.heads) + "); got " + std::to_string(x.groups)); });
        c.range("ssm.chunk", x.chunk, 1, 65536);  // the SSD's chunk_size: transformers' torch path works chunk by chunk
    }
}

void validate_source(const ModelOrigin& src, Checker& c) {
    if (src.hub.empty() && src.revision.empty()) return;
    const size_t slash = src.hub.find('/');
    if (src.hub.empty())
        cold([&] { c.fail("source.hub", "is empty but source.revision is given: name the repo as \"org/name\", or leave out source"); });
    else if (slash == std::string::npos || !hub_name_text(src.hub.substr(0, slash), 96, false) ||
             !hub_name_text(src.hub.substr(slash + 1), 96, false))
        cold([&] { c.fail("source.hub", "must be a Hugging Face repo id \"org/name\" (letters, digits, '.', '_', '-'); got \"" +
                                            std::string(src.hub.substr(0, 40)) + (src.hub.size() > 40 ? "...\"" : "\"")); });
    if (!src.revision.empty() && !hub_name_text(src.revision, 255, true))
        cold([&] { c.fail("source.revision", "must be a commit sha or branch name (letters, digits, '.', '_', '-', '/', at most 255); got \"" +
                                                 std::string(src.revision.substr(0, 40)) + (src.revision.size() > 40 ? "...\"" : "\"")); });
}

// Llama 3.2 Vision's tiles, encoders and cross-attention layers (the language model's layers listed one by one, at most
// kMaxListedLayers of them).
void validate_mllama(const ModelSpec& m, Checker& c) {
    const VisionSpec& v = m.vision;
    c.range("vision_config.num_global_layers", v.global_layers, 0, kMaxLayers);
    c.range("vision_config.max_num_tiles", v.max_tiles, 1, 64);
    c.range("vision_config.supported_aspect_ratios", v.aspect_ratios, 1, 1024);
    c.range("vision_config.intermediate_layers_indices", v.intermediate_layers, 0, v.layers);
    if (!c.range("num_hidden_layers", m.layers, 1, kMaxListedLayers)) return;
    for (int64_t i : v.cross_layers)
        if (i < 0 || i >= m.layers) {
            cold([&] { c.fail("cross_attention_layers", "must be in [0, " + std::to_string(m.layers - 1) + "]; got " + std::to_string(i)); });
            return;
        }
}

// An encoder-decoder's decoder stack (Seq2SeqSpec): its layers are inside num_hidden_layers (both stacks, listed layer by
// layer: at most kMaxListedLayers), and the model is a dense transformer (T5, BART): no Mamba mixer, experts, vision tower,
// encoder or embedder flag beside it.
void validate_seq2seq(const ModelSpec& m, Checker& c) {
    const Seq2SeqSpec& s = m.seq2seq;
    c.range("relative_attention_num_buckets", s.relative_buckets, 0, 1 << 20);
    if (s.decoder_layers == 0) return;
    if (!c.range("num_hidden_layers", m.layers, 2, kMaxListedLayers)) return;
    c.range("decoder_layers", s.decoder_layers, 1, m.layers - 1);
    if (m.ssm.active() || m.moe.num_experts > 0 || m.vision.active() || m.encoder || m.embedder)
        cold([&] { c.fail("decoder_layers", "an encoder-decoder (T5, BART) is a dense transformer here: leave out the Mamba mixer, experts, vision "
                                            "tower, encoder and embedder fields, or set decoder_layers to 0"); });
}

// The rotary embedding's scaling and share (RopeSpec), named by their config.json fields: a factor of 1 to 1024 (published
// configs go to 64), the original length that yarn and longrope scale from, a share of head_dim in (0, 1].
void validate_rope(const ModelSpec& m, Checker& c) {
    const RopeSpec& r = m.rope;
    auto num = [](double v) { return shortest_text(v); };
    if (!std::isfinite(r.factor) || r.factor < 1 || r.factor > 1024)
        cold([&] { c.fail("rope_scaling.factor", "must be in [1, 1024]; got " + num(r.factor)); });
    const bool needs_original = r.scaling == RopeScaling::Yarn || r.scaling == RopeScaling::LongRope;
    c.range("rope_scaling.original_max_position_embeddings", r.original_max_position, needs_original ? 1 : 0, kMaxPositions);
    if (!std::isfinite(r.partial) || !(r.partial > 0) || r.partial > 1)
        cold([&] { c.fail("partial_rotary_factor", "must be in (0, 1]; got " + num(r.partial)); });
}

// The vision tower and projector (VisionSpec), named by their config.json fields under vision_config.
void validate_vision(const ModelSpec& m, Checker& c) {
    const VisionSpec& v = m.vision;
    c.range("vision_config.num_hidden_layers", v.layers, 1, kMaxLayers);
    const bool hidden_ok = c.range("vision_config.hidden_size", v.hidden, 1, kMaxHidden);
    if (c.range("vision_config.num_attention_heads", v.heads, 1, kMaxHeads) && hidden_ok && v.hidden % v.heads != 0)
        cold([&] { c.fail("vision_config.num_attention_heads", "must divide vision_config.hidden_size (" + std::to_string(v.hidden) + "); got " +
                                                                   std::to_string(v.heads)); });
    c.range("vision_config.intermediate_size", v.ffn, 1, kMaxFfn);
    const bool patch_ok = c.range("vision_config.patch_size", v.patch, 1, 4096);
    c.range("vision_config.num_channels", v.channels, 1, 64);
    c.range("vision_config.temporal_patch_size", v.temporal_patch, 1, 64);
    c.range("vision_config.spatial_merge_size", v.merge, 1, 64);
    if (v.kind == VisionKind::Qwen3Vit) cold([&] { c.range("vision_config.num_position_embeddings", v.position_embeddings, 1, 1 << 20); });
    if (v.qwen()) return;  // dynamic resolution: no fixed image side
    if (v.mllama()) validate_mllama(m, c);
    if (c.range("vision_config.image_size", v.image_size, 1, 1'000'000) && patch_ok && v.image_size % v.patch != 0)
        cold([&] { c.fail("vision_config.image_size", "must be a multiple of vision_config.patch_size (" + std::to_string(v.patch) + "); got " +
                                                          std::to_string(v.image_size)); });
    // LLaVA-NeXT cuts the pinpoint's canvas into image_size tiles (LlavaNextImageProcessor divide_to_patches; the model's
    // get_anyres_image_grid_shape floors each side by image_size) [transformers-code]: a side that is not a multiple leaves a
    // partial tile the feature grid does not have.
    if (v.anyres() && v.image_size > 0) {
        if (v.kind != VisionKind::Clip && v.kind != VisionKind::Siglip)
            cold([&] { c.fail("image_grid_pinpoints", "apply to LLaVA-NeXT's CLIP or SigLIP tower only (vision.kind clip or siglip); remove them"); });
        if (v.grid_pinpoints.size() > 64)
            cold([&] { c.fail("image_grid_pinpoints", "must list at most 64 resolutions; got " + std::to_string(v.grid_pinpoints.size())); });
        for (const GridPinpoint& p : v.grid_pinpoints)
            if (p.height <= 0 || p.width <= 0 || p.height > 100000 || p.width > 100000 || p.height % v.image_size != 0 ||
                p.width % v.image_size != 0) {
                cold([&] { c.fail("image_grid_pinpoints", "each [height, width] must be multiples of vision_config.image_size (" +
                                                              std::to_string(v.image_size) + ") up to 100000 px; got [" + std::to_string(p.height) +
                                                              ", " + std::to_string(p.width) + "]"); });
                break;
            }
    }
    if (v.projector != ProjectorKind::Gemma3 || !patch_ok || v.image_size % v.patch != 0) return;
    // Gemma3MultiModalProjector pools the (S/p) x (S/p) patch grid to a sqrt(t) x sqrt(t) grid [transformers-code].
    const int64_t side = v.image_size / v.patch;
    if (!c.range("mm_tokens_per_image", v.tokens_per_image, 1, side * side)) return;
    int64_t root = 1;
    while (root * root < v.tokens_per_image) ++root;
    if (root * root != v.tokens_per_image || side % root != 0)
        cold([&] { c.fail("mm_tokens_per_image", "must be a square whose side divides the " + std::to_string(side) + " x " + std::to_string(side) +
                                                     " patch grid (vision_config.image_size / patch_size), e.g. 256; got " +
                                                     std::to_string(v.tokens_per_image)); });
}

}  // namespace

void validate_model(const ModelSpec& m, std::vector<FieldError>& errs, std::string_view prefix) {
    Checker c{errs, prefix};
    validate_source(m.source, c);
    const size_t before = errs.size();
    if (!m.architecture_known()) {
        // Parameter-count-only model (HF calculator style): nothing else to check. "params" is the
        // scenario's name for the count (docs/scenario-format.md).
        if (m.params_only < 0)
            cold([&] { c.fail("params", "must be > 0 (the parameter count of a model known only by it); got " + std::to_string(m.params_only)); });
        else if (static_cast<double>(m.params_only) > kMaxParams)
            cold([&] { c.fail("params", "must be at most 1e13 (absurd size); got " + std::to_string(m.params_only)); });
        return;
    }

    c.range("vocab_size", m.vocab, 1, kMaxVocab);
    c.range("hidden_size", m.hidden, 1, kMaxHidden);
    const bool layers_ok = c.range("num_hidden_layers", m.layers, 1, kMaxLayers);
    // A pure state-space model (Mamba) has no attention layer, so no heads.
    const SsmSpec& x = m.ssm;
    const bool listed_attention = x.layer_list.find_first_of(std::string{kLayerAttentionMlp, kLayerAttention, kLayerMambaShared}) != std::string::npos;
    const bool no_attention = x.active() && x.attn_period == 0 && !listed_attention && !x.parallel_attention;
    const int64_t min_heads = no_attention ? 0 : 1;
    const bool heads_ok = c.range("num_attention_heads", m.heads, min_heads, kMaxHeads);
    const bool kv_ok = c.range("num_key_value_heads", m.kv_heads, min_heads, kMaxHeads);
    if (heads_ok && kv_ok && m.kv_heads > 0 && m.heads % m.kv_heads != 0)
        cold([&] { c.fail("num_key_value_heads", "must divide num_attention_heads (" + std::to_string(m.heads) + "); got " +
                                                     std::to_string(m.kv_heads)); });
    if (heads_ok && kv_ok && (m.heads == 0) != (m.kv_heads == 0))
        cold([&] { c.fail("num_key_value_heads", "must be 0 exactly when num_attention_heads is 0 (a model without attention); got " +
                                                     std::to_string(m.kv_heads)); });
    if (m.attention == AttentionKind::Standard) c.range("head_dim", m.head_dim, min_heads, kMaxHidden);
    if (x.active()) validate_ssm(m, c, layers_ok);
    if (m.vision.active()) validate_vision(m, c);
    if (m.seq2seq.decoder_layers != 0 || m.seq2seq.relative_buckets != 0) validate_seq2seq(m, c);
    if (m.embed_dim != 0) c.range("word_embed_proj_dim", m.embed_dim, 1, kMaxHidden);

    // A dense MLP exists unless every layer is MoE; with an invalid MoE layer pattern (its own error
    // below) that is unknown, and only the upper bound applies.
    const bool all_moe = m.moe.num_experts > 0 && m.moe.first_dense_layers == 0 && m.moe.moe_layer_freq == 1;
    const bool pattern_invalid = m.moe.num_experts > 0 && (m.moe.first_dense_layers < 0 || m.moe.first_dense_layers > m.layers ||
                                                           m.moe.moe_layer_freq < 1 || m.moe.moe_layer_freq > kMaxLayers);
    c.range("intermediate_size", m.ffn, all_moe || pattern_invalid || no_attention ? 0 : 1, kMaxFfn);
    c.range("norms_per_layer", m.norms_per_layer, 0, 4);
    if (m.position == PositionKind::Learned) c.range("max_position_embeddings", m.max_position, 1, kMaxPositions);
    else c.range("max_position_embeddings", m.max_position, 0, kMaxPositions);
    c.range("position_offset", m.position_offset, 0, 1024);
    c.range("sliding_window", m.sliding_window, 0, kMaxPositions);
    c.range("sliding_window_pattern", m.sliding_window_pattern, 0, kMaxLayers);
    validate_rope(m, c);

    // An encoder's task head (ModelSpec::num_labels, mlm_head): at most one, and only on an encoder.
    c.range("num_labels", m.num_labels, 0, kMaxVocab);
    if ((m.num_labels > 0 || m.mlm_head) && !m.encoder)
        cold([&] { c.fail(m.mlm_head ? "mlm_head" : "num_labels", "is a task head of an encoder (BERT, RoBERTa); this model is not one (encoder false): leave it out"); });
    else if (m.num_labels > 0 && m.mlm_head)
        cold([&] { c.fail("num_labels", "and mlm_head are two model classes (BertForSequenceClassification, BertForMaskedLM); keep one"); });
    if (m.embedder && m.encoder)
        cold([&] { c.fail("embedder", "is a decoder without its LM head (Qwen3-Embedding); an encoder (encoder true) has none already: leave it out"); });

    const MoESpec& e = m.moe;
    if (c.range("num_experts", e.num_experts, 0, kMaxExperts) && e.num_experts > 0) {
        if (c.range("num_experts_per_tok", e.top_k, 1, kMaxExperts) && e.top_k > e.num_experts)
            cold([&] { c.fail("num_experts_per_tok", "must be at most num_experts (" + std::to_string(e.num_experts) +
                                                         "); got " + std::to_string(e.top_k)); });
        c.range("moe_intermediate_size", e.expert_ffn, 1, kMaxFfn);
        c.range("n_shared_experts", e.shared_experts, 0, kMaxExperts);
        c.range("shared_expert_intermediate_size", e.shared_expert_ffn, 0, kMaxFfn);
        c.range("first_k_dense_replace", e.first_dense_layers, 0, layers_ok ? m.layers : kMaxLayers);
        c.range("decoder_sparse_step", e.moe_layer_freq, 1, kMaxLayers);
    }

    if (m.attention == AttentionKind::MLA) {
        const MLASpec& x = m.mla;
        c.range("q_lora_rank", x.q_lora_rank, 0, kMaxHidden);
        c.range("kv_lora_rank", x.kv_lora_rank, 1, kMaxHidden);
        c.range("qk_rope_head_dim", x.qk_rope_head_dim, 1, kMaxHidden);
        c.range("qk_nope_head_dim", x.qk_nope_head_dim, 0, kMaxHidden);
        c.range("v_head_dim", x.v_head_dim, 1, kMaxHidden);
    }

    if (errs.size() == before) {
        const double p = params_in_double(m);
        if (p > kMaxParams)
            cold([&] { c.fail("num_parameters", "the model would have about " + std::to_string(p / 1e12) +
                                                    " trillion parameters; at most 10 trillion is accepted (absurd size)"); });
    }
}

}  // namespace vl

namespace vl {

// Tensor parallelism splits each column- or row-parallel matrix along a config field (heads, kv
// heads, an MLP width): tp must divide it [shoeybi2019]. The fields come from the inventory of the
// layer kinds the model has; routed experts are split by expert_tp (parallel.h), which is 1 when
// inference spreads whole experts over ep. Inference may instead replicate KV heads when tp is a
// multiple of them (vLLM). Each field is reported once, with the tensors split along it.
void validate_tensor_parallel(const Scenario& s, std::vector<FieldError>& errs) {
    const ModelSpec& m = s.model;
    const int64_t tp = s.parallel.tp;
    if (!m.architecture_known() || tp <= 1 || !dims_in_int32(m)) return;  // validate_model reports absurd sizes
    // vLLM splits the vision tower over tp as well (layer_tensors.h vision_tensors): its attention takes num_heads / tp heads
    // per rank and fc1 / gate_up ffn / tp rows, through divide(), which asserts the division (CLIPAttention, SiglipAttention,
    // Qwen2_5_VisionAttention; ColumnParallelLinear) [vllm-code]. Replicating the tower instead (--mm-encoder-tp-mode data, or the
    // newest versions' fallback for some models) is not modelled; transformers keeps the whole tower on each GPU.
    if (m.vision.active() && s.mode == Mode::Infer && s.infer.engine == Engine::VLLM) {
        const std::pair<const char*, int64_t> tower[] = {{"vision_config.num_attention_heads", m.vision.heads},
                                                         {"vision_config.intermediate_size", m.vision.ffn}};
        for (const auto& [field, units] : tower)
            if (units > 0 && units % tp != 0)
                cold([&, field = field, units = units] {
                    errs.push_back({"parallel.tp", "must divide " + std::string(field) + " (" + std::to_string(units) +
                                                       ") with engine vllm, which splits the vision tower over tp ranks as the language "
                                                       "model; choose a tp that divides it, or engine transformers (the whole tower on each "
                                                       "GPU); got " + std::to_string(tp)});
                });
    }
    // The Mamba mixer is split as vLLM splits Mamba1 (layer_tensors.h mamba_mixer); Mamba2's head and
    // group sharding, transformers' (no tensor-parallel plan for Mamba) and training's split
    // activations are not modelled.
    if (m.ssm.active() && (m.ssm.kind != SsmKind::Mamba1 || s.mode != Mode::Infer || s.infer.engine != Engine::VLLM)) {
        cold([&] { errs.push_back({"parallel.tp", std::string("tensor parallelism of a state-space model's Mamba layers is modelled for vLLM inference of ") +
                                                  "Mamba1 mixers (Mamba, Jamba) only (not Mamba2 or Gated DeltaNet); use tp 1 (pipeline parallelism splits its layers); got " + std::to_string(tp)}); });
        return;
    }
    const int64_t etp = expert_tp(s.parallel, s.mode == Mode::Infer ? ExpertSplit::EpOrTp : ExpertSplit::EpTimesTp);
    // The split dimensions, each once, in the order the inventory meets them, with the ranks that
    // split it (no heap until an error).
    struct Dim {
        SplitDim dim;
        int64_t units, by;
    };
    Dim dims[7];
    size_t n = 0;
    bool seen[7] = {};
    auto collect = [&](const Tensor& t) {
        const size_t k = static_cast<size_t>(t.split_dim);
        if (t.split_dim == SplitDim::None || seen[k] || !t.matrix()) return;  // replicated, vocab-padded, a bias, or met
        const int64_t by = t.routed() ? etp : tp;
        if (by <= 1) return;
        seen[k] = true;
        dims[n++] = {t.split_dim, t.split_units, by};
    };
    const LayerPattern pattern = layer_pattern(m);
    pattern.for_each_kind(0, m.layers, [&](LayerKind k, int64_t) {
        for (const Tensor& t : layer_tensors(m, k)) collect(t);
    });
    for (size_t i = 0; i < n; ++i) {
        const Dim& d = dims[i];
        const bool kv = d.dim == SplitDim::KvHeads;
        if (d.units <= 0 || d.units % d.by == 0 || (kv && s.mode == Mode::Infer && d.by % d.units == 0)) continue;
        std::string tensors;  // the matrices split along it, for the message
        auto name = [&](const Tensor& t) {
            if (t.matrix() && t.split_dim == d.dim && tensors.find(t.name) == std::string::npos)
                tensors += (tensors.empty() ? "" : ", ") + std::string(t.name);
        };
        pattern.for_each_kind(0, m.layers, [&](LayerKind k, int64_t) {
            for (const Tensor& t : layer_tensors(m, k)) name(t);
        });
        const std::string rule = kv ? (s.mode == Mode::Infer ? " or be a multiple of it" : " for training") : "";
        cold([&] { errs.push_back({"parallel.tp", "must divide " + std::string(split_dim_field(d.dim, m)) + " (" + std::to_string(d.units) + ")" +
                                                      rule + "; got " + std::to_string(tp) + " (" + tensors + " split along it)"}); });
    }
}

}  // namespace vl
