// Overheads as named items with documented, user-changeable defaults (core/scenario.h Overheads):
// CUDA context, communication buckets, ZeRO-3/FSDP gathered layers, allocator fragmentation.
#include <algorithm>
#include <iterator>
#include <type_traits>
#include <string_view>

#include "cold.h"
#include "cuda_context.h"
#include "inference/weight_formats.h"
#include "model/presets.h"
#include "nccl.h"
#include "model/layer_tensors.h"
#include "training/training_internal.h"
#include "units.h"

namespace vl {

// deepspeed/moe/utils.py split_params_into_different_moe_groups_for_optimizer: max_group_size default [deepspeed-moe-code].
static constexpr double kDsMoeMaxGroupSize = 178956971;

// The process groups whose NCCL communicator a training step makes on one GPU. PyTorch makes a group's communicator at
// its first collective unless init_process_group got a device_id (Megatron's _initialize_distributed passes none)
// [megatron-core-groups-code], so a group that exists but runs no collective costs nothing (the DDP/FSDP and DeepSpeed
// groups below all run one); a group of one rank connects nothing. `large`: gradients or activations cross it (a lazily
// connected NCCL adds NVLS there, nccl.h); otherwise only barriers and scalar reductions, or tensors by send/recv or
// all-to-all (NCCL's p2p operations, which use no NVLS; their per-peer buffers are not modelled: a communicator's ring
// stands for them).
struct CommGroup {
    const char* ranks_name;  // the rank count's name in the derivation
    const char* comm_name;   // the communicator's bytes
    const char* nvls_name;   // its NVLS buffers
    int64_t ranks;
    bool large;
};

struct CommGroups {
    CommGroup g[14];
    int n = 0;
    void add(const char* ranks_name, const char* comm_name, const char* nvls_name, int64_t ranks, bool large) {
        if (ranks > 1 && n < static_cast<int>(std::size(g))) g[n++] = {ranks_name, comm_name, nvls_name, ranks, large};  // 12 at most
    }
};

static CommGroups training_comm_groups(const Scenario& s) {
    const Parallelism& p = s.parallel;
    const int64_t dp = std::max<int64_t>(1, p.dp), tp = std::max<int64_t>(1, p.tp), pp = std::max<int64_t>(1, p.pp),
                  cp = std::max<int64_t>(1, p.cp), ep = std::max<int64_t>(1, p.ep);
    const int64_t world = dp * tp * pp * cp;
    const bool moe = s.model.moe.num_experts > 0;
    CommGroups out;
    if (megatron_core_run(s)) {
        // Megatron-Core (parallel_state.py initialize_model_parallel makes a group per role, separate groups for the same
        // ranks; read at core_v0.13.0) [megatron-core-groups-code], those a GPT step runs a collective on:
        //   world        the default group: barriers at start-up, the start-time and exit-check all-reduces (training.py)
        //   dist-opt     INTRA_DISTRIBUTED_OPTIMIZER_INSTANCE_GROUP (all ranks with one optimizer instance): the
        //                distributed optimizer's gradient norm and zero count (optimizer/__init__.py grad_stats_parallel_group)
        //   dp-cp        DDP's gradient all-reduce / reduce-scatter and the parameter all-gather, the loss and token counts
        //   tp           the layers' all-reduce / all-gather / reduce-scatter, the batch broadcast
        //   pp           send/recv of activations between stages, the MoE aux-loss and token-count reductions
        //   mp (tp-pp)   found-inf and update-successful reductions every step; the gradient norm without the distributed optimizer
        //   cp           the attention's ring exchange and the loss all-reduce
        //   tp-cp        the MoE router's tokens-per-expert all-reduce for the aux loss (tp x cp > 1)
        //   embedding    first and last stage all-reduce the tied embedding's gradient (pp > 1)
        //   tp-ep        the token dispatcher (allgather, Megatron's default): hidden states gathered and scattered
        //   expert-dp    the routed experts' gradients (their own DDP buffers, ep > 1)
        //   tp-ep-pp     the experts' optimizer's gradient norm without the distributed optimizer
        // Not used in a step, so no communicator: dp without cp (only a per-token loss uses it), the position-embedding,
        // tp-dp(-cp) (expert-bias updates only), expert-tp (expert_tensor_parallel_size = tp: its gathers run on tp-ep)
        // and ep (the alltoall dispatcher's, not the default's).
        const bool dist_opt = p.zero >= 1;
        out.add("world", "comm_world", "nvls_world", world, false);
        if (dist_opt) out.add("world", "comm_dist_opt", "nvls_dist_opt", world, false);
        out.add("dp_cp", "comm_dp_cp", "nvls_dp_cp", dp * cp, true);
        out.add("tp", "comm_tp", "nvls_tp", tp, true);
        out.add("pp", "comm_pp", "nvls_pp", pp, false);  // activations by send/recv (p2p buffers, not modelled); scalars
        out.add("tp_pp", "comm_mp", "nvls_mp", tp * pp, false);
        out.add("cp", "comm_cp", "nvls_cp", cp, false);  // the attention's KV by send/recv (TransformerEngine); the loss
        if (moe) out.add("tp_cp", "comm_tp_cp", "nvls_tp_cp", tp * cp, false);
        if (s.model.tied_embeddings && pp > 1) out.add("embedding_ranks", "comm_embedding", "nvls_embedding", 2, true);
        if (moe && ep > 1) {
            out.add("tp_ep", "comm_tp_ep", "nvls_tp_ep", tp * ep, true);
            out.add("expert_dp", "comm_expert_dp", "nvls_expert_dp", dp * cp / ep, true);
            if (!dist_opt) out.add("tp_ep_pp", "comm_tp_ep_pp", "nvls_tp_ep_pp", tp * ep * pp, false);
        }
        return out;
    }
    if (s.deepspeed.enabled && p.zero >= 1) {
        // DeepSpeed without a model-parallel unit: its data-parallel group is a clone of the world group
        // (groups.py _clone_world_group: dist.new_group(ranks=range(world_size))), a second communicator of the same
        // ranks, beside the default group the barriers run on (Accelerate's wait_for_everyone, deepspeed.comm.barrier);
        // with one (tp, pp or cp > 1) the unit's data-parallel group and its model-parallel groups; DeepSpeed MoE adds
        // the expert-parallel and expert-data-parallel groups (_create_expert_and_data_parallel) [deepspeed-groups-code].
        out.add("world", "comm_world", "nvls_world", world, false);
        out.add("dp", "comm_dp", "nvls_dp", dp * cp, true);
        out.add("tp", "comm_tp", "nvls_tp", tp, true);
        out.add("pp", "comm_pp", "nvls_pp", pp, false);
        out.add("cp", "comm_cp", "nvls_cp", cp, true);
        if (moe && ep > 1) {
            out.add("ep", "comm_ep", "nvls_ep", ep, false);
            out.add("expert_dp", "comm_expert_dp", "nvls_expert_dp", dp / ep, true);
        }
        return out;
    }
    // PyTorch DDP / FSDP (Trainer, Accelerate, Lightning, torchtitan): the default group is the data-parallel one when
    // the run is data parallel alone; with other dimensions each has a group of its own (a DeviceMesh dimension), and
    // the default group keeps the barriers.
    const bool dp_only = world == dp;
    out.add("world", "comm_world", "nvls_world", world, dp_only);
    if (!dp_only) out.add("dp", "comm_dp", "nvls_dp", dp * cp, true);
    out.add("tp", "comm_tp", "nvls_tp", tp, true);
    out.add("pp", "comm_pp", "nvls_pp", pp, false);
    out.add("cp", "comm_cp", "nvls_cp", cp, true);
    if (moe) out.add("ep", "comm_ep", "nvls_ep", ep, false);
    return out;
}

// NCCL's communicator buffers, outside PyTorch's allocator: core/nccl.h's bytes for each group's communicator.
static void add_nccl(TrainCtx& c) {
    const CommGroups groups = training_comm_groups(c.s);
    if (groups.n == 0) return;
    // The NCCL of the run's PyTorch wheel (train.torch_version, validated; default the newest pin, 2.8, the PyTorch of
    // the default training profile, transformers-trainer-v5: torch >= 2.8) [pytorch-nccl-pins]. PyTorch leaves
    // NCCL_CUMEM_ENABLE unset, which NCCL reads as cuMem on where the driver supports it (CUDA 12+) [nccl-p2p-code], so
    // NCCL >= 2.22 connects each algorithm at its first collective (nccl.h).
    const Release nccl = pytorch_nccl(parse_release(c.s.train.torch_version).value_or(Release{}));
    const NcclSetup base{nccl, gpu_link(c.s.gpu.name), gpu_arch(c.s.gpu.name), nccl_connects_at_init(nccl, true)};
    const char* why =
        megatron_core_run(c.s)
            ? "the NCCL of train.torch_version's wheel [pytorch-nccl-pins]; Megatron-Core's groups a step runs a collective on, "
              "each its own communicator [megatron-core-groups-code]; each channels x (ring 12 MiB + tree 12 MiB at 3+ ranks "
              "where NCCL < 2.22 connects it at creation) + NVLink SHARP [nccl-p2p-code] [nccl-nvls-code]"
        : c.s.deepspeed.enabled && c.s.parallel.zero >= 1
            ? "the NCCL of train.torch_version's wheel [pytorch-nccl-pins]; the default group and DeepSpeed's clone of it for data "
              "parallelism [deepspeed-groups-code]; each channels x (ring 12 MiB + tree 12 MiB at 3+ ranks where NCCL < 2.22 "
              "connects it at creation) + NVLink SHARP [nccl-p2p-code] [nccl-nvls-code]"
            : "the NCCL of train.torch_version's wheel [pytorch-nccl-pins]; one communicator per process group, made at its first "
              "collective; each channels x (ring 12 MiB + tree 12 MiB at 3+ ranks where NCCL < 2.22 connects it at creation) + "
              "NVLink SHARP [nccl-p2p-code] [nccl-nvls-code]";
    add(c.e, c.d, comp("overhead.cuda_context.nccl", "NCCL communicator buffers (one per process group a step uses)", Category::Overhead,
                       kAllPhases, why),
        [&](auto& q) {
            using N = std::decay_t<decltype(q("", 0.0))>;
            N b{};
            for (int i = 0; i < groups.n; ++i) {
                const CommGroup& g = groups.g[i];
                NcclSetup setup = base;
                setup.large = g.large;
                b += q.let(g.comm_name, nccl_comm_bytes(q, setup, g.ranks_name, g.ranks, g.nvls_name));
            }
            return b;
        });
}

void add_context(TrainCtx& c) {
    const double b = cuda_context_bytes(c.s);  // as given, or the table's row for this GPU
    // Default 0.5 GiB: CUDA context + PyTorch/cuBLAS kernels ("a few hundred MB", [transformer-series5 §1];
    // [vllm-pr10511] measured 1.79 GiB non-torch memory including NCCL on H100).
    add(c.e, c.d, comp("overhead.cuda_context", "CUDA context and framework", Category::Overhead, kAllPhases,
                       "framework CUDA context: a few hundred MB [transformer-series5 §1]"),
        [&](auto& q) { return q("cuda_context_bytes", b); });

    // A given context is all memory outside PyTorch. One GPU has no communicator: the path is cold for the page's
    // first view (core/cold.h).
    const Parallelism& p = c.s.parallel;
    if (c.s.overheads.cuda_context_bytes < 0 && p.dp * p.tp * p.pp * p.cp > 1) cold([&] { add_nccl(c); });
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
    // Megatron-Core's DDP keeps the gradients in contiguous buffers (the grads component) and all-reduces or, under the
    // distributed optimizer, reduce-scatters each bucket in place on its view of them: no bucket of its own
    // (param_and_grad_buffer.py start_grad_sync) [megatron-core-groups-code].
    if (p.dp > 1 && !deepspeed && !fsdp2 && !megatron_core_run(s)) {
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
