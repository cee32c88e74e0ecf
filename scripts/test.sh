#!/usr/bin/env bash
# Runs every test: the README's test command and what CI (.ci/run) calls. Installs what it needs
# (scripts/deps.sh), builds, then runs each named step; a failing step fails the whole run.
# To add a step: write a function or script and add one `vl_step NAME command...` line below.
#
# What a step may not do: judge a timing (speed is measured by scripts/bench.sh, which prints
# figures and never fails on them), or write into the checkout (generated files are written on
# purpose by scripts/gen-docs.sh; tests compare them and fail when stale). The last step proves the
# second: the checkout is exactly as it was before the run.
set -euo pipefail
VL_TAG=test
VL_RUNNER=vramlens-test
. "$(dirname "$0")/lib.sh"
cd "$VL_ROOT"

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then TREE_BEFORE=$(vl_tree_state); else TREE_BEFORE=none; fi

ctest_run() { ctest --preset native --output-on-failure -j "$(nproc 2>/dev/null || echo 2)"; }
browser_smoke() {
  node tests/browser/smoke.mjs --site build/web/site --chromium "$VRAMLENS_CHROMIUM"
}
page_budgets() {  # size, start, idle and offline checks; no timing
  node tests/browser/budgets.mjs --site build/web/site --chromium "$VRAMLENS_CHROMIUM"
}
tree_unchanged() {
  if [ "$TREE_BEFORE" = none ]; then echo "not a git checkout: nothing to compare"; return 0; fi
  vl_tree_unchanged "$TREE_BEFORE"
}

vl_step deps           scripts/deps.sh
vl_load_env
vl_step build-native   scripts/build.sh native
vl_step unit-tests     ctest_run
vl_step build-web      scripts/build.sh web
vl_step browser-smoke  browser_smoke
vl_step browser-ui     scripts/test-browser-ui.sh build/web/site   # screenshots into a temporary folder
vl_step page-budgets   page_budgets
vl_step sanitizers     scripts/fuzz.sh test                      # clang-14 ASan+UBSan build/fuzz, whole Catch2 suite
vl_step fuzz           scripts/fuzz.sh run "${VRAMLENS_FUZZ_SECONDS:-30}"  # each libFuzzer target, bounded, + limit cases
vl_step bench          scripts/bench.sh --quick --no-build       # proves the benchmark runs; figures printed, not judged
vl_step tree-unchanged tree_unchanged                            # git status as before the run (fresh clone: empty)
vl_steps_done
