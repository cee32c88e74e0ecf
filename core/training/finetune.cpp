// Fine-tuning with adapters: LoRA (frozen 16-bit base) and QLoRA (frozen NF4 base), their trainable
// adapters and optimizer states, the adapters' own activations and QLoRA's dequantization buffer.
#include "training/finetune.h"

#include <algorithm>

#include "training/training_internal.h"

namespace vl {

// r * (in + out) for the targeted projections of one MLP of width f.
static int64_t lora_mlp(const ModelSpec& m, int64_t r, unsigned tg, int64_t f) {
    const int64_t d = m.hidden;
    int64_t p = 0;
    if (m.gated_mlp && (tg & kLoraGate)) p += r * (d + f);
    if (tg & kLoraUp) p += r * (d + f);      // up_proj (gated) or fc1 / c_fc (plain)
    if (tg & kLoraDown) p += r * (f + d);    // down_proj or fc2 / c_proj
    return p;
}

int64_t lora_params_per_layer(const ModelSpec& m, int64_t r, unsigned tg, bool moe_layer) {
    const int64_t d = m.hidden;
    int64_t p = 0;
    if (m.attention == AttentionKind::MLA) {  // DeepSeek: q_a/q_b (or q), kv_a/kv_b, o
        const MLASpec& x = m.mla;
        const int64_t qk = m.heads * (x.qk_nope_head_dim + x.qk_rope_head_dim);
        if (tg & kLoraQ) p += x.q_lora_rank > 0 ? r * (d + x.q_lora_rank) + r * (x.q_lora_rank + qk) : r * (d + qk);
        if (tg & (kLoraK | kLoraV))
            p += r * (d + x.kv_lora_rank + x.qk_rope_head_dim) + r * (x.kv_lora_rank + m.heads * (x.qk_nope_head_dim + x.v_head_dim));
        if (tg & kLoraO) p += r * (m.heads * x.v_head_dim + d);
    } else {
        const int64_t q = m.heads * m.head_dim, kv = m.kv_heads * m.head_dim;
        if (tg & kLoraQ) p += r * (d + q);
        if (tg & kLoraK) p += r * (d + kv);
        if (tg & kLoraV) p += r * (d + kv);
        if (tg & kLoraO) p += r * (q + d);
    }
    if (moe_layer) {
        const MoESpec& e = m.moe;
        p += e.num_experts * lora_mlp(m, r, tg, e.expert_ffn);
        const int64_t sf = e.shared_expert_ffn > 0 ? e.shared_expert_ffn : e.shared_experts * e.expert_ffn;
        if (sf > 0) p += lora_mlp(m, r, tg, sf);
    } else {
        p += lora_mlp(m, r, tg, m.ffn);
    }
    return p;
}

int64_t lora_trainable_params(const ModelSpec& m, int64_t rank, unsigned targets) {
    int64_t total = 0;
    for (int64_t i = 0; i < m.layers; ++i) total += lora_params_per_layer(m, rank, targets, layer_is_moe(m, i));
    return total;
}

double nf4_constant_bits_per_param(int64_t block, int64_t block2, bool double_quant) {
    const double b1 = static_cast<double>(block), b2 = static_cast<double>(block2);
    return double_quant ? 8.0 / b1 + 32.0 / (b1 * b2) : 32.0 / b1;
}

// Input widths summed over the targeted projections of one layer: PEFT applies lora_dropout per
// module, so each targeted module keeps its own dropped copy of its input.
static double lora_input_width(const ModelSpec& m, unsigned tg) {
    const double d = static_cast<double>(m.hidden);
    double w = 0;
    if (tg & kLoraQ) w += d;
    if (tg & kLoraK) w += d;
    if (tg & kLoraV) w += d;
    if (tg & kLoraO) w += static_cast<double>(m.heads * m.head_dim);
    if (tg & kLoraGate) w += d;
    if (tg & kLoraUp) w += d;
    if (tg & kLoraDown) w += static_cast<double>(m.ffn);
    return w;
}

void add_finetune(TrainCtx& c) {
    const Scenario& s = c.s;
    const ModelSpec& m = s.model;
    const FineTuneOptions& ft = s.finetune;
    const bool qlora = ft.method == FineTuneMethod::QLoRA;
    const double n_w = s.parallel.zero >= 3 ? c.shard : 1;
    const double base_bytes = c.dt.weight;  // frozen base in the regime's weight dtype (bf16/fp16, fp32 in FP32)
    const double tp = static_cast<double>(s.parallel.tp);

    // ---- frozen base ----
    const double all = c.w.total();
    if (qlora) {
        const double q = c.w.linear;
        const double bits = nf4_constant_bits_per_param(ft.quant_block, ft.quant_block2, ft.double_quant);
        add(c.e, c.d, comp("weights.nf4", "frozen base: NF4 4-bit linear weights", Category::Weights, q * 0.5 / n_w, kAllPhases,
                           "P_linear * 0.5 / N_w (4 bits)", "Dettmers et al. 2023 (QLoRA) Sec 3: 4-bit NormalFloat storage [qlora2023 §3]"),
            [&] { return derive("{} * 0.5 / {}", q, n_w); });
        add(c.e, c.d, comp("weights.quant_constants", ft.double_quant ? "NF4 block constants (double-quantized)" : "NF4 block constants (fp32 absmax)",
                           Category::Weights, q * bits / 8 / n_w, kAllPhases,
                           ft.double_quant ? "P_linear * (8/B + 32/(B * B2)) / 8 / N_w" : "P_linear * 32/B / 8 / N_w",
                           "Dettmers et al. 2023 Sec 3 Double Quantization: 0.5 -> 0.127 bits/param (B = 64, B2 = 256) [qlora2023 §3]"),
            [&] {
                return ft.double_quant ? derive("{} * (8/{} + 32/({} * {})) / 8 / {}", q, ft.quant_block, ft.quant_block, ft.quant_block2, n_w)
                                       : derive("{} * 32/{} / 8 / {}", q, ft.quant_block, n_w);
            });
        add(c.e, c.d, comp("weights.frozen", "frozen base: 16-bit non-quantized weights (embeddings, head, norms)", Category::Weights,
                           (all - q) * base_bytes / n_w, kAllPhases, "(P - P_linear) * weight_bytes / N_w",
                           "bitsandbytes/HF: only nn.Linear layers inside the blocks are quantized (lm_head skipped) [bitsandbytes-code] [transformers-code]"),
            [&] { return derive("({} - {}) * {} / {}", all, q, base_bytes, n_w); });
        if (s.overheads.temp_buffers) {
            const double f = static_cast<double>(m.moe.num_experts > 0 && m.ffn == 0 ? m.moe.expert_ffn : std::max(m.ffn, m.moe.expert_ffn));
            const double buf = 2.0 * static_cast<double>(m.hidden) * f / tp;
            add(c.e, c.d, comp("buffers.dequant", "dequantized weight of the running layer (bf16)", Category::Buffers, buf, kFwdBwd,
                               "2 * h * ffn / t (the largest linear weight, 2 B each)", "bitsandbytes matmul_4bit dequantizes each weight to the compute dtype [bitsandbytes-code]"),
                [&] { return derive("2 * {} * {} / {}", m.hidden, f, tp); });
        }
    } else {
        add(c.e, c.d, comp("weights.frozen", "frozen base weights", Category::Weights, all * base_bytes / n_w, kAllPhases,
                           "P * weight_bytes / N_w", "Hu et al. 2021 (LoRA) Sec 4.2: the base is frozen, no gradients or optimizer states [lora2021 §4.2]"),
            [&] { return derive("{} * {} / {}", all, base_bytes, n_w); });
    }

    // ---- trainable adapters ----
    double adapters = 0;
    for (int64_t i = c.stage.layer_begin; i < c.stage.layer_end; ++i)
        adapters += static_cast<double>(lora_params_per_layer(m, ft.lora_rank, ft.lora_targets, layer_is_moe(m, i)));
    adapters /= tp;  // adapters follow the tensor-parallel split of their base layer (one of A, B splits; approximation)
    TrainableSet t;
    t.params = adapters;
    t.dt = c.dt;
    t.dt.weight = t.dt.grad = ft.adapters_fp32 ? 4 : base_bytes;
    t.dt.master = 0;
    t.dt.grad_copy = 0;
    t.dt.fp8_cache = 0;
    if (s.train.optimizer_state_dtype == StateDtype::Auto) t.dt.state = 4;  // torch AdamW on fp32 adapters; bnb paged 32-bit AdamW
    if (s.train.optimizer == Optimizer::Adafactor) {
        // A (r x in) and B (out x r) keep (r + in) + (out + r) factored entries: sum(in + out) = adapters / r, + 2r per module
        double modules = 0;
        for (unsigned bit = 1; bit <= kLoraDown; bit <<= 1) modules += (ft.lora_targets & bit) ? 1 : 0;
        const double r = static_cast<double>(ft.lora_rank);
        t.factored_states = adapters / r + 2 * r * modules * static_cast<double>(c.stage.layers());
    }
    add_model_states(c, t);

    // ---- adapter activations: lora_A output (input of lora_B), and the dropped input copy + mask ----
    if (m.architecture_known()) {
        const ActShape x = activation_shape(s, c.dt);
        const double T = x.b * x.s / x.cp;
        double modules = 0;
        for (unsigned bit = 1; bit <= kLoraDown; bit <<= 1) modules += (ft.lora_targets & bit) ? 1 : 0;
        double per_layer = x.act_bytes * T * static_cast<double>(ft.lora_rank) * modules;
        if (ft.lora_dropout > 0) per_layer += (x.act_bytes + 1.0) * T * lora_input_width(m, ft.lora_targets) / tp;
        const double L = static_cast<double>(c.stage.layers());
        const double kept = s.train.recompute == Recompute::None || s.train.recompute == Recompute::Selective ? L : 0.0;
        add(c.e, c.d, comp("act.lora", "activations: LoRA adapter tensors", Category::Activations, c.in_flight * kept * per_layer, kFwdBwd,
                           "in_flight * L_kept * (a_bytes * T * r * modules [+ (a_bytes + 1) * T * d_in / t with lora_dropout]), T = b * s / cp",
                           "PEFT LoraLayer forward: lora_B(lora_A(dropout(x))) [peft-code]"),
            [&] {
                const double r = static_cast<double>(ft.lora_rank);
                return ft.lora_dropout > 0
                           ? derive("{} * {} * ({} * {} * {} * {} + ({} + 1) * {} * {} / {})", c.in_flight, kept, x.act_bytes, T, r, modules,
                                    x.act_bytes, T, lora_input_width(m, ft.lora_targets), tp)
                           : derive("{} * {} * ({} * {} * {} * {})", c.in_flight, kept, x.act_bytes, T, r, modules);
            });
    }
}

}  // namespace vl
