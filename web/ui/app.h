// The web UI: app state (Scenario + UI-only state) and the function that draws it with Dear ImGui.
// web/main.cpp owns the platform loop (SDL2, WebGL2, fonts, redraw-on-input) and calls, per frame:
//     vl::ui::draw(state)        inside ImGui::NewFrame() / ImGui::Render()
// and, for the page's test hook, vl::ui::hook_json(state) (window.vramlens.estimate()).
//
// The UI maps widgets to a Scenario and draws an Estimate; every number comes from the core.
// Nothing here knows about the browser: what the page must do (set the URL fragment, copy, download,
// show a text box for a phone keyboard, report the height in embed mode) goes into `outbox`, and what
// the page tells the app (paste, file drop, text typed in that box, hash change) comes in through
// `inbox` (web/ui/page_bridge.cpp moves both across in the browser; tests read and fill them).
#pragma once
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "estimate.h"
#include "planner/compare.h"
#include "planner/local.h"
#include "scenario.h"
#include "solvers.h"
#include "ui/messages.h"
#include "ui/strings.h"
#include "units.h"

namespace vl::ui {

enum class Theme { Dark, Light };
enum class SweepAxis { Batch, Seq };
enum class ModelSource { Preset, Custom, ParamsOnly, Config };
enum class PhoneTab { Results, Setup, Share };

// Page -> app.
struct InEvent {
    std::string kind;     // "paste" (text), "drop" (file text), "hash" (fragment), "text" (overlay edit), "text_done",
                          // "refused" (the page did not pass on an input over kMaxJsonInputBytes), "mmproj" (a projector
                          // .gguf's header bytes, the file picked after the app's "mmproj" request), "mmproj_error" (it
                          // could not be read: the browser's reason in text)
    std::string key;      // "text"/"text_done": the field being edited; "refused": what it was ("paste", "drop", "hash", "text");
                          // "mmproj": the file's name
    std::string text;     // "refused": its size in bytes (decimal)
};

// App -> page.
struct OutEvent {
    std::string kind;     // "fragment", "copy", "download", "edit" (open the text box), "height", "title", "mmproj" (open the
                          // file picker for a vision projector's .gguf)
    std::string a, b, c;  // kind-specific: download (name, mime, text); edit (key, value, "text"|"number"|"multiline")
    float x = 0, y = 0, w = 0, h = 0;  // edit: where the field is, in CSS pixels
};

// The Chinese UI font is not in the wasm: the page fetches it (site file kZhFontFile) the first time the
// UI is shown in Chinese. Until it arrives, or if it cannot, the UI says so in English (which the
// built-in font draws) and offers to retry or to switch back.
enum class FontLoad { NotNeeded, Loading, Ready, Failed };
inline constexpr const char* kZhFontFile = "zh-font.ttf";

// The model presets (issue 16): the page's wasm holds only the default scenario's model and fetches the
// whole list (site file kModelListFile, the same models.json) after its first view; a native build has it
// all. Until it is here the picker says it is loading, and a link or scenario that fails (it may name a
// preset not here yet) waits for it (UiState::waiting_input) and is opened again then; if the fetch
// fails the picker says why and offers to retry, and the waiting input is opened with what there is.
enum class ModelList { Whole, Wanted, Loading, Failed };
inline constexpr const char* kModelListFile = "vramlens.models.json";

// The name of the window that holds the whole page (layout.cpp draw(); keyboard.cpp).
inline constexpr const char* kRootWindow = "vramlens";

// What the page knows at start (query string, media queries).
struct PageEnv {
    bool embed = false;        // ?embed or #embed...: compact results-first layout
    bool embed_editable = false;  // ?embed=edit: inputs shown below the results
    bool touch = false;        // coarse pointer: larger targets, text through the page's text box
    bool prefer_light = false;
    bool lang_zh = false;
    std::string base_url;      // location without query and fragment (for links and snippets)
    std::string origin;        // location.origin (the embed snippet accepts messages from it only)
    std::string hash;          // location.hash
    size_t hash_refused_bytes = 0;  // > 0: location.hash was this long, over kMaxJsonInputBytes, and not passed on
    // Where Hub imports are read from: huggingface.co. Only the browser tests change it, with a script
    // they run in the page before the app (window.vramlensTestHubEndpoint, tests/browser/hub.mjs);
    // never from the URL, which a link could set to send a user's token elsewhere.
    std::string hub_endpoint = "https://huggingface.co";
};

// A notice made of messages in English, each translated by say() when shown: the core's messages (a FieldError
// with its field, or field "" for a whole message) and the joins between them ("; ", " ").
struct Notice {
    struct Part {
        std::string before;  // what joins it to the part before
        FieldError message;
    };
    std::vector<Part> parts;
    Notice& add(std::string before, std::string field, std::string message) {
        parts.push_back({std::move(before), {std::move(field), std::move(message)}});
        return *this;
    }
    bool empty() const { return parts.empty(); }
};
std::string notice_english(const Notice& n);

// Importing a model by repo id (web/ui/hub.h): nothing is requested before the button is pressed.
enum class HubState { Idle, Fetching, Done, Failed };

// A text field the page's text box can edit on touch screens (web/ui/page_bridge.cpp hit-tests these).
struct TextField {
    std::string key, value, kind;  // kind: "text", "number", "multiline"
    float x = 0, y = 0, w = 0, h = 0;
};

struct UiState {
    Lang lang = Lang::En;
    Theme theme = Theme::Dark;
    SizeUnit unit = SizeUnit::GiB;
    PageEnv env;
    ModelSource source = ModelSource::Preset;
    std::string preset_id = "llama-3.1-8b";  // the model preset shown in the picker ("" = none)
    std::string gpu_preset_id = "h100-80gb"; // "" = custom GPU
    std::string model_filter;                // type-to-filter text of the picker
    std::string typeahead;                   // letters typed in an open list (widgets.h TypeAhead)
    double typeahead_at = -10;               // when the last one was typed (ImGui time, seconds)
    std::string family_filter;               // "" = all families
    std::string config_text;                 // pasted / dropped config.json
    std::vector<FieldError> config_errors;   // from import_hf_config
    std::vector<std::string> config_warnings;
    std::string hub_ref;                     // the "Hugging Face model" field: org/name[@revision] or a Hub URL
    std::string hub_token;                   // the optional token: in memory only (never in a link, storage or export)
    bool hub_asked = false;                  // a Hub import was requested in this tab (the notice says what is sent until then)
    HubState hub_state = HubState::Idle;
    Notice hub_message;                      // Fetching: what is read; Failed: why, with the offline alternative; Done: what
    std::vector<std::string> hub_facts;      // the imported checkpoint: parameters per dtype, true size, quantization, adapter
    std::vector<FieldError> hub_warnings;    // the checkpoint's warnings (field: the file they are about, or "")
    Notice mmproj_message;                   // the projector .gguf picked: what was read from it, or why nothing was
    std::optional<ModelSpec> hub_spec;       // the model as imported (or opened) with its model.source (refresh)
    std::string notice;                      // what went wrong (a damaged link, text that could not be read): shown until dismissed
    S status = S::Count_;                    // what a paste/drop/import did (S::ImportedConfig, ...; Count_: nothing), in the
    std::string status_detail;               // UI's language when shown (status_text), then the detail: shown until dismissed
    std::string status_link;                 // the scenario (its link) status was said about: shown until it changes
    std::string last_fragment;               // the scenario's link (what the URL fragment should hold)
    std::string shown_fragment;              // what the address bar holds, as far as the app knows
    std::string copied_what;                 // "link", "json", ...: brief "Copied" feedback
    SweepAxis sweep_axis = SweepAxis::Batch;
    PhoneTab phone_tab = PhoneTab::Results;
    bool show_advanced = false;
    bool snippet_editable = false;           // embed snippet: ?embed=edit (inputs below the results)
    int applied_style = -1;                  // theme/touch the ImGui style was built for
    bool started = false;                    // first frame done (env read, link loaded)
    float content_height = 0;                // embed: height of the content, reported to the parent page
    std::string editing_key;                 // touch: field whose text the page's text box edits
    std::map<std::string, std::string> text_buffers;  // touch-edited values not yet applied
    struct NumberEdit { std::string text, before; };  // a number field's text, and its value's text before the edit
    std::map<std::string, NumberEdit> number_text;    // number fields being edited, or whose text is no number (widgets.cpp)
    // Screen rectangles of named widgets (for the browser tests and the text box), CSS pixels.
    std::map<std::string, std::vector<float>> items;
    std::map<std::string, std::vector<float>> last_items;  // the previous frame's (section_errors)
    std::vector<FieldError> shown_errors;    // this frame's errors drawn at their field or section
    std::vector<TextField> text_fields;      // this frame's text fields
    std::string clipboard;                   // what ImGui copies / pastes (the page keeps the real one)
    bool text_active = false;                // a text field had the keyboard last frame: a paste goes into it
    bool touch_pan = false;                  // a touch is a drag this frame (web/main.cpp; scrolling.h)
    unsigned touch_scroll_window = 0;        // the window (ImGuiID) the touch drag scrolls, 0 when none yet
    unsigned touch_press_window = 0;         // the window under the finger where the press began (0: none)
    std::string focus_key;                   // the widget with the keyboard (its mark() key), "" when none (keyboard.h)
    bool focus_ring = false;                 // ... and it shows so: the focus ring, or a text field being edited
    std::vector<unsigned> tab_skip;          // this frame's items Tab passes over (ImGuiIDs of charts' hover areas)
    int tab_dir = 0;                         // the direction of the Tab move under way (+1, -1), 0 when none
    bool focus_chosen = false;               // a click or a key has put the focus somewhere (else Tab starts at the first control)
    bool release_keys = false;               // the canvas lost the keyboard: keys held then are up for the app (web/main.cpp)
    int enter_dir = 0;                       // the keyboard came into the app by Tab (+1) or Shift+Tab (-1): focus that end next frame
    int tab_edge = 0;                        // +1: Tab leaves the app (the focus is on the last control), -1: Shift+Tab does, 0: neither
    unsigned tab_probe_from = 0;             // this frame scores a forward Tab from this ImGuiID, never applied (tab_edge)
    std::string results_text;                // the results_text_json() the page's HTML mirror shows
    std::string tooltip;                     // the value a chart shows under the pointer (or where a finger tapped) this frame
    FontLoad zh_font = FontLoad::NotNeeded;  // the Chinese font: fetched when 中文 is first shown (web/main.cpp)
    std::string zh_font_error;               // why its fetch failed (FontLoad::Failed)
    MessageCatalogue zh_messages;            // the core's messages in Chinese: fetched with the font (ui/messages.h)
    ModelList model_list = ModelList::Whole;  // the page: Wanted at start, fetched after the first view (web/main.cpp)
    std::string model_list_error;            // why its fetch failed (ModelList::Failed)
    std::optional<InEvent> waiting_input;    // a link ("hash"), or text ("paste", "drop", "box"), waiting for the model list
    bool scroll_to_preset = false;           // the model list arrived: the picker scrolls to the chosen preset, as when it appears
    std::vector<std::string> local_pc_gpus;  // Run locally: the PC's GPUs while a Mac is chosen (back when the PC is)
    std::vector<LocalCustomGpu> local_pc_custom_gpus;  // and its GPUs not in the presets
};

// The most text a text field takes (a config.json is a few KB; the largest real ones ~100 KB). Longer
// pasted text is not put into a field: Dear ImGui reserves draw memory for a whole line at once, and
// a multi-MB line would take hundreds of MB. Such text is still imported (open_text), just not shown.
inline constexpr size_t kMaxFieldTextBytes = size_t{256} << 10;

// Results derived from the scenario, recomputed when it changes.
struct SweepPoint {
    int64_t x = 0;
    double total = 0;   // bytes; < 0 when the scenario is invalid at this x
};
struct Derived {
    std::vector<SweepPoint> sweep;   // memory against batch or sequence length (NumbersOnly)
    FitAnswers answers;              // largest batch and sequence, fewest GPUs when it does not fit (core/solvers.h)
    std::vector<Lever> levers;       // when it does not fit: single changes that fit, each with Apply (fit_levers)
    bool solved = false;
};

struct AppState {
    Scenario scenario;            // what the user is asking about
    Estimate estimate;            // estimate(scenario), refreshed by refresh()
    bool dirty = true;            // scenario changed since the last refresh()
    UiState ui;                   // UI-only state (not part of the scenario or the link)
    Derived derived;
    LocalPlan local;              // Mode::Local: plan_local(scenario), refreshed by refresh() (the estimate is then an error)
    Ranking local_rank;           // local.rank: rank_local(scenario), computed on request (about a second in the page), not per change
    std::string local_rank_for;   // rank_machine_key() of the machine it was computed for; another: shown as stale
    CompareGrid local_compare;    // local.compare: compare_local(scenario), computed on request, not per change
    std::string local_compare_for;  // compare_key() of the inputs it was computed for; another: shown as stale
    std::vector<InEvent> inbox;
    std::vector<OutEvent> outbox;
};

// The scenario the page opens with.
Scenario default_scenario();
AppState make_app_state();

// Recomputes the estimate (and sweeps, solver answers) when the scenario changed. draw() calls it.
void refresh(AppState& app);

// Applies page events (inbox): paste, drop, hash change, text typed on a phone, refused inputs.
void handle_inbox(AppState& app);

// The address bar's fragment was given to the app: at start (location.hash), after the user edited
// it, or on Back/Forward. A good link replaces the scenario. A damaged one changes nothing: ui.notice
// says what is wrong, and the address bar gets the scenario's own link back (queue_fragment). At
// start the scenario is the defaults. Any text is safe here (the fuzz target's entry). Returns ok.
bool open_hash(AppState& app, std::string_view hash);

// Where text came from: pasted on the page, dropped as a file, or imported from the config.json box.
enum class TextSource { Paste, Drop, ConfigBox };
// Text a person gave us: classify_json_input (core/input_kind.h) tells a share link, a scenario file
// and a config.json apart and each goes to its own reader; ui.status says what was done, ui.notice
// what went wrong (a config.json's problems also go to ui.config_errors). Nothing changes on failure.
bool open_text(AppState& app, std::string_view text, TextSource from);
// Imports a config.json as the model (ui.source becomes Config). Errors go to ui.config_errors.
bool import_config(AppState& app, std::string_view text);
// The page did not pass on an input of `bytes` (over kMaxJsonInputBytes): say so in ui.notice.
// what: "paste", "drop", "hash" or "text".
void refuse_input(AppState& app, std::string_view what, size_t bytes);
// At the end of a frame: when the scenario's link differs from what the address bar holds, queue one
// "fragment" event with it (after every change of the frame, so the last state wins).
void queue_fragment(AppState& app);
// Selects a model preset by id.
bool select_model_preset(AppState& app, const std::string& id);

// The link to this scenario: base_url [?embed | ?embed=edit] #fragment.
std::string share_url(const AppState& app, bool embed, bool editable);
// The embed snippet for bloggers: the iframe, and a script that sizes it to the height the app posts.
// The script accepts the message only from the app's origin (ui.env.origin) and from an iframe's window.
std::string embed_snippet(const AppState& app, bool editable);

// Draws one frame of the UI (between ImGui::NewFrame() and ImGui::Render()).
void draw(AppState& app);

// JSON for window.vramlens.estimate(): {version, ok, total_bytes, shown_total, shown_unit,
// peak_phase, peak_phase_label ("prefill", as core/export.h names it), params_total, gpu_capacity_bytes, fits, errors[{field,message}], components[{id,bytes}],
// scenario (scenario JSON), link, core_total_bytes (a fresh estimate() of that scenario JSON),
// ui {lang, theme, unit, embed, preset, mode}, items {key: [x, y, w, h]}}.
std::string hook_json(const AppState& app);

// The results as text for the page's HTML mirror beside the canvas (shell/bridge.js shows it to
// screen readers, and as a text view people can select and copy from), in the UI's language, every
// number as the canvas prints it: {lang, ok, fits, title, verdict, total, headers[], rows[[name, bytes,
// amount, share]], total_row[], errors_title,
// errors[], notes_title, notes[]: the peak by mechanism, the framework profile, the KV capacity and the warnings,
// in the CLI's order}; the core's messages through say(). page_end_frame sends it when it changes.
std::string results_text_json(const AppState& app);

// A message of the core (an error's message, a warning, a note) as the page shows it: in Chinese when
// the UI is and the catalogue (ui.zh_messages) has it, else the core's English. An error keeps its field.
std::string say(const AppState& app, std::string_view english);
std::string say(const AppState& app, const FieldError& e);
std::string say(const AppState& app, const Notice& n);
// A component's label as the page shows it: its Chinese by id (the catalogue) when the UI is in Chinese,
// else the core's English label.
const char* component_label(const AppState& app, const Component& c);

// The status line as shown: "This is a config.json: imported the model: gpt2" ("" when none).
std::string status_text(const AppState& app);
// "none", "loading", "ready", "failed" (window.vramlens.estimate().ui.zh_font).
const char* font_load_name(FontLoad f);
// "whole", "wanted", "loading", "failed" (window.vramlens.estimate().ui.models).
const char* model_list_name(ModelList m);
// The whole model list arrived (the text of models.json; replace_model_presets) or could not (why):
// either way an input waiting for it is opened now.
void model_list_arrived(AppState& app, std::string_view models_json);
void model_list_failed(AppState& app, const std::string& why);

// Total as the results panel prints it, e.g. "15.95 GiB" (the test hook compares it).
std::string shown_total(const AppState& app);

}  // namespace vl::ui
