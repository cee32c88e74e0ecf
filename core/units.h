// Units: bytes are doubles (fractional bits per weight exist); display converts here and only here.
#pragma once
#include <cstdint>
#include <string>

namespace vl {

inline constexpr double kGB = 1e9;                  // decimal gigabyte
inline constexpr double kGiB = 1024.0 * 1024 * 1024; // binary gibibyte (what most tools print as "GB")
inline constexpr double kMiB = 1024.0 * 1024;

enum class SizeUnit { GB, GiB };

inline double to_gb(double bytes) { return bytes / kGB; }
inline double to_gib(double bytes) { return bytes / kGiB; }
inline double to_unit(double bytes, SizeUnit u) { return u == SizeUnit::GB ? to_gb(bytes) : to_gib(bytes); }
inline const char* unit_name(SizeUnit u) { return u == SizeUnit::GB ? "GB" : "GiB"; }

// 8030261248 -> "8,030,261,248": counts of parameters and bytes as people read them.
inline std::string group_thousands(int64_t n) {
    const std::string digits = std::to_string(n < 0 ? -n : n);
    std::string out = n < 0 ? "-" : "";
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

}  // namespace vl
