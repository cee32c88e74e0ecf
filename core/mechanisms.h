// Which mechanism each component's bytes belong to (issue 14: "the derivation shows which mechanism contributed
// which bytes"), from ONE table of component-id prefixes, and the peak summed by mechanism. Pure; no I/O.
#pragma once
#include <span>
#include <string_view>

#include "estimate.h"

namespace vl {

struct MechanismInfo {
    const char* id;     // stable key for files and tests, e.g. "autocast_copies"
    const char* label;  // English, e.g. "autocast and fp8 weight copies"
};

// Every mechanism, in the order summaries break ties in; the last is "other" (an id no prefix names).
std::span<const MechanismInfo> mechanisms();

// The mechanism of a component id ("weights.autocast_copies" -> autocast_copies): the first prefix of the table that
// matches a whole dot-separated head of the id.
const MechanismInfo& mechanism_of(std::string_view component_id);

// The GPU components live in the peak phase, summed by mechanism: one row per mechanism with bytes, largest first;
// the rows sum to e.total_bytes and each share is bytes / total_bytes. Written into e.mechanisms (estimate() calls it
// last): filled in place, as the rows are a fixed array that a returned copy would move byte by byte.
void mechanism_summary(Estimate& e);

}  // namespace vl
