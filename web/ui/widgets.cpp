// Shared widgets (widgets.h).
#include "ui/widgets.h"

#include <imgui_internal.h>

#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "number_input.h"
#include "ui/keyboard.h"

namespace vl::ui {

namespace {

// Remembers a text field for the page's text box (touch) and applies what was typed there.
void register_text(AppState& app, const char* key, const std::string& value, const char* kind, ImVec2 min, ImVec2 max) {
    app.ui.text_fields.push_back({key, value, kind, min.x, min.y, max.x - min.x, max.y - min.y});
}

// Text typed in the page's text box for this key, if any (consumed).
bool take_typed(AppState& app, const char* key, std::string& out) {
    auto it = app.ui.text_buffers.find(key);
    if (it == app.ui.text_buffers.end()) return false;
    out = it->second;
    app.ui.text_buffers.erase(it);
    // ImGui keeps its own copy of an active field's text: let go of it so the new value shows.
    if (ImGui::GetActiveID() != 0) ImGui::ClearActiveID();
    return true;
}

int resize_callback(ImGuiInputTextCallbackData* d) {
    if (d->EventFlag == ImGuiInputTextFlags_CallbackResize) {
        auto* s = static_cast<std::string*>(d->UserData);
        s->resize(static_cast<size_t>(d->BufTextLen));
        d->Buf = s->data();
    }
    return 0;
}

}  // namespace

void mark(AppState& app, const std::string& key) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    app.ui.items[key] = {a.x, a.y, b.x - a.x, b.y - a.y};
    note_focus(app, key);
}

bool being_edited(const AppState& app, const std::string& key) {
    return ImGui::IsItemActive() || (!key.empty() && app.ui.editing_key == key);
}

void tooltip(AppState& app, const std::string& text) {
    ImGui::SetTooltip("%s", text.c_str());
    app.ui.tooltip = text;
}

static void draw_error(AppState& app, const FieldError& e, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, col_bad(app));
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
    mark(app, "error." + e.field);
    app.ui.shown_errors.push_back(e);
}

// The errors the inputs show: the estimate's, or in Run locally the plan's (its inputs are local.*).
static const std::vector<FieldError>& input_errors(const AppState& app) {
    return app.scenario.mode == Mode::Local ? app.local.errors : app.estimate.errors;
}

bool field_error(AppState& app, const char* field) {
    bool any = false;
    const size_t n = std::strlen(field);
    for (const FieldError& e : input_errors(app)) {
        if (e.field.compare(0, n, field) != 0) continue;
        if (e.field.size() > n && e.field[n] != '.') continue;
        draw_error(app, e, say(app, e.message));
        any = true;
    }
    return any;
}

void section_errors(AppState& app, const char* prefix) {
    const size_t n = std::strlen(prefix);
    for (const FieldError& e : input_errors(app)) {
        if (e.field.compare(0, n, prefix) != 0 || (e.field.size() > n && e.field[n] != '.')) continue;
        if (app.ui.last_items.count(e.field)) continue;  // shown at its widget
        draw_error(app, e, say(app, e));
    }
}

std::string rule_error(const Scenario& s, const char* field) {
    for (const FieldError& e : validate(s))
        if (e.field == field) return e.message;
    return {};
}

void note_line(AppState& app, const std::string& key, const std::string& text) {
    ImGui::Bullet();
    ImGui::TextWrapped("%s", text.c_str());
    mark(app, key);
}

void error_list(AppState& app, const std::vector<FieldError>& errs) {
    ImGui::PushStyleColor(ImGuiCol_Text, col_bad(app));
    ImGui::TextWrapped("%s:", tr(app.ui.lang, S::Errors));
    for (const FieldError& err : errs) ImGui::BulletText("%s", say(app, err).c_str());
    ImGui::PopStyleColor();
    mark(app, "errors");
}

void copy_text(AppState& app, const std::string& what, const std::string& text) {
    app.outbox.push_back({"copy", text, "", "", 0, 0, 0, 0});
    app.ui.copied_what = what;
}

void copied_badge(const AppState& app, const char* what) {
    if (app.ui.copied_what == what) {
        ImGui::SameLine();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(col_ok(app)), "%s", tr(app.ui.lang, S::Copied));
    }
}

void subheading(const char* text) {
    ImGui::Spacing();
    ImGui::Separator();
    ImGui::TextDisabled("%s", text);
}

void field_label(const char* text) { ImGui::TextUnformatted(text); }

// A number input followed by "-" and "+" steppers (int_field, float_field). On touch devices the
// input is read-only: typing goes through the page's text box (take_typed).
struct Stepper {
    float button = 0;   // square button side
    float spacing = 0;
    ImGuiInputTextFlags flags = 0;
};

static Stepper begin_stepper(const AppState& app) {
    Stepper st;
    st.button = ImGui::GetFrameHeight();
    st.spacing = ImGui::GetStyle().ItemInnerSpacing.x;
    ImGui::SetNextItemWidth(std::max(60.0f, ImGui::GetContentRegionAvail().x - 2 * (st.button + st.spacing)));
    st.flags = app.ui.env.touch ? ImGuiInputTextFlags_ReadOnly : 0;
    return st;
}

// Draws the steppers after the input: -1 when "-" was pressed, +1 for "+", else 0.
static int stepper_buttons(AppState& app, const char* key, const Stepper& st) {
    int pressed = 0;
    ImGui::SameLine(0, st.spacing);
    if (ImGui::Button("-", ImVec2(st.button, st.button))) pressed = -1;
    mark(app, std::string(key) + ".minus");
    ImGui::SameLine(0, st.spacing);
    if (ImGui::Button("+", ImVec2(st.button, st.button))) pressed = +1;
    mark(app, std::string(key) + ".plus");
    return pressed;
}

// Stores the edited value (marking the scenario dirty) and shows the field's error under it.
template <class T>
static bool end_number_field(AppState& app, const char* key, T& v, T nv, bool changed) {
    ImGui::PopID();
    if (changed && nv != v) {
        v = nv;
        app.dirty = true;
    }
    field_error(app, key);
    return changed;
}

// The text a number field shows: what the person typed while they edit it or while it does not read
// as a number (ui.number_text), else the value. The text is read by core/number_input.h. While it
// reads, the value follows it; while it does not ("3." on the way to "3.5", or "3.5" in a whole-number
// field), the value is the one from before the edit, nothing half-typed stays, and the reason shows
// under the field until the text is fixed.
template <class T, class Parse>
static bool number_text_field(AppState& app, const char* key, T& nv, const std::string& shown, ImGuiInputTextFlags flags,
                              Parse parse) {
    auto entry = app.ui.number_text.find(key);
    const bool editing = entry != app.ui.number_text.end();
    std::string text = editing ? entry->second.text : shown;
    const std::string before = editing ? entry->second.before : shown;
    std::string typed;
    bool edited = take_typed(app, key, typed);
    if (edited) text = typed;
    if (ImGui::InputText("##v", text.data(), text.capacity() + 1, flags | ImGuiInputTextFlags_CallbackResize, resize_callback,
                         &text))
        edited = true;
    const bool active = being_edited(app, key);  // a phone's text box sends every keystroke: "3" on the way to "3.5"
    mark(app, key);
    register_text(app, key, text, "number", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    const auto r = parse(text, key);
    const T old = nv;
    if (edited) {
        if (r.ok()) nv = *r;
        else if (const auto b = parse(before, key); b.ok()) nv = *b;
    }
    if (edited || (editing && (active || !r.ok()))) app.ui.number_text[key] = {text, before};
    if (!active && r.ok()) app.ui.number_text.erase(key);
    if (!r.ok() && app.ui.number_text.count(key)) draw_error(app, r.errors.front(), r.errors.front().message);
    return nv != old;
}

bool int_field(AppState& app, const char* label, const char* key, int64_t& v, int64_t lo, int64_t hi, bool doubling) {
    field_label(label);
    ImGui::PushID(key);
    int64_t nv = v;
    const Stepper st = begin_stepper(app);
    bool changed = number_text_field(app, key, nv, std::to_string(v), st.flags, parse_whole_number);
    const int step = stepper_buttons(app, key, st);
    if (step != 0) app.ui.number_text.erase(key);  // a step starts from the value
    if (step < 0 && nv > lo) {
        nv = doubling ? std::max(lo, nv / 2) : nv - 1;
        changed = true;
    }
    if (step > 0 && nv < hi) {
        nv = doubling ? std::min(hi, nv * 2) : nv + 1;
        changed = true;
    }
    return end_number_field(app, key, v, nv, changed);
}

bool float_field(AppState& app, const char* label, const char* key, double& v, double lo, double hi, double step,
                 const char* fmt) {
    field_label(label);
    ImGui::PushID(key);
    double nv = v;
    char shown[64];
    std::snprintf(shown, sizeof shown, fmt, v);
    const Stepper st = begin_stepper(app);
    bool changed = number_text_field(app, key, nv, shown, st.flags, parse_decimal_number);
    const int pressed = stepper_buttons(app, key, st);
    if (pressed != 0) app.ui.number_text.erase(key);
    if (pressed < 0) {
        nv = std::max(lo, nv - step);
        changed = true;
    }
    if (pressed > 0) {
        nv = std::min(hi, nv + step);
        changed = true;
    }
    return end_number_field(app, key, v, nv, changed);
}

bool text_field(AppState& app, const char* label, const char* key, std::string& s, const char* hint, bool multiline,
                float height) {
    if (label && *label) field_label(label);
    ImGui::PushID(key);
    bool changed = take_typed(app, key, s);
    ImGuiInputTextFlags flags = ImGuiInputTextFlags_CallbackResize;
    if (app.ui.env.touch) flags |= ImGuiInputTextFlags_ReadOnly;
    if (multiline) {
        if (ImGui::InputTextMultiline("##t", s.data(), s.capacity() + 1, ImVec2(-1, height), flags, resize_callback, &s))
            changed = true;
    } else {
        ImGui::SetNextItemWidth(-1);
        if (ImGui::InputTextWithHint("##t", hint ? hint : "", s.data(), s.capacity() + 1, flags, resize_callback, &s))
            changed = true;
    }
    mark(app, key);
    register_text(app, key, s, multiline ? "multiline" : "text", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    ImGui::PopID();
    return changed;
}

bool password_field(AppState& app, const char* label, const char* key, std::string& s, const char* hint) {
    if (label && *label) field_label(label);
    ImGui::PushID(key);
    bool changed = take_typed(app, key, s);
    ImGuiInputTextFlags flags = ImGuiInputTextFlags_CallbackResize | ImGuiInputTextFlags_Password;
    if (app.ui.env.touch) flags |= ImGuiInputTextFlags_ReadOnly;
    ImGui::SetNextItemWidth(-1);
    if (ImGui::InputTextWithHint("##t", hint ? hint : "", s.data(), s.capacity() + 1, flags, resize_callback, &s)) changed = true;
    mark(app, key);
    register_text(app, key, s, "password", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    ImGui::PopID();
    return changed;
}

bool segmented(AppState& app, const char* key, const char* const* labels, int count, int& selected) {
    bool changed = false;
    const float sp = ImGui::GetStyle().ItemInnerSpacing.x;
    const float w = (ImGui::GetContentRegionAvail().x - sp * static_cast<float>(count - 1)) / static_cast<float>(count);
    ImGui::PushID(key);
    ImGui::BeginGroup();
    for (int i = 0; i < count; ++i) {
        if (i) ImGui::SameLine(0, sp);
        const bool sel = i == selected;
        if (sel) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        if (ImGui::Button(labels[i], ImVec2(w, 0)) && !sel) {
            selected = i;
            changed = true;
        }
        if (sel) ImGui::PopStyleColor();
        mark(app, std::string(key) + "." + std::to_string(i));
    }
    ImGui::EndGroup();
    ImGui::PopID();
    mark(app, key);  // the whole row
    field_error(app, key);
    return changed;
}

namespace {
std::string letters_and_digits(const char* text) {
    std::string out;
    for (const char* c = text; *c; ++c)
        if (std::isalnum(static_cast<unsigned char>(*c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
    return out;
}
}  // namespace

TypeAhead typeahead_begin(AppState& app) {
    TypeAhead t;
    if (ImGui::IsWindowAppearing()) app.ui.typeahead.clear();
    for (ImWchar c : ImGui::GetIO().InputQueueCharacters) {
        if (c >= 128 || !std::isalnum(static_cast<int>(c))) continue;
        if (ImGui::GetTime() - app.ui.typeahead_at > 1.0) app.ui.typeahead.clear();
        app.ui.typeahead += static_cast<char>(std::tolower(static_cast<int>(c)));
        app.ui.typeahead_at = ImGui::GetTime();
        t.changed = true;
    }
    t.typed = app.ui.typeahead;
    return t;
}

void typeahead_item(TypeAhead& t, const char* label) {
    if (t.found || t.typed.empty() || letters_and_digits(label).find(t.typed) == std::string::npos) return;
    t.found = true;
    if (!t.changed) return;
    ImGui::SetScrollHereY(0.5f);
    ImGui::SetFocusID(ImGui::GetItemID(), ImGui::GetCurrentWindow());  // the keyboard highlight: Enter picks it
    ImGuiContext& g = *GImGui;
    g.NavDisableHighlight = false;
    g.NavDisableMouseHover = true;
}

bool finger_rows(const AppState& app) {
    return app.ui.env.touch || ImGui::GetIO().DisplaySize.x < kTwoColumnsMinWidth;
}

bool begin_dropdown(const AppState& app, const char* id, const char* preview, ImGuiComboFlags flags) {
    if (finger_rows(app) && !(flags & ImGuiComboFlags_HeightLargest)) {
        // ImGui's regular list height (8 items, imgui_widgets.cpp BeginComboPopup) in finger rows.
        constexpr int kRows = 8;
        const ImGuiStyle& st = ImGui::GetStyle();
        ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0),
                                            ImVec2(FLT_MAX, kRows * kFingerRowPx - st.ItemSpacing.y + st.WindowPadding.y * 2));
    }
    return ImGui::BeginCombo(id, preview, flags);
}

bool dropdown_item(const AppState& app, const char* label, bool selected, ImGuiSelectableFlags flags) {
    if (!finger_rows(app)) return ImGui::Selectable(label, selected, flags);
    // A Selectable's box takes in the gap to the next item (ItemSpacing.y): the row is kFingerRowPx with it.
    const ImGuiStyle& st = ImGui::GetStyle();
    ImGui::PushStyleVar(ImGuiStyleVar_SelectableTextAlign, ImVec2(st.SelectableTextAlign.x, 0.5f));
    const bool pressed =
        ImGui::Selectable(label, selected, flags, ImVec2(0, std::max(ImGui::GetTextLineHeight(), kFingerRowPx - st.ItemSpacing.y)));
    ImGui::PopStyleVar();
    return pressed;
}

bool int_choice(AppState& app, const char* label, const char* key, int64_t& v, const std::vector<int64_t>& choices) {
    field_label(label);
    bool changed = false;
    ImGui::SetNextItemWidth(-1);
    const std::string preview = std::to_string(v);
    if (begin_dropdown(app, (std::string("##") + key).c_str(), preview.c_str())) {
        for (int64_t c : choices) {
            const bool sel = c == v;
            if (dropdown_item(app, std::to_string(c).c_str(), sel)) {
                v = c;
                changed = true;
            }
            mark(app, std::string(key) + "." + std::to_string(c));
            if (sel) ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
    }
    mark(app, key);
    if (changed) app.dirty = true;
    field_error(app, key);
    return changed;
}

bool check(AppState& app, const char* label, const char* key, bool& v) {
    const bool changed = ImGui::Checkbox(label, &v);
    mark(app, key);
    if (changed) app.dirty = true;
    field_error(app, key);
    return changed;
}

ImU32 col_ok(const AppState& app) {
    return app.ui.theme == Theme::Light ? IM_COL32(30, 140, 60, 255) : IM_COL32(90, 210, 120, 255);
}
ImU32 col_bad(const AppState& app) {
    return app.ui.theme == Theme::Light ? IM_COL32(200, 40, 40, 255) : IM_COL32(255, 110, 100, 255);
}
ImU32 col_text_dim(const AppState&) { return ImGui::GetColorU32(ImGuiCol_TextDisabled); }

ImU32 category_color(Category c, float alpha) {
    const auto a = static_cast<int>(alpha * 255);
    switch (c) {
        case Category::Weights: return IM_COL32(76, 139, 245, a);
        case Category::Gradients: return IM_COL32(240, 160, 60, a);
        case Category::Optimizer: return IM_COL32(200, 90, 200, a);
        case Category::Activations: return IM_COL32(80, 190, 120, a);
        case Category::Logits: return IM_COL32(230, 200, 70, a);
        case Category::KVCache: return IM_COL32(70, 200, 210, a);
        case Category::Buffers: return IM_COL32(160, 160, 170, a);
        case Category::Overhead: return IM_COL32(220, 100, 100, a);
    }
    return IM_COL32(128, 128, 128, a);
}

std::string fmt_bytes(const AppState& app, double bytes) { return bytes_label(bytes, app.ui.unit); }

double axis_step_bytes(double top, SizeUnit u) {
    if (!(top > 0) || !std::isfinite(top)) return 0;
    const double unit = u == SizeUnit::GB ? kGB : kGiB, span = top / unit;
    for (double decade = std::pow(10.0, std::floor(std::log10(span / 5)));; decade *= 10)
        for (double m : {1.0, 2.0, 5.0})
            if (span / (m * decade) <= 5) return m * decade * unit;
}

std::string fit_text(const std::string& text, float width) {
    if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
    const char* ellipsis = "\xE2\x80\xA6";  // U+2026
    const float room = width - ImGui::CalcTextSize(ellipsis).x;
    size_t end = 0;  // longest prefix (whole UTF-8 characters) that fits
    for (size_t i = 0; i < text.size();) {
        size_t next = i + 1;
        while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80) ++next;
        if (ImGui::CalcTextSize(text.data(), text.data() + next).x > room) break;
        end = i = next;
    }
    while (end > 0 && text[end - 1] == ' ') --end;
    return text.substr(0, end) + ellipsis;
}

std::string fmt_int(double v) { return std::isfinite(v) ? grouped_whole(v) : "—"; }

}  // namespace vl::ui
