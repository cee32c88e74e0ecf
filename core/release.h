// A software release number (a vLLM release, the NCCL a PyTorch wheel ships): major.minor.patch, compared
// in that order. One type for every version-dependent rule in the core.
#pragma once
#include <optional>
#include <string_view>

namespace vl {

struct Release {
    int major = 0, minor = 0, patch = 0;
};

// Whether r is major.minor.patch or later.
constexpr bool at_least(const Release& r, int major, int minor, int patch = 0) {
    if (r.major != major) return r.major > major;
    if (r.minor != minor) return r.minor > minor;
    return r.patch >= patch;
}

// "0.6.5", "2.6", "v0.10.1.post1", "2.6.0+cu124": major.minor[.patch], a leading v and any suffix after the numbers
// ignored; nullopt when the text does not start with a version (a number of more than 6 digits is none). Always
// inlined: each caller's copy is split with its caller. (Every caller is now off the page's first view, which is an
// inference: training's check and NCCL model run in cold(), vLLM's on vLLM scenarios; the attribute could go, with the
// page's budget measured again.)
[[gnu::always_inline]] constexpr std::optional<Release> parse_release(std::string_view t) {
    size_t i = 0;
    const auto number = [&]() {
        const size_t start = i;
        int n = 0;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9' && i - start < 6) n = n * 10 + (t[i++] - '0');
        return i == start || (i < t.size() && t[i] >= '0' && t[i] <= '9') ? -1 : n;
    };
    if (i < t.size() && (t[i] == 'v' || t[i] == 'V')) ++i;
    Release r;
    r.major = number();
    if (r.major < 0 || i >= t.size() || t[i] != '.') return std::nullopt;
    ++i;
    r.minor = number();
    if (r.minor < 0) return std::nullopt;
    if (i < t.size() && t[i] == '.' && i + 1 < t.size() && t[i + 1] >= '0' && t[i + 1] <= '9') {
        ++i;
        r.patch = number();
        if (r.patch < 0) return std::nullopt;
    }
    return r;
}

}  // namespace vl
