// Binary files compiled into the web app (cmake/embed_binary.cmake): the fonts of assets/fonts/.
#pragma once
#include <cstddef>
#include <string_view>

namespace vl::fonts {

struct BinaryFile {
    const char* name;            // file name, e.g. "DejaVuSans-subset.ttf"
    const unsigned char* data;
    std::size_t size;
};

extern const BinaryFile kFiles[];   // sorted by name, terminated by {nullptr, nullptr, 0}
extern const std::size_t kFileCount;

}  // namespace vl::fonts
