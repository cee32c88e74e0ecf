#!/usr/bin/env python3
"""Build step: cut a CJK font down to exactly the characters the UI's Chinese strings use.

    subset_cjk_font.py FONT OUT.ttf SOURCE...

Collects every character at or above U+2E80 (CJK, fullwidth punctuation) from the SOURCE files
(web/ui/strings.h and strings.cpp: the string tables) and writes a TrueType subset with only those
glyphs, so the page ships a few hundred glyphs instead of a 5 MB font. Needs python3-fonttools.
"""
import sys

from fontTools import subset


def main() -> int:
    font, out, *sources = sys.argv[1:]
    chars = set()
    for path in sources:
        with open(path, encoding="utf-8") as f:
            chars.update(c for c in f.read() if ord(c) >= 0x2E80)
    chars.update("，。：？（）")  # punctuation the messages may add around the table's strings
    opts = subset.Options()
    opts.layout_features = []
    opts.hinting = False
    # Only what stb_truetype reads (as scripts/subset-fonts.sh cuts the embedded fonts): no names, glyph names,
    # grid-fitting or layout tables.
    opts.drop_tables += ["name", "post", "gasp", "GDEF", "GPOS", "GSUB", "FFTM"]
    opts.font_number = 0  # .ttc: the first face (WenQuanYi Micro Hei)
    f = subset.load_font(font, opts)
    s = subset.Subsetter(opts)
    s.populate(text="".join(sorted(chars)))
    s.subset(f)
    subset.save_font(f, out, opts)
    print(f"subset_cjk_font: {len(chars)} characters -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
