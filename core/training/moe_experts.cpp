// Training memory of MoE layers whose routed experts are 3-D parameters (moe_experts.h): transformers' per-expert
// loop (train.moe_experts loop) and PEFT's LoRA on those parameters (finetune.lora_expert_layers).
#include "training/moe_experts.h"

#include <algorithm>

#include "model/layer_tensors.h"
#include "param_count.h"
#include "parallel.h"
#include "training/training_internal.h"

namespace vl {

bool fused_expert_parameters(const ModelSpec& m) { return experts_are_parameters(m); }

ExpertParams expert_params(const ModelSpec& m, const Parallelism& par) {
    LayerParams l;
    l.kind = LayerKind{true, false};
    const LayerShard s = layer_shard(m, l, par, ExpertSplit::EpTimesTp);
    return {s.experts_rest, s.experts_down};  // the gate and up matrices are gate_up_proj's two halves
}

int64_t lora_expert_layers_in(const ModelSpec& m, int64_t n, int64_t begin, int64_t end) {
    if (n <= 0 || !m.architecture_known()) return 0;
    const LayerPattern p = layer_pattern(m);
    // the first adapted layer: the latest one with n MoE layers from it to the end
    int64_t first = m.layers;
    while (first > 0 && p.moe_count(first, m.layers) < n) --first;
    return p.moe_count(std::max(begin, first), std::max(std::max(begin, first), end));
}

double expert_lora_params_per_layer(const ModelSpec& m, int64_t r) {
    const double E = m.moe.num_experts, d = static_cast<double>(m.hidden), I = static_cast<double>(m.moe.expert_ffn);
    // gate_up_proj [E, d, 2I]: r E (d + 2I); down_proj [E, I, d]: r E (I + d)
    return static_cast<double>(r) * E * ((d + 2 * I) + (I + d));
}

// Whether the experts' own parameters get gradients through transformers' per-expert loop.
static bool loop_trains_experts(const Scenario& s) {
    const bool trained = s.mode == Mode::Train || (s.mode == Mode::FineTune && s.finetune.method == FineTuneMethod::Full);
    return trained && s.model.architecture_known() && fused_expert_parameters(s.model) && s.train.moe_experts == MoeExperts::Loop &&
           s.train.compat == Compat::None;
}

TransientTensor expert_index_grad_transient(const Scenario& s) {
    if (!loop_trains_experts(s)) return {};
    const ExpertParams g = expert_params(s.model, s.parallel);
    return {"T_expert_grad", 1, g.largest(), training_dtypes(s.train).gathered_bytes()};
}

void add_moe_expert_memory(TrainCtx& c) {
    const Scenario& s = c.s;
    const ModelSpec& m = s.model;
    if (!m.architecture_known() || !fused_expert_parameters(m)) return;
    const int64_t moe_layers = layer_pattern(m).moe_count(c.stage.layer_begin, c.stage.layer_end);
    if (moe_layers == 0) return;
    const ExpertParams g = expert_params(m, s.parallel);
    const double w = c.dt.gathered_bytes();  // the parameter's dtype as the layer runs (FSDP MixedPrecision: param_dtype)

    if (loop_trains_experts(s)) {
        // GptOssExperts.forward in training: for each expert that got tokens, current_state @ gate_up_proj[e] and
        // gated_output @ down_proj[e] [transformers-code]. Indexing with the expert's index tensor copies that expert's
        // slice, and the matmul saves it for the input's gradient (the weight's needs the input): over the experts
        // visited, a copy of the layer's whole gate_up_proj and down_proj, kept from the layer's forward to its
        // backward [pytorch-autograd-code]. With recomputation only the recomputed layers hold them (in backward).
        const bool recomputed = s.train.recompute == Recompute::Full || s.train.recompute == Recompute::EveryK;
        const double k = s.train.recompute == Recompute::EveryK ? std::min<double>(std::max(1, s.train.recompute_every_k), static_cast<double>(moe_layers)) : 1;
        const double layers = recomputed ? k : static_cast<double>(moe_layers);
        const double in_flight = recomputed ? 1 : c.in_flight;
        const ActShape x = activation_shape(s, c.dt);
        const double experts = static_cast<double>(m.moe.num_experts) / static_cast<double>(std::max<int64_t>(1, s.parallel.ep));
        const double routed = x.b * x.s / std::max(1.0, x.cp) * static_cast<double>(m.moe.top_k);
        add(c.e, c.d, comp("act.expert_slices", "MoE per-expert loop: the indexed expert weights its matmuls saved (copies)", Category::Activations,
                           recomputed ? kBwd : kFwdBwd,
                           "transformers GptOssExperts training loop: gate_up_proj[expert_idx], down_proj[expert_idx] [transformers-code]; "
                           "advanced indexing copies, matmul saves the weight operand for the input's gradient [pytorch-autograd-code]"),
            [&](auto& q) {
                const auto hit = q.let("E_hit", min_of(q("E_rank", experts), q("T_routed", routed)));
                return q("in_flight", in_flight) * q("L_saved", layers) * (hit / q("E_rank", experts)) *
                       (q("G_gate_up", g.gate_up) + q("G_down", g.down)) * q("w_bytes", w);
            });
        // Its backward: each slice's gradient is index_backward's zeros of the whole parameter with the slice put in
        // [pytorch-index-backward], one per expert visited; the engine adds each into the parameter's one gradient
        // buffer (the layer's gradient, counted with the gradients) and frees it, so one full-size tensor of the larger
        // projection is alive beside it at a time. Where .grad already holds an earlier micro-batch's gradient
        // (accumulation with unsharded gradients), the buffers of both projections are summed apart until
        // AccumulateGrad adds them in: two more full-size tensors.
        const bool held = (gradient_phases(s) & phase_bit(Phase::Forward)) != 0 && gradient_shards(c) == 1;
        add(c.e, c.d, comp("act.expert_index_grad", held ? "MoE per-expert loop backward: full-size expert gradients beside .grad"
                                                         : "MoE per-expert loop backward: one full-size expert gradient being added",
                           Category::Activations, kBwd,
                           "PyTorch derivatives.yaml index: index_backward(grad.new_zeros(self.sizes()), indices, grad); InputBuffer "
                           "accumulates in place; AccumulateGrad adds into an existing .grad [pytorch-index-backward]"),
            [&](auto& q) {
                const auto one = max_of(q("G_gate_up", g.gate_up), q("G_down", g.down));
                if (!held) return one * q("w_bytes", w);
                return (one + (q("G_gate_up", g.gate_up) + q("G_down", g.down))) * q("w_bytes", w);
            });
    }

    // PEFT target_parameters: ParamWrapper.forward computes each adapted parameter's whole delta weight in the
    // adapters' dtype (einsum of B and A over the experts), casts it to the parameter's dtype and keeps it for the
    // module's forward, where every access of the parameter returns W + delta [peft-paramwrapper-code]. A layer whose
    // gate_up_proj and down_proj are both adapted holds both deltas, and the larger one's adapter-dtype product while
    // it is cast (or, in one dtype, its W + delta): in the layer's forward and again in its recomputation in backward.
    const int64_t adapted = c.finetune_adapters ? lora_expert_layers_in(m, s.finetune.lora_expert_layers, c.stage.layer_begin, c.stage.layer_end) : 0;
    if (adapted > 0) {
        const ExpertParams whole = expert_params(m, Parallelism{});
        const double a = s.finetune.adapters_fp32 ? 4 : c.dt.weight;
        add(c.e, c.d, comp("act.expert_lora_delta", "LoRA on 3-D expert parameters: the materialised delta weights of one layer",
                           Category::Activations, kFwdBwd,
                           "PEFT ParamWrapper._activate_lora: get_delta_weight = einsum('o r e, e r i -> e i o', B, A) * scaling, "
                           ".to(param.dtype); a parametrization returns W + delta_weight [peft-paramwrapper-code]"),
            [&](auto& q) {
                const auto both = (q("G_gate_up", whole.gate_up) + q("G_down", whole.down)) * q("w_bytes", c.dt.weight);
                return both + max_of(q("G_gate_up", whole.gate_up), q("G_down", whole.down)) * q("adapter_bytes", a);
            });
    }
}

}  // namespace vl
