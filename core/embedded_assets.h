// Files from assets/presets/, embedded at build time (cmake/embed_files.cmake).
#pragma once
#include <cstddef>
#include <string_view>

namespace vl::assets {

struct EmbeddedFile {
    const char* name;   // file name, e.g. "models.json"
    const char* data;
    std::size_t size;
};

extern const EmbeddedFile kFiles[];   // terminated by {nullptr, nullptr, 0}
extern const std::size_t kFileCount;

// The embedded file of that name, or an empty view.
inline std::string_view find(std::string_view name) {
    for (std::size_t i = 0; i < kFileCount; ++i)
        if (name == kFiles[i].name) return {kFiles[i].data, kFiles[i].size};
    return {};
}

}  // namespace vl::assets
