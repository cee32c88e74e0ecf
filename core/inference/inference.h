// Inference and serving memory (issue 5): appends components to e. e.params is already set.
#pragma once
#include <vector>

#include "estimate.h"

namespace vl {

void estimate_inference(const Scenario& s, Detail d, Estimate& e);
void validate_inference(const Scenario& s, std::vector<FieldError>& errs);  // Infer mode
// The image tokens of one sequence: infer.images images of image_width x image_height, by the model's rule
// (model/image_tokens.h image_grid); 0 for a text-only model.
int64_t sequence_image_tokens(const ModelSpec& m, const InferenceOptions& o);

}  // namespace vl
