// What every fuzz target asserts beyond "no crash, no sanitizer report": an accepted input gives a
// sound estimate (tests/estimate_checks.h), a rejected one names a field, and the text form of what
// was accepted reads back to the same thing. A violation aborts, which libFuzzer reports as a crash
// with the input saved (crash-<sha1>).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "estimate.h"
#include "estimate_checks.h"

namespace vl::fuzz {

[[noreturn]] inline void fail(const std::string& what) {
    std::fprintf(stderr, "vramlens fuzz finding: %s\n", what.c_str());
    std::abort();
}

inline void check_errors_named(const std::vector<FieldError>& errs, const char* where) {
    if (errs.empty()) fail(std::string(where) + ": rejected without an error");
    for (const FieldError& e : errs)
        if (e.field.empty() || e.message.empty()) fail(std::string(where) + ": an error without field or message: " + to_string(e));
}

// Estimates the scenario with both detail levels: invalid -> errors only; valid -> sound and equal.
inline void check_estimate(const Scenario& s) {
    const Estimate fast = estimate(s, Detail::NumbersOnly);
    if (!fast.ok()) {
        check_errors_named(fast.errors, "estimate");
        if (!fast.components.empty()) fail("estimate produced components for an invalid scenario");
        return;
    }
    if (const std::string w = test::soundness(s, fast); !w.empty()) fail("estimate: " + w);
    const Estimate full = estimate(s, Detail::Full);
    if (const std::string w = test::same_numbers(full, fast); !w.empty()) fail("estimate: " + w);
}

}  // namespace vl::fuzz
