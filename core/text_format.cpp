#include "text_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace vl {

namespace {

// What a placeholder asks for: {[index]:[[fill]align][0][width][.precision][type]} without an index.
struct Spec {
    char fill = ' ';
    char align = 0;  // '<', '>', '^' or 0 (numbers right, text left)
    bool plus = false;  // '+': a sign on positive numbers too
    bool zero = false;
    int width = 0;
    int precision = -1;
    bool precision_from_arg = false;
    char type = 0;  // 0, 'f', 'g', 'x', 'd', 's'
};

bool parse_spec(std::string_view s, Spec& spec) {
    std::size_t i = 0;
    auto is_align = [](char c) { return c == '<' || c == '>' || c == '^'; };
    if (s.size() >= 2 && is_align(s[1])) {
        spec.fill = s[0];
        spec.align = s[1];
        i = 2;
    } else if (!s.empty() && is_align(s[0])) {
        spec.align = s[0];
        i = 1;
    }
    if (i < s.size() && s[i] == '+') {
        spec.plus = true;
        ++i;
    }
    if (i < s.size() && s[i] == '0') {
        spec.zero = true;
        ++i;
    }
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') spec.width = spec.width * 10 + (s[i++] - '0');
    if (i < s.size() && s[i] == '.') {
        ++i;
        if (s.substr(i, 2) == "{}") {
            spec.precision_from_arg = true;
            i += 2;
        } else {
            if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
            spec.precision = 0;
            while (i < s.size() && s[i] >= '0' && s[i] <= '9') spec.precision = spec.precision * 10 + (s[i++] - '0');
        }
    }
    if (i < s.size()) spec.type = s[i++];
    return i == s.size() && (spec.type == 0 || spec.type == 'f' || spec.type == 'g' || spec.type == 'x' ||
                             spec.type == 'd' || spec.type == 's');
}

std::string printf_text(const char* format, double v) {
    char buf[400];  // %.17f of 1e308 needs 327 characters
    const int n = std::snprintf(buf, sizeof buf, format, v);
    return n < 0 ? std::string() : std::string(buf, static_cast<std::size_t>(std::min<int>(n, sizeof buf - 1)));
}

std::string number_text(const FormatArg& a, const Spec& spec) {
    using K = FormatArg::Kind;
    if (a.kind == K::Double) {
        const double v = a.d;
        if (std::isnan(v)) return "nan";
        if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
        if (spec.type == 'f' || spec.type == 'g') {
            const int p = spec.precision < 0 ? 6 : std::min(spec.precision, 99);
            const char format[] = {'%', '.', static_cast<char>('0' + p / 10), static_cast<char>('0' + p % 10),
                                   spec.type, 0};
            return printf_text(format, v);
        }
        return shortest_text(v);
    }
    if (a.kind == K::Bool) return a.i ? "true" : "false";
    if (a.kind == K::Char) return std::string(1, static_cast<char>(a.i));
    const bool negative = a.kind == K::Int && a.i < 0;
    std::uint64_t magnitude = a.kind == K::Int ? (negative ? 0 - static_cast<std::uint64_t>(a.i)
                                                           : static_cast<std::uint64_t>(a.i))
                                               : a.u;
    const unsigned base = spec.type == 'x' ? 16 : 10;
    char digits[24];
    int n = 0;
    do {
        digits[n++] = "0123456789abcdef"[magnitude % base];
        magnitude /= base;
    } while (magnitude != 0);
    std::string out = negative ? "-" : "";
    while (n > 0) out += digits[--n];
    return out;
}

void pad_to(std::string& out, std::string_view body, const Spec& spec, bool numeric) {
    const std::size_t width = static_cast<std::size_t>(spec.width);
    if (body.size() >= width) {
        out += body;
        return;
    }
    const std::size_t pad = width - body.size();
    if (spec.zero && numeric && spec.align == 0) {  // zero fill goes after the sign
        const bool sign = !body.empty() && body[0] == '-';
        if (sign) out += '-';
        out.append(pad, '0');
        out += body.substr(sign ? 1 : 0);
        return;
    }
    const char align = spec.align != 0 ? spec.align : (numeric ? '>' : '<');
    const std::size_t before = align == '>' ? pad : align == '^' ? pad / 2 : 0;
    out.append(before, spec.fill);
    out += body;
    out.append(pad - before, spec.fill);
}

}  // namespace

std::string shortest_text(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    if (v == 0) return std::signbit(v) ? "-0" : "0";
    // The fewest significant digits that read back as v (%.{p}e, p = 0..16: 17 digits always do), then {fmt}'s layout.
    char buf[40];
    for (int p = 0; p <= 16; ++p) {
        std::snprintf(buf, sizeof buf, "%.*e", p, v);
        if (p == 16 || std::strtod(buf, nullptr) == v) break;
    }
    const std::string_view text(buf);
    const std::size_t e = text.find('e');
    const bool negative = text[0] == '-';
    std::string digits;
    for (std::size_t i = negative ? 1 : 0; i < e; ++i)
        if (text[i] != '.') digits += text[i];
    const int exponent = std::atoi(buf + e + 1);
    std::string out = negative ? "-" : "";
    if (exponent < -4 || exponent >= 16) {  // {fmt}: 1e+20, 1.5e-07 (at least two exponent digits)
        out += digits[0];
        if (digits.size() > 1) {
            out += '.';
            out.append(digits, 1);
        }
        const int a = std::abs(exponent);
        out += exponent < 0 ? "e-" : "e+";
        if (a < 10) out += '0';
        out += std::to_string(a);
    } else if (exponent < 0) {
        out += "0.";
        out.append(static_cast<std::size_t>(-exponent - 1), '0');
        out += digits;
    } else if (static_cast<int>(digits.size()) <= exponent + 1) {
        out += digits;
        out.append(static_cast<std::size_t>(exponent + 1) - digits.size(), '0');
    } else {
        out.append(digits, 0, static_cast<std::size_t>(exponent + 1));
        out += '.';
        out.append(digits, static_cast<std::size_t>(exponent + 1));
    }
    return out;
}

void format_to(std::string& out, std::string_view pattern, const FormatArg* args, std::size_t n) {
    std::size_t next = 0;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == '}') {
            out += c;
            if (i + 1 < pattern.size() && pattern[i + 1] == '}') ++i;
            continue;
        }
        if (c != '{') {
            out += c;
            continue;
        }
        if (i + 1 < pattern.size() && pattern[i + 1] == '{') {
            out += '{';
            ++i;
            continue;
        }
        // The placeholder runs to its closing brace; a nested "{}" (precision from an argument) inside.
        std::size_t close = i + 1;
        int depth = 1;
        for (; close < pattern.size(); ++close) {
            if (pattern[close] == '{') ++depth;
            if (pattern[close] == '}' && --depth == 0) break;
        }
        const bool closed = close < pattern.size();
        const std::string_view inside = pattern.substr(i + 1, close - i - 1);
        i = close;
        Spec spec;
        const bool ok = closed && (inside.empty() || (inside[0] == ':' && parse_spec(inside.substr(1), spec)));
        if (!ok || next >= n) {
            out += "{?}";
            continue;
        }
        const FormatArg& a = args[next++];
        if (spec.precision_from_arg) {
            if (next >= n) {
                out += "{?}";
                continue;
            }
            const FormatArg& p = args[next++];
            spec.precision = static_cast<int>(p.kind == FormatArg::Kind::Uint ? static_cast<std::int64_t>(p.u) : p.i);
        }
        if (a.kind == FormatArg::Kind::Text) {
            pad_to(out, a.s, spec, false);
        } else {
            std::string body = number_text(a, spec);
            if (spec.plus && !body.empty() && body[0] != '-' && a.kind != FormatArg::Kind::Bool &&
                a.kind != FormatArg::Kind::Char)
                body.insert(body.begin(), '+');
            pad_to(out, body, spec, a.kind != FormatArg::Kind::Bool && a.kind != FormatArg::Kind::Char);
        }
    }
}

}  // namespace vl
