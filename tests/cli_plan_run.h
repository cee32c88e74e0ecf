// `vramlens plan ARGS` run in-process (cli::run): its exit status, stdout and stderr (the plan tests).
#pragma once
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
    r.status = vl::cli::run(args, r.out, r.err);
    return r;
}

}  // namespace vl::test
