// The decode replay's cost (core/inference/generate_replay.h; issue 14): transformers' generate() of
// Qwen3-0.6B on an H100 with 1024-token prompts and 512 new tokens replayed through the caching
// allocator model, at batch 32 (a stride of 8 tokens) and 256 (every token), each as replay_generate()
// alone and as one estimate(); then the page's work per change on the batch-256 scenario (web/ui/app.cpp
// solve_all: the batch chart's 11 points, fit_answers and fit_levers). Plain clock, so the same source
// runs natively and as WebAssembly; prints medians of N runs in milliseconds, asserts nothing:
//   replay b32 replay_ms=... estimate_ms=...
//   build/native/bench/vramlens_replay_timing [runs]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "estimate.h"
#include "inference/generate_replay.h"
#include "model/presets.h"
#include "solvers.h"

namespace {

template <class F>
double median_ms(int runs, F&& f) {
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

vl::Scenario qwen3_06b(int64_t batch) {
    vl::Scenario s;
    s.mode = vl::Mode::Infer;
    s.model = vl::find_model("qwen3-0.6b")->spec;
    s.gpu = vl::find_gpu("h100-80gb")->gpu();
    s.infer.batch = batch;
    s.infer.prompt = 1024;
    s.infer.context = 1024 + 512;
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
    volatile double sink = 0;
    for (const int64_t batch : {int64_t{32}, int64_t{256}}) {
        const vl::Scenario s = qwen3_06b(batch);
        const double capacity = vl::estimate(s, vl::Detail::NumbersOnly).gpu_usable_bytes;
        const double replay = median_ms(runs, [&] { sink = sink + vl::replay_generate(s, s.model.layers, capacity).peak_reserved; });
        const double one = median_ms(runs, [&] { sink = sink + vl::estimate(s, vl::Detail::NumbersOnly).total_bytes; });
        std::printf("replay b%lld replay_ms=%.3f estimate_ms=%.3f runs=%d\n", static_cast<long long>(batch), replay, one, runs);
    }
    const vl::Scenario s = qwen3_06b(256);
    const double solve = median_ms(std::max(1, runs / 2), [&] {
        vl::Scenario t = s;
        const vl::Knob k = vl::batch_knob(s);
        for (int64_t x = 1; x <= 1024; x *= 2) {  // the batch chart's points (web/ui/app.cpp sweep_values)
            vl::apply_knob(t, k, x);
            sink = sink + vl::estimate(t, vl::Detail::NumbersOnly).total_bytes;
        }
        const vl::Estimate e = vl::estimate(s, vl::Detail::NumbersOnly);
        const vl::FitAnswers a = vl::fit_answers(s, e);
        sink = sink + static_cast<double>(vl::fit_levers(s, e, a).size());
    });
    std::printf("solve_all b256 ms=%.1f (chart 11 estimates + fit_answers + fit_levers) runs=%d\n", solve, std::max(1, runs / 2));
    return 0;
}
