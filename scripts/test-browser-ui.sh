#!/usr/bin/env bash
# Browser test of the web UI (tests/browser/ui.mjs) against the built site; saves the README
# screenshots to docs/. Needs scripts/deps.sh (playwright-core, chromium) and the web build.
#   scripts/test-browser-ui.sh [SITE_DIR]      (default build/web/site)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$root/.deps/env.sh" ] && . "$root/.deps/env.sh"
exec node "$root/tests/browser/ui.mjs" --site "${1:-$root/build/web/site}" --docs "$root/docs" \
  --chromium "${VRAMLENS_CHROMIUM:-/usr/bin/chromium}"
