#!/usr/bin/env bash
# Browser tests of the web UI against the built site: tests/browser/ui.mjs (the UI, and the README
# screenshots it saves to docs/) and tests/browser/input.mjs (large input, links, pasted files, the
# embed snippet). Needs scripts/deps.sh (playwright-core, chromium) and the web build.
#   scripts/test-browser-ui.sh [SITE_DIR]      (default build/web/site)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$root/.deps/env.sh" ] && . "$root/.deps/env.sh"
site=${1:-$root/build/web/site}
chromium=${VRAMLENS_CHROMIUM:-/usr/bin/chromium}
status=0
node "$root/tests/browser/ui.mjs" --site "$site" --docs "$root/docs" --chromium "$chromium" || status=1
node "$root/tests/browser/input.mjs" --site "$site" --chromium "$chromium" || status=1
exit $status
