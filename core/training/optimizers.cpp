// The optimizer table's look-ups (optimizers.h).
#include "training/optimizers.h"

#include <iterator>

#include "formula.h"

namespace vl {

// The rows are in enum order (checked here at compile time), so the row of o is at index o.
static constexpr bool rows_in_enum_order() {
    for (size_t i = 0; i < std::size(kOptimizers); ++i)
        if (static_cast<size_t>(kOptimizers[i].id) != i) return false;
    return std::size(kOptimizers) == static_cast<size_t>(Optimizer::Custom) + 1;
}
static_assert(rows_in_enum_order(), "kOptimizers: one row per Optimizer, in enum order");

const OptimizerInfo& optimizer_info(Optimizer o) {
    const size_t i = static_cast<size_t>(o);
    return i < std::size(kOptimizers) ? kOptimizers[i] : kOptimizers[0];  // out of range only for a cast int
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
