// Browser bridge (page_bridge.h). JavaScript -> app: vl_event(kind, key, text, length) queues an
// InEvent (the text is in the wasm heap: shell/bridge.js copies it there and frees it after);
// vl_text_field_at(x, y) tells the page's text box which field a tap hit. The page asks, while a
// browser event is under way, what the app does with it: vl_text_active (keys), vl_field_selection
// (copy, cut), vl_wheel_scrolls and vl_drag_scrolls (wheel, touch). App -> JavaScript: each
// OutEvent becomes one call of window.vramlens._out(kind, a, b, c, x, y, w, h).
#include "ui/page_bridge.h"

#include <imgui.h>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <imgui_internal.h>

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

#include "enum_names.h"
#include "json_input.h"
#include "scenario_json.h"
#include "model/gguf.h"
#include "ui/hub.h"
#include "ui/keyboard.h"
#include "ui/run_local.h"
#include "ui/scrolling.h"

namespace {

// The one app the page talks to (web/main.cpp owns it; draw() passes it every frame). JavaScript
// calls arrive between frames, so they only queue events for the next frame.
vl::ui::AppState* g_app = nullptr;
std::string g_reply;  // keeps the last vl_text_field_at() answer alive for JavaScript

// The page's environment as JSON. It also tells the page the input limit: shell/bridge.js refuses
// longer text before copying it into the wasm heap; a longer location.hash is not passed on either.
EM_JS(char*, js_page_env, (double max_input_bytes), {
    if (window.vramlens) window.vramlens.maxInputBytes = max_input_bytes;
    var q = new URLSearchParams(location.search);
    var full = location.hash || "";
    var hashBytes = lengthBytesUTF8(full);
    var h = hashBytes > max_input_bytes ? "" : full;
    var embed = q.has("embed") || /^#embed/.test(full);
    var saved = {};  // the language and theme the user chose on an earlier visit (page_end_frame)
    try { saved = { theme: localStorage.getItem("vramlens.theme"), lang: localStorage.getItem("vramlens.lang") }; } catch (e) {}
    var env = {
        embed: embed,
        embed_editable: q.get("embed") === "edit",
        touch: window.matchMedia ? matchMedia("(pointer: coarse)").matches : false,
        prefer_light: q.has("theme") ? q.get("theme") === "light" : saved.theme ? saved.theme === "light" :
                      !!(window.matchMedia && matchMedia("(prefers-color-scheme: light)").matches),
        lang_zh: q.has("lang") ? q.get("lang") === "zh" : saved.lang ? saved.lang === "zh" : /^zh/i.test(navigator.language || ""),
        base_url: location.origin + location.pathname,
        origin: location.origin,
        hash: h.replace(/^#embed[&,]?/, "#"),
        hash_refused_bytes: hashBytes > max_input_bytes ? hashBytes : 0,
        hub_endpoint: typeof window.vramlensTestHubEndpoint === "string" ? window.vramlensTestHubEndpoint : "https://huggingface.co"
    };
    if (window.vramlens && window.vramlens._env) window.vramlens._env(env);
    var s = JSON.stringify(env);
    var n = lengthBytesUTF8(s) + 1;
    var p = _malloc(n);
    stringToUTF8(s, p, n);
    return p;
});

EM_JS(void, js_out, (const char* kind, const char* a, const char* b, const char* c, float x, float y, float w, float h), {
    if (window.vramlens && window.vramlens._out)
        window.vramlens._out(UTF8ToString(kind), UTF8ToString(a), UTF8ToString(b), UTF8ToString(c), x, y, w, h);
});

// Dear ImGui's clipboard is ui.clipboard. What its Ctrl+C / Ctrl+X copy from a field reaches the
// system clipboard through the browser's own copy and cut events (vl_field_selection), and what Ctrl+V
// pastes is the text of the browser's paste event (vl_event "paste").
const char* get_clipboard(void* user) { return static_cast<vl::ui::AppState*>(user)->ui.clipboard.c_str(); }
void set_clipboard(void* user, const char* text) { static_cast<vl::ui::AppState*>(user)->ui.clipboard = text; }

// The text field with the keyboard: its edit state, or nullptr.
ImGuiInputTextState* active_field() {
    const ImGuiID id = GImGui ? ImGui::GetActiveID() : 0;
    return id ? ImGui::GetInputTextState(id) : nullptr;
}

// History (shell/bridge.js): the entries of the address bar are about the model, the mode and the
// GPU. A new link that changes one of them, or comes from an import (a pasted or dropped file), is
// a new entry, so Back returns to the scenario before it; any other change (a batch size, a
// precision) replaces the link of the current entry. In Run locally the machine is the device list
// (GPUs, or the Mac's chip), the engine that runs on it and the manual placement ("Advanced placement").
std::string history_key(const vl::Scenario& s) {
    std::string machine = s.gpu.name + "\n" + std::to_string(s.gpu.memory_bytes);
    if (s.mode == vl::Mode::Local) {
        machine = std::string(vl::enum_name(s.local.engine)) + "\n" + s.local.apple_chip;
        for (const std::string& g : s.local.gpus) machine += "\n" + g;
        machine += "\n" + vl::ui::local_machine_key(s.local, true);
    }
    return std::string(vl::enum_name(s.mode)) + "\n" + machine + "\n" + vl::model_to_json(s.model, vl::JsonStyle::Compact);
}
struct History {
    bool started = false;
    std::string key;    // history_key of the scenario the address bar shows
    std::string shown;  // the link the address bar shows (ui.shown_fragment)
    bool imported = false;  // this frame took a pasted or dropped text (not into a field)
};
History g_history;
std::string g_prefs;  // the language and theme of the last frame ("" before the first)
std::map<std::string, std::string> g_hub_heads;  // the files' first bytes of the Hub import under way (vl_hub_head)

}  // namespace

extern "C" {
// shell/bridge.js's Hub fetcher (ui/hub.h): each file's first bytes, then the answer or the failure.
EMSCRIPTEN_KEEPALIVE void vl_hub_head(const char* name, const unsigned char* data, int size) {
    g_hub_heads[name].assign(reinterpret_cast<const char*>(data), static_cast<size_t>(size));
}
EMSCRIPTEN_KEEPALIVE void vl_hub_done(const char* payload) {
    if (g_app) vl::ui::hub_import_done(*g_app, payload, g_hub_heads);
    g_hub_heads.clear();
    if (g_app) g_history.imported = true;  // a new history entry, as for a pasted config.json
}
EMSCRIPTEN_KEEPALIVE void vl_hub_failed(int status, const char* code, const char* retry_after, const char* file, const char* detail) {
    g_hub_heads.clear();
    if (g_app) vl::ui::hub_import_failed(*g_app, status, code, retry_after, file, detail);
}
// How many bytes of a GGUF file its header needs: 0 when `size` bytes hold it whole (or it is no
// GGUF: the import says why), else more than size (the fetcher reads twice as much and asks again).
EMSCRIPTEN_KEEPALIVE double vl_gguf_needs(const unsigned char* data, int size, double file_size) {
    bool truncated = false;
    (void)vl::read_gguf_header(std::string_view(reinterpret_cast<const char*>(data), static_cast<size_t>(size)),
                               static_cast<uint64_t>(file_size), &truncated);
    return truncated ? static_cast<double>(size) * 2 : 0;
}
// window.vramlens.send(kind, key, text): paste, drop, hash, text, text_done, refused. `text` holds
// `length` bytes (a NUL inside stays in the string, and the readers name it).
EMSCRIPTEN_KEEPALIVE void vl_event(const char* kind, const char* key, const char* text, int length) {
    if (!g_app) return;
    std::string t = text && length > 0 ? std::string(text, static_cast<size_t>(length)) : std::string();
    const std::string k = kind;
    // ImGui's Ctrl+V reads ui.clipboard this frame: a field gets the text, or nothing when it is too long
    // for a field (vl::ui::kMaxFieldTextBytes) or was refused.
    if (k == "paste") g_app->ui.clipboard = t.size() <= vl::ui::kMaxFieldTextBytes ? t : std::string();
    if (k == "refused" && std::string(key) == "paste") g_app->ui.clipboard.clear();
    g_app->inbox.push_back({k, key, std::move(t)});
}
// The text field under a tap (CSS pixels), as JSON {key, value, kind, x, y, w, h}, or "".
EMSCRIPTEN_KEEPALIVE const char* vl_text_field_at(float x, float y) {
    g_reply.clear();
    if (!g_app) return g_reply.c_str();
    for (const vl::ui::TextField& f : g_app->ui.text_fields)
        if (x >= f.x && x <= f.x + f.w && y >= f.y && y <= f.y + f.h) {
            g_reply = nlohmann::json{{"key", f.key}, {"value", f.value}, {"kind", f.kind},
                                     {"x", f.x}, {"y", f.y}, {"w", f.w}, {"h", f.h}}.dump();
            g_app->ui.editing_key = f.key;  // the page opens its text box on it: edited until text_done
            break;
        }
    return g_reply.c_str();
}
// 1 while a text field has the keyboard (its editing keys are the app's), else 0.
EMSCRIPTEN_KEEPALIVE int vl_text_active() { return active_field() ? 1 : 0; }
// What the browser's copy or cut event puts on the clipboard: what Dear ImGui's Ctrl+C / Ctrl+X
// takes from the field with the keyboard (the selection; the whole text of a one-line field when
// nothing is selected), as "1" + the text, or "0" when it takes nothing (no field, or a multi-line
// field without a selection; a cut from a read-only field).
EMSCRIPTEN_KEEPALIVE const char* vl_field_selection(int cut) {
    g_reply = "0";
    const ImGuiInputTextState* st = active_field();
    if (!st) return g_reply.c_str();
    const bool multiline = (st->Flags & ImGuiInputTextFlags_Multiline) != 0;
    if ((multiline && !st->HasSelection()) || (cut && (st->Flags & ImGuiInputTextFlags_ReadOnly))) return g_reply.c_str();
    const int a = st->HasSelection() ? ImMin(st->Stb.select_start, st->Stb.select_end) : 0;
    const int b = st->HasSelection() ? ImMax(st->Stb.select_start, st->Stb.select_end) : st->CurLenW;
    const ImWchar* w = st->TextW.Data;
    std::string out(static_cast<size_t>(ImTextCountUtf8BytesFromStr(w + a, w + b)) + 1, '\0');
    ImTextStrToUtf8(out.data(), static_cast<int>(out.size()), w + a, w + b);
    out.pop_back();
    g_reply = "1" + out;
    return g_reply.c_str();
}
// 1 when a wheel event at (x, y) (CSS pixels; the DOM's deltaX, deltaY) scrolls something in the app.
EMSCRIPTEN_KEEPALIVE int vl_wheel_scrolls(float x, float y, float dx, float dy, int shift) {
    return GImGui && vl::ui::wheel_scrolls_at(ImVec2(x, y), dx, dy, shift != 0) ? 1 : 0;
}
// 1 when Tab (dir +1) or Shift+Tab (dir -1) leaves the app for the page (keyboard.h): no keyboard trap.
EMSCRIPTEN_KEEPALIVE int vl_tab_leaves(int dir) {
    if (!g_app) return 0;
    return g_app->ui.tab_edge != 0 && (dir < 0) == (g_app->ui.tab_edge < 0) ? 1 : 0;
}
// The canvas lost the keyboard (keyboard.h).
EMSCRIPTEN_KEEPALIVE void vl_keyboard_left() {
    if (g_app) vl::ui::keyboard_lost_focus(*g_app);
}
// Tab (dir +1) or Shift+Tab (dir -1) gave the canvas the keyboard (keyboard.h).
EMSCRIPTEN_KEEPALIVE void vl_keyboard_entered(int dir) {
    if (g_app) vl::ui::keyboard_entered(*g_app, dir);
}
// 1 when a touch starting at (x, y) is over something the app scrolls.
EMSCRIPTEN_KEEPALIVE int vl_drag_scrolls(float x, float y) { return GImGui && vl::ui::drag_scrolls_at(ImVec2(x, y)) ? 1 : 0; }
}

namespace vl::ui {

void page_begin_frame(AppState& app) {
    g_app = &app;
    for (const InEvent& ev : app.inbox)
        if ((ev.kind == "paste" && !app.ui.text_active) || ev.kind == "drop") g_history.imported = true;
    ImGuiIO& io = ImGui::GetIO();
    io.ClipboardUserData = &app;
    io.GetClipboardTextFn = get_clipboard;
    io.SetClipboardTextFn = set_clipboard;
    if (app.ui.started) return;
    char* raw = js_page_env(static_cast<double>(vl::kMaxJsonInputBytes));
    std::vector<FieldError> errs;  // a page that sends no JSON object keeps the defaults
    const nlohmann::json j = parse_json_input(raw, "env", errs).value_or(nlohmann::json());
    std::free(raw);
    if (!j.is_object()) return;
    PageEnv& e = app.ui.env;
    e.embed = j.value("embed", false);
    e.embed_editable = j.value("embed_editable", false);
    e.touch = j.value("touch", false);
    e.prefer_light = j.value("prefer_light", false);
    e.lang_zh = j.value("lang_zh", false);
    e.base_url = j.value("base_url", std::string());
    e.origin = j.value("origin", std::string());
    e.hash = j.value("hash", std::string());
    e.hash_refused_bytes = j.value("hash_refused_bytes", size_t{0});
    if (j.contains("hub_endpoint") && j["hub_endpoint"].is_string()) e.hub_endpoint = j["hub_endpoint"].get<std::string>();
}

void page_end_frame(AppState& app) {
    if (app.ui.shown_fragment != g_history.shown) {  // the address bar changes: the app's new link, Back, a link typed
        const std::string key = history_key(app.scenario);
        const bool push = g_history.started && (key != g_history.key || g_history.imported);
        for (OutEvent& o : app.outbox)
            if (o.kind == "fragment") o.b = push ? "push" : "replace";
        g_history = {true, key, app.ui.shown_fragment, false};
    }
    g_history.imported = false;
    // The language and theme kept for the next visit, once the user changes them.
    const std::string lang = app.ui.lang == Lang::Zh ? "zh" : "en", theme = app.ui.theme == Theme::Light ? "light" : "dark";
    if (lang + theme != g_prefs) {
        if (!g_prefs.empty()) js_out("prefs", lang.c_str(), theme.c_str(), "", 0, 0, 0, 0);  // not the start-up values
        g_prefs = lang + theme;
    }
    // The page's HTML mirror of the results, when they change; not the default scenario's while the link
    // in the address bar waits for the model list (ModelList): the page keeps the link's answer hidden.
    std::string results = results_text_json(app);
    const bool link_waits = app.ui.waiting_input && app.ui.waiting_input->kind == "hash";
    if (results != app.ui.results_text && !link_waits) {
        app.ui.results_text = std::move(results);
        js_out("results", app.ui.results_text.c_str(), "", "", 0, 0, 0, 0);
    }
    for (const OutEvent& o : app.outbox) js_out(o.kind.c_str(), o.a.c_str(), o.b.c_str(), o.c.c_str(), o.x, o.y, o.w, o.h);
    app.outbox.clear();
}

}  // namespace vl::ui

#else  // native: the tests drive app.inbox / app.outbox directly

namespace vl::ui {
void page_begin_frame(AppState&) {}
void page_end_frame(AppState&) {}
}  // namespace vl::ui

#endif
