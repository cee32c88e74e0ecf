#pragma once
// cold([&] { ... }): runs the block as a function of its own, called through a pointer, for code the
// page's first view does not run: what only an error or warning branch runs, typically the push_back
// of a message, and the paths of the engines and model families other than the default scenario's:
//     if (tp < 1) cold([&] { errs.push_back({"parallel.tp", "must be >= 1; got " + num(tp)}); });
// The block's code and text then live in that function, not in its caller: the web build's split
// (cmake/split_wasm.py) moves a function the first view never runs to the deferred wasm, and with it
// the strings only it names (cmake/split_data.py). A plain [[gnu::noinline]] helper is not enough:
// the link's wasm-opt inlines every function with one caller, whatever clang was told, while a
// function whose address is in the table stays out of line. It costs one indirect call: beside the
// string a message branch builds, or once per estimate for an engine's path.
#include <type_traits>

namespace vl {

[[gnu::noinline, gnu::cold]] inline void run_cold(void* block, void (*run)(void*)) { run(block); }

template <class F>
inline void cold(F&& block) {
    run_cold(&block, [](void* b) { (*static_cast<std::remove_reference_t<F>*>(b))(); });
}

}  // namespace vl
