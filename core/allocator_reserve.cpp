// The caching allocator's reserve (allocator_reserve.h).
#include "allocator_reserve.h"

#include "formula.h"

namespace vl {

// The caching allocator keeps freed blocks it cannot reuse for a differently sized request; reserve a
// fraction of the peak allocation (default 5%, the same margin Megatron's theoretical_memory_usage.py
// adds as "overhead_factor = 1.05" [megatron-theoretical-memory]; [kaiyuan-memory] warns that measured memory can exceed estimates by 30%+).
void add_fragmentation(const Scenario& s, Detail d, Estimate& e) {
    const double f = s.overheads.fragmentation;
    if (!(f > 0)) return;
    const PhaseTotals allocated = phase_totals(e.components, kAllCategories & ~category_bit(Category::Overhead));
    const double alloc = allocated.peak_bytes();
    add(e, d, comp("overhead.fragmentation", "allocator fragmentation reserve (at the peak)", Category::Overhead,
                   phase_bit(allocated.peak),
                   "PyTorch caching allocator [pytorch-docs]; Megatron theoretical_memory_usage.py 5% overhead factor [megatron-theoretical-memory]"),
        [&](auto& q) { return q("fragmentation", f) * q("allocated_at_peak", alloc); });
}

}  // namespace vl
