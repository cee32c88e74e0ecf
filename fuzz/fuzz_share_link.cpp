// libFuzzer target: share-link decoding (core/share_link.h), what the web app reads from the URL
// fragment. Seeds: fuzz/seeds/share_link/ (links of the presets and of hand-written scenarios).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_checks.h"
#include "scenario_json.h"
#include "share_link.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace vl;
    const std::string_view link(reinterpret_cast<const char*>(data), size);
    // The building blocks: a canonical base64url text decodes to bytes that encode back to it.
    std::string bytes;
    if (base64url_decode(link, bytes) && base64url_encode(bytes) != link) fuzz::fail("base64url is not canonical");
    const Result<Scenario> r = decode_share_link(link);
    if (!r.ok()) {
        fuzz::check_errors_named(r.errors, "decode_share_link");
        return 0;
    }
    fuzz::check_estimate(*r);
    // A decoded scenario encodes to a link that decodes to the same scenario.
    const std::string again_link = encode_share_link(*r);
    const Result<Scenario> again = decode_share_link(again_link);
    if (!again.ok()) fuzz::fail("encode_share_link wrote a link decode_share_link rejects: " + to_string(again.errors.front()));
    if (scenario_to_json(*again, JsonStyle::Compact) != scenario_to_json(*r, JsonStyle::Compact))
        fuzz::fail("share link does not round-trip: " + again_link);
    return 0;
}
