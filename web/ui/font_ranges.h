// The code points the embedded Latin font holds (assets/fonts/DejaVuSans-subset.ttf, cut by
// scripts/subset-fonts.sh from the same list): ASCII, Latin-1, the dashes, quotes, bullets,
// ellipsis, per mille, primes and angle quotes of general punctuation (U+2010-2027, U+2030-203A),
// the euro sign, the four plain arrows, the comparison signs (minus, approximately, not equal, less
// and greater or equal), and the replacement character. Every character the UI or the core
// writes outside the CJK ranges (which the Chinese font covers) must be in it:
// web/tests/font_ranges_test.cpp scans the sources and the presets, and checks the script's list.
// Latin Extended-A (U+0100-017F: Polish, Czech, Turkish... letters), the rest of general punctuation
// (spaces of other widths, invisible marks), Greek (U+0391-03C9), super/subscripts (U+2070-209F),
// the other math signs (U+2202, 2206, 220F, 2211, 2219, 221A, 221E) and the check and cross marks
// (U+2713, 2717) are not (issue 16: 2.7, 1.3, and together 5.2 KB gzip): no preset and no UI or core
// text has them, and a name typed or imported with them shows the replacement glyph U+FFFD there.
#pragma once

namespace vl::ui {

// Inclusive pairs, zero-terminated, as ImGui's AddFontFromMemoryTTF takes them.
inline constexpr unsigned short kLatinRanges[] = {
    0x0020, 0x007E, 0x00A0, 0x00FF, 0x2010, 0x2027, 0x2030, 0x203A, 0x20AC, 0x20AC, 0x2190, 0x2193,
    0x2212, 0x2212, 0x2248, 0x2248, 0x2260, 0x2260, 0x2264, 0x2265, 0xFFFD, 0xFFFD, 0,
};

}  // namespace vl::ui
