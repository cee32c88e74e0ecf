// Activations: the tensors the forward pass keeps for backward, per layer and per GPU, then the
// recomputation policy, pipeline micro-batches in flight, embedding inputs, and fp32 logits + loss.
#include "training/activations.h"

#include <algorithm>
#include <cmath>

#include "model/layer_tensors.h"
#include "training/training_internal.h"

namespace vl {

LayerDims layer_dims(const ModelSpec& m, bool moe_layer) {
    LayerDims L;
    L.h = static_cast<double>(m.hidden);
    L.heads = static_cast<double>(m.heads);
    L.kv_heads = static_cast<double>(m.kv_heads);
    L.head_dim = static_cast<double>(m.head_dim);
    L.ffn = static_cast<double>(m.ffn);
    L.gated = m.gated_mlp;
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

// MLP tensors for `tokens` tokens of width f on one rank (f already split by tp):
// plain (GPT-2 MLP): GeLU input, and the fc2 input when fc2 is trained;
// gated (HF LlamaMLP act_fn(gate(x)) * up(x)): SiLU input, SiLU output and up output (both saved by
// the product), and the down_proj input when down is trained.
static double mlp_tensors(const LayerDims& L, const ActShape& x, double tokens, double f) {
    double bytes = x.act_bytes * tokens * f;                          // activation-function input
    if (L.gated) bytes += 2 * x.act_bytes * tokens * f;               // act output + up output (mul saves both)
    if (x.save_fc2_in) bytes += x.linear_in_bytes * tokens * f;       // input of fc2 / down_proj
    return bytes;
}

// Korthikanti et al. 2022 §4.1 tensor by tensor (their 34sbh + 5as^2b for the GPT layer), generalised to
// GQA/MQA (K, V sized by kv heads), gated MLPs, MLA, MoE and FlashAttention [korthikanti2022 §4.1];
// [transformer-series5 §2] walks the same list.
LayerActivations layer_activations(const LayerDims& L, const ActShape& x) {
    LayerActivations r;
    const double t = std::max(1.0, x.tp), cp = std::max(1.0, x.cp);
    const double s_rank = x.s / cp;                 // context parallel: each rank holds s/cp tokens
    const double T = x.b * s_rank;                  // tokens of this micro-batch on this rank
    const double split = x.sp ? t : 1.0;            // sequence parallel splits the replicated parts
    const double a = x.act_bytes;
    const double heads = L.heads / t;
    const double kv = std::max(1.0, std::floor(L.kv_heads / t));
    const bool drop = x.dropout > 0, attn_drop = x.attn_dropout > 0;

    r.input = a * T * L.h / split;                                  // layer input (2sbh)
    r.norms = L.norms * a * T * L.h / split;                        // each norm saves its input (2sbh each)

    // ---- attention ----
    double q_dim = 0, k_dim = 0, v_dim = 0, o_dim = 0;
    if (L.mla) {
        q_dim = heads * (L.nope_dim + L.rope_dim);
        k_dim = q_dim;
        v_dim = heads * L.v_dim;
        o_dim = v_dim;
        // compressed latents: q_a output (norm input) and normed q (q_b input); kv_a output and normed kv, k_pe
        if (L.q_rank > 0) r.attention += 2 * a * T * L.q_rank;
        r.attention += 2 * a * T * L.kv_rank + a * T * L.rope_dim;
    } else {
        q_dim = heads * L.head_dim;
        k_dim = kv * L.head_dim;
        v_dim = k_dim;
        o_dim = q_dim;
    }
    if (x.save_qkv_in) r.attention += x.linear_in_bytes * T * L.h / split;  // QKV input (2sbh)
    r.attention += a * T * (q_dim + k_dim);                                 // Q, K for QK^T (4sbh)
    if (L.qk_norm) r.attention += a * T * (q_dim + k_dim);                  // q_norm / k_norm inputs
    r.attention += a * T * v_dim;                                           // V (2sbh)
    if (x.save_o_in || x.flash) r.attention += x.linear_in_bytes * T * o_dim;  // attention output = out-proj input (2sbh);
                                                                            // FlashAttention saves it (O) in any case
    if (drop) r.attention += 1.0 * T * L.h / split;                         // output dropout mask (sbh)
    if (x.flash) {
        r.attention += 4.0 * x.b * heads * s_rank;                          // fp32 log-sum-exp per row [dao2022]
    } else {
        const double s2 = x.b * heads * s_rank * x.s;                       // a*s^2*b (each rank: its s/cp queries x s keys)
        r.scores = a * s2;                                                  // softmax output (2as^2b)
        if (attn_drop) r.scores += 1.0 * s2 + a * s2;                       // dropout mask (as^2b) + dropped copy (2as^2b)
    }

    // ---- MLP ----
    const bool shares_input = L.parallel_attn_mlp && x.save_qkv_in;          // GPT-J style: same normed input
    if (x.save_fc1_in && !shares_input) r.mlp += x.linear_in_bytes * T * L.h / split;  // fc1 input (2sbh)
    if (drop) r.mlp += 1.0 * T * L.h / split;                                // MLP dropout mask (sbh)
    if (L.experts > 0) {
        // HF MixtralSparseMoeBlock: fp32 router softmax (T x E), each routed copy of a token (T*k x h),
        // the expert MLPs over T*k tokens, the routing-weighted outputs (T*k x h); + shared expert on T tokens.
        const double routed = T * L.top_k;
        r.mlp += 4.0 * T * L.experts;
        r.mlp += x.linear_in_bytes * routed * L.h + a * routed * L.h;
        r.mlp += mlp_tensors(L, x, routed, L.expert_ffn / t);
        if (L.shared_ffn > 0) r.mlp += mlp_tensors(L, x, T, L.shared_ffn / t);
    } else {
        r.mlp += mlp_tensors(L, x, T, L.ffn / t);                            // GeLU in (8sbh) + fc2 in (8sbh)
    }
    return r;
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
    x.dropout = o.dropout;
    x.attn_dropout = o.attention_dropout < 0 ? o.dropout : o.attention_dropout;
    x.act_bytes = dt.act;
    x.linear_in_bytes = dt.linear_in;
    if (s.mode == Mode::FineTune && s.finetune.method != FineTuneMethod::Full) {
        // frozen linear layers need no saved input; LoRA targets do (their lora_A weight-gradient reads it)
        const unsigned tg = s.finetune.lora_targets;
        const bool gated = s.model.gated_mlp;
        x.save_qkv_in = (tg & (kLoraQ | kLoraK | kLoraV)) != 0;
        x.save_o_in = (tg & kLoraO) != 0;
        x.save_fc1_in = (tg & (gated ? (kLoraGate | kLoraUp) : kLoraUp)) != 0;
        x.save_fc2_in = (tg & kLoraDown) != 0;
    }
    return x;
}

// A named formula variant's per-layer bytes for one micro-batch on one rank (PerLayerBytes,
// PerLayerElements, Coefficient: parallelism is not part of those formulas; tokens are divided by tp*cp, documented).
static LayerActivations variant_layer(const Scenario& s, const ActShape& x) {
    const TrainingOptions& o = s.train;
    const ModelSpec& m = s.model;
    LayerActivations r;
    const double div = std::max(1.0, x.tp) * std::max(1.0, x.cp);
    const double b = x.b, sq = x.s, d = static_cast<double>(m.hidden), h = static_cast<double>(m.heads);
    r.input = x.act_bytes * b * sq * d / div;
    switch (o.activation_formula) {
        case ActivationFormula::PerLayerBytes:  // attention 11bsd + 5bhs^2 bytes, MLP 19bsd bytes [transformer-series5 §2]
            r.attention = 11 * b * sq * d / div;
            r.scores = 5 * b * h * sq * sq / div;
            r.mlp = 19 * b * sq * d / div;
            break;
        case ActivationFormula::PerLayerElements:  // attention 6bsd + 2bhs^2, FFN 10bsd elements [llm-gpu-memory-2025]
            r.attention = 6 * b * sq * d * x.act_bytes / div;
            r.scores = 2 * b * h * sq * sq * x.act_bytes / div;
            r.mlp = 10 * b * sq * d * x.act_bytes / div;
            break;
        case ActivationFormula::Coefficient:  // C * b * s * h * bytes per layer [makinaruto2025] [zero2020 §3.2]
            r.mlp = o.activation_coefficient * b * sq * d * x.act_bytes / div;
            break;
        default: break;
    }
    return r;
}

void add_activations(TrainCtx& c) {
    const Scenario& s = c.s;
    const ModelSpec& m = s.model;
    const TrainingOptions& o = s.train;
    const ActivationFormula f = s.mode == Mode::FineTune ? ActivationFormula::TensorWalk : o.activation_formula;
    const bool walk = f == ActivationFormula::TensorWalk || f == ActivationFormula::Korthikanti;
    ActShape x = activation_shape(s, c.dt);

    // per-layer bytes for the dense and the MoE layer kinds on this stage
    int64_t n_dense = 0, n_moe = 0;
    for (int64_t i = c.stage.layer_begin; i < c.stage.layer_end; ++i) (layer_is_moe(m, i) ? n_moe : n_dense) += 1;
    LayerActivations dense, moe;
    if (f == ActivationFormula::Korthikanti) {
        // the paper's GPT layer as Table 2 assumes it [korthikanti2022]: no FlashAttention, dropout masks kept
        ActShape k = x;
        k.flash = false;
        k.dropout = k.attn_dropout = 0.1;
        dense = moe = layer_activations(gpt_dims(static_cast<double>(m.hidden), static_cast<double>(m.heads)), k);
    } else if (walk) {
        dense = layer_activations(layer_dims(m, false), x);
        if (n_moe > 0) moe = layer_activations(layer_dims(m, true), x);
    } else {
        dense = moe = variant_layer(s, x);
    }
    const double L = static_cast<double>(c.stage.layers());
    const double nd = static_cast<double>(n_dense), nm = static_cast<double>(n_moe);
    const double fl = c.in_flight;
    const Recompute rc = o.recompute;
    const double k = static_cast<double>(std::max(1, o.recompute_every_k));
    // Derivation of the per-layer components: in_flight * L_stage * A_layer, or on a stage with both
    // dense and MoE layers in_flight * (L_dense * A_dense + L_moe * A_moe).
    auto per_layers = [&](double dense_bytes, double moe_bytes) {
        if (n_moe == 0) return derive("{} * {} * {}", fl, L, dense_bytes);
        if (n_dense == 0) return derive("{} * {} * {}", fl, L, moe_bytes);
        return derive("{} * ({} * {} + {} * {})", fl, nd, dense_bytes, nm, moe_bytes);
    };

    if (rc == Recompute::None || rc == Recompute::Selective) {
        const bool sel = rc == Recompute::Selective;
        if (walk) {
            add(c.e, c.d, comp("act.norms", "activations: norm inputs", Category::Activations, fl * (nd * dense.norms + nm * moe.norms), kFwdBwd,
                           "in_flight * L_stage * A_norms, A_norms = norms * a_bytes * b * s * h / (sp ? t : 1) / cp", "Korthikanti et al. 2022 Sec 4.1 (LayerNorm inputs 4sbh) [korthikanti2022 §4.1]"),
                [&] { return per_layers(dense.norms, moe.norms); });
            add(c.e, c.d, comp("act.attention", "activations: attention (QKV input, Q, K, V, output, masks)", Category::Activations,
                           fl * (nd * dense.attention + nm * moe.attention), kFwdBwd,
                           "in_flight * L_stage * A_attn, A_attn = qkv_in + Q + K + V + out_in + masks [+ 4 * b * a * s lse with FlashAttention]",
                           "Korthikanti et al. 2022 Sec 4.1 (11sbh) [korthikanti2022 §4.1]; attention 11bsd [transformer-series5 §2.1]; GQA: K,V sized by kv heads"),
                [&] { return per_layers(dense.attention, moe.attention); });
            if (!sel && (dense.scores > 0 || moe.scores > 0))
                add(c.e, c.d, comp("act.scores", "activations: attention scores (s^2: softmax, dropout)", Category::Activations,
                               fl * (nd * dense.scores + nm * moe.scores), kFwdBwd, "in_flight * L_stage * A_scores, A_scores = (2 [+ 1 + 2 with attention dropout]) * b * a/t * s/cp * s",
                               "Korthikanti et al. 2022 Sec 4.1 (5as^2b) [korthikanti2022 §4.1]; dropped by FlashAttention [dao2022] or selective recomputation"),
                    [&] { return per_layers(dense.scores, moe.scores); });
            add(c.e, c.d, comp("act.mlp", "activations: MLP", Category::Activations, fl * (nd * dense.mlp + nm * moe.mlp), kFwdBwd,
                           "in_flight * L_stage * A_mlp, A_mlp = fc1_in + act_in [+ gated: act_out, up_out] + fc2_in + mask",
                           "Korthikanti et al. 2022 Sec 4.1 (19sbh) [korthikanti2022 §4.1]; MLP 19bsd [transformer-series5 §2.2]; HF LlamaMLP / MixtralSparseMoeBlock [transformers-code]"),
                [&] { return per_layers(dense.mlp, moe.mlp); });
        } else {
            const double per = sel ? dense.kept_without_scores() : dense.total();
            const char* formula = f == ActivationFormula::PerLayerBytes ? "in_flight * L_stage * A_layer, A_layer = (11bsd + 5bhs^2 [not with selective recompute] + 19bsd) / (t * cp) bytes"
                                : f == ActivationFormula::PerLayerElements ? "in_flight * L_stage * A_layer, A_layer = (16bsd + 2bhs^2 [not with selective recompute]) * a_bytes / (t * cp)"
                                                                  : "in_flight * L_stage * A_layer, A_layer = C * b * s * h * a_bytes / (t * cp)";
            const char* source = f == ActivationFormula::PerLayerBytes ? "11bsd + 5bhs^2 attention, 19bsd MLP bytes [transformer-series5 §2]"
                               : f == ActivationFormula::PerLayerElements ? "activations (16bsd + 2bhs^2) L elements, x bytes [llm-gpu-memory-2025]"
                                                                 : "C x L x B x S x H x bytes [makinaruto2025]; ZeRO Sec 3.2 footnote, C = 12 [zero2020 §3.2]";
            add(c.e, c.d, comp("act.layers", "activations: transformer layers", Category::Activations, fl * L * per, kFwdBwd, formula, source),
                [&] { return derive("{} * {} * {}", fl, L, per); });
        }
    } else {
        const double ckpts = rc == Recompute::Full ? L : std::ceil(L / k);
        add(c.e, c.d, comp("act.checkpoints", "activations: checkpointed layer inputs", Category::Activations, fl * ckpts * dense.input, kFwdBwd,
                       rc == Recompute::Full ? "in_flight * L_stage * A_input, A_input = a_bytes * b * s * h / (sp ? t : 1) / cp"
                                             : "in_flight * ceil(L_stage / k) * A_input, A_input = a_bytes * b * s * h / (sp ? t : 1) / cp",
                       "Korthikanti et al. 2022 Table 2 (full recomputation 2sbh) [korthikanti2022]; Chen et al. 2016 (checkpoint every k layers) [chen2016]"),
            [&] { return rc == Recompute::Full ? derive("{} * {} * {}", fl, L, dense.input) : derive("{} * ceil({} / {}) * {}", fl, L, k, dense.input); });
    }

    // working sets during backward (one micro-batch): the recomputed segment and one layer's gradients
    const double layer_full = std::max(dense.total(), n_moe > 0 ? moe.total() : 0.0);
    double recompute_ws = 0;
    if (rc == Recompute::Full) recompute_ws = layer_full;
    if (rc == Recompute::EveryK) recompute_ws = std::min(k, L) * layer_full;
    if (rc == Recompute::Selective) recompute_ws = std::max(dense.scores, moe.scores);
    if (recompute_ws > 0)
        add(c.e, c.d, comp("act.recompute_working", "recomputed activations (backward)", Category::Activations, recompute_ws, kBwd,
                       "segment_layers * A_layer (full: 1 layer; every-k: min(k, L_stage) layers; selective: 1 * the largest layer's A_scores)",
                       "Chen et al. 2016 [chen2016]; Korthikanti et al. 2022 Sec 5 [korthikanti2022 §5]: the recomputed segment is live while its backward runs"),
            [&] {
                if (rc == Recompute::EveryK) return derive("min({}, {}) * {}", k, L, layer_full);
                return derive("1 * {}", rc == Recompute::Full ? layer_full : recompute_ws);
            });
    if (s.overheads.backward_working_set)
        add(c.e, c.d, comp("act.backward_working", "activation gradients of one layer (backward)", Category::Activations, layer_full, kBwd,
                       "A_layer (the largest layer's activations: their gradients exist while backward runs the layer)", "derivation (core/training/DERIVATION.md)"),
            [&] { return n_moe > 0 && n_dense > 0 ? derive("max({}, {})", dense.total(), moe.total()) : derive("{}", layer_full); });

    const double t = static_cast<double>(s.parallel.tp), cp = static_cast<double>(s.parallel.cp);
    const double split = x.sp ? t : 1.0;
    const double T = x.b * x.s / cp;
    if (c.stage.first) {
        const double emb = 8.0 * T + (o.dropout > 0 ? T * static_cast<double>(m.hidden) / split : 0.0);
        add(c.e, c.d, comp("act.embedding", "activations: token ids + embedding dropout mask", Category::Activations, fl * emb, kFwdBwd,
                       "in_flight * (8 * T [+ T * h / (sp ? t : 1) with dropout]), T = b * s / cp", "Megatron-LM theoretical_memory_usage.py (8sbp + sbhp) [megatron-theoretical-memory]"),
            [&] { return o.dropout > 0 ? derive("{} * (8 * {} + {} * {} / {})", fl, T, T, m.hidden, split) : derive("{} * (8 * {})", fl, T); });
    }
    if (c.stage.last) {
        const bool head_trained = !c.finetune_adapters;
        const double fin = x.act_bytes * T * static_cast<double>(m.hidden) / split * (head_trained ? 2.0 : 1.0);
        add(c.e, c.d, comp("act.final", "activations: final norm input and output-layer input", Category::Activations, fl * fin, kFwdBwd,
                       "in_flight * a_bytes * T * h * (1 + [lm_head trained]) / (sp ? t : 1), T = b * s / cp", "Megatron-LM theoretical_memory_usage.py (output layer input) [megatron-theoretical-memory]"),
            [&] { return derive("{} * {} * {} * {} * {} / {}", fl, x.act_bytes, T, m.hidden, head_trained ? 2 : 1, split); });
        const double lb = o.fp32_logits ? 4.0 : x.act_bytes;
        const double logits = lb * T * static_cast<double>(m.vocab) / t;
        add(c.e, c.d, comp("logits", "logits (b x s x V)", Category::Logits, fl * logits, kFwdBwd, "in_flight * logit_bytes * T * V / t, T = b * s / cp",
                       "HF transformers causal-LM loss upcasts logits to fp32 [transformers-code]; vocab-parallel split by t (Megatron) [megatron-theoretical-memory]"),
            [&] { return derive("{} * {} * {} * {} / {}", fl, lb, T, m.vocab, t); });
        add(c.e, c.d, comp("logits.loss", "cross-entropy log-softmax (b x s x V)", Category::Logits, fl * logits, kFwdBwd,
                       "in_flight * logit_bytes * T * V / t, T = b * s / cp", "PyTorch cross_entropy = log_softmax (saves its output) + nll_loss [pytorch-docs]"),
            [&] { return derive("{} * {} * {} * {} / {}", fl, lb, T, m.vocab, t); });
        add(c.e, c.d, comp("logits.grad", "gradient of the logits (backward)", Category::Logits, logits, kBwd, "logit_bytes * T * V / t, T = b * s / cp",
                       "autograd: d(loss)/d(logits) has the logits' shape and dtype"),
            [&] { return derive("{} * {} * {} / {}", lb, T, m.vocab, t); });
    }
}

}  // namespace vl
