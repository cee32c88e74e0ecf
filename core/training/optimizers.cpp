// The optimizer table's look-ups (optimizers.h).
#include "training/optimizers.h"

#include "formula.h"

namespace vl {

const OptimizerInfo& optimizer_info(Optimizer o) {
    for (const OptimizerInfo& i : kOptimizers)
        if (i.id == o) return i;
    return kOptimizers[0];  // unreachable: the table has a row for every Optimizer (tests/optimizers_test.cpp)
}

std::string optimizer_state_text(const OptimizerInfo& o) {
    const std::string n = std::to_string(o.states);
    switch (o.size) {
        case StateSize::None: return "none";
        case StateSize::PerParam: return n + " x state dtype";
        case StateSize::Blockwise:
            return n + " x (" + number_text(o.element_bytes) + " B + " + number_text(o.scale_bytes) + " B / " + number_text(o.block) + ")";
        case StateSize::Factored: return "rows + cols per matrix x state dtype";
        case StateSize::Custom: return "train.custom_optimizer_bytes_per_param";
    }
    return "";
}

}  // namespace vl
