// llama.cpp's sliding-window KV cache (core/inference/kv_cache.h llamacpp_uses_swa): which
// architectures get it, and its size, GGML_PAD(min(n_ctx, n_swa + n_ubatch), 256) cells per sequence on
// the window layers [llama-cpp-swa]. Expected bytes are derived by hand from the presets' configs.
#include <catch2/catch.hpp>

#include <string>

#include "estimate.h"
#include "model/presets.h"
#include "planner/planner.h"

using namespace vl;

namespace {
Scenario llamacpp(const char* preset, int64_t ctx, int64_t ubatch, int64_t batch = 1) {
    Scenario s;
    s.mode = Mode::Infer;
    const ModelPreset* p = find_model(preset);
    REQUIRE(p);
    s.model = p->spec;
    s.infer.engine = Engine::LlamaCpp;
    s.infer.weights = WeightFormat::GGUF_Q4_K_M;
    s.infer.kv_dtype = KvDtype::FP16;
    s.infer.context = ctx;
    s.infer.ubatch = ubatch;
    s.infer.batch = batch;
    return s;
}

double kv_bytes(const Scenario& s) {
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    for (const Component& c : e.components)
        if (std::string(c.id) == "kv_cache") return c.bytes;
    FAIL("no kv_cache component");
    return 0;
}
}  // namespace

TEST_CASE("llama.cpp SWA: Gemma 3 27B's window layers hold n_swa + n_ubatch cells, padded to 256") {
    // 62 layers, every 6th global: 10 full, 52 window (1024); 16 KV heads of 128, f16: 8192 B per cell and layer.
    // -c 32768 -ub 512: 10 * 32768 + 52 * 1536 = 407552 cells -> 3,338,665,984 B.
    CHECK(kv_bytes(llamacpp("gemma-3-27b", 32768, 512)) == 407552.0 * 8192);
    // -ub 256: 1024 + 256 = 1280 cells (a multiple of 256, no pad).
    CHECK(kv_bytes(llamacpp("gemma-3-27b", 32768, 256)) == (10.0 * 32768 + 52 * 1280) * 8192);
    // -ub 100: 1124 pads to 1280.
    CHECK(kv_bytes(llamacpp("gemma-3-27b", 32768, 100)) == (10.0 * 32768 + 52 * 1280) * 8192);
    // A context below the window: every layer holds the context.
    CHECK(kv_bytes(llamacpp("gemma-3-27b", 1024, 512)) == 62.0 * 1024 * 8192);
    // Two sequences (-np 2): the cells are per sequence.
    CHECK(kv_bytes(llamacpp("gemma-3-27b", 32768, 512, 2)) == 2 * 407552.0 * 8192);
    // --swa-full: every layer holds n_ctx.
    Scenario full = llamacpp("gemma-3-27b", 32768, 512);
    full.infer.sliding_window_cache = false;
    CHECK(kv_bytes(full) == 62.0 * 32768 * 8192);
}

TEST_CASE("llama.cpp SWA: Gemma 2 9B alternates window and full layers") {
    // 42 layers, every 2nd global: 21 full, 21 window (4096); 8 KV heads of 256, f16: 8192 B per cell and layer.
    // -c 16384 -ub 512: 21 * 16384 + 21 * 4608 = 440832 cells.
    CHECK(kv_bytes(llamacpp("gemma-2-9b", 16384, 512)) == 440832.0 * 8192);
}

TEST_CASE("llama.cpp SWA: Mistral 7B v0.1 and Phi-3 keep every token on every layer (no window in llama.cpp)") {
    // Mistral-7B-v0.1: sliding_window 4096 in its config, but LLM_ARCH_LLAMA has none: 32 layers * 32768 cells
    // * 8 KV heads * 128 * 2 (K, V) * 2 B = 4 GiB (the estimate said 0.5 GiB before, capping at the window).
    CHECK(kv_bytes(llamacpp("mistral-7b", 32768, 512)) == 32.0 * 32768 * 8 * 128 * 2 * 2);
    // Phi-3-mini-4k: sliding_window 2047, disabled in llama.cpp (PR #13676): 32 layers * 4096 cells * 32 heads * 96 * 2 * 2 B.
    CHECK(kv_bytes(llamacpp("phi-3-mini-4k", 4096, 512)) == 32.0 * 4096 * 32 * 96 * 2 * 2);
}

TEST_CASE("llama.cpp SWA: the planner places the same window-sized cache, and refuses an encoder") {
    PlanInput in;
    in.model = find_model("gemma-3-27b")->spec;
    in.weights = WeightFormat::GGUF_Q4_K_M;
    in.context = 32768;
    in.ubatch = 512;
    in.ram_bytes = 64.0 * (1 << 30);
    in.gpus.push_back({"RTX 4090", 24.0 * (1 << 30), 0});
    const Plan p = plan_llamacpp(in);
    REQUIRE(p.ok());
    double kv = p.cpu.kv;
    for (const DevicePlan& d : p.gpus) kv += d.kv;
    CHECK(kv == 407552.0 * 8192);  // as the estimate: 10 * 32768 + 52 * 1536 cells of 8192 B

    in.model.encoder = true;
    in.model.model_type = "bert";
    CHECK(plan_llamacpp(in).error.rfind("model: bert is an encoder", 0) == 0);
}
