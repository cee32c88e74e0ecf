// Run locally's compare grid, its state (run_local_compare.h): s.local.compare edited, the grid
// (compare_local, core/planner/compare.h) computed when asked and mirrored. No Dear ImGui here (the
// page's prerender links it); the panels are in run_local_compare.cpp. Every number in a cell is the planner's.
#include "ui/run_local_compare.h"

#include <algorithm>

#include "inference/weight_formats.h"
#include "model/presets.h"
#include "planner/compare.h"
#include "scenario_json.h"

namespace vl::ui {

namespace {

LocalMachine current_machine(const LocalOptions& lo) { return {lo.gpus, lo.ram_bytes, lo.apple_chip}; }

}  // namespace

std::vector<WeightFormat> compare_weight_choices(LocalEngine e) {
    std::vector<WeightFormat> out;
    for (WeightFormat w : local_weight_choices(e))
        if (gguf_type_kld(w) >= 0) out.push_back(w);
    return out;
}

std::string compare_model_label(const AppState& app, const std::string& id) {
    if (id == "current") return app.scenario.model.name.empty() ? std::string(tr(app.ui.lang, S::CompareCurrent)) : app.scenario.model.name;
    const ModelPreset* p = find_model(id);
    return p ? p->name : id;
}

std::string compare_row_label(const CompareCell& c) { return c.row.name + ", " + weight_format(c.row.weights).name; }

std::string compare_key(const Scenario& s) {
    Scenario k;  // the fields the grid reads, written as the link writes them
    k.mode = Mode::Local;
    k.local.compare = s.local.compare;
    k.local.engine = s.local.engine;
    k.local.context = s.local.context;
    k.local.kv = s.local.kv;
    k.local.flash_attention = s.local.flash_attention;
    const auto& m = s.local.compare.models;
    if (std::find(m.begin(), m.end(), "current") != m.end()) k.model = s.model;
    return scenario_to_json(k, JsonStyle::Compact);
}

void compute_compare(AppState& app) {
    app.local_compare = compare_local(app.scenario);
    app.local_compare_for = compare_key(app.scenario);
    app.dirty = true;  // the HTML mirror follows
}

void open_compare(AppState& app) {
    LocalCompare& c = app.scenario.local.compare;
    const WeightFormat w = app.scenario.local.weights;
    c.models = {"current"};
    c.weights = {gguf_type_kld(w) >= 0 && is_gguf(w) ? w : WeightFormat::GGUF_Q4_K_M};
    c.machines = {current_machine(app.scenario.local)};
    compute_compare(app);
    app.dirty = true;
}

void add_compare_model(AppState& app, const std::string& id) {
    std::vector<std::string>& m = app.scenario.local.compare.models;
    if (std::find(m.begin(), m.end(), id) != m.end() || m.size() >= kMaxCompareModels) return;
    m.push_back(id);
    app.dirty = true;
}

void remove_compare_model(AppState& app, size_t i) {
    std::vector<std::string>& m = app.scenario.local.compare.models;
    if (i >= m.size()) return;
    m.erase(m.begin() + static_cast<std::ptrdiff_t>(i));
    app.dirty = true;
}

void toggle_compare_weights(AppState& app, WeightFormat w) {
    std::vector<WeightFormat>& ws = app.scenario.local.compare.weights;
    if (auto it = std::find(ws.begin(), ws.end(), w); it != ws.end()) ws.erase(it);
    else {
        std::vector<WeightFormat> ordered;
        for (WeightFormat c : compare_weight_choices(LocalEngine::LlamaCpp))
            if (c == w || std::find(ws.begin(), ws.end(), c) != ws.end()) ordered.push_back(c);
        ws = ordered;
    }
    app.dirty = true;
}

void add_compare_machine(AppState& app) {
    std::vector<LocalMachine>& ms = app.scenario.local.compare.machines;
    const LocalMachine m = current_machine(app.scenario.local);
    if (std::find(ms.begin(), ms.end(), m) != ms.end() || ms.size() >= kMaxCompareMachines) return;
    ms.push_back(m);
    app.dirty = true;
}

void remove_compare_machine(AppState& app, size_t i) {
    std::vector<LocalMachine>& ms = app.scenario.local.compare.machines;
    if (i >= ms.size()) return;
    ms.erase(ms.begin() + static_cast<std::ptrdiff_t>(i));
    app.dirty = true;
}

nlohmann::json compare_hook(const AppState& app) {
    const CompareGrid& g = app.local_compare;
    nlohmann::json j;
    j["shown"] = app.scenario.local.compare != LocalCompare{};
    j["stale"] = j["shown"] && app.local_compare_for != compare_key(app.scenario);
    j["error"] = g.error;
    j["machines"] = g.machine_names;
    j["cells"] = nlohmann::json::array();
    for (const CompareCell& c : g.cells)
        j["cells"].push_back({{"model", c.row.id}, {"weights", weight_format(c.row.weights).key}, {"machine", c.machine}, {"fits", c.fits()},
                              {"ngl", c.row.ngl}, {"n_cpu_moe", c.row.n_cpu_moe}, {"n_layer", c.row.n_layer}, {"max_context", c.row.max_context},
                              {"decode_tokens_per_s", c.row.decode_tokens_per_s}, {"text", compare_cell_text(c)}});
    return j;
}

void compare_notes(const AppState& app, nlohmann::json& notes) {
    if (app.scenario.local.compare == LocalCompare{}) return;
    const std::string title = tr(app.ui.lang, S::CompareTitle);
    const CompareGrid& g = app.local_compare;
    if (!g.ok()) notes.push_back(title + ": " + say(app, g.error));
    for (const CompareCell& c : g.cells)
        notes.push_back(title + ": " + compare_row_label(c) + " · " + say(app, g.machine_names[c.machine]) + ": " + say(app, compare_cell_text(c)));
}

}  // namespace vl::ui
