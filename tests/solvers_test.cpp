// Solvers: every answer is checked against brute force over the same estimator. Binary search is
// only trusted for knobs where memory is monotone (batch, context); GPU layouts and weight formats
// are compared against full enumeration.
#include <catch2/catch.hpp>

#include <string>

#include "estimate.h"
#include "inference_models.h"
#include "model/hf_config.h"
#include "solvers.h"
#include "units.h"

using namespace vl;

static Scenario infer_scenario(Engine engine, double gpu_gib) {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = test::llama3_8b();
    s.infer.engine = engine;
    s.infer.context = 4096;
    s.gpu.memory_bytes = gpu_gib * kGiB;
    return s;
}

static bool fits_at(Scenario s, Knob k, int64_t v) {
    apply_knob(s, k, v);
    return estimate(s, Detail::NumbersOnly).fits();
}

// Largest v in [1, limit] that fits, scanning every value (no monotonicity assumed).
static int64_t brute_max(const Scenario& s, Knob k, int64_t limit) {
    int64_t best = 0;
    for (int64_t v = 1; v <= limit; ++v)
        if (fits_at(s, k, v)) best = v;
    return best;
}

TEST_CASE("largest batch (transformers) equals brute force and names the KV cache") {
    const Scenario s = infer_scenario(Engine::Transformers, 24);
    const SolveResult r = solve(s, Knob::Batch);
    REQUIRE(r.found);
    CHECK(r.value == brute_max(s, Knob::Batch, 4 * r.value + 8));
    CHECK(r.limiting_id == "kv_cache");
    CHECK(r.estimate.fits());
    CHECK_FALSE(fits_at(s, Knob::Batch, r.value + 1));
}

TEST_CASE("longest context (transformers) equals brute force") {
    const Scenario s = infer_scenario(Engine::Transformers, 18);  // 14.96 GiB of weights + KV
    const SolveResult r = solve(s, Knob::Context);
    REQUIRE(r.found);
    CHECK(r.value == brute_max(s, Knob::Context, r.value + 2000));
    CHECK_FALSE(r.limiting_id.empty());
}

TEST_CASE("vLLM concurrent sequences: solver, brute force and the pool's own count agree") {
    Scenario s = infer_scenario(Engine::VLLM, 40);
    s.infer.context = 8192;
    const SolveResult r = solve(s, Knob::Batch);
    REQUIRE(r.found);
    CHECK(r.value == brute_max(s, Knob::Batch, r.value + 20));
    CHECK(r.value == estimate(s, Detail::NumbersOnly).kv.sequences);  // blocks / ceil(8192/16)
    CHECK(r.limiting_id == "kv_cache");
}

TEST_CASE("an impossible request says why") {
    Scenario s = infer_scenario(Engine::Transformers, 0.25);  // smaller than the CUDA context alone
    const SolveResult r = solve(s, Knob::Batch);
    CHECK_FALSE(r.found);
    CHECK(r.why.find("nothing fits") != std::string::npos);
    CHECK(r.why.find("infer.batch = 1") != std::string::npos);
    CHECK(r.limiting_id == "weights.linear");  // the largest component at batch 1

    const SolveResult f = solve(s, Knob::WeightFormat);
    CHECK_FALSE(f.found);
    CHECK(f.why.find("no format fits") != std::string::npos);

    const SolveResult g = solve(s, Knob::GpuCount, SolveOptions{1, 0, 4});
    CHECK_FALSE(g.found);
    CHECK(g.why.find("no layout of up to 4 GPUs fits") != std::string::npos);
}

TEST_CASE("an invalid scenario or a knob of the other mode is refused with the field") {
    Scenario s = infer_scenario(Engine::Transformers, 24);
    s.infer.context = 0;
    SolveResult r = solve(s, Knob::Batch);
    CHECK_FALSE(r.found);
    REQUIRE_FALSE(r.errors.empty());
    CHECK(r.errors.front().field == "infer.context");

    r = solve(infer_scenario(Engine::Transformers, 24), Knob::MicroBatch);
    CHECK_FALSE(r.found);
    REQUIRE_FALSE(r.errors.empty());
    CHECK(r.errors.front().field == "mode");
}

TEST_CASE("fewest GPUs equals exhaustive enumeration of tp x pp layouts") {
    Scenario s = infer_scenario(Engine::Transformers, 8);
    s.infer.batch = 16;
    s.infer.context = 8192;  // 16 * 8192 * 128 KiB = 16 GiB of KV on one GPU
    const SolveResult r = solve(s, Knob::GpuCount, SolveOptions{1, 0, 16});
    // Brute force: the smallest n for which any tp*pp = n layout fits.
    int64_t brute = 0;
    for (int64_t n = 1; n <= 16 && brute == 0; ++n)
        for (int64_t tp = 1; tp <= n && brute == 0; ++tp) {
            if (n % tp) continue;
            Scenario c = s;
            c.parallel.tp = tp; c.parallel.pp = n / tp; c.gpu_count = n;
            const Estimate e = estimate(c, Detail::NumbersOnly);
            if (e.ok() && e.fits()) brute = n;
        }
    REQUIRE(brute > 0);
    REQUIRE(r.found);
    CHECK(r.value == brute);
    CHECK(r.scenario.parallel.tp * r.scenario.parallel.pp == brute);
    CHECK(r.estimate.fits());
}

TEST_CASE("least compressed weight format that fits equals enumeration") {
    Scenario s = infer_scenario(Engine::VLLM, 24);
    const SolveResult r = solve(s, Knob::WeightFormat);
    double best_w = -1;
    int64_t best = -1;
    for (int f = 0; f <= static_cast<int>(WeightFormat::GGUF_Q2_K); ++f) {
        Scenario c = s;
        c.infer.weights = static_cast<WeightFormat>(f);
        const Estimate e = estimate(c, Detail::NumbersOnly);
        if (!e.ok() || !e.fits()) continue;
        double w = 0;
        for (const Component& comp : e.components) if (comp.category == Category::Weights) w += comp.bytes;
        if (w > best_w) { best_w = w; best = f; }
    }
    REQUIRE(best >= 0);
    REQUIRE(r.found);
    CHECK(r.value == best);
}

TEST_CASE("when no weight format fits, the answer names the format, not its number") {
    // 405e9 params at >= 4 bits is > 200 GB: nothing fits a 24 GiB card.
    Scenario s = infer_scenario(Engine::Transformers, 24);
    s.model = model_from_param_count(405'000'000'000);
    const SolveResult r = solve(s, Knob::WeightFormat);
    REQUIRE_FALSE(r.found);
    CHECK_THAT(r.why, Catch::Contains("infer.weights = GPTQ 4-bit"));
    CHECK_THAT(r.why, !Catch::Contains("infer.weights = 5"));
}
