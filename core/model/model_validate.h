// ModelSpec rules (issue 3): heads divide hidden where required, kv heads divide heads, sizes > 0
// and not absurd; and the tensor-parallel split of its shapes. Field names are Hugging Face's config.json names, prefixed by `prefix`.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "model_spec.h"
#include "scenario.h"

namespace vl {

// The prefix is a view (no string is built per call: estimate() validates on every call).
void validate_model(const ModelSpec& m, std::vector<FieldError>& errs, std::string_view prefix = "model.");

// parallel.tp against the shapes: tp divides every dimension a tensor-parallel matrix is split along
// (attention heads, KV heads, the MLP, expert and shared-expert widths), each error naming the config
// field and the tensors split along it. Called by validate_parallel on a model that passed validate_model.
void validate_tensor_parallel(const Scenario& s, std::vector<FieldError>& errs);

}  // namespace vl
