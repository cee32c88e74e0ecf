// Solvers: answer "what fits?" by searching over estimate(s, Detail::NumbersOnly). One mechanism
// for training and inference: pick a knob, get the best value that fits, the component that hits
// the limit, or why nothing fits.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "estimate.h"

namespace vl {

enum class Knob {
    MicroBatch,    // train.micro_batch, largest that fits
    SeqLen,        // train.seq_len, longest that fits
    Batch,         // infer.batch (concurrent sequences at infer.context), largest that fits
    Context,       // infer.context (tokens per sequence), longest that fits
    GpuCount,      // fewest GPUs, and at that count the smallest tp*pp (then ZeRO stage) that fits
    WeightFormat,  // infer.weights: the least compressed format (most weight bytes) that fits
};

const char* knob_name(Knob k);

struct SolveOptions {
    int64_t lo = 1;          // smallest value tried (Batch, Context, MicroBatch, SeqLen)
    int64_t hi = 0;          // largest value tried; 0 = 2^24 tokens / 2^20 batch
    int64_t max_gpus = 256;  // GpuCount: largest count tried
};

struct SolveResult {
    bool found = false;
    int64_t value = 0;         // batch, tokens, GPU count, or static_cast<int64_t>(WeightFormat)
    bool at_search_bound = false;  // fits all the way to SolveOptions::hi (the answer may be larger)
    Scenario scenario;         // the input with the answer applied (GpuCount: with its parallel layout)
    Estimate estimate;         // estimate at the answer, NumbersOnly
    std::string limiting_id;   // id of the component that hits the limit ("" when none applies)
    std::string why;           // one sentence: what limits the answer, or why nothing fits
    std::vector<FieldError> errors;  // the scenario itself is invalid (no search was made)
    int evaluations = 0;       // estimate() calls made
};

// Sets / reads the knob on a scenario (GpuCount sets gpu_count and dp = count / (tp*pp*cp)).
void apply_knob(Scenario& s, Knob k, int64_t value);
int64_t knob_value(const Scenario& s, Knob k);

// Monotone knobs (Batch, Context, MicroBatch, SeqLen: memory never falls as they grow) use
// exponential then binary search over their valid values (SeqLen with context parallelism: the
// multiples of parallel.cp); WeightFormat enumerates every format; GpuCount returns what enumerating
// (GPU count, tp*pp, tp, ZeRO) in order would, but prunes with dp/ZeRO properties the invariant suite
// checks (solvers.cpp solve_gpus); its `why` names the closest layout probed with fewer GPUs.
SolveResult solve(const Scenario& s, Knob k, const SolveOptions& opt = {});

}  // namespace vl
