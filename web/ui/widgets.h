// Small widgets shared by the panels: labelled fields with inline errors, enum combos over the
// core's name tables, number fields with step buttons, segmented buttons, and the bookkeeping that
// lets the page's text box (touch) and the browser tests find a widget by key.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <imgui.h>

#include "enum_names.h"
#include "ui/app.h"

namespace vl::ui {

// Records the last item's rectangle under `key` (test hook, text box placement).
void mark(AppState& app, const std::string& key);

// Draws the estimate's errors whose field starts with `field` (e.g. "parallel.tp") in red under
// the widget. Returns true when there was one.
bool field_error(const AppState& app, const char* field);

// A label on its own line (narrow) or to the left (wide), then the widget fills the width.
void field_label(const char* text);

// Number field: [-] [value] [+]; `doubling` steps by x2 / /2 (batch, sequence), else by 1.
bool int_field(AppState& app, const char* label, const char* key, int64_t& v, int64_t lo, int64_t hi, bool doubling);
bool float_field(AppState& app, const char* label, const char* key, double& v, double lo, double hi, double step,
                 const char* fmt);

// Text field (single or multi-line). Touch screens edit it through the page's text box.
bool text_field(AppState& app, const char* label, const char* key, std::string& s, const char* hint, bool multiline,
                float height = 0);

// Buttons in a row, one selected. Returns true when the selection changed.
bool segmented(AppState& app, const char* key, const char* const* labels, int count, int& selected);

// A combo over a core enum (its names as the scenario JSON spells them).
template <class E>
bool enum_combo(AppState& app, const char* label, const char* key, E& v) {
    field_label(label);
    bool changed = false;
    ImGui::SetNextItemWidth(-1);
    if (ImGui::BeginCombo((std::string("##") + key).c_str(), enum_name(v))) {
        for (const auto& n : enum_names(E{})) {
            const bool sel = n.value == v;
            if (ImGui::Selectable(n.name, sel)) {
                v = n.value;
                changed = true;
            }
            mark(app, std::string(key) + "." + n.name);
            if (sel) ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
    }
    mark(app, key);
    if (changed) app.dirty = true;
    field_error(app, key);
    return changed;
}

// A combo over integer choices (e.g. the tensor-parallel sizes the model allows).
bool int_choice(AppState& app, const char* label, const char* key, int64_t& v, const std::vector<int64_t>& choices);

// Checkbox that marks the scenario dirty.
bool check(AppState& app, const char* label, const char* key, bool& v);

// Colours that follow the theme.
ImU32 col_ok(const AppState& app);
ImU32 col_bad(const AppState& app);
ImU32 col_text_dim(const AppState& app);
ImU32 category_color(Category c, float alpha = 1.0f);

// "15.95 GiB" in the chosen unit (never NaN/inf: "—").
std::string fmt_bytes(const AppState& app, double bytes);
// "1 234 567 890"
std::string fmt_int(double v);

}  // namespace vl::ui
