// One function per panel (Dear ImGui demo style). Inputs write the Scenario; results read the
// Estimate; share turns both into links and exports. layout.cpp arranges them for the window width.
#pragma once
#include <cstdint>
#include <vector>

#include "ui/app.h"

namespace vl::ui {

// inputs.cpp
void model_panel(AppState& app);
void workload_panel(AppState& app);
void gpu_panel(AppState& app);
void parallel_panel(AppState& app);
void advanced_panel(AppState& app);

// The values of one parallel degree (tp, pp, cp or ep) the core's validate() accepts with the
// rest of the scenario as it is and gpu_count fixed (dp follows). The current value is always listed.
std::vector<int64_t> valid_degrees(const Scenario& s, int64_t Parallelism::*field, const char* name);

// results.cpp
void summary_panel(AppState& app);      // total vs GPU memory: the fit bar and the solver answers
void breakdown_panel(AppState& app);    // stacked bar by category
void table_panel(AppState& app);        // components: bytes, GB/GiB, share; each row shows its math
void phases_panel(AppState& app);       // memory at load / forward / backward / step
void sweep_panel(AppState& app);        // memory vs batch or sequence length, GPU limit, solver marks
void notes_panel(AppState& app);        // warnings and errors

// share.cpp
void share_panel(AppState& app);        // copy link, embed snippet, exports

// run_local_panels.cpp: Run locally (Mode::Local)
void local_setup_panel(AppState& app);    // engine, weights, KV type, context, flash attention; vLLM's pool settings
void local_machine_panel(AppState& app);  // a PC's GPUs (added, changed, removed) and RAM, or a Mac's chip and memory
void local_verdict_panel(AppState& app);  // fits or not, the advice, -ngl / tp, the largest context (summary_panel's place)
void local_plan_panel(AppState& app);     // per-device table, speed, launch lines to copy (breakdown_panel's place)
void local_rank_panel(AppState& app);     // which model fits best on this machine (in local_plan_panel)
// run_local_compare.cpp: the compare grid (in local_plan_panel, after the ranking)
void local_compare_panel(AppState& app);            // opened by a button: the three lists, Compare again, the grid
void local_compare_models_panel(AppState& app);     // models compared (presets, this model), each removable
void local_compare_weights_panel(AppState& app);    // GGUF types compared, a checkbox each
void local_compare_machines_panel(AppState& app);   // machines compared; Add this machine
void local_compare_grid_panel(AppState& app);       // a row per model x type, a column per machine
// run_local_advanced.cpp
void local_advanced_panel(AppState& app);     // "Advanced placement": -ngl, --n-cpu-moe, --tensor-split, ...; vLLM tp / pp
void local_custom_gpus_panel(AppState& app);  // GPUs not in the presets (name, memory, bandwidth), in local_machine_panel

}  // namespace vl::ui
