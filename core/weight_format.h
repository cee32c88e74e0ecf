// The weight formats vramlens sizes (their bytes per weight: core/inference/weight_formats.h). Its own
// header because a model's imported GGUF tensor bytes (model_spec.h) record the format they were read as.
#pragma once

namespace vl {

enum class WeightFormat {
    FP32, FP16, BF16, FP8, INT8, // INT8 = bitsandbytes LLM.int8
    GPTQ4, GPTQ8, GPTQ3, GPTQ2,  // GPTQ (AutoGPTQ / GPTQModel QuantLinear): 4, 8, 3 or 2 bits with group size
    AWQ4,                        // AWQ: 4 bits with group size
    NF4, FP4,                    // bitsandbytes 4-bit, double_quant optional
    GGUF_Q8_0, GGUF_Q6_K, GGUF_Q5_K_M, GGUF_Q4_K_M, GGUF_Q4_0, GGUF_Q3_K_M, GGUF_Q2_K,
    GGUF_Q4_1, GGUF_Q5_0, GGUF_Q5_1, GGUF_Q4_K_S, GGUF_Q5_K_S,  // legacy 32-weight blocks; the K-quant _S mixes
    MXFP4,                       // OCP microscaling fp4 on the routed experts only (gpt-oss checkpoints)
};

}  // namespace vl
