// Levers (core/solvers.h fit_levers): the single changes that make a scenario fit, each offered only when its
// own estimate fits. Which levers can and cannot help is derived by hand from the model's bytes.
#include <catch2/catch.hpp>

#include <algorithm>

#include "inference_models.h"
#include "solvers.h"

using namespace vl;

namespace {
const Lever* lever(const std::vector<Lever>& ls, const std::string& id) {
    auto it = std::find_if(ls.begin(), ls.end(), [&](const Lever& l) { return l.id == id; });
    return it == ls.end() ? nullptr : &*it;
}
void every_lever_fits(const std::vector<Lever>& ls) {
    for (const Lever& l : ls) {
        INFO(l.id << ": " << l.label);
        const Estimate e = estimate(l.scenario, Detail::NumbersOnly);
        CHECK(e.ok());
        CHECK(e.fits());
        CHECK(l.total_bytes <= l.capacity_bytes);
    }
}
}  // namespace

TEST_CASE("levers: a full fine-tune of an 8B model on one 24 GiB GPU fits as QLoRA or on more GPUs, not by recomputation") {
    Scenario s;
    s.mode = Mode::FineTune;
    s.model = test::llama3_8b();  // 8,030,261,248 parameters
    s.finetune.method = FineTuneMethod::Full;
    s.train.precision = Precision::MixedBF16;
    s.train.optimizer = Optimizer::AdamW;
    s.train.micro_batch = 1;
    s.train.seq_len = 2048;
    s.gpu = {"24 GiB", 24.0 * 1024 * 1024 * 1024};
    s.gpu_count = 1;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    REQUIRE_FALSE(e.fits());  // 16 B per parameter of model states alone: 128.5 GB
    const std::vector<Lever> ls = fit_levers(s, e, fit_answers(s, e));
    every_lever_fits(ls);
    // QLoRA: 4-bit base weights (~4.5 GB) and a small adapter: fits.
    CHECK(lever(ls, "qlora"));
    // Model states do not change with recomputation or FlashAttention: neither is offered.
    CHECK_FALSE(lever(ls, "recompute_full"));
    CHECK_FALSE(lever(ls, "flash_attention"));
    // ZeRO-Offload still keeps bf16 weights and gradients on the GPU: 2 x 16.06 GB = 32.1 GB > 24 GiB.
    CHECK_FALSE(lever(ls, "zero_offload"));
    // One GPU: no data-parallel ranks to shard over.
    CHECK_FALSE(lever(ls, "zero3"));
    // More GPUs at ZeRO 0 shard only by tensor/pipeline parallelism: at least 128.5 GB / 25.77 GB = 5 GPUs;
    // another ZeRO stage (sharding the states over data-parallel ranks too) is never worse.
    const Lever* kept = lever(ls, "gpus");
    REQUIRE(kept);
    CHECK(kept->scenario.gpu_count >= 5);
    CHECK(kept->scenario.parallel.zero == 0);
    if (const Lever* any = lever(ls, "gpus_any_zero")) CHECK(any->scenario.gpu_count < kept->scenario.gpu_count);
    // A scenario that fits has no levers.
    Scenario q = ls.front().scenario;
    const Estimate eq = estimate(q);
    CHECK(fit_levers(q, eq, fit_answers(q, eq)).empty());
}

TEST_CASE("levers: an 8B model in bf16 on a 12 GiB GPU needs smaller weights or two GPUs, not a smaller KV cache") {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = test::llama3_8b();
    s.infer.engine = Engine::Transformers;
    s.infer.weights = WeightFormat::BF16;
    s.infer.context = 4096;
    s.infer.batch = 1;
    s.gpu = {"12 GiB", 12.0 * 1024 * 1024 * 1024};
    s.gpu_count = 1;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    REQUIRE_FALSE(e.fits());  // bf16 weights: 2 x 8,030,261,248 = 16.06 GB = 14.96 GiB > 12 GiB
    const std::vector<Lever> ls = fit_levers(s, e, fit_answers(s, e));
    every_lever_fits(ls);
    CHECK(lever(ls, "weights"));
    // The weights alone exceed the GPU: no KV cache type, context or batch helps.
    CHECK_FALSE(lever(ls, "kv_int8"));
    CHECK_FALSE(lever(ls, "context"));
    CHECK_FALSE(lever(ls, "batch"));
    // Two GPUs with tensor parallelism: 7.48 GiB of weights each, with 4.5 GiB left for the rest.
    const Lever* g = lever(ls, "gpus");
    REQUIRE(g);
    CHECK(g->scenario.gpu_count == 2);
    CHECK(g->scenario.parallel.tp * g->scenario.parallel.pp == 2);
}

TEST_CASE("levers: vLLM is offered an fp8 KV cache, the type it takes, never int8") {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = test::llama3_8b();  // KV per token: 2 x 32 layers x 8 heads x 128 x 2 B = 128 KiB in bf16
    s.infer.engine = Engine::VLLM;
    s.infer.weights = WeightFormat::BF16;  // 16.06 GB = 14.96 GiB
    s.infer.kv_dtype = KvDtype::BF16;
    s.infer.context = 8192;
    s.infer.batch = 16;  // 131,072 tokens: 16 GiB of bf16 KV, 8 GiB in fp8
    s.gpu = {"32 GiB", 32.0 * 1024 * 1024 * 1024};
    s.gpu_count = 1;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // 14.96 + 16 GiB > 0.9 x 32 GiB = 28.8 GiB before anything else: cannot fit.
    REQUIRE_FALSE(e.fits());
    const std::vector<Lever> ls = fit_levers(s, e, fit_answers(s, e));
    every_lever_fits(ls);
    CHECK_FALSE(lever(ls, "kv_int8"));
    // fp8 halves the KV: 14.96 + 8 GiB leaves 5.8 GiB of the 28.8 GiB for activations and the engine.
    const Lever* fp8 = lever(ls, "kv_fp8");
    REQUIRE(fp8);
    CHECK(fp8->scenario.infer.kv_dtype == KvDtype::FP8);
}

TEST_CASE("levers: llama.cpp's 8-bit KV lever turns on flash attention, which llama.cpp needs to quantize the V cache") {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = test::llama3_8b();
    s.infer.engine = Engine::LlamaCpp;
    s.infer.weights = WeightFormat::GGUF_Q8_0;  // 8.5 bits per weight: 7.95 GiB
    s.infer.kv_dtype = KvDtype::FP16;
    s.infer.flash_attention = false;
    s.infer.context = 8192;
    s.infer.batch = 8;  // 65,536 cells: 8 GiB of f16 KV, 4.25 GiB in q8_0 (8.5 bits)
    s.gpu = {"16 GiB", 16.0 * 1024 * 1024 * 1024};
    s.gpu_count = 1;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    REQUIRE_FALSE(e.fits());  // 7.95 + 8 GiB of weights and KV alone leave 0.05 GiB for the compute buffer
    const std::vector<Lever> ls = fit_levers(s, e, fit_answers(s, e));
    every_lever_fits(ls);
    const Lever* q8 = lever(ls, "kv_int8");
    REQUIRE(q8);
    CHECK(q8->scenario.infer.kv_dtype == KvDtype::INT8);
    CHECK(q8->scenario.infer.flash_attention);
}
