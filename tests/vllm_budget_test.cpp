// vLLM's memory budget by release (core/inference/vllm_budget.h): which memory gpu_memory_utilization x
// the CUDA total holds and which lies beside it, from vLLM's determine_available_memory at each release
// [vllm-budget]. Byte values by hand: 0.16 GiB = 171,798,691.84 B (the non-torch increase vLLM 0.7 logged on
// an H100 [vllm-pr12126]); NCCL communicators as tests/nccl_test.cpp derives them; an H100's CUDA context after PyTorch inference, 745 MiB = 781,189,120 B [vramlens-h100-runs].
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>

#include "estimate.h"
#include "inference/runtime.h"
#include "inference/vllm_budget.h"
#include "inference_models.h"
#include "component_lookup.h"

using namespace vl;
using test::bytes_of;
using test::find;
using test::has_error;

namespace {

constexpr double kIncrease = 171798691.84;
constexpr double kOneMiB = 1048576.0;
constexpr double kH100Context = 781189120.0;
constexpr double kH100Total = 85017493504.0;  // cudaMemGetInfo's total on the H100 80GB HBM3 measured here

double weights_of(const Estimate& e) {
    double b = 0;
    for (const Component& c : e.components)
        if (std::strncmp(c.id, "weights", 7) == 0) b += c.bytes;
    return b;
}

// Meta-Llama-3-8B in bf16 on H100s, max_model_len 8192, at a vLLM release.
Scenario llama3_8b_on_h100(const char* version, int64_t tp = 1) {
    Scenario s = test::llama3_8b_serving(Engine::VLLM, WeightFormat::BF16, KvDtype::BF16);
    s.gpu.name = "NVIDIA H100 80GB HBM3";
    s.gpu.memory_bytes = kH100Total;
    s.gpu.cuda_total_bytes = 0;
    s.infer.gpu_memory_utilization = 0.9;
    s.infer.vllm_version = version;
    s.parallel.tp = tp;
    s.gpu_count = tp;
    return s;
}

std::optional<VllmBudget> rule(const char* version) {
    const std::optional<VllmRelease> r = parse_vllm_version(version);
    REQUIRE(r.has_value());
    return vllm_budget(*r);
}

}  // namespace

TEST_CASE("vLLM releases read as vllm --version prints them") {
    const std::optional<VllmRelease> a = parse_vllm_version("0.6.5");
    REQUIRE(a);
    CHECK((a->major == 0 && a->minor == 6 && a->patch == 5));
    const std::optional<VllmRelease> b = parse_vllm_version("v0.10.1.post1");
    REQUIRE(b);
    CHECK((b->minor == 10 && b->patch == 1));
    const std::optional<VllmRelease> c = parse_vllm_version("0.21.0rc1");
    REQUIRE(c);
    CHECK((c->minor == 21 && c->patch == 0));
    const std::optional<VllmRelease> d = parse_vllm_version("0.11");
    REQUIRE(d);
    CHECK((d->minor == 11 && d->patch == 0));
    for (const char* bad : {"latest", "", "1", ".5", "0.", "v", "0.1234567"}) CHECK_FALSE(parse_vllm_version(bad).has_value());
}

TEST_CASE("vLLM's budget rule by release") {
    CHECK_FALSE(rule("0.2.4").has_value());  // torch's allocated peak alone: not modelled
    CHECK(rule("0.2.5") == VllmBudget::WholeDevice);          // #2031: util x total - (total - free)
    CHECK(rule("0.3.0") == VllmBudget::WholeDevice);
    CHECK(rule("0.3.1") == VllmBudget::Instance);             // #2863: per-instance snapshot
    CHECK(rule("0.6.3") == VllmBudget::Instance);
    CHECK(rule("0.6.4.post1") == VllmBudget::WholeDevice);    // #9352
    CHECK(rule("0.6.5") == VllmBudget::Instance);             // #10511
    CHECK(rule("0.7.3") == VllmBudget::Instance);
    CHECK(rule("0.8.0") == VllmBudget::WholeDevice);          // V1 by default
    CHECK(rule("0.9.0") == VllmBudget::WholeDevice);
    CHECK(rule("0.9.1") == VllmBudget::Instance);             // #18974, #19312
    CHECK(rule("0.10.2") == VllmBudget::Instance);
    CHECK(rule("0.11.0") == VllmBudget::InstanceAfterNccl);   // #25359
    CHECK(rule("0.20.1") == VllmBudget::InstanceAfterNccl);
    CHECK(rule("0.21.0") == VllmBudget::InstanceGraphs);      // #38284
    CHECK(rule("1.0") == VllmBudget::InstanceGraphs);
}

TEST_CASE("vLLM 0.11: the CUDA context lies beside the budget, the non-torch increase inside") {
    const Estimate e = estimate(llama3_8b_on_h100("0.11"));
    REQUIRE(e.ok());
    const double requested = 0.9 * kH100Total;  // 76,515,744,153.6 B
    CHECK(bytes_of(e, "engine.non_torch") == Approx(kIncrease));
    CHECK(bytes_of(e, "cuda_context") == Approx(kH100Context));
    CHECK(find(e, "engine.nccl") == nullptr);  // tp 1
    CHECK(e.gpu_capacity_bytes == Approx(requested + kH100Context));
    // The KV pool is what the budget leaves, in whole blocks of 16 tokens x 131,072 B.
    // vLLM's rotary cos/sin table, max_position_embeddings 8192 x head_dim 128 in bf16, also comes out of the budget.
    const double rope = 8192.0 * 128 * 2;
    CHECK(bytes_of(e, "buffers.rope_cache") == rope);
    const double left = requested - weights_of(e) - rope - kIncrease - bytes_of(e, "act.profile_peak");
    CHECK(weights_of(e) == Approx(8030261248.0 * 2));  // Meta-Llama-3-8B in bf16
    CHECK(e.kv.pool_bytes == Approx(std::floor(left / (16 * 131072.0)) * 16 * 131072.0));
    CHECK(e.fits());
}

TEST_CASE("vLLM 0.6.4 and V1 before 0.9.1: the whole device in the budget") {
    for (const char* v : {"0.6.4", "0.8.5"}) {
        const Estimate e = estimate(llama3_8b_on_h100(v));
        REQUIRE(e.ok());
        CHECK(bytes_of(e, "engine.non_torch") == Approx(kIncrease + kH100Context));
        CHECK(find(e, "cuda_context") == nullptr);
        CHECK(e.gpu_capacity_bytes == Approx(0.9 * kH100Total));
    }
}

TEST_CASE("vLLM's NCCL buffers: inside the budget before 0.11, the PyNccl ones beside it from 0.11") {
    // tp 2 on an H100 whose name is no preset (interconnect unknown: taken as NVSwitch, 24 channels): one
    // communicator of 2 ranks is 24 x 12 MiB = 288 MiB (no tree, no NVLS at 2 ranks); two of them (PyNccl and
    // the torch process group) and the custom all-reduce's 2 x 8 MiB + 8 MiB = 24 MiB: 600 MiB.
    const Estimate before = estimate(llama3_8b_on_h100("0.9.1", 2));
    REQUIRE(before.ok());
    CHECK(bytes_of(before, "engine.non_torch") == Approx(kIncrease + 600 * kOneMiB));  // 0.75 GiB
    CHECK(find(before, "engine.nccl") == nullptr);
    // 0.11: PyNccl and the custom all-reduce (312 MiB) are made before the snapshot, outside the budget; the torch
    // process group's communicator (288 MiB) is made in the profile run, inside.
    const Estimate after = estimate(llama3_8b_on_h100("0.11", 2));
    REQUIRE(after.ok());
    CHECK(bytes_of(after, "engine.non_torch") == Approx(kIncrease + 288 * kOneMiB));
    CHECK(bytes_of(after, "engine.nccl") == Approx(312 * kOneMiB));
    CHECK(after.gpu_capacity_bytes == Approx(0.9 * kH100Total + kH100Context + 312 * kOneMiB));
    // tp 8, 0.7.3 (PyTorch 2.5.1, NCCL 2.21.5): a communicator is 24 x (12 + 12) MiB = 576 MiB of ring and tree
    // (a middle rank of the chain) + NVLS 24 x 6 MiB x 8 = 1152 MiB = 1728 MiB; two and the custom all-reduce:
    // 3480 MiB = 3.40 GiB (the tp 8 pp 2 H20 log of vLLM 0.7 showed 2.53 GiB in all on a first-stage rank, no
    // logits, so one tp communicator + the pp one: 0.16 GiB + 1728 + 288 + 24 MiB = 2.15 GiB [vllm-issue-13074]).
    Scenario tp8 = llama3_8b_on_h100("0.7.3", 8);
    tp8.model = test::llama3_70b();
    CHECK(bytes_of(estimate(tp8), "engine.non_torch") == Approx(kIncrease + 3480 * kOneMiB));
}

TEST_CASE("vLLM refuses to start when its budget and the CUDA context exceed the GPU") {
    Scenario s = llama3_8b_on_h100("0.11");
    s.infer.gpu_memory_utilization = 0.995;  // 0.005 x 79.18 GiB = 0.40 GiB beside the budget, the context needs 0.73
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(e.gpu_capacity_bytes == kH100Total);
    CHECK_FALSE(e.fits());
    // Under 0.6.4's rule the context is inside the budget: the same utilization starts.
    s.infer.vllm_version = "0.6.4";
    CHECK(estimate(s).fits());
}

TEST_CASE("vLLM's default batched tokens by release and GPU") {
    InferenceOptions o;
    o.context = 4096;
    const VllmRelease v0 = *parse_vllm_version("0.7.3"), v1 = *parse_vllm_version("0.11");
    CHECK(vllm_batched_tokens(o, v0, kH100Total, "NVIDIA H100 80GB HBM3") == 4096);  // V0 without chunked prefill: max(max_model_len, 2048)
    // V1: chunked prefill, vllm serve's defaults by GPU
    CHECK(vllm_batched_tokens(o, v1, kH100Total, "NVIDIA H100 80GB HBM3") == 8192);
    CHECK(vllm_batched_tokens(o, v1, 85100068864.0, "NVIDIA A100 80GB (SXM4)") == 2048);  // A100s keep the small default
    CHECK(vllm_batched_tokens(o, v1, 47814017024.0, "NVIDIA L40S 48GB") == 2048);
    o.max_batched_tokens = 1024;  // given
    CHECK(vllm_batched_tokens(o, v1, kH100Total, "NVIDIA H100 80GB HBM3") == 1024);
}

TEST_CASE("infer.vllm_version: a bad or too old release names the field") {
    Scenario s = llama3_8b_on_h100("latest");
    CHECK(has_error(estimate(s), "infer.vllm_version", "must be a vLLM release such as \"0.6.5\""));
    s.infer.vllm_version = "0.2.4";
    CHECK(has_error(estimate(s), "infer.vllm_version", "releases before 0.2.5"));
    s.infer.engine = Engine::Transformers;  // only vLLM reads it
    CHECK(estimate(s).ok());
}

TEST_CASE("vLLM's default max_num_seqs follows the release and the GPU, and its profile run samples that many") {
    // engine/arg_utils.py get_batch_defaults (PR #17885, 0.9+): 1024 on a GPU of 70 GiB or more that is not an A100, else
    // 256; 0.8.4-0.8.5 (PR #16158): 1024 on an H100 or H200 only; 0.8.0-0.8.3: 1024 everywhere; the V0 engine: 256.
    const InferenceOptions unset;
    const auto seqs = [&](const char* version, double bytes, const char* name) {
        return vllm_max_num_seqs(unset, parse_vllm_version(version).value(), bytes, name);
    };
    const double a100 = 85.1e9, l40s = 47.7e9;
    CHECK(seqs("0.10.0", kH100Total, "NVIDIA H100 80GB HBM3") == 1024);
    CHECK(seqs("0.10.0", a100, "NVIDIA A100-SXM4-80GB") == 256);
    CHECK(seqs("0.10.0", l40s, "NVIDIA L40S") == 256);
    CHECK(seqs("0.8.2", l40s, "NVIDIA L40S") == 1024);
    CHECK(seqs("0.8.4", kH100Total, "NVIDIA H100 80GB HBM3") == 1024);
    CHECK(seqs("0.8.4", a100, "NVIDIA A100-SXM4-80GB") == 256);
    CHECK(seqs("0.8.5", 150e9, "NVIDIA B200") == 256);
    CHECK(seqs("0.7.3", kH100Total, "NVIDIA H100 80GB HBM3") == 256);
    InferenceOptions given;
    given.max_num_seqs = 64;
    CHECK(vllm_max_num_seqs(given, parse_vllm_version("0.10.0").value(), kH100Total, "NVIDIA H100 80GB HBM3") == 64);

    // Meta-Llama-3-8B on an H100 with vLLM 0.11: the profile run's sampler over 1024 sequences x 128,256 logits x 40 B
    // (5,253,365,760 B) plus the 8192 profiled tokens' hidden states (8192 x 4096 x 2 B) is the activation peak.
    const Estimate e = estimate(llama3_8b_on_h100("0.11"));
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "act.profile_peak") == Approx(1024.0 * 128256 * 40 + 8192.0 * 4096 * 2));
    // Given 256, the same run samples a quarter as many.
    Scenario s = llama3_8b_on_h100("0.11");
    s.infer.max_num_seqs = 256;
    CHECK(bytes_of(estimate(s), "act.profile_peak") == Approx(256.0 * 128256 * 40 + 8192.0 * 4096 * 2));
}
