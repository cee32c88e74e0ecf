// Units and number text. Bytes are doubles (fractional bits per weight exist); converting them to a
// unit, and printing any number for people (exports, CLI tables, web labels and chart axes, formula
// text), happens here and only here (units.cpp). Rounding is printf's: the exact binary value rounded
// to the nearest, ties to even (0.125 -> "0.12", 2.675 -> "2.67" because 2.675 is 2.67499999...).
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

// ---- numbers --------------------------------------------------------------------------------------
// Grouped in threes, as people read counts of parameters and bytes: 8030261248 -> "8,030,261,248",
// -1234 -> "-1,234".
std::string group_thousands(int64_t n);
// A double rounded to a whole number and grouped: 13476831232.4 -> "13,476,831,232"; "nan", "inf",
// "-inf" when not finite.
std::string grouped_whole(double v);
// A double rounded to a whole number, digits only (machine-read columns): 13476831232.4 -> "13476831232".
std::string whole_text(double v);
// Fixed point with `decimals` decimals (0 to 17): fixed_text(1.5, 2) -> "1.50", fixed_text(-0.001, 2) -> "-0.00".
std::string fixed_text(double v, int decimals);
// The numbers in formula text ("show the math"), as the substituted formulas print them:
//   - integral values exactly, every digit, grouped: 8,030,261,248 (1e20 too, never 1e+20);
//   - other values in fixed point: |x| >= 1 with up to 4 decimals (1.001953125 -> "1.002", 12.5 -> "12.5"),
//     |x| < 1 with 6 significant digits (0.126953125 -> "0.126953"), so a shown fraction such as a
//     fragmentation share of 0.1234567 gives the shown result within 5e-6; trailing zeros dropped;
//   - "0" for 0 and -0; "nan", "inf", "-inf" (never expected from a valid scenario).
std::string number_text(double x);

// ---- bytes ----------------------------------------------------------------------------------------
// Bytes in a unit, number only (table columns, CSV): 13476831232 B -> "12.55" GiB or "13.48" GB.
// Negative stays negative (headroom over the GPU): -1.5 GiB -> "-1.50".
std::string amount(double bytes, SizeUnit u, int decimals = 2);
// The same with the unit's name: "12.55 GiB".
std::string amount_with_unit(double bytes, SizeUnit u, int decimals = 2);
// A label for a tight line or a chart: 2 decimals below 100 units, 1 from 100 on, judged on the value
// as printed ("12.55 GiB", "140.5 GiB", "-140.5 GiB", 99.996 -> "100.0 GiB"); "—" when not finite.
std::string bytes_label(double bytes, SizeUnit u);
// A size in decimal steps, for messages about input sizes: "9999 bytes", "10 KB", "4194 KB", "15 MB".
std::string size_text(double bytes);

// ---- counts ---------------------------------------------------------------------------------------
// Short counts for chart axes and solver answers: whole multiples of 1024 from 1024 on in k = 1024
// (4096 -> "4k", 131072 -> "128k"), others from 10000 on in thousands with one decimal (12000 ->
// "12.0k"), smaller ones as they are ("999", "1000").
std::string count_label(int64_t v);
// Parameter counts, short: from a billion on in billions with one decimal (8030261248 -> "8.0B"),
// below in whole millions (124439808 -> "124M").
std::string params_label(int64_t n);

}  // namespace vl
