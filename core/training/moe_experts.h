// Training memory of a MoE layer whose routed experts are 3-D parameters (gpt-oss's GptOssExperts:
// gate_up_proj [E, d, 2I], down_proj [E, I, d]) beyond what every trained layer has: the per-expert loop's
// full-size gradients (train.moe_experts) and PEFT's LoRA on those parameters (finetune.lora_expert_layers).
#pragma once
#include <cstdint>

#include "allocator_reserve.h"
#include "scenario.h"

namespace vl {

struct TrainCtx;

// Whether transformers stores this model's routed experts as 3-D parameters (one tensor per projection over
// every expert) rather than an nn.ModuleList of nn.Linear experts: gpt-oss (GptOssExperts, since transformers
// 4.55) [transformers-code] [gpt-oss-card]. Other families' experts are per-expert modules before transformers 5.
bool fused_expert_parameters(const ModelSpec& m);

// One MoE layer's fused expert projections on one rank (their ep / expert-tp share, parallel.h layer_shard): the
// elements of gate_up_proj and of down_proj (biases apart).
struct ExpertParams {
    double gate_up = 0;
    double down = 0;
    double largest() const { return gate_up > down ? gate_up : down; }
};
ExpertParams expert_params(const ModelSpec& m, const Parallelism& par);

// MoE layers of [begin, end) whose experts finetune.lora_expert_layers adapts: of the last n MoE layers of the model.
int64_t lora_expert_layers_in(const ModelSpec& m, int64_t n, int64_t begin, int64_t end);
// PEFT ParamWrapper's adapters on one layer's gate_up_proj and down_proj [E, in, out]: r * E * (in + out) each,
// lora_A [r * E, in] and lora_B [out, r * E] [peft-paramwrapper-code]; whole (the scenario refuses tp, ep > 1).
double expert_lora_params_per_layer(const ModelSpec& m, int64_t r);

// act.expert_index_grad: the per-expert loop's backward, where the experts train (full training, train.moe_experts
// loop). act.expert_lora_delta: PEFT's materialised expert delta weights (finetune.lora_expert_layers > 0).
void add_moe_expert_memory(TrainCtx& c);

// The per-expert loop's full-size gradient as the largest transient of a training step (allocator_reserve.h): a
// zero-sized tensor where it does not run.
TransientTensor expert_index_grad_transient(const Scenario& s);

}  // namespace vl
