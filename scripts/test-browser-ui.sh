#!/usr/bin/env bash
# Browser tests of the web UI against the built site: tests/browser/ui.mjs (the UI),
# tests/browser/input.mjs (large input, links, pasted files, the embed snippet), and the page
# behaving as a web page: keyboard.mjs (clipboard keys in every field, browser shortcuts kept),
# scroll.mjs (a swipe is a scroll, never a press; wheel and swipe over an embed scroll the blog),
# history.mjs (Back and Forward step through scenarios), a11y.mjs (Tab through every control, the
# results as text for screen readers and copying, axe-core), layout.mjs (nothing in the inputs cut
# off: every LoRA target reachable at 1280 and 1920 wide and on a phone) and fields.mjs (number
# shorthands such as 4k and 1e4, an error for the rest; the model search), hub.mjs (import by repo id
# against the test Hub of tests/hub: nothing sent before the click, every fixture repo, the errors, the
# token never to the CDN, the link offline) and firstview.mjs (the
# default scenario's answer as HTML before the wasm, as the CLI computes it; content-hashed files;
# offline on the second visit, through the service worker; needs the native CLI) and local.mjs (Run
# locally: GPUs added, the plan equal to `vramlens plan`'s, the launch line copied; needs the native CLI) and compare.mjs
# (Run locally's compare grid built by clicks, equal to `vramlens plan --compare`'s, opened from its link; needs the native CLI), speculative.mjs
# (vLLM speculative decoding chosen in the Advanced section, equal to `vramlens estimate`'s; needs the native CLI), vision.mjs
# (a vision-language model's images typed, the tower's forward in the breakdown, equal to `vramlens estimate`'s) and
# profiles.mjs (the framework profile dropdown: picked, a field it set changed, none, another mode's) and everyday.mjs
# (issue 15's smaller items on a desktop and a phone: the charts' values, a fitting change applied by a click or
# tap, the link's line gone after a change, pasted configs placed, imported or refused in words) and split.mjs
# (the wasm's deferred half: not asked for by the first view, fetched on the first input, loaded at once
# when called earlier). ui.mjs's
# screenshots go to SCREENSHOT_DIR, by default a temporary folder removed afterwards: a test never
# writes into the checkout (the screenshots in docs/ are made on purpose by scripts/gen-docs.sh).
# Needs scripts/deps.sh (playwright-core, chromium), the web build and the native CLI (VRAMLENS_CLI,
# default build/native/cli/vramlens).
#   scripts/test-browser-ui.sh [SITE_DIR] [SCREENSHOT_DIR]      (default build/web/site, a temp folder)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$root/.deps/env.sh" ] && . "$root/.deps/env.sh"
site=${1:-$root/build/web/site}
chromium=${VRAMLENS_CHROMIUM:-/usr/bin/chromium}
shots=${2:-}
if [ -z "$shots" ]; then
  shots=$(mktemp -d "${TMPDIR:-/tmp}/vramlens-ui-shots.XXXXXX")
  trap 'rm -rf "$shots"' EXIT
fi
status=0
# Runs one browser test file; reruns it once when the Chromium process itself went away (Playwright's
# "Target page, context or browser has been closed" or "Browser closed"), which a loaded CI machine has done
# once at a first page load. The rerun's result stands: a check that really fails fails again.
node() {
  local log rc
  log=$(mktemp "${TMPDIR:-/tmp}/vramlens-browser.XXXXXX")
  command node "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ] && grep -qE 'browser has been closed|Browser closed|Target closed' "$log"; then
    echo "$(basename "$1"): Chromium went away: running it once more"
    command node "$@"
    rc=$?
  fi
  rm -f "$log"
  return "$rc"
}
node "$root/tests/browser/ui.mjs" --site "$site" --docs "$shots" --chromium "$chromium" || status=1
node "$root/tests/browser/input.mjs" --site "$site" --chromium "$chromium" || status=1
for t in keyboard scroll history a11y layout fields hub profiles split; do
  node "$root/tests/browser/$t.mjs" --site "$site" --chromium "$chromium" || status=1
done
node "$root/tests/browser/local.mjs" --site "$site" --cli "${VRAMLENS_CLI:-$root/build/native/cli/vramlens}" \
  --chromium "$chromium" || status=1
node "$root/tests/browser/compare.mjs" --site "$site" --cli "${VRAMLENS_CLI:-$root/build/native/cli/vramlens}" \
  --chromium "$chromium" || status=1
node "$root/tests/browser/speculative.mjs" --site "$site" --cli "${VRAMLENS_CLI:-$root/build/native/cli/vramlens}" \
  --chromium "$chromium" || status=1
node "$root/tests/browser/vision.mjs" --site "$site" --cli "${VRAMLENS_CLI:-$root/build/native/cli/vramlens}" \
  --chromium "$chromium" || status=1
node "$root/tests/browser/everyday.mjs" --site "$site" --cli "${VRAMLENS_CLI:-$root/build/native/cli/vramlens}" \
  --chromium "$chromium" || status=1
node "$root/tests/browser/firstview.mjs" --site "$site" --cli "${VRAMLENS_CLI:-$root/build/native/cli/vramlens}" \
  --chromium "$chromium" || status=1
exit $status
