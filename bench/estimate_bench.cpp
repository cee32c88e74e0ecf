// Speed figures (issue 8): printed by Google Benchmark, never asserted in unit tests.
#include <benchmark/benchmark.h>

#include "estimate.h"

static void BM_Estimate(benchmark::State& state) {
    vl::Scenario s;
    for (auto _ : state) benchmark::DoNotOptimize(vl::estimate(s, vl::Detail::NumbersOnly));
}
BENCHMARK(BM_Estimate);
