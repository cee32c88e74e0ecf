// The CUDA context table (issue 14, mechanism 1): each row is a published measurement of what a
// framework process holds on a GPU before any model (docs/sources.md names them); the architecture
// comes from the GPU's name; overheads.cuda_context_bytes >= 0 replaces the table.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "cuda_context.h"
#include "estimate.h"
#include "inference_models.h"
#include "units.h"

using namespace vl;

namespace {

double component_bytes(const Estimate& e, const char* id) {
    for (const Component& c : e.components)
        if (std::string(c.id) == id) return c.bytes;
    FAIL("no component " << id);
    return 0;
}

const Component* component(const Estimate& e, const char* id) {
    for (const Component& c : e.components)
        if (std::string(c.id) == id) return &c;
    return nullptr;
}

bool has_error(const Scenario& s, const char* field) {
    for (const FieldError& e : validate(s))
        if (e.field == field) return true;
    return false;
}

Scenario infer_on(const char* gpu_name, bool lazy) {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = test::llama3_8b();
    s.gpu.name = gpu_name;
    s.overheads.cuda_lazy_loading = lazy;
    return s;
}

}  // namespace

TEST_CASE("GPU architecture from the presets' names") {
    CHECK(gpu_arch("NVIDIA V100 16GB (SXM2)") == GpuArch::Volta);
    CHECK(gpu_arch("NVIDIA T4 16GB") == GpuArch::Turing);
    CHECK(gpu_arch("NVIDIA A100 80GB (SXM4)") == GpuArch::Ampere);
    CHECK(gpu_arch("NVIDIA A10G 24GB (AWS)") == GpuArch::Ampere);
    CHECK(gpu_arch("NVIDIA A40 48GB") == GpuArch::Ampere);
    CHECK(gpu_arch("NVIDIA GeForce RTX 3090 24GB") == GpuArch::Ampere);
    CHECK(gpu_arch("NVIDIA L4 24GB") == GpuArch::Ada);
    CHECK(gpu_arch("NVIDIA L40S 48GB") == GpuArch::Ada);
    CHECK(gpu_arch("NVIDIA GeForce RTX 4090 24GB") == GpuArch::Ada);
    CHECK(gpu_arch("NVIDIA H100 80GB HBM3 (SXM5)") == GpuArch::Hopper);
    CHECK(gpu_arch("NVIDIA H200 NVL 141GB") == GpuArch::Hopper);
    CHECK(gpu_arch("NVIDIA H20 96GB") == GpuArch::Hopper);
    CHECK(gpu_arch("NVIDIA B200 180GB") == GpuArch::Blackwell);
    CHECK(gpu_arch("NVIDIA GeForce RTX 5090 32GB") == GpuArch::Blackwell);
    CHECK(gpu_arch("AMD Instinct MI300X 192GB") == GpuArch::AMD);
    CHECK(gpu_arch("my custom card") == GpuArch::Unknown);
}

TEST_CASE("CUDA context table: eager module loading by architecture, lazy loading for all (published measurements)") {
    // CUDA < 11.7 loaded every kernel with its library: V100 + CUDA 11.2 showed 1343 MiB after
    // torch.ones((1, 1)).to("cuda") [hf-perf-train-gpu-one]; RTX 3090 + cu111 1687 MiB, GTX 1080 +
    // cu101 721 MiB [pytorch-issue-55277].
    CHECK(cuda_context_bytes(infer_on("NVIDIA V100 16GB (SXM2)", false)) == 1343 * kMiB);
    CHECK(cuda_context_bytes(infer_on("NVIDIA GeForce RTX 3090 24GB", false)) == 1687 * kMiB);
    CHECK(cuda_context_bytes(infer_on("NVIDIA GeForce GTX 1080", false)) == 721 * kMiB);
    // No Turing measurement: the largest eager-loading one, never a smaller guess.
    CHECK(cuda_context_bytes(infer_on("NVIDIA T4 16GB", false)) == 1687 * kMiB);
    // Lazy loading (CUDA >= 11.7, PyTorch >= 1.13's default): 512 MiB where no architecture row was measured.
    CHECK(cuda_context_bytes(infer_on("NVIDIA V100 16GB (SXM2)", true)) == 512 * kMiB);
    // An H100 (CUDA 13.0, PyTorch 2.11) after the work was run, nvidia-smi used - torch reserved: at most
    // 745 MiB after Transformers generate, 767 MiB after training steps [vramlens-h100-runs].
    CHECK(cuda_context_bytes(infer_on("NVIDIA H100 80GB HBM3 (SXM5)", true)) == 745 * kMiB);
    Scenario train_h100 = infer_on("NVIDIA H100 80GB HBM3 (SXM5)", true);
    train_h100.mode = Mode::Train;
    CHECK(cuda_context_bytes(train_h100) == 767 * kMiB);
    train_h100.mode = Mode::FineTune;
    CHECK(cuda_context_bytes(train_h100) == 767 * kMiB);
    // llama.cpp is not PyTorch: no H100 row for it, the lazy-loading row.
    Scenario lcpp = infer_on("NVIDIA H100 80GB HBM3 (SXM5)", true);
    lcpp.infer.engine = Engine::LlamaCpp;
    CHECK(cuda_context_bytes(lcpp) == 512 * kMiB);
    // A B200 under vLLM: 177.66 of 178.36 GiB free at its start-up snapshot, 0.70 GiB [vllm-pr21489].
    CHECK(cuda_context_bytes(infer_on("NVIDIA B200 180GB", true)) == Approx(0.70 * kGiB));
    // Eager loading on an H100: no row, the largest eager measurement.
    CHECK(cuda_context_bytes(infer_on("NVIDIA H100 80GB HBM3 (SXM5)", false)) == 1687 * kMiB);
    // A number given replaces the table.
    Scenario given = infer_on("NVIDIA V100 16GB (SXM2)", false);
    given.overheads.cuda_context_bytes = 0.25 * kGiB;
    CHECK(cuda_context_bytes(given) == 0.25 * kGiB);
}

TEST_CASE("the context row shows in the derivation, in inference and in training") {
    const Estimate v100 = estimate(infer_on("NVIDIA V100 16GB (SXM2)", false));
    CHECK(component_bytes(v100, "cuda_context") == 1343 * kMiB);
    const Component* c = component(v100, "cuda_context");
    REQUIRE(c != nullptr);
    CHECK_THAT(c->source, Catch::Contains("Volta, eager module loading"));
    CHECK_THAT(std::string(c->substituted()), Catch::StartsWith("1,408,237,568"));
    Scenario train = infer_on("NVIDIA V100 16GB (SXM2)", false);
    train.mode = Mode::Train;
    train.model = test::llama2_7b();
    train.gpu.memory_bytes = 1e15;
    CHECK(component_bytes(estimate(train), "overhead.cuda_context") == 1343 * kMiB);
}

TEST_CASE("overheads.cuda_context_bytes: below 0 picks the table, a bad number names the field") {
    Scenario s = infer_on("NVIDIA H100 80GB HBM3 (SXM5)", true);
    s.overheads.cuda_context_bytes = -1;
    CHECK_FALSE(has_error(s, "overheads.cuda_context_bytes"));
    s.overheads.cuda_context_bytes = std::numeric_limits<double>::quiet_NaN();
    CHECK(has_error(s, "overheads.cuda_context_bytes"));
    s.overheads.cuda_context_bytes = -std::numeric_limits<double>::infinity();
    CHECK(has_error(s, "overheads.cuda_context_bytes"));
    s.overheads.cuda_context_bytes = 2e12;
    CHECK(has_error(s, "overheads.cuda_context_bytes"));
}
