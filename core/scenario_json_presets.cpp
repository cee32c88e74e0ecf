// See scenario_json_presets.h. Until core/model/presets.h lands, there are no presets.
#include "scenario_json_presets.h"

#if __has_include("model/presets.h") && __has_include("model/hf_config.h")
#error "presets landed: wire scenario_json_presets.cpp to them"
#else

namespace vl {

std::optional<ModelSpec> preset_model(std::string_view) { return std::nullopt; }
std::optional<Gpu> preset_gpu(std::string_view) { return std::nullopt; }
std::vector<std::pair<std::string, ModelSpec>> all_model_presets() { return {}; }
std::vector<std::pair<std::string, Gpu>> all_gpu_presets() { return {}; }
Result<ModelSpec> import_model_config(std::string_view) {
    return Result<ModelSpec>::failure({{"config", "config.json import is not in this build yet"}});
}

}  // namespace vl
#endif
