// Estimate: what estimate() returns. Components carry their formula, the formula with the user's
// numbers, and the source; phases give the memory at each point of a step and which sets the peak.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <algorithm>
#include <vector>

#include "diagnostics.h"
#include "param_count.h"
#include "scenario.h"

namespace vl {

enum class Category { Weights, Gradients, Optimizer, Activations, Logits, KVCache, Buffers, Overhead };
inline constexpr unsigned category_bit(Category c) { return 1u << static_cast<unsigned>(c); }
inline constexpr unsigned kAllCategories = 0xFF;

// Training: Load, Forward (end of forward), Backward (peak in backward), Step (optimizer step).
// Inference uses Load, Forward (= prefill) and Step (= decode); Backward stays empty.
enum class Phase { Load = 0, Forward = 1, Backward = 2, Step = 3 };
inline constexpr int kPhaseCount = 4;
inline constexpr unsigned phase_bit(Phase p) { return 1u << static_cast<unsigned>(p); }
inline constexpr unsigned kAllPhases = 0xF;

struct Component {
    const char* id = "";        // stable key, e.g. "weights", "optimizer.adam_states", "act.attention"
    const char* label = "";     // English label; the UI translates by id
    Category category = Category::Weights;
    double bytes = 0;           // per GPU (the most loaded rank)
    unsigned phases = kAllPhases;  // phases in which these bytes are live (phase_bit mask)
    const char* source = "";    // one-line citation
    bool host = false;          // lives in host (CPU) memory, not on the GPU (offload)

    // Filled only with Detail::Full, both from the component's one expression (core/formula.h):
    // formula()      symbolic, e.g. "16 * P / N_d"
    // substituted()  the formula with the user's numbers, e.g. "16 * 6,738,415,616 / 8 = 13,476,831,232 B"
    // Kept in one string: a Component on the fast path (NumbersOnly) carries a single empty one.
    std::string_view formula() const { return std::string_view(text).substr(0, std::min(text.size(), text.find('\n'))); }
    std::string_view substituted() const {
        const size_t n = text.find('\n');
        return n == std::string::npos ? std::string_view() : std::string_view(text).substr(n + 1);
    }
    void set_text(std::string_view formula, std::string_view substituted) {
        text.assign(formula);
        text += '\n';
        text += substituted;
    }
    std::string text;  // formula + '\n' + substituted; use the accessors
};

// The one per-phase sum: a GPU component counts in every phase its mask names, a host component
// in `host` only; `categories` (category_bit, or'ed) picks which components count.
struct PhaseTotals {
    std::array<double, kPhaseCount> gpu{};  // GPU bytes live in each phase
    double host = 0;                        // bytes in host memory
    Phase peak = Phase::Load;               // the first phase with the largest GPU total
    double peak_bytes() const { return gpu[static_cast<size_t>(peak)]; }
};
PhaseTotals phase_totals(std::span<const Component> components, unsigned categories = kAllCategories);

enum class Detail { NumbersOnly, Full };  // NumbersOnly skips formula text for sweeps and solvers

// Inference: the KV cache the scenario can hold (vLLM: the paged pool it allocates; other engines:
// what the memory left after everything else would hold). Zero in training.
struct KvCapacity {
    double bytes_per_token = 0;   // per GPU (the most loaded rank), all its layers
    int64_t block_size = 0;       // tokens per block (vLLM paged KV); 1 for engines without blocks
    int64_t blocks = 0;           // whole blocks that fit
    int64_t tokens = 0;           // blocks * block_size
    int64_t sequences = 0;        // concurrent sequences of infer.context tokens
    double pool_bytes = 0;        // bytes set aside for the KV cache
};

// The GPU bytes live at the peak that one mechanism contributes (core/mechanisms.h mechanism_summary): the
// components are grouped by the one table of component ids there; the rows sum to Estimate::total_bytes.
struct MechanismBytes {
    const char* id = "";     // e.g. "model_states", "kv_cache"
    const char* label = "";  // e.g. "model states (weights, gradients, optimizer)"
    double bytes = 0;
    double share = 0;        // bytes / total_bytes
};

// The mechanisms' table has this many rows (core/mechanisms.cpp checks it).
inline constexpr size_t kMechanismCount = 13;

// The peak by mechanism: at most one row per mechanism, so the rows live in a fixed array inside the
// Estimate (no heap allocation per estimate: sweeps and solvers make thousands). Read it as a range.
struct MechanismRows {
    std::array<MechanismBytes, kMechanismCount> rows{};
    size_t count = 0;

    const MechanismBytes* begin() const { return rows.data(); }
    const MechanismBytes* end() const { return rows.data() + count; }
    size_t size() const { return count; }
    bool empty() const { return count == 0; }
    const MechanismBytes& operator[](size_t i) const { return rows[i]; }
};

struct Estimate {
    std::vector<Component> components;
    std::array<double, kPhaseCount> phase_bytes{};  // GPU bytes live in each phase (phase_totals)
    Phase peak_phase = Phase::Load;
    double total_bytes = 0;     // = phase_bytes[peak_phase] = sum of GPU components live at peak
    double host_bytes = 0;      // offloaded bytes per GPU's host share
    double gpu_capacity_bytes = 0;  // what fits() compares against: gpu_usable_bytes (vLLM: times gpu_memory_utilization)
    double gpu_usable_bytes = 0;    // the GPU's CUDA-visible total (Gpu::usable_bytes)
    double gpu_reported_bytes = 0;  // nvidia-smi memory.total (Gpu::memory_bytes); above usable by the driver's reserve
    ParamCounts params;
    std::vector<std::string> warnings;
    std::vector<FieldError> errors;  // non-empty: no numbers were produced
    KvCapacity kv;              // inference only
    // Two figures for a run on PyTorch's caching allocator (allocator_reserve.h): total_bytes is what must fit (fits(),
    // the solvers); shown_bytes is what nvidia-smi (the CUDA context + torch.cuda.memory_reserved) shows in a run with
    // room, the peak with shown_reserve in place of the reserve that decides fits(). Equal where the two reserves are.
    // Read it from a Detail::Full estimate: the replay of two training steps behind it (training/step_replay.h) runs only
    // there; Detail::NumbersOnly (sweeps, solvers) keeps the fitted kCachedShown figure.
    double shown_bytes = 0;
    Component shown_reserve;    // the reserve a run with room shows, with its derivation; id "" when it is the same one
    MechanismRows mechanisms;   // the peak by mechanism, largest first (mechanism_summary)

    bool ok() const { return errors.empty(); }
    bool fits() const { return ok() && total_bytes <= gpu_capacity_bytes; }
    double headroom_bytes() const { return gpu_capacity_bytes - total_bytes; }
};

// The one entry point: pure, no I/O. Validates first; invalid scenarios return errors only.
Estimate estimate(const Scenario& s, Detail detail = Detail::Full);

// Every rule a scenario must satisfy, each error naming its field. Empty = valid.
std::vector<FieldError> validate(const Scenario& s);

// Component ids are dotted groups: an id is under `head` when it is `head` or starts with `head` + "." ("engine.nccl" is
// under "engine", "weights.vision" under "weights", "weights_x" under neither).
bool id_under(std::string_view id, std::string_view head);
// GPU bytes (host components left out) of the one component with exactly this id, 0 when there is none; and of every
// component under a group.
double component_bytes(const Estimate& e, std::string_view id);
double group_bytes(const Estimate& e, std::string_view head);

}  // namespace vl
