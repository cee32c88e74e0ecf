// The caching allocator's reserve (allocator_reserve.h).
#include "allocator_reserve.h"

#include "formula.h"

namespace vl {

// PyTorch's caching allocator [pytorch-cuda-alloc] serves a large request from the smallest cached free
// block that holds it and splits the rest off; later, smaller allocations (the KV cache of the next
// layers, saved activations) land in the split-off rest of a freed big block, so the next request of
// the same big size finds no free block large enough and takes a new segment. On a failed cudaMalloc it
// frees only segments with nothing allocated in them, so the holes in split segments stay unusable: a
// run can fail with many GiB "reserved but unallocated" (PyTorch's own OOM message says so and points to
// expandable_segments). Measured on an H100 (tests/data/accuracy/gpu-runs/2026-11-26-h100, the
// allocator's inactive_split_bytes): 1.7-3x the largest transient tensor in 8B prefills at 12-16 x 16k
// tokens, a 1.5B training run and an 8B LoRA run. The factor is calibrated on the calibrate group's
// fit / out-of-memory boundaries (prefill batch 13 fitted, 14 did not: > 1.66; LoRA at 7168 tokens
// fitted: <= 1.86), and checked on the held-out runs (docs/accuracy.md).
const double kSplitHoles = 1.75;

TransientTensor largest_of(std::initializer_list<TransientTensor> candidates) {
    TransientTensor best;
    for (const TransientTensor& t : candidates)
        if (t.bytes() > best.bytes()) best = t;
    return best;
}

// The floor is the margin Megatron's theoretical_memory_usage.py adds ("overhead_factor = 1.05")
// [megatron-theoretical-memory]; [kaiyuan-memory] warns that measured memory can exceed estimates by 30%+.
// With expandable segments a segment grows by mapping pages and unmaps free ones when memory runs
// short [pytorch-cuda-alloc], so split holes do not trap memory: the floor alone.
void add_fragmentation(const Scenario& s, Detail d, Estimate& e, const TransientTensor& largest) {
    const double f = s.overheads.fragmentation;
    const bool holes = !s.overheads.expandable_segments && largest.bytes() > 0;
    if (!(f > 0) && !holes) return;
    const PhaseTotals allocated = phase_totals(e.components, kAllCategories & ~category_bit(Category::Overhead));
    const double alloc = allocated.peak_bytes();
    Component c = comp("overhead.fragmentation", "allocator fragmentation reserve (at the peak)", Category::Overhead,
                       phase_bit(allocated.peak),
                       "PyTorch caching allocator: split blocks, released only when whole [pytorch-cuda-alloc]; floor: Megatron "
                       "theoretical_memory_usage.py 5% overhead factor [megatron-theoretical-memory]");
    if (!holes) {
        add(e, d, std::move(c), [&](auto& q) { return q("fragmentation", f) * q("allocated_at_peak", alloc); });
        return;
    }
    add(e, d, std::move(c), [&](auto& q) {
        const auto t = q.let(largest.name, q("rows", largest.rows) * q("width", largest.width) * q("elem_bytes", largest.elem_bytes));
        return max_of(q("fragmentation", f) * q("allocated_at_peak", alloc), q("k_split", kSplitHoles) * t);
    });
}

}  // namespace vl
