// The PyTorch caching allocator's reserve beyond the bytes allocated: one mechanism for every
// estimate that runs on PyTorch's allocator (training, transformers inference). vLLM sizes its pool
// from gpu_memory_utilization and llama.cpp plans its buffers with ggml-alloc: neither uses it.
#pragma once
#include <initializer_list>

#include "estimate.h"
#include "scenario.h"

namespace vl {

// One tensor that a step allocates and frees again (an MLP intermediate, the logits, eager scores):
// rows x width elements of elem_bytes on this GPU.
struct TransientTensor {
    const char* name = "T";  // its symbol in the derivation: T_logits, T_mlp, T_softmax
    double rows = 0;        // e.g. batch x tokens
    double width = 0;       // e.g. vocabulary / tp
    double elem_bytes = 0;
    double bytes() const { return rows * width * elem_bytes; }
};

// The largest of the candidates (the first of equals; an empty list gives a zero-sized tensor).
TransientTensor largest_of(std::initializer_list<TransientTensor> candidates);

// The reserve at the peak phase, as a component of that phase: the larger of
//   overheads.fragmentation x the allocated bytes at the peak (a floor), and
//   kSplitHoles x the largest transient tensor (holes left in split segments; none with
//   overheads.expandable_segments).
void add_fragmentation(const Scenario& s, Detail d, Estimate& e, const TransientTensor& largest);

// The split-segment holes, in units of the largest transient tensor (allocator_reserve.cpp).
extern const double kSplitHoles;

// The second figure of a training step on the caching allocator: the reserve nvidia-smi shows in a run with room
// (Estimate::shown_reserve), the larger of overheads.fragmentation x the allocated bytes at the peak and
// kCachedShown x the largest transient tensor, with or without expandable segments (in a run with room neither
// gives memory back). Set only where it differs from the reserve that decides fits(); call it after the
// components of the rank shown are in place.
// replayed: where a replay of the allocation order ran (training/step_replay.h: two training steps), its reserved and
// allocated peaks; their difference takes the place of kCachedShown x the largest transient tensor.
struct ReplayedReserve {
    double reserved = 0, allocated = 0;
};
void set_shown_reserve(const Scenario& s, Detail d, Estimate& e, const TransientTensor& largest, const ReplayedReserve* replayed = nullptr);

// What the freed transient blocks still cached at a training step's reserved peak come to, in units of the
// largest transient tensor, in a run with room (allocator_reserve.cpp).
extern const double kCachedShown;

// The peak with Estimate::shown_reserve in place of overhead.fragmentation: Estimate::shown_bytes
// (total_bytes when shown_reserve is not set); `at`, when given, gets that peak's phase.
double shown_peak_bytes(const Estimate& e, Phase* at = nullptr);

}  // namespace vl
