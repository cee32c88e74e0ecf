// The compare grid (issue 19 item 6): N models x GGUF types x machines side by side. Each cell is
// rank.h's plan_candidate for one model x type on one machine: plan_llamacpp's largest -ngl and
// largest context, plan_speed_on's decode tok/s and error band, so a cell is what `vramlens plan`
// prints for the same inputs. Nothing is computed here but the lookups that build each machine.
// Pure: a CompareInput in, a CompareGrid out.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "planner/rank.h"
#include "scenario.h"

namespace vl {

struct CompareInput {
    std::vector<RankCandidate> models;
    std::vector<WeightFormat> weights;     // GGUF types (gguf_type_kld >= 0)
    std::vector<LocalMachine> machines;
    LocalEngine engine = LocalEngine::LlamaCpp;  // llama.cpp or Ollama (the same placement)
    int64_t context = 4096;                // -c
    KvDtype kv = KvDtype::FP16;            // -ctk/-ctv
    bool flash_attention = false;          // -fa
    SpeedInput speed;                      // RAM bandwidth, CPU FLOP/s (GPU and Apple figures from the presets)
};

struct CompareCell {
    size_t model = 0, weights = 0, machine = 0;  // indices into the input's lists
    RankRow row;                           // plan_candidate's row (verdict Ranked: it fits and runs)
    bool fits() const { return row.verdict != RankVerdict::DoesNotFit && row.verdict != RankVerdict::Unsupported; }
};

struct CompareGrid {
    std::string error;                     // bad input: names the field ("machines[1].gpus[0]: ...") and how to fix it
    std::vector<std::string> machine_names;  // one per machine: "RTX 4090 + RTX 3060 12GB, 64 GiB RAM"
    std::vector<CompareCell> cells;        // by model, then type, then machine
    size_t n_weights = 0, n_machines = 0;
    const CompareCell& at(size_t model, size_t weights, size_t machine) const {
        return cells[(model * n_weights + weights) * n_machines + machine];
    }
    bool ok() const { return error.empty(); }
};

// Limits that keep a typed or linked grid small enough to compute in the page (each cell is one plan).
inline constexpr size_t kMaxCompareModels = 16, kMaxCompareWeights = 9, kMaxCompareMachines = 8;

CompareGrid compare_grid(const CompareInput& in);

// The page's grid: s.local.compare at s.local's engine, context, KV type and flash attention; the model
// "current" is s.model. Errors name the scenario field: "local.compare.machines[1].gpus[0]: ...",
// "local.engine: ...", "local.context: ...".
CompareGrid compare_local(const Scenario& s);

// A machine's planner input (gpus, RAM, Mac) with its GPU presets and chip for the speed; errors name
// "gpus[j]", "ram_bytes" or "apple_chip" with the close preset ids. Empty: valid.
std::string compare_machine_input(const LocalMachine& m, RankInput& out);

// "RTX 4090 + RTX 3060 12GB, 64 GiB RAM" / "Apple M2 Max, 96 GiB unified memory"
std::string machine_name(const LocalMachine& m);

// A cell in a few words: "fits · -ngl 37/37 · ctx ≤ 40960 · ~48.5 tok/s (±12-30 %)", "does not fit",
// "not plannable". The CLI's table and the page's grid show this.
std::string compare_cell_text(const CompareCell& c);

}  // namespace vl
