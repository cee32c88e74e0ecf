#!/usr/bin/env bash
# What the page weighs: a report, not a test (it fails on no figure; only a missing build stops it).
# Prints every file of the static site (raw, gzip -9, brotli), the first visit in English and with
# 中文 chosen (the Chinese font is fetched only then), and what the wasm is made of: its sections,
# data segments, the largest functions by name (the symbol map the web build writes next to the
# site) and the code per library. Figures are recorded in docs/performance.md.
#   scripts/size.sh [SITE_DIR] [--top N] [--strings NAME] [--build]
#     SITE_DIR   default build/web/site
#     --top N    how many of the largest functions to name (default 25)
#     --strings NAME  list the strings named by each function whose name holds NAME (e.g. vl::validate)
#     --build    build the web app first (scripts/build.sh web)
set -euo pipefail
VL_TAG=size
. "$(dirname "$0")/lib.sh"
cd "$VL_ROOT"
site=build/web/site top=25 build=0 strings=()
while [ $# -gt 0 ]; do
  case $1 in
    --top) top=$2; shift ;;
    --strings) strings=(--strings "$2"); shift ;;
    --build) build=1 ;;
    -*) awk 'NR > 1 && /^set / { exit } NR > 1' "$0"; exit 2 ;;
    *) site=$1 ;;
  esac
  shift
done
[ "$build" = 1 ] && scripts/build.sh web
[ -d "$site" ] || vl_die "$site missing: build first (scripts/build.sh web, or --build)"
# Debian's python3 has python3-brotli; a pyenv/venv python first on PATH usually does not.
py=python3
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import brotli' 2>/dev/null; then py=/usr/bin/python3; fi
exec "$py" scripts/size.py "$site" --symbols "$(dirname "$site")/vramlens.wasm.symbols" --top "$top" "${strings[@]}"
