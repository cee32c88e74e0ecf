// vLLM's MXFP4 MoE backend and its expert layout (vllm_moe.h).
#include "inference/vllm_moe.h"

#include "cuda_context.h"

namespace vl {

VllmMoeBackend vllm_mxfp4_backend(VllmMoeBackend requested, const VllmRelease& r, std::string_view gpu) {
    if (requested != VllmMoeBackend::Auto) return requested;
    const GpuArch arch = gpu_arch(gpu);
    if (arch == GpuArch::AMD) return VllmMoeBackend::Auto;
    // SM 10.x (B200, GB200, B300): FlashInfer's TRTLLM kernel (get_mxfp4_backend: SM100_FI_MXFP4_BF16; the oracle's
    // first choice). SM 12.x (RTX 50, RTX PRO 6000) has neither it nor triton_kernels: Marlin [vllm-mxfp4].
    for (const char* sm100 : {"b100", "b200", "b300"})
        if (gpu_name_has(gpu, sm100)) return VllmMoeBackend::FlashInferTrtllm;
    // Hopper: Triton once triton_kernels ships inside vLLM (PR #28788, vendored at build time: 0.12); before, it had
    // to be installed by hand (0.10.1 also needed torch >= 2.8), so vLLM fell back to Marlin [vllm-mxfp4].
    if (arch == GpuArch::Hopper && at_least(r, 0, 12)) return VllmMoeBackend::Triton;
    return VllmMoeBackend::Marlin;
}

const char* vllm_moe_layout_label(VllmMoeBackend b) {
    switch (b) {
        case VllmMoeBackend::Marlin: return "Weights: MXFP4 experts as vLLM's Marlin MoE kernel pads them";
        case VllmMoeBackend::Triton: return "Weights: MXFP4 experts as vLLM's Triton MoE kernel pads them";
        case VllmMoeBackend::FlashInferTrtllm: return "Weights: MXFP4 experts as vLLM's FlashInfer TRTLLM MoE kernel pads them";
        case VllmMoeBackend::FlashInferCutlass: return "Weights: MXFP4 experts as vLLM's FlashInfer CUTLASS MoE kernel pads them";
        case VllmMoeBackend::Auto: break;
    }
    return "Weights: MXFP4 experts as vLLM's MoE kernel pads them";
}

Mxfp4Layout mxfp4_layout(VllmMoeBackend b) {  // the table in vllm_moe.h [vllm-mxfp4]
    switch (b) {
        case VllmMoeBackend::Marlin: return {128, 256, 2};
        case VllmMoeBackend::Triton: return {64, 1, 4};
        case VllmMoeBackend::FlashInferTrtllm: return {256, 256, 4};
        case VllmMoeBackend::FlashInferCutlass: return {128, 128, 2};
        case VllmMoeBackend::Auto: break;
    }
    return {};
}

}  // namespace vl
