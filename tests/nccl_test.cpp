// NCCL's GPU memory per communicator (core/nccl.h) and vLLM's communicators (core/inference/vllm_budget.h),
// values by hand from NCCL's source [nccl-p2p-code] [nccl-nvls-code]: a ring channel align(hdr + 4 MiB) +
// align(hdr + 5.19 MiB) = 6 + 6 MiB (P2P read, A100) or align(hdr) + align(hdr + 9.19 MiB) = 2 + 10 MiB, 12 MiB;
// the tree 12 MiB more per channel at 3+ ranks (a middle rank of the chain: send to its parent, receive from
// its child; the root's receive alone is #964's 6 MiB [nccl-issue-964]); NVLink SHARP
// at > 2 ranks on Hopper/Blackwell NVSwitch: <= 2.20 channels x 12 MiB x ranks, 2.21 channels x 6 MiB x ranks,
// >= 2.26 16 (Blackwell 32) x 2 MiB x ranks + 2 MiB. Channels: 24 NVSwitch/NVLink, 4 PCIe. vLLM: two
// communicators of the tp group (PyNccl, torch process group) + 24 MiB of custom all-reduce [vllm-comm-code];
// the NCCL of a release through its PyTorch [vllm-torch-pins] [pytorch-nccl-pins].
#include <catch2/catch.hpp>

#include <string>

#include "component_lookup.h"
#include "estimate.h"
#include "inference/vllm_budget.h"
#include "inference_models.h"
#include "model/presets.h"
#include "framework_profiles.h"
#include "nccl.h"
#include "training_fixtures.h"

using namespace vl;
using test::bytes_of;
using test::find;
using test::has_error;

namespace {

constexpr double MiB = 1048576.0;
constexpr double kIncrease = 171798691.84;  // 0.16 GiB, vLLM's non-torch increase at tp 1 [vllm-pr12126]

double comm(const NcclSetup& c, int64_t ranks) {
    Numbers n;
    return nccl_comm_bytes(n, c, "tp", ranks, "nvls");
}

Release nccl_of(const char* vllm) { return vllm_nccl_row(parse_vllm_version(vllm).value()).nccl; }

// Meta-Llama-3-8B in bf16 served by vLLM on `tp` GPUs of a preset.
Scenario llama_on(const char* gpu, const char* version, int64_t tp, int64_t pp = 1) {
    Scenario s = test::llama3_8b_serving(Engine::VLLM, WeightFormat::BF16, KvDtype::BF16);
    s.gpu = find_gpu(gpu)->gpu();
    s.infer.vllm_version = version;
    s.parallel.tp = tp;
    s.parallel.pp = pp;
    s.gpu_count = tp * pp;
    return s;
}

}  // namespace

TEST_CASE("GPU presets name their interconnect, other names are not known") {
    CHECK(gpu_link(find_gpu("h100-80gb")->name) == GpuLink::NVSwitch);
    CHECK(gpu_link(find_gpu("h200")->name) == GpuLink::NVSwitch);
    CHECK(gpu_link(find_gpu("a100-80gb")->name) == GpuLink::NVSwitch);
    CHECK(gpu_link(find_gpu("h200-nvl")->name) == GpuLink::NVLink);
    CHECK(gpu_link(find_gpu("l40s")->name) == GpuLink::PCIe);
    CHECK(gpu_link(find_gpu("h100-pcie-80gb")->name) == GpuLink::PCIe);
    CHECK(gpu_link(find_gpu("a100-40gb")->name) == GpuLink::Unknown);  // one preset for SXM4 and PCIe
    CHECK(gpu_link("NVIDIA H100 80GB HBM3") == GpuLink::Unknown);      // not a preset's name
}

TEST_CASE("NCCL memory per communicator: channels x (ring + tree) + NVLink SHARP by version") {
    const NcclSetup h100_226{{2, 26, 2}, GpuLink::NVSwitch, GpuArch::Hopper, true};
    // tp 2: ring only, 24 x 12 MiB; no tree (the ring's peer), no NVLS (2 ranks).
    CHECK(comm(h100_226, 2) == Approx(288 * MiB));
    // tp 4 on H100 NVSwitch with NCCL 2.26: 24 x (12 ring + 12 tree) MiB + NVLS 16 x 2 MiB x 4 + 2 MiB = 576 + 130 MiB.
    CHECK(comm(h100_226, 4) == Approx(706 * MiB));
    // tp 8: 576 + 16 x 2 x 8 + 2 = 576 + 258 MiB.
    CHECK(comm(h100_226, 8) == Approx(834 * MiB));
    // NCCL 2.21: NVLS 24 x 6 MiB x ranks: tp 4 576 MiB, tp 8 1152 MiB.
    const NcclSetup h100_221{{2, 21, 5}, GpuLink::NVSwitch, GpuArch::Hopper, true};
    CHECK(comm(h100_221, 4) == Approx((576 + 576) * MiB));
    CHECK(comm(h100_221, 8) == Approx((576 + 1152) * MiB));
    // NCCL 2.20: 24 x 2 x (4 + 2) MiB x 8 = 2304 MiB at tp 8, vLLM #9699's "nvlsTotalSize 2415919104" [vllm-issue-9699].
    const NcclSetup h200_220{{2, 20, 5}, GpuLink::NVSwitch, GpuArch::Hopper, true};
    Numbers n;
    CHECK(nccl_nvls_bytes(n, h200_220, "tp", 8) == 2415919104.0);
    // Blackwell with NCCL 2.27: 32 NVLS channels, 32 x 2 x 4 + 2 = 258 MiB at tp 4.
    const NcclSetup b200{{2, 27, 3}, GpuLink::NVSwitch, GpuArch::Blackwell, true};
    CHECK(comm(b200, 4) == Approx((576 + 258) * MiB));
    // No NVLS: Ampere (A100 SXM), an NVLink bridge, PCIe; PCIe has 4 channels: 4 x 24 MiB at tp 4.
    CHECK(comm({{2, 26, 2}, GpuLink::NVSwitch, GpuArch::Ampere, true}, 4) == Approx(576 * MiB));
    CHECK(comm({{2, 26, 2}, GpuLink::NVLink, GpuArch::Hopper, true}, 4) == Approx(576 * MiB));
    CHECK(comm({{2, 21, 5}, GpuLink::PCIe, GpuArch::Ada, true}, 4) == Approx(96 * MiB));
    CHECK(comm({{2, 21, 5}, GpuLink::PCIe, GpuArch::Ada, true}, 2) == Approx(48 * MiB));
    // Lazy connection (cuMem on, NCCL >= 2.22): no tree at init.
    CHECK(comm({{2, 26, 2}, GpuLink::NVSwitch, GpuArch::Ampere, false}, 4) == Approx(288 * MiB));
    // An interconnect no preset names: NVSwitch's channels and NVLS, the most memory.
    CHECK(comm({{2, 26, 2}, GpuLink::Unknown, GpuArch::Hopper, true}, 4) == Approx(706 * MiB));
}

TEST_CASE("vLLM's NCCL by release: the NCCL its PyTorch wheel pins") {
    CHECK(nccl_of("0.6.3").minor == 20);  // PyTorch 2.4: NCCL 2.20.5
    CHECK(nccl_of("0.6.4").minor == 21);  // PyTorch 2.5.1: 2.21.5
    CHECK(nccl_of("0.8.5").minor == 21);  // PyTorch 2.6.0: 2.21.5
    CHECK(nccl_of("0.9.0").minor == 26);  // PyTorch 2.7.0: 2.26.2
    CHECK(nccl_of("0.10.1").minor == 26);
    CHECK(nccl_of("0.10.2").minor == 27);  // PyTorch 2.8.0: 2.27.3
    CHECK(nccl_of("0.12.0").minor == 27);
    CHECK(std::string(vllm_nccl_row(parse_vllm_version("0.9.2").value()).torch) == "2.7.0");
}

TEST_CASE("vLLM's communicators per GPU by release, GPU preset and tp") {
    // H100 SXM, tp 4, vLLM 0.10.0 (NCCL 2.26.2, per-instance budget): PyNccl and the torch process group, 706 MiB
    // each, and the custom all-reduce 24 MiB, all inside the budget: 0.16 GiB + 1436 MiB.
    const Estimate e = estimate(llama_on("h100-80gb", "0.10.0", 4));
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "engine.non_torch") == Approx(kIncrease + 1436 * MiB));
    // The derivation shows each term.
    const Estimate full = estimate(llama_on("h100-80gb", "0.10.0", 4), Detail::Full);
    const std::string f(find(full, "engine.non_torch")->formula());
    CHECK(f == "non_torch_increase + comm_tp + comm_tp + custom_allreduce, nvls_tp = nvls_channels * nvls_per_channel_rank * tp + "
               "nvls_credits, comm_tp = channels * (ring_per_channel + tree_per_channel) + nvls_tp");
    // The same on vLLM 0.8.5 (NCCL 2.21.5, whole device): NVLS 576 MiB, 1152 MiB a communicator, + the context.
    const Estimate old = estimate(llama_on("h100-80gb", "0.8.5", 4));
    CHECK(bytes_of(old, "engine.non_torch") == Approx(kIncrease + (2 * 1152 + 24) * MiB + 745 * MiB));  // H100 context [vramlens-h100-runs]
    // 0.11: the torch process group's 706 MiB inside, PyNccl and the custom all-reduce (730 MiB) beside.
    const Estimate late = estimate(llama_on("h100-80gb", "0.11.0", 4));
    CHECK(bytes_of(late, "engine.non_torch") == Approx(kIncrease + 706 * MiB));
    CHECK(bytes_of(late, "engine.nccl") == Approx(730 * MiB));
    // L40S (PCIe), tp 2, 0.7.3: 4 channels x 12 MiB a communicator, two, + the custom all-reduce: 120 MiB; vLLM
    // #15815 logged 0.30 GiB of non-torch memory on 2 L40S with 0.7.x.
    CHECK(bytes_of(estimate(llama_on("l40s", "0.7.3", 2)), "engine.non_torch") == Approx(kIncrease + 120 * MiB));
    // L40S tp 4: 4 x 24 MiB a communicator and no custom all-reduce (above 2 GPUs it needs NVLink): 192 MiB.
    CHECK(bytes_of(estimate(llama_on("l40s", "0.7.3", 4)), "engine.non_torch") == Approx(kIncrease + 192 * MiB));
    // A100 80GB SXM, tp 4: Ampere has no NVLS: 2 x 576 + 24 MiB (+ the context under 0.8.5's whole-device rule
    // is not asked here: 0.10.0).
    CHECK(bytes_of(estimate(llama_on("a100-80gb", "0.10.0", 4)), "engine.non_torch") == Approx(kIncrease + 1176 * MiB));
    // pp 2 alone: the pp group's PyNccl communicator, 24 x 12 MiB; no torch process group, no custom all-reduce.
    CHECK(bytes_of(estimate(llama_on("h100-80gb", "0.10.0", 1, 2)), "engine.non_torch") == Approx(kIncrease + 288 * MiB));
    // tp 1: none.
    CHECK(bytes_of(estimate(llama_on("h100-80gb", "0.10.0", 1)), "engine.non_torch") == Approx(kIncrease));
    // infer.engine_overhead_bytes replaces it all.
    Scenario given = llama_on("h100-80gb", "0.10.0", 4);
    given.infer.engine_overhead_bytes = 1e9;
    CHECK(bytes_of(estimate(given), "engine.non_torch") == 1e9);
}

// Training's communicators (core/training/overheads.cpp add_nccl): the NCCL of PyTorch 2.8's wheel, 2.27.3
// [pytorch-nccl-pins], which with cuMem (PyTorch leaves it on) connects lazily: at a group's first collective the ring,
// channels x 12 MiB; NVLS (16 x 2 MiB x ranks + 2 MiB from 2.26 on Hopper NVSwitch, > 2 ranks) only on groups that
// carry gradients or activations, not on those that only reduce scalars (NVLS has no LL protocol) [nccl-p2p-code]
// [nccl-nvls-code]. Groups by framework from their code [megatron-core-groups-code] [deepspeed-groups-code].
namespace {

// Llama-2-7B (untied, 32 heads), micro-batch 1 x 1024, on `gpu`, dp x tp ranks.
Scenario train_on(const char* gpu, int64_t dp, int64_t tp = 1) {
    Scenario s;
    s.mode = Mode::Train;
    s.model = testing::llama2_7b();
    s.train.micro_batch = 1;
    s.train.seq_len = 1024;
    s.gpu = find_gpu(gpu)->gpu();
    s.parallel.dp = dp;
    s.parallel.tp = tp;
    s.gpu_count = dp * tp;
    return s;
}

double training_nccl(const Scenario& s) {
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    return bytes_of(e, "overhead.cuda_context.nccl");
}

}  // namespace

TEST_CASE("training NCCL: PyTorch 2.8's NCCL 2.27.3, and each PyTorch wheel's NCCL") {
    const Release n = pytorch_nccl({2, 8, 0});
    CHECK((n.major == 2 && n.minor == 27 && n.patch == 3));
    const Release old = pytorch_nccl({2, 6, 0});  // 2.5-2.6: 2.21.5 [pytorch-nccl-pins]
    CHECK((old.major == 2 && old.minor == 21 && old.patch == 5));
    CHECK(nccl_connects_at_init(old, true));          // before 2.22: at init
    CHECK_FALSE(nccl_connects_at_init(n, true));      // 2.22 and later with cuMem: lazily
    CHECK(nccl_connects_at_init(n, false));           // NCCL_CUMEM_ENABLE=0: at init
}

TEST_CASE("training NCCL: plain DDP on PCIe cards, one communicator of the default group") {
    Scenario s = train_on("rtx-4090", 1);
    CHECK(find(estimate(s), "overhead.cuda_context.nccl") == nullptr);  // one GPU: no communicator
    // dp 2 on two RTX 4090s (PCIe: 4 channels): the default group DDP reduces over, 4 x 12 MiB = 48 MiB.
    s = train_on("rtx-4090", 2);
    CHECK(training_nccl(s) == Approx(48 * MiB));
    CHECK(find(estimate(s), "overhead.cuda_context.nccl")->phases == kAllPhases);
    // 8 L40S (PCIe): still one ring of 4 channels, 48 MiB: the ring keeps two connections whatever the ranks.
    CHECK(training_nccl(train_on("l40s", 8)) == Approx(48 * MiB));
    // A context given is everything outside PyTorch: no communicator on top.
    s.overheads.cuda_context_bytes = 1e9;
    CHECK(find(estimate(s), "overhead.cuda_context.nccl") == nullptr);
}

TEST_CASE("training NCCL: data parallel on 8 H100s adds NVLS to the gradient group") {
    // FSDP/DDP dp 8 on H100 SXM (NVSwitch, 24 channels): 24 x 12 MiB = 288 MiB + NVLS 16 x 2 MiB x 8 + 2 MiB = 258 MiB.
    CHECK(training_nccl(train_on("h100-80gb", 8)) == Approx((288 + 258) * MiB));
    // On A100 SXM (NVSwitch, no multicast): the ring alone.
    CHECK(training_nccl(train_on("a100-80gb", 8)) == Approx(288 * MiB));
}

TEST_CASE("training NCCL: train.torch_version picks the wheel's NCCL, before 2.22 ring, tree and NVLS connect at creation") {
    // PyTorch 2.6 ships NCCL 2.21.5 [pytorch-nccl-pins]: eager. dp 8 on H100 SXM: ring 24 x 12 = 288 MiB, tree 288 MiB
    // (8 ranks), NVLS 2.21: 24 channels x 6 MiB x 8 ranks = 1152 MiB; 1728 MiB.
    Scenario s = train_on("h100-80gb", 8);
    s.train.torch_version = "2.6";
    CHECK(training_nccl(s) == Approx((288 + 288 + 1152) * MiB));
    // On A100 SXM (no multicast): ring and tree, 576 MiB; at 2 ranks the ring alone (the tree's peer is the ring's).
    s = train_on("a100-80gb", 8);
    s.train.torch_version = "2.6.0+cu124";
    CHECK(training_nccl(s) == Approx(576 * MiB));
    s = train_on("a100-80gb", 2);
    s.train.torch_version = "2.5.1";
    CHECK(training_nccl(s) == Approx(288 * MiB));
    // Not a release, or older than the table: the field named, and how to fix it.
    for (const char* bad : {"latest", "", "2", "1.13"}) {
        s.train.torch_version = bad;
        CHECK(has_error(estimate(s), "train.torch_version", "must be a PyTorch release of 2.1 or later"));
    }
}

TEST_CASE("training NCCL: DeepSpeed's clone of the world group is a second communicator") {
    // ZeRO-2 on 4 A100 SXM: the default group (barriers) and DeepSpeed's data-parallel clone, 288 MiB each.
    Scenario s = train_on("a100-80gb", 4);
    REQUIRE(apply_profile(s, "deepspeed-zero2").empty());
    s.deepspeed.enabled = true;
    CHECK(training_nccl(s) == Approx(2 * 288 * MiB));
}

TEST_CASE("training NCCL: Megatron-Core dp 8 x tp 2 on H100s, one communicator per group a step uses") {
    // World 16. Communicators: the default group (16 ranks, barriers and scalar reductions) 288 MiB; dp-cp (8, DDP's
    // gradients) 288 + 258 MiB of NVLS; tp (2) 288 MiB; mp = tp x pp (2, found-inf and update-successful) 288 MiB:
    // 4 x 288 + 258 = 1410 MiB.
    Scenario s = train_on("h100-80gb", 8, 2);
    REQUIRE(apply_profile(s, "megatron-lm").empty());
    CHECK(training_nccl(s) == Approx((4 * 288 + 258) * MiB));
    // Megatron's DDP reduces each bucket in place in its gradient buffer: no bucket of its own, unlike PyTorch's DDP.
    CHECK(find(estimate(s), "buffers.comm_bucket") == nullptr);
    CHECK(find(estimate(train_on("h100-80gb", 8, 2)), "buffers.comm_bucket") != nullptr);
    // The distributed optimizer reduces its gradient norm over the intra-instance group: one more of 16 ranks.
    s.parallel.zero = 1;
    CHECK(training_nccl(s) == Approx((5 * 288 + 258) * MiB));
}

TEST_CASE("training NCCL: Megatron-Core pipeline stages, and the embedding group of a tied model") {
    // dp 2 x tp 2 x pp 2 on 8 H100s: world 8 (scalars only: no NVLS), dp-cp 2, tp 2, pp 2, mp = tp x pp 4 (scalars):
    // 5 x 288 MiB; groups of 2 have no NVLS.
    Scenario s = train_on("h100-80gb", 2, 2);
    REQUIRE(apply_profile(s, "megatron-lm").empty());
    s.parallel.pp = 2;
    s.gpu_count = 8;
    CHECK(training_nccl(s) == Approx(5 * 288 * MiB));
    // Tied embeddings over stages: the first and last stage all-reduce the embedding's gradient, one more of 2 ranks.
    s.model.tied_embeddings = true;
    CHECK(training_nccl(s) == Approx(6 * 288 * MiB));
    // dp 2 x pp 4: the stages' activations go by send/recv and the pp group reduces only scalars, so its 4 ranks get no
    // NVLS either: world 8, dp-cp 2, pp 4, mp 4, 4 x 288 MiB.
    s = train_on("h100-80gb", 2);
    REQUIRE(apply_profile(s, "megatron-lm").empty());
    s.parallel.pp = 4;
    s.gpu_count = 8;
    CHECK(training_nccl(s) == Approx(4 * 288 * MiB));
}

TEST_CASE("training NCCL: Megatron-Core MoE, pp 2 x ep 4 on 8 A100s (the ms-swift Qwen1.5-MoE run)") {
    // dp 4, pp 2, ep 4, distributed optimizer, untied embeddings, A100 (24 channels, no NVLS): world 8, dist-opt 8,
    // dp-cp 4, pp 2, mp 2, tp-ep 4 (the allgather dispatcher); tp-cp and expert dp (4 / 4) are one rank: 6 x 288 MiB.
    Scenario s = train_on("a100-80gb", 4);
    s.model = find_model("qwen1.5-moe-a2.7b")->spec;
    REQUIRE(apply_profile(s, "megatron-lm").empty());
    s.parallel.pp = 2;
    s.parallel.ep = 4;
    s.parallel.zero = 1;
    s.train.seq_len = 1024;
    s.gpu_count = 8;
    CHECK(training_nccl(s) == Approx(6 * 288 * MiB));
}
