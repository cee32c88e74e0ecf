// A software release number (a vLLM release, the NCCL a PyTorch wheel ships): major.minor.patch, compared
// in that order. One type for every version-dependent rule in the core.
#pragma once

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

}  // namespace vl
