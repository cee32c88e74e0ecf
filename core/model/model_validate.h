// ModelSpec rules (issue 3): heads divide hidden where required, kv heads divide heads, sizes > 0
// and not absurd. Field names are Hugging Face's config.json names, prefixed by `prefix`.
#pragma once
#include <string>
#include <vector>

#include "diagnostics.h"
#include "model_spec.h"

namespace vl {

void validate_model(const ModelSpec& m, std::vector<FieldError>& errs, const std::string& prefix = "model.");

}  // namespace vl
