// Small widgets shared by the panels: labelled fields with inline errors, enum combos over the
// core's name tables, number fields with step buttons, segmented buttons, and the bookkeeping that
// lets the page's text box (touch) and the browser tests find a widget by key.
#pragma once
#include <algorithm>
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
// the widget: the core's message as it is (validate() owns the rules). Returns true when there was
// one. Each drawn error is recorded under "error.<field>" and in ui.shown_errors.
bool field_error(AppState& app, const char* field);
// At the end of a section: its errors (field starting with `prefix`) that have no widget on screen
// (no key recorded last frame), so an error is shown once, at its field when there is one.
void section_errors(AppState& app, const char* prefix);

// Why the core's rules for `field` reject this scenario (the first such error), "" when they do not.
std::string rule_error(const Scenario& s, const char* field);

// A separator and a dim title: a group inside a section (e.g. "Training" under "Advanced").
void subheading(const char* text);

// A label on its own line (narrow) or to the left (wide), then the widget fills the width.
void field_label(const char* text);

// Number field: [-] [value] [+]; `doubling` steps by x2 / /2 (batch, sequence), else by 1.
bool int_field(AppState& app, const char* label, const char* key, int64_t& v, int64_t lo, int64_t hi, bool doubling);
bool float_field(AppState& app, const char* label, const char* key, double& v, double lo, double hi, double step,
                 const char* fmt);

// Text field (single or multi-line). Touch screens edit it through the page's text box.
bool text_field(AppState& app, const char* label, const char* key, std::string& s, const char* hint, bool multiline,
                float height = 0);

// A text field whose text is drawn as dots (a token). Touch screens edit it in the page's password box.
bool password_field(AppState& app, const char* label, const char* key, std::string& s, const char* hint);

// Buttons in a row, one selected, the field's error under them. Returns true when the selection changed.
bool segmented(AppState& app, const char* key, const char* const* labels, int count, int& selected);

// Dropdowns (every combo of the page goes through these two). In the phone layout (a window narrower
// than kTwoColumnsMinWidth) and on a touch screen each item is a finger tall, kFingerRowPx with the gap
// to the next one; elsewhere an item is a text line, as ImGui draws it.
// The narrowest window that gets two columns (inputs beside results); narrower is the phone layout.
inline constexpr float kTwoColumnsMinWidth = 860;
// The smallest height of a row picked with a finger, CSS px [apple-hig-hit-targets] (Material: 48 dp [material-touch-targets]).
inline constexpr float kFingerRowPx = 44;
// Whether dropdown items are finger tall: the phone layout or a coarse pointer.
bool finger_rows(const AppState& app);
// ImGui::BeginCombo, its list kFingerRowPx rows tall when finger_rows (8 rows unless HeightLargest).
bool begin_dropdown(const AppState& app, const char* id, const char* preview, ImGuiComboFlags flags = 0);
// ImGui::Selectable for an item of an open dropdown or of a picking list (the model presets), the whole row tappable.
bool dropdown_item(const AppState& app, const char* label, bool selected, ImGuiSelectableFlags flags = 0);

// What a combo shows for an enum value: the readable names of strings.h where there are some,
// else the scenario JSON's name ("bf16-mixed").
template <class E>
const char* enum_label(Lang, E v) {
    return enum_name(v);
}

// A combo over a core enum. `v` is the Scenario field named `key`; a value the core's rules for that
// field reject with the rest of the scenario as it is (validate(), tried with the value in place) is
// listed disabled, with the rule's message under it.
// flags: ImGuiComboFlags_HeightLarge for a list whose disabled values' messages outgrow the regular 8 rows.
template <class E>
bool enum_combo(AppState& app, const char* label, const char* key, E& v, ImGuiComboFlags flags = 0) {
    field_label(label);
    bool changed = false;
    ImGui::SetNextItemWidth(-1);
    const float wrap = ImGui::GetContentRegionAvail().x;
    if (begin_dropdown(app, (std::string("##") + key).c_str(), enum_label(app.ui.lang, v), flags)) {
        const E current = v;
        E chosen = current;
        for (const auto& n : enum_names(E{})) {
            const bool sel = n.value == current;
            v = n.value;  // tried in place, put back below
            const std::string why = sel ? std::string() : rule_error(app.scenario, key);
            v = current;
            if (dropdown_item(app, enum_label(app.ui.lang, n.value), sel, why.empty() ? 0 : ImGuiSelectableFlags_Disabled)) {
                chosen = n.value;
                changed = true;
            }
            mark(app, std::string(key) + "." + n.name);
            if (!why.empty()) {
                ImGui::Indent();
                ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + std::max(wrap - ImGui::GetStyle().IndentSpacing, 120.0f));
                ImGui::TextDisabled("%s", why.c_str());
                ImGui::PopTextWrapPos();
                ImGui::Unindent();
            }
            if (sel) ImGui::SetItemDefaultFocus();
        }
        v = chosen;
        ImGui::EndCombo();
    }
    mark(app, key);
    if (changed) app.dirty = true;
    field_error(app, key);
    return changed;
}

// A combo over integer choices (e.g. the tensor-parallel sizes the model allows).
bool int_choice(AppState& app, const char* label, const char* key, int64_t& v, const std::vector<int64_t>& choices);

// Type-ahead in an open list, as in a native <select>: what is typed while it is open (a pause of a
// second starts over) takes the keyboard highlight to the first item whose label contains it, ignoring
// case, spaces and punctuation ("4090", "h100sxm"), scrolled into view; Enter then picks it.
// typeahead_begin() right after BeginCombo returned true, typeahead_item() after each item.
struct TypeAhead {
    std::string typed;     // lowercase letters and digits
    bool changed = false;  // typed in this frame
    bool found = false;    // an earlier item matched
};
TypeAhead typeahead_begin(AppState& app);
void typeahead_item(TypeAhead& t, const char* label);

// Checkbox that marks the scenario dirty.
bool check(AppState& app, const char* label, const char* key, bool& v);

// "Fix these inputs:" and each error as a bullet, in red (the results' place when nothing can be shown).
void error_list(AppState& app, const std::vector<FieldError>& errs);
// A warning or note under a panel: a bullet and the whole text wrapped at the panel's edge, in the text colour
// (grey text on one line was cut off at the panel's width and hard to read).
// The line is marked under `key` (the tests find its rectangle).
void note_line(AppState& app, const std::string& key, const std::string& text);

// The last item, a text field under `key`, is being edited: it has Dear ImGui's keyboard, or on a touch
// screen the page's text box is open on it (ui.editing_key, from the tap to text_done).
bool being_edited(const AppState& app, const std::string& key);

// A chart's value under the pointer (or where a finger tapped): Dear ImGui's tooltip, recorded in
// ui.tooltip for the test hook.
void tooltip(AppState& app, const std::string& text);

// Puts `text` on the clipboard (the page copies it: an outbox "copy") and shows "Copied" beside `what`.
void copy_text(AppState& app, const std::string& what, const std::string& text);
void copied_badge(const AppState& app, const char* what);

// Colours that follow the theme.
ImU32 col_ok(const AppState& app);
ImU32 col_bad(const AppState& app);
ImU32 col_text_dim(const AppState& app);
ImU32 category_color(Category c, float alpha = 1.0f);

// bytes_label (units.h) in the chosen unit: "15.95 GiB", "140.5 GiB"; "—" when not finite.
std::string fmt_bytes(const AppState& app, double bytes);
// The gridline spacing of a byte axis from 0 to `top`: 1, 2 or 5 x 10^k of the chosen unit, the smallest
// that needs at most 5 steps (an 85.5 GiB axis: 20 GiB). 0 when top is not a positive number.
double axis_step_bytes(double top, SizeUnit u);
// `text` cut at a character boundary to fit `width` pixels, ending in "…" when cut.
std::string fit_text(const std::string& text, float width);
// grouped_whole (units.h): "1,234,567,890"; "—" when not finite.
std::string fmt_int(double v);

}  // namespace vl::ui
