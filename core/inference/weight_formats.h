// Weights by storage format: one table of the formats (bits per weight, block, scale and zero-point
// bits, what stays unquantized, source), the GGML types the GGUF formats are made of, and the byte
// expressions of a pipeline stage's weights (core/formula.h: one expression gives the number, the
// formula and the substituted text).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>

#include "estimate.h"
#include "formula.h"
#include "parallel.h"

namespace vl {

// ---- quantized storage layouts ----------------------------------------------------------------
// How many weights share one set of block constants: none (the format has no per-block constants),
// a fixed block, the group size the user sets (infer.group_size), or one row of in_features inputs.
enum class Block { None, Fixed, GroupSize, InFeatures };

// Every weight takes data_bits; every block of weights adds scale_bits of scales and zero_bits of
// zero-points (or mins). Double quantization (bitsandbytes 4-bit with infer.double_quant) stores each
// block's scale in dq_scale_bits instead and adds dq_outer_bits per dq_outer_block blocks.
struct QuantLayout {
    double data_bits = 16;
    Block block = Block::None;
    double block_size = 0;  // Block::Fixed
    double scale_bits = 0;
    double zero_bits = 0;
    double dq_scale_bits = 0;
    double dq_outer_bits = 0;
    double dq_outer_block = 0;  // 0: no double-quantized variant
};

// GGML tensor types: those the GGUF formats below are made of first, then every other type a GGUF
// file can hold (llama.cpp ggml-common.h block structs and ggml.c type_traits [llama-cpp-code]).
// K-quants: 256-weight super-blocks whose sub-block scales (and mins) are themselves quantized,
// scaled by fp16 d (and dmin); the zero bits are the mins.
enum class GgmlType {
    F32, F16, Q8_0, Q6_K, Q5_K, Q4_K, Q3_K, Q2_K, Q4_0,
    Q4_1, Q5_0, Q5_1, Q8_1, Q8_K, IQ2_XXS, IQ2_XS, IQ3_XXS, IQ1_S, IQ4_NL, IQ3_S, IQ2_S, IQ4_XS,
    I8, I16, I32, I64, F64, IQ1_M, BF16, TQ1_0, TQ2_0, MXFP4,
};

struct GgmlTypeInfo {
    GgmlType type;
    const char* name;    // "Q4_K"
    const char* params;  // the formula's name for the parameters stored in this type: "P_Q4_K"
    const char* bpw;     // and for its bits per weight: "bpw_Q4_K"
    QuantLayout layout;  // i-quants and ternary types: their whole bits per weight as data_bits
    uint32_t id;         // enum ggml_type: the number a GGUF tensor info stores
    uint32_t block_weights;  // ggml_blck_size: weights per block
    uint32_t block_bytes;    // ggml_type_size: bytes per block
};

// A type's block as a whole: every block of block_weights weights takes block_bytes bytes.
constexpr GgmlTypeInfo ggml_whole(GgmlType t, const char* name, const char* params, const char* bpw, uint32_t id,
                                  uint32_t weights, uint32_t bytes) {
    return {t, name, params, bpw, {bytes * 8.0 / weights}, id, weights, bytes};
}

inline constexpr GgmlTypeInfo kGgmlTypes[] = {
    {GgmlType::F32, "F32", "P_F32", "bpw_F32", {32}, 0, 1, 4},
    {GgmlType::F16, "F16", "P_F16", "bpw_F16", {16}, 1, 1, 2},
    // block_q8_0: fp16 d + 32 int8
    {GgmlType::Q8_0, "Q8_0", "P_Q8_0", "bpw_Q8_0", {8, Block::Fixed, 32, 16}, 8, 32, 34},
    // block_q6_K: ql[128] + qh[64] (6-bit quants), int8 scales[16] + fp16 d
    {GgmlType::Q6_K, "Q6_K", "P_Q6_K", "bpw_Q6_K", {6, Block::Fixed, 256, 16 * 8 + 16}, 14, 256, 210},
    // block_q5_K: qs[128] + qh[32] (5-bit quants), scales[12] = 8 6-bit scales + 8 6-bit mins, fp16 d + dmin
    {GgmlType::Q5_K, "Q5_K", "P_Q5_K", "bpw_Q5_K", {5, Block::Fixed, 256, 8 * 6 + 16, 8 * 6 + 16}, 13, 256, 176},
    // block_q4_K: qs[128] (4-bit quants), scales[12] = 8 6-bit scales + 8 6-bit mins, fp16 d + dmin
    {GgmlType::Q4_K, "Q4_K", "P_Q4_K", "bpw_Q4_K", {4, Block::Fixed, 256, 8 * 6 + 16, 8 * 6 + 16}, 12, 256, 144},
    // block_q3_K: hmask[32] + qs[64] (3-bit quants), scales[12] = 16 6-bit scales, fp16 d
    {GgmlType::Q3_K, "Q3_K", "P_Q3_K", "bpw_Q3_K", {3, Block::Fixed, 256, 16 * 6 + 16}, 11, 256, 110},
    // block_q2_K: qs[64] (2-bit quants), scales[16] = 16 4-bit scales + 16 4-bit mins, fp16 d + dmin
    {GgmlType::Q2_K, "Q2_K", "P_Q2_K", "bpw_Q2_K", {2, Block::Fixed, 256, 16 * 4 + 16, 16 * 4 + 16}, 10, 256, 84},
    // block_q4_0: fp16 d + 16 bytes of nibbles
    {GgmlType::Q4_0, "Q4_0", "P_Q4_0", "bpw_Q4_0", {4, Block::Fixed, 32, 16}, 2, 32, 18},
    // block_q4_1: fp16 d + fp16 m + 16 bytes of nibbles
    {GgmlType::Q4_1, "Q4_1", "P_Q4_1", "bpw_Q4_1", {4, Block::Fixed, 32, 16, 16}, 3, 32, 20},
    // block_q5_0: fp16 d + qh[4] + qs[16]
    {GgmlType::Q5_0, "Q5_0", "P_Q5_0", "bpw_Q5_0", {5, Block::Fixed, 32, 16}, 6, 32, 22},
    // block_q5_1: fp16 d + fp16 m + qh[4] + qs[16]
    {GgmlType::Q5_1, "Q5_1", "P_Q5_1", "bpw_Q5_1", {5, Block::Fixed, 32, 16, 16}, 7, 32, 24},
    // block_q8_1: fp16 d + fp16 s + 32 int8
    {GgmlType::Q8_1, "Q8_1", "P_Q8_1", "bpw_Q8_1", {8, Block::Fixed, 32, 16, 16}, 9, 32, 36},
    // block_q8_K: fp32 d + 256 int8 + int16 bsums[16]
    {GgmlType::Q8_K, "Q8_K", "P_Q8_K", "bpw_Q8_K", {8, Block::Fixed, 256, 32 + 16 * 16}, 15, 256, 292},
    // i-quants: codebook indices, signs and scales packed together (sizes from their static_asserts)
    ggml_whole(GgmlType::IQ2_XXS, "IQ2_XXS", "P_IQ2_XXS", "bpw_IQ2_XXS", 16, 256, 2 + 64),
    ggml_whole(GgmlType::IQ2_XS, "IQ2_XS", "P_IQ2_XS", "bpw_IQ2_XS", 17, 256, 2 + 64 + 8),
    ggml_whole(GgmlType::IQ3_XXS, "IQ3_XXS", "P_IQ3_XXS", "bpw_IQ3_XXS", 18, 256, 2 + 96),
    ggml_whole(GgmlType::IQ1_S, "IQ1_S", "P_IQ1_S", "bpw_IQ1_S", 19, 256, 2 + 32 + 16),
    ggml_whole(GgmlType::IQ4_NL, "IQ4_NL", "P_IQ4_NL", "bpw_IQ4_NL", 20, 32, 2 + 16),
    ggml_whole(GgmlType::IQ3_S, "IQ3_S", "P_IQ3_S", "bpw_IQ3_S", 21, 256, 2 + 13 * 8 + 4),
    ggml_whole(GgmlType::IQ2_S, "IQ2_S", "P_IQ2_S", "bpw_IQ2_S", 22, 256, 2 + 64 + 16),
    ggml_whole(GgmlType::IQ4_XS, "IQ4_XS", "P_IQ4_XS", "bpw_IQ4_XS", 23, 256, 2 + 2 + 4 + 128),
    {GgmlType::I8, "I8", "P_I8", "bpw_I8", {8}, 24, 1, 1},
    {GgmlType::I16, "I16", "P_I16", "bpw_I16", {16}, 25, 1, 2},
    {GgmlType::I32, "I32", "P_I32", "bpw_I32", {32}, 26, 1, 4},
    {GgmlType::I64, "I64", "P_I64", "bpw_I64", {64}, 27, 1, 8},
    {GgmlType::F64, "F64", "P_F64", "bpw_F64", {64}, 28, 1, 8},
    ggml_whole(GgmlType::IQ1_M, "IQ1_M", "P_IQ1_M", "bpw_IQ1_M", 29, 256, 32 + 16 + 8),
    {GgmlType::BF16, "BF16", "P_BF16", "bpw_BF16", {16}, 30, 1, 2},
    // ternary: block_tq1_0 = qs[48] (5 trits a byte) + qh[4] + fp16 d; block_tq2_0 = qs[64] + fp16 d
    ggml_whole(GgmlType::TQ1_0, "TQ1_0", "P_TQ1_0", "bpw_TQ1_0", 34, 256, 48 + 4 + 2),
    ggml_whole(GgmlType::TQ2_0, "TQ2_0", "P_TQ2_0", "bpw_TQ2_0", 35, 256, 64 + 2),
    // block_mxfp4: e8m0 shared exponent + 16 bytes of fp4 (e2m1) pairs
    {GgmlType::MXFP4, "MXFP4", "P_MXFP4", "bpw_MXFP4", {4, Block::Fixed, 32, 8}, 39, 32, 17},
};
inline constexpr size_t kGgmlTypeCount = std::size(kGgmlTypes);

// The row of a GGUF file's type number, or null for a number no GGML type has (or one removed:
// 4, 5, 31-33, 36-38).
constexpr const GgmlTypeInfo* ggml_type_by_id(uint64_t id) {
    for (const GgmlTypeInfo& t : kGgmlTypes)
        if (t.id == id) return &t;
    return nullptr;
}

constexpr const GgmlTypeInfo& ggml_type(GgmlType t) { return kGgmlTypes[static_cast<size_t>(t)]; }

// ---- the weight formats -----------------------------------------------------------------------
enum class FormatFamily { Float, Fp8, BitsAndBytes, GroupWise, Gguf };

struct WeightFormatInfo {
    WeightFormat format;
    const char* key;      // scenario JSON and CLI name, "q4_k_m" (enum_names(WeightFormat) lists these)
    const char* name;     // shown, "GGUF Q4_K_M"
    FormatFamily family;
    QuantLayout layout;   // the layer matrices; GGUF: the base type of llama.cpp's mix
    GgmlType gguf_base;   // GGUF: llama_model_quantize_impl's default_type (F16 for the others: unused)
    double keep_bits;     // bits of the tensors the format leaves as they are (`keeps`)
    const char* keeps;    // which tensors those are
    bool prefill_dequant; // a prefill matmul dequantizes the whole weight to the compute dtype
    const char* source;   // docs/sources.md keys
    bool routed_experts_only = false;  // only the MoE's routed experts take `layout`; every other matrix keeps keep_bits
};

inline constexpr WeightFormatInfo kWeightFormats[] = {
    {WeightFormat::FP32, "fp32", "fp32", FormatFamily::Float, {32}, GgmlType::F16, 32, "everything at 32 bits", false,
     "inference weights = 2P bytes (fp16) or 4P bytes (fp32) [transformer-series5 §3.2]"},
    {WeightFormat::FP16, "fp16", "fp16", FormatFamily::Float, {16}, GgmlType::F16, 16, "everything at 16 bits", false,
     "inference weights = 2P bytes (fp16) or 4P bytes (fp32) [transformer-series5 §3.2]"},
    {WeightFormat::BF16, "bf16", "bf16", FormatFamily::Float, {16}, GgmlType::F16, 16, "everything at 16 bits", false,
     "inference weights = 2P bytes (fp16) or 4P bytes (fp32) [transformer-series5 §3.2]"},
    // e4m3 with one fp32 scale per tensor: no per-block constants (the per-tensor scale is negligible)
    {WeightFormat::FP8, "fp8", "fp8", FormatFamily::Fp8, {8}, GgmlType::F16, 16, "embedding, lm_head and norms at 16 bits", false,
     "vLLM fp8 W8 (per-tensor scale); embedding and lm_head stay 16-bit [vllm-code]"},
    // LLM.int8: int8 weights + one fp32 absmax scale per output row, i.e. per in_features weights (Int8Params.SCB)
    {WeightFormat::INT8, "int8", "int8 (LLM.int8)", FormatFamily::BitsAndBytes, {8, Block::InFeatures, 0, 32}, GgmlType::F16, 16,
     "embedding, lm_head and norms at 16 bits", false,
     "Dettmers et al. 2022 LLM.int8() [llm-int8-2022]; bitsandbytes Int8Params (int8 + fp32 row scale) [bitsandbytes-code]; lm_head kept 16-bit (transformers get_keys_to_not_convert) [transformers-code]"},
    // GPTQ b-bit (AutoGPTQ QuantLinear, bits 2, 3, 4 or 8): qweight int32 [in / 32 * b, out] holds b bits per
    // weight; per group of g inputs and per output column an fp16 scale (scales [in / g, out]) and a b-bit
    // zero (qzeros int32 [in / g, out / 32 * b]). g_idx (one int32 per input) is left out: 32 / out bits.
    {WeightFormat::GPTQ4, "gptq-4bit", "GPTQ 4-bit", FormatFamily::GroupWise, {4, Block::GroupSize, 0, 16, 4}, GgmlType::F16, 16,
     "embedding, lm_head and norms at 16 bits", false,
     "Frantar et al. 2022 GPTQ [gptq2022]; AutoGPTQ QuantLinear (qweight int4, fp16 scales, packed 4-bit qzeros per group) [autogptq-code]"},
    {WeightFormat::GPTQ8, "gptq-8bit", "GPTQ 8-bit", FormatFamily::GroupWise, {8, Block::GroupSize, 0, 16, 8}, GgmlType::F16, 16,
     "embedding, lm_head and norms at 16 bits", false,
     "Frantar et al. 2022 GPTQ [gptq2022]; AutoGPTQ QuantLinear bits=8 (qweight [in/32*8, out] int32, fp16 scales, packed 8-bit qzeros per group) [autogptq-code]"},
    {WeightFormat::GPTQ3, "gptq-3bit", "GPTQ 3-bit", FormatFamily::GroupWise, {3, Block::GroupSize, 0, 16, 3}, GgmlType::F16, 16,
     "embedding, lm_head and norms at 16 bits", false,
     "Frantar et al. 2022 GPTQ [gptq2022]; AutoGPTQ QuantLinear bits=3 (32 weights in 3 int32, fp16 scales, packed 3-bit qzeros per group) [autogptq-code]"},
    {WeightFormat::GPTQ2, "gptq-2bit", "GPTQ 2-bit", FormatFamily::GroupWise, {2, Block::GroupSize, 0, 16, 2}, GgmlType::F16, 16,
     "embedding, lm_head and norms at 16 bits", false,
     "Frantar et al. 2022 GPTQ [gptq2022]; AutoGPTQ QuantLinear bits=2 (qweight [in/32*2, out] int32, fp16 scales, packed 2-bit qzeros per group) [autogptq-code]"},
    {WeightFormat::AWQ4, "awq-4bit", "AWQ 4-bit", FormatFamily::GroupWise, {4, Block::GroupSize, 0, 16, 4}, GgmlType::F16, 16,
     "embedding, lm_head and norms at 16 bits", false,
     "Lin et al. 2023 AWQ [awq2023]; AutoAWQ WQLinear (int4, fp16 scales, 4-bit zeros per group) [autoawq-code]"},
    // bitsandbytes 4-bit: fp32 absmax per 64-weight block; double quant: 8-bit absmax + one fp32 per 256 of them
    {WeightFormat::NF4, "nf4", "NF4", FormatFamily::BitsAndBytes, {4, Block::Fixed, 64, 32, 0, 8, 32, 256}, GgmlType::F16, 16,
     "embedding, lm_head and norms at 16 bits", true,
     "Dettmers et al. 2023 QLoRA Sec 3 (block 64 absmax; double quant 0.127 bit) [qlora2023 §3]; bitsandbytes Linear4bit [bitsandbytes-code]"},
    {WeightFormat::FP4, "fp4", "FP4", FormatFamily::BitsAndBytes, {4, Block::Fixed, 64, 32, 0, 8, 32, 256}, GgmlType::F16, 16,
     "embedding, lm_head and norms at 16 bits", true,
     "Dettmers et al. 2023 QLoRA Sec 3 (block 64 absmax; double quant 0.127 bit) [qlora2023 §3]; bitsandbytes Linear4bit [bitsandbytes-code]"},
    // GGUF file types: a mix of GGML types per tensor (llama_tensor_get_type); norms stay F32
    {WeightFormat::GGUF_Q8_0, "q8_0", "GGUF Q8_0", FormatFamily::Gguf, ggml_type(GgmlType::Q8_0).layout, GgmlType::Q8_0, 32,
     "norms at 32 bits (F32)", false, "llama.cpp ggml block layouts (ggml-common.h) and llama_tensor_get_type mix (src/llama-quant.cpp) [llama-cpp-code]"},
    {WeightFormat::GGUF_Q6_K, "q6_k", "GGUF Q6_K", FormatFamily::Gguf, ggml_type(GgmlType::Q6_K).layout, GgmlType::Q6_K, 32,
     "norms at 32 bits (F32)", false, "llama.cpp ggml block layouts (ggml-common.h) and llama_tensor_get_type mix (src/llama-quant.cpp) [llama-cpp-code]"},
    {WeightFormat::GGUF_Q5_K_M, "q5_k_m", "GGUF Q5_K_M", FormatFamily::Gguf, ggml_type(GgmlType::Q5_K).layout, GgmlType::Q5_K, 32,
     "norms at 32 bits (F32)", false, "llama.cpp ggml block layouts (ggml-common.h) and llama_tensor_get_type mix (src/llama-quant.cpp) [llama-cpp-code]"},
    {WeightFormat::GGUF_Q4_K_M, "q4_k_m", "GGUF Q4_K_M", FormatFamily::Gguf, ggml_type(GgmlType::Q4_K).layout, GgmlType::Q4_K, 32,
     "norms at 32 bits (F32)", false, "llama.cpp ggml block layouts (ggml-common.h) and llama_tensor_get_type mix (src/llama-quant.cpp) [llama-cpp-code]"},
    {WeightFormat::GGUF_Q4_0, "q4_0", "GGUF Q4_0", FormatFamily::Gguf, ggml_type(GgmlType::Q4_0).layout, GgmlType::Q4_0, 32,
     "norms at 32 bits (F32)", false, "llama.cpp ggml block layouts (ggml-common.h) and llama_tensor_get_type mix (src/llama-quant.cpp) [llama-cpp-code]"},
    {WeightFormat::GGUF_Q3_K_M, "q3_k_m", "GGUF Q3_K_M", FormatFamily::Gguf, ggml_type(GgmlType::Q3_K).layout, GgmlType::Q3_K, 32,
     "norms at 32 bits (F32)", false, "llama.cpp ggml block layouts (ggml-common.h) and llama_tensor_get_type mix (src/llama-quant.cpp) [llama-cpp-code]"},
    {WeightFormat::GGUF_Q2_K, "q2_k", "GGUF Q2_K", FormatFamily::Gguf, ggml_type(GgmlType::Q2_K).layout, GgmlType::Q2_K, 32,
     "norms at 32 bits (F32)", false, "llama.cpp ggml block layouts (ggml-common.h) and llama_tensor_get_type mix (src/llama-quant.cpp) [llama-cpp-code]"},
    {WeightFormat::GGUF_Q4_1, "q4_1", "GGUF Q4_1", FormatFamily::Gguf, ggml_type(GgmlType::Q4_1).layout, GgmlType::Q4_1, 32,
     "norms at 32 bits (F32)", false, "llama.cpp ggml block layouts (ggml-common.h) and llama_tensor_get_type mix (src/llama-quant.cpp) [llama-cpp-code]"},
    {WeightFormat::GGUF_Q5_0, "q5_0", "GGUF Q5_0", FormatFamily::Gguf, ggml_type(GgmlType::Q5_0).layout, GgmlType::Q5_0, 32,
     "norms at 32 bits (F32)", false, "llama.cpp ggml block layouts (ggml-common.h) and llama_tensor_get_type mix (src/llama-quant.cpp) [llama-cpp-code]"},
    {WeightFormat::GGUF_Q5_1, "q5_1", "GGUF Q5_1", FormatFamily::Gguf, ggml_type(GgmlType::Q5_1).layout, GgmlType::Q5_1, 32,
     "norms at 32 bits (F32)", false, "llama.cpp ggml block layouts (ggml-common.h) and llama_tensor_get_type mix (src/llama-quant.cpp) [llama-cpp-code]"},
    {WeightFormat::GGUF_Q4_K_S, "q4_k_s", "GGUF Q4_K_S", FormatFamily::Gguf, ggml_type(GgmlType::Q4_K).layout, GgmlType::Q4_K, 32,
     "norms at 32 bits (F32)", false, "llama.cpp ggml block layouts (ggml-common.h) and llama_tensor_get_type mix (src/llama-quant.cpp) [llama-cpp-code]"},
    {WeightFormat::GGUF_Q5_K_S, "q5_k_s", "GGUF Q5_K_S", FormatFamily::Gguf, ggml_type(GgmlType::Q5_K).layout, GgmlType::Q5_K, 32,
     "norms at 32 bits (F32)", false, "llama.cpp ggml block layouts (ggml-common.h) and llama_tensor_get_type mix (src/llama-quant.cpp) [llama-cpp-code]"},
    // MXFP4: blocks of 32 fp4 (e2m1) weights sharing one e8m0 scale, 4 + 8/32 = 4.25 bits [ocp-mx-spec]; gpt-oss
    // quantizes only the routed experts (modules_to_not_convert: attention, router, embedding, lm_head) [gpt-oss-config]
    {WeightFormat::MXFP4, "mxfp4", "MXFP4 (routed experts)", FormatFamily::GroupWise, ggml_type(GgmlType::MXFP4).layout, GgmlType::F16, 16,
     "attention, router, embedding, lm_head and norms at 16 bits", false,
     "OCP Microscaling Formats v1.0: fp4 e2m1 in blocks of 32 with an e8m0 scale [ocp-mx-spec]; gpt-oss quantization_config [gpt-oss-config]", true},
};

namespace detail {
constexpr bool tables_in_enum_order() {
    for (size_t i = 0; i < std::size(kGgmlTypes); ++i)
        if (static_cast<size_t>(kGgmlTypes[i].type) != i) return false;
    for (size_t i = 0; i < std::size(kWeightFormats); ++i)
        if (static_cast<size_t>(kWeightFormats[i].format) != i) return false;
    return true;
}
// Each layout's bits per weight are its block's: block_bytes * 8 / block_weights.
constexpr bool layouts_match_blocks() {
    for (const GgmlTypeInfo& t : kGgmlTypes) {
        const QuantLayout& l = t.layout;
        const double bits = l.block == Block::Fixed ? l.data_bits + (l.scale_bits + l.zero_bits) / l.block_size : l.data_bits;
        if (l.block != Block::None && l.block != Block::Fixed) return false;
        if (bits * t.block_weights != t.block_bytes * 8.0) return false;
    }
    return true;
}
static_assert(tables_in_enum_order(), "kGgmlTypes and kWeightFormats list every value in enum order");
static_assert(layouts_match_blocks(), "a GGML type's layout disagrees with its block size");
static_assert(std::size(kWeightFormats) == static_cast<size_t>(WeightFormat::MXFP4) + 1, "a WeightFormat without a row");
static_assert(kGgmlTypeCount == static_cast<size_t>(GgmlType::MXFP4) + 1, "a GgmlType without a row");
}  // namespace detail

constexpr const WeightFormatInfo& weight_format(WeightFormat f) { return kWeightFormats[static_cast<size_t>(f)]; }

inline bool is_gguf(WeightFormat f) { return weight_format(f).family == FormatFamily::Gguf; }
inline bool is_bitsandbytes(WeightFormat f) { return weight_format(f).family == FormatFamily::BitsAndBytes; }  // LLM.int8, NF4, FP4
inline const char* weight_format_name(WeightFormat f) { return weight_format(f).name; }
inline const char* weight_format_source(WeightFormat f) { return weight_format(f).source; }

// ---- bits per weight ----------------------------------------------------------------------------
// Bits per weight of a layout, data and block constants, as an expression (formula.h): the layout's
// constants print as numbers; what the user sets (the group size g) and the row width are named.
// `in_features` (named `in_name`) is used only by Block::InFeatures.
template <class Q>
auto layout_bits(Q& q, const QuantLayout& l, const InferenceOptions& o, int64_t in_features = 0, const char* in_name = "d_in") {
    using N = std::decay_t<decltype(q("", 0.0))>;
    const N bits = N(l.data_bits);
    if (l.block == Block::None) return bits;
    const N block = l.block == Block::Fixed       ? N(l.block_size)
                    : l.block == Block::GroupSize ? q("g", static_cast<double>(o.group_size))
                                                  : q(in_name, static_cast<double>(std::max<int64_t>(in_features, 1)));
    if (o.double_quant && l.dq_outer_block > 0)
        return bits + N(l.dq_scale_bits) / block + N(l.dq_outer_bits) / (block * N(l.dq_outer_block));
    const N constants = l.zero_bits > 0 ? N(l.scale_bits) + N(l.zero_bits) : N(l.scale_bits);
    return bits + constants / block;
}

double ggml_bits_per_weight(GgmlType t);

// Bits per weight of a quantized linear weight in format o.weights (data + scales + zeros). GGUF
// mixes answer their base type (Q4_K_M -> Q4_K); the per-tensor mix is in stage_weight_params.
// `in_features` matters only for LLM.int8 (one fp32 scale per output row).
double linear_bits_per_weight(const InferenceOptions& o, int64_t in_features);

// ---- the weights of a pipeline stage on one GPU --------------------------------------------------
// Its parameters, grouped by how the format stores them (counted once; the expressions read them).
struct StageWeightParams {
    bool by_count = false;        // model known only by its parameter count: `params_only` holds it
    double params_only = 0;       // stage 0 of such a model: every parameter
    double linear = 0;            // layer matrices (with their biases) on this GPU
    double linear_unsharded = 0;  // the same before the tensor/expert split
    bool split_by_tp = false;     // linear == linear_unsharded / tp (no expert parallelism, no replicated router)
    double linear_rows = 0;       // output rows of the layer matrices on this GPU: LLM.int8 keeps one scale per row
    double routed = 0;            // of linear, the routed experts' matrices (MXFP4 quantizes only these)
    // Of linear, kept apart for a format on the routed experts only (MXFP4), so its derivation names them:
    double attention = 0;         // the attention's tensors (projections, biases, gpt-oss's sinks)
    double router = 0;            // the MoE router (and its bias)
    double gguf[kGgmlTypeCount] = {};  // GGUF: of linear, by the type llama.cpp stores each tensor in
    double norms = 0;             // layer norms, and the final norm on the last stage (replicated)
    EdgeShard edge;               // embedding and head on this GPU
    double head_unsharded = 0;    // the head before the vocab split (lm_head, or the tied embedding's copy)
};
StageWeightParams stage_weight_params(const ModelSpec& m, const ParamCounts& pc, const InferenceOptions& o,
                                      const Parallelism& par, int64_t stage);

// Bits of the embedding and the head (GGUF: llama_tensor_get_type's choice; otherwise kept as they are)
// and of the norms (llama.cpp stores 1-D tensors as F32, convert_hf_to_gguf).
GgmlType gguf_embedding_type(const ModelSpec& m, WeightFormat f);
GgmlType gguf_output_type(WeightFormat f);
// The GGML type llama.cpp stores one 2-D matrix of repeating layer il in: the mix's choice for v, o and
// down, the MoE router kept F32 (llama-quant.cpp never quantizes ffn_gate_inp [llama-cpp-code]), the
// base type for the rest; F16 / BF16 / F32 for an unquantized format.
struct Tensor;
GgmlType gguf_matrix_type(const ModelSpec& m, WeightFormat f, const Tensor& t, int64_t il);
// ggml_row_size: bytes of one row of ne0 weights of type t (ne0 / block_weights blocks).
double ggml_row_bytes(GgmlType t, int64_t ne0);
double norm_bits(const InferenceOptions& o);

// Bytes of `params` matrix weights (named `p_name`, with `rows` output rows) in layout l: the data bits and, for
// LLM.int8 (Block::InFeatures), one scale per output row; otherwise the layout's bits per weight.
template <class Q>
auto matrix_layout_bytes(Q& q, const char* p_name, double params, double rows, const QuantLayout& l, const InferenceOptions& o) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    if (l.block == Block::InFeatures) return (q(p_name, params) * N(l.data_bits) + q("rows", rows) * N(l.scale_bits)) / N(8);
    return q(p_name, params) * layout_bits(q, l, o) / N(8);
}

// The layer matrices: P * bpw / 8 / tp when every matrix has the same bits per weight and splits
// by tp; otherwise a sum over the parameters of this GPU by their bits per weight (GGUF types,
// LLM.int8: 8 bits a weight + an fp32 scale per output row).
template <class Q>
auto linear_weight_bytes(Q& q, const StageWeightParams& w, const ModelSpec&, const InferenceOptions& o, const Parallelism& par) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    const WeightFormatInfo& f = weight_format(o.weights);
    // Every parameter at the linear rate, over tp * pp, on the first stage. LLM.int8's row scales need
    // the rows, which a parameter count does not give: its data bits only (the scales are 32 / d_in bits,
    // under 1 % for d_in >= 4096 [llm-int8-2022]).
    // A format on the routed experts only cannot tell them in a bare count: every parameter at the kept
    // bits (never below what the checkpoint holds).
    if (w.by_count)
        return q("P", w.params_only) *
               (f.routed_experts_only ? N(f.keep_bits) : f.layout.block == Block::InFeatures ? N(f.layout.data_bits) : layout_bits(q, f.layout, o)) /
               N(8) / q("tp", static_cast<double>(par.tp)) / q("pp", static_cast<double>(par.pp));
    if (!(w.linear > 0)) return N(0);
    if (f.family == FormatFamily::Gguf) {
        N sum{};
        for (const GgmlTypeInfo& t : kGgmlTypes) {
            const double p = w.gguf[static_cast<size_t>(t.type)];
            if (p > 0) sum += q(t.params, p) * q.let(t.bpw, layout_bits(q, t.layout, o));
        }
        return sum / N(8);
    }
    if (f.routed_experts_only)  // the routed experts at the format's bits, every other matrix as it was
        return (q("P_experts", w.routed) * layout_bits(q, f.layout, o) +
                (q("P_attention", w.attention) + q("P_router", w.router) + q("P_other_linear", w.linear - w.routed - w.attention - w.router)) *
                    N(f.keep_bits)) /
               N(8);
    if (w.split_by_tp && f.layout.block != Block::InFeatures)
        return q("P_linear", w.linear_unsharded) * layout_bits(q, f.layout, o) / N(8) / q("tp", static_cast<double>(par.tp));
    return matrix_layout_bytes(q, "P_linear_gpu", w.linear, w.linear_rows, f.layout, o);
}

// Bits of a GGML type as a named quantity (GGUF) or the format's kept bits as a number.
template <class Q>
auto edge_bits(Q& q, const InferenceOptions& o, GgmlType gguf_type) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    const WeightFormatInfo& f = weight_format(o.weights);
    if (f.family != FormatFamily::Gguf) return N(f.keep_bits);
    const GgmlTypeInfo& t = ggml_type(gguf_type);
    return q.let(t.bpw, layout_bits(q, t.layout, o));
}

// Token embedding (vocab-parallel, / tp) and, replicated, learned positions and the embedding norm.
template <class Q>
auto embedding_weight_bytes(Q& q, const StageWeightParams& w, const ModelSpec& m, const InferenceOptions& o, const Parallelism& par) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    if (!(w.edge.word_embedding > 0) && !(w.edge.embedding_other > 0)) return N(0);
    const double d = static_cast<double>(m.embed_dim > 0 ? m.embed_dim : m.hidden);
    const N bits = edge_bits(q, o, gguf_embedding_type(m, o.weights));
    const N tp = q("tp", static_cast<double>(par.tp));
    if (w.edge.embedding_other == 0) return q("P_embed", static_cast<double>(m.vocab) * d) * bits / N(8) / tp;
    return (q("V", static_cast<double>(m.vocab)) * q("d_embed", d) / tp + q("P_pos_norm", w.edge.embedding_other)) * bits / N(8);
}

// Output head (vocab-parallel, / tp), or the tied embedding's copy on the last stage when pp > 1.
template <class Q>
auto lm_head_weight_bytes(Q& q, const StageWeightParams& w, const ModelSpec& m, const InferenceOptions& o, const Parallelism& par) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    if (!(w.edge.lm_head > 0)) return N(0);
    const double V = static_cast<double>(m.vocab), d = static_cast<double>(m.embed_dim > 0 ? m.embed_dim : m.hidden);
    const N tp = q("tp", static_cast<double>(par.tp));
    if (o.bnb_quantize_head && is_bitsandbytes(o.weights)) {
        // Fabric's BitsandbytesPrecision swaps every nn.Linear, the head too: the layer matrices' format, LLM.int8 with
        // one fp32 scale per output row (V rows) [lightning-bnb-plugin] [bitsandbytes-code]
        const WeightFormatInfo& f = weight_format(o.weights);
        const N P = w.head_unsharded == V * d ? q("V", V) * q("d", d) : q("P_head", w.head_unsharded);
        if (f.layout.block == Block::InFeatures)
            return (P * N(f.layout.data_bits) + q("V", V) * N(f.layout.scale_bits)) / N(8) / tp;
        return P * layout_bits(q, f.layout, o) / N(8) / tp;
    }
    const N bits = edge_bits(q, o, gguf_output_type(o.weights));
    if (w.head_unsharded == V * d) return q("V", V) * q("d", d) * bits / N(8) / tp;
    return q("P_head", w.head_unsharded) * bits / N(8) / tp;
}

// Norms, replicated on every tensor-parallel rank.
template <class Q>
auto norm_weight_bytes(Q& q, const StageWeightParams& w, const InferenceOptions& o) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    return q("P_norm", w.norms) * N(norm_bits(o)) / N(8);
}

// Weight bytes on one rank, by tensor class.
struct WeightBytes {
    double linear = 0;     // matrices of the transformer layers (attention, MLP, experts)
    double embedding = 0;  // token (+ position) embedding
    double lm_head = 0;    // output head (a copy of the embedding when tied and pp > 1)
    double other = 0;      // norms (and the final norm)
    double total() const { return linear + embedding + lm_head + other; }
};
WeightBytes weight_bytes(const StageWeightParams& w, const ModelSpec& m, const InferenceOptions& o, const Parallelism& par);

// Weights held by pipeline stage `stage` on one tensor-/expert-parallel rank.
WeightBytes stage_weight_bytes(const ModelSpec& m, const ParamCounts& pc, const InferenceOptions& o,
                               const Parallelism& par, int64_t stage);

// ---- an imported GGUF file's own tensor bytes (model.gguf_bytes) ---------------------------------
// llama.cpp loads every tensor as the file stores it, so the weights of a model imported from a GGUF
// file are the sizes in its tensor table [gguf-spec], whatever mix of types made them: the blocks of
// a stage, token_embd (the input layer), output (a tied model without one loads token_embd again,
// TENSOR_DUPLICATED [llama-cpp-code]) and the rest of the tensors outside the blocks (output_norm,
// ...), counted with the output layer. They apply only while they describe the model and the format:
// one entry per layer (an edited model's bytes no longer do; the estimate then warns and uses the format's
// rules) and `weights` the file's own type (another type is another file).
inline bool gguf_bytes_describe(const ModelSpec& m, WeightFormat weights) {
    return m.architecture_known() && !m.gguf_bytes.empty() && static_cast<int64_t>(m.gguf_bytes.layers.size()) == m.layers &&
           m.gguf_bytes.type == weights;
}

inline constexpr int64_t kGgufBlocksListed = 8;  // a derivation names each block up to this many, then their sum

// Blocks [begin, end): each by its name (blk.3) when few, their sum under one name (blk.0-79) otherwise.
template <class Q>
auto gguf_blocks_bytes(Q& q, const GgufTensorBytes& g, int64_t begin, int64_t end) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    if (end - begin > kGgufBlocksListed) {
        double sum = 0;
        for (int64_t i = begin; i < end; ++i) sum += static_cast<double>(g.layers[static_cast<size_t>(i)]);
        const std::string name = "blk." + std::to_string(begin) + "-" + std::to_string(end - 1);
        return q(name.c_str(), sum);
    }
    N sum{};
    for (int64_t i = begin; i < end; ++i) {
        const std::string name = "blk." + std::to_string(i);
        sum += q(name.c_str(), static_cast<double>(g.layers[static_cast<size_t>(i)]));
    }
    return sum;
}

// The input layer (on the host in llama.cpp) and the tensors outside the blocks besides the two edges.
template <class Q>
auto gguf_token_embd_bytes(Q& q, const GgufTensorBytes& g) { return q("token_embd", static_cast<double>(g.token_embd)); }
template <class Q>
auto gguf_other_bytes(Q& q, const GgufTensorBytes& g) { return q("other_tensors", static_cast<double>(g.other)); }

// The output layer's head: output.weight, or a tied model's copy of token_embd when the file has none.
template <class Q>
auto gguf_output_bytes(Q& q, const ModelSpec& m) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    const GgufTensorBytes& g = m.gguf_bytes;
    if (g.output > 0) return q("output", static_cast<double>(g.output));
    return m.tied_embeddings ? gguf_token_embd_bytes(q, g) : N(0);
}

// Pipeline stage `stage` of a llama.cpp layer split: its blocks; the first also token_embd, the last
// the output head and the other tensors.
WeightBytes gguf_stage_weight_bytes(const ModelSpec& m, const Parallelism& par, int64_t stage);

}  // namespace vl
