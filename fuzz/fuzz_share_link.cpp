// libFuzzer target: share-link decoding (core/share_link.h), what the web app reads from the URL
// fragment. Seeds: fuzz/seeds/share_link/ (links, and scenario JSON for the wrapped path below).
// A CRC-32 guards every link, so almost every mutation of a link is rejected at the checksum; to
// reach the scenario inside, each input is also wrapped as a correctly checksummed link
// ("v1." base64url(input || crc32(input))) and decoded too.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_checks.h"
#include "scenario_json.h"
#include "share_link.h"

namespace {

void check_link(std::string_view link) {
    using namespace vl;
    const Result<Scenario> r = decode_share_link(link);
    if (!r.ok()) {
        fuzz::check_errors_named(r.errors, "decode_share_link");
        return;
    }
    fuzz::check_estimate(*r);
    // A decoded scenario encodes to a link that decodes to the same scenario.
    const std::string again_link = encode_share_link(*r);
    const Result<Scenario> again = decode_share_link(again_link);
    if (!again.ok()) fuzz::fail("encode_share_link wrote a link decode_share_link rejects: " + to_string(again.errors.front()));
    if (scenario_to_json(*again, JsonStyle::Compact) != scenario_to_json(*r, JsonStyle::Compact))
        fuzz::fail("share link does not round-trip: " + again_link);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace vl;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    // The building blocks: a canonical base64url text decodes to bytes that encode back to it.
    std::string bytes;
    if (base64url_decode(input, bytes) && base64url_encode(bytes) != input) fuzz::fail("base64url is not canonical");
    check_link(input);
    std::string payload(input);
    const uint32_t crc = crc32(payload);
    for (int shift = 24; shift >= 0; shift -= 8) payload.push_back(static_cast<char>((crc >> shift) & 0xFF));
    check_link("v1." + base64url_encode(payload));
    return 0;
}
