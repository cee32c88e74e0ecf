// Two training steps replayed through the caching allocator model (core/caching_allocator.h), for the reserve
// nvidia-smi shows in a run with room (Estimate::shown_reserve). torch.optim's AdamW creates its states lazily, in
// the first optimizer.step() [pytorch-adam-lazy-state]: by then the allocator's cache holds the freed loss tensors (the
// logits, their fp32 copy, the log-softmax output and its gradients, 2-4 B x b x s x V each), best fit places the
// moments in split-off rests of those blocks, and the second step's loss tensors no longer find a whole block:
// new segments [pytorch-cuda-alloc]. On an H100 (tests/data/accuracy/gpu-runs) reserved - allocated came to
// 1.94-2.15 x the fp32 logits in 2 x 4096-token runs of Llama-3.2-1B and Qwen2.5-1.5B with full recomputation.
// Without recomputation each layer keeps its saved tensors, one request each (layer_saved_tensors: a 1-10 MiB request
// gets a 20 MiB segment, a larger one its own), from its forward to its own backward, top layer first, beside the
// gradients of its saved tensors. That replay does not set the shown reserve yet: over the 13 H100/H200 runs without
// recomputation it came within 60 MiB of reserved - allocated on five, but the held-out runs' nvidia-smi rows got
// worse (median |error| 1.5 -> 2.2 %) and Qwen2.5-1.5B at 9216 tokens went from +2.9 to +7.2 % (replayed 7.5 GiB,
// measured 2.3 GiB; with one request per group of tensors about the same: docs/measured-set.md says why).
#pragma once

#include "estimate.h"
#include "scenario.h"

namespace vl {

struct StepReplay {
    bool replayed = false;      // false: the scenario is not of the replayed kind (step_replay_why_not)
    double peak_reserved = 0;   // the allocator's reserved bytes at their highest over both steps
    double peak_allocated = 0;  // the replayed tensors' allocated bytes at their highest
    int64_t requests = 0;       // allocations replayed (the cost: some 200 per layer for both steps, parameters included)
    double slack() const { return peak_reserved - peak_allocated; }
};

// Why a training scenario is not replayed ("" when it is): one GPU (no tp, pp, cp, ZeRO/FSDP, DDP), full
// training of a dense decoder with standard attention in plain PyTorch (fp32, autocast or pure bf16), full
// recomputation, the materialised loss, AdamW with foreach or for-loop steps, one micro-batch per step, no images,
// no expandable segments. The others keep kCachedShown (allocator_reserve.h).
const char* step_replay_why_not(const Scenario& s);

// The replay of load, two steps' forward, loss, backward and optimizer step (what step_replay_why_not accepts, and runs
// without recomputation too), from the tensor inventory (layer_tensors.h) for parameters, gradients, states and autocast
// copies, layer_activations() for a layer's tensors in groups (the forward under no_grad), layer_saved_tensors() for its
// saved tensors one by one (and their gradients), and e's loss components (logits, logits.fp32, logits.loss) for the
// loss tensors: e holds the estimate's components of the scenario.
StepReplay replay_training_steps(const Scenario& s, const Estimate& e);

}  // namespace vl
