// Building Components: one call per quantity, with the formula text substituted only when asked.
// Keeps the numeric path free of string work (sweeps and solvers use Detail::NumbersOnly).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <string>
#include <type_traits>

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

// ---- the derivation text ("show the math") --------------------------------------------------
// One convention for every Component's `substituted` text, so the UI shows them alike:
//   <the symbolic formula with the user's numbers, same order and shape> = <bytes> B
// e.g. formula "P * weight_bytes / N_w" -> "6,738,415,616 * 2 / 1 = 13,476,831,232 B".
// Numbers (number_text):
//   - integral values print exactly, every digit, grouped in threes by commas: 8,030,261,248;
//   - other values print in fixed point, never scientific: |x| >= 1 with up to 4 decimals
//     (1.0020 -> "1.002", 12.5 -> "12.5"), |x| < 1 with 4 significant digits (0.001953125 -> "0.001953");
//     trailing zeros are dropped;
//   - NaN and infinities print as "nan", "inf", "-inf" (never expected from a valid scenario).
// Templates (derive) use "{}" for each number; the count is checked at compile time.

namespace detail {
inline std::string group_digits(const std::string& digits) {  // "1234567" -> "1,234,567"
    std::string out;
    const size_t n = digits.size();
    for (size_t i = 0; i < n; ++i) {
        if (i > 0 && (n - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}
}  // namespace detail

inline std::string number_text(double x) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    if (x == 0) return "0";  // also -0
    const bool neg = x < 0;
    const double a = std::fabs(x);
    char buf[400];
    std::string body;
    if (a == std::floor(a)) {
        std::snprintf(buf, sizeof buf, "%.0f", a);  // exact: every integral double prints exactly
        body = detail::group_digits(buf);
    } else {
        // |x| >= 1: 4 decimals; |x| < 1: 4 significant digits (e.g. 0.0001234 needs 7 decimals)
        int decimals = 4;
        if (a < 1) decimals = std::min(340, 3 - static_cast<int>(std::floor(std::log10(a))));
        std::snprintf(buf, sizeof buf, "%.*f", decimals, a);
        std::string t(buf);
        const size_t dot = t.find('.');
        if (dot != std::string::npos) {
            while (t.back() == '0') t.pop_back();
            if (t.back() == '.') t.pop_back();
        }
        const size_t int_end = t.find('.');
        body = detail::group_digits(t.substr(0, int_end)) + (int_end == std::string::npos ? "" : t.substr(int_end));
        if (body == "0") return "0";  // rounded away entirely (cannot happen with 4 significant digits)
    }
    return neg ? "-" + body : body;
}

// " = <bytes> B", the ending of every substituted text.
inline std::string bytes_text(double bytes) { return number_text(bytes) + " B"; }

// The left-hand side of a derivation: the formula with the user's numbers, before " = <bytes> B".
// add() appends the component's own bytes, so the shown result is always the component's value.
struct Derivation {
    std::string text;
};

namespace detail {
inline std::string piece(const Derivation& d) { return d.text; }  // a sub-expression built earlier
inline std::string piece(const char* s) { return s; }
inline std::string piece(const std::string& s) { return s; }
template <class T>
    requires std::is_arithmetic_v<T>
inline std::string piece(T v) {
    static_assert(!std::is_same_v<T, bool>, "derive: pass numbers, not bools");
    return number_text(static_cast<double>(v));
}

consteval size_t count_placeholders(const char* t) {
    size_t n = 0;
    for (; *t; ++t)
        if (t[0] == '{' && t[1] == '}') ++n;
    return n;
}

// Not constexpr: calling it while constant-evaluating a DeriveTemplate is the compile-time error.
inline void derive_placeholder_count_differs_from_argument_count() {}

// A template literal whose "{}" count must equal the number of arguments (checked at compile time).
template <size_t N>
struct DeriveTemplate {
    const char* text;
    template <size_t M>
    consteval DeriveTemplate(const char (&t)[M]) : text(t) {
        if (count_placeholders(t) != N) derive_placeholder_count_differs_from_argument_count();
    }
};
}  // namespace detail

// derive("{} * {} / {}", P, 2, n) -> Derivation{"6,738,415,616 * 2 / 1"}. Arguments: numbers,
// strings (inserted as they are) or earlier Derivations (sub-expressions).
template <class... A>
Derivation derive(detail::DeriveTemplate<sizeof...(A)> tmpl, const A&... args) {
    const std::string pieces[sizeof...(A) + 1] = {detail::piece(args)..., std::string()};
    std::string out;
    size_t k = 0;
    for (const char* t = tmpl.text; *t; ++t) {
        if (t[0] == '{' && t[1] == '}') {
            out += pieces[k++];
            ++t;
        } else {
            out += *t;
        }
    }
    return {out};
}

// The full substituted text: "<lhs> = <bytes> B".
inline std::string derivation_text(const Derivation& lhs, double bytes) { return lhs.text + " = " + bytes_text(bytes); }

// Appends a component. `substitute` runs only with Detail::Full (NumbersOnly does no string work).
// It returns a Derivation (preferred: add() appends " = <component bytes> B"), e.g.
//   add(e, d, c, [&] { return derive("{} * {} / {}", P, dt.weight, n_w); });
// or, for older call sites, the finished text as a std::string.
template <class F>
Component& add(Estimate& e, Detail d, Component c, F&& substitute) {
    if (d == Detail::Full) {
        if constexpr (std::is_same_v<std::decay_t<std::invoke_result_t<F&>>, Derivation>)
            c.substituted = derivation_text(substitute(), c.bytes);
        else
            c.substituted = substitute();
    }
    e.components.push_back(std::move(c));
    return e.components.back();
}

}  // namespace vl
