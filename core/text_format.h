#pragma once
// vl::format: "{}"-style text formatting for the core, the page and the CLI.
//
// It takes the subset of {fmt}'s format-spec grammar the project uses, with {fmt}'s output for it:
//   {}            an integer, a string, a bool (true/false), a char, or a double as its shortest
//                 round-trip digits (fixed notation for exponents -4..15, else 1e+20 style; 1.0 -> "1")
//   {:.3g} {:g}   printf's %g           {:.1f} {:.{}f}   fixed with a precision (also from an argument)
//   {:03} {:>3}   width, zero fill and alignment (< > ^)   {:04x}   hexadecimal   {:+.1f}   a sign always
//   {{ and }}     a literal brace
// Why not {fmt} itself: it was 45 KB of code (18.5 KB gzip) in the page, the largest part of it for
// formats the project never asks for, while the page links printf's formatter anyway (issue 16,
// docs/performance.md). A spec outside the subset prints "{?}" in place of the value (never throws);
// tests/text_format_test.cpp checks every form above.
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace vl {

struct FormatArg {
    enum class Kind : std::uint8_t { Int, Uint, Double, Text, Bool, Char };
    Kind kind = Kind::Int;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    double d = 0;
    std::string_view s;

    FormatArg(bool v) : kind(Kind::Bool), i(v) {}
    FormatArg(char v) : kind(Kind::Char), i(v) {}
    FormatArg(double v) : kind(Kind::Double), d(v) {}
    FormatArg(float v) : kind(Kind::Double), d(v) {}
    FormatArg(const char* v) : kind(Kind::Text), s(v) {}
    FormatArg(std::string_view v) : kind(Kind::Text), s(v) {}
    FormatArg(const std::string& v) : kind(Kind::Text), s(v) {}
    template <class T, std::enable_if_t<std::is_integral_v<T> && std::is_signed_v<T> && !std::is_same_v<T, char> &&
                                            !std::is_same_v<T, bool>, int> = 0>
    FormatArg(T v) : kind(Kind::Int), i(v) {}
    template <class T, std::enable_if_t<std::is_integral_v<T> && std::is_unsigned_v<T> && !std::is_same_v<T, bool>,
                                        int> = 0>
    FormatArg(T v) : kind(Kind::Uint), u(v) {}
    template <class E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
    FormatArg(E v) : FormatArg(static_cast<std::underlying_type_t<E>>(v)) {}
};

// Appends `pattern` with its placeholders replaced by args[0..n) to `out`.
void format_to(std::string& out, std::string_view pattern, const FormatArg* args, std::size_t n);

// Shortest decimal text that reads back as exactly v, as {fmt}'s "{}" prints a double.
std::string shortest_text(double v);

template <class... A>
std::string format(std::string_view pattern, const A&... args) {
    std::string out;
    if constexpr (sizeof...(A) == 0) {
        format_to(out, pattern, nullptr, 0);
    } else {
        const FormatArg list[] = {FormatArg(args)...};
        format_to(out, pattern, list, sizeof...(A));
    }
    return out;
}

}  // namespace vl
