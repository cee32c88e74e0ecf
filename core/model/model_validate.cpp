// ModelSpec rules (issue 3). Each error names the Hugging Face config.json field and the rule, with
// the offending value. Bounds keep count_params inside int64 and reject typos (hidden 40960000).
#include "model/model_validate.h"

#include <string>

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
    const std::string& prefix;

    void fail(const char* field, std::string msg) { errs.push_back({prefix + field, std::move(msg)}); }

    // lo <= v <= hi; returns whether it held.
    bool range(const char* field, int64_t v, int64_t lo, int64_t hi) {
        if (v < lo) {
            fail(field, (lo == 1 ? std::string("must be > 0") : "must be >= " + std::to_string(lo)) +
                            "; got " + std::to_string(v));
            return false;
        }
        if (v > hi) {
            fail(field, "must be at most " + std::to_string(hi) + " (absurd size); got " + std::to_string(v));
            return false;
        }
        return true;
    }
};

// Rough total in double (no overflow) to reject absurd models before count_params runs in int64.
double rough_params(const ModelSpec& m) {
    const double d = static_cast<double>(m.hidden), L = static_cast<double>(m.layers);
    double attn = d * static_cast<double>(m.heads + 2 * m.kv_heads) * static_cast<double>(m.head_dim) * 2;
    if (m.attention == AttentionKind::MLA) {
        const MLASpec& x = m.mla;
        attn = static_cast<double>(d + x.q_lora_rank + x.kv_lora_rank) * static_cast<double>(m.heads) *
               static_cast<double>(x.qk_nope_head_dim + x.qk_rope_head_dim + x.v_head_dim) * 2;
    }
    const double mlp_w = m.gated_mlp ? 3 : 2;
    const double dense = mlp_w * d * static_cast<double>(m.ffn);
    const double moe = mlp_w * d * static_cast<double>(m.moe.expert_ffn) *
                       static_cast<double>(m.moe.num_experts + m.moe.shared_experts);
    return 2 * static_cast<double>(m.vocab) * d + L * (attn + dense + moe);
}

}  // namespace

void validate_model(const ModelSpec& m, std::vector<FieldError>& errs, const std::string& prefix) {
    Checker c{errs, prefix};
    const size_t before = errs.size();
    if (!m.architecture_known()) {
        // Parameter-count-only model (HF calculator style): nothing else to check. "params" is the
        // scenario's name for the count (docs/scenario-format.md).
        if (m.params_only < 0)
            c.fail("params", "must be > 0 (the parameter count of a model known only by it); got " + std::to_string(m.params_only));
        else if (static_cast<double>(m.params_only) > kMaxParams)
            c.fail("params", "must be at most 1e13 (absurd size); got " + std::to_string(m.params_only));
        return;
    }

    c.range("vocab_size", m.vocab, 1, kMaxVocab);
    c.range("hidden_size", m.hidden, 1, kMaxHidden);
    const bool layers_ok = c.range("num_hidden_layers", m.layers, 1, kMaxLayers);
    const bool heads_ok = c.range("num_attention_heads", m.heads, 1, kMaxHeads);
    const bool kv_ok = c.range("num_key_value_heads", m.kv_heads, 1, kMaxHeads);
    if (heads_ok && kv_ok && m.heads % m.kv_heads != 0)
        c.fail("num_key_value_heads", "must divide num_attention_heads (" + std::to_string(m.heads) + "); got " +
                                          std::to_string(m.kv_heads));
    if (m.attention == AttentionKind::Standard) c.range("head_dim", m.head_dim, 1, kMaxHidden);
    if (m.embed_dim != 0) c.range("word_embed_proj_dim", m.embed_dim, 1, kMaxHidden);

    // A dense MLP exists unless every layer is MoE; with an invalid MoE layer pattern (its own error
    // below) that is unknown, and only the upper bound applies.
    const bool all_moe = m.moe.num_experts > 0 && m.moe.first_dense_layers == 0 && m.moe.moe_layer_freq == 1;
    const bool pattern_invalid = m.moe.num_experts > 0 && (m.moe.first_dense_layers < 0 || m.moe.first_dense_layers > m.layers ||
                                                           m.moe.moe_layer_freq < 1 || m.moe.moe_layer_freq > kMaxLayers);
    c.range("intermediate_size", m.ffn, all_moe || pattern_invalid ? 0 : 1, kMaxFfn);
    c.range("norms_per_layer", m.norms_per_layer, 0, 4);
    if (m.position == PositionKind::Learned) c.range("max_position_embeddings", m.max_position, 1, kMaxPositions);
    else c.range("max_position_embeddings", m.max_position, 0, kMaxPositions);
    c.range("position_offset", m.position_offset, 0, 1024);
    c.range("sliding_window", m.sliding_window, 0, kMaxPositions);
    c.range("sliding_window_pattern", m.sliding_window_pattern, 0, kMaxLayers);

    const MoESpec& e = m.moe;
    if (c.range("num_experts", e.num_experts, 0, kMaxExperts) && e.num_experts > 0) {
        if (c.range("num_experts_per_tok", e.top_k, 1, kMaxExperts) && e.top_k > e.num_experts)
            c.fail("num_experts_per_tok", "must be at most num_experts (" + std::to_string(e.num_experts) +
                                              "); got " + std::to_string(e.top_k));
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
        const double p = rough_params(m);
        if (p > kMaxParams)
            c.fail("num_parameters", "the model would have about " + std::to_string(p / 1e12) +
                                         " trillion parameters; at most 10 trillion is accepted (absurd size)");
    }
}

}  // namespace vl
