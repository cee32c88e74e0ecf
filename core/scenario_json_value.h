// The scenario file's document as a JSON value (scenario_to_json writes it out as text), for a writer
// that embeds it in its own document: core/export.cpp's JSON export, which had parsed that text back
// (a second JSON parser in the page's wasm, issue 16). Apart from scenario_json.h, which most of the
// code includes, so that it does not bring nlohmann_json with it.
#pragma once
#include <nlohmann/json.hpp>

#include "scenario_json.h"

namespace vl {

nlohmann::ordered_json scenario_json_value(const Scenario& s, JsonStyle style = JsonStyle::Pretty);

}  // namespace vl
