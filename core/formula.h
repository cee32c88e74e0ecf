// Building Components: one call per quantity, with the formula text substituted only when asked.
// Keeps the numeric path free of string work (sweeps and solvers use Detail::NumbersOnly).
#pragma once
#include <cstdarg>
#include <cstdio>
#include <string>

#include "estimate.h"

namespace vl {

// printf into a std::string (used for the substituted formula text).
inline std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string format(const char* fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return {};
    if (static_cast<size_t>(n) < sizeof buf) return std::string(buf, static_cast<size_t>(n));
    std::string out(static_cast<size_t>(n), '\0');
    va_start(ap, fmt);
    std::vsnprintf(out.data(), out.size() + 1, fmt, ap);
    va_end(ap);
    return out;
}

// Appends a component. `substitute` is a callable returning the substituted text; it runs only
// with Detail::Full, e.g.  add(e, d, c, [&]{ return format("16 * %lld", (long long)P); });
template <class F>
Component& add(Estimate& e, Detail d, Component c, F&& substitute) {
    if (d == Detail::Full) c.substituted = substitute();
    e.components.push_back(std::move(c));
    return e.components.back();
}

}  // namespace vl
