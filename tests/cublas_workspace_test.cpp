// PyTorch's cuBLAS workspaces (core/cublas_workspace.h): sizes from CublasHandlePool.cpp's constants
// [pytorch-cublas-handle-pool], derived here by hand, and the handles a run holds (the forward's thread and, in
// training, the autograd engine's device thread [pytorch-autograd-engine]).
#include <catch2/catch.hpp>

#include <limits>
#include <string>

#include "component_lookup.h"
#include "cublas_workspace.h"
#include "estimate.h"
#include "inference_models.h"
#include "units.h"

using namespace vl;

namespace {

Scenario on_gpu(Mode mode, const char* gpu_name) {
    Scenario s;
    s.mode = mode;
    s.model = mode == Mode::Infer ? test::llama3_8b() : test::llama2_7b();
    s.gpu.name = gpu_name;
    s.gpu.memory_bytes = 1e15;  // room for any run: the component is read, not the fit
    return s;
}

}  // namespace

TEST_CASE("CUBLAS_WORKSPACE_CONFIG read as PyTorch reads it: every :SIZE:COUNT adds SIZE KiB x COUNT") {
    // The pre-Hopper default ":4096:2:16:8": 4096 x 1024 x 2 + 16 x 1024 x 8 = 8,388,608 + 131,072 = 8,519,680 B.
    CHECK(parse_cublas_workspace_config(":4096:2:16:8") == 8519680.0);
    // Hopper's ":4096:8": 4096 x 1024 x 8 = 33,554,432 B (32 MiB).
    CHECK(parse_cublas_workspace_config(":4096:8") == 33554432.0);
    // The deterministic-algorithms setting ":16:8": 16 x 1024 x 8 = 131,072 B.
    CHECK(parse_cublas_workspace_config(":16:8") == 131072.0);
    // The regex finds its matches anywhere in the text: "x:1:1y:2:3" is 1 KiB x 1 + 2 KiB x 3 = 7,168 B.
    CHECK(parse_cublas_workspace_config("x:1:1y:2:3") == 7168.0);
    // No ":SIZE:COUNT" at all: PyTorch warns and keeps its default, so there is nothing to read.
    CHECK_FALSE(parse_cublas_workspace_config("4096:8").has_value());
    CHECK_FALSE(parse_cublas_workspace_config(":4096").has_value());
    CHECK_FALSE(parse_cublas_workspace_config("").has_value());
    CHECK_FALSE(parse_cublas_workspace_config(":99999999999999999:8").has_value());
}

TEST_CASE("the default workspace per handle and stream follows the GPU's architecture") {
    // [pytorch-issue-95668]: PyTorch 2.0 on an A10G keeps 8,519,680 B allocated after one Linear forward.
    CHECK(cublas_workspace_default("NVIDIA A10G 24GB (AWS)") == 8519680.0);
    CHECK(cublas_workspace_default("NVIDIA A100 80GB (SXM4)") == 8519680.0);
    CHECK(cublas_workspace_default("NVIDIA GeForce RTX 4090 24GB") == 8519680.0);
    CHECK(cublas_workspace_default("NVIDIA V100 16GB (SXM2)") == 8519680.0);
    CHECK(cublas_workspace_default("my custom card") == 8519680.0);
    // sm90: 4096 KiB x 8 = 32 MiB; Blackwell from [pytorch-pr175344].
    CHECK(cublas_workspace_default("NVIDIA H100 80GB HBM3 (SXM5)") == 32 * kMiB);
    CHECK(cublas_workspace_default("NVIDIA H200 141GB (SXM)") == 32 * kMiB);
    CHECK(cublas_workspace_default("NVIDIA B200 180GB") == 32 * kMiB);
    // ROCm: 128 MiB on gfx942 (MI300X), 32 MiB elsewhere.
    CHECK(cublas_workspace_default("AMD Instinct MI300X 192GB") == 128 * kMiB);
    CHECK(cublas_workspace_default("AMD Instinct MI250X 128GB") == 32 * kMiB);
}

TEST_CASE("training holds two workspaces (forward thread, autograd device thread), inference one") {
    // Training on an A100: 2 handles x 8,519,680 B = 17,039,360 B, from the forward on, not at load.
    const Estimate train = estimate(on_gpu(Mode::Train, "NVIDIA A100 80GB (SXM4)"));
    const Component* t = test::find(train, "buffers.cublas_workspace");
    REQUIRE(t != nullptr);
    CHECK(t->bytes == 17039360.0);
    CHECK((t->phases & phase_bit(Phase::Load)) == 0);
    CHECK((t->phases & phase_bit(Phase::Backward)) != 0);
    CHECK((t->phases & phase_bit(Phase::Step)) != 0);
    // Transformers inference on an H100: 1 handle x 32 MiB = 33,554,432 B.
    const Estimate infer = estimate(on_gpu(Mode::Infer, "NVIDIA H100 80GB HBM3 (SXM5)"));
    CHECK(test::bytes_of(infer, "buffers.cublas_workspace") == 33554432.0);
    // A LoRA fine-tune runs the same two threads: 2 x 32 MiB = 67,108,864 B on an H100.
    Scenario ft = on_gpu(Mode::FineTune, "NVIDIA H100 80GB HBM3 (SXM5)");
    CHECK(test::bytes_of(estimate(ft), "buffers.cublas_workspace") == 67108864.0);
}

TEST_CASE("overheads.cublas_workspace_bytes: given bytes per handle, 0 for none, a bad number names the field") {
    Scenario s = on_gpu(Mode::Train, "NVIDIA H100 80GB HBM3 (SXM5)");
    // CUBLAS_WORKSPACE_CONFIG=:16:8 (deterministic runs): 2 handles x 131,072 B = 262,144 B.
    s.overheads.cublas_workspace_bytes = 131072;
    CHECK(test::bytes_of(estimate(s), "buffers.cublas_workspace") == 262144.0);
    s.overheads.cublas_workspace_bytes = 0;
    CHECK(test::find(estimate(s), "buffers.cublas_workspace") == nullptr);
    s.overheads.cublas_workspace_bytes = -1;
    CHECK_FALSE(test::has_error(estimate(s), "overheads.cublas_workspace_bytes"));
    s.overheads.cublas_workspace_bytes = std::numeric_limits<double>::quiet_NaN();
    CHECK(test::has_error(estimate(s), "overheads.cublas_workspace_bytes", "must be a byte count up to 1e12"));
    s.overheads.cublas_workspace_bytes = std::numeric_limits<double>::infinity();
    CHECK(test::has_error(estimate(s), "overheads.cublas_workspace_bytes", "must be a byte count up to 1e12"));
    s.overheads.cublas_workspace_bytes = 2e12;
    CHECK(test::has_error(estimate(s), "overheads.cublas_workspace_bytes", "must be a byte count up to 1e12"));
}

TEST_CASE("engines that measure their own torch peak or are not PyTorch get no cuBLAS workspace component") {
    for (Engine engine : {Engine::VLLM, Engine::LlamaCpp}) {
        Scenario s = on_gpu(Mode::Infer, "NVIDIA H100 80GB HBM3 (SXM5)");
        s.infer.engine = engine;
        const Estimate e = estimate(s);
        REQUIRE(e.errors.empty());
        CHECK(test::find(e, "cuda_context") != nullptr);  // an estimate with components, none of them the workspace
        CHECK(test::find(e, "buffers.cublas_workspace") == nullptr);
    }
}
