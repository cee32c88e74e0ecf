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
    bool keep_zero = false;  // GpuCount: only the scenario's own ZeRO stage (parallel.zero), as the user chose it
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

// ---- what fits, as the page shows it beside an estimate and the exports carry it ---------------
// The largest batch and sequence (inference: concurrent sequences and context per sequence; training:
// micro-batch and sequence length) of a model with an architecture, and for a scenario that does not fit
// the fewest GPUs with their layout.
struct FitAnswers {
    SolveResult max_batch;  // Knob::Batch / Knob::MicroBatch; found false when not searched
    SolveResult max_seq;    // Knob::Context / Knob::SeqLen, searched up to max(max_position, 4096), at most 2^22
    SolveResult min_gpus;   // Knob::GpuCount up to 512 GPUs at the scenario's own ZeRO stage (keep_zero), searched
                            // only when `e` does not fit
    bool solved = false;    // the estimate was valid and the answers were searched
};
Knob batch_knob(const Scenario& s);  // Batch (inference) or MicroBatch
Knob seq_knob(const Scenario& s);    // Context (inference) or SeqLen
FitAnswers fit_answers(const Scenario& s, const Estimate& e);

// One line per answer: id ("max_micro_batch", "max_batch", "max_seq_len", "max_context", "min_gpus"),
// an English label, the value (-1: none fits) and its text ("6", "131072+" at the search bound,
// "4 (TP 2, PP 1, ZeRO 1)", "none up to 512 GPUs").
struct FitAnswerRow {
    std::string id;
    std::string label;
    int64_t value = -1;
    std::string text;
};
std::vector<FitAnswerRow> fit_answer_rows(const Scenario& s, const Estimate& e, const FitAnswers& a);
std::string gpu_layout_text(const Parallelism& p);  // "TP 2, PP 1, ZeRO 1"

// ---- levers: one change that makes a scenario fit its GPUs -------------------------------------
// For a scenario that does not fit: each single change worth trying, as the page offers it with one click
// to apply: full recomputation, FlashAttention, a smaller micro-batch with more accumulation steps (the
// same tokens per step), ZeRO-3 or ZeRO-Offload on the same GPUs, 8-bit Adam, LoRA or QLoRA for a
// fine-tune; for inference a smaller weight format, an 8-bit KV cache, fewer concurrent sequences or a
// shorter context; and the fewest GPUs with every other setting kept, then with any ZeRO stage. Only the
// changes whose scenario validates and fits are returned, in that order.
struct Lever {
    std::string id;      // "recompute_full", "flash_attention", "micro_batch", "zero3", "zero_offload", "adam8bit",
                         // "lora", "qlora", "weights", "kv_int8", "kv_fp8", "batch", "context", "gpus", "gpus_any_zero"
    std::string label;   // "full recomputation", "micro-batch 2 x 4 accumulation steps", "ZeRO-3 + 16 GPUs (TP 1, PP 1)", ...
    Scenario scenario;   // the scenario with the change applied
    double total_bytes = 0;     // its peak per GPU
    double capacity_bytes = 0;  // its GPU
};
// `a` is fit_answers(s, e): its largest batch and fewest GPUs are levers too.
std::vector<Lever> fit_levers(const Scenario& s, const Estimate& e, const FitAnswers& a);

}  // namespace vl
