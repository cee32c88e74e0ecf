#!/usr/bin/env bash
# Regenerates the fonts the web app embeds (assets/fonts/*.ttf) from Debian's font packages, cut
# down to the glyphs the UI draws so the page stays small. Run it when the UI needs new characters;
# commit the result. The build itself never needs fonttools or the font packages.
#
#   scripts/subset-fonts.sh                 Latin-1/punctuation/arrows/comparison-sign subset of DejaVu Sans, and the
#                                           two glyphs of the language button (中文, WenQuanYi Micro Hei)
#   scripts/subset-fonts.sh CJK_TEXT_FILE   also a CJK subset (WenQuanYi Micro Hei) holding exactly
#                                           the characters in CJK_TEXT_FILE (e.g. the UI's zh strings)
set -euo pipefail
VL_TAG=fonts
. "$(dirname "$0")/lib.sh"

need=(python3-fonttools fonts-dejavu-core fonts-wqy-microhei)
missing=()
for p in "${need[@]}"; do dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  vl_log "apt: installing ${missing[*]}"
  vl_as_root apt-get install -y --no-install-recommends "${missing[@]}"
fi

out="$VL_ROOT/assets/fonts"
mkdir -p "$out"
# The same list as web/ui/font_ranges.h (web/tests/font_ranges_test.cpp checks they agree).
LATIN='U+0020-007E,U+00A0-00FF,U+2010-2027,U+2030-203A,U+20AC,U+2190-2193,U+2212,U+2248,U+2260,U+2264-2265,U+FFFD'
# Only the tables stb_truetype reads (cmap, head, hhea, hmtx, loca, glyf, maxp; OS/2 is kept): Dear
# ImGui draws no kerning or OpenType layout, and the names and PostScript glyph names are for font
# menus (issue 16: 1.6 KB gzip).
vl_log "DejaVu Sans -> assets/fonts/DejaVuSans-subset.ttf"
/usr/bin/python3 -m fontTools.subset /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf --unicodes="$LATIN" \
  --layout-features='' --no-hinting --desubroutinize --drop-tables+=name,post,GDEF,GPOS,GSUB,MATH,gasp \
  --output-file="$out/DejaVuSans-subset.ttf"
# The language button says "中文" on the English page, which does not fetch the Chinese font: its two
# glyphs are embedded (web/tests/font_ranges_test.cpp checks every English UI string has its glyphs).
vl_log "WenQuanYi Micro Hei (中文 of the language button) -> assets/fonts/WenQuanYiMicroHei-lang-button.ttf"
/usr/bin/python3 -m fontTools.subset /usr/share/fonts/truetype/wqy/wqy-microhei.ttc --font-number=0 --text="中文" \
  --layout-features='' --no-hinting --drop-tables+=FFTM,name,post,gasp,GDEF,GPOS,GSUB --output-file="$out/WenQuanYiMicroHei-lang-button.ttf"
if [ $# -ge 1 ]; then
  vl_log "WenQuanYi Micro Hei (characters of $1) -> assets/fonts/WenQuanYiMicroHei-subset.ttf"
  /usr/bin/python3 -m fontTools.subset /usr/share/fonts/truetype/wqy/wqy-microhei.ttc --font-number=0 \
    --text-file="$1" --layout-features='' --no-hinting --output-file="$out/WenQuanYiMicroHei-subset.ttf"
fi
ls -l "$out"
