// libFuzzer target: share links (core/share_link.h) as the web page reads them from the address bar.
// Seeds: fuzz/seeds/share_link/ (links, hashes as the page sees them, and scenario JSON for the
// wrapped path below).
//
// What the page does with a fragment: at start, web/ui/page_bridge.cpp (js_page_env) takes
// location.hash and turns a leading "#embed", "#embed&" or "#embed," into "#" (embed mode); on a
// later hashchange, shell/bridge.js sends location.hash as it is. Either way web/ui/app.cpp
// open_hash() trims white space and drops a leading '#', open_link() does the same once more, and
// decode_share_link gets the rest (it drops one more leading '#' itself). Before any of
// that the browser has parsed the URL (WHATWG URL standard): tabs and newlines are removed, trailing
// spaces and control characters are stripped, and the fragment is percent-encoded (controls, space,
// '"', '<', '>', '`' and every non-ASCII byte become %XX). page_link() below follows those steps.
//
// Each input is decoded
//   1. as given: by decode_share_link itself, and through open_hash (a hashchange);
//   2. as what a person typed after '#' in the address bar, through the browser and the page, with
//      no prefix and with each embed prefix;
//   3. wrapped as a correctly checksummed link ("v1." base64url(input || crc32(input))) and then
//      through the same page path: a CRC-32 guards every link, so almost every mutation of a link
//      is rejected at the checksum, and the wrapped form reaches the scenario JSON inside.
// A wrapped link holds only base64url characters, which the browser leaves alone: every page path
// must decode it exactly as decode_share_link does (same errors, or the same scenario).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "fuzz_checks.h"
#include "scenario_json.h"
#include "share_link.h"

namespace {

using vl::Result;
using vl::Scenario;

// location.hash after a person typed `typed` after the '#' of the address (WHATWG URL parsing).
// A model of the browser, not code under test: left out of coverage feedback (its per-byte
// comparisons would cost more than the decoding they lead to).
__attribute__((no_sanitize("coverage"))) std::string location_hash(std::string_view typed) {
    size_t end = typed.size();  // trailing spaces and controls are stripped (tabs and newlines anywhere)
    while (end > 0 && static_cast<unsigned char>(typed[end - 1]) <= 0x20) --end;
    std::string hash;
    hash.reserve(end * 3 + 1);
    hash += '#';
    static const char* const hex = "0123456789ABCDEF";
    for (size_t i = 0; i < end; ++i) {
        const auto c = static_cast<unsigned char>(typed[i]);
        if (c == '\t' || c == '\n' || c == '\r') continue;
        if (c < 0x20 || c == ' ' || c == '"' || c == '<' || c == '>' || c == '`' || c >= 0x7F) {
            hash += '%';
            hash += hex[c >> 4];
            hash += hex[c & 15];
        } else {
            hash += static_cast<char>(c);
        }
    }
    if (hash.size() == 1) hash.clear();  // an empty fragment: location.hash is ""
    return hash;
}

// page_bridge.cpp at start: hash.replace(/^#embed[&,]?/, "#").
std::string without_embed(const std::string& hash) {
    if (hash.rfind("#embed", 0) != 0) return hash;
    size_t cut = 6;
    if (hash.size() > 6 && (hash[6] == '&' || hash[6] == ',')) cut = 7;
    return "#" + hash.substr(cut);
}

// app.cpp open_hash() then open_link(): each trims " \t\r\n" and drops one leading '#'; what is
// left goes to decode_share_link ("" opens nothing: no link).
std::string_view link_text(std::string_view fragment) {
    std::string_view f = fragment;
    for (int step = 0; step < 2; ++step) {
        const size_t b = f.find_first_not_of(" \t\r\n"), e = f.find_last_not_of(" \t\r\n");
        f = b == std::string_view::npos ? std::string_view() : f.substr(b, e - b + 1);
        if (!f.empty() && f[0] == '#') f.remove_prefix(1);
    }
    return f;
}

// Checks one decoded link; returns its outcome as text (the scenario, or the errors).
std::string check_decoded(const Result<Scenario>& r) {
    using namespace vl;
    if (!r.ok()) {
        fuzz::check_errors_named(r.errors, "decode_share_link");
        std::string t = "rejected:";
        for (const FieldError& e : r.errors) t += " " + to_string(e);
        return t;
    }
    fuzz::check_estimate(*r);
    // A decoded scenario encodes to a link that decodes to the same scenario.
    const std::string again_link = encode_share_link(*r);
    const Result<Scenario> again = decode_share_link(again_link);
    if (!again.ok()) fuzz::fail("encode_share_link wrote a link decode_share_link rejects: " + to_string(again.errors.front()));
    const std::string json = scenario_to_json(*r, JsonStyle::Compact);
    if (scenario_to_json(*again, JsonStyle::Compact) != json) fuzz::fail("share link does not round-trip: " + again_link);
    return "accepted: " + json;
}

// Decodes and checks each distinct link text once per input; returns the outcome.
struct Links {
    std::map<std::string, std::string, std::less<>> outcome;  // text given to decode_share_link -> outcome
    const std::string no_link = "no link";
    const std::string& decode(std::string_view text) {
        auto it = outcome.find(text);
        if (it == outcome.end()) it = outcome.emplace(std::string(text), check_decoded(vl::decode_share_link(text))).first;
        return it->second;
    }
    const std::string& load(std::string_view fragment) {  // as open_hash() does
        const std::string_view f = link_text(fragment);
        return f.empty() ? no_link : decode(f);
    }
};

// Every way the page reads `typed` (what follows '#' in the address bar): at start and on a
// hashchange, with no prefix and with each embed prefix. With must_equal, each path that should
// give the link's own outcome (at start: all; on hashchange: without a prefix) must give exactly it.
void check_page_paths(Links& links, std::string_view typed, const std::string* must_equal) {
    // The prefixes are plain ASCII letters and punctuation, so location.hash of prefix + typed is
    // "#" + prefix + the encoded rest (or "#" + prefix when nothing of typed survives).
    const std::string bare = location_hash(typed);
    for (const std::string prefix : {"", "embed", "embed&", "embed,"}) {
        const std::string hash = bare.empty() ? (prefix.empty() ? "" : "#" + prefix) : "#" + prefix + bare.substr(1);
        const std::string paths[2] = {without_embed(hash), hash};  // at start, on a hashchange
        for (int path = 0; path < 2; ++path) {
            const std::string& outcome = links.load(paths[path]);
            if (must_equal && (path == 0 || prefix.empty()) && outcome != *must_equal)
                vl::fuzz::fail("the page reads \"" + paths[path].substr(0, 200) + "\" differently from decode_share_link(\"" +
                               std::string(typed).substr(0, 200) + "\"):\n  " + outcome.substr(0, 300) + "\n  " +
                               must_equal->substr(0, 300));
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace vl;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    // The building blocks: a canonical base64url text decodes to bytes that encode back to it.
    std::string bytes;
    if (base64url_decode(input, bytes) && base64url_encode(bytes) != input) fuzz::fail("base64url is not canonical");

    if (fuzz::expected_error()) {  // a limit case (scripts/fuzz.sh): the input is location.hash at start
        const std::string hash = without_embed(std::string(input));
        const std::string_view f = link_text(hash);
        if (f.empty()) fuzz::fail("a limit case without a link");
        const Result<Scenario> r = decode_share_link(f);
        check_decoded(r);
        fuzz::check_expected_error(r.errors, "decode_share_link (location.hash at start)");
        return 0;
    }
    Links links;
    // 1. As given: to decode_share_link itself, and to open_hash (a hashchange).
    links.decode(input);
    links.load(input);
    // 2. Typed into the address bar.
    check_page_paths(links, input, nullptr);
    // 3. Wrapped as a checksummed link.
    std::string payload(input);
    const uint32_t crc = crc32(payload);
    for (int shift = 24; shift >= 0; shift -= 8) payload.push_back(static_cast<char>((crc >> shift) & 0xFF));
    const std::string link = "v1." + base64url_encode(payload);
    const std::string expected = links.decode(link);
    check_page_paths(links, link, &expected);
    return 0;
}
