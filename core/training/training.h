// Training and fine-tuning memory (issue 4): appends components to e. e.params is already set.
#pragma once
#include <vector>

#include "estimate.h"

namespace vl {

void estimate_training(const Scenario& s, Detail d, Estimate& e);
void validate_training(const Scenario& s, std::vector<FieldError>& errs);  // Train and FineTune modes
void validate_parallel(const Scenario& s, std::vector<FieldError>& errs);  // every mode

}  // namespace vl
