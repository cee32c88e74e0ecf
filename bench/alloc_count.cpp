// The global operator new and delete, replaced to count allocations (bench/alloc_count.h). Plain
// malloc/free underneath, as the default ones; the benchmarks run on one thread, but the counters are
// atomic (relaxed) so a library thread cannot tear them.
#include "alloc_count.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<uint64_t> g_calls{0}, g_bytes{0};
}  // namespace

vl::bench::AllocCount vl::bench::allocations() {
    return {g_calls.load(std::memory_order_relaxed), g_bytes.load(std::memory_order_relaxed)};
}

void* operator new(std::size_t n) {
    g_calls.fetch_add(1, std::memory_order_relaxed);
    g_bytes.fetch_add(n, std::memory_order_relaxed);
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return ::operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
