// The planner tests' tiny model, one definition: 4 layers, d 256, 4 heads of 64 (MHA), gated MLP 512, vocab 1024,
// untied, Q8_0, f16 KV, 64 GiB of RAM and no GPU yet. Worked by hand in tests/planner_test.cpp: a layer is 698368 B,
// the output 279552 B, token_embd 278528 B, the KV 1024 B per token and layer.
#pragma once
#include <cstdint>

#include "inference_models.h"
#include "planner/planner.h"

namespace vl::test {

inline PlanInput tiny_plan_input(int64_t ctx) {
    PlanInput in;
    in.model = llama("tiny", 1024, 256, 4, 4, 4, 512, 65536);
    in.weights = WeightFormat::GGUF_Q8_0;
    in.kv = KvDtype::FP16;
    in.context = ctx;
    in.ram_bytes = 64.0 * 1024 * 1024 * 1024;
    return in;
}

}  // namespace vl::test
