// The PyTorch caching allocator's reserve beyond the bytes allocated: one mechanism for every
// estimate that runs on PyTorch's allocator (training, transformers inference). vLLM sizes its pool
// from gpu_memory_utilization and llama.cpp plans its buffers with ggml-alloc: neither uses it.
#pragma once
#include "estimate.h"
#include "scenario.h"

namespace vl {

// overheads.fragmentation x the allocated bytes at the peak phase, as a component of that phase.
void add_fragmentation(const Scenario& s, Detail d, Estimate& e);

}  // namespace vl
