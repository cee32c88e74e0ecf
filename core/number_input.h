// Numbers as people type them into a field (the web UI's number fields). A whole-number field takes
// the shorthands of model cards: "4k" or "4K" is 4 x 1024 = 4096 (a "4k context" is 4096 tokens),
// "32K" 32768, "128k" 131072, "1M" 1024 x 1024 = 1048576; scientific notation, "1e4" = 10000; a
// fraction whose shorthand makes it whole, "1.5k" = 1536. A decimal field takes "0.9", ".5", "1e-3",
// "80". Spaces around the number are ignored. Anything else is an error naming the field, what was
// typed and how to write it, never a prefix taken silently: "3.5" in a whole-number field, "4kb",
// "12abc", "0x10", "", "nan", a number too large to hold.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "diagnostics.h"

namespace vl {

// The largest whole number a field takes (2^53: every whole number up to it is exact in a double).
inline constexpr int64_t kMaxWholeNumber = int64_t{1} << 53;

Result<int64_t> parse_whole_number(std::string_view text, std::string_view field);
Result<double> parse_decimal_number(std::string_view text, std::string_view field);
// Decimals separated by commas ("3,1", "0.6, 0.4"), as llama.cpp's --tensor-split takes them; "" is the empty list.
Result<std::vector<double>> parse_number_list(std::string_view text, std::string_view field);

}  // namespace vl
