// Model states: weights, gradients, fp32 master weights and optimizer states, by precision regime
// and optimizer, divided by ZeRO/FSDP and moved to the host by CPU offload.
#include <algorithm>

#include "training/training_internal.h"

namespace vl {

Dtypes training_dtypes(const TrainingOptions& t) {
    Dtypes d;
    switch (t.precision) {
        case Precision::FP32:  // 4 + 4 + 8 = 16 B/param with Adam [llm-gpu-memory-2025]
            d.weight = 4; d.grad = 4; d.master = t.extra_fp32_weight_copy ? 4 : 0; d.state = 4; d.act = 4; d.linear_in = 4;
            break;
        case Precision::MixedFP16:
        case Precision::MixedBF16:  // 2 + 2 + (4 + 4 + 4) = 16 B/param with Adam [llm-gpu-memory-2025] [zero2020 §3.1]
            d.weight = 2; d.grad = t.fp32_grad_accum ? 4 : 2; d.master = 4; d.state = 4; d.act = 2; d.linear_in = 2;
            break;
        case Precision::PureBF16:  // bf16 everywhere, no master copy: 2 + 2 + 2 * 2 = 8 B/param with Adam
            d.weight = 2; d.grad = t.fp32_grad_accum ? 4 : 2; d.master = 0; d.state = 2; d.act = 2; d.linear_in = 2;
            break;
        case Precision::FP8:  // Transformer Engine: bf16 mixed + fp8 weight/transpose cache, fp8 saved GEMM inputs
            d.weight = 2; d.grad = t.fp32_grad_accum ? 4 : 2; d.master = 4; d.state = 4; d.act = 2; d.linear_in = 1;
            d.fp8_cache = 2;
            break;
    }
    if (t.fp32_grad_copy) d.grad_copy = 4;  // (2 + 4) + (2 + 4) + 8 = 20 B/param [transformer-series5 §3.1]
    if (t.optimizer_state_dtype == StateDtype::FP32) d.state = 4;
    if (t.optimizer_state_dtype == StateDtype::BF16) d.state = 2;
    return d;
}

// bitsandbytes block-wise 8-bit optimizers: 1 byte per state element plus one fp32 absmax per
// 2048-element block [adam8bit2022].
inline constexpr double kAdam8bitBlock = 2048;

double optimizer_state_bytes(const TrainingOptions& t, double params, double factored_states, double state_bytes) {
    switch (t.optimizer) {
        case Optimizer::SGD: return 0;                                   // no state
        case Optimizer::SGDMomentum: return params * state_bytes;        // momentum buffer
        case Optimizer::AdamW: return 2 * params * state_bytes;          // m and v [kingma2015]
        case Optimizer::Lion: return params * state_bytes;               // one momentum [lion2023]
        case Optimizer::Adam8bit: return 2 * params * (1 + 4 / kAdam8bitBlock);
        case Optimizer::Adafactor: return factored_states * state_bytes; // row + column second moments (Shazeer & Stern 2018)
        case Optimizer::Custom: return params * t.custom_optimizer_bytes_per_param;
    }
    return 0;
}

// Adafactor keeps, per weight matrix r x c, r + c second-moment entries; vectors keep a full copy
// (HF transformers Adafactor, beta1 = None). Experts split by ep; tensor-parallel splits are ignored
// (conservative: they shrink only one of r, c).
double adafactor_state_elements(const ModelSpec& m, const ParamCounts& pc, const Parallelism& par, const StageInfo& st) {
    if (!m.architecture_known()) return 0;
    const double h = static_cast<double>(m.hidden), ep = static_cast<double>(std::max<int64_t>(1, par.ep));
    const double mats = m.gated_mlp ? 3 : 2;
    double total = 0;
    for (int64_t i = st.layer_begin; i < st.layer_end && i < static_cast<int64_t>(pc.per_layer.size()); ++i) {
        const LayerParams& l = pc.per_layer[static_cast<size_t>(i)];
        double attn_rc = 0, attn_mat = 0;
        if (m.attention == AttentionKind::MLA) {  // q_a, q_b (or q), kv_a, kv_b, o
            const MLASpec& x = m.mla;
            const double a = static_cast<double>(m.heads), qk = static_cast<double>(x.qk_nope_head_dim + x.qk_rope_head_dim);
            const double rq = static_cast<double>(x.q_lora_rank), rkv = static_cast<double>(x.kv_lora_rank);
            const double kva = rkv + static_cast<double>(x.qk_rope_head_dim), kvb = a * static_cast<double>(x.qk_nope_head_dim + x.v_head_dim);
            const double o = a * static_cast<double>(x.v_head_dim);
            if (rq > 0) { attn_rc += (h + rq) + (rq + a * qk); attn_mat += h * rq + rq * a * qk; }
            else { attn_rc += h + a * qk; attn_mat += h * a * qk; }
            attn_rc += (h + kva) + (rkv + kvb) + (o + h);
            attn_mat += h * kva + rkv * kvb + o * h;
        } else {
            const double q = static_cast<double>(m.heads * m.head_dim), kv = static_cast<double>(m.kv_heads * m.head_dim);
            attn_rc = (h + q) + 2 * (h + kv) + (q + h);
            attn_mat = h * q + 2 * h * kv + q * h;
        }
        double mlp_rc = 0, mlp_mat = 0;
        if (l.moe) {
            const double e = static_cast<double>(m.moe.num_experts), f = static_cast<double>(m.moe.expert_ffn);
            const double sf = static_cast<double>(m.moe.shared_expert_ffn > 0 ? m.moe.shared_expert_ffn : m.moe.shared_experts * m.moe.expert_ffn);
            mlp_rc = e / ep * mats * (h + f) + (h + e) + (sf > 0 ? mats * (h + sf) : 0);
            mlp_mat = e * mats * h * f + h * e + mats * h * sf;
            total += mlp_rc + (static_cast<double>(l.mlp) - mlp_mat);  // + biases / gates kept in full
        } else {
            const double f = static_cast<double>(m.ffn);
            mlp_rc = mats * (h + f);
            mlp_mat = mats * h * f;
            total += mlp_rc + (static_cast<double>(l.mlp) - mlp_mat);
        }
        total += attn_rc + (static_cast<double>(l.attention) - attn_mat) + static_cast<double>(l.norms);
    }
    const double tp = static_cast<double>(std::max<int64_t>(1, par.tp));
    const double v = static_cast<double>(m.vocab) / tp;
    if (st.first) total += v + h + (static_cast<double>(pc.embedding) - static_cast<double>(m.vocab) * h > 0 ? static_cast<double>(m.max_position) + h : 0);
    if (st.last) total += static_cast<double>(pc.final_norm) + ((pc.lm_head > 0 || !st.first) ? v + h : 0);
    return total;
}

static const char* optimizer_label(Optimizer o) {
    switch (o) {
        case Optimizer::SGD: return "optimizer states (SGD: none)";
        case Optimizer::SGDMomentum: return "optimizer states (SGD momentum)";
        case Optimizer::AdamW: return "optimizer states (Adam m, v)";
        case Optimizer::Adam8bit: return "optimizer states (8-bit Adam m, v + block scales)";
        case Optimizer::Adafactor: return "optimizer states (Adafactor factored second moments)";
        case Optimizer::Lion: return "optimizer states (Lion momentum)";
        case Optimizer::Custom: return "optimizer states (custom bytes/param)";
    }
    return "optimizer states";
}

static const char* optimizer_formula(Optimizer o) {
    switch (o) {
        case Optimizer::SGD: return "0";
        case Optimizer::SGDMomentum: return "P * state_bytes / N_opt";
        case Optimizer::AdamW: return "2 * P * state_bytes / N_opt";
        case Optimizer::Adam8bit: return "2 * P * (1 + 4/2048) / N_opt";
        case Optimizer::Adafactor: return "F * state_bytes / N_opt (F = sum over weight matrices of rows + cols; vectors in full)";
        case Optimizer::Lion: return "P * state_bytes / N_opt";
        case Optimizer::Custom: return "P * custom_bytes / N_opt";
    }
    return "";
}

// The optimizer formula above with the user's numbers, term for term.
static Derivation optimizer_derivation(const TrainingOptions& t, double P, double F, double state_bytes, double n_opt) {
    switch (t.optimizer) {
        case Optimizer::SGD: return derive("0");
        case Optimizer::SGDMomentum: case Optimizer::Lion: return derive("{} * {} / {}", P, state_bytes, n_opt);
        case Optimizer::AdamW: return derive("2 * {} * {} / {}", P, state_bytes, n_opt);
        case Optimizer::Adam8bit: return derive("2 * {} * (1 + 4/2048) / {}", P, n_opt);
        case Optimizer::Adafactor: return derive("{} * {} / {}", F, state_bytes, n_opt);
        case Optimizer::Custom: return derive("{} * {} / {}", P, t.custom_optimizer_bytes_per_param, n_opt);
    }
    return derive("0");
}

static const char* optimizer_source(Optimizer o) {
    switch (o) {
        case Optimizer::Adam8bit: return "Dettmers et al. 2022, 8-bit Optimizers via Block-wise Quantization (block 2048, fp32 absmax) [adam8bit2022]";
        case Optimizer::Adafactor: return "Shazeer & Stern 2018, Adafactor (factored second moments) [shazeer2018]; HF transformers Adafactor [transformers-code]";
        case Optimizer::Lion: return "Chen et al. 2023, Symbolic Discovery of Optimization Algorithms (Lion: one momentum) [lion2023]";
        default: return "ZeRO (Rajbhandari et al. 2020) Sec 3.1: optimizer states K*P, divided by N_d from ZeRO-1 [zero2020 §3.1]";
    }
}

void add_model_states(TrainCtx& c, const TrainableSet& t) {
    const TrainingOptions& o = c.s.train;
    const Parallelism& par = c.s.parallel;
    const int z = par.zero;
    const double N = c.shard;
    const double n_w = z >= 3 ? N : 1, n_g = z >= 2 ? N : 1, n_o = z >= 1 ? N : 1;
    const double P = t.params;
    const bool lora = c.finetune_adapters;
    const bool opt_host = par.offload_optimizer;
    const unsigned grad_phases = kBwdStep | (o.grad_accum_steps > 1 ? phase_bit(Phase::Forward) : 0u);
    const Dtypes& dt = t.dt;

    add(c.e, c.d, comp(lora ? "lora.weights" : "weights", lora ? "LoRA adapter weights" : "weights",
                   Category::Weights, P * dt.weight / n_w, kAllPhases, "P * weight_bytes / N_w (N_w = shard group with ZeRO-3/FSDP)",
                   "ZeRO (Rajbhandari et al. 2020) Sec 5: P_p partitions parameters (16*P/N_d at stage 3) [zero2020 §5]", par.offload_params && !lora),
        [&] { return derive("{} * {} / {}", P, dt.weight, n_w); });
    add(c.e, c.d, comp(lora ? "lora.grads" : "grads", lora ? "LoRA adapter gradients" : "gradients", Category::Gradients,
                   P * dt.grad / n_g, grad_phases, "P * grad_bytes / N_g (N_g = shard group from ZeRO-2)",
                   "2 B, or 4 B with fp32 accumulation [llm-gpu-memory-2025]; ZeRO Sec 5.2 P_g [zero2020 §5.2]", opt_host),
        [&] { return derive("{} * {} / {}", P, dt.grad, n_g); });
    if (dt.grad_copy > 0)
        add(c.e, c.d, comp(lora ? "lora.grads_fp32_copy" : "grads.fp32_copy", "fp32 gradient copy for the step", Category::Gradients,
                       P * dt.grad_copy / n_o, kStep, "P * 4 / N_opt", "20 B/param mixed, 24 B/param fp32 [transformer-series5 §3.1]; ZeRO Sec 3.2 fused fp32 buffer [zero2020 §3.2]", opt_host),
            [&] { return derive("{} * {} / {}", P, dt.grad_copy, n_o); });
    if (dt.master > 0)
        add(c.e, c.d, comp(lora ? "lora.master" : "optimizer.master", "fp32 master weights", Category::Optimizer, P * dt.master / n_o,
                       kAfterLoad, "P * 4 / N_opt", "Micikevicius et al. 2018 [micikevicius2018]; ZeRO Sec 3.1 (K = 12 includes the fp32 copy) [zero2020 §3.1]", opt_host),
            [&] { return derive("{} * {} / {}", P, dt.master, n_o); });
    const double states = optimizer_state_bytes(o, P, t.factored_states, dt.state) / n_o;
    if (states > 0 || o.optimizer != Optimizer::SGD)
        add(c.e, c.d, comp(lora ? "lora.optimizer" : "optimizer.states", optimizer_label(o.optimizer), Category::Optimizer, states,
                       kAfterLoad, optimizer_formula(o.optimizer), optimizer_source(o.optimizer), opt_host),
            [&] { return optimizer_derivation(o, P, t.factored_states, dt.state, n_o); });
    if (dt.fp8_cache > 0 && !lora)
        add(c.e, c.d, comp("weights.fp8_cache", "fp8 weight + transpose cache", Category::Weights, c.w.linear * dt.fp8_cache / n_w, kFwdBwd,
                       "P_linear * fp8_copies / N_w (weight + transpose, 1 B each)", "NVIDIA Transformer Engine fp8 recipe: fp8 copies of GEMM weights (row- and column-wise) [transformer-engine-code]", false),
            [&] { return derive("{} * {} / {}", c.w.linear, dt.fp8_cache, n_w); });
}

}  // namespace vl
