#!/usr/bin/env bash
# Runs every test: the README's test command and what CI (.ci/run) calls. Installs what it needs
# (scripts/deps.sh), builds, then runs each named step; a failing step fails the whole run.
# To add a step: write a function or script and add one `vl_step NAME command...` line below.
set -euo pipefail
VL_TAG=test
VL_RUNNER=vramlens-test
. "$(dirname "$0")/lib.sh"
cd "$VL_ROOT"

ctest_run() { ctest --preset native --output-on-failure -j "$(nproc 2>/dev/null || echo 2)"; }
browser_smoke() {
  node tests/browser/smoke.mjs --site build/web/site --screenshot docs/screenshot.png --chromium "$VRAMLENS_CHROMIUM"
}

vl_step deps          scripts/deps.sh
vl_load_env
vl_step build-native  scripts/build.sh native
vl_step unit-tests    ctest_run
vl_step build-web     scripts/build.sh web
vl_step browser-smoke browser_smoke
vl_step browser-ui    scripts/test-browser-ui.sh build/web/site
vl_steps_done
