// Training and fine-tuning memory (issue 4): appends components to e. e.params is already set.
// The parallelism rules (validate_parallel, rank_weights, ...) live in core/parallel.h so that
// inference shares them.
#pragma once
#include <vector>

#include "estimate.h"
#include "parallel.h"

namespace vl {

void estimate_training(const Scenario& s, Detail d, Estimate& e);
void validate_training(const Scenario& s, std::vector<FieldError>& errs);  // Train and FineTune modes
// train.optimizer_impl resolved: Auto is Foreach for plain PyTorch training, Fused otherwise [pytorch-adam-code].
OptimizerImpl optimizer_impl(const Scenario& s);

}  // namespace vl
