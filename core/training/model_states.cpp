// Model states: weights, gradients, fp32 master weights and optimizer states, by precision regime
// and optimizer, divided by ZeRO/FSDP and moved to the host by CPU offload.
#include <algorithm>
#include <functional>
#include <type_traits>

#include "model/layer_tensors.h"
#include "training/optimizers.h"
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
        case Precision::AutocastFP16:
        case Precision::AutocastBF16:  // 4 + 4 + 8 = 16 B/param with Adam, + 2 B per matmul weight in forward [pytorch-autocast-code]
            d.weight = 4; d.grad = 4; d.master = 0; d.state = 4; d.act = 2; d.linear_in = 2;
            d.autocast_copy = 2; d.residual = 4;
            break;
        case Precision::FsdpBF16:  // fp32 shard: 4 + 4 + 8 = 16 B/param with Adam over N; units gathered in bf16 [pytorch-fsdp-code]
            d.weight = 4; d.grad = 4; d.master = 0; d.state = 4; d.act = 2; d.linear_in = 2;
            d.gathered = 2;
            break;
    }
    if (t.fp32_grad_copy) d.grad_copy = 4;  // (2 + 4) + (2 + 4) + 8 = 20 B/param [transformer-series5 §3.1]
    if (t.optimizer_state_dtype == StateDtype::FP32) d.state = 4;
    if (t.optimizer_state_dtype == StateDtype::BF16) d.state = 2;
    return d;
}

// The optimizer's state bytes on this rank, from its row of the optimizer table (optimizers.h):
// P parameters (F factored entries for Adafactor) in the regime's state dtype, over N_opt ranks; the routed experts
// (`experts` of P) over their own group where it differs (over_shards). Adafactor's factored entries stay over N_opt.
template <class Q>
auto optimizer_state_bytes(Q& q, const TrainCtx& c, const OptimizerInfo& o, const TrainingOptions& t, double P, double experts, double F,
                           double state_bytes, double n_opt) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    const auto times_states = [&](N x) { return o.states == 1 ? x : o.states * x; };
    const auto per_param = [&](auto f) { return over_shards(q, c, "P", P, experts, "N_opt", n_opt, f); };
    switch (o.size) {
        case StateSize::None: return N{};
        case StateSize::PerParam: return per_param([&](N p) { return times_states(p) * q("state_bytes", state_bytes); });
        case StateSize::Blockwise:
            return per_param([&](N p) { return times_states(p) * (o.element_bytes + o.scale_bytes / q("block", o.block)); });
        case StateSize::Factored: return q("F", F) * q("state_bytes", state_bytes) / q("N_opt", n_opt);
        case StateSize::Custom: return per_param([&](N p) { return p * q("custom_bytes", t.custom_optimizer_bytes_per_param); });
    }
    return N{};
}

// Calls visit(tensor, copies) for every tensor this stage holds: its layers' tensors (copies = the stage's layers of
// that kind), then outside the layers the embedding side on the first stage and the head side on the last (a tied head
// with pp > 1 keeps its own copy of the word embedding there, as rank_weights counts it).
static void for_each_stage_tensor(const ModelSpec& m, const ParamCounts& pc, const StageInfo& st,
                                  const std::function<void(const Tensor&, double)>& visit) {
    const int64_t end = std::min<int64_t>(st.layer_end, static_cast<int64_t>(pc.per_layer.size()));
    const int64_t begin = std::min(st.layer_begin, end);
    pc.per_layer.pattern().for_each_kind(begin, end, [&](LayerKind k, int64_t n) {
        for (const Tensor& t : layer_tensors(m, k)) visit(t, static_cast<double>(n));  // a cold walk: the listed tensors, not the inlined visitor
    });
    for (const Tensor& t : model_tensors(m)) {
        const bool head_side = t.kind == TensorKind::Head || t.kind == TensorKind::FinalNorm;
        if (head_side ? st.last : st.first) visit(t, 1);
        if (st.last && !st.first && m.tied_embeddings && t.kind == TensorKind::Embedding && t.split == TensorSplit::Vocab) visit(t, 1);
    }
}

// The sum of per_tensor over every tensor this stage holds.
double stage_tensor_sum(const ModelSpec& m, const ParamCounts& pc, const StageInfo& st, const std::function<double(const Tensor&)>& per_tensor) {
    double total = 0;
    for_each_stage_tensor(m, pc, st, [&](const Tensor& t, double copies) { total += copies * per_tensor(t); });
    return total;
}

// The elements of the largest parameter this rank holds: a tensor's tp shard (column, row and vocabulary splits), the
// routed experts of a layer as one parameter of the rank's experts (transformers v5 fuses them into one 3-D tensor; as
// separate Linears they are smaller, so this is the upper bound) [transformers-code]; 0 when the architecture is unknown.
double largest_stage_tensor(const ModelSpec& m, const ParamCounts& pc, const Parallelism& par, const StageInfo& st) {
    if (!m.architecture_known()) return 0;
    const double tp = static_cast<double>(std::max<int64_t>(1, par.tp)), ep = static_cast<double>(std::max<int64_t>(1, par.ep));
    double largest = 0;
    for_each_stage_tensor(m, pc, st, [&](const Tensor& t, double) {
        const double copies = t.routed() ? static_cast<double>(t.count) / ep : 1.0;
        largest = std::max(largest, copies * static_cast<double>(t.elements()) / (t.split == TensorSplit::Replicated ? 1.0 : tp));
    });
    return largest;
}

// Adafactor keeps, per weight matrix r x c, r + c second-moment entries; vectors keep a full copy
// (HF transformers Adafactor, beta1 = None [transformers-code]). The matrices and vectors are the
// tensor inventory's; routed experts are split by ep, the vocabulary by tp, other tensor-parallel
// splits are ignored (conservative: they shrink only one of r, c).
double adafactor_state_elements(const ModelSpec& m, const ParamCounts& pc, const Parallelism& par, const StageInfo& st) {
    if (!m.architecture_known()) return 0;
    const double tp = static_cast<double>(std::max<int64_t>(1, par.tp)), ep = static_cast<double>(std::max<int64_t>(1, par.ep));
    const auto entries = [&](const Tensor& t) {
        const double copies = t.routed() ? static_cast<double>(t.count) / ep : static_cast<double>(t.count);
        const double rows = static_cast<double>(t.rows) / (t.split == TensorSplit::Vocab ? tp : 1.0);
        const double cols = static_cast<double>(t.cols);
        return copies * (t.matrix() ? rows + cols : rows * cols);
    };
    return stage_tensor_sum(m, pc, st, entries);
}

// The output layer's matmul weight on this rank: the head, or (tied, one stage) the word embedding it
// shares (with a learned position table, counted with it: a slight overcount).
double autocast_head_params(const TrainCtx& c) {
    if (!c.stage.last) return 0;
    // BertForMaskedLM's decoder is the word embedding (tied), cast on use beside the head's own matrices.
    if (c.s.model.encoder && c.s.model.mlm_head) return c.w.lm_head + (c.stage.first ? c.w.embedding : 0);
    if (c.w.lm_head > 0) return c.w.lm_head;
    return c.s.model.tied_embeddings && c.stage.first ? c.w.embedding : 0;
}

// PyTorch autocast casts each fp32 matmul weight to the 16-bit type on use; the cast of a leaf that
// requires grad is cached until autocast exits (`cached`: trained weights), a frozen weight's is not
// (aten autocast_mode.cpp cached_cast: arg.requires_grad() && arg.is_leaf()), and every cast weight is
// saved by its matmul for the input gradient, so without recomputation all of them are live from
// forward until their layer's backward [pytorch-autocast-code]. The embedding lookup is not autocast
// (its fp32 output starts the fp32 residual stream). With full recomputation the checkpointed layers
// save nothing in forward: cached casts live in autocast's cache until the forward's autocast exits,
// uncached ones only for their op, and backward holds the output layer's cast (its matmul is outside
// the checkpoints) and the casts of the layer being recomputed (one stage layer's share)
// [pytorch-checkpoint-code]; uncached, that is also all that forward holds.
void add_autocast_copies(TrainCtx& c, double layer_params, double head_params, double n_w, bool cached) {
    const double b = c.dt.autocast_copy;
    const bool full_recompute = c.s.train.recompute == Recompute::Full;
    if (!full_recompute || cached)
        add(c.e, c.d, comp("weights.autocast_copies", "16-bit copies of the matmul weights (autocast)", Category::Weights,
                           full_recompute ? phase_bit(Phase::Forward) : kFwdBwd,
                           "PyTorch autocast cached_cast: lower-precision casts of fp32 leaf weights, saved for backward [pytorch-autocast-code]"),
            [&](auto& q) { return (q("P_matmul", layer_params) + q("P_head", head_params)) * q("copy_bytes", b) / q("N_w", n_w); });
    if (!full_recompute) return;
    const double layers = static_cast<double>(std::max<int64_t>(1, c.stage.layers()));
    const auto head_and_layer = [&](auto& q) {
        return (q("P_head", head_params) + q("P_matmul", layer_params) / q("L_stage", layers)) * q("copy_bytes", b) / q("N_w", n_w);
    };
    if (cached)
        add(c.e, c.d, comp("weights.autocast_copies_backward", "16-bit copies in backward: the output layer's and the recomputed layer's",
                           Category::Weights, phase_bit(Phase::Backward),
                           "checkpointed layers save no casts; the head's is saved by its matmul, the recomputed layer casts its own "
                           "[pytorch-autocast-code] [pytorch-checkpoint-code]"),
            head_and_layer);
    else
        add(c.e, c.d, comp("weights.autocast_copies", "16-bit copies of the frozen matmul weights: the output layer's and the running layer's",
                           Category::Weights, kFwdBwd,
                           "autocast caches no cast of a frozen weight (requires_grad=False) and checkpointed layers save none; the head's is "
                           "saved by its matmul, the running or recomputed layer casts its own [pytorch-autocast-code] [pytorch-checkpoint-code]"),
            head_and_layer);
}

// Plain PyTorch training (torch.optim on .grad tensors: the fp32, autocast and pure-bf16 regimes, and
// PEFT adapters) frees the gradients at zero_grad(set_to_none=True), the default since PyTorch 2.0 and
// what the transformers Trainer calls, so a step's backward allocates each gradient when its layer's
// backward runs, while that layer's saved activations are freed: the backward phase holds the
// activations and no gradients, the step all gradients and no activations (both ends of backward).
// Gradients live across backward when they accumulate over micro-batches, and in the 16-bit-weights +
// fp32-master frameworks (Megatron, DeepSpeed: persistent contiguous gradient buffers). Data-parallel
// gradient buckets are overheads.bucket_bytes [pytorch-zero-grad].
bool plain_pytorch_training(const Scenario& s) {
    const Precision p = s.train.precision;
    const bool adapters = s.mode == Mode::FineTune && s.finetune.method != FineTuneMethod::Full;
    return adapters || p == Precision::FP32 || p == Precision::PureBF16 || p == Precision::AutocastBF16 || p == Precision::AutocastFP16 ||
           p == Precision::FsdpBF16;
}

static bool gradients_allocated_in_backward(const Scenario& s) {
    return plain_pytorch_training(s) && s.train.grad_accum_steps == 1 && s.train.compat == Compat::None && s.train.zero_grad_set_to_none;
}

// zero_grad(set_to_none=False) (PyTorch before 2.0) zeroes the .grad tensors in place: once the first step has
// made them they are held in every phase, forward included [pytorch-zero-grad].
unsigned gradient_phases(const Scenario& s) {
    if (gradients_allocated_in_backward(s)) return kStep;
    const bool held = s.train.grad_accum_steps > 1 || (plain_pytorch_training(s) && !s.train.zero_grad_set_to_none);
    return kBwdStep | (held ? phase_bit(Phase::Forward) : 0u);
}

// ZeRO-2/3 and FSDP reduce-scatter each gradient to its shard; FSDP's no_sync() accumulation keeps the
// unsharded gradients of every micro-batch until the one that syncs [pytorch-fsdp] [zero2020 §5.2].
double gradient_shards(const TrainCtx& c) {
    const Parallelism& p = c.s.parallel;
    if (p.zero < 2) return 1;
    return p.no_sync_accumulation && c.s.train.grad_accum_steps > 1 ? 1 : c.shard;
}

// How torch.optim.AdamW steps (train.optimizer_impl): as given, or (auto) foreach where plain PyTorch runs the step,
// since torch.optim picks foreach on CUDA when neither fused= nor foreach= is given (`_default_to_fused_or_foreach`
// with use_fused=False), and fused (in place) for DeepSpeed's and Megatron's own fused Adams [pytorch-adam-code].
OptimizerImpl optimizer_impl(const Scenario& s) {
    if (s.train.optimizer_impl != OptimizerImpl::Auto) return s.train.optimizer_impl;
    return plain_pytorch_training(s) && s.train.compat == Compat::None && !s.deepspeed.enabled ? OptimizerImpl::Foreach : OptimizerImpl::Fused;
}

// Whether the step makes torch.optim.AdamW's temporaries on the GPU: AdamW, foreach or for-loop, not offloaded (the
// host steps it), not bitsandbytes' paged AdamW (its own kernel, in place), not another tool's accounting.
static bool adam_step_temporaries(const Scenario& s) {
    const bool paged = s.mode == Mode::FineTune && s.finetune.method == FineTuneMethod::QLoRA && s.finetune.paged_optimizer;
    const OptimizerImpl impl = optimizer_impl(s);
    return s.train.optimizer == Optimizer::AdamW && (impl == OptimizerImpl::Foreach || impl == OptimizerImpl::ForLoop) &&
           !s.parallel.offload_optimizer && !paged && s.train.compat == Compat::None;
}

// `_multi_tensor_adam` (torch/optim/adam.py; AdamW is Adam with decoupled weight decay) runs, per (device, dtype) group
// of one param group, `exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)`: new tensors the size of v, in the
// state dtype, for the whole group at once, alive with the weights, gradients and states until the update is applied.
// The decoupled weight decay (`_foreach_mul_` on the parameters), the moment updates (`lerp_`, `mul_`, `addcmul_`) and
// the update (`addcdiv_`) are in place; maximize, amsgrad (`sqrt` of the max instead) and Adam's coupled L2 decay (a
// gradient-sized copy freed before the sqrt) keep the peak at this one temporary. A rank holds its shard of the group
// (P / N_opt under ZeRO/FSDP). `torch._fused_adam_` updates in place: nothing [pytorch-adam-code].
// With the routed experts sharded over their own group the rank's shard of v is the dense part's and the experts' together
// (DeepSpeed and Megatron step their expert param groups apart, whose sqrt would not be alive at once; FSDP2 keeps
// them in one group: the sum bounds both).
template <class Q>
auto foreach_adam_temporary_bytes(Q& q, const TrainCtx& c, const char* params_symbol, double P, double experts, double state_bytes, double n_opt) {
    return over_shards(q, c, params_symbol, P, experts, "N_opt", n_opt, [&](auto p) { return p * q("state_bytes", state_bytes); });
}

// `_single_tensor_adam` (foreach=False) runs `denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)` one
// parameter at a time: the sqrt and the quotient are both alive for a moment, two tensors the size of that parameter;
// the largest parameter sets the peak: 2 · min(P, E_max) · state_bytes, over N_opt ranks (FSDP2 shards each
// parameter; the set's own size bounds it when it is smaller, LoRA adapters). The previous parameter's denom is still
// bound then: not counted, as the largest (the embedding or the head) follows a small one in the usual order.
// transformers' "adamw_hf" makes one, `exp_avg_sq.sqrt().add_(eps)`: this overstates it by one largest tensor
// [pytorch-adam-code] [transformers-pr37358].
template <class Q>
auto for_loop_adam_temporary_bytes(Q& q, double P, double largest, double state_bytes, double n_opt) {
    return q("tensors", 2.0) * min_of(q("P", P), q("E_max", largest)) * q("state_bytes", state_bytes) / q("N_opt", n_opt);
}

// The step's temporaries of one trainable set (optimizer.foreach_temporaries, lora.foreach_temporaries,
// saved.foreach_temporaries; the for-loop's under the same ids), at the Step only.
static void add_adam_step_temporaries(TrainCtx& c, const char* id, const char* params_symbol, double P, double experts, double state_bytes,
                                      double n_opt) {
    if (optimizer_impl(c.s) == OptimizerImpl::ForLoop) {
        const double largest = c.s.model.architecture_known() ? largest_stage_tensor(c.s.model, c.pc, c.s.parallel, c.stage) : P;
        add(c.e, c.d, comp(id, "AdamW for-loop step: sqrt(v) and its quotient of the largest parameter", Category::Buffers, kStep,
                           "torch.optim.AdamW foreach=False: _single_tensor_adam makes denom one parameter at a time, two "
                           "tensors of the largest [pytorch-adam-code]"),
            [&](auto& q) { return for_loop_adam_temporary_bytes(q, P, largest, state_bytes, n_opt); });
        return;
    }
    add(c.e, c.d, comp(id, "AdamW foreach step: sqrt(v) of the whole parameter group", Category::Buffers, kStep,
                       "torch.optim.AdamW foreach (PyTorch's CUDA default): torch._foreach_sqrt(exp_avg_sqs) makes one state-sized "
                       "temporary per (device, dtype) group; fused updates in place [pytorch-adam-code]"),
        [&](auto& q) { return foreach_adam_temporary_bytes(q, c, params_symbol, P, experts, state_bytes, n_opt); });
}

void add_model_states(TrainCtx& c, const TrainableSet& t) {
    const TrainingOptions& o = c.s.train;
    const OptimizerInfo& opt = optimizer_info(o.optimizer);
    const Parallelism& par = c.s.parallel;
    const int z = par.zero;
    const double N = c.shard;
    const double n_w = z >= 3 ? N : 1, n_g = gradient_shards(c), n_o = z >= 1 ? N : 1;
    const double P = t.params, X = t.experts;  // X: the routed experts' part of P (over_shards)
    const bool lora = c.finetune_adapters;
    const bool opt_host = par.offload_optimizer;
    const bool freed = gradients_allocated_in_backward(c.s);
    const unsigned grad_phases = gradient_phases(c.s);
    const char* grad_source = freed ? "a gradient per trainable parameter, allocated during backward and freed by zero_grad(set_to_none=True): "
                                      "at the step, not at the start of backward [pytorch-zero-grad] [zero2020 §5.2]"
                            : !o.zero_grad_set_to_none && plain_pytorch_training(c.s)
                                ? "a gradient per trainable parameter, zeroed in place by zero_grad(set_to_none=False) and held from the first step on "
                                  "[pytorch-zero-grad]"
                                : "2 B, or 4 B with fp32 accumulation [llm-gpu-memory-2025]; ZeRO Sec 5.2 P_g [zero2020 §5.2]";
    const Dtypes& dt = t.dt;
    c.trainable += P;
    c.trainable_experts += X;
    if (t.saved_modules) {  // copy.deepcopy of each module in modules_to_save, trained like the model's own [peft-code]
        add(c.e, c.d, comp("saved.weights", "modules_to_save: trainable copies", Category::Weights, kAllPhases,
                           "PEFT ModulesToSaveWrapper: a trainable copy.deepcopy of the module, the original frozen [peft-code]"),
            [&](auto& q) { return q("P_saved", P) * q("weight_bytes", dt.weight) / q("N_w", n_w); });
        add(c.e, c.d, comp("saved.grads", "modules_to_save: gradients", Category::Gradients, grad_phases, grad_source, opt_host),
            [&](auto& q) { return q("P_saved", P) * q("grad_bytes", dt.grad) / q("N_g", n_g); });
        if (opt.size != StateSize::None)
            add(c.e, c.d, comp("saved.optimizer", "modules_to_save: optimizer states", Category::Optimizer, kAfterLoad, opt.source, opt_host),
                [&](auto& q) { return optimizer_state_bytes(q, c, opt, o, P, 0, t.factored_states, dt.state, n_o); });
        // adapters (fp32) and these copies (base dtype) are two (device, dtype) groups of one param group: the first
        // group's sqrt is still bound while the second's is made, so both count [pytorch-adam-code]
        if (adam_step_temporaries(c.s)) add_adam_step_temporaries(c, "saved.foreach_temporaries", "P_saved", P, 0, dt.state, n_o);
        return;
    }

    add(c.e, c.d, comp(lora ? "lora.weights" : "weights", lora ? "LoRA adapter weights" : "weights", Category::Weights, kAllPhases,
                       "ZeRO (Rajbhandari et al. 2020) Sec 5: P_p partitions parameters (16*P/N_d at stage 3) [zero2020 §5]",
                       par.offload_params && !lora),
        [&](auto& q) { return over_shards(q, c, "P", P, X, "N_w", n_w, [&](auto p) { return p * q("weight_bytes", dt.weight); }); });
    add(c.e, c.d, comp(lora ? "lora.grads" : "grads", lora ? "LoRA adapter gradients" : "gradients", Category::Gradients, grad_phases,
                       grad_source, opt_host),
        [&](auto& q) { return over_shards(q, c, "P", P, X, "N_g", n_g, [&](auto p) { return p * q("grad_bytes", dt.grad); }); });
    if (dt.grad_copy > 0)
        add(c.e, c.d, comp(lora ? "lora.grads_fp32_copy" : "grads.fp32_copy", "fp32 gradient copy for the step", Category::Gradients, kStep,
                           "20 B/param mixed, 24 B/param fp32 [transformer-series5 §3.1]; ZeRO Sec 3.2 fused fp32 buffer [zero2020 §3.2]", opt_host),
            [&](auto& q) { return over_shards(q, c, "P", P, X, "N_opt", n_o, [&](auto p) { return p * q("grad_copy_bytes", dt.grad_copy); }); });
    if (dt.master > 0 && opt.master_weights)
        add(c.e, c.d, comp(lora ? "lora.master" : "optimizer.master", "fp32 master weights", Category::Optimizer, kAfterLoad,
                           "Micikevicius et al. 2018 [micikevicius2018]; ZeRO Sec 3.1 (K = 12 includes the fp32 copy) [zero2020 §3.1]", opt_host),
            [&](auto& q) { return over_shards(q, c, "P", P, X, "N_opt", n_o, [&](auto p) { return p * q("master_bytes", dt.master); }); });
    if (opt.size != StateSize::None)
        add(c.e, c.d, comp(lora ? "lora.optimizer" : "optimizer.states", opt.label, Category::Optimizer, kAfterLoad, opt.source, opt_host),
            [&](auto& q) { return optimizer_state_bytes(q, c, opt, o, P, X, t.factored_states, dt.state, n_o); });
    if (adam_step_temporaries(c.s))
        add_adam_step_temporaries(c, lora ? "lora.foreach_temporaries" : "optimizer.foreach_temporaries", "P", P, X, dt.state, n_o);
    if (dt.autocast_copy > 0 && !lora) add_autocast_copies(c, c.w.linear, autocast_head_params(c), n_w, true);
    if (dt.fp8_cache > 0 && !lora)
        add(c.e, c.d, comp("weights.fp8_cache", "fp8 weight + transpose cache", Category::Weights, kFwdBwd,
                           "NVIDIA Transformer Engine fp8 recipe: fp8 copies of GEMM weights (row- and column-wise) [transformer-engine-code]"),
            [&](auto& q) { return q("P_linear", c.w.linear) * q("fp8_copies", dt.fp8_cache) / q("N_w", n_w); });
}

}  // namespace vl
