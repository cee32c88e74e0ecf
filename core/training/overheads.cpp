// Overheads as named items with documented, user-changeable defaults (core/scenario.h Overheads):
// CUDA context, communication buckets, ZeRO-3/FSDP gathered layers, allocator fragmentation.
#include <algorithm>

#include "cuda_context.h"
#include "training/training_internal.h"

namespace vl {

void add_context(TrainCtx& c) {
    const double b = cuda_context_bytes(c.s);  // as given, or the table's row for this GPU
    // Default 0.5 GiB: CUDA context + PyTorch/cuBLAS kernels ("a few hundred MB", [transformer-series5 §1];
    // [vllm-pr10511] measured 1.79 GiB non-torch memory including NCCL on H100).
    add(c.e, c.d, comp("overhead.cuda_context", "CUDA context and framework", Category::Overhead, kAllPhases,
                       "framework CUDA context: a few hundred MB [transformer-series5 §1]"),
        [&](auto& q) { return q("cuda_context_bytes", b); });
}

void add_buffers(TrainCtx& c) {
    const Scenario& s = c.s;
    if (!s.overheads.temp_buffers) return;
    const Parallelism& p = s.parallel;
    if (p.dp > 1) {
        const double b = s.overheads.bucket_bytes;
        add(c.e, c.d, comp("buffers.comm_bucket", "gradient all-reduce / reduce-scatter bucket", Category::Buffers, kBwd,
                           "PyTorch DDP bucket_cap_mb [pytorch-docs]; DeepSpeed reduce_bucket_size; ZeRO Sec 6.2 (constant-size buffers) [zero2020 §6.2]"),
            [&](auto& q) { return q("bucket_bytes", b); });
    }
    if (p.zero >= 3 && c.largest_layer > 0) {
        // DeepSpeed estimate_zero3_model_states_mem_needs: largest_layer_memory = 4 * largest_layer_params
        // (the gathered fp16 parameters and the layer's fp16 gradients before reduce-scatter).
        const double ll = c.largest_layer, wb = c.dt.weight;
        const auto layer_bytes = [&](auto& q) { return q("largest_layer_params", ll) * q("weight_bytes", wb); };
        add(c.e, c.d, comp("buffers.zero3_gather", "ZeRO-3/FSDP gathered parameters of the largest layer", Category::Buffers, kFwdBwd,
                           "DeepSpeed memory.rst: 4 * largest_layer_params (params half) [deepspeed-memory]"),
            layer_bytes);
        if (!c.finetune_adapters || p.fsdp_flat_params)  // adapters in a flat parameter: the block's whole gradient
            add(c.e, c.d, comp("buffers.zero3_layer_grads", "unsharded gradients of the largest layer", Category::Buffers, kBwd,
                               "DeepSpeed memory.rst: 4 * largest_layer_params (gradients half) [deepspeed-memory]"),
                layer_bytes);
    }
}

}  // namespace vl
