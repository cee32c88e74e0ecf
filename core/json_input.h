// Reading JSON that a person gave us: a scenario file, a pasted config.json, a share link, a flag.
// One reader for every entry point, so that the same input gets the same answer everywhere:
//   - its size is checked before anything is parsed (kMaxJsonInputBytes);
//   - nesting is counted while parsing and stops at kMaxJsonDepth (no recursion gets deep);
//   - a key written twice in one object is an error naming the key (no "last one wins");
//   - a NUL character inside a string or key is an error (it would silently cut the text);
//   - syntax errors say where (line and column) and what was expected.
// Never throws: nlohmann_json is used through its SAX interface with exceptions off.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"

namespace vl {

inline constexpr size_t kMaxJsonInputBytes = size_t{4} << 20;  // 4 MiB: ~40x the largest real config.json
inline constexpr int kMaxJsonDepth = 32;                       // real configs nest 3-4 levels deep

// Parses text; on failure appends one FieldError whose field is `what` (e.g. "config", "json") or,
// for a duplicate key or a NUL, the dotted path inside the document ("model.layers").
std::optional<nlohmann::json> parse_json_input(std::string_view text, std::string_view what,
                                               std::vector<FieldError>& errs);
std::optional<nlohmann::ordered_json> parse_ordered_json_input(std::string_view text, std::string_view what,
                                                               std::vector<FieldError>& errs);

// A syntax error of text in words, with where and how to fix it: "is not valid JSON: line 3, column 1:
// a comma before } : JSON allows no comma after the last entry; remove it (at: })". parser_message is
// nlohmann's parse_error text for that text.
std::string json_syntax_message(std::string_view text, std::string_view parser_message);

// "1250 KB"-style size for messages about input length. With `apart_from` (the limit it is compared
// with), a size that would read the same as the limit is written in exact bytes ("4,194,306 bytes").
std::string describe_input_size(size_t bytes, size_t apart_from = 0);

}  // namespace vl
