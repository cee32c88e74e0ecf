#!/usr/bin/env bash
# Browser test of the web UI (tests/browser/ui.mjs) against the built site. Its screenshots go to
# SCREENSHOT_DIR, by default a temporary folder removed afterwards: a test never writes into the
# checkout (the README's screenshots are made on purpose by scripts/gen-docs.sh). Needs
# scripts/deps.sh (playwright-core, chromium) and the web build.
#   scripts/test-browser-ui.sh [SITE_DIR] [SCREENSHOT_DIR]      (default build/web/site, a temp folder)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$root/.deps/env.sh" ] && . "$root/.deps/env.sh"
shots=${2:-}
if [ -z "$shots" ]; then
  shots=$(mktemp -d "${TMPDIR:-/tmp}/vramlens-ui-shots.XXXXXX")
  trap 'rm -rf "$shots"' EXIT
fi
node "$root/tests/browser/ui.mjs" --site "${1:-$root/build/web/site}" --docs "$shots" \
  --chromium "${VRAMLENS_CHROMIUM:-/usr/bin/chromium}"
