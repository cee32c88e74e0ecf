#pragma once
// cold([&] { ... }): runs the block as a function of its own, called through a pointer, for code that
// only an error or warning branch runs, typically the push_back of a message:
//     if (tp < 1) cold([&] { errs.push_back({"parallel.tp", "must be >= 1; got " + num(tp)}); });
// The block's text then lives in that function, not in the rule's: the web build's split
// (cmake/split_wasm.py) moves a function the first view never runs to the deferred wasm, and with it
// the strings only it names (cmake/split_data.py). A plain [[gnu::noinline]] helper is not enough:
// the link's wasm-opt inlines every function with one caller, whatever clang was told, while a
// function whose address is in the table stays out of line. Natively it costs one indirect call on
// a branch that builds a string anyway.
#include <type_traits>

namespace vl {

[[gnu::noinline, gnu::cold]] inline void run_cold(void* block, void (*run)(void*)) { run(block); }

template <class F>
inline void cold(F&& block) {
    run_cold(&block, [](void* b) { (*static_cast<std::remove_reference_t<F>*>(b))(); });
}

}  // namespace vl
