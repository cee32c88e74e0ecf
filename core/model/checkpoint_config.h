// What a checkpoint's JSON files say about how its weights are stored (issue 17):
//   - config.json's "quantization_config" -> the method, its bits and group size, and the vramlens
//     weight format it is (AWQ, GPTQ, bitsandbytes 4/8-bit, FP8, compressed-tensors, MXFP4);
//   - adapter_config.json (PEFT) -> a LoRA adapter's rank, alpha and target modules on its base model;
//   - with the safetensors headers: the quantized and the non-quantized tensors counted apart (the
//     embedding and lm_head of a 4-bit checkpoint usually stay 16-bit).
// Pure readers over text given by the user (parse_json_input); errors name the field.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "model/safetensors.h"
#include "scenario.h"

namespace vl {

struct QuantConfig {
    std::string method;  // quant_method as written: "awq", "gptq", "bitsandbytes", "fp8", "compressed-tensors", "mxfp4"
    int bits = 16;       // bits of a quantized weight
    int64_t group_size = 0;  // weights sharing one scale; -1: one per output channel; 0: not grouped
    std::optional<WeightFormat> format;  // the vramlens weight format; none when vramlens has no such format
    std::string description;             // "GPTQ 4-bit, group size 128"
    std::vector<std::string> not_quantized;  // modules_to_not_convert / llm_int8_skip_modules / ignore
};

// nullopt (and no error) when the config has no quantization_config. Errors on "quantization_config.*".
Result<std::optional<QuantConfig>> read_quantization_config(std::string_view config_json);

struct AdapterConfig {
    std::string peft_type;   // "LORA"
    std::string base_model;  // base_model_name_or_path
    int64_t rank = 0;        // r
    double alpha = 0;        // lora_alpha
    std::vector<std::string> target_modules;  // as written ("all-linear" when given as that string)
    unsigned lora_targets = 0;  // the ones vramlens models (scenario.h LoraTarget bits)
};
// Errors on the field; target modules vramlens does not model are a warning naming them.
Result<AdapterConfig> read_adapter_config(std::string_view json_text);

// Tensors of one or more safetensors headers split by whether the quantization stored them
// quantized. A quantized weight's parameters are its elements times (storage bits / weight bits):
// a packed I32 qweight of 4-bit weights holds 8 per element. The scales, zero points and group
// indices that go with quantized weights are counted in quantized_bytes but hold no parameters.
struct QuantizedSplit {
    uint64_t quantized_tensors = 0, quantized_params = 0, quantized_bytes = 0;
    uint64_t aux_tensors = 0;  // scales, zeros, g_idx, absmax, ... (their bytes are in quantized_bytes)
    uint64_t kept_tensors = 0, kept_params = 0, kept_bytes = 0;  // left as they were (embedding, lm_head, norms)
};
QuantizedSplit split_quantized(const std::vector<SafetensorsHeader>& headers, const QuantConfig& q);

}  // namespace vl
