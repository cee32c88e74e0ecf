// import_hf_config on an already parsed JSON object (used by the presets, which embed HF configs).
#pragma once
#include <nlohmann/json.hpp>

#include "diagnostics.h"
#include "model_spec.h"

namespace vl {

Result<ModelSpec> import_hf_config_json(const nlohmann::json& config);

}  // namespace vl
