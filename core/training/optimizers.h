// Optimizer state sizes as data: one row per optimizer. The estimate (training/model_states.cpp), the
// scenario names (enum_names), the UI's optimizer list and the CLI (`vramlens optimizers`, --optimizer)
// all read this table.
#pragma once
#include <cstdint>
#include <string>

#include "scenario.h"

namespace vl {

// How an optimizer's state is sized.
enum class StateSize : uint8_t {
    None,       // no state (plain SGD)
    PerParam,   // `states` tensors the size of the parameters, each element in the regime's state dtype
                // (4 B, or 2 B in pure bf16 / with train.optimizer_state_dtype = bf16)
    Blockwise,  // `states` tensors of `element_bytes` per element plus one `scale_bytes` scale per `block` elements
    Factored,   // one second moment kept as rows + cols per weight matrix, vectors in full, in the state dtype
    Custom,     // train.custom_optimizer_bytes_per_param
};

struct OptimizerInfo {
    Optimizer id;
    const char* name;      // the scenario JSON / CLI value
    const char* label;     // the estimate's component label
    StateSize size;
    int states;            // state tensors (Adam m and v: 2; momentum: 1)
    double element_bytes;  // Blockwise: bytes per state element
    double block;          // Blockwise: elements per scale
    double scale_bytes;    // Blockwise: bytes per scale
    bool master_weights;   // steps an fp32 master copy in the mixed-precision regimes (training_dtypes)
    const char* source;    // one-line citation
};

inline constexpr OptimizerInfo kOptimizers[] = {
    {Optimizer::SGD, "sgd", "optimizer states (SGD: none)", StateSize::None, 0, 0, 0, 0, true,
     "torch.optim.SGD without momentum keeps no state [pytorch-docs]"},
    {Optimizer::SGDMomentum, "sgd-momentum", "optimizer states (SGD momentum)", StateSize::PerParam, 1, 0, 0, 0, true,
     "one momentum buffer per parameter [pytorch-docs]; divided by N_d from ZeRO-1 [zero2020 §3.1]"},
    {Optimizer::AdamW, "adamw", "optimizer states (Adam m, v)", StateSize::PerParam, 2, 0, 0, 0, true,
     "Adam keeps m and v [kingma2015]; ZeRO Sec 3.1: optimizer states K*P, divided by N_d from ZeRO-1 [zero2020 §3.1]"},
    // bitsandbytes block-wise 8-bit Adam: 1 byte per state element plus one fp32 absmax per 2048 elements.
    {Optimizer::Adam8bit, "adamw-8bit", "optimizer states (8-bit Adam m, v + block scales)", StateSize::Blockwise, 2, 1, 2048, 4, true,
     "Dettmers et al. 2022, 8-bit Optimizers via Block-wise Quantization (block 2048, fp32 absmax) [adam8bit2022]"},
    {Optimizer::Adafactor, "adafactor", "optimizer states (Adafactor factored second moments)", StateSize::Factored, 1, 0, 0, 0, true,
     "Shazeer & Stern 2018, Adafactor (factored second moments) [shazeer2018]; HF transformers Adafactor [transformers-code]"},
    {Optimizer::Lion, "lion", "optimizer states (Lion momentum)", StateSize::PerParam, 1, 0, 0, 0, true,
     "Chen et al. 2023, Symbolic Discovery of Optimization Algorithms (Lion: one momentum) [lion2023]"},
    {Optimizer::Custom, "custom", "optimizer states (custom bytes/param)", StateSize::Custom, 0, 0, 0, 0, true,
     "train.custom_optimizer_bytes_per_param, as given"},
};

// The row of an optimizer (every Optimizer has one).
const OptimizerInfo& optimizer_info(Optimizer o);

// Its state per parameter in words, for lists: "2 x state dtype", "2 x (1 B + 4 B / 2048)".
std::string optimizer_state_text(const OptimizerInfo& o);

}  // namespace vl
