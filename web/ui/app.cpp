// App state logic: defaults, recomputation, links, config import, page events, the test hook.
// No drawing here (panels are in inputs.cpp, results.cpp, share.cpp; layout in layout.cpp).
#include "ui/app.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "export.h"
#include "model/hf_config.h"
#include "model/presets.h"
#include "scenario_json.h"
#include "share_link.h"

namespace vl::ui {

Scenario default_scenario() {
    Scenario s;
    if (const ModelPreset* p = find_model("llama-3.1-8b")) s.model = p->spec;
    if (const GpuPreset* g = find_gpu("h100-80gb")) s.gpu = g->gpu();
    s.mode = Mode::Infer;
    return s;
}

AppState make_app_state() {
    AppState app;
    app.scenario = default_scenario();
    refresh(app);
    return app;
}

namespace {

// The x values of the memory chart: powers of two across the knob's useful range.
std::vector<int64_t> sweep_values(const Scenario& s, SweepAxis axis) {
    std::vector<int64_t> xs;
    const bool infer = s.mode == Mode::Infer;
    int64_t lo = 1, hi = 256;
    if (axis == SweepAxis::Batch) hi = infer ? 1024 : 256;
    else {
        lo = 256;
        hi = std::max<int64_t>(s.model.max_position > 0 ? s.model.max_position : 131072, 4096);
        hi = std::min<int64_t>(hi, 1 << 20);
    }
    for (int64_t x = lo; x <= hi; x *= 2) xs.push_back(x);
    return xs;
}

Knob batch_knob(const Scenario& s) { return s.mode == Mode::Infer ? Knob::Batch : Knob::MicroBatch; }
Knob seq_knob(const Scenario& s) { return s.mode == Mode::Infer ? Knob::Context : Knob::SeqLen; }

void solve_all(AppState& app) {
    Derived& d = app.derived;
    d = Derived{};
    const Scenario& s = app.scenario;
    if (!app.estimate.ok()) return;
    const Knob k = app.ui.sweep_axis == SweepAxis::Batch ? batch_knob(s) : seq_knob(s);
    for (int64_t x : sweep_values(s, app.ui.sweep_axis)) {
        Scenario t = s;
        apply_knob(t, k, x);
        const Estimate e = estimate(t, Detail::NumbersOnly);
        d.sweep.push_back({x, e.ok() && std::isfinite(e.total_bytes) ? e.total_bytes : -1.0});
    }
    if (s.model.architecture_known()) {
        d.max_batch = solve(s, batch_knob(s));
        SolveOptions so;
        so.hi = std::min<int64_t>(std::max<int64_t>(s.model.max_position, 4096), 1 << 22);
        d.max_seq = solve(s, seq_knob(s), so);
    }
    if (!app.estimate.fits()) {
        SolveOptions go;
        go.max_gpus = 512;
        d.min_gpus = solve(s, Knob::GpuCount, go);
    }
    d.solved = true;
}

bool same_model(const ModelSpec& a, const ModelSpec& b) {
    return model_to_json(a, JsonStyle::Compact) == model_to_json(b, JsonStyle::Compact);
}

// Which presets a scenario uses (after a link or a scenario file replaced it).
void sync_preset_ids(AppState& app) {
    const Scenario& s = app.scenario;
    app.ui.preset_id.clear();
    if (!s.model.architecture_known()) app.ui.source = ModelSource::ParamsOnly;
    else {
        app.ui.source = ModelSource::Custom;
        for (const ModelPreset& p : model_presets())
            if (p.spec.name == s.model.name && same_model(p.spec, s.model)) {
                app.ui.preset_id = p.id;
                app.ui.source = ModelSource::Preset;
                break;
            }
    }
    app.ui.gpu_preset_id.clear();
    for (const GpuPreset& g : gpu_presets())
        if (g.name == s.gpu.name && g.memory_bytes == s.gpu.memory_bytes) app.ui.gpu_preset_id = g.id;
}

std::string trim(const std::string& t) {
    size_t b = t.find_first_not_of(" \t\r\n"), e = t.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : t.substr(b, e - b + 1);
}

}  // namespace

void refresh(AppState& app) {
    if (!app.dirty) return;
    app.estimate = estimate(app.scenario, Detail::Full);
    solve_all(app);
    app.dirty = false;
    // The URL fragment follows the scenario (history.replaceState: no history entry per keystroke).
    std::string link = encode_share_link(app.scenario);
    if (link != app.ui.last_fragment) {
        app.ui.last_fragment = link;
        app.outbox.push_back({"fragment", link, "", "", 0, 0, 0, 0});
    }
}

bool load_link(AppState& app, const std::string& fragment) {
    std::string f = trim(fragment);
    if (!f.empty() && f[0] == '#') f.erase(0, 1);
    if (f.empty()) return true;
    Result<Scenario> r = decode_share_link(f);
    if (!r.ok()) {
        std::string why;
        for (const FieldError& e : r.errors) why += (why.empty() ? "" : "; ") + to_string(e);
        app.scenario = default_scenario();
        sync_preset_ids(app);
        app.ui.notice = std::string(tr(app.ui.lang, S::LinkNotice)) + " " + why;
        app.dirty = true;
        return false;
    }
    app.scenario = *r;
    sync_preset_ids(app);
    app.ui.last_fragment = f;
    app.dirty = true;
    return true;
}

bool import_config(AppState& app, const std::string& text) {
    app.ui.config_text = text;
    app.ui.config_errors.clear();
    app.ui.config_warnings.clear();
    // A vramlens scenario file (exports, CLI) carries "version": load the whole scenario.
    if (text.find("\"version\"") != std::string::npos) {
        Result<Scenario> sc = scenario_from_json(text);
        if (sc.ok()) {
            app.scenario = *sc;
            sync_preset_ids(app);
            app.dirty = true;
            return true;
        }
    }
    Result<ModelSpec> r = import_hf_config(text);
    app.ui.config_warnings = r.warnings;
    if (!r.ok()) {
        app.ui.config_errors = r.errors;
        return false;
    }
    app.scenario.model = *r;
    if (app.scenario.model.name.empty()) app.scenario.model.name = "config.json";
    app.ui.source = ModelSource::Config;
    app.ui.preset_id.clear();
    app.dirty = true;
    return true;
}

bool select_model_preset(AppState& app, const std::string& id) {
    const ModelPreset* p = find_model(id);
    if (!p) return false;
    app.scenario.model = p->spec;
    app.ui.preset_id = p->id;
    app.ui.source = ModelSource::Preset;
    app.dirty = true;
    return true;
}

void handle_inbox(AppState& app) {
    std::vector<InEvent> events;
    events.swap(app.inbox);
    for (const InEvent& ev : events) {
        if (ev.kind == "hash") {
            if (trim(ev.text) != "#" + app.ui.last_fragment && trim(ev.text) != app.ui.last_fragment) load_link(app, ev.text);
        } else if (ev.kind == "paste" || ev.kind == "drop") {
            const std::string t = trim(ev.text);
            const size_t link = t.find("#v");
            if (link != std::string::npos && t.find('{') == std::string::npos) load_link(app, t.substr(link));
            else if (!t.empty() && t[0] == '{') {
                import_config(app, t);
                if (app.ui.source == ModelSource::Config || app.ui.config_errors.size()) app.ui.phone_tab = PhoneTab::Setup;
            }
        } else if (ev.kind == "text") {
            app.ui.text_buffers[ev.key] = ev.text;
        } else if (ev.kind == "text_done") {
            if (app.ui.editing_key == ev.key) app.ui.editing_key.clear();
        }
    }
}

std::string shown_total(const AppState& app) {
    const Estimate& e = app.estimate;
    if (!e.ok() || !std::isfinite(e.total_bytes)) return "—";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f %s", to_unit(e.total_bytes, app.ui.unit), unit_name(app.ui.unit));
    return buf;
}

std::string hook_json(const AppState& app) {
    const Estimate& e = app.estimate;
    nlohmann::json j;
    j["version"] = VRAMLENS_VERSION;
    j["ok"] = e.ok();
    j["total_bytes"] = e.total_bytes;
    j["shown_total"] = shown_total(app);
    j["shown_unit"] = unit_name(app.ui.unit);
    j["peak_phase"] = static_cast<int>(e.peak_phase);
    j["params_total"] = e.params.total;
    j["gpu_capacity_bytes"] = e.gpu_capacity_bytes;
    j["fits"] = e.fits();
    j["errors"] = nlohmann::json::array();
    for (const FieldError& err : e.errors) j["errors"].push_back({{"field", err.field}, {"message", err.message}});
    j["components"] = nlohmann::json::array();
    for (const Component& c : e.components) j["components"].push_back({{"id", c.id}, {"bytes", c.bytes}});
    const std::string sj = scenario_to_json(app.scenario, JsonStyle::Compact);
    j["scenario"] = sj;
    j["link"] = app.ui.last_fragment;
    // The core's own number for the same scenario, read back from its JSON form: what the UI shows
    // must equal it (browser test "shown total equals the core's number").
    Result<Scenario> back = scenario_from_json(sj);
    j["core_total_bytes"] = back.ok() ? estimate(*back, Detail::NumbersOnly).total_bytes : -1.0;
    j["ui"] = {{"lang", app.ui.lang == Lang::Zh ? "zh" : "en"},
               {"theme", app.ui.theme == Theme::Light ? "light" : "dark"},
               {"unit", unit_name(app.ui.unit)},
               {"embed", app.ui.env.embed},
               {"preset", app.ui.preset_id},
               {"gpu", app.ui.gpu_preset_id},
               {"mode", enum_name(app.scenario.mode)},
               {"notice", app.ui.notice},
               {"filter", app.ui.model_filter},
               {"source", static_cast<int>(app.ui.source)},
               {"phone_tab", static_cast<int>(app.ui.phone_tab)},
               {"editing", app.ui.editing_key},
               {"config_errors", app.ui.config_errors.size()},
               {"solver", {{"max_batch", app.derived.max_batch.found ? app.derived.max_batch.value : -1},
                           {"max_seq", app.derived.max_seq.found ? app.derived.max_seq.value : -1},
                           {"min_gpus", app.derived.min_gpus.found ? app.derived.min_gpus.value : -1}}}};
    nlohmann::json items = nlohmann::json::object();
    for (const auto& [k, r] : app.ui.items) items[k] = r;
    j["items"] = items;
    return j.dump();
}

}  // namespace vl::ui
