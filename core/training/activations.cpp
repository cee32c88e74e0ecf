// Activations: the tensors the forward pass keeps for backward, per layer and per GPU, then the
// recomputation policy, pipeline micro-batches in flight, embedding inputs, and fp32 logits + loss.
#include "training/activations.h"

#include "cold.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "cold.h"
#include "param_count.h"
#include "model/image_tokens.h"
#include "model/layer_tensors.h"
#include "training/training_internal.h"

namespace vl {

LayerDims layer_dims(const ModelSpec& m, bool moe_layer) {
    LayerDims L;
    L.h = static_cast<double>(m.hidden);
    L.heads = static_cast<double>(m.heads);
    L.kv_heads = static_cast<double>(m.kv_heads);
    L.head_dim = static_cast<double>(m.head_dim);
    L.output_gate = m.attn_output_gate;
    L.ffn = static_cast<double>(m.ffn);
    L.gated = m.gated_mlp;
    L.gelu_new = m.activation == MlpActivation::GeluNew && !m.gated_mlp;
    L.norms = static_cast<double>(m.norms_per_layer);
    L.qk_norm = m.qk_norm;
    L.parallel_attn_mlp = m.parallel_attn_mlp;
    if (m.attention == AttentionKind::MLA) {
        L.mla = true;
        L.q_rank = static_cast<double>(m.mla.q_lora_rank);
        L.kv_rank = static_cast<double>(m.mla.kv_lora_rank);
        L.rope_dim = static_cast<double>(m.mla.qk_rope_head_dim);
        L.nope_dim = static_cast<double>(m.mla.qk_nope_head_dim);
        L.v_dim = static_cast<double>(m.mla.v_head_dim);
    }
    if (m.ssm.active()) {
        L.ssm = m.ssm.kind;
        L.d_inner = static_cast<double>(m.ssm.inner);
        L.d_state = static_cast<double>(m.ssm.state);
        L.dt_rank = static_cast<double>(m.ssm.dt_rank);
        L.ssm_heads = static_cast<double>(m.ssm.heads);
        L.ssm_groups = static_cast<double>(m.ssm.groups);
        L.ssm_unfused = m.ssm.bcdt_norms;
        L.ssm_gated_norm = m.ssm.gated_norm;
        L.ssm_chunk = static_cast<double>(m.ssm.chunk);
        L.ssm_mup = m.model_type == "falcon_h1";
    }
    if (moe_layer) {
        L.experts = m.moe.num_experts;
        L.top_k = m.moe.top_k;
        L.expert_ffn = static_cast<double>(m.moe.expert_ffn);
        L.shared_ffn = static_cast<double>(shared_expert_ffn(m));
    }
    return L;
}

// [korthikanti2022 §4.1]: GPT layer with a 4h GeLU MLP, multi-head attention, two LayerNorms.
LayerDims gpt_dims(double h, double heads) {
    LayerDims L;
    L.h = h; L.heads = heads; L.kv_heads = heads; L.head_dim = h / heads; L.ffn = 4 * h;
    L.gated = false; L.norms = 2;
    return L;
}

namespace {

// Every quantity below is an expression over the quantity maker q (core/formula.h): evaluated over
// Numbers it is the byte count, over Symbols the formula text, so the text lists exactly the terms the
// code adds for the scenario. Each named term (q.let) is its own statement: the order of the
// definitions in the text must not depend on the unspecified evaluation order of operands.
template <class Q>
using Expr = std::decay_t<decltype(std::declval<Q&>()("", 0.0))>;

// q.let(name, e), except that the empty sum N{} (a term the scenario does not have) stays empty and
// gets no definition in the text.
template <class Q, class N>
N let_some(Q& q, const char* name, const N& e) {
    if constexpr (std::is_same_v<N, Sym>)
        if (e.none) return e;
    return q.let(name, e);
}

// The maker that lists a layer's saved tensors one by one (layer_saved_tensors): every quantity is its value, as over
// Numbers, and the helpers below append the tensors they name, so the list and the group sums come from the same
// expressions.
struct SavedList : Numbers {
    std::vector<SavedTensor> list;
    SavedGroup group = SavedGroup::Norms;
};
template <class Q>
constexpr bool kListing = std::is_same_v<Q, SavedList>;

// One saved tensor of `bytes` (its value, as the text shows it).
template <class Q>
Expr<Q> tensor(Q& q, const char* name, const Expr<Q>& bytes) {
    if constexpr (kListing<Q>) q.list.push_back({name, bytes, q.group});
    return bytes;
}
// The tensors listed since `from`, n times in all (n a count: norms, casts): n * each in the text.
template <class Q>
Expr<Q> times(Q& q, size_t from, const Expr<Q>& n, const Expr<Q>& each) {
    if constexpr (kListing<Q>) {
        const size_t to = q.list.size();
        for (double k = 1; k < n; ++k)
            for (size_t i = from; i < to; ++i) q.list.push_back(q.list[i]);
    }
    return n * each;
}
template <class Q>
size_t listed(const Q& q) {
    if constexpr (kListing<Q>) return q.list.size();
    return 0;
}
// n tensors of `each` bytes: n * each.
template <class Q>
Expr<Q> tensors(Q& q, const char* name, const Expr<Q>& n, const Expr<Q>& each) {
    const size_t from = listed(q);
    const Expr<Q> one = tensor(q, name, each);
    return times(q, from, n, one);
}
// Two tensors of `per` bytes an element (or a row) over d1 and d2 elements: per * (d1 + d2).
template <class Q>
Expr<Q> tensor_pair(Q& q, const char* name, const Expr<Q>& per, const Expr<Q>& d1, const Expr<Q>& d2) {
    if constexpr (kListing<Q>) {
        tensor(q, name, per * d1);
        tensor(q, name, per * d2);
    }
    return per * (d1 + d2);
}
// Tensors of `elements` elements each: one of b1 bytes an element, then n2 of b2: (b1 + n2 * b2) * elements (n2 = 1:
// b1 + b2).
template <class Q>
Expr<Q> by_element(Q& q, const char* name, const Expr<Q>& b1, double n2, const Expr<Q>& b2, const Expr<Q>& elements) {
    if constexpr (kListing<Q>) {
        tensor(q, name, b1 * elements);
        for (double k = 0; k < n2; ++k) tensor(q, name, b2 * elements);
    }
    if (n2 == 1) return (b1 + b2) * elements;
    return (b1 + n2 * b2) * elements;
}
// A named saved tensor: q.let(name, bytes) in the text, one tensor in the list.
template <class Q>
Expr<Q> saved(Q& q, const char* name, const Expr<Q>& bytes) {
    return q.let(name, tensor(q, name, bytes));
}

// Tokens of one micro-batch on this rank: context parallel gives each rank s/cp of them.
template <class Q>
Expr<Q> tokens(Q& q, const ActShape& x) {
    return q.let(x.T_name, q("b", x.b) * (q(x.s_name, x.s) / q("cp", std::max(1.0, x.cp))));
}

// Sequence parallel splits the replicated tensors (norm inputs, dropout masks, block inputs) by t.
template <class Q>
Expr<Q> sp_split(Q& q, const ActShape& x, const Expr<Q>& v) {
    return x.sp ? v / q("t", std::max(1.0, x.tp)) : v;
}

template <class Q>
Expr<Q> heads_per_rank(Q& q, const LayerDims& L, const ActShape& x) {
    return q("heads", L.heads) / q("t", std::max(1.0, x.tp));
}

// Bytes of a saved linear-layer input: the regime's, or a LoRA adapter's own cast of it.
template <class Q>
Expr<Q> saved_in_bytes(Q& q, const ActShape& x) {
    return x.adapter_in_bytes > 0 ? q("adapter_in_bytes", x.adapter_in_bytes) : q("lin_bytes", x.linear_in_bytes);
}

// The names of one MLP's tensors (a dense layer's, the routed experts', the shared expert's).
struct MlpNames {
    const char* act_in;
    const char* act_out_up;
    const char* fc2_in;
    const char* fc2_base_in;
};
constexpr MlpNames kDenseMlp{"act_in", "act_out_up", "fc2_in", "fc2_base_in"};
constexpr MlpNames kExpertMlp{"expert_act_in", "expert_act_out_up", "expert_fc2_in", "expert_fc2_base_in"};
constexpr MlpNames kSharedMlp{"shared_act_in", "shared_act_out_up", "shared_fc2_in", "shared_fc2_base_in"};

// A frozen 4-bit base layer that saves its input (ActShape::base_saves_in) adds a tensor unless the
// same input is already counted: saved by a LoRA target without a cast of its own.
inline bool base_input_extra(const ActShape& x, bool saved) {
    return x.base_saves_in && (!saved || x.adapter_in_bytes > 0);
}

// MLP tensors for `tokens` tokens of width f on one rank (f already split by tp):
// plain (GPT-2 MLP): GeLU input, and the fc2 input when fc2 is trained;
// gated (HF LlamaMLP act_fn(gate(x)) * up(x)): SiLU input, SiLU output and up output (both saved by
// the product), and the down_proj input when down is trained.
template <class Q>
Expr<Q> mlp_tensors(Q& q, const LayerDims& L, const ActShape& x, const Expr<Q>& tokens, const Expr<Q>& f, const MlpNames& n) {
    const Expr<Q> a = q("a_bytes", x.act_bytes);
    Expr<Q> bytes = saved(q, n.act_in, a * tokens * f);                                 // activation-function input
    if (L.gated) bytes += q.let(n.act_out_up, tensors(q, n.act_out_up, 2, a * tokens * f));  // act output + up output (mul saves both)
    // gelu_new = 0.5*x * (1 + tanh(c*(x + 0.044715*x^3))): the product saves 0.5*x and 1 + tanh, tanh
    // saves its output; under autocast pow runs in fp32, so tanh and 1 + tanh are fp32 [transformers-code]
    // [pytorch-autocast-code].
    if (L.gelu_new) {
        const Expr<Q> e = x.residual_bytes > 0 ? q("fp32_bytes", 4.0) : a;
        bytes += q.let("gelu_new_saved", by_element(q, "gelu_new_saved", a, 2, e, tokens * f));
    }
    // quick_gelu = x * sigmoid(1.702 * x): the product saves x (the activation input above) and the sigmoid's output, which
    // sigmoid's backward reads too; the scaling saves nothing [transformers-code] [pytorch-autograd-code].
    if (L.quick_gelu) bytes += saved(q, "quick_gelu_sigmoid", a * tokens * f);
    if (x.save_fc2_in) bytes += saved(q, n.fc2_in, saved_in_bytes(q, x) * tokens * f);  // input of fc2 / down_proj
    if (base_input_extra(x, x.save_fc2_in)) bytes += saved(q, n.fc2_base_in, q("lin_bytes", x.linear_in_bytes) * tokens * f);
    return bytes;
}

// Korthikanti et al. 2022 §4.1 tensor by tensor (their 34sbh + 5as^2b for the GPT layer), generalised to
// GQA/MQA (K, V sized by kv heads), gated MLPs, MLA, MoE and FlashAttention [korthikanti2022 §4.1];
// [transformer-series5 §2] walks the same list. One function per group of LayerActivations.

// Bytes of one residual-stream element: the activation dtype, or fp32 under autocast over fp32 weights.
template <class Q>
Expr<Q> residual_bytes(Q& q, const ActShape& x) {
    return x.residual_bytes > 0 ? q("res_bytes", x.residual_bytes) : q("a_bytes", x.act_bytes);
}

// The layer's input: what full recomputation keeps (2sbh).
template <class Q>
Expr<Q> layer_input(Q& q, const LayerDims& L, const ActShape& x) {
    const Expr<Q> T = tokens(q, x);
    return sp_split(q, x, residual_bytes(q, x) * T * q("h", L.h));
}

// Bytes of the input a norm saves: the residual's, or the fp32 copy a norm computing in fp32 makes of a
// 16-bit residual (norm_in_bytes).
template <class Q>
Expr<Q> norm_in_bytes(Q& q, const ActShape& x) {
    return x.norm_in_bytes > 0 ? q("norm_in_bytes", x.norm_in_bytes) : residual_bytes(q, x);
}

// Each norm saves its input (2sbh each); under autocast also its normalized fp32 output, which the
// weight multiply saves (HF LlamaRMSNorm computes in fp32) [transformers-code].
template <class Q>
Expr<Q> layer_norms(Q& q, const LayerDims& L, const ActShape& x) {
    const Expr<Q> T = tokens(q, x);
    const Expr<Q> n = q("norms", L.norms);
    if (x.norm_out_bytes > 0) {
        const size_t from = listed(q);
        const Expr<Q> one = by_element(q, "norm_in_out", norm_in_bytes(q, x), 1, q("norm_out_bytes", x.norm_out_bytes), sp_split(q, x, T * q("h", L.h)));
        return times(q, from, n, one);
    }
    return tensors(q, "norm_in", n, sp_split(q, x, norm_in_bytes(q, x) * T * q("h", L.h)));
}

// What an attention block keeps after its scores, over T queries of o_dim outputs: the attention output = out-proj
// input (2sbh; FlashAttention saves it, O, in any case) or o's adapter cast, the output dropout mask (sbh, 1 byte) and
// FlashAttention's fp32 log-sum-exp per row [dao2022].
template <class Q>
Expr<Q> attention_output(Q& q, const LayerDims& L, const ActShape& x, const Expr<Q>& T, const Expr<Q>& o_dim) {
    using N = Expr<Q>;
    const N lin = q("lin_bytes", x.linear_in_bytes);
    N r{};
    if (x.adapter_in_bytes > 0) {  // the attention output (FlashAttention's O) and o_proj's adapter cast are two tensors
        if (x.flash || x.base_saves_in) r += saved(q, "out_in", lin * T * o_dim);
        if (x.save_o_in) r += saved(q, "o_adapter_in", saved_in_bytes(q, x) * T * o_dim);
    } else if (x.save_o_in || x.flash || x.base_saves_in) {
        r += saved(q, "out_in", lin * T * o_dim);
    }
    if (x.dropout > 0) r += saved(q, "drop_mask", sp_split(q, x, 1.0 * T * q("h", L.h)));
    if (x.flash) r += saved(q, "lse", 4.0 * q("b", x.b) * heads_per_rank(q, L, x) * (q(x.s_name, x.s) / q("cp", std::max(1.0, x.cp))));
    return r;
}

// K and V width on one rank: kv heads / t (at least one) x head_dim.
template <class Q>
Expr<Q> kv_dim_per_rank(Q& q, const LayerDims& L, const ActShape& x) {
    return q.let("kv_dim", max_of(1.0, floor_of(q("kv_heads", L.kv_heads) / q("t", std::max(1.0, x.tp)))) * q("head_dim", L.head_dim));
}

// QKV input, Q, K, V, attention output, dropout mask, softmax statistics (MLA: the compressed latents too).
template <class Q>
Expr<Q> layer_attention(Q& q, const LayerDims& L, const ActShape& x) {
    using N = Expr<Q>;
    const N a = q("a_bytes", x.act_bytes), lin = q("lin_bytes", x.linear_in_bytes), h = q("h", L.h);
    const N T = tokens(q, x);
    const N heads = heads_per_rank(q, L, x);
    N r{};
    N q_dim{}, k_dim{}, v_dim{}, o_dim{};
    if (L.mla) {
        q_dim = q.let("q_dim", heads * (q("nope_dim", L.nope_dim) + q("rope_dim", L.rope_dim)));
        k_dim = q.let("k_dim", q_dim);
        v_dim = q.let("v_dim", heads * q("v_head_dim", L.v_dim));
        o_dim = v_dim;
        // compressed latents: q_a output (norm input) and normed q (q_b input); kv_a output and normed kv, k_pe
        N latents{};
        if (L.q_rank > 0) latents += tensors(q, "latents", 2, a * T * q("q_rank", L.q_rank));
        latents += tensors(q, "latents", 2, a * T * q("kv_rank", L.kv_rank));
        latents += tensor(q, "latents", a * T * q("rope_dim", L.rope_dim));
        r += q.let("latents", latents);
    } else {
        q_dim = q.let("q_dim", heads * q("head_dim", L.head_dim));
        k_dim = v_dim = kv_dim_per_rank(q, L, x);
        o_dim = q_dim;
    }
    if (x.save_qkv_in) {                                                         // QKV input (2sbh)
        const N in = saved_in_bytes(q, x);
        if (x.qkv_in_copies > 1) r += q.let("qkv_in", tensors(q, "qkv_in", q("qkv_casts", x.qkv_in_copies), sp_split(q, x, in * T * h)));  // one cast per projection
        else r += saved(q, "qkv_in", sp_split(q, x, in * T * h));
    }
    if (base_input_extra(x, x.save_qkv_in)) r += saved(q, "qkv_base_in", sp_split(q, x, lin * T * h));
    r += q.let("Q_K", tensor_pair(q, "Q_K", a * T, q_dim, k_dim));                           // Q, K for QK^T (4sbh)
    if (L.qk_norm) r += q.let("qk_norm_in", tensor_pair(q, "qk_norm_in", a * T, q_dim, k_dim));  // q_norm / k_norm inputs
    r += saved(q, "V", a * T * v_dim);                                           // V (2sbh)
    // GPTNeoXAttention: qkv = query_key_value(x).view(...).transpose(1, 2); q, k, v = qkv.chunk(3, dim=-1);
    // apply_rotary_pos_emb makes new q and k, so attention saves v, a view that keeps the fused output's
    // q and k parts alive beside the rotated copies [transformers-code].
    if (x.qkv_view_keeps_fused) r += saved(q, "qkv_fused_rest", a * T * (q_dim + k_dim));
    // GPT2Model creates DynamicCache(config) when use_cache (config.use_cache, turned off only by gradient
    // checkpointing in training); GPT2Attention passes K and V through its update, DynamicLayer.update returns
    // torch.cat([self.keys, key_states]) over an empty tensor, a copy, and SDPA saves the copies, while q, a view
    // of c_attn's output, keeps that output whole [transformers-code].
    if (x.kv_cache_copies) r += q.let("kv_cache_copies", tensor_pair(q, "kv_cache_copies", a * T, k_dim, v_dim));
    // Gated attention (Qwen3NextAttention: attn_output * sigmoid(gate) before o_proj) [transformers-code]:
    // the sigmoid's output and the ungated attention output, both saved by the product; o_proj's input
    // is the product (out_in below).
    if (L.output_gate) r += q.let("output_gate", tensors(q, "output_gate", 2, a * T * o_dim));
    r += attention_output(q, L, x, T, o_dim);
    return r;
}

// An encoder-decoder's cross-attention in one decoder layer (T5LayerCrossAttention's EncDecAttention, BartDecoderLayer's
// encoder_attn) [transformers-t5] [transformers-bart]: q from the decoder's T tokens, k and v from the encoder output's
// T_src = b x s_src tokens. It keeps q's input when q is trained, the casts of the encoder output that its k and v make
// (x.cross_kv_in_copies; the encoder output itself is one tensor for every layer, act.encoder_output), Q over T and K over
// T_src, V over T_src, then what any attention keeps after its scores (attention_output).
template <class Q>
Expr<Q> layer_cross_attention(Q& q, const LayerDims& L, const ActShape& x, double source_len) {
    using N = Expr<Q>;
    const N a = q("a_bytes", x.act_bytes), h = q("h", L.h);
    const N T = tokens(q, x);
    const N T_src = q.let("T_src", q("b", x.b) * q("s_src", source_len));
    const N q_dim = q.let("q_dim", heads_per_rank(q, L, x) * q("head_dim", L.head_dim));
    const N kv_dim = kv_dim_per_rank(q, L, x);
    N r{};
    if (x.save_qkv_in) r += q.let("xq_in", sp_split(q, x, saved_in_bytes(q, x) * T * h));
    if (x.cross_kv_in_copies > 0) r += q.let("xkv_in", q("kv_casts", x.cross_kv_in_copies) * saved_in_bytes(q, x) * T_src * h);
    r += q.let("xQ_K", a * (T * q_dim + T_src * kv_dim));
    if (L.qk_norm) r += q.let("xqk_norm_in", a * (T * q_dim + T_src * kv_dim));  // MllamaTextCrossAttention's q_norm / k_norm inputs
    r += q.let("xV", a * T_src * kv_dim);
    r += attention_output(q, L, x, T, q_dim);
    return r;
}

// The names of one attention's score tensors: self-attention's, or an encoder-decoder's cross-attention's (its own
// names, so that a decoder layer's formula shows both).
struct ScoreNames {
    const char *s2, *softmax, *softmax_in, *mask, *dropped, *cast;
};
constexpr ScoreNames kSelfScores{"S2", "softmax", "softmax_in", "attn_mask", "attn_dropped", "softmax_cast"};
constexpr ScoreNames kCrossScores{"xS2", "xsoftmax", "xsoftmax_in", "xattn_mask", "xattn_dropped", "xsoftmax_cast"};

// The s x s tensors: softmax output, its dropout mask and dropped copy; none with FlashAttention (N{}). The keys are the
// queries' own tokens, or for a cross-attention the encoder's s_src (keys, source_len > 0).
template <class Q>
Expr<Q> layer_scores(Q& q, const LayerDims& L, const ActShape& x, double source_len = 0, const ScoreNames& n = kSelfScores) {
    using N = Expr<Q>;
    if (x.flash) return N{};
    const N a = q("a_bytes", x.act_bytes);
    const N keys = source_len > 0 ? q("s_src", source_len) : q(x.s_name, x.s);
    // b * heads/t * s^2 elements (each rank: its s/cp queries x s keys)
    const N s2 = q.let(n.s2, q("b", x.b) * heads_per_rank(q, L, x) * (q(x.s_name, x.s) / q("cp", std::max(1.0, x.cp))) * keys);
    // softmax output (2as^2b); transformers' eager attention keeps it in fp32 [transformers-code]
    N r = x.softmax_fp32 ? saved(q, n.softmax, 4.0 * s2) : saved(q, n.softmax, a * s2);
    // PyTorch before 1.11 also saved the softmax's input (scores + mask, in the softmax's dtype: BERT's fp32 mask promotes
    // the sum under autocast; softmax(dtype=float32) converts first) [pytorch-pr65242]
    if (x.softmax_saves_input) r += x.softmax_fp32 ? saved(q, n.softmax_in, 4.0 * s2) : saved(q, n.softmax_in, a * s2);
    if (x.attn_dropout > 0) {
        const N mask = saved(q, n.mask, 1.0 * s2);                              // dropout mask (as^2b), 1 byte
        const N dropped = saved(q, n.dropped, a * s2);                          // dropped copy (2as^2b)
        r += mask + dropped;
    } else if (x.softmax_fp32 && x.act_bytes < 4) {
        r += saved(q, n.cast, a * s2);                                          // .to(query.dtype), saved by the PV matmul
    }
    return r;
}

// Expert tokens of a layer: every routed copy (T * top_k, dropless and balanced); with a capacity
// factor each of the E experts takes at most ceil(T * top_k / E * factor) (Megatron get_capacity),
// exactly that when padded to capacity, and fewer than T * top_k only when the factor drops tokens
// (< 1) [megatron-moe].
template <class Q>
Expr<Q> routed_tokens(Q& q, const LayerDims& L, const ActShape& x, const Expr<Q>& T) {
    const Expr<Q> Tk = T * q("top_k", L.top_k);
    if (!(x.expert_capacity > 0)) return Tk;
    if (x.pad_to_capacity) {
        const Expr<Q> E = q("experts", L.experts);
        return E * ceil_of(Tk / E * q("capacity_factor", x.expert_capacity));
    }
    if (x.expert_capacity < 1) return Tk * q("capacity_factor", x.expert_capacity);
    return Tk;
}

// MLP (or routed experts + router + shared expert) tensors of a layer of kind L.
template <class Q>
Expr<Q> layer_mlp(Q& q, const LayerDims& L, const ActShape& x) {
    using N = Expr<Q>;
    const double t = std::max(1.0, x.tp);
    const N a = q("a_bytes", x.act_bytes), lin = q("lin_bytes", x.linear_in_bytes), h = q("h", L.h);
    const N T = tokens(q, x);
    N r{};
    const bool shares_input = L.parallel_attn_mlp && x.save_qkv_in;           // GPT-J style: same normed input
    if (x.save_fc1_in && !shares_input) {                                        // fc1 input (2sbh)
        const N in = saved_in_bytes(q, x);
        if (x.fc1_in_copies > 1) r += q.let("fc1_in", tensors(q, "fc1_in", q("fc1_casts", x.fc1_in_copies), sp_split(q, x, in * T * h)));  // gate and up each cast
        else r += saved(q, "fc1_in", sp_split(q, x, in * T * h));
    }
    if (base_input_extra(x, x.save_fc1_in || shares_input) && !L.parallel_attn_mlp) r += saved(q, "fc1_base_in", sp_split(q, x, lin * T * h));
    if (x.dropout > 0) r += saved(q, "drop_mask", sp_split(q, x, 1.0 * T * h));  // MLP dropout mask (sbh), 1 byte
    if (L.experts > 0) {
        // HF MixtralSparseMoeBlock: fp32 router softmax (T x E), each routed copy of a token (T*k x h),
        // the expert MLPs over T*k tokens, the routing-weighted outputs (T*k x h); + shared expert on T tokens.
        const N routed = q.let("T_k", routed_tokens(q, L, x, T));
        r += saved(q, "router", 4.0 * T * q("experts", L.experts));
        r += q.let("routed_io", tensor(q, "routed_io", lin * routed * h) + tensor(q, "routed_io", a * routed * h));
        r += mlp_tensors(q, L, x, routed, q("expert_ffn", L.expert_ffn) / q("t", t), kExpertMlp);
        if (L.shared_ffn > 0) r += mlp_tensors(q, L, x, T, q("shared_ffn", L.shared_ffn) / q("t", t), kSharedMlp);
    } else {
        r += mlp_tensors(q, L, x, T, q("ffn", L.ffn) / q("t", t), kDenseMlp);  // GeLU in (8sbh) + fc2 in (8sbh)
    }
    return r;
}

// Whether transformers trains this mixer through its plain PyTorch path (train.ssm_kernels torch): Mamba1's
// MambaMixer.slow_forward and Mamba2's Mamba2Mixer.torch_forward (Falcon-H1's, Nemotron-H's, GraniteMoeHybrid's
// copies); Jamba's mixer (its dt/B/C norms) and Gated DeltaNet keep the kernels' walk.
inline bool mamba_torch_path(const LayerDims& L, const ActShape& x) {
    return x.ssm_torch && (L.ssm == SsmKind::Mamba2 || (L.ssm == SsmKind::Mamba1 && !L.ssm_unfused));
}

// A mixer linear's saved input over `elements` (tokens x its input width), where the module runs its own forward:
// its weight gradient's in full training, its adapter's under LoRA (lora_A saves the adapter's cast of the input, else
// the input itself) [peft-code], nothing when frozen and not adapted; and a frozen 4-bit layer's own copy
// (ActShape::base_saves_in).
template <class Q>
Expr<Q> mixer_linear_in(Q& q, const ActShape& x, bool trained, const char* name, const char* base_name, const Expr<Q>& elements) {
    Expr<Q> r{};
    if (trained) r += q.let(name, saved_in_bytes(q, x) * elements);
    if (base_input_extra(x, trained)) r += q.let(base_name, q("lin_bytes", x.linear_in_bytes) * elements);
    return r;
}

// What autograd saves for backward in transformers' plain PyTorch mixers, one layer, T = b s tokens, d = d_inner,
// n = d_state [transformers-ssm-torch]. e: the bytes of the ops autocast runs in fp32 (softplus; products with an
// fp32 parameter or buffer) or of the 16-bit type without autocast [pytorch-autocast-code]; a 16-bit tensor cast
// to bf16 by autocast for a matmul or conv is saved as that cast. Every product saves both operands, exp its output,
// silu and softplus their inputs; sums, casts, pads and views save none [pytorch-autograd-code].
// Mamba1 (slow_forward; use_mambapy false, its default): in_proj's output (conv1d's input and the gate are views of
// it: xz), the conv output and its silu (conv_act: x_proj's input and the D product's operand), x_proj's output
// (dt_proj's input is a view: x_dbl), softplus's input and output (dt), the fp32 x and B (x_fp32, B_fp32) of the
// discretisation, discrete_A (exp's output) and discrete_B (deltaB_u's operand), each step's fp32 ssm_state (the
// next step's product saves it) and its cast for the matmul with C (scan_states: s states of b x d x n), the fp32
// sum scan_output + x * D and silu(gate) (gated), and out_proj's cast input.
// Mamba2 (torch_forward), over S = q padded to chunks of l, H heads, c chunks: in_proj's output (proj; Falcon-H1
// multiplies it by its mup_vector buffer: that product, in e bytes, is what the views keep, and conv1d saves its own
// cast of xBC), the conv output, softplus's input, clamp's input and output (dt), the fp32 x (x_fp32), the padded x and x * dt
// (x_padded: D_residual's and the SSD products' operands), B and C repeated to every head (B_C), L, G and M
// (L_G_M: b x c x l x l x H each), B_decay, the concatenated chunk states and new_states (states: b (c + 1) d n each),
// C_times_states summed (C_states_sum), then the output: the gated RMSNorm's y, fp32 gate, silu, product and
// normalized product (norm_out), or y * silu(gate) without the norm, and out_proj's cast input.
template <class Q>
Expr<Q> layer_mamba_torch(Q& q, const LayerDims& L, const ActShape& x) {
    using N = Expr<Q>;
    const N a = q("a_bytes", x.act_bytes), T = tokens(q, x);
    const N e = x.residual_bytes > 0 ? q("fp32_bytes", 4.0) : a;
    // softplus is on autocast's fp32 list: fp32 under autocast over a 16-bit base too [pytorch-autocast-code]
    const N e_dt = x.autocast_16bit_base ? q("fp32_bytes", 4.0) : e;
    const N f = q("fp32_bytes", 4.0);
    const N d_in = q("d_inner", L.d_inner), n = q("d_state", L.d_state);
    N r = mixer_linear_in(q, x, x.save_in_proj_in, "in_proj_in", "in_proj_base_in", T * q("h", L.h));
    if (L.ssm == SsmKind::Mamba1) {
        r += q.let("xz", 2 * a * T * d_in);
        if (x.ssm_frozen) {
            // frozen: silu saves the conv output; its output is x_proj's input, saved by x_proj's adapter (D is frozen)
            r += q.let("conv_out", a * T * d_in);
            r += mixer_linear_in(q, x, x.save_x_proj_in, "x_proj_in", "x_proj_base_in", T * d_in);
        } else {
            r += q.let("conv_act", 2 * a * T * d_in);
        }
        r += q.let("x_dbl", a * T * (q("dt_rank", L.dt_rank) + 2 * n));
        // dt_proj's input is a view of x_dbl (kept by C's matmul); an adapter that casts it saves its own copy
        if (x.ssm_frozen && x.save_dt_proj_in && x.adapter_in_bytes > 0)
            r += q.let("dt_proj_in", q("adapter_in_bytes", x.adapter_in_bytes) * T * q("dt_rank", L.dt_rank));
        r += q.let("dt", 2 * e_dt * T * d_in);
        r += q.let("x_fp32", f * T * d_in);
        r += q.let("B_fp32", f * T * n);
        r += q.let("discretised", 2 * f * T * d_in * n);
        // ssm_state.to(dtype) then matmul: autocast (or a 16-bit dtype) makes a 16-bit copy per step; in fp32 none
        r += q.let("scan_states", (x.act_bytes < 4 ? f + a : f) * T * d_in * n);
        r += q.let("gated", (e + a) * T * d_in);
        r += mixer_linear_in(q, x, x.save_out_proj_in, "out_proj_in", "out_proj_base_in", T * d_in);
        return r;
    }
    const int64_t chunk = std::max<int64_t>(1, static_cast<int64_t>(L.ssm_chunk));
    const int64_t chunks = (static_cast<int64_t>(x.s) + chunk - 1) / chunk;
    const N b = q("b", x.b), l = q("chunk", static_cast<double>(chunk)), H = q("ssm_heads", L.ssm_heads);
    const N S = q.let("S", q("chunks", static_cast<double>(chunks)) * l);
    const N conv_dim = d_in + 2 * q("groups", L.ssm_groups) * n;
    const N width = 2 * d_in + 2 * q("groups", L.ssm_groups) * n + H;
    if (L.ssm_mup) {
        r += q.let("proj", e * T * width);
        if (x.residual_bytes > 0) r += q.let("conv_in", a * T * conv_dim);
    } else {
        r += q.let("proj", a * T * width);
    }
    r += q.let("conv_out", a * T * conv_dim);
    r += q.let("dt", 3 * e_dt * T * H);
    r += q.let("x_fp32", f * T * d_in);
    // the padded x (D_residual's operand, saved for D's gradient: none when D is frozen) and x * dt
    r += q.let("x_padded", (x.ssm_frozen ? 1 : 2) * f * b * S * d_in);
    r += q.let("B_C", 2 * f * b * S * H * n);
    r += q.let("L_G_M", 3 * f * b * S * l * H);
    r += q.let("B_decay", f * b * S * H * n);
    r += q.let("states", 2 * f * b * (q("chunks", static_cast<double>(chunks)) + 1) * d_in * n);
    r += q.let("C_states_sum", f * b * S * d_in);
    const double gate_bytes = L.ssm_mup && x.residual_bytes > 0 ? 4 : x.act_bytes;
    // y, the gate's fp32 cast (none when it is fp32 already), silu, product, and the normalized product the weight's
    // gradient reads (none when the norm is frozen)
    const double norm_kept = (gate_bytes < 4 ? 5 : 4) - (x.ssm_frozen ? 1 : 0);
    if (L.ssm_gated_norm)
        r += q.let("norm_out", norm_kept * f * T * d_in);
    else  // y * silu(gate): y and the silu output, in the gate's dtype
        r += q.let("gated", (f + q("gate_bytes", gate_bytes)) * T * d_in);
    r += mixer_linear_in(q, x, x.save_out_proj_in, "out_proj_in", "out_proj_base_in", T * d_in);
    return r;
}

// The largest transient of the torch mixer's backward beyond its saved tensors [pytorch-autograd-code]
// [transformers-ssm-torch]. Mamba1: each step's discrete_A[:, :, i] and deltaB_u[:, :, i] get their gradient
// through select_backward, a zeros tensor of the whole (b, d, s, n) shape, added into the two gradient buffers:
// 3 fp32 tensors of T d n. Mamba2: each broadcast product the SSD sums gets both operands' gradients at its full
// shape before the engine sums each back to its operand's shape: 2 fp32 tensors of the largest of
// G_intermediate = C * B (b, c, l, l, H, n), Y_diag's M * x (b, c, l, l, H, head_dim) and the states' and
// C_times_states' products (b, c, l, H, head_dim, n): 2 * 4 * b * S * max(l H n, l d, d n). N{} off the torch path.
template <class Q>
Expr<Q> mamba_torch_backward(Q& q, const LayerDims& L, const ActShape& x) {
    using N = Expr<Q>;
    if (!mamba_torch_path(L, x)) return N{};
    const N f = q("fp32_bytes", 4.0), d_in = q("d_inner", L.d_inner), n = q("d_state", L.d_state);
    if (L.ssm == SsmKind::Mamba1) return q.let("scan_grads", 3 * f * tokens(q, x) * d_in * n);
    const int64_t chunk = std::max<int64_t>(1, static_cast<int64_t>(L.ssm_chunk));
    const int64_t chunks = (static_cast<int64_t>(x.s) + chunk - 1) / chunk;
    const N l = q("chunk", static_cast<double>(chunk));
    const N S = q.let("S", q("chunks", static_cast<double>(chunks)) * l);
    const N H = q("ssm_heads", L.ssm_heads);
    return q.let("SSD_grads", 2 * f * q("b", x.b) * S * max_of(l * H * n, max_of(l * d_in, d_in * n)));
}


// Gated DeltaNet (Qwen3NextGatedDeltaNet / Qwen3_5GatedDeltaNet with fla's kernels) [transformers-code]: a lower bound, the
// tensors that must be kept for the weight and input gradients: the input projections' input (trained, or under LoRA / QLoRA
// its adapters' own: one cast of it per adapted projection where the adapter casts its input, else the input once; frozen and
// not adapted, none), causal_conv1d_fn's input and the chunked delta rule's q, k, v (each [T, 2 key_dim + value_dim], key_dim =
// groups * d_state), the gated norm's input and gate z (each [T, value_dim]; these the kernels keep for the input gradient,
// frozen or not) and out_proj's input (trained or adapted). The kernel's own intermediates (g, beta, the WY factors, the chunk
// states of chunk_gated_delta_rule) are not counted (training.cpp warns) [yang2024-gated-deltanet].
template <class Q>
Expr<Q> layer_gated_deltanet(Q& q, const LayerDims& L, const ActShape& x) {
    using N = Expr<Q>;
    const N a = q("a_bytes", x.act_bytes), T = tokens(q, x);
    const N d_in = q("d_inner", L.d_inner), n = q("d_state", L.d_state), h = q("h", L.h);
    N r{};
    if (x.save_gdn_in) r += q.let("in_proj_in", saved_in_bytes(q, x) * (x.gdn_in_copies > 1 ? q("in_proj_casts", x.gdn_in_copies) * T * h : T * h));
    if (base_input_extra(x, x.save_gdn_in)) r += q.let("in_proj_base_in", q("lin_bytes", x.linear_in_bytes) * T * h);  // one input, shared
    const N qkv = d_in + 2 * q("groups", L.ssm_groups) * n;
    r += q.let("conv_in", a * T * qkv);
    r += q.let("qkv", a * T * qkv);
    r += q.let("norm_in_z", 2 * a * T * d_in);
    r += mixer_linear_in(q, x, x.save_out_proj_in, "out_proj_in", "out_proj_base_in", T * d_in);
    return r;
}

// The Mamba mixer of a Mamba layer as transformers trains it with the fused kernels (mamba-ssm and
// causal-conv1d installed: MambaMixer / Mamba2Mixer cuda_kernels_forward) [transformers-code]. in_proj
// saves its input. Mamba1 runs mamba_inner_fn (MambaInnerFn, checkpoint_lvl 1: conv1d_out and delta
// are recomputed in backward), which saves xz [T, 2 d_inner], x_dbl [T, dt_rank + 2 d_state], B and C
// as contiguous [T, d_state] copies, the selective scan's fp32 chunk states [b, d_inner, ceil(s / 2048),
// 2 d_state] and the scan output [T, d_inner]; its out_proj runs inside and saves nothing more (out_z is
// recomputed). Mamba2 runs mamba_split_conv1d_scan_combined, which saves zxbcdt [T, 2 d_inner + 2 groups
// d_state + heads], the SSD output out_x [T, d_inner] and the gated RMSNorm's fp32 rstd [T, groups] (none without the norm)
// [mamba-ssm-code] [gu2023-mamba] [dao2024-mamba2]. Weights (conv1d, A, D, dt_bias) are parameters.
template <class Q>
Expr<Q> layer_mamba(Q& q, const LayerDims& L, const ActShape& x) {
    using N = Expr<Q>;
    if (mamba_torch_path(L, x)) return layer_mamba_torch(q, L, x);
    const N a = q("a_bytes", x.act_bytes), T = tokens(q, x);
    const N d_in = q("d_inner", L.d_inner), n = q("d_state", L.d_state);
    // in_proj runs its own forward (cuda_kernels_forward calls self.in_proj); the kernels save the rest whatever is frozen
    if (L.ssm == SsmKind::GatedDeltaNet) return layer_gated_deltanet(q, L, x);
    N r = mixer_linear_in(q, x, x.save_in_proj_in, "in_proj_in", "in_proj_base_in", T * q("h", L.h));
    if (L.ssm == SsmKind::Mamba2) {
        const N groups = q("groups", L.ssm_groups);
        r += q.let("zxbcdt", a * T * (2 * d_in + 2 * groups * n + q("ssm_heads", L.ssm_heads)));
        r += q.let("ssd_out", a * T * d_in);
        if (L.ssm_gated_norm) r += q.let("rstd", 4.0 * T * groups);  // without the norm (Falcon-H1 mamba_rms_norm false) rstd is None
        return r;
    }
    const N R = q("dt_rank", L.dt_rank);
    r += q.let("xz", 2 * a * T * d_in);
    if (L.ssm_unfused) {
        // Jamba (JambaMambaMixer.cuda_kernels_forward): causal_conv1d_fn saves its input, a view of xz
        // (above); x_proj saves the conv output; the dt, B and C RMSNorms their inputs (each norm's
        // input, as the layer norms count it); dt_proj its normed input; selective_scan_fn (SelectiveScanFn)
        // saves delta as a contiguous copy, then like MambaInnerFn B and C, the chunk states and its output
        // before the gate; out_proj saves its gated input [transformers-code] [mamba-ssm-code].
        // (x_proj and dt_proj save their inputs for their weights' gradients, or, frozen, for their adapters)
        if (x.ssm_frozen) r += mixer_linear_in(q, x, x.save_x_proj_in, "x_proj_in", "x_proj_base_in", T * d_in);
        else r += q.let("conv_out", a * T * d_in);
        r += q.let("dt_B_C_norm_in", a * T * (R + 2 * n));
        if (x.ssm_frozen) r += mixer_linear_in(q, x, x.save_dt_proj_in, "dt_proj_in", "dt_proj_base_in", T * R);
        else r += q.let("dt_proj_in", a * T * R);
        r += q.let("delta", a * T * d_in);
    } else {
        r += q.let("x_dbl", a * T * (R + 2 * n));
    }
    r += q.let("B_C", 2 * a * T * n);
    r += q.let("scan_states", 4.0 * q("b", x.b) * d_in * ceil_of(q("s", x.s) / q("scan_chunk", 2048.0)) * (2 * n));
    r += q.let("scan_out", a * T * d_in);
    if (L.ssm_unfused) r += mixer_linear_in(q, x, x.save_out_proj_in, "out_proj_in", "out_proj_base_in", T * d_in);
    return r;
}

}  // namespace

// One of those gradients, the largest single tensor the torch mixer's backward allocates and frees, for the
// caching allocator's split holes (allocator_reserve.h): mamba_torch_backward's bytes over the gradients it holds
// (Mamba1's scan: 3; Mamba2's SSD: 2). Zero off the torch path.
TransientTensor mamba_torch_grad(const LayerDims& L, const ActShape& x) {
    Numbers num;
    const double held = L.ssm == SsmKind::Mamba1 ? 3 : 2;
    return {"T_ssm_grad", 1, mamba_torch_backward(num, L, x) / held, 1};
}

double mamba_layer_activation_bytes(const LayerDims& L, const ActShape& x) {
    Numbers q;
    return layer_mamba(q, L, x);
}

LayerActivations layer_activations(const LayerDims& L, const ActShape& x) {
    Numbers q;
    LayerActivations r;
    r.input = layer_input(q, L, x);
    r.norms = layer_norms(q, L, x);
    r.attention = layer_attention(q, L, x);
    r.scores = layer_scores(q, L, x);
    r.mlp = layer_mlp(q, L, x);
    return r;
}

std::vector<SavedTensor> layer_saved_tensors(const LayerDims& L, const ActShape& x) {
    SavedList q;
    q.group = SavedGroup::Norms;
    layer_norms(q, L, x);
    q.group = SavedGroup::Attention;
    layer_attention(q, L, x);
    q.group = SavedGroup::Scores;
    layer_scores(q, L, x);
    q.group = SavedGroup::Mlp;
    layer_mlp(q, L, x);
    return std::move(q.list);
}

double adapter_input_cast_bytes(const Scenario& s) {
    const FineTuneOptions& ft = s.finetune;
    if (s.mode != Mode::FineTune || ft.method == FineTuneMethod::Full) return 0;
    switch (s.train.precision) {
        case Precision::MixedBF16: case Precision::MixedFP16:  // a 16-bit base under autocast (Trainer bf16/fp16)
            return ft.adapters_fp32 ? 2 : 0;
        case Precision::AutocastBF16: case Precision::AutocastFP16:  // an fp32 base: its fp32 inputs cast by autocast
            return 2;
        case Precision::PureBF16:  // no autocast: fp32 adapters get an fp32 copy of each bf16 input
            return ft.adapters_fp32 ? 4 : 0;
        case Precision::FsdpBF16:  // FSDP gathers the fp32 adapters in bf16 too: no cast of the input [pytorch-fsdp-code]
            return 0;
        default:
            return 0;
    }
}

ActShape decoder_shape(const ActShape& encoder, int64_t target_len) {
    ActShape d = encoder;
    if (target_len > 0) d.s = static_cast<double>(target_len);
    d.s_name = "s_tgt";
    d.T_name = "T_tgt";
    return d;
}

ActShape activation_shape(const Scenario& s, const Dtypes& dt) {
    const TrainingOptions& o = s.train;
    ActShape x;
    x.b = static_cast<double>(o.micro_batch);
    x.s = static_cast<double>(o.seq_len);
    x.tp = static_cast<double>(s.parallel.tp);
    x.cp = static_cast<double>(s.parallel.cp);
    x.sp = s.parallel.sp;
    x.flash = o.flash_attention;
    x.softmax_fp32 = plain_pytorch_training(s);
    x.softmax_saves_input = o.softmax_saves_input;
    x.qkv_view_keeps_fused = plain_pytorch_training(s) && s.model.fused_qkv && s.model.position == PositionKind::Rotary &&
                             s.model.attention != AttentionKind::MLA;
    x.kv_cache_copies = plain_pytorch_training(s) && s.model.fused_qkv && s.model.position == PositionKind::Learned &&
                        s.model.attention != AttentionKind::MLA && o.flash_attention && o.recompute == Recompute::None;
    x.ssm_torch = plain_pytorch_training(s) && o.ssm_kernels == SsmKernels::Torch;
    x.dropout = o.dropout;
    x.expert_capacity = o.moe_expert_capacity_factor;
    x.pad_to_capacity = o.moe_pad_expert_input_to_capacity;
    x.attn_dropout = o.attention_dropout < 0 ? o.dropout : o.attention_dropout;
    x.act_bytes = dt.act;
    x.linear_in_bytes = dt.linear_in;
    if (dt.residual > 0) {  // autocast over fp32 weights [pytorch-autocast-code]: separate q, k, v (and gate, up) projections each cast the fp32 normed input
        x.residual_bytes = dt.residual;
        // HF RMSNorm computes in fp32 and its weight multiply saves the normalized fp32 input when the
        // weight is trained; LayerNorm (F.layer_norm) saves only its input, mean and rstd [pytorch-docs].
        const bool norms_trained = !(s.mode == Mode::FineTune && s.finetune.method != FineTuneMethod::Full);
        x.norm_out_bytes = s.model.norm == NormKind::RMSNorm && norms_trained ? 4 : 0;
        x.qkv_in_copies = s.model.fused_qkv ? 1 : 3;  // one cast for a fused qkv Linear (c_attn, query_key_value)
        // the cross-attention's k and v each cast the encoder output (Llama 3.2 Vision's: the image states)
        if (s.model.seq2seq.active() || s.model.vision.mllama()) x.cross_kv_in_copies = 2;
        x.fc1_in_copies = s.model.gated_mlp ? 2 : 1;
    }
    // A 16-bit residual stream in plain PyTorch (transformers): HF RMSNorm upcasts its input
    // (hidden_states.to(torch.float32)) and pow and the rsqrt multiply save that fp32 copy, not the 16-bit
    // input [transformers-code]; layer_norm runs in fp32 under autocast and saves its fp32-cast input
    // [pytorch-autocast-code]. Autocast over 16-bit weights: LoRA's bf16/fp16-mixed (Trainer bf16/fp16).
    const bool adapters = s.mode == Mode::FineTune && s.finetune.method != FineTuneMethod::Full;
    const bool autocast_16bit_base = adapters && (o.precision == Precision::MixedBF16 || o.precision == Precision::MixedFP16 ||
                                                  o.precision == Precision::FsdpBF16);
    x.autocast_16bit_base = autocast_16bit_base;
    if (dt.residual <= 0 && dt.act < 4 && plain_pytorch_training(s) &&
        (s.model.norm == NormKind::RMSNorm || autocast_16bit_base))
        x.norm_in_bytes = 4;
    if (adapters) {
        // frozen linear layers need no saved input; LoRA targets do (their lora_A weight-gradient reads it)
        const unsigned tg = s.finetune.lora_targets;
        const bool gated = s.model.gated_mlp;
        x.save_qkv_in = (tg & (kLoraQ | kLoraK | kLoraV)) != 0;
        x.save_o_in = (tg & kLoraO) != 0;
        x.save_fc1_in = (tg & (gated ? (kLoraGate | kLoraUp) : kLoraUp)) != 0;
        x.save_fc2_in = (tg & kLoraDown) != 0;
        x.save_in_proj_in = (tg & kLoraInProj) != 0;
        x.save_x_proj_in = (tg & kLoraXProj) != 0;
        x.save_dt_proj_in = (tg & kLoraDtProj) != 0;
        x.save_out_proj_in = (tg & kLoraOutProj) != 0;
        // the Gated DeltaNet projections this model has (Qwen3.5 splits Qwen3-Next's two into four)
        unsigned gdn_in = 0;
        if (s.model.ssm.kind == SsmKind::GatedDeltaNet)
            cold([&] { gdn_in = tg & (gdn_split_projections(s.model) ? kLoraInProjQkv | kLoraInProjZ | kLoraInProjB | kLoraInProjA
                                                                     : kLoraInProjQkvz | kLoraInProjBa); });
        x.save_gdn_in = gdn_in != 0;
        x.ssm_frozen = true;
        // a frozen cross-attention k / v saves nothing; each adapted one saves its own cast of the encoder output where the
        // adapter or autocast casts it, else the encoder output itself (counted once)
        if (s.model.seq2seq.active() || s.model.vision.mllama())
            x.cross_kv_in_copies = adapter_input_cast_bytes(s) > 0 || x.residual_bytes > 0 ? std::popcount(tg & (kLoraK | kLoraV)) : 0;
        // PEFT LoraLayer.forward casts x to lora_A's dtype (_cast_input_dtype); under autocast lora_A's
        // matmul casts it again to the 16-bit type. Either way each adapted module saves its own copy of
        // the input, not the shared x (the frozen base linear saves no input) [peft-code] [pytorch-autocast-code].
        x.adapter_in_bytes = adapter_input_cast_bytes(s);
        x.base_saves_in = s.finetune.method == FineTuneMethod::QLoRA && s.finetune.bnb_saves_inputs;
        if (x.adapter_in_bytes > 0) {
            const auto count = [&](unsigned bits) { return static_cast<double>(std::popcount(tg & bits)); };
            // Lit-GPT's LoRAQKVLinear is one module over the fused qkv Linear: one cast [litgpt-lora-code]
            x.qkv_in_copies = s.finetune.lora_fused_qkv ? 1.0 : count(kLoraQ | kLoraK | kLoraV);
            x.fc1_in_copies = gated ? count(kLoraGate | kLoraUp) : 1;
            x.gdn_in_copies = std::max(1.0, count(gdn_in));
        }
    }
    return x;
}

namespace {

// A named formula variant's per-layer bytes for one micro-batch on one rank (PerLayerBytes,
// PerLayerElements, Coefficient: parallelism is not part of those formulas; tokens are divided by
// tp*cp, documented). The s^2 group alone, N{} where the formula has none:
template <class Q>
Expr<Q> variant_scores(Q& q, const Scenario& s, const ActShape& x) {
    using N = Expr<Q>;
    const N b = q("b", x.b), sq = q("s", x.s), heads = q("heads", static_cast<double>(s.model.heads));
    const N div = q("t", std::max(1.0, x.tp)) * q("cp", std::max(1.0, x.cp));
    switch (s.train.activation_formula) {
        case ActivationFormula::PerLayerBytes: return 5 * b * heads * sq * sq / div;                                   // 5bhs^2 bytes
        case ActivationFormula::PerLayerElements: return 2 * b * heads * sq * sq * q("a_bytes", x.act_bytes) / div;  // 2bhs^2 elements
        default: return N{};
    }
}

// The whole layer (with_scores: the s^2 group too; selective recomputation drops it).
template <class Q>
Expr<Q> variant_layer(Q& q, const Scenario& s, const ActShape& x, bool with_scores) {
    using N = Expr<Q>;
    const N b = q("b", x.b), sq = q("s", x.s), d = q("h", static_cast<double>(s.model.hidden));
    const N div = q("t", std::max(1.0, x.tp)) * q("cp", std::max(1.0, x.cp));
    N r{};
    switch (s.train.activation_formula) {
        case ActivationFormula::PerLayerBytes:  // attention 11bsd + 5bhs^2 bytes, MLP 19bsd bytes [transformer-series5 §2]
            r = q.let("A_attn", 11 * b * sq * d / div);
            if (with_scores) r += q.let("A_scores", variant_scores(q, s, x));
            r += q.let("A_mlp", 19 * b * sq * d / div);
            break;
        case ActivationFormula::PerLayerElements: {  // attention 6bsd + 2bhs^2, FFN 10bsd elements [llm-gpu-memory-2025]
            const N a = q("a_bytes", x.act_bytes);
            r = q.let("A_attn", 6 * b * sq * d * a / div);
            if (with_scores) r += q.let("A_scores", variant_scores(q, s, x));
            r += q.let("A_mlp", 10 * b * sq * d * a / div);
            break;
        }
        case ActivationFormula::Coefficient:  // C * b * s * h * bytes per layer [makinaruto2025] [zero2020 §3.2]
            r = q("C", s.train.activation_coefficient) * b * sq * d * q("a_bytes", x.act_bytes) / div;
            break;
        default: break;
    }
    return r;
}

template <class Q>
Expr<Q> variant_input(Q& q, const Scenario& s, const ActShape& x) {
    return q("a_bytes", x.act_bytes) * q("b", x.b) * q("s", x.s) * q("h", static_cast<double>(s.model.hidden)) /
           (q("t", std::max(1.0, x.tp)) * q("cp", std::max(1.0, x.cp)));
}

// A quantity several components of one estimate use: over Numbers it is evaluated once (on first use)
// and its value reused, as the fast path did before; over Symbols f runs each time a formula needs its
// text. Value and text both come from f.
template <class F>
class Once {
public:
    explicit Once(F f) : f_(std::move(f)) {}
    template <class Q>
    Expr<Q> operator()(Q& q) const {
        if constexpr (std::is_same_v<Q, Numbers>) {
            if (!done_) {
                value_ = f_(q);
                done_ = true;
            }
            return value_;
        } else {
            return f_(q);
        }
    }

private:
    F f_;
    mutable double value_ = 0;
    mutable bool done_ = false;
};

}  // namespace

double fused_loss_chunk_rows(double tokens, double vocab, double hidden) {
    const double inc = std::ceil(vocab / hidden);
    const double rows = std::ceil(tokens / inc);
    double p = 1;
    while (p < rows) p *= 2;
    return std::min(p, tokens);
}

// The materialised loss over the vocabulary on this rank (transformers ForCausalLMLoss [transformers-code], or
// BertForMaskedLM's CrossEntropyLoss over every position [transformers-bert-2022]): on the last pipeline stage,
// with train.loss upcast or upcast-shift; an encoder only with its masked-LM head. Its logits: b x s x V / t
// elements in the loss dtype (fp32 with transformers' upcast).
struct LossLogits {
    bool present = false;
    double logit_bytes = 0;
    double V = 0, t = 1;
};

static LossLogits materialised_loss(const TrainCtx& c, const ActShape& x) {
    const Scenario& s = c.s;
    LossLogits l;
    l.present = c.stage.last && (!s.model.encoder || s.model.mlm_head) && s.train.loss != LossImpl::Fused;
    l.logit_bytes = s.train.fp32_logits ? 4.0 : x.act_bytes;
    l.V = static_cast<double>(s.model.vocab);
    l.t = static_cast<double>(s.parallel.tp);
    return l;
}

template <class Q>
Expr<Q> logit_elements(Q& q, const ActShape& x, const LossLogits& l) {
    return q.let("N_logits", tokens(q, x) * q("V", l.V) / q("t", l.t));
}

// log_softmax's output, which cross_entropy saves for nll_loss's and its own backward [pytorch-docs]: one per
// micro-batch in flight.
template <class Q>
Expr<Q> log_softmax_output(Q& q, const ActShape& x, const LossLogits& l, double fl) {
    return q("in_flight", fl) * (q("logit_bytes", l.logit_bytes) * logit_elements(q, x, l));
}

// The loss backward's gradients: nll_loss's gradient and log_softmax's input gradient, each of the logits'
// shape in the loss dtype [pytorch-docs].
template <class Q>
Expr<Q> loss_gradients(Q& q, const ActShape& x, const LossLogits& l) {
    return 2 * (q("logit_bytes", l.logit_bytes) * logit_elements(q, x, l));
}

// The causal-LM loss over one micro-batch's logits on this rank (b x s x V / t elements), by train.loss.
// Materialised (transformers ForCausalLMLoss [transformers-code]): the output layer writes the logits
// in its compute dtype, logits.float() makes an fp32 copy, and cross_entropy = log_softmax (its fp32
// output is saved) + nll_loss [pytorch-docs]. All three are live when the loss is computed at the end
// of forward; the copy is freed when the loss returns, the 16-bit logits with the model outputs before
// backward. The loss backward (log-softmax output and its two gradients) is part of backward's working
// set (add_backward_working_sets). Transformers before PR #35646 also made a
// contiguous copy of the shifted fp32 logits [transformers-pr35646]. fp32_logits false: the loss on the
// 16-bit logits, no copy. Fused (Liger-Kernel [liger-kernel-code]): the logits of one chunk of rows at a
// time, and the gradient of the output layer's input, computed in forward and kept for backward.
static void add_loss(TrainCtx& c, const ActShape& x, const LossLogits& loss, double fl) {
    const Scenario& s = c.s;
    const double t = static_cast<double>(s.parallel.tp);
    const double V = static_cast<double>(s.model.vocab), H = static_cast<double>(s.model.hidden);
    const unsigned fwd = phase_bit(Phase::Forward);
    if (s.train.loss == LossImpl::Fused) {
        const double rows = fused_loss_chunk_rows(x.b * x.s / std::max(1.0, x.cp), V / t, H);
        add(c.e, c.d, comp("logits.fused_chunk", "logits of one chunk of rows (fused linear cross-entropy)", Category::Logits, fwd,
                           "Liger-Kernel fused_linear_cross_entropy_forward: chunk = next_power_of_2(ceil(BT / ceil(V / H))) rows [liger-kernel-code]"),
            [&](auto& q) { return q("chunk_rows", rows) * (q("V", V) / q("t", t)) * q("a_bytes", x.act_bytes); });
        add(c.e, c.d, comp("logits.fused_grad_input", "gradient of the output layer's input, computed in forward", Category::Logits, kFwdBwd,
                           "Liger-Kernel fused_linear_cross_entropy_forward: grad_input = zeros_like(input), kept for backward [liger-kernel-code]"),
            [&](auto& q) { return q("in_flight", fl) * (tokens(q, x) * q("h", H) * q("a_bytes", x.act_bytes)); });
        return;
    }
    // Megatron-Core's vocab_parallel_cross_entropy always calls .float(); .float() of fp32 logits is the same tensor.
    const bool megatron = s.train.loss == LossImpl::Megatron;
    const bool upcast = (s.train.fp32_logits || megatron) && x.act_bytes < 4;
    const Once elements([&](auto& q) { return logit_elements(q, x, loss); });
    // A loop that keeps `logits` in scope holds them through backward [litgpt-code]; so does a PyTorch before 1.11 whose
    // log_softmax saved its input, when that input is the logits themselves (no fp32 copy) [pytorch-pr65242].
    const bool saved_input = (s.train.softmax_saves_input || megatron) && !upcast;
    const bool held = s.train.loop_holds_logits || saved_input;
    add(c.e, c.d, comp("logits", "logits (b x s x V) from the output layer", Category::Logits, held ? kFwdBwd : fwd,
                       s.train.loop_holds_logits
                           ? "the output layer's matmul in the compute dtype, kept through backward by the training loop's reference [litgpt-code]; "
                             "vocab-parallel split by t [megatron-theoretical-memory]"
                       : megatron && saved_input
                           ? "the output layer's fp32 matmul, exponentiated and normalised in place by vocab_parallel_cross_entropy and saved "
                             "for backward as the softmax [megatron-cross-entropy-code]; vocab-parallel split by t [megatron-theoretical-memory]"
                       : saved_input
                           ? "the output layer's matmul in the compute dtype, log_softmax's input saved for backward (PyTorch before 1.11) "
                             "[pytorch-pr65242]; vocab-parallel split by t [megatron-theoretical-memory]"
                           : "the output layer's matmul in the compute dtype, dropped with the model outputs before backward [transformers-code]; "
                             "vocab-parallel split by t [megatron-theoretical-memory]"),
        [&](auto& q) { return q("in_flight", fl) * (q("a_bytes", x.act_bytes) * elements(q)); });
    // BertForMaskedLM has no .float(): under autocast log_softmax runs in fp32 and casts the 16-bit logits
    // itself, a copy of the same size that lives while the loss is computed [pytorch-autocast-code].
    // PyTorch before 1.11: log_softmax saved this copy, its input, until the loss backward [pytorch-pr65242].
    if (upcast)
        add(c.e, c.d, comp("logits.fp32", "fp32 copy of the logits for the loss", Category::Logits,
                           s.train.softmax_saves_input || megatron ? kFwdBwd : fwd,
                           megatron ? "Megatron-Core vocab_parallel_cross_entropy: logits.float(), turned into the softmax in place (exp, divide) "
                                      "and saved for backward, whose gradient is written into it [megatron-cross-entropy-code]"
                           : s.train.softmax_saves_input ? "the fp32 copy log_softmax reads, saved for its backward (PyTorch before 1.11) [pytorch-pr65242]"
                           : s.model.encoder           ? "autocast runs log_softmax in fp32: a cast of the 16-bit logits [pytorch-autocast-code]"
                                                       : "transformers ForCausalLMLoss: logits = logits.float() [transformers-code]"),
            [&](auto& q) { return q("in_flight", fl) * (4 * elements(q)); });
    if (s.train.loss == LossImpl::UpcastShift && !s.model.encoder)  // a masked-LM loss reads every position: no shift
        add(c.e, c.d, comp("logits.shift_copy", "contiguous copy of the shifted logits", Category::Logits, fwd,
                           "transformers before PR #35646: shift_logits = logits[..., :-1, :].contiguous() [transformers-pr35646]"),
            [&](auto& q) { return q("in_flight", fl) * (q("logit_bytes", loss.logit_bytes) * elements(q)); });
    if (megatron) return;  // the softmax is the fp32 logits above, made in place: nothing more is saved
    add(c.e, c.d, comp("logits.loss", "cross-entropy log-softmax output (b x s x V)", Category::Logits, fwd,
                       "PyTorch cross_entropy = log_softmax (saves its output) + nll_loss [pytorch-docs]"),
        [&](auto& q) { return log_softmax_output(q, x, loss, fl); });
}

// What a stage's layers are for the activation formulas: the formula, the layer kinds it holds
// (dense, MoE or both) and how many, the dims of a dense layer, and the in-flight micro-batches.
struct StageLayers {
    ActivationFormula f;
    bool walk;                     // the tensor walk (or Korthikanti's GPT layer through it)
    ActShape lx;                   // the activation shape the layer groups read
    bool has_dense, has_moe, mixed;
    LayerDims dense;               // tensor walk: the norm, attention, s^2 and input groups read no MoE field
    double L, nd, nm;              // layers of the stage: all, dense, MoE
    double fl;                     // micro-batches in flight
    Recompute rc;
    double k;                      // every-k recomputation
    // A state-space model: its attention layers and Mamba layers among the stage's (la = L, ls = 0 for
    // a transformer), and whether its layers have an MLP (a pure Mamba model has none).
    bool ssm_model;
    double la, ls;
    bool has_mlp;
    // The layers with an MLP (all of them but on a listed model), and whether a layer may hold its
    // mixer or its MLP alone (SsmSpec::layer_list: Nemotron-H's blocks).
    double lm;
    bool split_blocks;
};

static StageLayers stage_layers(const TrainCtx& c, const ActShape& x) {
    const Scenario& s = c.s;
    const ModelSpec& m = s.model;
    const ActivationFormula f = s.mode == Mode::FineTune ? ActivationFormula::TensorWalk : s.train.activation_formula;
    const bool korthikanti = f == ActivationFormula::Korthikanti;
    const bool walk = f == ActivationFormula::TensorWalk || korthikanti;
    const LayerPattern& pattern = c.pc.per_layer.pattern();  // layer_pattern(m), kept in the counts (not rebuilt per estimate)
    const int64_t n_moe = pattern.moe_count(c.stage.layer_begin, c.stage.layer_end);
    const int64_t n_mlp = pattern.mlp_count(c.stage.layer_begin, c.stage.layer_end);
    const int64_t n_dense = n_mlp - n_moe;
    // Llama 3.2 Vision's cross-attention layers: their norms and MLP over the text are every layer's, their attention, to the
    // images' states, is add_mllama_cross_attention's (none without images: the text-only forward skips those layers).
    const int64_t n_attn = pattern.attention_count(c.stage.layer_begin, c.stage.layer_end) +
                           (m.vision.mllama() ? 0 : pattern.cross_count(c.stage.layer_begin, c.stage.layer_end));
    const int64_t n_ssm = pattern.ssm_count(c.stage.layer_begin, c.stage.layer_end);
    ActShape lx = x;
    bool has_dense = true, has_moe = false;
    if (korthikanti) {
        // every layer is the paper's GPT layer as Table 2 assumes it [korthikanti2022]: no FlashAttention, dropout masks kept
        lx.flash = false;
        lx.softmax_fp32 = false;
        lx.qkv_view_keeps_fused = false;
        lx.kv_cache_copies = false;
        lx.dropout = lx.attn_dropout = 0.1;
    } else if (walk) {
        has_dense = n_dense > 0;
        has_moe = n_moe > 0;
    }
    // Returned as one prvalue, so LayerDims is initialised in place (default-constructing one and
    // assigning it is measurable on the fast path).
    return StageLayers{f, walk, lx, has_dense, has_moe, has_dense && has_moe,
                       korthikanti ? gpt_dims(static_cast<double>(m.hidden), static_cast<double>(m.heads))
                       : walk      ? layer_dims(m, false)
                                   : LayerDims{},
                       static_cast<double>(c.stage.layers()), static_cast<double>(n_dense), static_cast<double>(n_moe),
                       c.in_flight, s.train.recompute, static_cast<double>(std::max(1, s.train.recompute_every_k)),
                       m.ssm.active(), static_cast<double>(n_attn), static_cast<double>(n_ssm),
                       m.has_mlp() && n_mlp > 0, static_cast<double>(n_mlp), pattern.listed > 0 && m.ssm.active()};
}

// The per-layer groups of one stage (each a Once), and one whole layer made of them.
template <class Input, class Scores, class Norms, class Attention, class Mamba, class MlpDense, class MlpMoe, class Layer>
struct LayerGroups {
    const Input& input;
    const Scores& scores;
    const Norms& norms;
    const Attention& attention;
    const Mamba& mamba;
    const MlpDense& mlp_dense;
    const MlpMoe& mlp_moe;
    const Layer& layer;  // (q, with_scores): one layer's activations
};
template <class... G>
static LayerGroups<G...> layer_groups(const G&... g) {
    return {g...};
}

// The activations stored from forward to backward: each group per layer, or with recomputation the
// checkpointed layer inputs.
template <class G>
static void add_stored_activations(TrainCtx& c, const StageLayers& st, const G& g) {
    const double fl = st.fl, L = st.L;
    // in_flight * L_stage * A: a group that is the same in every layer of the stage
    const auto per_stage = [&](auto& q, const auto& A) { return q("in_flight", fl) * (q("L_stage", L) * A); };
    // The attention groups of a state-space model are on its attention layers only (Llama 3.2 Vision's: on its self-attention layers).
    const auto per_attention_layer = [&](auto& q, const auto& A) {
        return st.ssm_model || st.la != L ? q("in_flight", fl) * (q("L_attn", st.la) * A) : per_stage(q, A);
    };
    if (st.rc == Recompute::Full || st.rc == Recompute::EveryK) {
        const bool offload = c.s.train.offload_checkpoints;
        add(c.e, c.d, comp("act.checkpoints", offload ? "activations: checkpointed layer inputs (offloaded to host RAM)" : "activations: checkpointed layer inputs",
                           Category::Activations, kFwdBwd,
                           offload ? "Korthikanti et al. 2022 Table 2 (full recomputation 2sbh) [korthikanti2022]; Chen et al. 2016 [chen2016]; "
                                     "copied to the host in forward (hidden_states.to(\"cpu\", non_blocking=True)) [unsloth-offload]"
                                   : "Korthikanti et al. 2022 Table 2 (full recomputation 2sbh) [korthikanti2022]; Chen et al. 2016 (checkpoint every k layers) [chen2016]",
                           offload),
            [&](auto& q) {
                const auto A = q.let("A_input", g.input(q));
                if (st.rc == Recompute::Full) return q("in_flight", fl) * q("L_stage", L) * A;
                return q("in_flight", fl) * ceil_of(q("L_stage", L) / q("k", st.k)) * A;
            });
        if (offload)  // backward brings one checkpoint back to the GPU to recompute its segment
            add(c.e, c.d, comp("act.checkpoint_restored", "activations: the checkpoint brought back (backward)", Category::Activations, kBwd,
                               "hidden_states.to(device, non_blocking=True) before the segment's recomputation [unsloth-offload]"),
                [&](auto& q) { return 1 * q.let("A_input", g.input(q)); });
        return;
    }
    const bool sel = st.rc == Recompute::Selective;
    if (!st.walk) {
        const ActivationFormula f = st.f;
        const char* source = f == ActivationFormula::PerLayerBytes ? "11bsd + 5bhs^2 attention, 19bsd MLP bytes [transformer-series5 §2]"
                           : f == ActivationFormula::PerLayerElements ? "activations (16bsd + 2bhs^2) L elements, x bytes [llm-gpu-memory-2025]"
                                                                      : "C x L x B x S x H x bytes [makinaruto2025]; ZeRO Sec 3.2 footnote, C = 12 [zero2020 §3.2]";
        add(c.e, c.d, comp("act.layers", "activations: transformer layers", Category::Activations, kFwdBwd, source),
            [&](auto& q) {
                const auto A = q.let("A_layer", g.layer(q, !sel));
                return q("in_flight", fl) * q("L_stage", L) * A;
            });
        return;
    }
    Numbers num;
    add(c.e, c.d, comp("act.norms", "activations: norm inputs", Category::Activations, kFwdBwd,
                       "Korthikanti et al. 2022 Sec 4.1 (LayerNorm inputs 4sbh) [korthikanti2022 §4.1]"),
        [&](auto& q) {
            const auto A = q.let("A_norms", g.norms(q));
            return per_stage(q, A);
        });
    if (st.la > 0)
        add(c.e, c.d, comp("act.attention", "activations: attention (QKV input, Q, K, V, output, masks)", Category::Activations, kFwdBwd,
                           "Korthikanti et al. 2022 Sec 4.1 (11sbh) [korthikanti2022 §4.1]; attention 11bsd [transformer-series5 §2.1]; GQA: K,V sized by kv heads"),
            [&](auto& q) {
                const auto A = q.let("A_attn", g.attention(q));
                return per_attention_layer(q, A);
            });
    if (!sel && st.la > 0 && g.scores(num) > 0)
        add(c.e, c.d, comp("act.scores", "activations: attention scores (s^2: softmax, dropout)", Category::Activations, kFwdBwd,
                           "Korthikanti et al. 2022 Sec 4.1 (5as^2b) [korthikanti2022 §4.1]; dropped by FlashAttention [dao2022] or selective recomputation"),
            [&](auto& q) {
                const auto A = q.let("A_scores", g.scores(q));
                return per_attention_layer(q, A);
            });
    const bool torch_mixer = mamba_torch_path(st.dense, st.lx);
    if (st.ls > 0)
        add(c.e, c.d, comp(torch_mixer ? "act.mamba_torch" : "act.mamba",
                           torch_mixer ? "activations: Mamba mixer through transformers' torch path (the scan's fp32 tensors autograd keeps)"
                                       : "activations: Mamba mixer (in_proj input and the fused scan's saved tensors)",
                           Category::Activations, kFwdBwd,
                           torch_mixer ? "transformers MambaMixer.slow_forward / Mamba2Mixer.torch_forward (FalconH1Mixer's copy) without mamba-ssm: "
                                         "the tensors autograd saves [transformers-ssm-torch]; autocast's casts [pytorch-autocast-code]; what each "
                                         "op saves [pytorch-autograd-code]"
                                       : "mamba-ssm MambaInnerFn (checkpoint_lvl 1: conv1d_out and delta recomputed) / MambaSplitConv1dScanCombinedFn "
                           "save_for_backward, as transformers' cuda_kernels_forward calls them in training; Jamba: causal_conv1d_fn, the dt/B/C "
                           "norms, selective_scan_fn (SelectiveScanFn) and the projections one by one [mamba-ssm-code] [transformers-code]"),
            [&](auto& q) {
                const auto A = q.let("A_mamba", g.mamba(q));
                return q("in_flight", fl) * (q("L_ssm", st.ls) * A);
            });
    if (!st.has_mlp) return;
    add(c.e, c.d, comp("act.mlp", "activations: MLP", Category::Activations, kFwdBwd,
                       "Korthikanti et al. 2022 Sec 4.1 (19sbh) [korthikanti2022 §4.1]; MLP 19bsd [transformer-series5 §2.2]; HF LlamaMLP / MixtralSparseMoeBlock [transformers-code]"),
        [&](auto& q) {
            if (!st.mixed) {
                const auto A = q.let("A_mlp", st.has_dense ? g.mlp_dense(q) : g.mlp_moe(q));
                if (st.lm != L) return q("in_flight", fl) * (q("L_mlp", st.lm) * A);  // the layers with an MLP
                return per_stage(q, A);
            }
            // in_flight * (L_dense * A_mlp_dense + L_moe * A_mlp_moe)
            const auto d = q.let("A_mlp_dense", g.mlp_dense(q));
            const auto e = q.let("A_mlp_moe", g.mlp_moe(q));
            return q("in_flight", fl) * (q("L_dense", st.nd) * d + q("L_moe", st.nm) * e);
        });
}

// Backward's working set beyond the stored activations (one micro-batch). Backward runs the loss first:
// the saved log-softmax output, nll_loss's gradient and log_softmax's input gradient are live together, and
// all three are freed once the gradient has passed the output layer. Then the layers, one at a time: the
// recomputed segment and one layer's activation gradients (the largest layer: they have its activations'
// shapes). The two never coincide, so the peak holds the larger of them [pytorch-docs] [chen2016]
// [korthikanti2022 §5].
template <class G>
static void add_backward_working_sets(TrainCtx& c, const StageLayers& st, const G& g, const ActShape& x, const LossLogits& loss) {
    const Once largest([&](auto& q) { return g.layer(q, true); });
    const bool layer_grads = c.s.overheads.backward_working_set;
    const auto layer_backward = [&](auto& q) {
        using N = std::decay_t<decltype(q("", 0.0))>;
        N r{};
        if (st.rc == Recompute::Full) r += 1 * q.let("A_layer", largest(q));               // one layer recomputed at a time
        if (st.rc == Recompute::EveryK)                                                     // k layers at a time
            r += min_of(q("k", st.k), q("L_stage", st.L)) * q.let("A_layer", largest(q));
        if (st.rc == Recompute::Selective) r += 1 * let_some(q, "A_scores", g.scores(q));  // one layer's s^2 core
        if (layer_grads) r += q.let("A_layer", largest(q));                                 // its activations' gradients
        if (st.ls > 0) r += let_some(q, "A_ssm_backward", mamba_torch_backward(q, st.dense, st.lx));  // the torch mixer's largest transient
        return r;
    };
    // Megatron-Core's loss backward writes the gradient into the saved fp32 softmax (logits.fp32, live already); the
    // .float() it came from casts that gradient back to the logits' dtype [megatron-cross-entropy-code].
    const bool megatron = c.s.train.loss == LossImpl::Megatron;
    const auto loss_backward = [&](auto& q) {
        using N = std::decay_t<decltype(q("", 0.0))>;
        if (megatron) return x.act_bytes < 4 ? q("a_bytes", x.act_bytes) * logit_elements(q, x, loss) : N{};
        return log_softmax_output(q, x, loss, st.fl) + loss_gradients(q, x, loss);
    };
    Numbers num;
    const bool layers = layer_backward(num) > 0;
    if (!layers && !loss.present) return;
    add(c.e, c.d, comp("act.backward_working", "backward working set: the loss backward or one layer's backward, the larger", Category::Activations, kBwd,
                       megatron ? "the loss backward: the gradient written into the saved fp32 softmax, cast back to the logits' dtype "
                                  "[megatron-cross-entropy-code]; one layer's backward: the recomputed segment (Chen et al. 2016 [chen2016]; "
                                  "Korthikanti et al. 2022 Sec 5 [korthikanti2022 §5]) and its activation gradients (core/training/DERIVATION.md)"
                                : "the loss backward: log-softmax output + nll_loss's and log_softmax's gradients [pytorch-docs]; one layer's backward: "
                                  "the recomputed segment (Chen et al. 2016 [chen2016]; Korthikanti et al. 2022 Sec 5 [korthikanti2022 §5]) and its "
                                  "activation gradients (core/training/DERIVATION.md)"),
        [&](auto& q) {
            if (!loss.present) return layer_backward(q);
            if (!layers) return loss_backward(q);
            const auto l = q.let("loss_backward", loss_backward(q));
            const auto w = q.let("layer_backward", layer_backward(q));
            return max_of(l, w);
        });
}

// An encoder's task head on the last stage, what autograd saves as transformers' BERT of early 2022 runs it
// [transformers-bert-2022]. BertPooler's dense reads hidden_states[:, 0], a view, so in plain PyTorch it saves
// (and keeps alive) the whole last hidden state; under autocast it saves its 16-bit cast of the first tokens
// only [pytorch-autocast-code]. tanh saves its output, the pooled b x h. BertForSequenceClassification: the
// dropout mask over the pooled output and the classifier's input (its loss over b x num_labels is not counted);
// RoBERTa's classification head (dense, tanh, out_proj: the same parameters) drops out the first tokens first.
// BertForMaskedLM: the transform's dense input (the last hidden state), the GELU input, the LayerNorm input
// and the tied decoder's input, each b x s x h; its logits and loss are add_loss's.
static void add_encoder_head(TrainCtx& c, const ActShape& x, double fl) {
    const ModelSpec& m = c.s.model;
    const double H = static_cast<double>(m.hidden);
    add(c.e, c.d, comp("act.encoder_head", m.mlm_head ? "activations: masked-LM head (transform and decoder inputs)"
                                                     : "activations: pooler and classifier inputs",
                       Category::Activations, kFwdBwd,
                       "transformers BertPooler, BertForSequenceClassification, BertLMPredictionHead (saved inputs) [transformers-bert-2022]; "
                       "autocast casts [pytorch-autocast-code]"),
        [&](auto& q) {
            const auto T = tokens(q, x);
            const auto h = q("h", H), a = q("a_bytes", x.act_bytes);
            if (m.mlm_head) {
                const auto in = saved_in_bytes(q, x);
                return q("in_flight", fl) * q.let("mlm_saved", (in + a + norm_in_bytes(q, x) + in) * T * h);
            }
            if (!m.pooler) return q("in_flight", fl) * q.let("last_hidden", residual_bytes(q, x) * T * h);
            const auto b = q("b", x.b);
            const bool drop = c.s.train.dropout > 0;
            // RobertaForSequenceClassification has no pooler: RobertaClassificationHead runs dropout on the first
            // tokens before its dense, so with dropout nothing keeps the last hidden state [transformers-code].
            const bool roberta_head = m.num_labels > 0 && (m.model_type == "roberta" || m.model_type == "xlm-roberta");
            auto r = roberta_head && drop ? q.let("dense_in", 1.0 * b * h + saved_in_bytes(q, x) * b * h)  // dropout mask + dense input
                     : x.residual_bytes > 0 ? q.let("pooler_in", saved_in_bytes(q, x) * b * h)  // autocast's cast of the first tokens
                                            : q.let("pooler_in", residual_bytes(q, x) * T * h);  // the view keeps the whole last hidden state
            r += q.let("pooled", a * b * h);                                                  // tanh output
            if (m.num_labels > 0) {
                if (drop) r += q.let("cls_mask", 1.0 * b * h);
                r += q.let("cls_in", saved_in_bytes(q, x) * b * h);
            }
            return q("in_flight", fl) * r;
        });
}

// What the first stage keeps before its layers (token ids, embedding dropout mask; x_in: the tokens embedded, an
// encoder-decoder's source and target) and the last stage after them (final norm and output-layer inputs, or an
// encoder's head), then the loss.
static void add_stage_ends(TrainCtx& c, const ActShape& x, const ActShape& x_in, const LossLogits& loss, double fl) {
    const ModelSpec& m = c.s.model;
    if (c.stage.first) {
        add(c.e, c.d, comp("act.embedding", "activations: token ids + embedding dropout mask", Category::Activations, kFwdBwd,
                           m.encoder ? "Megatron-LM theoretical_memory_usage.py (8sbp + sbhp) [megatron-theoretical-memory]; "
                                       "BertEmbeddings' LayerNorm input [transformers-bert-2022]"
                                     : "Megatron-LM theoretical_memory_usage.py (8sbp + sbhp) [megatron-theoretical-memory]"),
            [&](auto& q) {
                const auto T = tokens(q, x_in);
                auto emb = q.let("token_ids", 8 * T);  // int64
                // BertEmbeddings: LayerNorm(word + token type + position embeddings) saves its input, in the
                // residual stream's dtype (fp32 under autocast: embedding lookups are not autocast) [transformers-bert-2022]
                if (m.encoder && m.embedding_norm)
                    emb += q.let("emb_norm_in", sp_split(q, x_in, norm_in_bytes(q, x_in) * T * q("h", static_cast<double>(m.hidden))));
                if (c.s.train.dropout > 0) emb += q.let("emb_mask", sp_split(q, x_in, T * q("h", static_cast<double>(m.hidden))));  // 1 byte
                return q("in_flight", fl) * emb;
            });
    }
    if (c.stage.last && m.encoder) {
        add_encoder_head(c, x, fl);
        if (m.mlm_head) add_loss(c, x, loss, fl);
        return;
    }
    if (c.stage.last) {
        const bool head_trained = !c.finetune_adapters;
        add(c.e, c.d, comp("act.final", "activations: final norm input and output-layer input", Category::Activations, kFwdBwd,
                           "Megatron-LM theoretical_memory_usage.py (output layer input) [megatron-theoretical-memory]"),
            [&](auto& q) {
                const auto T = tokens(q, x);
                const auto one = sp_split(q, x, q("a_bytes", x.act_bytes) * T * q("h", static_cast<double>(m.hidden)));
                auto fin = q.let("final_norm_in", x.residual_bytes > 0 || x.norm_in_bytes > 0
                                                      ? sp_split(q, x, norm_in_bytes(q, x) * T * q("h", static_cast<double>(m.hidden)))
                                                      : one);
                if (head_trained) fin += q.let("head_in", one);
                return q("in_flight", fl) * fin;
            });
        add_loss(c, x, loss, fl);
    }
}

// An encoder-decoder (T5, mT5, BART) [transformers-t5] [transformers-bart], one pipeline stage (validate_training): the
// encoder's layers walked over the source (train.seq_len), the decoder's over the target (train.target_len) with their
// third norm and the cross-attention to the encoder output (layer_cross_attention, layer_scores over s_src keys); the
// encoder output itself, which every decoder layer's k and v read, kept once with the encoder's final norm input and
// dropout mask (T5Stack final_layer_norm, dropout); the embedding inputs of both stacks; logits and loss over the target.
static void add_seq2seq_activations(TrainCtx& c, const StageLayers& st, const ActShape& xe) {
    const Scenario& s = c.s;
    const ModelSpec& m = s.model;
    const ActShape xd = decoder_shape(xe, s.train.target_len);
    const double Ld = static_cast<double>(c.pc.per_layer.pattern().cross_count(c.stage.layer_begin, c.stage.layer_end));
    const double Le = st.L - Ld, fl = st.fl, src = xe.s;
    const LayerDims& enc = st.dense;
    LayerDims dec = enc;
    dec.norms += 1;  // T5 layer[1].layer_norm, BART encoder_attn_layer_norm
    const bool sel = st.rc == Recompute::Selective;
    const auto enc_scores = [&](auto& q) { return layer_scores(q, enc, xe); };
    const auto dec_scores = [&](auto& q) { return layer_scores(q, dec, xd) + layer_scores(q, dec, xd, src, kCrossScores); };
    // One layer of a stack: a decoder layer over the target with its cross-attention, or an encoder layer over the source.
    const auto stack_layer = [&](auto& q, bool decoder, bool with_scores) {
        const LayerDims& L = decoder ? dec : enc;
        const ActShape& x = decoder ? xd : xe;
        auto r = q.let("A_norms", layer_norms(q, L, x));
        r += q.let("A_attn", layer_attention(q, L, x));
        if (decoder) r += q.let("A_cross", layer_cross_attention(q, L, x, src));
        if (with_scores) r += let_some(q, "A_scores", decoder ? dec_scores(q) : enc_scores(q));
        r += q.let("A_mlp", layer_mlp(q, L, x));
        return r;
    };
    const auto enc_layer = [&](auto& q, bool with_scores) { return stack_layer(q, false, with_scores); };
    const auto dec_layer = [&](auto& q, bool with_scores) { return stack_layer(q, true, with_scores); };
    if (st.rc == Recompute::Full) {
        add(c.e, c.d, comp("act.checkpoints", "activations: checkpointed layer inputs (encoder and decoder)", Category::Activations, kFwdBwd,
                           "Korthikanti et al. 2022 Table 2 (full recomputation 2sbh) [korthikanti2022]; each stack over its own tokens"),
            [&](auto& q) {
                const auto e = q.let("A_input", layer_input(q, enc, xe));
                const auto d = q.let("A_input_tgt", layer_input(q, dec, xd));
                return q("in_flight", fl) * (q("L_enc", Le) * e + q("L_dec", Ld) * d);
            });
    } else {
        struct Stack {
            const char *id, *label, *source, *layer, *count;
            double layers;
            bool decoder;
        };
        for (const Stack& k : {Stack{"act.encoder", "activations: encoder layers (over the source)",
                                     "Korthikanti et al. 2022 Sec 4.1 tensor by tensor [korthikanti2022 §4.1]; T5Block / BartEncoderLayer "
                                     "[transformers-t5] [transformers-bart]; without the s x s scores under selective recomputation",
                                     "A_enc_layer", "L_enc", Le, false},
                               Stack{"act.decoder", "activations: decoder layers (self-attention, cross-attention to the encoder output, MLP)",
                                     "Korthikanti et al. 2022 Sec 4.1 tensor by tensor [korthikanti2022 §4.1], the cross-attention's K and V over "
                                     "the source; T5LayerCrossAttention / BartDecoderLayer.encoder_attn [transformers-t5] [transformers-bart]",
                                     "A_dec_layer", "L_dec", Ld, true}})
            add(c.e, c.d, comp(k.id, k.label, Category::Activations, kFwdBwd, k.source), [&](auto& q) {
                const auto A = q.let(k.layer, stack_layer(q, k.decoder, !sel));
                return q("in_flight", fl) * q(k.count, k.layers) * A;
            });
    }
    add(c.e, c.d, comp("act.encoder_output", "activations: the encoder output every decoder layer's cross-attention reads",
                       Category::Activations, kFwdBwd,
                       "encoder_outputs' last hidden state, one tensor for every decoder layer's k and v; T5Stack final_layer_norm and "
                       "dropout [transformers-t5] [transformers-bart]"),
        [&](auto& q) {
            const auto T = tokens(q, xe);
            auto r = q.let("enc_out", residual_bytes(q, xe) * T * q("h", enc.h));
            if (m.final_norm) {
                LayerDims one = enc;
                one.norms = 1;
                r += q.let("enc_final_norm", layer_norms(q, one, xe));
            }
            if (xe.dropout > 0) r += q.let("enc_out_mask", sp_split(q, xe, 1.0 * T * q("h", enc.h)));
            return q("in_flight", fl) * r;
        });
    // Backward: the larger of the loss's working set and one layer's backward, the larger layer of the two stacks.
    Numbers num;
    const bool decoder_larger = dec_layer(num, true) >= enc_layer(num, true);
    const bool decoder_scores_larger = dec_scores(num) >= enc_scores(num);
    const auto layer_of = [&](auto& q, bool with_scores) { return decoder_larger ? dec_layer(q, with_scores) : enc_layer(q, with_scores); };
    const auto scores_of = [&](auto& q) { return decoder_scores_larger ? dec_scores(q) : enc_scores(q); };
    struct Groups {
        decltype(layer_of)& layer;
        decltype(scores_of)& scores;
    };
    const Groups g{layer_of, scores_of};
    const LossLogits loss = materialised_loss(c, xd);
    add_backward_working_sets(c, st, g, xd, loss);
    ActShape x_in = xe;  // the embedding's token ids and dropout mask: the source's and the target's tokens
    x_in.s = xe.s + xd.s;
    x_in.s_name = "s_src_tgt";
    add_stage_ends(c, xd, x_in, loss, fl);
}

// Zamba's shared transformer blocks in training (SsmSpec::shared_blocks): each invocation on the stage keeps its own activations
// (the block's weights are shared, its forward is not). act.attention counts its attention over d-wide inputs on the
// invocations (the stage's attention layers); beside it each invocation keeps: the second half of q, k and v's input, which is
// concat(hidden, embeddings) normed (2d wide); the inputs of its two norms, input_layernorm over 2d and pre_ff_layernorm over
// d (three norms' worth of d-wide inputs); the gated MLP (Zamba2MLP: gate_up, the activation, down), walked as a dense MLP of
// intermediate_size; the input of its own linear [d, d]; and the adapters' r-wide middles, the second Linear's saved input
// (the gate_up adapter, and q, k, v's with attn_adapters) [transformers-zamba2] [korthikanti2022 §4.1].
static void add_shared_block_activations(TrainCtx& c, const StageLayers& st) {
    const ModelSpec& m = c.s.model;
    if (m.ssm.shared_blocks <= 0 || !st.walk || st.la <= 0 || st.rc == Recompute::Full || st.rc == Recompute::EveryK) return;
    LayerDims norms = st.dense;
    norms.norms = 3;
    const double adapters = m.ssm.adapter_rank > 0 ? (m.ssm.attn_adapters ? 4.0 : 1.0) : 0.0;
    add(c.e, c.d, comp("act.shared_block", "activations: the shared blocks' norms, wider q/k/v input, MLP, linear and adapters, per invocation",
                       Category::Activations, kFwdBwd,
                       "Zamba2AttentionDecoderLayer over concat(hidden, embeddings), Zamba2MLP, Zamba2HybridLayer.linear, the adapters "
                       "[transformers-zamba2]; each tensor as Korthikanti et al. 2022 Sec 4.1 counts a layer's [korthikanti2022 §4.1]"),
        [&](auto& q) {
            const auto T = tokens(q, st.lx);
            const auto lin = q("lin_bytes", st.lx.linear_in_bytes), h = q("h", st.dense.h);
            auto A = q.let("A_shared_norms", layer_norms(q, norms, st.lx));
            A += tensor(q, "qkv_in_embeddings", lin * T * h);
            A += q.let("A_mlp", layer_mlp(q, st.dense, st.lx));
            A += tensor(q, "linear_in", lin * T * h);
            if (adapters > 0) A += tensor(q, "adapter_mid", q("n_adapters", adapters) * lin * T * q("r_adapter", static_cast<double>(m.ssm.adapter_rank)));
            return q("in_flight", st.fl) * (q("L_attn", st.la) * q.let("A_shared", A));
        });
}

void add_activations(TrainCtx& c) {
    const Scenario& s = c.s;
    const ModelSpec& m = s.model;
    const ActShape x = activation_shape(s, c.dt);
    const StageLayers st = stage_layers(c, x);
    if (m.seq2seq.active()) {
        add_seq2seq_activations(c, st, x);
        return;
    }
    const LayerDims& dense = st.dense;
    const ActShape& lx = st.lx;

    // The groups the components are made of (tensor walk, or the named variant's closed forms).
    const Once input([&](auto& q) { return st.walk ? layer_input(q, dense, lx) : variant_input(q, s, x); });
    const Once scores([&](auto& q) { return st.walk ? layer_scores(q, dense, lx) : variant_scores(q, s, x); });
    const Once norms([&](auto& q) { return layer_norms(q, dense, lx); });
    const Once attention([&](auto& q) { return layer_attention(q, dense, lx); });
    const Once mamba([&](auto& q) { return layer_mamba(q, dense, lx); });
    const Once mlp_dense([&](auto& q) { return layer_mlp(q, dense, lx); });
    const Once mlp_moe([&](auto& q) { return layer_mlp(q, layer_dims(m, true), lx); });
    // One layer's activations; on a stage with both kinds, the larger of the two MLP groups.
    const auto layer = [&](auto& q, bool with_scores) {
        if (!st.walk) return variant_layer(q, s, x, with_scores);
        auto r = q.let("A_norms", norms(q));
        if (st.split_blocks) {  // a layer holds its mixer or its MLP: the largest of them
            auto at = q.let("A_attn", attention(q));
            if (with_scores) at += let_some(q, "A_scores", scores(q));
            auto mix = st.ls == 0 ? at : st.la == 0 ? q.let("A_mamba", mamba(q)) : max_of(at, q.let("A_mamba", mamba(q)));
            if (!st.has_mlp) return r + mix;
            const auto mlp = st.mixed ? max_of(q.let("A_mlp_dense", mlp_dense(q)), q.let("A_mlp_moe", mlp_moe(q)))
                                      : q.let("A_mlp", st.has_dense ? mlp_dense(q) : mlp_moe(q));
            return r + max_of(mix, mlp);
        }
        if (st.ls == 0) {
            r += q.let("A_attn", attention(q));
            if (with_scores) r += let_some(q, "A_scores", scores(q));
        } else if (st.la == 0) {
            r += q.let("A_mamba", mamba(q));
        } else {  // a hybrid stage: the larger of an attention layer's and a Mamba layer's mixer
            auto at = q.let("A_attn", attention(q));
            if (with_scores) at += let_some(q, "A_scores", scores(q));
            r += max_of(at, q.let("A_mamba", mamba(q)));
        }
        if (!st.has_mlp) return r;
        if (!st.mixed) {
            r += q.let("A_mlp", st.has_dense ? mlp_dense(q) : mlp_moe(q));
        } else {
            const auto d = q.let("A_mlp_dense", mlp_dense(q));
            const auto e = q.let("A_mlp_moe", mlp_moe(q));
            r += max_of(d, e);
        }
        return r;
    };
    const auto g = layer_groups(input, scores, norms, attention, mamba, mlp_dense, mlp_moe, layer);

    add_stored_activations(c, st, g);
    if (m.ssm.shared_blocks > 0) cold([&] { add_shared_block_activations(c, st); });  // a Zamba model's path only
    const LossLogits loss = materialised_loss(c, x);
    add_backward_working_sets(c, st, g, x, loss);
    add_stage_ends(c, x, x, loss, st.fl);
}

// Llama 3.2 Vision (mllama) training with images: each cross-attention layer (MllamaCrossAttentionDecoderLayer) attends from the
// text to cross_attention_states, the projector's output over every image's max_num_tiles x (patches + 1) positions (6404 at
// 560 px, 4 tiles, whatever the image's size), one tensor every cross layer reads [transformers-mllama]. A cross layer keeps
// (recompute none or selective) what an encoder-decoder's cross-attention keeps with the images as its source
// (layer_cross_attention: q's input when q is adapted, the image states' casts where adapted k / v cast them, Q over the text's
// T tokens, K and V over T_img = b x images x 6404 states, the attention's output), MllamaTextCrossAttention's q_norm / k_norm
// inputs, and with eager attention its heads x s x T_img scores (layer_scores over s_src = images x 6404 keys). Once per
// micro-batch, whatever the recomputation: the image states [b, images x 6404, d] and the cross-attention mask
// _prepare_cross_attention_mask expands to [b, 1, s, images x 6404] in the model's dtype, which every cross layer's attention
// reads and saves (with checkpointing, arguments of every checkpointed cross layer). Its norms, MLP and checkpointed inputs
// over the text are the walk's (stage_layers); the tanh gates' products and the text-row mask are not counted (a scalar and
// b x s), nor the adapters of k / v over the image states (r wide: act.lora counts them over the text).
void add_mllama_cross_attention(TrainCtx& c) {
    const Scenario& s = c.s;
    const ModelSpec& m = s.model;
    if (!m.vision.mllama() || s.train.images <= 0 || !m.architecture_known()) return;
    const double n_cross = static_cast<double>(c.pc.per_layer.pattern().cross_count(c.stage.layer_begin, c.stage.layer_end));
    if (!(n_cross > 0)) return;
    const ImageGrid g = image_grid(m.vision, s.train.image_width, s.train.image_height);
    const double src = static_cast<double>(s.train.images * g.cross_tokens);
    const ActShape x = activation_shape(s, c.dt);
    LayerDims L = layer_dims(m, false);
    L.qk_norm = true;  // MllamaTextCrossAttention: q_norm, k_norm over head_dim
    const Recompute rc = s.train.recompute;
    add(c.e, c.d, comp("act.image_states", "activations: the image states and mask every cross-attention layer reads", Category::Activations,
                       kFwdBwd,
                       "MllamaForConditionalGeneration: cross_attention_states = multi_modal_projector(vision outputs) [b, images x tiles x "
                       "(patches + 1), d]; _prepare_cross_attention_mask [b, 1, s, images x tiles x (patches + 1)] [transformers-mllama]"),
        [&](auto& q) {
            const auto T_img = q.let("T_img", q("b", x.b) * q("s_img", src));
            return q("in_flight", c.in_flight) * q("a_bytes", x.act_bytes) * (T_img * q("d", static_cast<double>(m.hidden)) + T_img * q("s", x.s));
        });
    if (rc == Recompute::Full || rc == Recompute::EveryK) return;
    add(c.e, c.d, comp("act.cross_attention", "activations: cross-attention layers over the images' states", Category::Activations, kFwdBwd,
                       "MllamaTextCrossAttention: q over the text, k and v over the image states, q_norm / k_norm [transformers-mllama]; "
                       "kept as an encoder-decoder's cross-attention (Korthikanti et al. 2022 Sec 4.1 [korthikanti2022 §4.1])"),
        [&](auto& q) {
            auto A = q.let("A_cross", layer_cross_attention(q, L, x, src));
            if (rc == Recompute::None) A += let_some(q, "A_xscores", layer_scores(q, L, x, src, kCrossScores));
            return q("in_flight", c.in_flight) * q("L_cross", n_cross) * A;
        });
}

// A vision tower that trains (train.vision all) or carries adapters (train.vision lora), with images: every tower layer keeps
// what the language model's layers keep, over each image's patches (CLIPEncoderLayer, SiglipEncoderLayer, Qwen2VLVisionBlock,
// Qwen2_5_VLVisionBlock: pre-norm attention + MLP [transformers-code]), walked by the same formulas over the tower as a model
// of its own sizes (tower_view): b = micro-batch x images x crops sequences of s_v patches each (an image's patches, CLIP's
// class token with them; LLaVA-NeXT's base view and each tile a crop of their own; Qwen's images one varlen sequence split by
// cu_seqlens, which keeps the same tensors). The tower runs whole on every tensor-parallel rank (add_vision_frozen_weights),
// no dropout (the ViT configs' attention_dropout 0). Its blocks are GradientCheckpointingLayers, so
// gradient_checkpointing_enable() checkpoints them as it does the language model's layers: with train.recompute full or every-k
// the tower keeps each (k-th) layer's input, on the GPU (Unsloth's host offload is counted for the language model's
// checkpoints only) [transformers-code] [chen2016]. Its layer's backward runs after the language model's layers have freed
// their activations, so it adds nothing at the backward peak while the tower's layer is the smaller. Every tower layer is
// counted: LLaVA's tower runs all its layers and takes vision_feature_layer -2, so the last layer's saved tensors are freed
// with the tower's outputs after its forward (one layer of 24 over-counted; vision_feature_layer is not read).
void add_vision_tower_activations(TrainCtx& c) {
    const Scenario& s = c.s;
    const VisionSpec& v = s.model.vision;
    const bool trains = s.train.vision == VisionTraining::All || s.train.vision == VisionTraining::Lora;
    if (!trains || !v.active() || !c.stage.first || training_tower_patches(s.model, s.train) <= 0) return;
    const ImageGrid g = image_grid(v, s.train.image_width, s.train.image_height);
    Scenario ts = s;  // activation_shape reads the tower's norm, fused qkv, positions and, with adapters, which inputs are saved
    ts.model = tower_view(v);
    ts.parallel.tp = ts.parallel.cp = 1;
    ts.parallel.sp = false;
    ActShape x = activation_shape(ts, c.dt);
    const double crops = static_cast<double>(std::max<int64_t>(1, g.crops));
    x.b = static_cast<double>(s.train.micro_batch * s.train.images) * crops;
    x.s = static_cast<double>(g.patches) / crops;
    x.s_name = "s_v";
    x.T_name = "T_v";
    x.dropout = x.attn_dropout = 0;
    // PEFT adapts Qwen's fused qkv Linear as one module: one cast of its input, not one per q, k, v target [peft-code]
    if (ts.model.fused_qkv) x.qkv_in_copies = std::min(x.qkv_in_copies, 1.0);
    LayerDims L = layer_dims(ts.model, false);
    L.quick_gelu = v.kind == VisionKind::Clip || v.kind == VisionKind::Qwen2Vit;  // hidden_act quick_gelu (Qwen2VLVisionConfig, CLIP's)
    const double layers = static_cast<double>(ts.model.layers);
    const Recompute rc = s.train.recompute;
    const double k = static_cast<double>(std::max(1, s.train.recompute_every_k));
    add(c.e, c.d, comp("act.vision_tower", rc == Recompute::Full || rc == Recompute::EveryK
                                               ? "activations: vision tower, checkpointed layer inputs (over each image's patches)"
                                               : "activations: vision tower layers (over each image's patches)",
                       Category::Activations, kFwdBwd,
                       "the language model's layer walk over the tower's layers (Korthikanti et al. 2022 Sec 4.1 [korthikanti2022 §4.1]); "
                       "b = micro-batch x images x crops sequences of s_v patches; CLIPEncoderLayer / SiglipEncoderLayer / Qwen2VLVisionBlock "
                       "as GradientCheckpointingLayer [transformers-code]; checkpoints [chen2016]"),
        [&](auto& q) {
            const auto fl = q("in_flight", c.in_flight);
            if (rc == Recompute::Full) return fl * q("L_v", layers) * q.let("A_input_v", layer_input(q, L, x));
            if (rc == Recompute::EveryK) return fl * ceil_of(q("L_v", layers) / q("k", k)) * q.let("A_input_v", layer_input(q, L, x));
            auto A = q.let("A_norms", layer_norms(q, L, x));
            A += q.let("A_attn", layer_attention(q, L, x));
            if (rc != Recompute::Selective) A += let_some(q, "A_scores", layer_scores(q, L, x));
            A += q.let("A_mlp", layer_mlp(q, L, x));
            return fl * q("L_v", layers) * q.let("A_layer_v", A);
        });
}

}  // namespace vl
