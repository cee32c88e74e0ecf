// Presets parsed from the embedded assets/presets/*.json (see presets.h). Model configs go through
// import_hf_config_json, so presets and pasted config.json files share one parser.
#include "model/presets.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "embedded_assets.h"
#include "json_input.h"
#include "model/hf_config_json.h"

namespace vl {

bool is_year_month(const std::string& s) {
    if (s.size() != 7 || s[4] != '-') return false;
    for (size_t i : {0, 1, 2, 3, 5, 6})
        if (s[i] < '0' || s[i] > '9') return false;
    return (s[5] == '0' && s[6] >= '1') || (s[5] == '1' && s[6] <= '2');
}

namespace {

using json = nlohmann::json;

struct Presets {
    std::vector<ModelPreset> models;
    std::vector<GpuPreset> gpus;
    std::vector<FieldError> errors;
};

std::string str(const json& o, const char* key) {
    auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The entries array of an embedded preset file, or nullptr with an error.
const json* entries(const json& doc, const char* file, const char* key, std::vector<FieldError>& errs) {
    if (!doc.is_object() || !doc.contains(key) || !doc[key].is_array()) {
        errs.push_back({file, std::string("must be a JSON object with a \"") + key + "\" array"});
        return nullptr;
    }
    return &doc[key];
}

void load_models(Presets& p, std::string_view text) {
    const json doc = parse_json_input(text, "models.json", p.errors).value_or(json());
    const json* list = entries(doc, "models.json", "models", p.errors);
    if (!list) return;
    for (size_t i = 0; i < list->size(); ++i) {
        const json& e = (*list)[i];
        const std::string where = "models.json[" + std::to_string(i) + "]";
        if (!e.is_object() || str(e, "id").empty() || !e.contains("config")) {
            p.errors.push_back({where, "needs an \"id\" and a \"config\""});
            continue;
        }
        ModelPreset m;
        m.id = str(e, "id");
        m.name = str(e, "name");
        m.family = str(e, "family");
        m.hf_id = str(e, "hf_id");
        m.released = str(e, "released");
        if (!is_year_month(m.released)) p.errors.push_back({where + ".released", "must be the month of first release as \"YYYY-MM\""});
        m.source = str(e, "source");
        m.note = str(e, "note");
        if (auto it = e.find("params"); it != e.end() && it->is_object()) {
            if (auto v = it->find("value"); v != it->end() && v->is_number())
                m.published_params = v->is_number_integer() ? v->get<int64_t>() : static_cast<int64_t>(v->get<double>());
            if (auto a = it->find("active"); a != it->end() && a->is_number())
                m.published_active = a->is_number_integer() ? a->get<int64_t>() : static_cast<int64_t>(a->get<double>());
            if (auto x = it->find("exact"); x != it->end() && x->is_boolean()) m.published_exact = x->get<bool>();
            m.params_source = str(*it, "source");
        }
        Result<ModelSpec> r = import_hf_config_json(e["config"]);
        if (!r.ok()) {
            for (const FieldError& fe : r.errors) p.errors.push_back({m.id + ".config." + fe.field, fe.message});
            continue;
        }
        m.spec = std::move(*r.value);
        m.spec.name = m.name;
        m.spec.family = m.family;
        m.import_warnings = std::move(r.warnings);
        p.models.push_back(std::move(m));
    }
}

void load_gpus(Presets& p) {
    const std::string_view text = assets::find("gpus.json");
    const json doc = parse_json_input(text, "gpus.json", p.errors).value_or(json());
    const json* list = entries(doc, "gpus.json", "gpus", p.errors);
    if (!list) return;
    for (size_t i = 0; i < list->size(); ++i) {
        const json& e = (*list)[i];
        const std::string where = "gpus.json[" + std::to_string(i) + "]";
        if (!e.is_object() || str(e, "id").empty() || !e.contains("memory_bytes") || !e["memory_bytes"].is_number()) {
            p.errors.push_back({where, "needs an \"id\" and a numeric \"memory_bytes\""});
            continue;
        }
        GpuPreset g;
        g.id = str(e, "id");
        g.name = str(e, "name");
        g.vendor = str(e, "vendor");
        g.memory_bytes = e["memory_bytes"].get<double>();
        g.marketed = str(e, "marketed");
        if (auto b = e.find("bf16"); b != e.end() && b->is_boolean()) g.bf16 = b->get<bool>();
        if (auto f = e.find("fp8"); f != e.end() && f->is_boolean()) g.fp8 = f->get<bool>();
        g.source = str(e, "source");
        if (auto c = e.find("cuda_total_bytes"); c != e.end() && c->is_number() && c->get<double>() > 0 && c->get<double>() <= g.memory_bytes)
            g.cuda_total_bytes = c->get<double>();
        else
            p.errors.push_back({where, "\"cuda_total_bytes\" must be the CUDA-visible total (cudaMemGetInfo), above 0 and at most memory_bytes"});
        g.cuda_total_source = str(e, "cuda_total_source");
        for (auto [key, dst] : {std::pair{"memory_bandwidth", &g.memory_bandwidth}, std::pair{"fp16_tensor_flops", &g.fp16_tensor_flops}})
            if (auto v = e.find(key); v != e.end()) {
                if (v->is_number() && v->get<double>() > 0) *dst = v->get<double>();
                else p.errors.push_back({where, std::string("\"") + key + "\" must be a positive number"});
            }
        g.speed_source = str(e, "speed_source");
        if (auto l = e.find("interconnect"); l != e.end()) {
            const std::string v = l->is_string() ? l->get<std::string>() : "";
            g.link = v == "nvswitch" ? GpuLink::NVSwitch : v == "nvlink" ? GpuLink::NVLink : v == "pcie" ? GpuLink::PCIe : GpuLink::Unknown;
            if (g.link == GpuLink::Unknown) p.errors.push_back({where, "\"interconnect\" must be \"nvswitch\", \"nvlink\" or \"pcie\" (or left out)"});
        }
        p.gpus.push_back(std::move(g));
    }
}

Presets& presets() {
    static Presets p = [] {
        Presets out;
        load_models(out, assets::find("models.json"));
        load_gpus(out);
        return out;
    }();
    return p;
}

bool iequal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
        if (x != y) return false;
    }
    return true;
}

}  // namespace

const std::vector<ModelPreset>& model_presets() { return presets().models; }
const std::vector<GpuPreset>& gpu_presets() { return presets().gpus; }
const std::vector<FieldError>& preset_errors() { return presets().errors; }

std::vector<FieldError> replace_model_presets(std::string_view models_json) {
    Presets fresh;
    load_models(fresh, models_json);
    if (fresh.errors.empty() && fresh.models.empty()) fresh.errors.push_back({"models.json", "lists no model"});
    if (fresh.errors.empty()) presets().models = std::move(fresh.models);
    return fresh.errors;
}

const ModelPreset* find_model(std::string_view id) {
    for (const ModelPreset& m : model_presets())
        if (iequal(m.id, id) || iequal(m.hf_id, id)) return &m;
    return nullptr;
}

namespace {

// Lower-case letters and digits only: "Llama-3.1 8B" -> "llama318b".
std::string squash(std::string_view t) {
    std::string out;
    for (char c : t) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) || u >= 0x80) out += static_cast<char>(std::tolower(u));
    }
    return out;
}

}  // namespace

bool preset_matches(const ModelPreset& p, std::string_view query) {
    static const char* const kVariantWords[] = {"instruct", "chat", "base", "hf", "it", "pt"};
    const std::string hay = squash(p.name) + "\n" + squash(p.family) + "\n" + squash(p.id) + "\n" + squash(p.hf_id);
    // Words: split at spaces, '/', '-', '_' and ','; of "org/model" only the model counts.
    size_t i = 0;
    while (i < query.size()) {
        size_t j = i;
        while (j < query.size() && query[j] != ' ' && query[j] != '-' && query[j] != '_' && query[j] != ',' && query[j] != '/') ++j;
        const bool org = j < query.size() && query[j] == '/';
        const std::string word = squash(query.substr(i, j - i));
        i = j + 1;
        if (org || word.empty() || hay.find(word) != std::string::npos) continue;
        if (std::find_if(std::begin(kVariantWords), std::end(kVariantWords), [&](const char* v) { return word == v; }) !=
            std::end(kVariantWords))
            continue;
        return false;
    }
    return true;
}

const GpuPreset* find_gpu(std::string_view id) {
    for (const GpuPreset& g : gpu_presets())
        if (iequal(g.id, id)) return &g;
    return nullptr;
}

GpuLink gpu_link(std::string_view gpu_name) {
    for (const GpuPreset& g : gpu_presets())
        if (g.name == gpu_name) return g.link;
    return GpuLink::Unknown;
}

const char* gpu_link_name(GpuLink l) {
    switch (l) {
        case GpuLink::NVSwitch: return "NVSwitch";
        case GpuLink::NVLink: return "NVLink without a switch";
        case GpuLink::PCIe: return "PCIe";
        case GpuLink::Unknown: break;
    }
    return "interconnect not known";
}

}  // namespace vl
