// The embedded Latin font holds every character the page can print outside the CJK ranges: the
// list in web/ui/font_ranges.h is the one scripts/subset-fonts.sh cut the font with, and every
// non-ASCII character in the UI's and the core's sources and in the model presets is in it.
#include <catch2/catch.hpp>
#include <imgui.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "repo_files.h"
#include "ui/font_ranges.h"
#include "ui/strings.h"

namespace {
namespace fs = std::filesystem;
const fs::path kRoot = vl::test::kRepoRoot;
using vl::test::read_text;

std::vector<std::pair<unsigned, unsigned>> header_ranges() {
    std::vector<std::pair<unsigned, unsigned>> r;
    for (size_t i = 0; vl::ui::kLatinRanges[i] != 0; i += 2) r.emplace_back(vl::ui::kLatinRanges[i], vl::ui::kLatinRanges[i + 1]);
    return r;
}

// LATIN='U+0020-007E,U+20AC,...' of scripts/subset-fonts.sh, as inclusive pairs.
std::vector<std::pair<unsigned, unsigned>> script_ranges() {
    const std::string s = read_text(kRoot / "scripts/subset-fonts.sh");
    const size_t at = s.find("\nLATIN='");
    REQUIRE(at != std::string::npos);
    const std::string list = s.substr(at + 8, s.find('\'', at + 8) - at - 8);
    std::vector<std::pair<unsigned, unsigned>> r;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');) {
        REQUIRE(item.rfind("U+", 0) == 0);
        const size_t dash = item.find('-');
        const unsigned lo = std::stoul(item.substr(2, dash == std::string::npos ? std::string::npos : dash - 2), nullptr, 16);
        r.emplace_back(lo, dash == std::string::npos ? lo : std::stoul(item.substr(dash + 1), nullptr, 16));
    }
    return r;
}

// The code points of UTF-8 text (malformed bytes are skipped).
std::vector<unsigned> code_points(const std::string& s) {
    std::vector<unsigned> out;
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        const int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
        unsigned cp = n == 1 ? c : c & (0x7F >> n);
        for (int k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
        out.push_back(cp);
        i += static_cast<size_t>(n);
    }
    return out;
}

bool cjk(unsigned cp) {  // drawn by the Chinese font (GetGlyphRangesChineseFull)
    return (cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0x3000 && cp <= 0x30FF) || (cp >= 0xFF00 && cp <= 0xFFEF);
}
}  // namespace

TEST_CASE("font: the Latin font's ranges are the ones the subset script cut it with") {
    CHECK(header_ranges() == script_ranges());
}

TEST_CASE("font: every character the UI, the core and the presets write is in the Latin font or the CJK ranges") {
    const auto ranges = header_ranges();
    const auto in_font = [&](unsigned cp) {
        for (const auto& [lo, hi] : ranges)
            if (cp >= lo && cp <= hi) return true;
        return cjk(cp) || cp == '\n' || cp == '\t' || cp == '\r';
    };
    int files = 0;
    for (const char* dir : {"core", "web/ui", "shell", "assets/presets"})
        for (const auto& e : fs::recursive_directory_iterator(kRoot / dir)) {
            const std::string ext = e.path().extension().string();
            if (!e.is_regular_file() || (ext != ".cpp" && ext != ".h" && ext != ".json" && ext != ".js" && ext != ".html")) continue;
            ++files;
            for (unsigned cp : code_points(read_text(e.path()))) {
                INFO(e.path().string() << ": U+" << std::hex << cp);
                CHECK(in_font(cp));
            }
        }
    CHECK(files > 50);
}

// The page in English draws with the embedded fonts only (the Chinese font is fetched when 中文 is
// chosen): every character of every English UI string, the language button's "中文" included, must
// have a glyph in them, loaded as web/main.cpp loads them (the first font with the Latin ranges, every
// further one merged in for the CJK ranges).
TEST_CASE("font: every English UI string, the language button's 中文 too, has a glyph in the embedded fonts") {
    ImGuiContext* ctx = ImGui::CreateContext();
    ImFontAtlas& atlas = *ImGui::GetIO().Fonts;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(kRoot / "assets/fonts"))
        if (e.path().extension() == ".ttf") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    REQUIRE(files.size() >= 2);  // the Latin font and the language button's CJK glyphs
    std::vector<std::string> bytes;
    for (const fs::path& f : files) bytes.push_back(read_text(f));
    ImFont* font = nullptr;
    for (size_t i = 0; i < files.size(); ++i) {
        ImFontConfig cfg;
        cfg.FontDataOwnedByAtlas = false;
        cfg.MergeMode = i > 0;
        font = atlas.AddFontFromMemoryTTF(bytes[i].data(), static_cast<int>(bytes[i].size()), 16.0f, &cfg,
                                          i == 0 ? vl::ui::kLatinRanges : atlas.GetGlyphRangesChineseFull());
    }
    REQUIRE(atlas.Build());
    for (int i = 0; i < static_cast<int>(vl::ui::S::Count_); ++i) {
        const std::string text = vl::ui::tr(vl::ui::Lang::En, static_cast<vl::ui::S>(i));
        for (unsigned cp : code_points(text)) {
            if (cp == '\n' || cp == '\t' || cp == '%') continue;
            INFO("\"" << text << "\": U+" << std::hex << cp);
            CHECK(font->FindGlyphNoFallback(static_cast<ImWchar>(cp)) != nullptr);
        }
    }
    CHECK(std::string(vl::ui::tr(vl::ui::Lang::En, vl::ui::S::Language)) == "中文");
    ImGui::DestroyContext(ctx);
}
