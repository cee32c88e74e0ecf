// Share links (issue 7): a Scenario in a URL fragment, e.g. https://.../#v1.eyJ2ZXJzaW9uIjox...
//
//   link    = "v1." base64url( compact scenario JSON  ||  CRC-32 of that JSON, 4 bytes big-endian )
//
// base64url is RFC 4648 §5 without padding, so the link is fragment-safe with no escaping. The JSON
// is scenario_to_json(s, JsonStyle::Compact): fields equal to the defaults are left out, a preset
// model or GPU is its id. The CRC-32 (IEEE 802.3, as zlib) catches a mistyped or truncated link
// that would otherwise still decode to a plausible scenario. Decoding returns errors, never throws:
// the web app then loads the defaults and says why.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "diagnostics.h"
#include "scenario.h"

namespace vl {

inline constexpr int kShareLinkVersion = 1;

std::string encode_share_link(const Scenario& s);

// Accepts the link with or without a leading '#'. Errors name "link" for the envelope
// (prefix, version, base64, checksum) and the JSON path for the scenario inside.
Result<Scenario> decode_share_link(std::string_view link);

// Building blocks, public for tests and for the web shell.
std::string base64url_encode(std::string_view bytes);
bool base64url_decode(std::string_view text, std::string& bytes);  // false: not canonical base64url
uint32_t crc32(std::string_view bytes);

}  // namespace vl
