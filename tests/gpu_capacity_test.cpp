// The capacity fits compare against is the memory a CUDA process can use (cudaMemGetInfo's total,
// torch.cuda.mem_get_info()[1]), below nvidia-smi's memory.total by the driver's reserve
// [cuda-mem-get-info]. Expected values come from the readings cited in assets/presets/gpus.json
// [cuda-total-readings] and this project's H100 measurement
// (tests/data/accuracy/gpu-runs/2026-11-26-h100: FB Total 81559 MiB, Reserved 480 MiB, torch total 85017493504 B).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "estimate.h"
#include "export.h"
#include "inference_models.h"
#include "model/presets.h"
#include "planner/local.h"
#include "planner/planner.h"
#include "planner/serving.h"
#include "scenario_json.h"
#include "units.h"

using namespace vl;
using Catch::Matchers::WithinAbs;

namespace {

const GpuPreset& preset(const char* id) {
    const GpuPreset* g = find_gpu(id);
    REQUIRE(g != nullptr);
    return *g;
}

// A GiB figure printed to two decimals, as PyTorch's out-of-memory message prints the total.
double gib_2dp(double bytes) { return std::round(bytes / kGiB * 100) / 100; }

Scenario llama8b_on(const Gpu& g) {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = test::llama3_8b();
    s.infer.context = 8192;
    s.gpu = g;
    return s;
}

}  // namespace

TEST_CASE("GPU capacity: the H100 preset's usable bytes are the CUDA total measured on a lent H100") {
    const GpuPreset& h = preset("h100-80gb");
    CHECK(h.memory_bytes == 81559 * kMiB);                 // nvidia-smi FB Total 81559 MiB
    CHECK(h.cuda_total_bytes == 85017493504.0);            // torch.cuda.mem_get_info() total (env.json)
    CHECK(h.cuda_total_bytes == (81559 - 480) * kMiB);     // = FB Total - Reserved 480 MiB
    CHECK(h.gpu().usable_bytes() == 85017493504.0);
    CHECK(gib_2dp(h.cuda_total_bytes) == 79.18);           // PyTorch's "total capacity of 79.18 GiB"
}

TEST_CASE("GPU capacity: the H200 preset's usable bytes are the CUDA total measured on a lent H200") {
    // tests/data/accuracy/gpu-runs/2026-11-27-h200: env.json gpu_total_bytes 150109880320; nvidia-smi -q FB Total
    // 143771 MiB; the run's out-of-memory message: "GPU 0 has a total capacity of 139.80 GiB".
    const GpuPreset& h = preset("h200");
    CHECK(h.memory_bytes == 143771 * kMiB);
    CHECK(h.cuda_total_bytes == 150109880320.0);
    CHECK(h.memory_bytes - h.cuda_total_bytes < 616 * kMiB);  // below nvidia-smi's total by less than its 616 MiB "Reserved"
    CHECK(gib_2dp(h.cuda_total_bytes) == 139.80);
}

TEST_CASE("GPU capacity: every preset cites a CUDA total at most nvidia-smi's, as a reading or a rule") {
    for (const GpuPreset& g : gpu_presets()) {
        INFO(g.id << ": " << g.cuda_total_source);
        CHECK(g.cuda_total_bytes > 0);
        CHECK(g.cuda_total_bytes <= g.memory_bytes);
        CHECK(std::fmod(g.cuda_total_bytes, 4096) == 0);  // whole pages: a MiB figure or a byte reading
        const bool reading = g.cuda_total_source.rfind("reading", 0) == 0;
        const bool rule = g.cuda_total_source.rfind("rule, not a reading", 0) == 0;
        CHECK((reading || rule));
        CHECK(g.cuda_total_source.find("[cuda-") != std::string::npos);  // a docs/sources.md key
    }
}

TEST_CASE("GPU capacity: presets hold the published readings at their precision") {
    // deviceQuery, bytes exact.
    CHECK(preset("a100-80gb").cuda_total_bytes == 85100068864.0);  // "81158 MBytes (85100068864 bytes)"
    CHECK(preset("a10").cuda_total_bytes == 23609475072.0);        // "21.99 GBytes (23609475072 bytes)"
    CHECK(preset("t4").cuda_total_bytes == 15095 * kMiB);          // "Global Memory 15095 MBytes"
    // PyTorch's out-of-memory "total capacity", GiB to two decimals.
    CHECK(gib_2dp(preset("a100-40gb").cuda_total_bytes) == 39.50);
    CHECK(gib_2dp(preset("l40s").cuda_total_bytes) == 44.53);
    CHECK(gib_2dp(preset("v100-16gb").cuda_total_bytes) == 15.78);
    CHECK(gib_2dp(preset("v100-32gb").cuda_total_bytes) == 31.74);
    CHECK(gib_2dp(preset("rtx-3090").cuda_total_bytes) == 23.56);
    CHECK(gib_2dp(preset("rtx-4090").cuda_total_bytes) == 23.64);
    CHECK(gib_2dp(preset("rtx-5090").cuda_total_bytes) == 31.36);
    CHECK(gib_2dp(preset("rtx-3060-12gb").cuda_total_bytes) == 11.75);
    CHECK(gib_2dp(preset("rtx-4070-ti").cuda_total_bytes) == 11.70);
    // ROCm: torch's totalGlobalMem is rocm-smi's VRAM total, no reserve.
    CHECK(preset("mi300x").cuda_total_bytes == 205822885888.0);
}

TEST_CASE("GPU capacity: presets without a reading take nvidia-smi's total less the H100's 480 MiB reserve") {
    CHECK(preset("h100-pcie-80gb").cuda_total_bytes == (81559 - 480) * kMiB);
    CHECK(preset("b200").cuda_total_bytes == (183359 - 480) * kMiB);
    CHECK(preset("l4").cuda_total_bytes == (23034 - 480) * kMiB);
    CHECK(preset("rtx-4060-ti-16gb").cuda_total_bytes == (16380 - 480) * kMiB);
    CHECK(preset("a10g").cuda_total_bytes == preset("a10").cuda_total_bytes);    // the same board
    CHECK(preset("h200-nvl").cuda_total_bytes == preset("h200").cuda_total_bytes);  // the same memory
}

TEST_CASE("GPU capacity: fits and headroom compare against the CUDA total, not nvidia-smi's") {
    const double total = estimate(llama8b_on(preset("h100-80gb").gpu())).total_bytes;
    REQUIRE(total > 0);
    // A GPU whose nvidia-smi figure holds the estimate with 1 GiB to spare but whose CUDA total is one byte short
    // (named as a Hopper so that its CUDA context is the H100's).
    const Estimate over = estimate(llama8b_on(Gpu{"test H100", total + kGiB, total - 1}));
    REQUIRE(over.ok());
    CHECK(over.gpu_capacity_bytes == total - 1);
    CHECK(over.headroom_bytes() == -1);
    CHECK_FALSE(over.fits());
    const Estimate exact = estimate(llama8b_on(Gpu{"test H100", total + kGiB, total}));
    CHECK(exact.headroom_bytes() == 0);
    CHECK(exact.fits());
    // A custom GPU (no CUDA total given): the memory typed is the CUDA total.
    const Estimate custom = estimate(llama8b_on(Gpu{"Custom GPU", total, 0}));
    CHECK(custom.gpu_capacity_bytes == total);
    CHECK(custom.fits());
}

TEST_CASE("GPU capacity: the H100 preset's capacity is 79.18 GiB and the output names the driver's reserve") {
    const Scenario s = llama8b_on(preset("h100-80gb").gpu());
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(e.gpu_capacity_bytes == 85017493504.0);
    CHECK(e.gpu_usable_bytes == 85017493504.0);
    CHECK(e.gpu_reported_bytes == 85520809984.0);  // 81559 MiB
    // 480 MiB = 0.47 GiB (0.46875).
    const std::string text = export_estimate(s, e, ExportFormat::Table);
    CHECK(text.find("GPU memory 79.18 GiB usable (what CUDA reports; nvidia-smi 79.65 GiB, 0.47 GiB reserved by the driver)") != std::string::npos);
}

TEST_CASE("GPU capacity: vLLM's budget is gpu_memory_utilization times the CUDA total, the CUDA context beside it") {
    Scenario s = llama8b_on(preset("h100-80gb").gpu());
    s.infer.engine = Engine::VLLM;
    s.infer.gpu_memory_utilization = 0.9;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // The budget, 0.9 x 85017493504 B = 76515744153.6 B = 71.26 GiB, holds weights, the profile peak, the
    // non-torch increase and the KV pool; the H100's context after PyTorch inference, 745 MiB = 781189120 B,
    // lies beside it (vLLM >= 0.9.1 [vllm-budget]).
    CHECK_THAT(e.gpu_capacity_bytes, WithinAbs(0.9 * 85017493504.0 + 781189120.0, 1));
    CHECK(e.total_bytes - 781189120.0 <= 0.9 * 85017493504.0);
    CHECK(e.total_bytes - 781189120.0 > 0.9 * 85017493504.0 - 16 * 131072.0);  // the pool fills the budget to a block
    // At 0.995 the budget and the context exceed the GPU: vLLM refuses to start ("Free memory on device ... is
    // less than desired GPU memory utilization").
    s.infer.gpu_memory_utilization = 0.995;
    const Estimate full = estimate(s);
    REQUIRE(full.ok());
    CHECK(full.gpu_capacity_bytes == 85017493504.0);
    CHECK_FALSE(full.fits());
}

TEST_CASE("GPU capacity: the llama.cpp planner sizes a preset GPU by its CUDA total") {
    Scenario s;
    s.mode = Mode::Local;
    s.model = test::llama3_8b();
    s.local.gpus = {"rtx-4090"};
    PlanInput in;
    ServingPlanInput sin;
    REQUIRE(local_inputs(s, in, sin).empty());
    REQUIRE(in.gpus.size() == 1);
    CHECK(in.gpus[0].memory_bytes == 24207 * kMiB);  // 23.64 GiB read from PyTorch, not nvidia-smi's 24564 MiB
}

TEST_CASE("GPU capacity: scenario JSON keeps the preset's CUDA total and a custom GPU's typed figure") {
    const Result<Scenario> by_id = scenario_from_json(R"({"version":1,"gpu":"l40s"})");
    REQUIRE(by_id.ok());
    CHECK(by_id->gpu.usable_bytes() == 45599 * kMiB);
    // An object with a preset's name and nvidia-smi total (what older files and `--set gpu.x` wrote) is that preset.
    const GpuPreset& l40s = preset("l40s");
    const std::string as_object = R"({"version":1,"gpu":{"name":")" + l40s.name + R"(","memory_bytes":48305799168}})";
    const Result<Scenario> old = scenario_from_json(as_object);
    REQUIRE(old.ok());
    CHECK(old->gpu.usable_bytes() == 45599 * kMiB);
    // Any other object is a custom GPU: its memory_bytes is what CUDA reports.
    const Result<Scenario> custom = scenario_from_json(R"({"version":1,"gpu":{"name":"My GPU","memory_bytes":25769803776}})");
    REQUIRE(custom.ok());
    CHECK(custom->gpu.usable_bytes() == 25769803776.0);
    // Round trip: a preset is written as its id.
    CHECK(scenario_to_json(*by_id, JsonStyle::Compact).find(R"("gpu":"l40s")") != std::string::npos);
}
