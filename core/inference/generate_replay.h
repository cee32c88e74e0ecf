// transformers' generate() replayed through the caching allocator model (core/caching_allocator.h):
// the order in which one forward allocates and frees its tensors, the prefill and every decode step,
// for the memory the allocator reserves beyond what is allocated. DynamicCache grows each layer's K and
// V by torch.cat every decode step [transformers-code], so every step re-allocates 2 x layers tensors one
// token longer than the blocks the step before freed: a freed block serves the next request only after
// merging with free neighbours, and the rest becomes new segments. On an H100 (tests/data/accuracy/
// gpu-runs) Qwen3-0.6B at batch 32 with 1024-token prompts reserved 8.4, 10.3 and 23.0 GB after 128,
// 256 and 512 new tokens for 5.9-7.0 GB allocated; with expandable segments, 7.2 GB.
#pragma once
#include <cstdint>

#include "scenario.h"

namespace vl {

struct GenerateReplay {
    bool replayed = false;        // false: the model or settings are not of the replayed kind (replay_generate_why)
    double peak_reserved = 0;     // the allocator's reserved bytes at their highest
    double peak_allocated = 0;    // the replayed tensors' allocated bytes at their highest
    bool out_of_memory = false;   // a request did not fit in capacity_bytes even after releasing empty segments
    double failed_request = 0;    // that request's bytes
    bool capacity_reached = false;  // the reserve reached capacity_bytes: the allocator released its empty segments to go on (or ran out)
    int64_t steps = 0;            // forwards replayed (the prefill and the decode steps replayed)
    int64_t tokens = 0;           // tokens generated when the replay ended: the new tokens rounded up to the stride, unless truncated
    bool truncated = false;       // stopped at kMaxReplayLayerSteps before the last decode step
};

// Decode steps are replayed in strides: one forward stands for `stride` tokens, its K and V that much
// longer than the last replayed step's; the last one rounds up to the stride (at most stride - 1 tokens
// more than the context). A stride grows each K or V tensor by at most 512 KiB, a quarter of
// the 2 MiB the allocator rounds a large segment to, so the same blocks fit and split: on the H100 cases
// (tests/caching_allocator_test.cpp) the reserve is the step-by-step replay's within 1 %.
inline constexpr double kReplayGrowthPerStride = 512.0 * 1024;
// Forwards x layers replayed at most (about 2 large-pool requests per layer): the replay's cost bound.
inline constexpr int64_t kMaxReplayLayerSteps = int64_t{1} << 16;

// Why a scenario is not replayed ("" when it is): only dense decoders with 16-bit K/V in a DynamicCache
// that keeps every token, a prompt prefilled in one forward, and no images are.
const char* replay_generate_why_not(const Scenario& s);

// The layers [begin, end) of the GPU, with capacity_bytes for the allocator (the GPU's usable memory
// less what is allocated beside the replayed tensors: weights, CUDA context).
// stride_tokens 0: the stride of kReplayGrowthPerStride; 1 replays every decode step.
GenerateReplay replay_generate(const Scenario& s, int64_t layers, double capacity_bytes, int64_t stride_tokens = 0);

}  // namespace vl
