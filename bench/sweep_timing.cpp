// The 10,000-point chart sweep (bench/workloads.h), timed with a plain clock so the same source runs
// natively and as WebAssembly (node, Chromium). Each run also times the reference work
// (bench::reference_work, no vramlens code) right after the sweep, so both see the same machine
// load; prints the medians of N runs in milliseconds and their ratio, and the heap allocations
// (operator new, bench/alloc_count.cpp) and bytes one estimate of the sweep makes:
//   sweep_10k median_ms=4.512 min_ms=4.401 reference_ms=1.020 sweep_per_reference=4.42 runs=15 points=10000 allocs_per_estimate=1.00 alloc_bytes_per_estimate=2560
//   build/native/bench/vramlens_sweep_timing [runs]
//   node --no-experimental-fetch build/web/bench/vramlens_sweep_timing.js [runs]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "alloc_count.h"
#include "workloads.h"

namespace {

template <class F>
double time_ms(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
    const vl::Scenario s = vl::bench::train_llama8b();
    // Warm-up for at least 0.5 s: first-use statics, page faults, and in WebAssembly the engine's tiers
    // (V8 starts on its baseline compiler and swaps in optimized code compiled on a background thread,
    // which on a busy machine comes late: without this, the first timed runs measured the baseline code).
    volatile double sink = 0;
    const auto warm_start = std::chrono::steady_clock::now();
    do sink = sink + vl::bench::sweep_10k(s) + vl::bench::reference_work();
    while (std::chrono::steady_clock::now() - warm_start < std::chrono::milliseconds(500));
    const vl::bench::AllocCount a0 = vl::bench::allocations();
    sink = sink + vl::bench::sweep_10k(s);
    const vl::bench::AllocCount a1 = vl::bench::allocations();
    std::vector<double> sweep, reference;
    sweep.reserve(static_cast<size_t>(runs));
    reference.reserve(static_cast<size_t>(runs));
    for (int i = 0; i < runs; ++i) {
        sweep.push_back(time_ms([&] { sink = sink + vl::bench::sweep_10k(s); }));
        reference.push_back(time_ms([&] { sink = sink + vl::bench::reference_work(); }));
    }
    const double m = median(sweep), r = median(reference);
    const double points = vl::bench::kSweepPoints;
    std::printf("sweep_10k median_ms=%.3f min_ms=%.3f reference_ms=%.3f sweep_per_reference=%.2f runs=%d points=%d "
                "allocs_per_estimate=%.2f alloc_bytes_per_estimate=%.0f\n",
                m, *std::min_element(sweep.begin(), sweep.end()), r, m / r, runs, vl::bench::kSweepPoints,
                static_cast<double>(a1.calls - a0.calls) / points, static_cast<double>(a1.bytes - a0.bytes) / points);
    return 0;
}
