// Solvers: every answer is checked against brute force over the same estimator. Binary search is
// only trusted for knobs where memory is monotone (batch, context, micro-batch, training sequence;
// checked on a grid below); GPU layouts and weight formats are compared against full enumeration.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "estimate.h"
#include "inference_models.h"
#include "model/hf_config.h"
#include "model/presets.h"
#include "solvers.h"
#include "training_fixtures.h"
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
    Scenario s = infer_scenario(Engine::Transformers, 10);
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

TEST_CASE("the format solver sizes every other format by its rules: an imported GGUF's bytes are its own type's only") {
    // A 2-layer model (d 256) imported from a GGUF whose blocks claim 20 GiB each: as imported (Q4_K_M)
    // it fits no 24 GiB card, but every other format of this tiny model does, by its rules (under 10 MB).
    Scenario s;
    s.mode = Mode::Infer;
    s.model = test::llama("claims", 32, 256, 2, 4, 2, 512, 4096);
    s.model.gguf_bytes = {{uint64_t{20} << 30, uint64_t{20} << 30}, 1000, 1000, 1000, {}};
    s.infer.engine = Engine::LlamaCpp;
    s.infer.weights = WeightFormat::GGUF_Q4_K_M;
    s.infer.context = 256;
    s.gpu = {"24 GiB", 24.0 * kGiB};
    REQUIRE_FALSE(estimate(s).fits());
    const SolveResult r = solve(s, Knob::WeightFormat);
    REQUIRE(r.found);
    CHECK(r.scenario.infer.weights == WeightFormat::FP32);  // the least compressed llama.cpp loads
    // The file's bytes stay, typed Q4_K_M, so choosing Q4_K_M again sizes the file.
    CHECK(r.scenario.model.gguf_bytes.type == WeightFormat::GGUF_Q4_K_M);
    CHECK(r.scenario.model.gguf_bytes.layers.size() == 2);
}

TEST_CASE("when no weight format fits, the answer names the format, not its number") {
    // 405e9 params at >= 2 bits is > 100 GB: nothing fits a 24 GiB card, not even the smallest format, GPTQ 2-bit (2 + 18 / 128 bits a weight).
    Scenario s = infer_scenario(Engine::Transformers, 24);
    s.model = model_from_param_count(405'000'000'000);
    const SolveResult r = solve(s, Knob::WeightFormat);
    REQUIRE_FALSE(r.found);
    CHECK_THAT(r.why, Catch::Contains("infer.weights = GPTQ 2-bit"));
    CHECK_THAT(r.why, !Catch::Contains("infer.weights = 5"));
}

// ---- training knobs: micro-batch, sequence length, GPU count --------------------------------
// Training memory is non-decreasing in micro-batch and sequence length: every activation, logits
// and working-set component is a product of b (or s, s^2) with non-negative factors, model states
// do not depend on them, fragmentation is a fixed fraction of the peak phase, and the peak is a
// max over phases and over the first/last pipeline stage (core/training/). The tests below check
// that on a grid before trusting bisection, then compare with brute force over the same estimator.
namespace {
using vl::testing::llama2_7b;

Scenario train_on(const ModelSpec& m, double gpu_gib) {
    Scenario s;
    s.mode = Mode::Train;
    s.model = m;
    s.train.seq_len = 2048;
    s.gpu.memory_bytes = gpu_gib * kGiB;
    return s;
}

// Full fine-tune of Llama-2-7b with ZeRO-3 over 8 GPUs (bf16 mixed, AdamW: 16 B/param sharded).
Scenario zero3_full(double gpu_gib) {
    Scenario s = train_on(llama2_7b(), gpu_gib);
    s.parallel.zero = 3;
    s.parallel.dp = s.gpu_count = 8;
    return s;
}

// ZeRO-2 over 4 GPUs with full recomputation (checkpointed layer inputs).
Scenario zero2_recompute(double gpu_gib) {
    Scenario s = train_on(llama2_7b(), gpu_gib);
    s.parallel.zero = 2;
    s.parallel.dp = s.gpu_count = 4;
    s.train.recompute = Recompute::Full;
    return s;
}

// LoRA r 16 on q,v of Llama-2-7b, one GPU.
Scenario lora(double gpu_gib) {
    Scenario s = train_on(llama2_7b(), gpu_gib);
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::LoRA;
    return s;
}

// total_bytes never falls along `values` (each must be a valid value of the knob).
void require_nondecreasing(Scenario s, Knob k, const std::vector<int64_t>& values) {
    double prev = 0;
    for (int64_t v : values) {
        apply_knob(s, k, v);
        const Estimate e = estimate(s, Detail::NumbersOnly);
        REQUIRE(e.ok());
        INFO(knob_name(k) << " = " << v);
        CHECK(e.total_bytes >= prev);
        prev = e.total_bytes;
    }
}

std::vector<int64_t> range_values(int64_t lo, int64_t hi, int64_t step) {
    std::vector<int64_t> v;
    for (int64_t x = lo; x <= hi; x += step) v.push_back(x);
    return v;
}

const Component* component(const Estimate& e, const std::string& id) {
    for (const Component& c : e.components)
        if (id == c.id) return &c;
    return nullptr;
}
}  // namespace

TEST_CASE("training memory is non-decreasing in micro-batch and sequence length (ZeRO-3, ZeRO-2 + recompute, LoRA, QLoRA, pp, tp+sp)") {
    Scenario qlora = lora(1000);
    qlora.finetune.method = FineTuneMethod::QLoRA;
    qlora.train.recompute = Recompute::EveryK;
    qlora.train.recompute_every_k = 3;
    Scenario pipe = train_on(llama2_7b(), 1000);
    pipe.parallel.pp = pipe.gpu_count = 4;
    pipe.train.grad_accum_steps = 8;
    Scenario tpsp = train_on(llama2_7b(), 1000);
    tpsp.parallel.tp = tpsp.gpu_count = 2;
    tpsp.parallel.sp = true;
    tpsp.train.flash_attention = false;  // the s^2 terms too
    tpsp.train.dropout = 0.1;
    for (const Scenario& s : {zero3_full(1000), zero2_recompute(1000), lora(1000), qlora, pipe, tpsp}) {
        require_nondecreasing(s, Knob::MicroBatch, range_values(1, 64, 1));
        require_nondecreasing(s, Knob::SeqLen, range_values(1, 4096, 1));
        require_nondecreasing(s, Knob::SeqLen, range_values(4096, 131072, 509));
    }
}

TEST_CASE("largest micro-batch for training equals brute force and names an activation component") {
    for (const Scenario& s : {zero3_full(40), zero2_recompute(80), lora(48)}) {
        const SolveResult r = solve(s, Knob::MicroBatch);
        REQUIRE(r.found);
        REQUIRE_FALSE(r.at_search_bound);
        INFO(r.why);
        CHECK(r.value > 1);
        CHECK(r.value == brute_max(s, Knob::MicroBatch, 4 * r.value + 8));
        CHECK(r.estimate.fits());
        CHECK_FALSE(fits_at(s, Knob::MicroBatch, r.value + 1));
        // what grows with the micro-batch is activations or logits, never model states
        const Component* c = component(r.estimate, r.limiting_id);
        REQUIRE(c != nullptr);
        CHECK((c->category == Category::Activations || c->category == Category::Logits));
        CHECK_THAT(r.why, Catch::Contains("train.micro_batch = " + std::to_string(r.value) + " fits"));
    }
}

TEST_CASE("longest training sequence equals brute force over every length") {
    for (const Scenario& s : {zero3_full(40), lora(28)}) {
        const SolveResult r = solve(s, Knob::SeqLen);
        REQUIRE(r.found);
        REQUIRE_FALSE(r.at_search_bound);
        CHECK(r.value > 2048);
        CHECK(r.value == brute_max(s, Knob::SeqLen, r.value + 4096));
        CHECK_FALSE(fits_at(s, Knob::SeqLen, r.value + 1));
        CHECK_FALSE(r.limiting_id.empty());
    }
}

TEST_CASE("longest sequence with context parallelism searches multiples of cp only") {
    // seq must be divisible by cp (validate_training): odd lengths are invalid at cp = 2, so "fits"
    // is not monotone over all integers; the solver steps by cp and agrees with brute force over them.
    Scenario s = zero3_full(40);
    s.parallel.cp = 2;
    s.parallel.dp = 4;  // 8 GPUs = dp 4 x cp 2
    const SolveResult r = solve(s, Knob::SeqLen);
    REQUIRE(r.found);
    CHECK(r.value % 2 == 0);
    int64_t brute = 0;
    for (int64_t v = 2; v <= r.value + 4096; v += 2)
        if (fits_at(s, Knob::SeqLen, v)) brute = v;
    CHECK(r.value == brute);
    CHECK_FALSE(fits_at(s, Knob::SeqLen, r.value - 1));  // odd: invalid, not "fits"
}

TEST_CASE("with learned positions the longest sequence stops at max_position_embeddings and says so") {
    Scenario s = train_on(vl::testing::gpt2_xl_megatron(), 1000);  // max_position 1024, plenty of memory
    s.train.seq_len = 1024;
    const SolveResult r = solve(s, Knob::SeqLen);
    REQUIRE(r.found);
    CHECK(r.value == 1024);
    CHECK(r.value == brute_max(s, Knob::SeqLen, 2048));
    CHECK_THAT(r.why, Catch::Contains("max_position_embeddings"));
}

TEST_CASE("fewest GPUs for training equals exhaustive enumeration of tp x pp x ZeRO layouts") {
    // Llama-2-7b full training, bf16 mixed + AdamW (16 B/param = 108 GB of model states), b 1, s 2048,
    // on 24 GiB cards: it needs sharding (ZeRO) and/or model parallelism.
    const Scenario s = train_on(llama2_7b(), 24);
    const SolveResult r = solve(s, Knob::GpuCount, SolveOptions{1, 0, 16});
    // Brute force in the solver's documented order: fewest GPUs, then smallest tp*pp, then smaller tp,
    // then lower ZeRO stage.
    int64_t n_best = 0, tp_best = 0, pp_best = 0;
    int zero_best = -1;
    for (int64_t n = 1; n <= 16 && n_best == 0; ++n)
        for (int64_t mp = 1; mp <= n && n_best == 0; ++mp) {
            if (n % mp) continue;
            for (int64_t tp = 1; tp <= mp && n_best == 0; ++tp) {
                if (mp % tp) continue;
                for (int zero = 0; zero <= 3 && n_best == 0; ++zero) {
                    Scenario c = s;
                    c.parallel.tp = tp; c.parallel.pp = mp / tp; c.parallel.dp = n / mp; c.parallel.zero = zero;
                    c.gpu_count = n;
                    const Estimate e = estimate(c, Detail::NumbersOnly);
                    if (e.ok() && e.fits()) { n_best = n; tp_best = tp; pp_best = mp / tp; zero_best = zero; }
                }
            }
        }
    REQUIRE(n_best > 1);
    REQUIRE(r.found);
    CHECK(r.value == n_best);
    CHECK(r.scenario.parallel.tp == tp_best);
    CHECK(r.scenario.parallel.pp == pp_best);
    CHECK(r.scenario.parallel.zero == zero_best);
    CHECK(r.estimate.fits());
    CHECK_FALSE(r.limiting_id.empty());  // what did not fit on fewer GPUs
}

TEST_CASE("GPU-count solver keeps sequence parallelism only where tp > 1") {
    // With sp requested, tp = 1 layouts (pure data parallel + ZeRO) used to be skipped as invalid.
    // On 40 GiB cards the fewest GPUs are 4 with tp = 1 (the first key at that count); tp = 2 with sp also
    // fits on 4, so only the layout tells the two apart.
    Scenario s = train_on(llama2_7b(), 40);
    s.parallel.sp = true;
    s.parallel.tp = 2;
    s.gpu_count = 2;
    const SolveResult with_sp = solve(s, Knob::GpuCount, SolveOptions{1, 0, 16});
    const SolveResult without = solve(train_on(llama2_7b(), 40), Knob::GpuCount, SolveOptions{1, 0, 16});
    REQUIRE(with_sp.found);
    REQUIRE(without.found);
    REQUIRE(without.scenario.parallel.tp == 1);  // the best layout is data parallel + ZeRO
    CHECK(with_sp.value == without.value);
    CHECK(with_sp.scenario.parallel.pp == without.scenario.parallel.pp);
    CHECK(with_sp.scenario.parallel.tp == 1);
    CHECK_FALSE(with_sp.scenario.parallel.sp);
}

TEST_CASE("an impossible training request says why: 70B full fine-tune on one 24 GB card") {
    const ModelPreset* p = find_model("llama-2-70b");
    REQUIRE(p != nullptr);
    const Scenario s = train_on(p->spec, 24);
    // bf16 mixed + AdamW: fp32 m and v are 8 B/param (~550 GB), the largest single component,
    // before any activation exists (weights 2 B, master 4 B, grads 2 B per param).
    const SolveResult mb = solve(s, Knob::MicroBatch);
    CHECK_FALSE(mb.found);
    CHECK_THAT(mb.why, Catch::StartsWith("nothing fits: at train.micro_batch = 1 it needs"));
    CHECK(mb.limiting_id == "optimizer.states");
    CHECK_THAT(mb.why, Catch::Contains("largest component optimizer.states"));
    const SolveResult seq = solve(s, Knob::SeqLen);
    CHECK_FALSE(seq.found);
    CHECK(seq.limiting_id == "optimizer.states");
    const SolveResult g = solve(s, Knob::GpuCount, SolveOptions{1, 0, 1});
    CHECK_FALSE(g.found);
    CHECK_THAT(g.why, Catch::Contains("no layout of up to 1 GPUs fits"));
    CHECK(g.limiting_id == "optimizer.states");
}
