// Run locally's compare grid (local.compare, core/planner/compare.h): the changes its panels make to
// s.local.compare, the grid computed when asked (a button or a link that holds it, never per frame),
// and the grid as the HTML mirror and the test hook show it (run_local_compare_state.cpp, no Dear ImGui);
// the panels are in run_local_compare.cpp.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ui/app.h"

namespace vl::ui {

// What the grid depends on (local.compare, the engine, context, KV type, flash attention, and the
// scenario's model when "current" is compared) as text: another key shows the grid as stale.
std::string compare_key(const Scenario& s);
// Opens the compare view with the current model, its weight type (a GGUF type, else Q4_K_M) and the
// current machine, and computes it.
void open_compare(AppState& app);
void compute_compare(AppState& app);
void add_compare_model(AppState& app, const std::string& id);  // a preset id or "current"; once each
void remove_compare_model(AppState& app, size_t i);
void toggle_compare_weights(AppState& app, WeightFormat w);    // in the list or out of it, kept in picker order
void add_compare_machine(AppState& app);                       // the machine of the machine panel, once each
void remove_compare_machine(AppState& app, size_t i);
// The GGUF types the grid takes (a published quantization loss), in the engine's picker order.
std::vector<WeightFormat> compare_weight_choices(LocalEngine e);
// A compared model's name: a preset's, or the scenario's model for "current".
std::string compare_model_label(const AppState& app, const std::string& id);
// A grid row's label: "Qwen3-8B, GGUF Q4_K_M".
std::string compare_row_label(const CompareCell& c);

// hook_json's "local"."compare": {shown, stale, error, machines [names], cells [{model, weights,
// machine (index), fits, ngl, n_layer, max_context, decode_tokens_per_s}]}.
nlohmann::json compare_hook(const AppState& app);
// The HTML mirror's notes: "Compare: <row> on <machine>: <cell text>" per cell, or the error.
void compare_notes(const AppState& app, nlohmann::json& notes);

}  // namespace vl::ui
