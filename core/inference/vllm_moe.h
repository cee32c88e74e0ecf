// vLLM's MoE kernel for MXFP4 experts (gpt-oss) and the layout it gives them at load. Each backend pads
// every expert's hidden and intermediate (per tensor-parallel partition) sizes to its kernel's alignment
// before the weights are loaded, and some keep the expert biases in fp32, so "Model loading took" exceeds
// the checkpoint [vllm-mxfp4] (vllm/model_executor/layers/quantization/mxfp4.py Mxfp4MoEMethod.create_weights
// and process_weights_after_loading; later fused_moe/oracle/mxfp4.py mxfp4_round_up_hidden_size_and_intermediate_size
// and convert_to_mxfp4_moe_kernel_format):
//
//   backend              intermediate  hidden  biases   chosen by default on
//   Marlin               128           256     bf16     GPUs without a faster kernel: Ampere, Ada, SM 12.x, and
//                                                       Hopper until triton_kernels shipped with vLLM
//   Triton (matmul_ogs)  64            -       fp32     Hopper (SM 9.0-10.x with triton_kernels): vLLM 0.12 and later
//   FlashInfer TRTLLM    256           256     fp32     SM 10.x (B200, GB200, B300) with FlashInfer
//   FlashInfer CUTLASS   128           128     bf16     only when asked (VLLM_USE_FLASHINFER_MOE_MXFP4_BF16 on Hopper,
//                                                       VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8_CUTLASS on SM 10.x)
//
// The scales stay one e8m0 byte per 32 weights in every layout; Marlin's repack keeps 4 bits a weight.
// ROCm (AMD) pads to 128 or 256 by gfx architecture and release: not modelled. vLLM pads no other MoE weights on
// CUDA: unquantized and fp8 experts get 256 B a row only on ROCm (_maybe_pad_weight, VLLM_ROCM_MOE_PADDING /
// VLLM_ROCM_FP8_PADDING) [vllm-mxfp4].
#pragma once
#include <cstdint>
#include <string_view>

#include "inference/vllm_budget.h"
#include "scenario.h"

namespace vl {

// The backend vLLM runs MXFP4 experts with: `requested` unless Auto, else vLLM's choice for the GPU (by its
// name, cuda_context.h gpu_arch) and release. Auto on an AMD GPU stays Auto (not modelled).
VllmMoeBackend vllm_mxfp4_backend(VllmMoeBackend requested, const VllmRelease& release, std::string_view gpu_name);
// The component's label, naming the backend.
const char* vllm_moe_layout_label(VllmMoeBackend b);

// What a backend does to one expert: the alignment of its intermediate and hidden sizes (1: kept) and the
// bytes of a bias element.
struct Mxfp4Layout {
    int64_t intermediate_align = 1, hidden_align = 1;
    double bias_bytes = 2;
};
Mxfp4Layout mxfp4_layout(VllmMoeBackend b);

// The padded size: x rounded up to a multiple of align (vLLM round_up).
inline int64_t vllm_round_up(int64_t x, int64_t align) { return (x + align - 1) / align * align; }

// The routed experts on this GPU, counted as experts x layers: P_experts (their matrices' parameters) / (3 I h), each a
// gated expert's gate and up [2I, h] and down [h, I].
template <class Q, class V>
auto vllm_mxfp4_expert_layers(Q& q, double routed_params, const V& I, const V& h) {
    return q.let("E_layers", q("P_experts", routed_params) / (V(3) * I * h));
}

// Bytes the backend's layout adds to this GPU's routed experts, over the checkpoint's layout (MXFP4 matrices,
// bf16 biases). A gated expert is gate and up [2I, h] and down [h, I], I = expert_ffn / expert tp; its biases
// 2I + h. P_experts (the routed matrices' parameters on this GPU) / (3 I h) experts-by-layers; each grows by
// 3 (I' h' - I h) weights at bpw bits and its biases from (2I + h) x 2 B to (2I' + h') x bias_bytes.
template <class Q, class N>
auto vllm_mxfp4_padding_bytes(Q& q, double routed_params, int64_t inter, int64_t hidden, const Mxfp4Layout& l, N bpw) {
    const auto I = q("I", static_cast<double>(inter)), h = q("h", static_cast<double>(hidden));
    const auto Ip = q("I_pad", static_cast<double>(vllm_round_up(inter, l.intermediate_align)));
    const auto hp = q("h_pad", static_cast<double>(vllm_round_up(hidden, l.hidden_align)));
    const auto experts = vllm_mxfp4_expert_layers(q, routed_params, I, h);
    return experts * (N(3) * (Ip * hp - I * h) * q.let("bpw", bpw) / N(8) + (N(2) * Ip + hp) * q("bias_bytes", l.bias_bytes) -
                      (N(2) * I + h) * N(2));
}

// vLLM's Triton MoE kernel (triton_kernels matmul_ogs) on Hopper keeps the expert scales twice: Mxfp4MoEMethod's
// process_weights_after_loading hands w13/w2_weight_scale to _swizzle_mxfp4, which builds a new tensor in
// triton_kernels' HopperMXScaleLayout (rows padded to 2 x num_warps x 2 x 8 = 256 with num_warps 8, columns to 2),
// while the loaded scale parameters stay registered on the layer; the swizzled weights replace theirs
// [vllm-mxfp4] [triton-kernels-layouts]. Per expert the gate-and-up scales are [2 I', h / 32] and the down scales
// [h, I' / 32] (I' the Triton-padded intermediate size), one e8m0 byte each.
template <class Q>
auto vllm_triton_scale_copy_bytes(Q& q, double routed_params, int64_t inter, int64_t inter_pad, int64_t hidden) {
    constexpr int64_t kRows = 2 * 8 * 2 * 8, kCols = 2, kBlock = 32;  // HopperMXScaleLayout's alignment; MXFP4's block
    const auto experts = vllm_mxfp4_expert_layers(q, routed_params, q("I", static_cast<double>(inter)), q("h", static_cast<double>(hidden)));
    const auto gate_up = q("rows_gate_up", static_cast<double>(vllm_round_up(2 * inter_pad, kRows))) *
                         q("cols_gate_up", static_cast<double>(vllm_round_up((hidden + kBlock - 1) / kBlock, kCols)));
    const auto down = q("rows_down", static_cast<double>(vllm_round_up(hidden, kRows))) *
                      q("cols_down", static_cast<double>(vllm_round_up((inter_pad + kBlock - 1) / kBlock, kCols)));
    return experts * (gate_up + down);
}

}  // namespace vl
