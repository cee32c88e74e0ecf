#!/usr/bin/env bash
# Speed figures: a benchmark, not a test. Builds what it needs (scripts/build.sh native web), then
#   1. the Google Benchmark binary (build/native/bench/vramlens_bench): one estimate per workload, the
#      10,000-point sweep, each solver; a summary with each figure's budget and its multiple of a
#      reference workload timed in the same run; then the decode replay's cost
#      (build/native/bench/vramlens_replay_timing: Qwen3-0.6B at batch 32 and 256, the page's work per change);
#   2. the page timing (tests/browser/page-timing.mjs): first visible answer (the HTML one, before
#      the wasm), first canvas frame, input -> next frame, the sweep natively, under node and in
#      headless Chromium, each a median of several runs, against its budget and as a ratio to a
#      reference page or reference loop measured in the same run.
# Prints measured vs budget; the exit status is 0 whatever the figures are, and non-zero only when
# something broke (a build, a binary, the page not loading). Figures from a quiet machine are
# recorded in docs/performance.md.
#   scripts/bench.sh [--quick] [--no-build]
#     --quick      a few repetitions only (proves every figure can be measured; scripts/test.sh)
#     --no-build   use build/native and build/web as they are
set -euo pipefail
VL_TAG=bench
. "$(dirname "$0")/lib.sh"
cd "$VL_ROOT"
quick=0 build=1
for a in "$@"; do
  case $a in
    --quick) quick=1 ;;
    --no-build) build=0 ;;
    *) awk 'NR > 1 && /^set / { exit } NR > 1' "$0"; exit 2 ;;
  esac
done

if [ "$build" = 1 ]; then
  scripts/build.sh native
  scripts/build.sh web
fi
vl_load_env
for f in build/native/bench/vramlens_bench build/native/bench/vramlens_sweep_timing build/native/bench/vramlens_replay_timing \
         build/web/bench/vramlens_sweep_timing.js build/web/site/index.html; do
  [ -e "$f" ] || vl_die "$f missing: build first (scripts/build.sh native web, or run without --no-build)"
done

if [ "$quick" = 1 ]; then
  gbench=(--benchmark_min_time=0.01 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
  page=(--loads 2 --moves 3 --runs 3)
  replay=(3)
else
  gbench=()
  page=()
  replay=()
fi

vl_log "Google Benchmark: build/native/bench/vramlens_bench ${gbench[*]}"
build/native/bench/vramlens_bench "${gbench[@]}"
vl_log "decode replay: build/native/bench/vramlens_replay_timing ${replay[*]}"
build/native/bench/vramlens_replay_timing "${replay[@]}"
vl_log "page timing: tests/browser/page-timing.mjs ${page[*]}"
node tests/browser/page-timing.mjs --site build/web/site --bench-wasm build/web/bench \
  --bench-native build/native/bench --chromium "$VRAMLENS_CHROMIUM" "${page[@]}"
vl_log "done: the figures above are information; nothing here fails on a figure"
