#!/usr/bin/env bash
# Regenerates every generated file in the repository, on purpose (the tests never write tracked
# files; they compare the committed files with a fresh rendering and fail when they are stale):
#   docs/accuracy.md      from tests/data/accuracy/cases.json (build/native/tests/vramlens_gen_docs)
#   docs/screenshot*.png  screenshots of the built site in headless Chromium (tests/browser/smoke.mjs,
#                         ui.mjs)
# Builds what it needs first (scripts/build.sh). Review `git diff` and commit the result.
#   scripts/gen-docs.sh [all|text|screenshots]     (default all; text needs only the native build)
set -euo pipefail
VL_TAG=gen-docs
. "$(dirname "$0")/lib.sh"
what=${1:-all}
case $what in all|text|screenshots) ;; *) awk 'NR > 1 && /^set / { exit } NR > 1' "$0"; exit 2 ;; esac
cd "$VL_ROOT"

if [ "$what" != screenshots ]; then
  "$VL_ROOT/scripts/build.sh" native
  vl_log "docs/accuracy.md"
  build/native/tests/vramlens_gen_docs "$VL_ROOT"
fi
if [ "$what" != text ]; then
  "$VL_ROOT/scripts/build.sh" web
  vl_load_env
  vl_log "screenshots into docs/"
  node tests/browser/smoke.mjs --site build/web/site --screenshot docs/screenshot.png --chromium "$VRAMLENS_CHROMIUM"
  node tests/browser/ui.mjs --site build/web/site --docs docs --chromium "$VRAMLENS_CHROMIUM"
fi
git status --short -- docs/ 2>/dev/null || true
