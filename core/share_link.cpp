// Share-link envelope (share_link.h): version prefix, base64url, CRC-32 around the scenario JSON.
#include "share_link.h"

#include <array>

#include "scenario_json.h"

namespace vl {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr size_t kMaxLinkChars = 64 * 1024;  // far above any real scenario (~300 chars)

int sextet(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
}

// CRC-32/ISO-HDLC (reflected polynomial 0xEDB88320), the checksum of zlib and PNG.
std::array<uint32_t, 256> crc_table() {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        t[i] = c;
    }
    return t;
}

}  // namespace

uint32_t crc32(std::string_view bytes) {
    static const std::array<uint32_t, 256> table = crc_table();
    uint32_t c = 0xFFFFFFFFu;
    for (unsigned char b : bytes) c = table[(c ^ b) & 0xFFu] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

std::string base64url_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        uint32_t v = (uint32_t(uint8_t(bytes[i])) << 16) | (uint32_t(uint8_t(bytes[i + 1])) << 8) | uint8_t(bytes[i + 2]);
        for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
    }
    size_t rest = bytes.size() - i;
    if (rest == 1) {
        uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
    } else if (rest == 2) {
        uint32_t v = (uint32_t(uint8_t(bytes[i])) << 16) | (uint32_t(uint8_t(bytes[i + 1])) << 8);
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
    }
    return out;
}

// Canonical only: no padding, no stray characters, unused low bits of the last character zero
// (so that exactly one text decodes to a given byte string and a flipped last character is seen).
bool base64url_decode(std::string_view text, std::string& bytes) {
    bytes.clear();
    if (text.size() % 4 == 1) return false;
    bytes.reserve(text.size() / 4 * 3 + 2);
    uint32_t acc = 0;
    int bits = 0;
    for (char c : text) {
        int v = sextet(c);
        if (v < 0) return false;
        acc = (acc << 6) | uint32_t(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            bytes += static_cast<char>((acc >> bits) & 0xFFu);
        }
    }
    return (acc & ((1u << bits) - 1)) == 0;
}

std::string encode_share_link(const Scenario& s) {
    std::string payload = scenario_to_json(s, JsonStyle::Compact);
    uint32_t c = crc32(payload);
    for (int shift = 24; shift >= 0; shift -= 8) payload += static_cast<char>((c >> shift) & 0xFFu);
    std::string link = "v";  // appended piecewise: GCC 12 -O3 warns falsely (-Wrestrict) on "v" + to_string(..)
    link += std::to_string(kShareLinkVersion);
    link += '.';
    link += base64url_encode(payload);
    return link;
}

Result<Scenario> decode_share_link(std::string_view link) {
    auto fail = [](std::string message) { return Result<Scenario>::failure({{"link", std::move(message)}}); };
    if (!link.empty() && link.front() == '#') link.remove_prefix(1);
    if (link.size() > kMaxLinkChars) return fail("longer than 64 KiB; not a vramlens link");
    size_t dot = link.find('.');
    if (link.size() < 3 || link.front() != 'v' || dot == std::string_view::npos || dot == 1)
        return fail("not a vramlens share link (expected \"v1.\" followed by the scenario)");
    std::string_view version = link.substr(1, dot - 1);
    int v = 0;
    for (char c : version) {
        if (c < '0' || c > '9' || v > 1000) return fail("not a vramlens share link (bad version \"" + std::string(version) + "\")");
        v = v * 10 + (c - '0');
    }
    if (v > kShareLinkVersion) return fail("made by a newer vramlens (link version " + std::to_string(v) + "); this build reads version " + std::to_string(kShareLinkVersion));
    if (v < kShareLinkVersion) return fail("link version " + std::to_string(v) + " is no longer supported");
    std::string payload;
    if (!base64url_decode(link.substr(dot + 1), payload)) return fail("damaged: not valid base64url (truncated or mistyped?)");
    if (payload.size() < 5) return fail("damaged: too short to hold a scenario");
    std::string_view json(payload.data(), payload.size() - 4);
    uint32_t stored = 0;
    for (size_t i = payload.size() - 4; i < payload.size(); ++i) stored = (stored << 8) | uint8_t(payload[i]);
    if (crc32(json) != stored) return fail("damaged: checksum mismatch (truncated or mistyped?)");
    return scenario_from_json(json);
}

}  // namespace vl
