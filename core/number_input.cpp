// Numbers as people type them (number_input.h).
#include "number_input.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace vl {

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

struct Parsed {
    bool ok = false;
    double value = 0;  // the number without its shorthand
    double scale = 1;  // the shorthand's factor: 1, 1024 (k), 1048576 (M)
};

// [+-] digits [. digits] [e [+-] digits] [k K m M], with at least one digit before the exponent.
Parsed read_number(std::string_view t, bool shorthand) {
    Parsed p;
    size_t i = 0;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    size_t digits = 0;
    while (i < t.size() && digit(t[i])) ++i, ++digits;
    if (i < t.size() && t[i] == '.') {
        ++i;
        while (i < t.size() && digit(t[i])) ++i, ++digits;
    }
    if (digits == 0) return p;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
        size_t exp_digits = 0;
        while (i < t.size() && digit(t[i])) ++i, ++exp_digits;
        if (exp_digits == 0) return p;
    }
    const size_t end = i;
    if (shorthand && i < t.size()) {
        if (t[i] == 'k' || t[i] == 'K') p.scale = 1024.0;
        else if (t[i] == 'm' || t[i] == 'M') p.scale = 1024.0 * 1024.0;
        else return p;
        ++i;
    }
    if (i != t.size()) return p;
    const std::string number(t.substr(0, end));
    p.value = std::strtod(number.c_str(), nullptr);
    p.ok = std::isfinite(p.value);
    return p;
}

std::string_view trim(std::string_view t) {
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
    return t;
}

std::string quoted(std::string_view t) {
    constexpr size_t kMaxShown = 24;
    std::string s(t.substr(0, kMaxShown));
    return "\"" + s + (t.size() > kMaxShown ? "…\"" : "\"");
}

template <class T>
Result<T> fail(std::string_view field, std::string message) {
    return Result<T>::failure({FieldError{std::string(field), std::move(message)}});
}

}  // namespace

Result<int64_t> parse_whole_number(std::string_view text, std::string_view field) {
    const std::string_view t = trim(text);
    const char* how = "type a whole number, e.g. 4096, 4k (= 4096), 32K (= 32768), 1M (= 1048576) or 1e4 (= 10000)";
    if (t.empty()) return fail<int64_t>(field, std::string("is empty: ") + how);
    const Parsed p = read_number(t, true);
    if (!p.ok) return fail<int64_t>(field, quoted(t) + " is not a number: " + how);
    const double v = p.value * p.scale;
    if (!(std::fabs(v) <= static_cast<double>(kMaxWholeNumber)))
        return fail<int64_t>(field, quoted(t) + " is too large: type a whole number up to 9007199254740992 (2^53)");
    if (v != std::floor(v)) {
        const double lo = std::floor(v), hi = std::ceil(v);
        return fail<int64_t>(field, quoted(t) + " is not a whole number: type e.g. " + std::to_string(static_cast<int64_t>(lo)) +
                                        " or " + std::to_string(static_cast<int64_t>(hi)));
    }
    return Result<int64_t>::success(static_cast<int64_t>(v));
}

Result<double> parse_decimal_number(std::string_view text, std::string_view field) {
    const std::string_view t = trim(text);
    const char* how = "type a number with a point for decimals, e.g. 0.9, 80 or 1e-3";
    if (t.empty()) return fail<double>(field, std::string("is empty: ") + how);
    const Parsed p = read_number(t, false);
    if (!p.ok) return fail<double>(field, quoted(t) + " is not a number: " + how);
    return Result<double>::success(p.value);
}

Result<std::vector<double>> parse_number_list(std::string_view text, std::string_view field) {
    std::vector<double> out;
    if (trim(text).empty()) return Result<std::vector<double>>::success(out);
    for (size_t start = 0;;) {
        const size_t comma = text.find(',', start);
        Result<double> x = parse_decimal_number(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start), field);
        if (!x.ok())
            return Result<std::vector<double>>::failure(
                {{std::string(field), quoted(trim(text)) + " is not a list of numbers: give them separated by commas, e.g. 3,1"}});
        out.push_back(*x.value);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return Result<std::vector<double>>::success(out);
}

}  // namespace vl
