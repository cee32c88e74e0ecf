// Overheads as named items with documented, user-changeable defaults (core/scenario.h Overheads):
// CUDA context, communication buckets, ZeRO-3/FSDP gathered layers, allocator fragmentation.
#include <algorithm>
#include <string_view>

#include "cuda_context.h"
#include "inference/weight_formats.h"
#include "model/layer_tensors.h"
#include "training/training_internal.h"
#include "units.h"

namespace vl {

// NCCL memory per communicator, PyTorch, A100 with NVLink, after an all-reduce [nccl-issue-964].
static constexpr double kNccl2Ranks = 544 * kMiB, kNcclMoreRanks = 688 * kMiB;
// deepspeed/moe/utils.py split_params_into_different_moe_groups_for_optimizer: max_group_size default [deepspeed-moe-code].
static constexpr double kDsMoeMaxGroupSize = 178956971;

void add_context(TrainCtx& c) {
    const double b = cuda_context_bytes(c.s);  // as given, or the table's row for this GPU
    // Default 0.5 GiB: CUDA context + PyTorch/cuBLAS kernels ("a few hundred MB", [transformer-series5 §1];
    // [vllm-pr10511] measured 1.79 GiB non-torch memory including NCCL on H100).
    add(c.e, c.d, comp("overhead.cuda_context", "CUDA context and framework", Category::Overhead, kAllPhases,
                       "framework CUDA context: a few hundred MB [transformer-series5 §1]"),
        [&](auto& q) { return q("cuda_context_bytes", b); });

    // NCCL allocates its own channel buffers per communicator, outside PyTorch's allocator: one communicator per
    // process group of more than one rank (data, tensor, pipeline, context, expert parallel). Measured with PyTorch on
    // 4 A100s with NVLink after a 4 MB all-reduce: 544 MiB for a group of 2 ranks, 688 MiB for 3 or 4 [nccl-issue-964].
    const Parallelism& p = c.s.parallel;
    double two = 0, more = 0;
    for (int64_t g : {p.dp, p.tp, p.pp, p.cp, p.ep}) {
        if (g == 2) two += 1;
        if (g > 2) more += 1;
    }
    if (two + more > 0 && c.s.overheads.cuda_context_bytes < 0)  // a given context is all memory outside PyTorch
        add(c.e, c.d, comp("overhead.cuda_context.nccl", "NCCL communicator buffers (one per process group)", Category::Overhead, kAllPhases,
                           "NCCL channel buffers outside the PyTorch allocator: 544 MiB for 2 ranks, 688 MiB for more [nccl-issue-964]"),
            [&](auto& q) { return q("groups_of_2", two) * q("nccl_2_ranks", kNccl2Ranks) + q("groups_of_more", more) * q("nccl_more_ranks", kNcclMoreRanks); });
}

static DeepSpeedZero ds_resolved(const Scenario& s) {
    DeepSpeedZero z = s.deepspeed;
    // transformers HfTrainerDeepSpeedConfig.trainer_config_finalize: "auto" -> hidden^2, 0.9 hidden^2, 10 hidden
    // [transformers-deepspeed-code]; validate_training refuses "auto" where the hidden size is unknown.
    const double h = static_cast<double>(s.model.hidden);
    if (z.reduce_bucket_size == kDsAuto) z.reduce_bucket_size = h * h;
    if (z.stage3_prefetch_bucket_size == kDsAuto) z.stage3_prefetch_bucket_size = 0.9 * h * h;
    if (z.stage3_param_persistence_threshold == kDsAuto) z.stage3_param_persistence_threshold = 10 * h;
    return z;
}

// DeepSpeed parameter_offload.py mark_persistent_parameters: a parameter of ds_numel <= threshold is
// never partitioned [deepspeed-zero-code]. Each copy of a tensor (an expert's) is one parameter, over the
// tensors this stage holds.
static double ds_persistent_params(const ModelSpec& m, const ParamCounts& pc, const StageInfo& st, double threshold) {
    if (!m.architecture_known()) return 0;
    const auto small = [&](const Tensor& t) {
        return static_cast<double>(t.elements()) <= threshold ? static_cast<double>(t.elements() * t.count) : 0.0;
    };
    return stage_tensor_sum(m, pc, st, small);
}

// DeepSpeed's ZeRO engine buffers, from its config keys (deepspeed/runtime/zero [deepspeed-zero-code]).
static void add_deepspeed_buffers(TrainCtx& c) {
    const Scenario& s = c.s;
    const Parallelism& p = s.parallel;
    const DeepSpeedZero z = ds_resolved(s);
    const bool stage3 = p.zero >= 3;
    const double N = c.shard, wb = c.dt.weight;
    const double X = c.trainable_experts, N_e = c.expert_shard;  // the routed experts' part, over their expert-data-parallel group
    const double partition = (c.trainable - X) / N + X / N_e;     // trainable elements this rank's optimizer owns
    // DeepSpeed MoE puts the expert parameters in param groups of their own, of at most max_group_size elements each
    // (split_params_into_different_moe_groups_for_optimizer) [deepspeed-moe-code]; stage 1/2's step makes one group's
    // fp32 gradient partition at a time and frees it after that group's step (stage_1_and_2.py step, "Step 4: get rid of
    // the fp32 gradients") [deepspeed-zero-code], so the largest group's partition is the step's.
    const bool expert_groups = X > 0 && N_e != N;
    const double moe_group = std::min(X, kDsMoeMaxGroupSize);
    const double largest_group = expert_groups ? std::max((c.trainable - X) / N, moe_group / N_e) : partition;

    // Reduce (ipg) bucket in the trainable weights' dtype: stage 1/2 setup_buckets allocates one per backward and a
    // second with overlap_comm; stage 3 allocates one at init. Without contiguous_gradients there is none.
    if (z.contiguous_gradients) {
        const bool overlap = z.overlap_comm == DsOverlap::On || (z.overlap_comm == DsOverlap::Default && stage3);
        const double buffers = !stage3 && overlap ? 2 : 1;
        add(c.e, c.d, comp("buffers.ds_reduce_bucket", stage3 ? "DeepSpeed reduce bucket (stage 3, allocated at init)"
                                                               : "DeepSpeed reduce buckets (one, two with overlap_comm)",
                           Category::Buffers, stage3 ? kAfterLoad : kBwd,
                           "DeepSpeed reduce_bucket_size x dtype; stage 1/2 setup_buckets double buffer with overlap_comm [deepspeed-zero-code]"),
            [&](auto& q) { return q("reduce_bucket_size", z.reduce_bucket_size) * q("grad_bytes", wb) * q("buffers", buffers); });
    }

    // fp32 gradients for the optimizer step: stage 1/2 convert the whole partition, stage 3 one sub group at a
    // time (sub_group_size elements at most). With offload_optimizer they are pinned host buffers instead.
    const double group = stage3 ? std::min(z.sub_group_size, partition) : largest_group;
    if (!p.offload_optimizer && c.dt.grad_copy == 0 && group > 0)
        add(c.e, c.d, comp("buffers.ds_fp32_grads", stage3 ? "DeepSpeed fp32 gradients of one optimizer sub group"
                                                            : "DeepSpeed fp32 gradient partition for the step",
                           Category::Gradients, kStep,
                           "stage_1_and_2.py step: single_grad_partition .to(fp32); stage3.py _prepare_fp32_grad_for_sub_group [deepspeed-zero-code]"),
            [&](auto& q) {
                if (stage3)
                    return min_of(q("sub_group_size", z.sub_group_size), over_shards(q, c, "P_train", c.trainable, X, "N", N, [](auto p) { return p; })) * 4;
                if (expert_groups)
                    return max_of(q("P_dense", c.trainable - X) / q("N", N),
                                  min_of(q("P_expert", X), q("moe_max_group_size", kDsMoeMaxGroupSize)) / q("N_edp", N_e)) * 4;
                return q("P_train", c.trainable) / q("N", N) * 4;
            });
    // The fp32 gradients above come from single_grad_partition = self.flatten(averaged_gradients).to(fp32): the flatten is
    // a contiguous 16-bit copy of the same elements, alive while .to() makes the fp32 one, then dropped. The optimizer's
    // own step temporaries (added with the model states) come after it, so the step holds the larger of the two; what
    // this copy adds is its excess over them (stage_1_and_2.py step; stage3.py _prepare_fp32_grad_for_sub_group)
    // [deepspeed-zero-code]. With fp32 gradients .to() returns the flat copy itself: nothing more.
    if (!p.offload_optimizer && c.dt.grad_copy == 0 && group > 0 && wb < 4) {
        double step_temporaries = 0;
        for (const Component& x : c.e.components)
            if ((x.phases & phase_bit(Phase::Step)) && std::string_view(x.id).ends_with(".foreach_temporaries")) step_temporaries += x.bytes;
        add(c.e, c.d, comp("buffers.ds_flat_grads", "DeepSpeed flattened 16-bit gradients before their fp32 cast (beyond the optimizer's step temporaries)",
                           Category::Buffers, kStep,
                           "stage_1_and_2.py step / stage3.py _prepare_fp32_grad_for_sub_group: self.flatten(averaged_gradients) "
                           "then .to(fp32), both alive at once [deepspeed-zero-code]"),
            [&](auto& q) {
                return max_of(q("G_step", group) * q("grad_bytes", wb) - q("T_opt_step", step_temporaries), 0.0);
            });
    }
    if (p.offload_optimizer && partition > 0)
        add(c.e, c.d, comp("host.ds_fp32_grads", z.pin_memory ? "DeepSpeed fp32 gradient partition (pinned host memory)"
                                                               : "DeepSpeed fp32 gradient partition (host memory)",
                           Category::Gradients, kAllPhases,
                           "offload_optimizer: the fp32 partitions' .grad buffers on the host, page-locked with pin_memory [deepspeed-zero-code]", true),
            [&](auto& q) { return over_shards(q, c, "P_train", c.trainable, X, "N", N, [](auto p) { return p * 4; }); });
    if (!stage3) return;

    // Gathered 16-bit parameters: the running unit, the parameters whose next use lies within
    // max_reuse_distance (not released: at the turn from forward to backward the last layers, each
    // counted in the distance for its forward and its backward use, so half the distance), and the
    // prefetch, which stops at max_live_parameters.
    // QLoRA: the sizes count ds_numel, elements of the packed quant_storage tensor (bnb_4bit_quant_storage = the 16-bit
    // dtype), so a 4-bit weight of n params is n * 0.5 / weight_bytes elements [bitsandbytes-043-code]; the layer's norms
    // are counted packed too (< 0.01 %).
    if (c.largest_layer > 0) {
        const bool packed = s.finetune.method == FineTuneMethod::QLoRA;
        const double per_el = weight_format(WeightFormat::NF4).layout.data_bits / 8 / wb;
        const double ll = c.largest_layer, total = c.w.total(), linear = c.w.linear;
        add(c.e, c.d, comp("buffers.ds_gathered_params", "DeepSpeed ZeRO-3 gathered parameters (running, kept for reuse, prefetched)",
                           Category::Buffers, kFwdBwd,
                           packed ? "partitioned_param_coordinator.py: release skips params reused within max_reuse_distance; prefetch bucket bounded by "
                                    "max_live_parameters [deepspeed-zero-code]; elements of QLoRA's packed 4-bit storage [bitsandbytes-043-code]"
                                  : "partitioned_param_coordinator.py: release skips params reused within max_reuse_distance; prefetch bucket bounded by "
                                    "max_live_parameters [deepspeed-zero-code]"),
            [&](auto& q) {
                const auto unit = packed ? q.let("largest_layer_elements", q("largest_layer_params", ll) * q("elements_per_4bit_param", per_el))
                                         : q("largest_layer_params", ll);
                const auto rank = packed ? q("P_rank", total) - q("P_linear", linear) * (1 - q("elements_per_4bit_param", per_el))
                                         : q("P_rank", total);
                const auto held = q.let("held", max_of(unit, q("stage3_max_reuse_distance", z.stage3_max_reuse_distance) / 2));
                const auto ahead = q.let("ahead", min_of(q("stage3_prefetch_bucket_size", z.stage3_prefetch_bucket_size),
                                                         max_of(q("stage3_max_live_parameters", z.stage3_max_live_parameters) - held, 0)));
                return min_of(rank, held + ahead) * q("weight_bytes", wb);
            });
    }
    // Persistent parameters: whole on every rank, of which the weights component counted 1/N.
    const double persist = ds_persistent_params(s.model, c.pc, c.stage, z.stage3_param_persistence_threshold);
    if (persist > 0)
        add(c.e, c.d, comp("weights.ds_persistent", "DeepSpeed persistent parameters (below stage3_param_persistence_threshold, not partitioned)",
                           Category::Weights, kAllPhases,
                           "parameter_offload.py mark_persistent_parameters: ds_numel <= threshold stays whole on every rank [deepspeed-zero-code]"),
            [&](auto& q) { return q("P_persist", persist) * q("weight_bytes", wb) * (1 - 1 / q("N_w", N)); });
}

void add_buffers(TrainCtx& c) {
    const Scenario& s = c.s;
    if (!s.overheads.temp_buffers) return;
    const Parallelism& p = s.parallel;
    const bool deepspeed = s.deepspeed.enabled && p.zero >= 1;
    if (deepspeed) add_deepspeed_buffers(c);
    // FSDP2 (fully_shard) reduce-scatters each unit's gradients from a buffer of its own (buffers.fsdp2_reduce_scatter),
    // with no DDP-style bucket [pytorch-fsdp-code].
    const bool fsdp2 = !deepspeed && p.zero >= 3 && p.fsdp_version == 2;
    if (p.dp > 1 && !deepspeed && !fsdp2) {
        const double b = s.overheads.bucket_bytes;
        add(c.e, c.d, comp("buffers.comm_bucket", "gradient all-reduce / reduce-scatter bucket", Category::Buffers, kBwd,
                           "PyTorch DDP bucket_cap_mb [pytorch-docs]; DeepSpeed reduce_bucket_size; ZeRO Sec 6.2 (constant-size buffers) [zero2020 §6.2]"),
            [&](auto& q) { return q("bucket_bytes", b); });
    }
    if (p.zero >= 3 && c.largest_layer > 0) {
        // FSDP wraps each decoder layer in a unit of its own; the root unit holds the rest (the embedding, an untied head,
        // the final norm) and is not resharded between forward and backward: FSDP1's _post_forward_reshard frees no root
        // parameters under FULL_SHARD, FSDP2 gives the root no post-forward reshard, and both reshard it in the
        // end-of-backward callback [pytorch-fsdp-code]. So beside the root the running unit is the largest decoder layer.
        const double root = s.model.architecture_known() && !deepspeed ? c.w.embedding + c.w.lm_head + c.w.final_norm : 0;
        // DeepSpeed estimate_zero3_model_states_mem_needs: largest_layer_memory = 4 * largest_layer_params
        // (the gathered fp16 parameters and the layer's fp16 gradients before reduce-scatter).
        const double ll = root > 0 ? c.w.largest_block : c.largest_layer, wb = c.dt.gathered_bytes();  // FSDP MixedPrecision gathers in param_dtype
        const auto layer_bytes = [&](auto& q) { return q("largest_layer_params", ll) * q("weight_bytes", wb); };
        // QLoRA with bnb_4bit_quant_storage = the gather dtype: FSDP flattens and gathers each Params4bit's packed 4-bit
        // data (two values a byte) as it is [bitsandbytes-043-code]; the layer's norms are counted at 4 bits too (< 0.01 %).
        const bool nf4_unit = s.finetune.method == FineTuneMethod::QLoRA && !deepspeed;
        const double nf4_bytes = weight_format(WeightFormat::NF4).layout.data_bits / 8;
        const auto unit_bytes = [&](auto& q) {
            return nf4_unit ? q("largest_layer_params", ll) * q("nf4_bytes", nf4_bytes) : layer_bytes(q);
        };
        if (!deepspeed) {  // DeepSpeed's own gather: buffers.ds_gathered_params
            add(c.e, c.d, comp("buffers.zero3_gather", "ZeRO-3/FSDP gathered parameters of the largest layer", Category::Buffers, kFwdBwd,
                               nf4_unit ? "DeepSpeed memory.rst: largest_layer_params (params half) [deepspeed-memory]; QLoRA's packed 4-bit "
                                          "storage gathered as it is [bitsandbytes-043-code]"
                                        : "DeepSpeed memory.rst: 4 * largest_layer_params (params half) [deepspeed-memory]"),
                unit_bytes);
            // FSDP's default BackwardPrefetch.BACKWARD_PRE "holds the current set of parameters, next set of parameters, and
            // current set of gradients" at the backward peak [pytorch-fsdp]; FSDP2 prefetches the next unit in backward too.
            add(c.e, c.d, comp("buffers.fsdp_backward_prefetch", "FSDP backward prefetch: the next layer's gathered parameters",
                               Category::Buffers, kBwd,
                               "FSDP BackwardPrefetch.BACKWARD_PRE (the default): the next unit is gathered during this unit's backward [pytorch-fsdp]"),
                unit_bytes);
        }
        if (root > 0) {
            add(c.e, c.d, comp("buffers.fsdp_root", "FSDP root unit gathered (embedding, head, final norm) through forward and backward",
                               Category::Buffers, kFwdBwd,
                               "FSDP1 _post_forward_reshard: no root parameters freed under FULL_SHARD; FSDP2: no post-forward reshard of "
                               "the root; both reshard it at the end of backward [pytorch-fsdp-code]"),
                [&](auto& q) { return q("root_params", root) * q("weight_bytes", wb); });
            // A trained head's gradient (the tied embedding's, when the head is the embedding) is made by the loss backward,
            // the first step of backward, and the root's reduce-scatter runs only in the end-of-backward callback: it stays
            // unsharded through the whole backward [pytorch-fsdp-code].
            const double head = c.w.lm_head > 0 ? c.w.lm_head : s.model.tied_embeddings ? c.w.embedding : 0;
            if (!c.finetune_adapters && head > 0)
                add(c.e, c.d, comp("buffers.fsdp_head_grad", "FSDP: the head's unsharded gradient, held until the root reduce-scatters",
                                   Category::Buffers, kBwd,
                                   "the loss backward makes it first; the root unit's post-backward reduce-scatter runs in the "
                                   "end-of-backward callback [pytorch-fsdp-code]"),
                    [&](auto& q) { return q("head_params", head) * q("grad_bytes", wb); });
        }
        if (!c.finetune_adapters || p.fsdp_flat_params)  // adapters in a flat parameter: the block's whole gradient
            add(c.e, c.d, comp("buffers.zero3_layer_grads", "unsharded gradients of the largest layer", Category::Buffers, kBwd,
                               "DeepSpeed memory.rst: 4 * largest_layer_params (gradients half) [deepspeed-memory]"),
                layer_bytes);
        // FSDP2's post_backward keeps foreach_reduce's reduce_scatter_input (the unit's unsharded gradients copied in,
        // in the reduce dtype: the gradients' own without a reduce_dtype) in comm_ctx.reduce_scatter_state until the
        // next unit's post_backward: the previous unit's input is alive while this unit's backward runs
        // [pytorch-fsdp-code]. Adapters: only their own small gradients are reduce-scattered.
        if (fsdp2 && !c.finetune_adapters)
            add(c.e, c.d, comp("buffers.fsdp2_reduce_scatter", "FSDP2: the previous layer's reduce-scatter input, kept through this layer's backward",
                               Category::Buffers, kBwd,
                               "FSDP2 _fsdp_param_group.py post_backward: reduce_scatter_state holds foreach_reduce's "
                               "reduce_scatter_input until the next unit's post_backward [pytorch-fsdp-code]"),
                layer_bytes);
        // FSDP1's pre_unshard makes each unit's shard on the GPU before the all-gather, in a stream of its own (the
        // pre-unshard stream: the H2D copy of CPU offload, the param_dtype cast of MixedPrecision); freed once the
        // all-gather is issued, its block stays cached for that stream, which the units use one after another: the
        // largest unit's shard (the root's or a layer's) [pytorch-fsdp-code].
        const bool shard_copy = !deepspeed && p.fsdp_version == 1 && (p.offload_params || c.dt.gathered > 0);
        if (shard_copy && root > 0)
            add(c.e, c.d, comp("buffers.fsdp1_shard_copy", "FSDP1: the largest unit's shard copied to the GPU before its all-gather "
                                                           "(CPU offload or MixedPrecision cast)",
                               Category::Buffers, kFwdBwd,
                               "FSDP1 _flat_param.py pre_unshard: flat_param_to(device) under offload_params, _use_low_precision_shard under "
                               "MixedPrecision, in the pre-unshard stream [pytorch-fsdp-code]"),
                [&](auto& q) { return max_of(q("root_params", root) * q("weight_bytes", wb), unit_bytes(q)) / q("N", c.shard); });
    }
}

}  // namespace vl
