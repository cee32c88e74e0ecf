// `vramlens verify-script`: a self-contained Python script that builds the scenario's model with
// random weights from its config (transformers, no download), runs the configured step on a CUDA
// GPU, and prints the measured peak next to vramlens' estimate. Text generation only. Before
// building the model it compares the estimate with the local GPU and stops (exit 3) when the machine
// is too small; running out of memory is reported as a measured "did not fit" (exit 4).
#pragma once
#include <string>

#include "diagnostics.h"
#include "estimate.h"

namespace vl::cli {

// Errors name every scenario field that the script cannot reproduce like for like (multi-GPU
// layouts, quantized weights or KV cache, LoRA, compatibility modes and published activation
// formulas, hidden-state dropout on Llama-family models, architectures transformers cannot build from
// a plain config).
Result<std::string> verify_script(const Scenario& s, const Estimate& e);

}  // namespace vl::cli
