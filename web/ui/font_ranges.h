// The code points the embedded Latin font holds (assets/fonts/DejaVuSans-subset.ttf, cut by
// scripts/subset-fonts.sh from the same list): ASCII, Latin-1, Greek, the dashes, quotes, bullets,
// ellipsis, per mille, primes and angle quotes of general punctuation (U+2010-2027, U+2030-203A),
// super/subscripts, the euro sign, the four plain arrows, the math signs a formula or a comparison may
// print, check and cross marks, and the replacement character. Every character the UI or the core
// writes outside the CJK ranges (which the Chinese font covers) must be in it:
// web/tests/font_ranges_test.cpp scans the sources and the presets, and checks the script's list.
// Latin Extended-A (U+0100-017F: Polish, Czech, Turkish... letters) and the rest of general punctuation
// (spaces of other widths, invisible marks) are not (issue 16: 2.7 and 1.3 KB gzip): no preset and no
// UI text has them, and a name typed or imported with them shows the replacement glyph U+FFFD there.
#pragma once

namespace vl::ui {

// Inclusive pairs, zero-terminated, as ImGui's AddFontFromMemoryTTF takes them.
inline constexpr unsigned short kLatinRanges[] = {
    0x0020, 0x007E, 0x00A0, 0x00FF, 0x0391, 0x03C9, 0x2010, 0x2027, 0x2030, 0x203A, 0x2070, 0x209F,
    0x20AC, 0x20AC, 0x2190, 0x2193, 0x2202, 0x2202, 0x2206, 0x2206, 0x220F, 0x220F, 0x2211, 0x2212,
    0x2219, 0x221A, 0x221E, 0x221E, 0x2248, 0x2248, 0x2260, 0x2260, 0x2264, 0x2265, 0x2713, 0x2713,
    0x2717, 0x2717, 0xFFFD, 0xFFFD, 0,
};

}  // namespace vl::ui
