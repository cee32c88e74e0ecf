// `vramlens plan` run in-process (cli::run) for the plan tests (tests/cli_plan_test.cpp, planner_compare_test.cpp)
// and those that compare a Run locally plan with the CLI's (local_plan_test.cpp, web/tests/run_local_test.cpp):
// its exit status and output, its JSON, one line of its text, or whether it refuses an input.
#pragma once
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli.h"

namespace vl::test {

struct PlanOut {
    int status;
    std::string out, err;
};

inline PlanOut run_plan(std::vector<std::string> args) {
    args.insert(args.begin(), "plan");
    PlanOut r;
    r.status = cli::run(args, r.out, r.err);
    return r;
}

// `vramlens plan ARGS --format json`, which must succeed (exit 0).
inline nlohmann::json cli_plan(std::vector<std::string> args) {
    args.insert(args.end(), {"--format", "json"});
    const PlanOut r = run_plan(std::move(args));
    INFO(r.err);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.out);
}

// Whether `vramlens plan ARGS` refuses the input (exit 1) with `message` in its error.
inline bool plan_refused_with(const std::vector<std::string>& args, const std::string& message) {
    const PlanOut r = run_plan(args);
    INFO(r.err);
    return r.status == 1 && r.err.find(message) != std::string::npos;
}

// The first line of `text` that starts with `prefix`; "" when none does.
inline std::string line_starting(const std::string& text, const std::string& prefix) {
    for (size_t at = 0; at < text.size();) {
        const size_t nl = text.find('\n', at);
        const std::string line = text.substr(at, nl - at);
        if (line.rfind(prefix, 0) == 0) return line;
        if (nl == std::string::npos) break;
        at = nl + 1;
    }
    return {};
}

// The first line of `vramlens plan ARGS` (text) that starts with `prefix`; "" when none does.
inline std::string cli_text_line(std::vector<std::string> args, const std::string& prefix) {
    return line_starting(run_plan(std::move(args)).out, prefix);
}

}  // namespace vl::test
