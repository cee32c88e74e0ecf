// The caching allocator model (core/caching_allocator.h): its rules on requests whose blocks are
// worked out by hand from c10/cuda/CUDACachingAllocator.cpp [pytorch-cuda-alloc], and generate()
// replayed through it (core/inference/generate_replay.h) against the H100 runs.
#include <catch2/catch.hpp>

#include "caching_allocator.h"
#include "component_lookup.h"
#include "estimate.h"
#include "inference/generate_replay.h"
#include "model/presets.h"

using namespace vl;

namespace {
constexpr double MiB = 1024.0 * 1024.0;
constexpr double kUnlimited = 1e30;
}  // namespace

TEST_CASE("a request of at most 1 MiB is the small pool's and reserves nothing in the large pool") {
    CachingAllocatorModel a(kUnlimited);
    CHECK(a.allocate(1 * MiB) == 0);
    CHECK(a.allocate(100) == 0);
    CHECK(a.reserved() == 0);
}

TEST_CASE("a request under 10 MiB takes a 20 MiB segment, and the next one is served from its split-off rest") {
    CachingAllocatorModel a(kUnlimited);
    const int64_t x = a.allocate(3 * MiB);
    CHECK(x > 0);
    CHECK(a.reserved() == 20 * MiB);
    CHECK(a.allocate(3 * MiB) > 0);    // the 17 MiB rest holds it
    CHECK(a.reserved() == 20 * MiB);
    CHECK(a.peak_allocated() == 6 * MiB);
    // 14 MiB are left; a 13.5 MiB request leaves 0.5 MiB, not split off (<= 1 MiB): the whole block.
    CHECK(a.allocate(13.5 * MiB) > 0);
    CHECK(a.peak_allocated() == 20 * MiB);
}

TEST_CASE("a block one step too small for the grown tensor: the growth takes a new segment") {
    CachingAllocatorModel a(kUnlimited);
    const int64_t k0 = a.allocate(64 * MiB);               // a segment of exactly 64 MiB
    const int64_t k1 = a.allocate(64 * MiB + 64 * 1024);    // torch.cat one token longer: 66 MiB (2 MiB rounding)
    a.release(k0);                                          // the old cache: a free 64 MiB segment
    CHECK(a.reserved() == 130 * MiB);
    CHECK(a.allocate(64 * MiB + 128 * 1024) > 0);           // the next step's tensor fits neither
    CHECK(a.reserved() == 196 * MiB);
    a.release(k1);
}

TEST_CASE("freed neighbours merge, and the merged block serves the larger request") {
    CachingAllocatorModel a(kUnlimited);
    a.release(a.allocate(60 * MiB));     // a free 60 MiB segment
    const int64_t x = a.allocate(30 * MiB), y = a.allocate(30 * MiB);  // split in two halves of it
    CHECK(a.reserved() == 60 * MiB);
    a.release(x);
    a.release(y);                        // merged back into one 60 MiB block
    CHECK(a.allocate(50 * MiB) > 0);
    CHECK(a.reserved() == 60 * MiB);
}

TEST_CASE("at the capacity the empty segments are released first, and what still does not fit is out of memory") {
    CachingAllocatorModel a(100 * MiB);
    a.release(a.allocate(64 * MiB));     // cached, empty
    const int64_t x = a.allocate(66 * MiB);  // 64 + 66 > 100: the empty 64 MiB segment goes, then 66 fits
    CHECK(x > 0);
    CHECK(a.reserved() == 66 * MiB);
    CHECK(a.peak_reserved() == 66 * MiB);
    CHECK(a.allocate(40 * MiB) == -1);   // 66 + 40 > 100, nothing empty to release
    CHECK(a.out_of_memory());
    CHECK(a.failed_request() == 40 * MiB);
    CHECK(a.capacity_reached());
}

TEST_CASE("the capacity is reached only when a new segment would pass it") {
    CachingAllocatorModel a(100 * MiB);
    CHECK(a.allocate(60 * MiB) > 0);
    CHECK(a.allocate(40 * MiB) > 0);     // 60 + 40 = 100: exactly the capacity, not past it
    CHECK(a.reserved() == 100 * MiB);
    CHECK_FALSE(a.capacity_reached());

    CachingAllocatorModel b(100 * MiB);
    CHECK(b.allocate(60 * MiB) > 0);
    b.release(b.allocate(20 * MiB));     // an empty 20 MiB segment, cached: 80 MiB reserved
    CHECK_FALSE(b.capacity_reached());
    CHECK(b.allocate(30 * MiB) > 0);     // the free 20 MiB block is too small; 80 + 30 > 100: the empty segment goes
    CHECK(b.capacity_reached());
    CHECK(b.reserved() == 90 * MiB);
    CHECK_FALSE(b.out_of_memory());
}

namespace {
Scenario qwen3_06b_generate(int64_t new_tokens) {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = find_model("qwen3-0.6b")->spec;
    s.gpu = find_gpu("h100-80gb")->gpu();
    s.infer.batch = 32;
    s.infer.prompt = 1024;
    s.infer.context = 1024 + new_tokens;
    return s;
}
}  // namespace

TEST_CASE("generate() replayed: the reserve grows faster than the cache, as on the H100") {
    // tests/data/accuracy/gpu-runs: torch.cuda.max_memory_reserved of Qwen3-0.6B, batch 32, 1024-token
    // prompts: 8.35 GB after 128 new tokens, 10.29 after 256, 22.98 after 512 (allocated 5.9-7.0 GB).
    // The replay leaves out the weights (1.19 GB, their own segments) and the small pool.
    const GenerateReplay r128 = replay_generate(qwen3_06b_generate(128), 28, kUnlimited);
    const GenerateReplay r512 = replay_generate(qwen3_06b_generate(512), 28, kUnlimited);
    REQUIRE(r128.replayed);
    CHECK(r128.tokens == 129);  // 127 decode steps in strides of 8 tokens: the last one rounds up to 128
    CHECK_FALSE(r128.truncated);
    const double weights = 1192099840.0;
    CHECK((r128.peak_reserved + weights) / 8.35e9 == Approx(1.0).margin(0.2));
    CHECK((r512.peak_reserved + weights) / 22.98e9 == Approx(1.0).margin(0.2));
    CHECK(r512.peak_reserved - r512.peak_allocated > 2 * (r128.peak_reserved - r128.peak_allocated));
}

TEST_CASE("decode replayed in strides gives the step-by-step replay's reserve") {
    // Qwen3-0.6B at batch 32: K grows 64 KiB a token, a stride of 8 tokens; Llama-3.1-8B at batch 1: 4 KiB,
    // a stride of 128; GPT-2 large (eager, batch 16): 40 KiB, a stride of 12.
    Scenario llama;
    llama.mode = Mode::Infer;
    llama.infer.prompt = 4096;
    llama.infer.context = 4096 + 1024;
    Scenario gpt2 = llama;
    gpt2.model = find_model("gpt2-large")->spec;
    gpt2.infer.weights = WeightFormat::FP16;
    gpt2.infer.batch = 16;
    gpt2.infer.prompt = 512;
    gpt2.infer.context = 1024;
    gpt2.infer.flash_attention = false;
    for (const auto& [s, layers] : {std::pair{qwen3_06b_generate(512), int64_t{28}}, std::pair{llama, int64_t{32}}, std::pair{gpt2, int64_t{36}}}) {
        const GenerateReplay strided = replay_generate(s, layers, kUnlimited);
        // The strided replay's last step rounds up to its stride: the same tokens step by step.
        const int64_t asked = s.infer.context - s.infer.prompt;
        CHECK(strided.tokens >= asked);
        Scenario same = s;
        same.infer.context = s.infer.prompt + strided.tokens;
        const GenerateReplay every = replay_generate(same, layers, kUnlimited, 1);
        INFO(s.model.name);
        CHECK(strided.steps < every.steps / 7);
        CHECK(strided.tokens == every.tokens);
        CHECK(strided.peak_reserved == Approx(every.peak_reserved).epsilon(0.01));
        CHECK(strided.peak_allocated == Approx(every.peak_allocated).epsilon(0.01));
    }
}

TEST_CASE("the estimate adds the decode holes, unless expandable segments map pages instead") {
    Scenario s = qwen3_06b_generate(512);
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(test::bytes_of(e, "overhead.fragmentation.decode") > 10e9);  // the replay's ~18 GB above its allocated peak
    // measured gpu_used 23.77 GB (CUDA context included): the estimate must not be lower.
    CHECK(e.total_bytes > 23.77e9);
    s.overheads.expandable_segments = true;
    const Estimate x = estimate(s);
    CHECK(test::find(x, "overhead.fragmentation.decode") == nullptr);
    CHECK(x.total_bytes < 10e9);  // measured 7.94 GB used with expandable segments
}

TEST_CASE("when the decode's cached blocks fill the GPU, the estimate warns that its headroom says nothing") {
    // Llama-3.1-8B at batch 1, a 4096-token prompt and a 131072-token context on an H100: K and V each grow
    // 2 KiB per token and layer (8 KV heads x 128 x 2 B), so each torch.cat is longer than the freed block
    // before it; the freed blocks stay cached (the last step's cache alone, 2 x 32 x 256 MiB, is 17 GB)
    // until a new segment would pass the GPU's free memory and PyTorch releases the empty segments. The
    // estimate is then about the whole GPU, whatever more would fit.
    Scenario s;
    s.mode = Mode::Infer;
    s.gpu = find_gpu("h100-80gb")->gpu();
    s.infer.batch = 1;
    s.infer.prompt = 4096;
    s.infer.context = 131072;
    const auto warns = [](const Estimate& e) {
        for (const std::string& w : e.warnings)
            if (w.find("headroom does not say how much more fits") != std::string::npos) return true;
        return false;
    };
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(warns(e));
    CHECK(e.total_bytes > 0.95 * e.gpu_capacity_bytes);
    // A decode whose holes stay far below the GPU (Qwen3-0.6B, batch 32: ~23 GB reserved) says nothing of it,
    // and with expandable segments there are no holes to replay.
    CHECK_FALSE(warns(estimate(qwen3_06b_generate(512))));
    s.overheads.expandable_segments = true;
    CHECK_FALSE(warns(estimate(s)));
}
