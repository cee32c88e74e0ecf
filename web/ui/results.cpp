// Result panels: draw the Estimate (and the solver answers / sweep computed in refresh()). Every
// number shown here was produced by the core; this file only scales and prints it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include <imgui_internal.h>

#include "export.h"
#include "framework_profiles.h"
#include "text_format.h"
#include "ui/keyboard.h"
#include "ui/panels.h"
#include "ui/widgets.h"

namespace vl::ui {

namespace {

bool finite_pos(double v) { return std::isfinite(v) && v >= 0; }

// One line per solver answer: "max micro-batch 6", "max context 11k", "needs 4 GPUs".
void solver_lines(AppState& app) {
    const Lang L = app.ui.lang;
    const FitAnswers& d = app.derived.answers;
    const bool infer = app.scenario.mode == Mode::Infer;
    std::string line;
    auto add = [&](const std::string& s) { line += (line.empty() ? "" : "   ·   ") + s; };
    if (d.max_batch.found)
        add(std::string(tr(L, infer ? S::MaxBatch : S::MaxMicroBatch)) + " " + count_label(d.max_batch.value) +
            (d.max_batch.at_search_bound ? "+" : ""));
    if (d.max_seq.found)
        add(std::string(tr(L, infer ? S::MaxContext : S::MaxSeq)) + " " + count_label(d.max_seq.value) +
            (d.max_seq.at_search_bound ? "+" : ""));
    if (!app.estimate.fits() && app.estimate.ok()) {
        if (d.min_gpus.found) {
            char buf[96];
            std::snprintf(buf, sizeof buf, tr(L, S::NeedsGpus), static_cast<long long>(d.min_gpus.value));
            add(std::string(buf) + " (" + gpu_layout_text(d.min_gpus.scenario.parallel) + ")");
        } else {
            add(tr(L, S::NothingFits));
        }
    }
    if (!line.empty()) {
        ImGui::TextWrapped("%s", line.c_str());
        mark(app, "solver");
    }
}

// When it does not fit: each single change that fits (core fit_levers), its peak, and Apply.
void lever_lines(AppState& app) {
    const std::vector<Lever>& levers = app.derived.levers;
    if (levers.empty()) return;
    ImGui::TextUnformatted(tr(app.ui.lang, S::FitsWith));
    std::optional<size_t> chosen;
    for (size_t i = 0; i < levers.size(); ++i) {
        ImGui::PushID(static_cast<int>(i));
        if (ImGui::SmallButton(tr(app.ui.lang, S::Apply))) chosen = i;
        mark(app, "lever." + levers[i].id);
        ImGui::SameLine();
        ImGui::TextWrapped("%s: %s / %s", levers[i].label.c_str(), fmt_bytes(app, levers[i].total_bytes).c_str(),
                           fmt_bytes(app, levers[i].capacity_bytes).c_str());
        ImGui::PopID();
    }
    if (chosen) {
        app.scenario = levers[*chosen].scenario;
        app.ui.number_text.clear();  // the fields show the applied scenario's numbers
        app.dirty = true;
    }
}

}  // namespace

void summary_panel(AppState& app) {
    if (app.scenario.mode == Mode::Local) {  // a plan, not an estimate (its estimate is an error)
        local_verdict_panel(app);
        return;
    }
    const Lang L = app.ui.lang;
    const Estimate& e = app.estimate;
    if (!e.ok()) {
        error_list(app, e.errors);
        return;
    }
    const double total = e.total_bytes, cap = e.gpu_capacity_bytes;
    // Headline: the number the browser test compares with the core's.
    ImGui::SetWindowFontScale(1.6f);
    ImGui::TextUnformatted(shown_total(app).c_str());
    mark(app, "total");
    ImGui::SetWindowFontScale(1.0f);
    char of[160];
    std::snprintf(of, sizeof of, "/ %s %s  ·  %s %s", fmt_bytes(app, cap).c_str(), tr(L, S::PerGpu), tr(L, S::Peak),
                  phase_name(L, app.scenario.mode, e.peak_phase));
    if (ImGui::GetItemRectSize().x + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(of).x < ImGui::GetContentRegionAvail().x)
        ImGui::SameLine();
    ImGui::TextDisabled("%s", of);

    // Fit bar: the scale runs to whichever is larger, the GPU or the total; the GPU limit is a line.
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float w = ImGui::GetContentRegionAvail().x, h = app.ui.env.touch ? 26.0f : 22.0f;
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##fitbar", ImVec2(std::max(w, 10.0f), h));
    not_a_tab_stop(app);
    mark(app, "fitbar");
    const double scale_max = std::max(total, cap) * 1.02;
    const bool fits = e.fits();
    dl->AddRectFilled(p0, ImVec2(p0.x + w, p0.y + h), ImGui::GetColorU32(ImGuiCol_FrameBg), 4);
    if (scale_max > 0 && finite_pos(total)) {
        const float fill = static_cast<float>(std::min(total, cap) / scale_max) * w;
        const float cap_x = static_cast<float>(cap / scale_max) * w;
        dl->AddRectFilled(p0, ImVec2(p0.x + fill, p0.y + h), fits ? col_ok(app) : col_bad(app), 4);
        if (!fits) {
            const float over = static_cast<float>(total / scale_max) * w;
            dl->AddRectFilled(ImVec2(p0.x + cap_x, p0.y + 3), ImVec2(p0.x + over, p0.y + h - 3),
                              (col_bad(app) & 0x00FFFFFF) | 0x80000000, 2);
        }
        dl->AddLine(ImVec2(p0.x + cap_x, p0.y - 3), ImVec2(p0.x + cap_x, p0.y + h + 3), ImGui::GetColorU32(ImGuiCol_Text), 2);
    }
    const double room = e.headroom_bytes();
    ImGui::PushStyleColor(ImGuiCol_Text, fits ? col_ok(app) : col_bad(app));
    ImGui::Text("%s  ·  %s %s", tr(L, fits ? S::Fits : S::DoesNotFit), fmt_bytes(app, std::fabs(room)).c_str(),
                tr(L, fits ? S::Free : S::Over));
    ImGui::PopStyleColor();
    mark(app, "fit");
    if (e.host_bytes > 0) {
        ImGui::SameLine();
        ImGui::TextDisabled("  + %s %s", fmt_bytes(app, e.host_bytes).c_str(), tr(L, S::Host));
    }
    ImGui::TextDisabled("%s: %s  ·  %s", tr(L, S::Params), fmt_int(static_cast<double>(e.params.total)).c_str(),
                        app.scenario.model.name.c_str());
    if (const std::string kv = kv_capacity_text(app.scenario, e, app.ui.unit); !kv.empty()) {
        ImGui::TextWrapped("%s", say(app, kv).c_str());
        mark(app, "kv");
    }
    if (*e.shown_reserve.id != '\0')  // a training run's nvidia-smi figure (core/allocator_reserve.h)
        if (const std::string shown = shown_reserve_text(e, app.ui.unit); !shown.empty()) ImGui::TextWrapped("%s", say(app, shown).c_str());
    solver_lines(app);
    lever_lines(app);
}

void breakdown_panel(AppState& app) {
    if (app.scenario.mode == Mode::Local) {
        local_plan_panel(app);
        return;
    }
    const Estimate& e = app.estimate;
    if (!e.ok() || !(e.total_bytes > 0)) return;
    const Lang L = app.ui.lang;
    // Bytes by category at the peak (host-resident components are not on the GPU).
    double by_cat[8] = {};
    for (int i = 0; i < 8; ++i) {
        const double b = phase_totals(e.components, category_bit(static_cast<Category>(i))).gpu[static_cast<size_t>(e.peak_phase)];
        by_cat[i] = finite_pos(b) ? b : 0;
    }
    double sum = 0;
    for (double b : by_cat) sum += b;
    if (!(sum > 0)) return;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float w = ImGui::GetContentRegionAvail().x, h = 18;
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##stack", ImVec2(std::max(w, 10.0f), h));
    not_a_tab_stop(app);
    const bool hovered = ImGui::IsItemHovered();
    const float mx = ImGui::GetIO().MousePos.x;
    float x = p0.x;
    for (int i = 0; i < 8; ++i) {
        if (by_cat[i] <= 0) continue;
        const float cw = static_cast<float>(by_cat[i] / sum) * w;
        dl->AddRectFilled(ImVec2(x, p0.y), ImVec2(x + cw, p0.y + h), category_color(static_cast<Category>(i)));
        if (hovered && mx >= x && mx < x + cw)
            tooltip(app, vl::format("{}: {} ({:.1f}%)", category_label(L, static_cast<Category>(i)), fmt_bytes(app, by_cat[i]),
                                    100.0 * by_cat[i] / sum));
        x += cw;
    }
    mark(app, "stack");
    // Legend, wrapping to the width.
    const float avail = ImGui::GetContentRegionAvail().x;
    float used = 0;
    for (int i = 0; i < 8; ++i) {
        if (by_cat[i] <= 0) continue;
        char label[96];
        std::snprintf(label, sizeof label, "%s %.0f%%", category_label(L, static_cast<Category>(i)), 100.0 * by_cat[i] / sum);
        const float item_w = ImGui::CalcTextSize(label).x + 18;
        if (used > 0 && used + item_w < avail) ImGui::SameLine();
        else used = 0;
        const ImVec2 c = ImGui::GetCursorScreenPos();
        const float th = ImGui::GetTextLineHeight();
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(c.x, c.y + th * 0.2f), ImVec2(c.x + th * 0.6f, c.y + th * 0.8f),
                                                  category_color(static_cast<Category>(i)), 2);
        ImGui::Dummy(ImVec2(th * 0.6f + 4, th));
        ImGui::SameLine(0, 0);
        ImGui::TextUnformatted(label);
        used += item_w + ImGui::GetStyle().ItemSpacing.x;
    }
}

void table_panel(AppState& app) {
    const Estimate& e = app.estimate;
    if (!e.ok()) return;
    const Lang L = app.ui.lang;
    // The derivation's head: where the settings came from and which mechanism holds which bytes of the peak.
    if (const std::string p = profile_text(app.scenario); !p.empty()) {
        ImGui::TextWrapped("%s", say(app, p).c_str());
        mark(app, "profile_line");
    }
    if (const std::string m = mechanisms_text(e, app.ui.unit); !m.empty()) {
        ImGui::TextWrapped("%s", say(app, m).c_str());
        mark(app, "mechanisms");
    }
    ImGui::TextDisabled("%s", tr(L, S::ShowMath));
    const bool narrow = ImGui::GetContentRegionAvail().x < 480;
    const int cols = narrow ? 3 : 4;
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp;
    const float table_right = ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x;  // window-local x
    if (!ImGui::BeginTable("##components", cols, flags)) return;
    // Numbers take the width they need; the name gets the rest and is cut with an ellipsis.
    ImGui::TableSetupColumn(tr(L, S::Component), ImGuiTableColumnFlags_WidthStretch, 1.0f);
    if (!narrow) ImGui::TableSetupColumn(tr(L, S::Bytes), ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn(unit_name(app.ui.unit), ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn(tr(L, S::ShareCol), ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableHeadersRow();
    const unsigned peak = phase_bit(e.peak_phase);
    for (const Component& c : e.components) {
        if (!finite_pos(c.bytes)) continue;
        const bool at_peak = (c.phases & peak) && !c.host;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::PushID(c.id);
        const ImVec2 cp = ImGui::GetCursorScreenPos();
        const float th = ImGui::GetTextLineHeight();
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(cp.x, cp.y + th * 0.15f), ImVec2(cp.x + 4, cp.y + th * 0.85f),
                                                  category_color(c.category, at_peak ? 1.0f : 0.35f));
        ImGui::Indent(8);
        std::string label = component_label(app, c);
        if (c.host) label += std::string(" (") + tr(L, S::Host) + ")";
        const std::string shown = fit_text(label, ImGui::GetContentRegionAvail().x - ImGui::GetTreeNodeToLabelSpacing());
        const bool cut = shown != label;
        const bool open = ImGui::TreeNodeEx("##row", ImGuiTreeNodeFlags_SpanFullWidth | ImGuiTreeNodeFlags_NoTreePushOnOpen,
                                            "%s", shown.c_str());
        if (cut && ImGui::IsItemHovered()) tooltip(app, label);
        mark(app, std::string("row.") + c.id);
        ImGui::Unindent(8);
        if (!narrow) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(fmt_int(c.bytes).c_str());
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(amount(c.bytes, app.ui.unit).c_str());
        ImGui::TableNextColumn();
        if (at_peak && e.total_bytes > 0) ImGui::Text("%.1f%%", 100.0 * c.bytes / e.total_bytes);
        else ImGui::TextDisabled("—");
        if (open) {
            // Show the math: formula, the same with the user's numbers, and its source.
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Indent(16);
            // The math spans the whole row: drawn outside the first column's clip rectangle.
            ImGui::TablePushBackgroundChannel();
            ImGui::PushTextWrapPos(table_right - 4);
            if (cut) ImGui::TextWrapped("%s", label.c_str());
            ImGui::TextDisabled("%s", tr(L, S::Formula));
            ImGui::TextWrapped("%.*s", static_cast<int>(c.formula().size()), c.formula().data());
            if (!c.substituted().empty()) {
                ImGui::TextDisabled("%s", tr(L, S::WithNumbers));
                ImGui::TextWrapped("%.*s", static_cast<int>(c.substituted().size()), c.substituted().data());
            }
            ImGui::TextDisabled("%s", tr(L, S::Source));
            ImGui::TextWrapped("%s", say(app, c.source).c_str());  // the citation keys [..] stay as written
            ImGui::PopTextWrapPos();
            ImGui::TablePopBackgroundChannel();
            ImGui::Unindent(16);
            mark(app, std::string("math.") + c.id);
            for (int i = 1; i < cols; ++i) ImGui::TableNextColumn();
        }
        ImGui::PopID();
    }
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%s (%s)", tr(L, S::Total), phase_name(L, app.scenario.mode, e.peak_phase));
    if (!narrow) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(fmt_int(e.total_bytes).c_str());
    }
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(amount(e.total_bytes, app.ui.unit).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted("100%");
    ImGui::EndTable();
}

// One row per phase: name, a bar on a scale running to max(GPU limit, largest phase), the value.
// The GPU limit is a vertical line where it really is, so small totals read as small, not as
// nothing, and every value is printed.
void phases_panel(AppState& app) {
    const Estimate& e = app.estimate;
    if (!e.ok()) return;
    const Lang L = app.ui.lang;
    const Mode mode = app.scenario.mode;
    ImGui::TextUnformatted(tr(L, S::Phases));
    const Phase phases[] = {Phase::Load, Phase::Forward, Phase::Backward, Phase::Step};
    const double cap = e.gpu_capacity_bytes;
    double top = cap;
    for (double b : e.phase_bytes)
        if (finite_pos(b)) top = std::max(top, b);
    if (!(top > 0)) return;
    float name_w = 0, value_w = 0;
    int n = 0;
    for (Phase p : phases) {
        if (mode == Mode::Infer && p == Phase::Backward) continue;
        name_w = std::max(name_w, ImGui::CalcTextSize(phase_name(L, mode, p)).x);
        value_w = std::max(value_w, ImGui::CalcTextSize(fmt_bytes(app, e.phase_bytes[static_cast<int>(p)]).c_str()).x);
        ++n;
    }
    const float pad = ImGui::GetStyle().ItemSpacing.x, lh = ImGui::GetTextLineHeight();
    const float row_h = lh + (app.ui.env.touch ? 10.0f : 6.0f);
    const float w = std::max(ImGui::GetContentRegionAvail().x, 120.0f);
    const float bar_x = name_w + pad, bar_w = std::max(w - name_w - value_w - 2 * pad, 20.0f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const float rows_h = row_h * static_cast<float>(n);
    ImGui::InvisibleButton("##phases", ImVec2(w, rows_h + lh + 4));
    not_a_tab_stop(app);
    mark(app, "phases");
    int i = 0;
    for (Phase p : phases) {
        if (mode == Mode::Infer && p == Phase::Backward) continue;
        const double b = e.phase_bytes[static_cast<int>(p)];
        const bool peak = p == e.peak_phase;
        const float y = p0.y + row_h * static_cast<float>(i);
        const float ty = y + (row_h - lh) / 2;
        const char* name = phase_name(L, mode, p);
        dl->AddText(ImVec2(p0.x, ty), peak ? ImGui::GetColorU32(ImGuiCol_Text) : col_text_dim(app), name);
        const ImVec2 b0(p0.x + bar_x, y + 3), b1(p0.x + bar_x + bar_w, y + row_h - 3);
        dl->AddRectFilled(b0, b1, (col_text_dim(app) & 0x00FFFFFF) | 0x30000000, 3);  // the track, visible in both themes
        const float fill = finite_pos(b) ? static_cast<float>(b / top) * bar_w : 0;
        const ImU32 col = b > cap ? col_bad(app) : (peak ? col_ok(app) : ImGui::GetColorU32(ImGuiCol_PlotHistogram));
        if (fill > 0) dl->AddRectFilled(b0, ImVec2(b0.x + std::max(fill, 2.0f), b1.y), col, 3);
        const std::string val = fmt_bytes(app, b);
        const float vw = ImGui::CalcTextSize(val.c_str()).x;
        dl->AddText(ImVec2(p0.x + w - vw, ty), peak ? ImGui::GetColorU32(ImGuiCol_Text) : col_text_dim(app), val.c_str());
        ++i;
    }
    // The GPU limit, across the rows, with its value under them.
    const float cx = p0.x + bar_x + static_cast<float>(cap / top) * bar_w;
    dl->AddLine(ImVec2(cx, p0.y), ImVec2(cx, p0.y + rows_h + 2), col_bad(app), 2);
    const std::string limit = std::string(tr(L, S::GpuLimit)) + " " + fmt_bytes(app, cap);
    const float lw = ImGui::CalcTextSize(limit.c_str()).x;
    dl->AddText(ImVec2(std::clamp(cx - lw, p0.x, p0.x + w - lw), p0.y + rows_h + 2), col_bad(app), limit.c_str());
}

void sweep_panel(AppState& app) {
    const Estimate& e = app.estimate;
    const Derived& d = app.derived;
    if (!e.ok() || d.sweep.size() < 2) return;
    const Lang L = app.ui.lang;
    const bool infer = app.scenario.mode == Mode::Infer;
    ImGui::TextUnformatted(tr(L, S::Sweep));
    ImGui::SameLine();
    const char* axes[] = {tr(L, S::AxisBatch), tr(L, S::AxisSeq)};
    int axis = static_cast<int>(app.ui.sweep_axis);
    if (segmented(app, "sweep.axis", axes, 2, axis)) {
        app.ui.sweep_axis = static_cast<SweepAxis>(axis);
        app.dirty = true;  // recompute the sweep (the scenario itself is unchanged)
    }
    double top = e.gpu_capacity_bytes;
    for (const SweepPoint& p : d.sweep)
        if (finite_pos(p.total)) top = std::max(top, p.total);
    if (!(top > 0)) return;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float w = ImGui::GetContentRegionAvail().x, h = 150, lh = ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##sweep", ImVec2(std::max(w, 10.0f), h + lh));
    not_a_tab_stop(app);
    mark(app, "sweep");
    const bool hovered = ImGui::IsItemHovered();
    const ImVec2 p1(p0.x + w, p0.y + h);
    dl->AddRectFilled(p0, p1, ImGui::GetColorU32(ImGuiCol_FrameBg), 3);
    const double lx0 = std::log2(static_cast<double>(d.sweep.front().x)), lx1 = std::log2(static_cast<double>(d.sweep.back().x));
    auto X = [&](double x) { return p0.x + 6 + static_cast<float>((std::log2(x) - lx0) / (lx1 - lx0)) * (w - 12); };
    auto Y = [&](double b) { return p1.y - static_cast<float>(std::min(b, top) / top) * (h - 6); };
    // The byte axis: gridlines at round amounts, labelled above the line at the left edge, where the
    // curve (growing with the axis) is low; none where the GPU limit's own label or the top row's markers are.
    const float cy = Y(e.gpu_capacity_bytes);
    const double step = axis_step_bytes(top, app.ui.unit);
    const int decimals = step >= (app.ui.unit == SizeUnit::GB ? kGB : kGiB) ? 0 : 1;  // "20 GiB", "0.2 GiB"
    for (int i = 1; step > 0 && i * step <= top; ++i) {
        const float gy = Y(i * step);
        const std::string tick = amount_with_unit(i * step, app.ui.unit, decimals);
        dl->AddLine(ImVec2(p0.x, gy), ImVec2(p1.x, gy), ImGui::GetColorU32(ImGuiCol_Border), 1);
        if (std::fabs(gy - cy) >= lh && gy - lh >= p0.y + lh)  // the top row is the markers' (current value, answer)
            dl->AddText(ImVec2(p0.x + 6, gy - lh), col_text_dim(app), tick.c_str());
    }
    // GPU limit.
    dl->AddLine(ImVec2(p0.x, cy), ImVec2(p1.x, cy), col_bad(app), 1.5f);
    const std::string limit_text = std::string(tr(L, S::GpuLimit)) + " " + fmt_bytes(app, e.gpu_capacity_bytes);
    dl->AddText(ImVec2(p0.x + 6, cy - lh), col_bad(app), limit_text.c_str());
    // The curve.
    ImVec2 prev;
    bool have = false;
    for (const SweepPoint& p : d.sweep) {
        if (!finite_pos(p.total)) {
            have = false;
            continue;
        }
        const ImVec2 q(X(static_cast<double>(p.x)), Y(p.total));
        if (have) dl->AddLine(prev, q, ImGui::GetColorU32(ImGuiCol_PlotLines), 2);
        dl->AddCircleFilled(q, 2.5f, p.total > e.gpu_capacity_bytes ? col_bad(app) : ImGui::GetColorU32(ImGuiCol_PlotLines));
        if (hovered && std::fabs(ImGui::GetIO().MousePos.x - q.x) < 6)
            tooltip(app, vl::format("{} = {}: {}", axes[axis], p.x, fmt_bytes(app, p.total)));
        prev = q;
        have = true;
    }
    // The current value and the solver's answer on this axis.
    const int64_t cur = app.ui.sweep_axis == SweepAxis::Batch ? (infer ? app.scenario.infer.batch : app.scenario.train.micro_batch)
                                                              : (infer ? app.scenario.infer.context : app.scenario.train.seq_len);
    auto vmark = [&](int64_t x, ImU32 col, const std::string& text, float row) {
        const double xd = std::clamp(static_cast<double>(x), static_cast<double>(d.sweep.front().x),
                                     static_cast<double>(d.sweep.back().x));
        const float px = X(xd);
        dl->AddLine(ImVec2(px, p0.y), ImVec2(px, p1.y), col, 1.5f);
        const float tw = ImGui::CalcTextSize(text.c_str()).x;
        const float tx = std::clamp(px + 4, p0.x + 2, p1.x - tw - 2);
        dl->AddText(ImVec2(tx, p0.y + 2 + row * lh), col, text.c_str());
    };
    vmark(cur, ImGui::GetColorU32(ImGuiCol_TextDisabled), std::to_string(cur), 1);
    const SolveResult& ans = app.ui.sweep_axis == SweepAxis::Batch ? d.answers.max_batch : d.answers.max_seq;
    if (ans.found) {
        const char* what = tr(L, app.ui.sweep_axis == SweepAxis::Batch ? (infer ? S::MaxBatch : S::MaxMicroBatch)
                                                                        : (infer ? S::MaxContext : S::MaxSeq));
        vmark(ans.value, col_ok(app), std::string(what) + " " + count_label(ans.value), 0);
    }
    // x axis labels: first, middle, last.
    for (size_t i : {size_t{0}, d.sweep.size() / 2, d.sweep.size() - 1}) {
        const std::string t = count_label(d.sweep[i].x);
        const float tw = ImGui::CalcTextSize(t.c_str()).x;
        const float tx = std::clamp(X(static_cast<double>(d.sweep[i].x)) - tw / 2, p0.x, p1.x - tw);
        dl->AddText(ImVec2(tx, p1.y + 2), col_text_dim(app), t.c_str());
    }
}

void notes_panel(AppState& app) {
    const Estimate& e = app.estimate;
    if (e.warnings.empty()) return;
    if (ImGui::CollapsingHeader(tr(app.ui.lang, S::Warnings))) {
        for (size_t i = 0; i < e.warnings.size(); ++i) note_line(app, "notes." + std::to_string(i), say(app, e.warnings[i]));
    }
    mark(app, "notes");
}

}  // namespace vl::ui
