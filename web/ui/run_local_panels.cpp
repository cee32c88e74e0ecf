// Run locally panels (Mode::Local): the inputs write s.local through run_local.h; the results draw
// AppState::local (plan_local). Nothing is computed here.
#include <imgui.h>

#include "model/presets.h"
#include "ui/panels.h"
#include "ui/run_local.h"
#include "ui/widgets.h"
#include "units.h"

namespace vl::ui {

namespace {

// A combo over a list of values, each item marked "<key>.<name>".
template <class T, class Name>
bool choice_combo(AppState& app, const char* label, const std::string& key, const std::vector<T>& values, T current, T& chosen,
                  Name name) {
    if (label) field_label(label);
    bool changed = false;
    ImGui::SetNextItemWidth(-1);
    if (begin_dropdown(app, ("##" + key).c_str(), name(current).c_str())) {
        for (const T& v : values) {
            if (dropdown_item(app, name(v).c_str(), v == current)) {
                chosen = v;
                changed = v != current;
            }
            mark(app, key + "." + name(v));
        }
        ImGui::EndCombo();
    }
    mark(app, key);
    return changed;
}

std::string gpu_label(const std::string& id) {
    const GpuPreset* g = find_gpu(id);
    return g ? g->name + "  ·  " + g->marketed : id;
}

}  // namespace

void local_setup_panel(AppState& app) {
    const Lang L = app.ui.lang;
    LocalOptions& lo = app.scenario.local;
    field_label(tr(L, S::Engine));
    const char* engines[] = {"llama.cpp", "Ollama", "vLLM", "SGLang"};
    int e = static_cast<int>(lo.engine);
    if (segmented(app, "local.engine", engines, 4, e)) set_local_engine(app, static_cast<LocalEngine>(e));
    WeightFormat w = lo.weights;
    if (choice_combo(app, tr(L, S::WeightFormat), "local.weights", local_weight_choices(lo.engine), lo.weights, w,
                     [](WeightFormat f) { return std::string(enum_name(f)); }))
        set_local_weights(app, w);
    field_error(app, "local.weights");
    KvDtype kv = lo.kv;
    if (choice_combo(app, tr(L, S::KvDtype), "local.kv", local_kv_choices(lo.engine), lo.kv, kv,
                     [&](KvDtype k) { return local_kv_name(lo.engine, k); })) {
        lo.kv = kv;
        app.dirty = true;
    }
    field_error(app, "local.kv");
    const bool serving = is_serving(lo.engine);
    int_field(app, tr(L, serving ? S::MaxModelLen : S::Context), "local.context", lo.context, serving ? 0 : 256, 1 << 24, true);
    field_error(app, "local.context");
    if (!serving) {
        check(app, tr(L, S::FlashAttn), "local.flash_attention", lo.flash_attention);
    } else {
        float_field(app, tr(L, S::GpuMemUtil), "local.gpu_memory_utilization", lo.gpu_memory_utilization, 0.05, 1.0, 0.05, "%.2f");
        field_error(app, "local.gpu_memory_utilization");
        int_field(app, tr(L, S::MaxNumSeqs), "local.max_num_seqs", lo.max_num_seqs, 0, 1 << 20, true);
        field_error(app, "local.max_num_seqs");
    }
}

void local_machine_panel(AppState& app) {
    const Lang L = app.ui.lang;
    LocalOptions& lo = app.scenario.local;
    field_label(tr(L, S::Machine));
    const char* machines[] = {tr(L, S::PcGpus), tr(L, S::AppleMac)};
    int mac = lo.apple_chip.empty() ? 0 : 1;
    if (segmented(app, "local.machine", machines, 2, mac)) set_local_machine(app, mac == 1);
    if (!lo.apple_chip.empty()) {
        std::vector<std::string> ids;
        for (const AppleChip& c : apple_chips()) ids.push_back(c.id);
        std::string chip = lo.apple_chip;
        if (choice_combo(app, tr(L, S::AppleChip), "local.apple_chip", ids, lo.apple_chip, chip, [](const std::string& id) { return id; })) {
            lo.apple_chip = chip;
            app.dirty = true;
        }
        field_error(app, "local.apple_chip");
    } else {
        std::vector<std::string> ids;
        for (const GpuPreset& g : gpu_presets()) ids.push_back(g.id);
        for (size_t i = 0; i < lo.gpus.size(); ++i) {
            ImGui::PushID(static_cast<int>(i));
            const std::string key = "local.gpus." + std::to_string(i);
            const float remove_w = ImGui::CalcTextSize(tr(L, S::Remove)).x + ImGui::GetStyle().FramePadding.x * 2;
            ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - remove_w - ImGui::GetStyle().ItemSpacing.x);
            std::string id = lo.gpus[i];
            if (begin_dropdown(app, "##gpu", gpu_label(lo.gpus[i]).c_str(), ImGuiComboFlags_HeightLargest)) {  // every preset in view
                TypeAhead typed = typeahead_begin(app);
                for (const std::string& g : ids) {
                    const std::string label = gpu_label(g);
                    if (dropdown_item(app, label.c_str(), g == lo.gpus[i])) id = g;
                    typeahead_item(typed, label.c_str());
                    mark(app, key + "." + g);
                }
                ImGui::EndCombo();
            }
            mark(app, key);
            if (id != lo.gpus[i]) set_local_gpu(app, i, id);
            ImGui::SameLine();
            const bool removed = ImGui::Button(tr(L, S::Remove));
            mark(app, key + ".remove");
            ImGui::PopID();
            field_error(app, ("local.gpus[" + std::to_string(i) + "]").c_str());
            if (removed) {
                remove_local_gpu(app, i);
                break;
            }
        }
        if (ImGui::Button(tr(L, S::AddGpu))) add_local_gpu(app, lo.gpus.empty() ? LocalOptions{}.gpus.front() : lo.gpus.back());
        mark(app, "local.gpus.add");
        local_custom_gpus_panel(app);
        field_error(app, "local.gpus");
    }
    double gib = lo.ram_bytes / kGiB;
    if (float_field(app, tr(L, lo.apple_chip.empty() ? S::SystemRam : S::UnifiedRam), "local.ram_bytes", gib, 1, 4096, 8, "%.0f"))
        lo.ram_bytes = gib * kGiB;
    field_error(app, "local.ram_bytes");
    if (!lo.apple_chip.empty()) {
        int_field(app, tr(L, S::WiredLimit), "local.wired_limit_mb", lo.wired_limit_mb, 0, 1 << 22, false);
        field_error(app, "local.wired_limit_mb");
    }
    section_errors(app, "local");
}

void local_verdict_panel(AppState& app) {
    const Lang L = app.ui.lang;
    const LocalPlan& p = app.local;
    if (!p.ok()) {
        error_list(app, p.errors);
        return;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, p.fits ? col_ok(app) : col_bad(app));
    ImGui::SetWindowFontScale(1.3f);
    ImGui::TextUnformatted(tr(L, p.fits ? S::Fits : S::DoesNotFit));
    ImGui::SetWindowFontScale(1.0f);
    mark(app, "local.verdict");
    if (!p.fits && !p.advice.empty()) ImGui::TextWrapped("%s", say(app, p.advice).c_str());
    ImGui::PopStyleColor();
    ImGui::TextWrapped("%s", say(app, p.summary).c_str());
    ImGui::Text("%s: %lld", tr(L, S::LargestContext), static_cast<long long>(p.largest_context));
    mark(app, "local.largest_context");
}

void local_plan_panel(AppState& app) {
    const Lang L = app.ui.lang;
    const LocalPlan& p = app.local;
    if (!p.ok()) return;
    const std::vector<std::string> headers = local_device_headers(app);
    const int columns = static_cast<int>(headers.size());
    const size_t total_col = headers.size() - 2;
    if (ImGui::GetContentRegionAvail().x < 640) {
        // Narrow (a phone): one wrapped line per device, each number named.
        for (const LocalDevice& d : p.devices) {
            const std::vector<std::string> c = local_device_cells(app, d);
            std::string line = c[0] + ": " + c[1];
            for (size_t i = 2; i < c.size(); ++i) line += std::string(i == 2 ? "; " : ", ") + headers[i] + " " + c[i];
            ImGui::PushStyleColor(ImGuiCol_Text, d.fits() ? ImGui::GetColorU32(ImGuiCol_Text) : col_bad(app));
            ImGui::TextWrapped("%s", line.c_str());
            ImGui::PopStyleColor();
        }
    } else if (ImGui::BeginTable("##devices", columns, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp)) {
        for (int i = 0; i < columns; ++i)
            ImGui::TableSetupColumn(headers[static_cast<size_t>(i)].c_str(), i < 2 ? ImGuiTableColumnFlags_WidthStretch : ImGuiTableColumnFlags_WidthFixed);
        ImGui::TableHeadersRow();
        for (const LocalDevice& d : p.devices) {
            ImGui::TableNextRow();
            const std::vector<std::string> cells = local_device_cells(app, d);
            for (size_t c = 0; c < cells.size(); ++c) {
                ImGui::TableNextColumn();
                if (c == total_col && !d.fits()) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(col_bad(app)), "%s", cells[c].c_str());
                else ImGui::TextUnformatted(cells[c].c_str());
            }
        }
        ImGui::EndTable();
    }
    mark(app, "local.devices");
    if (!p.speed.empty()) {
        ImGui::TextWrapped("%s: %s", tr(L, S::Speed), say(app, p.speed).c_str());
        mark(app, "local.speed");
    }
    subheading(tr(L, S::Launch));
    for (size_t i = 0; i < p.launch.size(); ++i) {
        const LaunchLine& l = p.launch[i];
        const std::string what = "launch." + std::to_string(i);
        ImGui::PushID(static_cast<int>(i));
        ImGui::TextDisabled("%s", l.what.c_str());
        ImGui::SameLine();
        if (ImGui::SmallButton(tr(L, S::Copy))) copy_text(app, what, l.text);
        mark(app, "local.copy." + std::to_string(i));
        copied_badge(app, what.c_str());
        ImGui::PushTextWrapPos(0);
        ImGui::TextUnformatted(l.text.c_str());
        ImGui::PopTextWrapPos();
        mark(app, "local.launch." + std::to_string(i));
        ImGui::PopID();
    }
    for (size_t i = 0; i < p.notes.size(); ++i) note_line(app, "local.note." + std::to_string(i), say(app, p.notes[i]));
    local_rank_panel(app);
    local_compare_panel(app);
}

// Which model fits best on this machine (local.rank): computed when asked (a second or so), each
// model's best type with a Use button; a machine changed since shows the table as stale.
void local_rank_panel(AppState& app) {
    const Lang L = app.ui.lang;
    const Scenario& s = app.scenario;
    subheading(tr(L, S::RankTitle));
    const bool stale = s.local.rank && app.local_rank_for != rank_machine_key(s);
    if (!s.local.rank || stale) {
        if (ImGui::Button(tr(L, stale ? S::RankAgain : S::RankButton))) rank_local_models(app);
        mark(app, "local.rank");
        if (!s.local.rank) return;
    }
    if (!app.local_rank.ok()) {
        ImGui::TextWrapped("%s", say(app, app.local_rank.error).c_str());
        return;
    }
    const std::vector<RankRow> rows = shown_rank_rows(app);
    if (rows.empty()) ImGui::TextWrapped("%s", tr(L, S::RankNone));
    for (size_t i = 0; i < rows.size(); ++i) {
        ImGui::PushID(static_cast<int>(i));
        if (ImGui::SmallButton(tr(L, S::Use))) use_ranked(app, rows[i]);
        mark(app, "local.rank.use." + std::to_string(i));
        ImGui::SameLine();
        ImGui::TextWrapped("%zu. %s", i + 1, say(app, rank_row_text(rows[i])).c_str());
        ImGui::PopID();
    }
    mark(app, "local.rank.rows");
    ImGui::TextDisabled("%s", tr(L, S::RankOrder));
}

}  // namespace vl::ui
