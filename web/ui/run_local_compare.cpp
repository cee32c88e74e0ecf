// Run locally's compare grid, its panels (run_local_compare.h; Dear ImGui style, one function per
// panel): the models, GGUF types and machines compared, Compare again, the grid. Nothing is computed here.
#include <imgui.h>

#include <algorithm>
#include "text_format.h"

#include "inference/weight_formats.h"
#include "model/presets.h"
#include "planner/compare.h"
#include "ui/panels.h"
#include "ui/run_local_compare.h"
#include "ui/widgets.h"

namespace vl::ui {

// ---- panels --------------------------------------------------------------------------------------

// The models compared: each with Remove, and a list to add a preset or the current model.
void local_compare_models_panel(AppState& app) {
    const Lang L = app.ui.lang;
    const std::vector<std::string>& models = app.scenario.local.compare.models;
    field_label(tr(L, S::CompareModels));
    for (size_t i = 0; i < models.size(); ++i) {
        ImGui::PushID(static_cast<int>(i));
        const bool removed = ImGui::SmallButton(tr(L, S::Remove));
        mark(app, "local.compare.model." + std::to_string(i) + ".remove");
        ImGui::SameLine();
        ImGui::TextUnformatted(compare_model_label(app, models[i]).c_str());
        ImGui::PopID();
        if (removed) {
            remove_compare_model(app, i);
            break;
        }
    }
    ImGui::SetNextItemWidth(-1);
    if (begin_dropdown(app, "##compare_add_model", tr(L, S::CompareAddModel), ImGuiComboFlags_HeightLargest)) {
        if (dropdown_item(app, compare_model_label(app, "current").c_str(), false)) add_compare_model(app, "current");
        mark(app, "local.compare.model.add.current");
        for (const ModelPreset& p : model_presets()) {
            if (dropdown_item(app, p.name.c_str(), false)) add_compare_model(app, p.id);
            mark(app, "local.compare.model.add." + p.id);
        }
        ImGui::EndCombo();
    }
    mark(app, "local.compare.model.add");
}

// The GGUF types compared: a checkbox each.
void local_compare_weights_panel(AppState& app) {
    const Lang L = app.ui.lang;
    const std::vector<WeightFormat>& ws = app.scenario.local.compare.weights;
    field_label(tr(L, S::WeightFormat));
    const std::vector<WeightFormat> choices = compare_weight_choices(LocalEngine::LlamaCpp);
    for (size_t i = 0; i < choices.size(); ++i) {
        const WeightFormat w = choices[i];
        bool on = std::find(ws.begin(), ws.end(), w) != ws.end();
        const std::string key = std::string("local.compare.weights.") + weight_format(w).key;
        if (i > 0 && ImGui::GetContentRegionAvail().x > ImGui::CalcTextSize(weight_format(w).key).x + 60) ImGui::SameLine();
        if (check(app, weight_format(w).key, key.c_str(), on)) toggle_compare_weights(app, w);
    }
}

// The machines compared: each with Remove; "Add this machine" adds the one the machine panel describes.
void local_compare_machines_panel(AppState& app) {
    const Lang L = app.ui.lang;
    const std::vector<LocalMachine>& ms = app.scenario.local.compare.machines;
    field_label(tr(L, S::CompareMachines));
    for (size_t k = 0; k < ms.size(); ++k) {
        ImGui::PushID(static_cast<int>(k));
        const bool removed = ImGui::SmallButton(tr(L, S::Remove));
        mark(app, "local.compare.machine." + std::to_string(k) + ".remove");
        ImGui::SameLine();
        ImGui::TextWrapped("[%zu] %s", k + 1, say(app, machine_name(ms[k])).c_str());
        ImGui::PopID();
        if (removed) {
            remove_compare_machine(app, k);
            break;
        }
    }
    if (ImGui::Button(tr(L, S::CompareAddMachine))) add_compare_machine(app);
    mark(app, "local.compare.machine.add");
}

// The grid: a row per model x type, a column per machine (fits, -ngl, largest context, tok/s); a phone
// gets one wrapped line per cell.
void local_compare_grid_panel(AppState& app) {
    const Lang L = app.ui.lang;
    const CompareGrid& g = app.local_compare;
    if (!g.ok()) {
        ImGui::PushStyleColor(ImGuiCol_Text, col_bad(app));
        ImGui::TextWrapped("%s", say(app, g.error).c_str());
        ImGui::PopStyleColor();
        mark(app, "local.compare.error");
        return;
    }
    if (g.cells.empty()) return;
    auto colored = [&](const CompareCell& c, const std::string& text) {
        ImGui::PushStyleColor(ImGuiCol_Text, c.fits() ? col_ok(app) : col_bad(app));
        ImGui::TextWrapped("%s", text.c_str());
        ImGui::PopStyleColor();
    };
    const int columns = static_cast<int>(g.n_machines) + 1;
    if (ImGui::GetContentRegionAvail().x < 640) {
        for (const CompareCell& c : g.cells) colored(c, vl::format("{} · [{}] {}", compare_row_label(c), c.machine + 1, say(app, compare_cell_text(c))));
    } else if (ImGui::BeginTable("##compare", columns, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchSame)) {
        ImGui::TableSetupColumn(tr(L, S::CompareModelWeights));
        for (size_t k = 0; k < g.n_machines; ++k) ImGui::TableSetupColumn(vl::format("[{}] {}", k + 1, say(app, g.machine_names[k])).c_str());
        ImGui::TableHeadersRow();
        for (size_t i = 0; i < g.cells.size(); i += g.n_machines) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextWrapped("%s", compare_row_label(g.cells[i]).c_str());
            for (size_t k = 0; k < g.n_machines; ++k) {
                ImGui::TableNextColumn();
                colored(g.cells[i + k], say(app, compare_cell_text(g.cells[i + k])));
            }
        }
        ImGui::EndTable();
    }
    mark(app, "local.compare.grid");
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", tr(L, S::CompareNote));
    ImGui::PopTextWrapPos();
}

// Compare models x formats x machines (local.compare): opened by a button; computed when asked; a
// change to what it depends on shows it as stale until compared again.
void local_compare_panel(AppState& app) {
    const Lang L = app.ui.lang;
    subheading(tr(L, S::CompareTitle));
    if (app.scenario.local.compare == LocalCompare{}) {
        if (ImGui::Button(tr(L, S::CompareOpen))) open_compare(app);
        mark(app, "local.compare");
        return;
    }
    local_compare_models_panel(app);
    local_compare_weights_panel(app);
    local_compare_machines_panel(app);
    const bool stale = app.local_compare_for != compare_key(app.scenario);
    if (stale) {
        if (ImGui::Button(tr(L, S::CompareAgain))) compute_compare(app);
        mark(app, "local.compare.run");
        ImGui::SameLine();
        ImGui::TextDisabled("%s", tr(L, S::CompareStale));
    }
    local_compare_grid_panel(app);
}

}  // namespace vl::ui
