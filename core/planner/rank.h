// Which model fits best (issue 19, item 6): for one machine (GPUs, RAM, or an Apple Mac), plan every
// candidate model x GGUF type with llama.cpp's placement (planner.h) and rank those that run at the
// wanted context and speed by a quality proxy. Pure: a RankInput in, a Ranking out.
//
// The quality proxy, in this order (each a stated rule, not a benchmark score):
//   1. the quantization's loss class must be at most `max_loss` (default Noticeable: Q2_K's loss is
//      large enough to be left out unless asked for);
//   2. more parameters first (total; an MoE's active share is shown beside it): in llama.cpp's
//      perplexity tables a quantized larger model beats the next smaller one at 16 bits (LLaMA 13B
//      Q4_0 5.386 vs 7B fp16 5.907), and Llama 2 70B loses 4.7 % at Q3_K_M, 8.8 % at Q2_K over its
//      fp16 [llama-cpp-perplexity];
//   3. then the smaller quantization loss (mean KL divergence to fp16 on Llama 3 8B, the same
//      scoreboard), then the faster decode.
// The loss per type is llama.cpp's measured KLD, not a per-model figure: other models lose
// differently (e.g. Llama 3 loses more than Llama 2 at the same type, same source).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "planner/planner.h"
#include "planner/speed.h"

namespace vl {

struct GpuPreset;
struct ModelPreset;

enum class QuantLoss { NearLossless, Small, Noticeable, Large };
const char* quant_loss_name(QuantLoss c);  // "near-lossless", "small", "noticeable", "large"

// Mean KL divergence to fp16 of a GGUF type without an importance matrix, llama.cpp's Llama 3 8B
// scoreboard [llama-cpp-perplexity]; 0 for fp16 / bf16; < 0 for a type the scoreboard does not list.
double gguf_type_kld(WeightFormat w);
// Its class: < 0.01 near-lossless (Q8_0, Q6_K), < 0.05 small (Q5_K_M, Q4_K_M), < 0.15 noticeable
// (Q4_0, Q3_K_M), else large (Q2_K). The bounds are this tool's choice of where to cut the measured
// scale, stated so a user can see and change the cut (--max-loss).
QuantLoss quant_loss_class(double kld);

struct RankCandidate {
    std::string id;          // preset id or what the user typed
    ModelSpec model;
};

struct RankInput {
    PlanInput machine;                       // gpus / ram / apple, context, KV type, flash attention, ubatch
    std::vector<const GpuPreset*> gpu_presets;  // the machine's GPUs (speed), in machine.gpus' order
    const AppleChip* chip = nullptr;         // machine.apple_unified: the chip (speed)
    SpeedInput speed;                        // RAM bandwidth, CPU FLOP/s (GPU figures come from the presets)
    std::vector<RankCandidate> models;       // empty: the model presets released since `since`
    std::string since;                       // "YYYY-MM"; "": current_generation_since()
    std::vector<WeightFormat> weights;       // empty: every GGUF type vramlens knows
    double min_tokens_per_s = 10;            // decode at least this fast (a user setting, not a measurement)
    QuantLoss max_loss = QuantLoss::Noticeable;
    bool cpu_moe = true;                     // llama.cpp: an MoE row may be the --n-cpu-moe plan; false for Ollama (no such setting)
};

enum class RankVerdict { Ranked, TooSlow, TooLossy, ContextTooLong, DoesNotFit, Unsupported };
// "ranked", "too slow", "too lossy", "context too long" (over max_position_embeddings), "does not fit", "not plannable"
const char* rank_verdict_name(RankVerdict v);

struct RankRow {
    std::string id, name;
    WeightFormat weights = WeightFormat::GGUF_Q4_K_M;
    int64_t params = 0, active_params = 0;  // total; per token (MoE)
    double kld = 0;
    QuantLoss loss = QuantLoss::Small;
    RankVerdict verdict = RankVerdict::Ranked;
    std::string why;                         // not Ranked: why, in words
    int64_t ngl = 0, n_layer = 0, max_context = 0;
    int64_t n_cpu_moe = 0;                   // an MoE model: --n-cpu-moe of the plan ranked, when it decodes faster than
                                             // the automatic -ngl split (launch.h moe_alternative); 0: the -ngl plan
    double gpu_bytes = 0, cpu_bytes = 0;     // the plan's totals on the GPUs and in RAM
    double decode_tokens_per_s = 0;          // 0 when not planned or no speed figure
    Regime decode_band;
};

struct Ranking {
    std::string error;                       // bad input: names the field and how to fix it
    std::vector<RankRow> rows;               // Ranked rows best first, then the others (by verdict, then params)
    size_t ranked = 0;                       // rows[0, ranked) are Ranked
    bool ok() const { return error.empty(); }
};

Ranking rank_models(const RankInput& in);

// One candidate x type on in.machine: plan_llamacpp (the largest -ngl, then the largest context),
// plan_speed_on, then the verdict by in's rules. rank_models' rows and the compare grid's cells
// (compare.h) are this; `vramlens plan` runs the same two planners for one model and type.
RankRow plan_candidate(const RankInput& in, const RankCandidate& c, WeightFormat w);

// The default candidates are the current generation: presets first published in the 12 months up to
// the newest preset's month (parameter counts compare poorly across generations: a 2023 40B model
// is no better than a 2025 14B one). Returns that first month, "YYYY-MM".
std::string current_generation_since();

// One row as text: "Qwen3-8B, GGUF Q4_K_M: 8.2B parameters, loss small (KLD 0.0313); -ngl 37 of 37, context up
// to 35328, decode ~48.5 tok/s[; too slow: why]" (the CLI's line and the page's mirror).
std::string rank_row_text(const RankRow& r);

// A decode speed as the rows show it: "48.5", "148" (3 significant digits, whole above 100).
std::string tokens_per_s_text(double tok_s);

// The best row of each model (its first in `r.rows`), in rank order: one line per model.
std::vector<RankRow> best_per_model(const Ranking& r);

}  // namespace vl
