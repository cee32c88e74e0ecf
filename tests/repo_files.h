// The repository's own files, for the tests that check docs, sources and assets against the code:
// the checkout's root (VRAMLENS_SOURCE_DIR, set by the test targets) and a file's whole text.
#pragma once
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace vl::test {

inline const std::filesystem::path kRepoRoot = VRAMLENS_SOURCE_DIR;

inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace vl::test
