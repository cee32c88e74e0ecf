// `vramlens verify-script`: a self-contained Python script that builds the scenario's model with
// random weights from its config (transformers, no download), runs the configured step on a CUDA
// GPU, and prints the measured peak next to vramlens' estimate. Text generation only.
#pragma once
#include <string>

#include "diagnostics.h"
#include "estimate.h"

namespace vl::cli {

// Errors name the scenario field that the script cannot reproduce (multi-GPU layouts, quantized
// weights, LoRA, architectures transformers cannot build from a plain config).
Result<std::string> verify_script(const Scenario& s, const Estimate& e);

}  // namespace vl::cli
