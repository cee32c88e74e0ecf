// Run locally (Mode::Local, issue 19): the changes the page's panels make to s.local, and the plan
// (AppState::local, core/planner/local.h plan_local) as the HTML mirror and the test hook show it.
// No Dear ImGui here: the native tests drive these as the panels do (web/ui/run_local_panels.cpp
// draws them).
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "ui/app.h"

namespace vl::ui {

// Another engine: a weight format it does not run becomes its default (llama.cpp q4_k_m, vLLM bf16);
// the KV type becomes the engine's default (f16; auto = bf16) when the family changes or it is not
// one the engine caches; and the context 0 that vLLM reads as the model's own becomes 4096.
void set_local_engine(AppState& app, LocalEngine e);
// Another weight format is another file: an imported GGUF's tensor bytes no longer describe it.
void set_local_weights(AppState& app, WeightFormat w);
// A Mac (the first chip vramlens knows, no GPUs) or a PC (its GPUs back, presets and custom, or one RTX 4090).
void set_local_machine(AppState& app, bool mac);
void add_local_gpu(AppState& app, const std::string& id);
void set_local_gpu(AppState& app, size_t i, const std::string& id);
void remove_local_gpu(AppState& app, size_t i);
// A GPU not in the presets (local.custom_gpus; after the presets in device order), removed by its index there.
// A GPU added or removed drops a tensor split that no longer has one number per GPU, and a --main-gpu past the last.
void add_custom_gpu(AppState& app);
void remove_custom_gpu(AppState& app, size_t i);
size_t local_gpu_count(const LocalOptions& lo);  // a Mac's one GPU, or the presets and the custom GPUs
// A vision projector's .gguf picked on the page (shell/bridge.js reads its header only, `file_size` the file's): its tensor
// bytes and image encoder into local.mmproj_bytes / mmproj_encoder / mmproj_file, as `vramlens plan --mmproj FILE` reads
// them; ui.mmproj_message says what was read, or why nothing was. False when the header does not read.
bool import_mmproj(AppState& app, const std::string& name, std::string_view head, double file_size);

// Which model fits best (local.rank): what the ranking depends on (GPUs, RAM or Mac, KV type, flash
// attention, context) as text, so a change shows the table as stale; rank_local_models() shows and
// computes it for the current machine; use_ranked() makes a row's preset the model and its type local.weights.
std::string rank_machine_key(const Scenario& s);
// The GPUs not in the presets and the manual placement as text (the ranking's key; with the model's own
// overrides, -ngl, --n-cpu-moe, the projector, tp and pp, the page's history key: each is a Back step).
std::string local_machine_key(const LocalOptions& lo, bool model_overrides);
void rank_local_models(AppState& app);
void use_ranked(AppState& app, const RankRow& r);
// The rows shown: each model's best type, ranked ones first, at most `top`.
std::vector<RankRow> shown_rank_rows(const AppState& app, size_t top = 10);

// The row of the per-device table as shown: name, layers, weights, KV, compute, (vision, when the plan has a projector), total,
// capacity; local_device_headers() names those columns.
bool local_has_vision(const LocalPlan& p);
std::vector<std::string> local_device_headers(const AppState& app);
std::vector<std::string> local_device_cells(const AppState& app, const LocalDevice& d);
// The verdict line: "Fits · -ngl 33 of 33 (...)" or "Does not fit · <advice>"; the errors when the input is bad.
std::string local_verdict(const AppState& app);

// results_text_json in Local mode: {lang, ok, fits, title, verdict, total (the largest context),
// headers, rows (one per device), total_row [], errors_title, errors, notes_title, notes (the
// plan's summary, speed, launch lines, notes)}.
nlohmann::json local_results_text(const AppState& app);
// hook_json's "local": {ok, fits, errors[{field,message}], context, largest_context, summary, advice,
// speed, devices[{name, layers, weights, kv, compute, total, capacity}], launch[{what, text}], notes}.
nlohmann::json local_hook(const AppState& app);

}  // namespace vl::ui
