// The 10,000-point chart sweep (bench/workloads.h), timed with a plain clock so the same source runs
// natively and as WebAssembly (node, Chromium): prints the median of N runs in milliseconds.
//   build/native/bench/vramlens_sweep_timing [runs]
//   node --no-experimental-fetch build/web/bench/vramlens_sweep_timing.js [runs]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "workloads.h"

int main(int argc, char** argv) {
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
    const vl::Scenario s = vl::bench::train_llama8b();
    volatile double sink = vl::bench::sweep_10k(s);  // warm-up (first-use statics, page faults, JIT tiers)
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        sink = sink + vl::bench::sweep_10k(s);
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("sweep_10k median_ms=%.3f min_ms=%.3f runs=%d points=%d\n", ms[ms.size() / 2], ms.front(), runs,
                vl::bench::kSweepPoints);
    return 0;
}
