// Hugging Face config.json -> ModelSpec (issue 3).
//
// Reads the field names transformers uses for llama, mistral, mixtral, qwen2, qwen2_moe, qwen3,
// qwen3_moe, gemma, gemma2, gemma3 (top level or nested text_config), phi3, gpt2, gpt_neox, falcon
// (incl. the old RefinedWeb names), opt, bloom, deepseek_v2 and deepseek_v3, Qwen v1's remote-code
// qwen (kv_channels, no_bias, an intermediate_size twice the MLP width), plus the common aliases
// (n_embd, n_embed, n_layer, n_head, n_inner, ffn_dim, n_positions, multi_query, n_head_kv,
// new_decoder_architecture, ...). Missing fields take the defaults of the transformers configuration
// class of that model_type; a missing core size (vocab/hidden/layers/heads) is taken from that
// default with a warning. Any other model_type is an error on "model_type" listing the supported
// ones and the closest of them to what was written ("Qwen2.5" -> qwen2; never imported as one);
// encoder models: "not supported yet". A config without model_type is read by the class its
// "architectures" list names (LlamaForCausalLM -> llama, with a warning), else it is an error too.
//
// Each family is a few rows of tables in hf_config.cpp (sizes and their aliases, the family's modules,
// its boolean and count keys with their defaults); adding a family is adding rows.
//
// Errors name the field as written in the file (with "text_config." when nested) and the rule:
// not JSON, not an object, wrong types, zero/negative/absurd sizes, heads not dividing hidden when
// head_dim is absent, kv heads not dividing heads. Never throws (works with exceptions disabled).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "model_spec.h"

namespace vl {

Result<ModelSpec> import_hf_config(std::string_view json_text);

// A model known only by its parameter count (as HF's model-memory calculator does): params_only =
// params, every architecture size 0. Weights, gradients and optimizer states can be estimated;
// features that need the architecture (activations, KV cache, per-layer buffers, LoRA sizes) cannot
// and must say so (check ModelSpec::architecture_known()). Validate with validate_model.
ModelSpec model_from_param_count(int64_t params);

// The candidates close to `value` by the spelling rule of unsupported model_types (folded equal, or
// at most 2 edits, or containing it), quoted and comma-separated; empty when none is close.
std::string close_names(const std::string& value, const std::vector<std::string>& candidates);

}  // namespace vl
