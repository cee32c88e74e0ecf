// What every fuzz target asserts beyond "no crash, no sanitizer report": an accepted input gives a
// sound estimate (tests/estimate_checks.h), a rejected one names a field, and the text form of what
// was accepted reads back to the same thing. A violation aborts, which libFuzzer reports as a crash
// with the input saved (crash-<sha1>).
//
// Limit cases (scripts/fuzz.sh runs each target once on inputs too large or too deep for
// core/json_input.h): with VRAMLENS_FUZZ_EXPECT_ERROR=TEXT in the environment, every input must be
// rejected with an error containing TEXT; a target that accepts it, or rejects it for another
// reason, aborts.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
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

// VRAMLENS_FUZZ_EXPECT_ERROR, or null when unset (a normal fuzzing run).
inline const char* expected_error() {
    static const char* const text = std::getenv("VRAMLENS_FUZZ_EXPECT_ERROR");
    return text && *text ? text : nullptr;
}

// With VRAMLENS_FUZZ_EXPECT_ERROR set: the input was rejected (ok == false) and one of its errors
// (field, message, or the whole text) contains the expected text.
inline void check_expected_error(bool ok, const std::string& errors, const char* where) {
    const char* want = expected_error();
    if (!want) return;
    if (ok) fail(std::string(where) + ": accepted an input that must be rejected with \"" + want + "\"");
    if (errors.find(want) == std::string::npos)
        fail(std::string(where) + ": rejected, but not with \"" + want + "\": " + errors);
    std::string one_line = errors.substr(0, 300);
    for (char& c : one_line)
        if (c == '\n') c = ' ';
    std::fprintf(stderr, "%s: rejected as expected: %s\n", where, one_line.c_str());
}
inline void check_expected_error(const std::vector<FieldError>& errs, const char* where) {
    std::string text;
    for (const FieldError& e : errs) text += to_string(e) + "\n";
    check_expected_error(errs.empty(), text, where);
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
