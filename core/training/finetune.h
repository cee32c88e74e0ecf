// LoRA / QLoRA: trainable adapter counts (as PEFT's print_trainable_parameters reports them) and the
// NF4 storage of a QLoRA base. Public so tests and the UI can show the counts on their own.
#pragma once
#include <cstdint>

#include "model_spec.h"
#include "scenario.h"

namespace vl {

// LoRA adds A (r x in) and B (out x r) to each targeted linear layer: r * (in + out) parameters
// ([lora2021]; PEFT LoraLayer.update_layer [peft-code]), on the matrices of the tensor inventory
// (model/layer_tensors.h) the targets select. Per layer, for a dense or an MoE layer (every expert's
// gate/up/down and the shared expert are targets too, as PEFT matches them by name).
int64_t lora_params_per_layer(const ModelSpec& m, int64_t rank, unsigned targets, bool moe_layer);
// Sum over all layers (PEFT "trainable params").
int64_t lora_trainable_params(const ModelSpec& m, int64_t rank, unsigned targets);

// LoRA on a vision-language model's tower (train.vision lora): the same A and B on each tower linear the targets select
// (q, k, v, o for its attention projections, Qwen's fused qkv by any of q, k, v; up / down for fc1 / fc2; gate / up / down
// for a gated tower MLP), over all the tower's layers; 0 for a model without a tower.
int64_t tower_lora_params(const ModelSpec& m, int64_t rank, unsigned targets);

// The LoRA targets (scenario.h kLora* bits) that select some matrix of this model's layers: the names PEFT would match.
unsigned lora_targets_present(const ModelSpec& m);

// The Mamba mixer linears whose weights transformers' fused training kernels read directly, not through the module's
// forward (kLora* bits): Mamba1's mamba_inner_fn takes x_proj, dt_proj and out_proj, Mamba2's
// mamba_split_conv1d_scan_combined out_proj (MambaMixer / Mamba2Mixer.cuda_kernels_forward, Falcon-H1's, Nemotron-H's and
// Granite-4.0-H's copies) [transformers-code] [peft-issue-2274]. An adapter on them never runs, and a 4-bit weight there
// breaks the kernel, so QLoRA recipes keep them 16-bit (llm_int8_skip_modules out_proj) [axolotl-issue-3951]. None on
// transformers' torch path or for Jamba's unfused mixer, which call each module.
unsigned ssm_kernel_read_targets(const Scenario& s);

// QLoRA storage per quantized parameter [qlora2023 §3]: 4-bit NF4 codes plus the block
// constants: one fp32 absmax per `block` weights (32/64 = 0.5 bit), or with double quantization an
// 8-bit absmax per block plus one fp32 constant per `block2` blocks (8/64 + 32/(64*256) = 0.127 bit).
double nf4_constant_bits_per_param(int64_t block, int64_t block2, bool double_quant);

}  // namespace vl
