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
# Issue 8: speed figures (printed, not a pass/fail gate on shared runners), page budgets (fail).
bench_figures() {
  build/native/bench/vramlens_bench --benchmark_min_time=0.05 --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true
}
page_budgets() {
  node tests/browser/budgets.mjs --site build/web/site --bench-wasm build/web/bench \
    --bench-native build/native/bench --chromium "$VRAMLENS_CHROMIUM"
}
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
vl_step sanitizers    scripts/fuzz.sh test                     # clang-14 ASan+UBSan build/fuzz, whole Catch2 suite
vl_step fuzz          scripts/fuzz.sh run "${VRAMLENS_FUZZ_SECONDS:-30}"  # each libFuzzer target, bounded
vl_step bench         bench_figures
vl_step page-budgets  page_budgets
vl_steps_done
