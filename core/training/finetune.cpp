// Fine-tuning with adapters: LoRA (frozen 16-bit base) and QLoRA (frozen NF4 base), their trainable
// adapters and optimizer states, the adapters' own activations and QLoRA's dequantization buffer.
#include "training/finetune.h"

#include <algorithm>

#include "inference/weight_formats.h"
#include "model/image_tokens.h"
#include "model/layer_tensors.h"
#include "training/moe_experts.h"
#include "training/training_internal.h"

namespace vl {

// LoRA on one layer of a kind (dense or MoE): A [r, in] and B [out, r] on every matrix of the
// inventory the targets select, every copy (PEFT matches expert projections by name). A token passes
// through top_k of the routed experts' copies.
struct LoraLayer {
    int64_t params = 0;         // r * (in + out) summed over the targeted matrices
    double modules = 0;         // targeted matrices (each expert's counted)
    double active_modules = 0;  // those one token passes through
    double active_in = 0;       // their input widths, summed over what one token passes through
    // the q, k and v targets: how many, their input widths and output widths (Lit-GPT's LoRAQKVLinear joins them)
    double qkv_targets = 0, qkv_in = 0, qkv_out = 0;
};

// Over a list of tensors: a layer's (layer_tensors), or a vision tower's (vision_tensors: each layer tensor once with its
// layers as copies, so the sums are the whole tower's; its projector's tensors are never targets).
template <class List>
static LoraLayer lora_over(const ModelSpec& m, int64_t r, unsigned targets, const List& tensors) {
    LoraLayer l;
    for (const Tensor& t : tensors) {
        if ((t.lora & targets) == 0) continue;
        l.params += t.count * r * (t.cols + t.rows);
        l.modules += static_cast<double>(t.count);
        const double active = t.routed() ? static_cast<double>(m.moe.top_k) : static_cast<double>(t.count);
        l.active_modules += active;
        l.active_in += active * static_cast<double>(t.cols);
        if ((t.lora & (kLoraQ | kLoraK | kLoraV)) != 0) {
            l.qkv_targets += static_cast<double>(t.count);
            l.qkv_in += static_cast<double>(t.count * t.cols);
            l.qkv_out += static_cast<double>(t.count * t.rows);
        }
    }
    return l;
}

static LoraLayer lora_layer(const ModelSpec& m, int64_t r, unsigned targets, LayerKind kind) {
    return lora_over(m, r, targets, layer_tensors(m, kind));
}

// train.vision lora: the adapters on the tower's linears, the language model's rank and targets (layer_tensors.cpp add_vision
// maps the targets to the tower's modules), on the first pipeline stage, where the tower runs; none otherwise.
static LoraLayer tower_lora(const TrainCtx& c) {
    const Scenario& s = c.s;
    if (s.train.vision != VisionTraining::Lora || !s.model.vision.active() || !c.stage.first) return {};
    return lora_over(s.model, s.finetune.lora_rank, s.finetune.lora_targets, vision_tensors(s.model));
}

int64_t tower_lora_params(const ModelSpec& m, int64_t r, unsigned targets) {
    return m.vision.active() ? lora_over(m, r, targets, vision_tensors(m)).params : 0;
}

// The targets of layer a that layer b lacks (an encoder-decoder's decoder layer less an encoder layer: its cross-attention's).
static LoraLayer lora_minus(const LoraLayer& a, const LoraLayer& b) {
    return {a.params - b.params, a.modules - b.modules, a.active_modules - b.active_modules, a.active_in - b.active_in,
            a.qkv_targets - b.qkv_targets, a.qkv_in - b.qkv_in, a.qkv_out - b.qkv_out};
}

// A state-space or hybrid model's layers differ by kind (a Mamba mixer, attention, both, an MLP alone, experts): the adapters
// of layers [begin, end) summed kind by kind, n x each kind's.
static LoraLayer lora_stage_sum(const ModelSpec& m, int64_t r, unsigned targets, int64_t begin, int64_t end) {
    LoraLayer sum;
    layer_pattern(m).for_each_kind(begin, end, [&](LayerKind k, int64_t n) {
        const LoraLayer l = lora_layer(m, r, targets, k);
        const double w = static_cast<double>(n);
        sum.params += n * l.params;
        sum.modules += w * l.modules;
        sum.active_modules += w * l.active_modules;
        sum.active_in += w * l.active_in;
        sum.qkv_targets += w * l.qkv_targets;
        sum.qkv_in += w * l.qkv_in;
        sum.qkv_out += w * l.qkv_out;
    });
    return sum;
}

unsigned lora_targets_present(const ModelSpec& m) {
    unsigned bits = 0;
    if (!m.architecture_known()) return 0;
    layer_pattern(m).for_each_kind(0, m.layers, [&](LayerKind k, int64_t) {
        for (const Tensor& t : layer_tensors(m, k)) bits |= t.lora;
    });
    return bits;
}

unsigned ssm_kernel_read_targets(const Scenario& s) {
    const SsmSpec& x = s.model.ssm;
    // the fused walk (activations.cpp mamba_torch_path): everywhere but transformers' torch path
    if (plain_pytorch_training(s) && s.train.ssm_kernels == SsmKernels::Torch) return 0;
    if (x.kind == SsmKind::Mamba2) return kLoraOutProj;
    if (x.kind == SsmKind::Mamba1 && !x.bcdt_norms) return kLoraXProj | kLoraDtProj | kLoraOutProj;
    return 0;
}

// The weights of those linears one rank of the stage holds (QLoRA keeps them 16-bit).
static double ssm_kernel_read_params(const TrainCtx& c) {
    const unsigned read = ssm_kernel_read_targets(c.s);
    if (read == 0 || !c.s.model.architecture_known()) return 0;
    const double tp = static_cast<double>(std::max<int64_t>(1, c.s.parallel.tp));
    double sum = 0;
    layer_pattern(c.s.model).for_each_kind(c.stage.layer_begin, c.stage.layer_end, [&](LayerKind k, int64_t n) {
        for (const Tensor& t : layer_tensors(c.s.model, k))
            if (t.kind == TensorKind::Ssm && (t.lora & read) != 0) sum += static_cast<double>(n) * tensor_shard(t, tp, 1, 1);
    });
    return sum;
}

int64_t lora_params_per_layer(const ModelSpec& m, int64_t r, unsigned tg, bool moe_layer) { return lora_layer(m, r, tg, LayerKind{moe_layer, false}).params; }

int64_t lora_trainable_params(const ModelSpec& m, int64_t rank, unsigned targets) {
    return m.architecture_known() ? lora_stage_sum(m, rank, targets, 0, m.layers).params : 0;
}

// Lit-GPT's LoRAQKVLinear (finetune.lora_fused_qkv) adapting some but not all of q, k and v: zero_pad scatters lora_B's
// output into a zero tensor of the fused width with index_copy, whose backward keeps its source [litgpt-lora-code]
// [pytorch-derivatives-index-copy]: per layer T x (the adapted q/k/v output widths) in lora_B's output dtype.
static void add_lora_zero_pad(TrainCtx& c, const ActShape& x, const LoraLayer& dense, const LoraLayer& moe, int64_t n_dense,
                              int64_t n_moe, bool kept, double out_bytes) {
    const Scenario& s = c.s;
    // every layer kind carries the same attention, so the dense kind's q/k/v targets stand for both
    const LoraLayer& l = n_dense > 0 ? dense : moe;
    if (!s.finetune.lora_fused_qkv || l.qkv_targets == 0 || l.qkv_targets >= 3 || !kept) return;
    const double layers = static_cast<double>(n_dense + n_moe);
    add(c.e, c.d, comp("act.lora_zero_pad", "activations: LoRA q/k/v output kept by zero_pad's index_copy", Category::Activations, kFwdBwd,
                       "Lit-GPT LoRAQKVLinear.zero_pad: result.index_copy(1, lora_ind, lora_B output) [litgpt-lora-code]; "
                       "index_copy's backward saves its source [pytorch-derivatives-index-copy]"),
        [&](auto& q) {
            const auto T = q.let("T", q("b", x.b) * q("s", x.s) / q("cp", x.cp));
            return q("in_flight", c.in_flight) * q("L_kept", layers) *
                   (q("out_bytes", out_bytes) * T * q("qkv_adapted_out", l.qkv_out) / q("t", static_cast<double>(s.parallel.tp)));
        });
}

// NF4 block constants per parameter, in bits [qlora2023 §3]: one fp32 absmax per block of B weights
// (32 / B), or with double quantization an 8-bit absmax per block plus an fp32 constant per B2 blocks.
// The bit widths are the NF4 row of the weight-format table; the block sizes are the scenario's.
template <class Q>
static auto nf4_constant_bits(Q& q, int64_t block, int64_t block2, bool double_quant) {
    const QuantLayout& nf4 = weight_format(WeightFormat::NF4).layout;
    const auto b = q("B", static_cast<double>(block));
    return double_quant ? nf4.dq_scale_bits / b + nf4.dq_outer_bits / (b * q("B2", static_cast<double>(block2)))
                        : nf4.scale_bits / b;
}

double nf4_constant_bits_per_param(int64_t block, int64_t block2, bool double_quant) {
    Numbers n;
    return nf4_constant_bits(n, block, block2, double_quant);
}

// The largest linear weight one rank holds of one layer (QLoRA dequantizes one at a time): rows, cols
// and the ranks that split it.
struct LargestLinear {
    double rows = 0, cols = 0, split = 1;
    double elements() const { return rows * cols / split; }
};

// With the vision tower's linears quantized too (on the first stage), theirs are candidates (whole on every rank): a
// Qwen2-VL merger's mlp.0 [4h_v, 4h_v] can outgrow the language model's largest (Qwen2-VL-2B).
static LargestLinear largest_linear(const Scenario& s, bool vision) {
    const ModelSpec& m = s.model;
    const Parallelism& par = s.parallel;
    LargestLinear best;
    const double tp = static_cast<double>(std::max<int64_t>(1, par.tp));
    const double etp = static_cast<double>(expert_tp(par, ExpertSplit::EpTimesTp));
    const auto visit = [&](const Tensor& t) {
        if (!t.matrix()) return;
        const LargestLinear x{static_cast<double>(t.rows), static_cast<double>(t.cols),
                              t.split == TensorSplit::Replicated ? 1.0 : t.routed() ? etp : tp};
        if (x.elements() > best.elements()) best = x;
    };
    layer_pattern(m).for_each_kind(0, m.layers, [&](LayerKind k, int64_t) {
        for (const Tensor& t : layer_tensors(m, k)) visit(t);
    });
    if (vision)
        for (const Tensor& t : vision_tensors(m))
            if (vision_nf4_tensor(s, t) && static_cast<double>(t.elements()) > best.elements())
                best = {static_cast<double>(t.rows), static_cast<double>(t.cols), 1.0};
    return best;
}

void add_finetune(TrainCtx& c, double vision_trained, double vision_nf4) {
    const Scenario& s = c.s;
    const ModelSpec& m = s.model;
    const FineTuneOptions& ft = s.finetune;
    const bool qlora = ft.method == FineTuneMethod::QLoRA;
    const double n_w = s.parallel.zero >= 3 ? c.shard : 1;
    const double base_bytes = c.dt.weight;  // frozen base in the regime's weight dtype (bf16/fp16, fp32 in FP32)
    const double tp = static_cast<double>(s.parallel.tp);
    // ZeRO-3 / FSDP parameter offload moves every partitioned parameter to the host, the frozen ones too:
    // DeepSpeed partitions all of module.parameters() [deepspeed-zero-code], FSDP's CPUOffload(offload_params)
    // keeps each flat parameter's shard on the CPU [pytorch-fsdp]; the running unit is gathered to the GPU
    // (buffers.zero3_gather / buffers.ds_gathered_params).
    const bool base_host = s.parallel.offload_params;

    // ---- frozen base ----
    const double all = c.w.total();
    if (qlora) {
        const double ql = c.w.linear;
        // the Mamba linears a fused training kernel reads directly stay 16-bit (ssm_kernel_read_targets) [axolotl-issue-3951]
        const double kernel16 = ssm_kernel_read_params(c);
        // Fabric's BitsandbytesPrecision quantizes the output head's matrix too (its bias stays 16-bit) [lightning-bnb-plugin].
        const bool quantized_head = ft.bnb_quantize_head && c.w.lm_head > 0 && m.architecture_known();
        const double vocab = static_cast<double>(m.vocab), d_model = static_cast<double>(m.embed_dim > 0 ? m.embed_dim : m.hidden);
        const double head = quantized_head ? vocab * d_model / tp : 0.0;
        const auto head_matrix = [&](auto& q) { return q("V", vocab) * q("d", d_model) / q("tp", tp); };
        // the language model's quantized weights (the rest of its parameters stay 16-bit: weights.frozen)
        const auto layer_quantized = [&](auto& q) { return kernel16 > 0 ? q("P_linear", ql) - q("P_ssm_kernel_read", kernel16) : q("P_linear", ql); };
        const auto lm_quantized = [&](auto& q) { return head > 0 ? layer_quantized(q) + head_matrix(q) : layer_quantized(q); };
        // and a vision-language model's frozen tower and projector linears the load converts too (finetune.vision_quant;
        // whole on every tensor-parallel rank, as the tower runs) [transformers-bnb-skip] [unsloth-vision-quant]
        const auto quantized = [&](auto& q) { return vision_nf4 > 0 ? lm_quantized(q) + q("P_vision_linear", vision_nf4) : lm_quantized(q); };
        add(c.e, c.d, comp("weights.nf4", head > 0          ? "frozen base: NF4 4-bit linear weights and output head"
                                          : vision_nf4 > 0 ? "frozen base: NF4 4-bit linear weights (the vision tower's too)"
                                                           : "frozen base: NF4 4-bit linear weights",
                           Category::Weights, kAllPhases,
                           head > 0         ? "Dettmers et al. 2023 (QLoRA) Sec 3: 4-bit NormalFloat storage [qlora2023 §3]; Fabric's "
                                              "BitsandbytesPrecision swaps lm_head too [lightning-bnb-plugin]"
                           : vision_nf4 > 0 ? "Dettmers et al. 2023 (QLoRA) Sec 3: 4-bit NormalFloat storage [qlora2023 §3]; the 4-bit load "
                                              "converts every nn.Linear not skipped, the vision tower's too [transformers-bnb-skip] [unsloth-vision-quant]"
                                            : "Dettmers et al. 2023 (QLoRA) Sec 3: 4-bit NormalFloat storage [qlora2023 §3]",
                           base_host),
            [&](auto& q) { return quantized(q) * (weight_format(WeightFormat::NF4).layout.data_bits / 8) / q("N_w", n_w); });
        // The constants are a QuantState kept by each Linear4bit module, no parameter: ZeRO-3/FSDP neither shard nor offload
        // them, every rank keeps them whole on its GPU (FSDP drops the Params4bit's state, forward restores it) [bitsandbytes-043-code].
        const bool state_whole = s.parallel.zero >= 3;
        add(c.e, c.d, comp("weights.quant_constants", ft.double_quant ? "NF4 block constants (double-quantized)" : "NF4 block constants (fp32 absmax)",
                           Category::Weights, kAllPhases,
                           state_whole ? "Dettmers et al. 2023 Sec 3 Double Quantization: 0.5 -> 0.127 bits/param (B = 64, B2 = 256) [qlora2023 §3]; "
                                         "a module attribute, whole on every rank under ZeRO-3/FSDP [bitsandbytes-043-code]"
                                       : "Dettmers et al. 2023 Sec 3 Double Quantization: 0.5 -> 0.127 bits/param (B = 64, B2 = 256) [qlora2023 §3]",
                           base_host && !state_whole),
            [&](auto& q) {
                const auto bytes = quantized(q) * nf4_constant_bits(q, ft.quant_block, ft.quant_block2, ft.double_quant) / 8;
                return state_whole ? bytes : bytes / q("N_w", n_w);
            });
        // An fp32 regime (autocast over an fp32 base): PEFT's prepare_model_for_kbit_training casts every fp16/bf16
        // parameter that is not a Params4bit to fp32 [peft-kbit-prep], so these stay fp32 beside the 4-bit layers.
        const bool fp32_rest = base_bytes >= 4;
        add(c.e, c.d, comp("weights.frozen", head > 0    ? "frozen base: 16-bit non-quantized weights (embeddings, norms, head bias)"
                                             : fp32_rest ? "frozen base: fp32 non-quantized weights (embeddings, head, norms)"
                                                         : "frozen base: 16-bit non-quantized weights (embeddings, head, norms)",
                           Category::Weights, kAllPhases,
                           head > 0 ? "Fabric's BitsandbytesPrecision quantizes every nn.Linear weight; embeddings, norms and biases stay "
                                      "16-bit [lightning-bnb-plugin]"
                           : fp32_rest ? "bitsandbytes/HF: only nn.Linear layers inside the blocks are quantized (lm_head skipped) [bitsandbytes-code]; "
                                         "PEFT prepare_model_for_kbit_training casts the rest to fp32 [peft-kbit-prep]"
                                       : "bitsandbytes/HF: only nn.Linear layers inside the blocks are quantized (lm_head skipped) [bitsandbytes-code] [transformers-code]",
                           base_host),
            [&](auto& q) { return (q("P", all) - lm_quantized(q)) * q("weight_bytes", base_bytes) / q("N_w", n_w); });
        if (s.overheads.temp_buffers && m.architecture_known()) {
            const LargestLinear w = largest_linear(s, vision_nf4 > 0 && c.stage.first);
            // The quantized head is one of the matrices MatMul4Bit dequantizes (every lm_head chunk, forward and backward).
            const bool head_largest = head > w.elements();
            // An fp16 quant state: dequantize_4bit's fp16 copy and its .to(bf16) both alive [bitsandbytes-041-code].
            add(c.e, c.d, comp("buffers.dequant", ft.bnb_fp16_quant_state ? "dequantized weight of the running layer (fp16, then bf16)"
                                                                           : "dequantized weight of the running layer (bf16)",
                               Category::Buffers, kFwdBwd,
                               ft.bnb_fp16_quant_state ? "bitsandbytes MatMul4Bit: dequantize_4bit returns the fp16 quant state's dtype, "
                                                         ".to(A.dtype) casts it to bf16 [bitsandbytes-041-code]"
                                                       : "bitsandbytes matmul_4bit dequantizes each weight to the compute dtype [bitsandbytes-code]"),
                [&](auto& q) {
                    const auto matrix = head_largest ? head_matrix(q) : q("rows", w.rows) * q("cols", w.cols) / q("t", w.split);
                    return ft.bnb_fp16_quant_state ? (q("fp16_bytes", 2.0) + q("bf16_bytes", 2.0)) * matrix : 2 * matrix;
                });
        }
    } else {
        add(c.e, c.d, comp("weights.frozen", "frozen base weights", Category::Weights, kAllPhases,
                           "Hu et al. 2021 (LoRA) Sec 4.2: the base is frozen, no gradients or optimizer states [lora2021 §4.2]", base_host),
            [&](auto& q) { return q("P", all) * q("weight_bytes", base_bytes) / q("N_w", n_w); });
        // FSDP1 with use_orig_params: a wrapped block holding LoRA adapters is one flat parameter that
        // requires grad, so the block's frozen weights get gradients too ("equivalent to not freezing
        // those parameters"); the embedding, head and final norm wrap apart with nothing trainable [pytorch-fsdp].
        // (validate_training refuses fsdp_flat_params below zero 2.)
        if (s.parallel.fsdp_flat_params) {
            const double layers = c.w.layers, n_g = gradient_shards(c);
            add(c.e, c.d, comp("grads.frozen_flat", "FSDP flat parameters: gradients of the frozen block weights", Category::Gradients,
                               gradient_phases(s),
                               "PyTorch FSDP: use_orig_params mixing frozen and trainable parameters in one unit keeps gradients "
                               "for all of them; no_sync() keeps them unsharded [pytorch-fsdp]"),
                [&](auto& q) { return q("P_layers", layers) * q("grad_bytes", base_bytes) / q("N_g", n_g); });
        }
    }

    // Autocast over an fp32 base: each frozen matmul weight is cast on use (not cached: it requires no
    // grad) and the cast saved for the input gradient; NF4 weights are dequantized instead
    // (buffers.dequant), their fp32 head is cast.
    if (c.dt.autocast_copy > 0) add_autocast_copies(c, qlora ? 0.0 : c.w.linear, autocast_head_params(c), n_w, false);

    // ---- trainable adapters: the stage's layers, by kind ----
    const LayerPattern pattern = layer_pattern(m);
    const int64_t n_moe = m.architecture_known() ? pattern.moe_count(c.stage.layer_begin, c.stage.layer_end) : 0;
    // an encoder-decoder's decoder layers: their cross-attention's q, k, v, o are targets too (PEFT matches them by name)
    const int64_t n_cross = m.seq2seq.active() ? pattern.cross_count(c.stage.layer_begin, c.stage.layer_end) : 0;
    const int64_t n_dense = m.architecture_known() ? c.stage.layers() - n_moe - n_cross : 0;
    const LoraLayer dense = n_dense > 0 ? lora_layer(m, ft.lora_rank, ft.lora_targets, LayerKind{false, false}) : LoraLayer{};
    const LoraLayer moe = n_moe > 0 ? lora_layer(m, ft.lora_rank, ft.lora_targets, LayerKind{true, false}) : LoraLayer{};
    const LoraLayer cross = n_cross > 0 ? lora_layer(m, ft.lora_rank, ft.lora_targets, pattern.kind(c.stage.layer_end - 1)) : LoraLayer{};
    // its cross-attention's k and v targets alone: the decoder layer's k / v targets less an encoder layer's
    const unsigned kv_targets = ft.lora_targets & (kLoraK | kLoraV);
    const LoraLayer cross_kv = n_cross > 0 ? lora_minus(lora_layer(m, ft.lora_rank, kv_targets, pattern.kind(c.stage.layer_end - 1)),
                                                        lora_layer(m, ft.lora_rank, kv_targets, LayerKind{false, false}))
                                           : LoraLayer{};
    // adapters follow the tensor-parallel split of their base layer (one of A, B splits; approximation); the tower's are
    // replicated with it (add_vision_frozen_weights)
    const LoraLayer tower = tower_lora(c);
    // a state-space or hybrid model: its layers' adapters kind by kind (lora_stage_sum), in place of the dense / MoE split
    const bool by_kind = m.ssm.active() && m.architecture_known();
    const LoraLayer stage_sum = by_kind ? lora_stage_sum(m, ft.lora_rank, ft.lora_targets, c.stage.layer_begin, c.stage.layer_end) : LoraLayer{};
    const double layer_adapters = by_kind ? static_cast<double>(stage_sum.params)
                                          : static_cast<double>(n_dense * dense.params + n_moe * moe.params + n_cross * cross.params);
    // PEFT target_parameters on 3-D expert parameters: the adapted MoE layers of this stage (moe_experts.h)
    const int64_t n_expert_lora = ft.lora_expert_layers > 0 ? lora_expert_layers_in(m, ft.lora_expert_layers, c.stage.layer_begin, c.stage.layer_end) : 0;
    const double expert_lora = static_cast<double>(n_expert_lora) * expert_lora_params_per_layer(m, ft.lora_rank);
    const double adapters = layer_adapters / tp + static_cast<double>(tower.params) + expert_lora;
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
        const double r = static_cast<double>(ft.lora_rank);
        t.factored_states = (adapters - expert_lora) / r + 2 * r * (by_kind ? stage_sum.modules
                                                                            : static_cast<double>(n_dense) * dense.modules + static_cast<double>(n_moe) * moe.modules +
                                                                                  static_cast<double>(n_cross) * cross.modules);
        // a 3-D parameter's lora_A [r E, in] and lora_B [out, r E]: (r E + in) + (out + r E) factored entries each, two a layer
        const double E = static_cast<double>(m.moe.num_experts);
        if (n_expert_lora > 0) t.factored_states += expert_lora / (r * E) + static_cast<double>(n_expert_lora) * 2 * (2 * r * E);
    }
    add_model_states(c, t);

    // ---- modules_to_save: trainable copies of the embedding and/or lm_head, and of a trained projector ----
    // PEFT ModulesToSaveWrapper.update: copy.deepcopy(original_module), original_module.requires_grad_(False)
    // (src/peft/utils/other.py [peft-code]); the copy keeps the base dtype (cast_adapter_dtype upcasts
    // only tuner layers' adapters). A head tied to the embedding shares the embedding's copy.
    if ((ft.save_embedding || ft.save_lm_head || vision_trained > 0) && m.architecture_known()) {
        const EdgeShard edge = edge_shard(m, c.pc, s.parallel, c.stage);
        const bool embed_copy = ft.save_embedding || (ft.save_lm_head && m.tied_embeddings);
        TrainableSet saved;
        saved.saved_modules = true;
        saved.params = (embed_copy ? edge.word_embedding : 0.0) + (ft.save_lm_head && !m.tied_embeddings ? edge.lm_head : 0.0) + vision_trained;
        saved.dt = c.dt;
        saved.dt.weight = saved.dt.grad = base_bytes;
        // torch AdamW keeps its states in the parameter's dtype; bitsandbytes' paged 32-bit AdamW (QLoRA) in fp32
        if (s.train.optimizer_state_dtype == StateDtype::Auto) saved.dt.state = qlora && ft.paged_optimizer ? 4 : base_bytes;
        if (s.train.optimizer == Optimizer::Adafactor && saved.params > 0) {  // rows + cols of each [V / tp, e] copy
            const double e_dim = static_cast<double>(m.embed_dim > 0 ? m.embed_dim : m.hidden);
            const double copies = (embed_copy && edge.word_embedding > 0 ? 1.0 : 0.0) + (ft.save_lm_head && !m.tied_embeddings && edge.lm_head > 0 ? 1.0 : 0.0);
            saved.factored_states = copies * (static_cast<double>(m.vocab) / tp + e_dim);
        }
        if (saved.params > 0) add_model_states(c, saved);
    }

    // ---- adapter activations: lora_A output (input of lora_B), and the dropped input copy + mask ----
    if (m.architecture_known()) {
        const ActShape x = activation_shape(s, c.dt);
        const bool kept = s.train.recompute == Recompute::None || s.train.recompute == Recompute::Selective;
        const double r = static_cast<double>(ft.lora_rank);
        const bool dropout = ft.lora_dropout > 0;
        // Per layer: out_bytes * T * r for each lora_A output a token produces, and with lora_dropout the
        // dropped copy of each targeted module's input (+ a 1-byte mask), T = b * s / cp tokens. Where the
        // adapter casts its input (x.adapter_in_bytes, counted with the layer's saved inputs), lora_A saves
        // that cast and the dropout adds its mask only; fp32 adapters without autocast output fp32.
        // With finetune.lora_fused_qkv (Lit-GPT's LoRAQKVLinear [litgpt-lora-code]) the q/k/v adapters are one module:
        // one dropout over the shared input, whose masked copy lora_A saves is the layer's QKV input (activations.cpp
        // layer_attention), so the group adds its 1-byte mask of width h once; the other targets stay per module.
        const bool cast = x.adapter_in_bytes > 0;
        const bool fused = ft.lora_fused_qkv;
        const double out_bytes = x.adapter_in_bytes == 4 ? 4.0 : x.act_bytes;
        // (split: the module widths are tp-split; the tower's are whole)
        const auto per_layer = [&](auto& q, const auto& T, const LoraLayer& l, const char* modules, const char* d_in, bool split = true) {
            const auto t = [&](const auto& v) { return split ? v / q("t", tp) : v; };
            auto v = q("out_bytes", out_bytes) * T * q("r", r) * q(modules, l.active_modules);
            const double per_module_in = fused ? l.active_in - l.qkv_in : l.active_in;
            if (dropout && cast) v = v + t(1.0 * T * q(d_in, per_module_in));
            else if (dropout) v = v + t((q("a_bytes", x.act_bytes) + 1) * T * q(d_in, per_module_in));
            if (dropout && fused && l.qkv_targets > 0) v = v + t(1.0 * T * q("h", static_cast<double>(m.hidden)));
            return v;
        };
        // The tower's adapters run over every patch of the micro-batch's images (T_v) and are kept as the language model's
        // are: transformers checkpoints the tower's blocks too (GradientCheckpointingLayer) [transformers-code].
        const double tower_patches = tower.params > 0 ? training_tower_patches(s.model, s.train) : 0;
        const auto with_tower = [&](auto& q, const auto& lm) {
            if (!(tower_patches > 0) || !kept) return lm;
            const auto T_v = q.let("T_v", q("b", x.b) * q("patches_v", tower_patches));
            return lm + q("in_flight", c.in_flight) * per_layer(q, T_v, tower, "modules_v", "d_in_v", false);
        };
        add(c.e, c.d, comp("act.lora", "activations: LoRA adapter tensors", Category::Activations, kFwdBwd,
                           "PEFT LoraLayer forward: lora_B(lora_A(dropout(x))) [peft-code]"),
            [&](auto& q) {
                const auto T = q.let("T", q("b", x.b) * q("s", x.s) / q("cp", x.cp));
                const auto in_flight = q("in_flight", c.in_flight);
                const double Ld = kept ? static_cast<double>(n_dense) : 0.0, Lm = kept ? static_cast<double>(n_moe) : 0.0;
                // a state-space or hybrid model: the stage's layers summed kind by kind (their modules and input widths)
                if (by_kind) return with_tower(q, in_flight * q("stage_kept", kept ? 1.0 : 0.0) * per_layer(q, T, stage_sum, "modules_stage", "d_in_stage"));
                // an encoder-decoder: the encoder's layers over the source (T), the decoder's over the target, but for the
                // cross-attention's k and v adapters, which read the encoder output: over the source
                if (n_cross > 0) {
                    const ActShape xd = decoder_shape(x, s.train.target_len);
                    const auto T_tgt = q.let("T_tgt", q("b", xd.b) * q("s_tgt", xd.s) / q("cp", xd.cp));
                    const auto dec = per_layer(q, T_tgt, lora_minus(cross, cross_kv), "modules_dec", "d_in_dec") +
                                     per_layer(q, T, cross_kv, "modules_cross_kv", "d_in_cross_kv");
                    return in_flight * (q("L_enc_kept", Ld) * per_layer(q, T, dense, "modules_enc", "d_in_enc") +
                                        q("L_dec_kept", kept ? static_cast<double>(n_cross) : 0.0) * dec);
                }
                if (n_moe == 0) return with_tower(q, in_flight * q("L_kept", Ld) * per_layer(q, T, dense, "modules", "d_in"));
                if (n_dense == 0) return with_tower(q, in_flight * q("L_kept", Lm) * per_layer(q, T, moe, "modules", "d_in"));
                return with_tower(q, in_flight * (q("L_dense_kept", Ld) * per_layer(q, T, dense, "modules_dense", "d_in_dense") +
                                                  q("L_moe_kept", Lm) * per_layer(q, T, moe, "modules_moe", "d_in_moe")));
            });
        add_lora_zero_pad(c, x, dense, moe, n_dense, n_moe, kept, out_bytes);
    }
}

}  // namespace vl
