// Every citation names a source a reader can find: code, strings, README.md and docs cite a key
// defined in docs/sources.md, as "[key]" or "[key locator]" (e.g. "[korthikanti2022 §4.1]"), and
// nothing cites the five starting posts by their old project-internal names. Reads the source
// tree; writes nothing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "repo_files.h"
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = vl::test::kRepoRoot;
using vl::test::read_text;

bool is_ident(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// A key: lower-case letters, digits and single hyphens, starting with a letter, with at least one
// digit or hyphen (so "[i]", "[n]" or "[default]" are never taken for citations).
bool is_key(const std::string& k) {
    if (k.empty() || !(k[0] >= 'a' && k[0] <= 'z') || k.back() == '-') return false;
    bool marked = false;
    for (size_t i = 0; i < k.size(); ++i) {
        const char c = k[i];
        const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
        if (!ok || (c == '-' && k[i - 1] == '-')) return false;
        if (c == '-' || (c >= '0' && c <= '9')) marked = true;
    }
    return marked;
}

struct Citation {
    std::string key;
    size_t line;
};

// "[key]" or "[key <locator>]" on one line, not preceded by an identifier character (so a[i-1]
// is an index, not a citation).
std::vector<Citation> citations(const std::string& text) {
    std::vector<Citation> out;
    size_t line = 1;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n') ++line;
        if (text[i] != '[' || (i > 0 && is_ident(text[i - 1]))) continue;
        size_t j = i + 1;
        while (j < text.size() && ((text[j] >= 'a' && text[j] <= 'z') || (text[j] >= '0' && text[j] <= '9') || text[j] == '-')) ++j;
        if (j >= text.size() || (text[j] != ']' && text[j] != ' ')) continue;
        if (text[j] == ' ') {
            const size_t close = text.find(']', j);
            const size_t eol = text.find('\n', j);
            if (close == std::string::npos || (eol != std::string::npos && eol < close)) continue;
        }
        std::string key = text.substr(i + 1, j - i - 1);
        if (is_key(key)) out.push_back({std::move(key), line});
    }
    return out;
}

// The old names of the five starting posts: "seed" + optional space or underscore + "0dd".
std::vector<size_t> old_seed_names(const std::string& text) {
    std::vector<size_t> lines;
    std::string lower(text.size(), ' ');
    std::transform(text.begin(), text.end(), lower.begin(), [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; });
    for (size_t pos = lower.find("seed"); pos != std::string::npos; pos = lower.find("seed", pos + 1)) {
        size_t j = pos + 4;
        if (j < lower.size() && (lower[j] == ' ' || lower[j] == '_')) ++j;
        if (j + 3 <= lower.size() && lower[j] == '0' && std::isdigit(static_cast<unsigned char>(lower[j + 1])) &&
            std::isdigit(static_cast<unsigned char>(lower[j + 2])))
            lines.push_back(static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n')) + 1);
    }
    return lines;
}

struct SourceList {
    std::set<std::string> keys;
    std::vector<std::string> problems;
};

// Keys are the first cell of a table row, in backticks: | `key` | ...
SourceList read_sources() {
    SourceList s;
    const std::string text = read_text(kRoot / "docs" / "sources.md");
    std::istringstream in(text);
    std::string row;
    while (std::getline(in, row)) {
        if (row.rfind("| `", 0) != 0) continue;
        const size_t end = row.find('`', 3);
        if (end == std::string::npos) continue;
        const std::string key = row.substr(3, end - 3);
        if (!is_key(key)) s.problems.push_back("`" + key + "` is not a key (lower case, digits, hyphens; a digit or a hyphen)");
        if (!s.keys.insert(key).second) s.problems.push_back("`" + key + "` is defined twice");
        const bool has_address = row.find("http") != std::string::npos;
        const bool restated = row.find("restated") != std::string::npos;
        if (!has_address && !restated) s.problems.push_back("`" + key + "` has no address and says nowhere where it is restated");
        if (row.find("restated below") != std::string::npos && text.find("### `" + key + "`") == std::string::npos)
            s.problems.push_back("`" + key + "` says \"restated below\" but has no \"### `" + key + "`\" section");
    }
    return s;
}

std::vector<fs::path> scanned_files() {
    std::vector<fs::path> files;
    for (const char* dir : {"core", "cli", "web/ui", "docs", "tests"}) {
        for (const auto& entry : fs::recursive_directory_iterator(kRoot / dir)) {
            if (!entry.is_regular_file()) continue;
            const fs::path& p = entry.path();
            if (p.string().find("node_modules") != std::string::npos) continue;
            const std::string ext = p.extension().string();
            if (ext == ".cpp" || ext == ".h" || ext == ".md") files.push_back(p);
        }
    }
    files.push_back(kRoot / "README.md");
    std::sort(files.begin(), files.end());
    return files;
}

std::string where(const fs::path& p, size_t line) {
    return fs::relative(p, kRoot).generic_string() + ":" + std::to_string(line);
}

}  // namespace

TEST_CASE("sources: the citation reader finds keys with and without a locator and skips indices") {
    const std::string k = "korthikanti" "2022";
    const auto found = citations("a[i-1] x [" + k + "] y [" + k + " §4.1] [not a key] [default] [[nodiscard]]\n[" + k + " broken\n]");
    REQUIRE(found.size() == 2);
    CHECK(found[0].key == k);
    CHECK(found[1].key == k);
    CHECK(old_seed_names(std::string("see ") + "Seed" "003 and seed " "001, seed_" "002, not " "seed-" "003").size() == 3);
}

TEST_CASE("sources: docs/sources.md defines each key once, each with an address or a restatement") {
    const SourceList s = read_sources();
    INFO("docs/sources.md: " << s.keys.size() << " keys");
    for (const std::string& p : s.problems) FAIL_CHECK(p);
    CHECK(s.keys.size() >= 30);
    // the five starting posts, and the sources the training and inference models rest on
    for (const char* key : {"makinaruto2025", "llm-gpu-memory-2025", "kaiyuan-memory", "transformer-series5", "estimate-gpu-memory-2024",
                            "korthikanti2022", "zero2020", "vllm-paper", "qlora2023", "megatron-theoretical-memory",
                            "deepspeed-memory", "accelerate-estimate", "llama-cpp-code"})
        CHECK(s.keys.count(key) == 1);
}

TEST_CASE("sources: every citation in README.md, core/, cli/, web/ui/, docs/ and tests/ names a key of docs/sources.md") {
    const SourceList s = read_sources();
    const fs::path self = fs::path(__FILE__).filename();
    std::map<std::string, int> cited;
    size_t files = 0;
    for (const fs::path& p : scanned_files()) {
        if (p.filename() == self) continue;  // this file spells the patterns it looks for
        ++files;
        const std::string text = read_text(p);
        for (const Citation& c : citations(text)) {
            ++cited[c.key];
            if (!s.keys.count(c.key)) FAIL_CHECK(where(p, c.line) << ": cites [" << c.key << "], which docs/sources.md does not define");
        }
        if (p == kRoot / "docs" / "sources.md") continue;  // its "was" column names the old names
        for (size_t line : old_seed_names(text))
            FAIL_CHECK(where(p, line) << ": names a starting post by its old internal name; cite its key from docs/sources.md instead");
    }
    CHECK(files > 50);
    // the citations this issue introduced are really there (the reader does not silently find nothing)
    CHECK(cited["korthikanti2022"] > 5);
    CHECK(cited["transformer-series5"] > 5);
}
