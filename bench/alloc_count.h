// Heap allocations counted by a replaced global operator new (bench/alloc_count.cpp), for the speed
// figures only: linked into the benchmark binaries, never into the core, the CLI or the app. The
// count is printed next to the times (allocations per estimate), never asserted.
#pragma once
#include <cstdint>

namespace vl::bench {

struct AllocCount {
    uint64_t calls = 0;  // operator new calls
    uint64_t bytes = 0;  // bytes they asked for
};

// Every operator new since the program started.
AllocCount allocations();

}  // namespace vl::bench
