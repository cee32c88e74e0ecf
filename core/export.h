// Exports of an Estimate (issue 7): plain-text table, JSON, Markdown table, CSV. Pure; string out.
// The CLI prints these and the web app's export buttons offer the same text.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "enum_names.h"
#include "estimate.h"
#include "units.h"

namespace vl {

enum class ExportFormat { Table, Json, Markdown, Csv };
std::span<const EnumName<ExportFormat>> enum_names(ExportFormat);  // "table", "json", "markdown", "csv"

struct ExportOptions {
    SizeUnit unit = SizeUnit::GiB;  // Table, Markdown, CSV; JSON gives bytes only
    bool formulas = false;          // Table: a line per component with formula, numbers, source
                                    // (Markdown, CSV and JSON always carry them)
};

// The scenario gives the heading (model, mode, GPUs), the phase names (inference: prefill and
// decode) and, in JSON, the "scenario" member in the scenario JSON format.
std::string export_estimate(const Scenario& s, const Estimate& e, ExportFormat f, const ExportOptions& o = {});

// Any small table (preset lists, parameter counts) in the same four formats: aligned text,
// JSON (an array of objects keyed by the header), Markdown, CSV. Cells are plain strings.
std::string format_rows(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows, ExportFormat f);

// The name of a phase in this mode: training load/forward/backward/step, inference load/prefill/decode.
const char* phase_label(Mode mode, Phase p);

}  // namespace vl
