// Scenario JSON (issue 7): the one versioned text form of a Scenario, shared by share links,
// exports, the CLI and the tests. The format is documented in docs/scenario-format.md.
//
//   {"version": 1, "model": "llama-3.1-8b", "mode": "train",
//    "train": {"precision": "bf16-mixed", "micro_batch": 4, "seq_len": 4096},
//    "parallel": {"dp": 8, "zero": 2}, "gpu": "h100-80gb"}
//
// Reading never throws and never crashes: malformed JSON, unknown fields, wrong types, numbers that
// do not fit and unknown names each give a FieldError naming the JSON path ("train.micro_batch").
// Fields left out keep Scenario's defaults (gpu_count: dp * tp * pp * cp). Reading checks the
// form of each value only; the rules between fields are validate()'s (estimate.h).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "scenario.h"

namespace vl {

// Bump when a field's meaning or default changes; readers refuse versions they do not know.
inline constexpr int kScenarioJsonVersion = 1;

enum class JsonStyle {
    Pretty,   // indented, every field written (files, exports, documentation)
    Compact,  // one line, fields equal to Scenario's defaults left out (share links)
};

// A "profile" (core/framework_profiles.h) is applied first, then the file's explicit fields over it; the writer
// leaves out (Compact) what equals the defaults with that profile applied, so a link round-trips.
Result<Scenario> scenario_from_json(std::string_view text);
std::string scenario_to_json(const Scenario& s, JsonStyle style = JsonStyle::Pretty);

// Sets one field of `s` from its path in the format ("train.precision") and a JSON value ("\"bf16-autocast\"", "64"),
// read as a scenario file's field is (same field lists, same checks). Errors name the path. Framework profiles use it.
std::vector<FieldError> set_scenario_field(Scenario& s, std::string_view path, std::string_view json_value);

// A ModelSpec as the inline "model" object of the format: every field (Pretty) or the fields that
// differ from ModelSpec's defaults (Compact); parameter-count-only models: name, family,
// model_type, params. Never a preset id (scenario_to_json uses one when the spec is a preset's).
std::string model_to_json(const ModelSpec& m, JsonStyle style = JsonStyle::Pretty);

// The id of the model preset whose spec is exactly `m` (every field), if any.
std::optional<std::string> model_preset_id(const ModelSpec& m);

}  // namespace vl
