// libFuzzer target: scenario JSON (core/scenario_json.h), the format of files, the CLI and links.
// Seeds: fuzz/seeds/scenario_json/ and the examples of docs/scenario-format.md.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_checks.h"
#include "scenario_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace vl;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const Result<Scenario> r = scenario_from_json(text);
    fuzz::check_expected_error(r.errors, "scenario_from_json");
    if (!r.ok()) {
        fuzz::check_errors_named(r.errors, "scenario_from_json");
        return 0;
    }
    fuzz::check_estimate(*r);
    // Writing what was read and reading it back is lossless, in both styles.
    for (JsonStyle style : {JsonStyle::Compact, JsonStyle::Pretty}) {
        const std::string once = scenario_to_json(*r, style);
        const Result<Scenario> again = scenario_from_json(once);
        if (!again.ok()) fuzz::fail("scenario_to_json wrote what scenario_from_json rejects: " + to_string(again.errors.front()) + "\n" + once);
        if (scenario_to_json(*again, style) != once) fuzz::fail("scenario JSON does not round-trip:\n" + once);
    }
    return 0;
}
