// Exports of an Estimate (issue 7): plain-text table, JSON, Markdown table, CSV. Pure; string out.
// The CLI prints these and the web app's export buttons offer the same text.
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "enum_names.h"
#include "estimate.h"
#include "solvers.h"
#include "units.h"

namespace vl {

enum class ExportFormat { Table, Json, Markdown, Csv };
std::span<const EnumName<ExportFormat>> enum_names(ExportFormat);  // "table", "json", "markdown", "csv"

struct ExportOptions {
    SizeUnit unit = SizeUnit::GiB;  // Table, Markdown, CSV; JSON gives bytes only
    bool formulas = false;          // Table: a line per component with formula, numbers, source
                                    // (Markdown, CSV and JSON always carry them)
    const FitAnswers* answers = nullptr;  // what fits (largest batch and sequence, fewest GPUs), as the page shows
                                          // them: every format carries them (fit_answer_rows); none when null
    const std::vector<Lever>* levers = nullptr;  // when it does not fit: each single change that fits (fit_levers),
                                                 // as the page lists them; every format carries them
};

// The scenario gives the heading (model, mode, GPUs), the phase names (inference: prefill and
// decode) and, in JSON, the "scenario" member in the scenario JSON format.
std::string export_estimate(const Scenario& s, const Estimate& e, ExportFormat f, const ExportOptions& o = {});

// Inference: the KV cache the scenario holds, as numbers: "KV cache pool: N blocks of B tokens = T
// tokens (pool, bytes per token), S sequences of C tokens" for vLLM's paged pool, "KV cache capacity:
// T tokens ..." for engines that allocate on demand. Empty in training or without an architecture.
std::string kv_capacity_text(const Scenario& s, const Estimate& e, SizeUnit u);

// A run on PyTorch's caching allocator whose reserve in a run with room differs from the one that decides fits
// (Estimate::shown_reserve) and prints another number than the peak: "nvidia-smi will show about 41.20 GiB in a run
// with room (...)"; "" otherwise.
std::string shown_reserve_text(const Estimate& e, SizeUnit u);

// "By mechanism at the peak: model states (weights, gradients, optimizer) 13.20 GiB (62.1 %), activations ...": the
// peak summed by mechanism (Estimate::mechanisms), largest first. Empty for an estimate with errors.
std::string mechanisms_text(const Estimate& e, SizeUnit u);

// Any small table (preset lists, parameter counts) in the same four formats: aligned text,
// JSON (an array of objects keyed by the header), Markdown, CSV. Cells are plain strings.
std::string format_rows(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows, ExportFormat f);

// Text that came from input (a model or GPU name, a message quoting a value) made safe to print on
// a terminal: C0 control characters and DEL as \xNN (ESC -> \x1b), C1 controls as \u0080..\u009f.
// The table and Markdown writers apply it; JSON escapes by its own rules, CSV keeps data as given.
std::string escape_control_chars(std::string_view text);

// The name of a phase in this mode: training load/forward/backward/step, inference load/prefill/decode.
const char* phase_label(Mode mode, Phase p);

}  // namespace vl
