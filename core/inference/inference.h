// Inference and serving memory (issue 5): appends components to e. e.params is already set.
#pragma once
#include <vector>

#include "estimate.h"

namespace vl {

void estimate_inference(const Scenario& s, Detail d, Estimate& e);
void validate_inference(const Scenario& s, std::vector<FieldError>& errs);  // Infer mode

}  // namespace vl
