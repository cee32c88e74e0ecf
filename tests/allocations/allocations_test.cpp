// Heap allocations of the number-only path (issue 16 item 5; docs/performance.md): an estimate that
// warns nothing allocates exactly once, for its components vector (estimate() reserves room for every
// component at once); the mechanism rows live in a fixed array inside the Estimate. Counted by the
// benchmarks' replaced operator new (bench/alloc_count.cpp), so this is its own binary: the main test
// binary keeps the ordinary allocator. The count is deterministic (no timing is judged here).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "alloc_count.h"
#include "estimate.h"
#include "model/presets.h"
#include "workloads.h"

using namespace vl;

namespace {

// operator new calls made by one number-only estimate of s (its Estimate's own destruction excluded). The GPU preset
// table (a training estimate reads the GPU's interconnect for NCCL's channels) loads once per process, on first use:
// loaded before counting, as every later estimate finds it.
uint64_t allocations_of(const Scenario& s, Estimate& out) {
    (void)gpu_presets();
    const uint64_t before = bench::allocations().calls;
    out = estimate(s, Detail::NumbersOnly);  // moved into out: a move allocates nothing
    return bench::allocations().calls - before;
}

void check_one_allocation(const Scenario& s) {
    Estimate e;
    const uint64_t n = allocations_of(s, e);
    REQUIRE(e.ok());
    REQUIRE(e.warnings.empty());    // a warning is user text: it allocates its string (and the list its room)
    REQUIRE(e.mechanisms.size() >= 4);  // several rows, none of them on the heap
    CHECK(n == 1);                  // the components vector, reserved once
}

}  // namespace

TEST_CASE("a number-only estimate without warnings allocates once: its components vector", "[allocations]") {
    SECTION("training, Llama-3.1-8B on 8 GPUs with ZeRO-1 (the sweep chart's scenario)") { check_one_allocation(bench::train_llama8b()); }
    SECTION("LoRA fine-tuning, Llama-3.1-8B") { check_one_allocation(bench::lora_llama8b()); }
    SECTION("inference, transformers") { check_one_allocation(bench::infer_transformers_llama8b()); }
    SECTION("inference, llama.cpp") { check_one_allocation(bench::infer_llamacpp_llama8b()); }
}

TEST_CASE("a pipeline-parallel training estimate allocates one components vector per stage it builds", "[allocations]") {
    // pp 2 without warnings would need a stage that is not the most loaded: the last stage carries the
    // logits and warns that it is shown. Its count: two vectors, the warning's text and the list's room.
    Scenario s = bench::train_llama8b();
    s.parallel.pp = 2;
    s.parallel.dp = 4;
    Estimate e;
    const uint64_t n = allocations_of(s, e);
    REQUIRE(e.ok());
    REQUIRE(e.warnings.size() == 1);
    CHECK(n == 2 + 2);
}
