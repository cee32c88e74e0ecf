// App state logic: defaults, recomputation, links, config import, page events, the test hook.
// No drawing here (panels are in inputs.cpp, results.cpp, share.cpp; layout in layout.cpp).
#include "ui/app.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <nlohmann/json.hpp>

#include "export.h"
#include "framework_profiles.h"
#include "input_kind.h"
#include "json_input.h"
#include "model/hf_config.h"
#include "model/presets.h"
#include "scenario_json.h"
#include "share_link.h"
#include "ui/run_local.h"
#include "ui/run_local_compare.h"

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
    d.answers = fit_answers(s, app.estimate);
    d.levers = fit_levers(s, app.estimate, d.answers);
    d.solved = true;
}

bool same_model(const ModelSpec& a, const ModelSpec& b) {
    return model_to_json(a, JsonStyle::Compact) == model_to_json(b, JsonStyle::Compact);
}

// Which presets a scenario uses (after a link or a scenario file replaced it).
void sync_preset_ids(AppState& app) {
    const Scenario& s = app.scenario;
    app.ui.number_text.clear();  // the fields show the new scenario's numbers
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

std::string trim(std::string_view t) {
    size_t b = t.find_first_not_of(" \t\r\n"), e = t.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : std::string(t.substr(b, e - b + 1));
}

// A message about input: the reader's errors after a lead-in, cut to a length a panel can show.
std::string message(const AppState& app, const char* lead, const std::vector<FieldError>& errs) {
    constexpr size_t kMaxMessage = 1200;
    std::string m = lead;
    for (size_t i = 0; i < errs.size(); ++i) m += (i ? "; " : " ") + say(app, errs[i]);
    if (m.size() > kMaxMessage) {
        size_t cut = kMaxMessage;
        while (cut > 0 && (static_cast<unsigned char>(m[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
        m = m.substr(0, cut) + "\xE2\x80\xA6";
    }
    return m;
}

// tr() texts with "%s" placeholders, filled in order.
std::string fill(const char* text, std::initializer_list<std::string> args) {
    std::string out = text;
    size_t at = 0;
    for (const std::string& a : args) {
        at = out.find("%s", at);
        if (at == std::string::npos) break;
        out.replace(at, 2, a);
        at += a.size();
    }
    return out;
}

// Whether a reader's errors may go once the whole model list is here (ModelList): the page has only its
// first view's model so far, and none of them is about the link's envelope (prefix, size, base64, checksum).
bool may_wait_for_model_list(const AppState& app, const std::vector<FieldError>& errs) {
    if (app.ui.model_list != ModelList::Wanted && app.ui.model_list != ModelList::Loading) return false;
    return std::none_of(errs.begin(), errs.end(), [](const FieldError& e) { return e.field == "link"; });
}

// A link as given (fragment, with or without '#'): the scenario in it, or ui.notice says why not. With
// `waits`: when its errors may go once the model list is here, *waits is set and nothing is said.
bool open_link(AppState& app, std::string_view fragment, bool* waits = nullptr) {
    std::string f = trim(fragment);
    if (!f.empty() && f[0] == '#') f.erase(0, 1);
    if (f.empty()) return true;
    Result<Scenario> r = decode_share_link(f);
    if (!r.ok()) {
        if (waits && (*waits = may_wait_for_model_list(app, r.errors))) return false;
        app.ui.notice = message(app, tr(app.ui.lang, app.ui.started ? S::LinkKept : S::LinkNotice), r.errors);
        return false;
    }
    app.scenario = *r;
    sync_preset_ids(app);
    app.ui.last_fragment = f;
    app.dirty = true;
    return true;
}

}  // namespace

void refresh(AppState& app) {
    if (!app.dirty) return;
    // model.source names the Hub checkpoint the model is; once a field of the model is edited it is
    // that checkpoint no longer, and the link must not say so.
    ModelSpec& m = app.scenario.model;
    if (m.source.hub.empty()) {
        app.ui.hub_spec.reset();
    } else if (!app.ui.hub_spec || app.ui.hub_spec->source.hub != m.source.hub || app.ui.hub_spec->source.revision != m.source.revision) {
        app.ui.hub_spec = m;  // imported, or opened from a link
    } else if (model_to_json(*app.ui.hub_spec, JsonStyle::Compact) != model_to_json(m, JsonStyle::Compact)) {
        m.source = {};
        app.ui.hub_spec.reset();
    }
    app.estimate = estimate(app.scenario, Detail::Full);
    app.local = app.scenario.mode == Mode::Local ? plan_local(app.scenario) : LocalPlan{};
    if (app.scenario.mode == Mode::Local && app.scenario.local.rank && app.local_rank_for.empty()) rank_local_models(app);  // a link that shows it
    if (app.scenario.mode == Mode::Local && app.scenario.local.compare != LocalCompare{} && app.local_compare_for.empty()) compute_compare(app);
    solve_all(app);
    app.dirty = false;
    // The URL fragment follows the scenario (queue_fragment, at the end of the frame).
    app.ui.last_fragment = encode_share_link(app.scenario);
    // What a paste, drop or link did is said until the scenario changes after it (then it is stale).
    if (app.ui.status == S::Count_) app.ui.status_link.clear();
    else if (app.ui.status_link.empty()) app.ui.status_link = app.ui.last_fragment;
    else if (app.ui.status_link != app.ui.last_fragment) app.ui.status = S::Count_, app.ui.status_link.clear();
}

namespace {

// An input that failed while the page has only its first view's model (may_wait_for_model_list): it may
// name a preset not here yet, so what went wrong is not said; it is opened again when the list arrives or
// fails. The link the page opened with keeps its key "start" (its error is then said as at the start).
void wait_for_model_list(AppState& app, InEvent input) {
    app.ui.waiting_input = std::move(input);
    app.ui.notice.clear();
    app.ui.config_errors.clear();
}

const char* text_kind(TextSource from) { return from == TextSource::Paste ? "paste" : from == TextSource::Drop ? "drop" : "box"; }

void open_waiting_input(AppState& app) {
    if (!app.ui.waiting_input) return;
    const InEvent input = std::move(*app.ui.waiting_input);
    app.ui.waiting_input.reset();
    if (input.kind == "hash") {
        const bool started = app.ui.started;
        app.ui.started = input.key != "start";
        open_hash(app, input.text);
        app.ui.started = started;
    } else {
        open_text(app, input.text, input.kind == "paste" ? TextSource::Paste : input.kind == "drop" ? TextSource::Drop : TextSource::ConfigBox);
    }
}

}  // namespace

bool open_hash(AppState& app, std::string_view hash) {
    std::string f = trim(hash);
    if (!f.empty() && f[0] == '#') f.erase(0, 1);
    app.ui.shown_fragment = f;  // what the address bar holds now; queue_fragment puts the scenario's back if they differ
    app.ui.status = S::Count_;  // an earlier paste's message is about something else now
    app.ui.status_link.clear();
    app.ui.waiting_input.reset();  // this input is newer
    bool waits = false;
    if (!open_link(app, f, &waits)) {
        if (waits) wait_for_model_list(app, {"hash", app.ui.started ? "" : "start", std::string(hash)});
        return false;
    }
    app.ui.notice.clear();
    return true;
}

void model_list_arrived(AppState& app, std::string_view models_json) {
    const std::vector<FieldError> errs = replace_model_presets(models_json);
    if (!errs.empty()) return model_list_failed(app, message(app, "models.json:", errs));
    app.ui.model_list = ModelList::Whole;
    app.ui.model_list_error.clear();
    app.ui.scroll_to_preset = true;
    open_waiting_input(app);
}

void model_list_failed(AppState& app, const std::string& why) {
    app.ui.model_list = ModelList::Failed;
    app.ui.model_list_error = why;
    open_waiting_input(app);
}

const char* model_list_name(ModelList m) {
    switch (m) {
        case ModelList::Whole: return "whole";
        case ModelList::Wanted: return "wanted";
        case ModelList::Loading: return "loading";
        case ModelList::Failed: return "failed";
    }
    return "whole";
}

bool import_config(AppState& app, std::string_view text) {
    app.ui.config_text = text.size() <= kMaxFieldTextBytes ? std::string(text) : std::string();
    app.ui.config_errors.clear();
    app.ui.config_warnings.clear();
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

bool open_text(AppState& app, std::string_view given, TextSource from) {
    const std::string text(given);  // `given` may be ui.config_text, which the import replaces
    const Lang L = app.ui.lang;
    const InputClass c = classify_json_input(text);
    if (c.kind == InputKind::Empty) return false;
    app.ui.waiting_input.reset();  // this input is newer
    app.ui.notice.clear();
    app.ui.status = S::Count_;
    app.ui.status_link.clear();
    app.ui.status_detail.clear();
    if (from == TextSource::ConfigBox) app.ui.config_errors.clear();
    switch (c.kind) {
        case InputKind::Empty: return false;
        case InputKind::ShareLink: {
            bool waits = false;
            if (!open_link(app, c.link, &waits)) {
                if (waits) wait_for_model_list(app, {text_kind(from), "", text});
                return false;
            }
            app.ui.status = S::OpenedLink;
            return true;
        }
        case InputKind::Scenario: {
            Result<Scenario> r = scenario_from_json(text);
            if (!r.ok() && may_wait_for_model_list(app, r.errors)) {
                wait_for_model_list(app, {text_kind(from), "", text});
                return false;
            }
            if (!r.ok()) {
                app.ui.notice = message(app, tr(L, S::ScenarioFailed), r.errors);
                if (from == TextSource::ConfigBox) app.ui.config_errors = r.errors;
                return false;
            }
            app.scenario = *r;
            sync_preset_ids(app);
            app.dirty = true;
            app.ui.status = S::OpenedScenario;
            return true;
        }
        case InputKind::HfConfig: {
            const bool ok = import_config(app, text);
            app.ui.source = ModelSource::Config;  // the box shows the text, and what is wrong with it
            app.ui.phone_tab = PhoneTab::Setup;
            if (!ok) {
                app.ui.notice = message(app, tr(L, S::ConfigFailed), app.ui.config_errors);
                return false;
            }
            app.ui.status = S::ImportedConfig;
            app.ui.status_detail = app.scenario.model.name;
            return true;
        }
        case InputKind::Unknown: break;
    }
    app.ui.notice = message(app, tr(L, S::NotRecognised), c.errors);
    if (from == TextSource::ConfigBox) app.ui.config_errors = c.errors;
    return false;
}

void refuse_input(AppState& app, std::string_view what, size_t bytes) {
    const Lang L = app.ui.lang;
    const S name = what == "paste" ? S::WhatPaste : what == "drop" ? S::WhatDrop : what == "hash" ? S::WhatLink : S::WhatText;
    app.ui.status = S::Count_;
    app.ui.status_link.clear();
    app.ui.notice = fill(tr(L, S::TooBig), {tr(L, name), describe_input_size(bytes, kMaxJsonInputBytes), describe_input_size(kMaxJsonInputBytes)});
}

void queue_fragment(AppState& app) {
    if (app.ui.last_fragment.empty() || app.ui.last_fragment == app.ui.shown_fragment) return;
    if (app.ui.waiting_input && app.ui.waiting_input->kind == "hash") return;  // the address bar keeps the link that waits
    app.ui.shown_fragment = app.ui.last_fragment;
    app.outbox.push_back({"fragment", app.ui.last_fragment, "", "", 0, 0, 0, 0});
}

std::string share_url(const AppState& app, bool embed, bool editable) {
    std::string url = app.ui.env.base_url;
    if (embed) url += editable ? "?embed=edit" : "?embed";
    return url + "#" + app.ui.last_fragment;
}

namespace {

// The page's origin as a JavaScript string literal's content: location.origin holds only a scheme,
// a host and a port, but nothing else may end the literal or the <script> element.
std::string js_literal_text(const std::string& s) {
    std::string out;
    for (char ch : s) {
        if (ch == '\\' || ch == '\'' || ch == '"') out += '\\';
        if (ch == '<') out += "\\x3c";
        else if (static_cast<unsigned char>(ch) >= 0x20) out += ch;
    }
    return out;
}

// scheme://host[:port] of a URL ("https://example.org/vramlens/" -> "https://example.org").
std::string origin_of(const std::string& url) {
    const size_t scheme = url.find("://");
    if (scheme == std::string::npos) return std::string();
    return url.substr(0, url.find('/', scheme + 3));
}

}  // namespace

std::string embed_snippet(const AppState& app, bool editable) {
    const std::string origin = js_literal_text(app.ui.env.origin.empty() ? origin_of(app.ui.env.base_url) : app.ui.env.origin);
    return "<iframe src=\"" + share_url(app, true, editable) +
           "\" style=\"width:100%;border:0\" height=\"480\" loading=\"lazy\" title=\"vramlens\"></iframe>\n"
           "<script>addEventListener('message',e=>{const h=e.data&&e.data.vramlens_height;"
           "if(e.origin!=='" + origin + "'||!(h>0&&h<1e5))return;"
           "for(const f of document.querySelectorAll('iframe'))if(f.contentWindow===e.source)f.height=Math.ceil(h)})"
           "</script>";
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
            const std::string h = trim(ev.text);
            if (h != "#" + app.ui.last_fragment && h != app.ui.last_fragment) open_hash(app, h);
        } else if (ev.kind == "paste" && app.ui.text_active && ev.text.size() <= kMaxFieldTextBytes) {
            // The text field with the keyboard takes it (ImGui's Ctrl+V reads ui.clipboard).
        } else if (ev.kind == "paste" || ev.kind == "drop") {
            open_text(app, ev.text, ev.kind == "paste" ? TextSource::Paste : TextSource::Drop);
        } else if (ev.kind == "refused") {
            refuse_input(app, ev.key, static_cast<size_t>(std::strtoull(ev.text.c_str(), nullptr, 10)));
        } else if (ev.kind == "text") {
            app.ui.text_buffers[ev.key] = ev.text;
        } else if (ev.kind == "text_done") {
            if (app.ui.editing_key == ev.key) app.ui.editing_key.clear();
        } else if (ev.kind == "mmproj") {  // a projector .gguf's header, read by the page from the file picked (shell/bridge.js)
            import_mmproj(app, ev.key, ev.text, 0);
        } else if (ev.kind == "mmproj_error") {  // the browser could not read the file picked (its reason in text)
            app.ui.mmproj_message = Notice().add("", ev.key, "could not read the file (" + ev.text + "); the projector is unchanged");
        }
    }
}

const char* font_load_name(FontLoad f) {
    switch (f) {
        case FontLoad::NotNeeded: return "none";
        case FontLoad::Loading: return "loading";
        case FontLoad::Ready: return "ready";
        case FontLoad::Failed: return "failed";
    }
    return "none";
}

std::string say(const AppState& app, std::string_view english) {
    return shown_message(app.ui.zh_messages, app.ui.lang == Lang::Zh, english);
}
std::string say(const AppState& app, const FieldError& e) { return e.field.empty() ? say(app, e.message) : e.field + ": " + say(app, e.message); }
std::string say(const AppState& app, const Notice& n) {
    std::string s;
    for (const Notice::Part& p : n.parts) s += p.before + say(app, p.message);
    return s;
}
std::string notice_english(const Notice& n) {
    std::string s;
    for (const Notice::Part& p : n.parts) s += p.before + (p.message.field.empty() ? p.message.message : to_string(p.message));
    return s;
}
const char* component_label(const AppState& app, const Component& c) {
    const char* zh = app.ui.lang == Lang::Zh ? component_label_zh(app.ui.zh_messages, c.id) : nullptr;
    return zh ? zh : c.label;
}

std::string status_text(const AppState& app) {
    if (app.ui.status == S::Count_) return std::string();
    std::string s = tr(app.ui.lang, app.ui.status);
    return app.ui.status_detail.empty() ? s : s + ": " + app.ui.status_detail;
}

std::string shown_total(const AppState& app) {
    const Estimate& e = app.estimate;
    if (!e.ok() || !std::isfinite(e.total_bytes)) return "—";
    return amount_with_unit(e.total_bytes, app.ui.unit);
}

std::string results_text_json(const AppState& app) {
    if (app.scenario.mode == Mode::Local) return local_results_text(app).dump();
    const Estimate& e = app.estimate;
    const Lang L = app.ui.lang;
    nlohmann::json j;
    j["lang"] = L == Lang::Zh ? "zh" : "en";
    j["ok"] = e.ok();
    j["fits"] = e.ok() && e.fits();
    j["title"] = tr(L, S::Results);
    j["total"] = shown_total(app);
    j["errors_title"] = tr(L, S::Errors);
    j["errors"] = nlohmann::json::array();
    for (const FieldError& err : e.errors) j["errors"].push_back(say(app, err));
    // The notes (core/export.cpp): the peak by mechanism, the framework profile, the KV capacity, what nvidia-smi shows in
    // a run with room, the warnings.
    j["notes_title"] = tr(L, S::Warnings);
    j["notes"] = nlohmann::json::array();
    for (const std::string& n : {mechanisms_text(e, app.ui.unit), profile_text(app.scenario), kv_capacity_text(app.scenario, e, app.ui.unit)})
        if (!n.empty()) j["notes"].push_back(say(app, n));
    if (*e.shown_reserve.id != '\0')  // a training run's nvidia-smi figure (core/allocator_reserve.h)
        if (const std::string n = shown_reserve_text(e, app.ui.unit); !n.empty()) j["notes"].push_back(say(app, n));
    for (const std::string& w : e.warnings) j["notes"].push_back(say(app, w));
    j["headers"] = {tr(L, S::Component), tr(L, S::Bytes), unit_name(app.ui.unit), tr(L, S::ShareCol)};
    j["rows"] = nlohmann::json::array();
    j["total_row"] = nlohmann::json::array();
    if (!e.ok() || !std::isfinite(e.total_bytes)) {
        j["verdict"] = std::string(tr(L, S::Errors)) + ": " + (e.errors.empty() ? std::string() : say(app, e.errors.front()));
        return j.dump();
    }
    // As the summary panel says it: the verdict, what is free or over, the total of the GPU's memory, the peak.
    const bool fits = e.fits();
    j["verdict"] = std::string(tr(L, fits ? S::Fits : S::DoesNotFit)) + " · " +
                   bytes_label(std::fabs(e.headroom_bytes()), app.ui.unit) + " " + tr(L, fits ? S::Free : S::Over) + " · " +
                   shown_total(app) + " / " + bytes_label(e.gpu_capacity_bytes, app.ui.unit) + " " + tr(L, S::PerGpu) +
                   " · " + tr(L, S::Peak) + " " + phase_name(L, app.scenario.mode, e.peak_phase);
    // As the components table lists them: the same rows, columns and numbers.
    const unsigned peak = phase_bit(e.peak_phase);
    auto whole = [](double v) { return std::isfinite(v) ? grouped_whole(v) : std::string("—"); };
    for (const Component& c : e.components) {
        if (!std::isfinite(c.bytes) || c.bytes < 0) continue;
        std::string label = component_label(app, c);
        if (c.host) label += std::string(" (") + tr(L, S::Host) + ")";
        const bool at_peak = (c.phases & peak) && !c.host;
        char share[32] = "—";
        if (at_peak && e.total_bytes > 0) std::snprintf(share, sizeof share, "%.1f%%", 100.0 * c.bytes / e.total_bytes);
        j["rows"].push_back({label, whole(c.bytes), amount(c.bytes, app.ui.unit), share});
    }
    j["total_row"] = {std::string(tr(L, S::Total)) + " (" + phase_name(L, app.scenario.mode, e.peak_phase) + ")",
                      whole(e.total_bytes), amount(e.total_bytes, app.ui.unit), "100%"};
    return j.dump();
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
    j["peak_phase_label"] = phase_label(app.scenario.mode, e.peak_phase);  // as the exports name it
    j["params_total"] = e.params.total;
    j["gpu_capacity_bytes"] = e.gpu_capacity_bytes;
    j["fits"] = e.fits();
    j["errors"] = nlohmann::json::array();
    for (const FieldError& err : e.errors) j["errors"].push_back({{"field", err.field}, {"message", err.message}});
    j["components"] = nlohmann::json::array();
    for (const Component& c : e.components) j["components"].push_back({{"id", c.id}, {"bytes", c.bytes}});
    j["kv_text"] = kv_capacity_text(app.scenario, e, app.ui.unit);
    j["profile_text"] = profile_text(app.scenario);     // the lines the results panel shows (results.cpp)
    j["mechanisms_text"] = mechanisms_text(e, app.ui.unit);
    j["kv_blocks"] = e.kv.blocks;
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
               {"zh_font", font_load_name(app.ui.zh_font)},
               {"zh_font_error", app.ui.zh_font_error},
               {"models", model_list_name(app.ui.model_list)},
               {"models_error", app.ui.model_list_error},
               {"waiting", app.ui.waiting_input ? app.ui.waiting_input->kind : std::string()},
               {"status", status_text(app)},
               {"filter", app.ui.model_filter},
               {"source", static_cast<int>(app.ui.source)},
               {"phone_tab", static_cast<int>(app.ui.phone_tab)},
               {"editing", app.ui.editing_key},
               {"focus", app.ui.focus_key},
               {"focus_ring", app.ui.focus_ring},
               {"tooltip", app.ui.tooltip},
               {"config_errors", app.ui.config_errors.size()},
               {"hub", {{"state", static_cast<int>(app.ui.hub_state)}, {"message", say(app, app.ui.hub_message)}, {"facts", [&] {
                            nlohmann::json f = nlohmann::json::array();
                            for (const std::string& x : app.ui.hub_facts) f.push_back(say(app, x));
                            return f;
                        }()},
                        {"asked", app.ui.hub_asked}, {"endpoint", app.ui.env.hub_endpoint}}},
               {"solver", {{"max_batch", app.derived.answers.max_batch.found ? app.derived.answers.max_batch.value : -1},
                           {"max_seq", app.derived.answers.max_seq.found ? app.derived.answers.max_seq.value : -1},
                           {"min_gpus", app.derived.answers.min_gpus.found ? app.derived.answers.min_gpus.value : -1}}}};
    if (app.scenario.mode == Mode::Local) j["local"] = local_hook(app);
    nlohmann::json items = nlohmann::json::object();
    for (const auto& [k, r] : app.ui.items) items[k] = r;
    j["items"] = items;
    return j.dump();
}

}  // namespace vl::ui
