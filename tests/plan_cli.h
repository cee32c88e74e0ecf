// `vramlens plan` run in-process for the tests that compare a Run locally plan with the CLI's
// (tests/local_plan_test.cpp, web/tests/run_local_test.cpp): its JSON, or one line of its text.
#pragma once
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli.h"

namespace vl::test {

// `vramlens plan ARGS --format json`, which must succeed (exit 0).
inline nlohmann::json cli_plan(std::vector<std::string> args) {
    args.insert(args.begin(), "plan");
    args.insert(args.end(), {"--format", "json"});
    std::string out, err;
    const int status = cli::run(args, out, err);
    INFO(err);
    REQUIRE(status == 0);
    return nlohmann::json::parse(out);
}

// The first line of `vramlens plan ARGS` (text) that starts with `prefix`; "" when none does.
inline std::string cli_text_line(std::vector<std::string> args, const std::string& prefix) {
    args.insert(args.begin(), "plan");
    std::string out, err;
    cli::run(args, out, err);
    for (size_t at = 0; at < out.size();) {
        const size_t nl = out.find('\n', at);
        const std::string line = out.substr(at, nl - at);
        if (line.rfind(prefix, 0) == 0) return line;
        if (nl == std::string::npos) break;
        at = nl + 1;
    }
    return {};
}

}  // namespace vl::test
