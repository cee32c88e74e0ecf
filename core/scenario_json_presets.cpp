// See scenario_json_presets.h: the presets and importer of core/model/ as the scenario JSON sees them.
#include "scenario_json_presets.h"

#include "model/hf_config.h"
#include "model/presets.h"

namespace vl {

std::optional<ModelSpec> preset_model(std::string_view id) {
    if (const ModelPreset* p = find_model(id)) return p->spec;
    return std::nullopt;
}
std::optional<Gpu> preset_gpu(std::string_view id) {
    if (const GpuPreset* g = find_gpu(id)) return g->gpu();
    return std::nullopt;
}
std::vector<std::pair<std::string, ModelSpec>> all_model_presets() {
    std::vector<std::pair<std::string, ModelSpec>> out;
    for (const ModelPreset& p : model_presets()) out.emplace_back(p.id, p.spec);
    return out;
}
std::vector<std::pair<std::string, Gpu>> all_gpu_presets() {
    std::vector<std::pair<std::string, Gpu>> out;
    for (const GpuPreset& g : gpu_presets()) out.emplace_back(g.id, g.gpu());
    return out;
}
Result<ModelSpec> import_model_config(std::string_view config_json) { return import_hf_config(config_json); }

}  // namespace vl
