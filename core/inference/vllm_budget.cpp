// vLLM's memory budget by release (vllm_budget.h).
#include "inference/vllm_budget.h"

#include "cuda_context.h"
#include "model/presets.h"

namespace vl {

std::optional<VllmRelease> parse_vllm_version(std::string_view t) { return parse_release(t); }

// The releases each rule shipped in [vllm-budget]: #2031 (0.2.5: total - free), #2863 (0.3.1: per-instance
// snapshot), #9352 (0.6.4: total - free - torch again), #10511 (0.6.5: memory_profiling from a baseline),
// V1 from 0.8.0 on the whole-device rule until #18974 / #19312 (0.9.1), #25359 (0.11: snapshot after the
// distributed set-up), #38284 (0.21: CUDA-graph memory profiled by default).
std::optional<VllmBudget> vllm_budget(const VllmRelease& r) {
    if (!at_least(r, 0, 2, 5)) return std::nullopt;
    if (at_least(r, 0, 21)) return VllmBudget::InstanceGraphs;
    if (at_least(r, 0, 11)) return VllmBudget::InstanceAfterNccl;
    if (at_least(r, 0, 9, 1)) return VllmBudget::Instance;
    if (at_least(r, 0, 8)) return VllmBudget::WholeDevice;
    if (at_least(r, 0, 6, 5)) return VllmBudget::Instance;
    if (at_least(r, 0, 6, 4)) return VllmBudget::WholeDevice;
    if (at_least(r, 0, 3, 1)) return VllmBudget::Instance;
    return VllmBudget::WholeDevice;
}

bool vllm_v1_engine(const VllmRelease& r) { return at_least(r, 0, 8); }

namespace {

// vLLM's PyTorch pin (requirements-cuda.txt / requirements/cuda.txt at the release tags) [vllm-torch-pins] and
// that PyTorch wheel's nvidia-nccl-cu12 pin [pytorch-nccl-pins]. Before 0.6.4 PyTorch 2.1-2.4 with NCCL
// 2.18.1-2.20.5 (0.4.0-0.4.2 pinned vllm-nccl-cu12 2.18.1), all under the same <= 2.20 NVLS rule (nccl.h);
// from 0.10.2 NCCL 2.27 and later, all under the >= 2.26 rule.
constexpr VllmNcclRow kNcclRows[] = {
    {{0, 0, 0}, "2.1-2.4", pytorch_nccl({2, 4, 0})},
    {{0, 6, 4}, "2.5.1", pytorch_nccl({2, 5, 1})},
    {{0, 8, 0}, "2.6.0", pytorch_nccl({2, 6, 0})},
    {{0, 9, 0}, "2.7.0", pytorch_nccl({2, 7, 0})},
    {{0, 10, 2}, "2.8.0", pytorch_nccl({2, 8, 0})},
};

}  // namespace

std::span<const VllmNcclRow> vllm_nccl_rows() { return kNcclRows; }

const VllmNcclRow& vllm_nccl_row(const VllmRelease& r) {
    const VllmNcclRow* row = &kNcclRows[0];
    for (const VllmNcclRow& x : kNcclRows)
        if (at_least(r, x.first.major, x.first.minor, x.first.patch)) row = &x;
    return *row;
}

NcclSetup vllm_nccl_setup(const Scenario& s, const VllmRelease& r) {
    const Release nccl = vllm_nccl_row(r).nccl;  // vLLM sets NCCL_CUMEM_ENABLE=0 [vllm-pr5091]: connected at init
    return NcclSetup{nccl, gpu_link(s.gpu.name), gpu_arch(s.gpu.name), nccl_connects_at_init(nccl, false)};
}

const char* vllm_budget_text(VllmBudget b) {
    switch (b) {
        case VllmBudget::WholeDevice:
            return "vLLM 0.2.5-0.3.0, 0.6.4 and V1 0.8.0-0.9.0: the budget holds everything on the GPU but the KV cache, "
                   "the CUDA context and NCCL buffers included [vllm-budget]";
        case VllmBudget::Instance:
            return "vLLM 0.3.1-0.6.3, 0.6.5-0.7.x and 0.9.1-0.10.x: the budget holds what this instance adds after its start-up "
                   "snapshot (weights, profile peak, non-torch increase with the NCCL buffers); the CUDA context lies outside "
                   "[vllm-budget]";
        case VllmBudget::InstanceAfterNccl:
            return "vLLM 0.11-0.20: the start-up snapshot follows the NCCL set-up, so the CUDA context and the NCCL buffers lie "
                   "outside the budget [vllm-budget]";
        case VllmBudget::InstanceGraphs:
            return "vLLM 0.21 and later: as 0.11-0.20, and vLLM's estimate of the CUDA graphs' memory is subtracted from the "
                   "budget too (not modelled: the KV pool shown is larger by it) [vllm-budget]";
    }
    return "";
}

}  // namespace vl
