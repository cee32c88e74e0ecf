// Number text (units.h): every number printed for people is formatted here, with {fmt}.
#include "units.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "text_format.h"

namespace vl {

namespace {

// "-1234567.5" -> "-1,234,567.5": commas in the whole part of a printed number, sign and decimals kept.
std::string with_commas(std::string_view printed) {
    const size_t sign = !printed.empty() && printed[0] == '-' ? 1 : 0;
    const size_t end = std::min(printed.find('.'), printed.size());
    std::string out;
    out.reserve(printed.size() + (end - sign) / 3);
    out += printed.substr(0, sign);
    for (size_t i = sign; i < end; ++i) {
        if (i > sign && (end - i) % 3 == 0) out += ',';
        out += printed[i];
    }
    out += printed.substr(end);
    return out;
}

}  // namespace

std::string group_thousands(int64_t n) { return with_commas(std::to_string(n)); }

std::string grouped_whole(double v) { return std::isfinite(v) ? with_commas(whole_text(v)) : whole_text(v); }

std::string whole_text(double v) { return vl::format("{:.0f}", v); }

std::string fixed_text(double v, int decimals) { return vl::format("{:.{}f}", v, std::clamp(decimals, 0, 17)); }

std::string number_text(double x) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    if (x == 0) return "0";  // also -0
    const double a = std::fabs(x);
    std::string body;
    if (a == std::floor(a)) {
        // Exact, every digit: below 2^63 as the integer it is (the fast path), else printed in full.
        body = a < 0x1p63 ? std::to_string(static_cast<int64_t>(a)) : vl::format("{:.0f}", a);
    } else {
        // |x| >= 1: 4 decimals; |x| < 1: 6 significant digits (e.g. 0.0001234 needs 9 decimals)
        const int decimals = a < 1 ? std::min(340, 5 - static_cast<int>(std::floor(std::log10(a)))) : 4;
        body = vl::format("{:.{}f}", a, decimals);
        while (body.back() == '0') body.pop_back();
        if (body.back() == '.') body.pop_back();
        if (body == "0") return "0";  // rounded away entirely (cannot happen with 6 significant digits)
    }
    if (x < 0) body.insert(body.begin(), '-');
    return with_commas(body);
}

std::string amount(double bytes, SizeUnit u, int decimals) { return fixed_text(to_unit(bytes, u), decimals); }

std::string amount_with_unit(double bytes, SizeUnit u, int decimals) { return amount(bytes, u, decimals) + " " + unit_name(u); }

std::string bytes_label(double bytes, SizeUnit u) {
    if (!std::isfinite(bytes)) return "—";
    // Decided on the value as printed: 99.996 is "100.00" at two decimals (6 characters), so it takes one.
    const bool hundreds = fixed_text(std::fabs(to_unit(bytes, u)), 2).size() >= 6;
    return amount_with_unit(bytes, u, hundreds ? 1 : 2);
}

std::string size_text(double bytes) {
    if (bytes < 10'000) return whole_text(bytes) + " bytes";
    if (bytes < 10'000'000) return whole_text(bytes / 1e3) + " KB";
    return whole_text(bytes / 1e6) + " MB";
}

std::string count_label(int64_t v) {
    if (v >= 1024 && v % 1024 == 0) return vl::format("{}k", v / 1024);
    if (v >= 10000) return vl::format("{:.1f}k", static_cast<double>(v) / 1000.0);
    return vl::format("{}", v);
}

std::string params_label(int64_t n) {
    if (n >= 1'000'000'000) return vl::format("{:.1f}B", static_cast<double>(n) / 1e9);
    return vl::format("{:.0f}M", static_cast<double>(n) / 1e6);
}

}  // namespace vl
