// The presets and the config.json importer as the scenario reader and writer see them: a narrow
// seam over core/model/presets.h and core/model/hf_config.h (issue 3), kept in one place.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "diagnostics.h"
#include "scenario.h"

namespace vl {

std::optional<ModelSpec> preset_model(std::string_view id);
std::optional<Gpu> preset_gpu(std::string_view id);
std::vector<std::pair<std::string, ModelSpec>> all_model_presets();  // (id, spec), preset order
std::vector<std::pair<std::string, Gpu>> all_gpu_presets();
Result<ModelSpec> import_model_config(std::string_view config_json);  // a Hugging Face config.json

}  // namespace vl
