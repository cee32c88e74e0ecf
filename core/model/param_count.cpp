// Exact parameter counts, tensor by tensor (issue 3). Each formula mirrors the module list of the
// Hugging Face transformers modeling file named beside it; tests check the totals against
// published counts (model cards, papers, llama.cpp), not against this file.
#include "param_count.h"

#include <algorithm>

namespace vl {

// Norm weight (+ bias for LayerNorm): torch.nn.LayerNorm(w) has 2w, LlamaRMSNorm(w) has w.
int64_t norm_params(const ModelSpec& m, int64_t width) {
    return m.norm == NormKind::LayerNorm ? 2 * width : width;
}

// One MLP of width f: gated (LlamaMLP gate/up/down) 3*d*f, plain (GPT-2 c_fc/c_proj) 2*d*f;
// biases on the input projections (f each) and on the output projection (d).
int64_t mlp_params(const ModelSpec& m, int64_t f) {
    const int64_t d = m.hidden;
    const int64_t in_proj = m.gated_mlp ? 2 : 1;
    int64_t p = (in_proj + 1) * d * f;
    if (m.mlp_bias) p += in_proj * f + d;
    return p;
}

// Multi-head Latent Attention (DeepSeek-V2 paper §2.1; modeling_deepseek_v3.DeepseekV3Attention):
// q_a_proj d*r_q + q_a_layernorm r_q + q_b_proj r_q*a*(nope+rope)   (or q_proj d*a*(nope+rope) when r_q = 0)
// + kv_a_proj_with_mqa d*(r_kv+rope) + kv_a_layernorm r_kv + kv_b_proj r_kv*a*(nope+v) + o_proj a*v*d.
static int64_t mla_attention_params(const ModelSpec& m) {
    const MLASpec& x = m.mla;
    const int64_t d = m.hidden, a = m.heads;
    const int64_t qk_head = x.qk_nope_head_dim + x.qk_rope_head_dim;
    int64_t p = 0;
    if (x.q_lora_rank > 0)
        p += d * x.q_lora_rank + norm_params(m, x.q_lora_rank) + x.q_lora_rank * a * qk_head;
    else
        p += d * a * qk_head;
    p += d * (x.kv_lora_rank + x.qk_rope_head_dim) + norm_params(m, x.kv_lora_rank);
    p += x.kv_lora_rank * a * (x.qk_nope_head_dim + x.v_head_dim);
    p += a * x.v_head_dim * d;
    if (m.attn_out_bias) p += d;
    return p;
}

// Standard attention (LlamaAttention, fused or not): q d*a*h_d, k and v d*kv*h_d each, o a*h_d*d;
// qkv bias (a + 2kv)*h_d, output bias d; qk-norm (Qwen3/Gemma3 q_norm, k_norm) 2*h_d.
int64_t attention_params(const ModelSpec& m) {
    if (m.attention == AttentionKind::MLA) return mla_attention_params(m);
    const int64_t d = m.hidden;
    const int64_t q = m.heads * m.head_dim;
    const int64_t kv = m.kv_heads * m.head_dim;
    int64_t p = d * (q + 2 * kv) + q * d;
    if (m.qkv_bias) p += q + 2 * kv;
    if (m.attn_out_bias) p += d;
    if (m.qk_norm) p += 2 * norm_params(m, m.head_dim);
    return p;
}

LayerPattern layer_pattern(const ModelSpec& m) {
    return {m.moe.num_experts, m.moe.first_dense_layers, m.moe.moe_layer_freq, m.sliding_window, m.sliding_window_pattern};
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

// Shared-expert block: DeepSeek one MLP of width n_shared*moe_ffn; Qwen2-MoE shared_expert_intermediate_size.
static int64_t shared_expert_ffn(const MoESpec& e) {
    return e.shared_expert_ffn > 0 ? e.shared_expert_ffn : e.shared_experts * e.expert_ffn;
}

// One MoE block: E routed experts + shared block + router d*E (+E bias) + Qwen2-MoE shared gate d.
// Active per token: top_k routed experts + everything always on.
static void moe_layer(const ModelSpec& m, LayerParams& l) {
    const MoESpec& e = m.moe;
    const int64_t expert = mlp_params(m, e.expert_ffn);
    const int64_t shared_f = shared_expert_ffn(e);
    int64_t always_on = m.hidden * e.num_experts + (e.router_bias ? e.num_experts : 0);
    if (shared_f > 0) always_on += mlp_params(m, shared_f);
    if (e.shared_expert_gate) always_on += m.hidden;
    l.mlp = e.num_experts * expert + always_on;
    l.active_mlp = e.top_k * expert + always_on;
    l.moe = true;
}

ParamCounts count_params(const ModelSpec& m) {
    ParamCounts p;
    if (!m.architecture_known()) {
        p.total = p.trainable = p.active_per_token = p.non_embedding = p.largest_layer = m.params_only;
        return p;
    }
    const int64_t d = m.hidden;
    const int64_t e_dim = m.embed_dim > 0 ? m.embed_dim : d;

    // Token embedding V*e (+ learned positions (max_pos + offset)*d: GPT-2 wpe, OPT offset 2).
    const int64_t token_embedding = m.vocab * e_dim;
    p.embedding = token_embedding;
    if (m.position == PositionKind::Learned) p.embedding += (m.max_position + m.position_offset) * d;
    // Untied lm_head V*e (+V bias); tied shares the embedding matrix.
    p.lm_head = (m.tied_embeddings ? 0 : m.vocab * e_dim) + (m.lm_head_bias ? m.vocab : 0);
    // BLOOM word_embeddings_layernorm; OPT project_in e*d and project_out d*e (no bias).
    if (m.embedding_norm) p.embedding_norm += norm_params(m, d);
    if (e_dim != d) p.embedding_norm += 2 * e_dim * d;
    p.final_norm = m.final_norm ? norm_params(m, d) : 0;

    // Every layer is one of two kinds, dense or MoE (the MoE block is counted once: the numeric path
    // runs per estimate); the table answers per layer.
    LayerParams dense, moe;
    dense.attention = moe.attention = attention_params(m);
    dense.norms = moe.norms = m.norms_per_layer * norm_params(m, d);
    dense.mlp = dense.active_mlp = mlp_params(m, m.ffn);
    if (m.moe.num_experts > 0) moe_layer(m, moe);
    const LayerPattern pattern = layer_pattern(m);
    p.per_layer = LayerTable(m.layers, pattern, dense, moe);
    const int64_t n_moe = pattern.moe_count(0, m.layers), n_dense = m.layers - n_moe;
    const int64_t layers_total = n_dense * dense.total() + n_moe * moe.total();
    const int64_t layers_active = n_dense * dense.active() + n_moe * moe.active();
    const int64_t largest = std::max(n_dense > 0 ? dense.total() : 0, n_moe > 0 ? moe.total() : 0);

    const int64_t outside_layers = p.embedding + p.lm_head + p.embedding_norm + p.final_norm;
    p.total = outside_layers + layers_total;
    p.trainable = p.total;
    p.non_embedding = p.total - p.embedding - p.lm_head;
    p.active_per_token = outside_layers + layers_active;
    p.largest_layer = std::max({largest, token_embedding, p.lm_head});
    return p;
}

}  // namespace vl
