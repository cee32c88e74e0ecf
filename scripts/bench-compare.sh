#!/usr/bin/env bash
# Speed of the working tree against an earlier commit, measured in one run on one machine: builds
# build/native/bench/vramlens_bench from the working tree and from BASE_REF (the tree of that commit
# exported with `git archive` into build/bench-compare/<commit>/src, built in .../bin; reused on the
# next call), runs the two binaries in alternating order, round after round, and prints each figure
# of both side by side with the ratio head / base. A benchmark, not a test: the exit status is 0
# whatever the figures are, and non-zero only when something broke (a build, a binary, a bad ref).
# Writes only under build/. See docs/performance.md.
#   scripts/bench-compare.sh BASE_REF [--rounds N] [--filter REGEX] [--no-build]
#     BASE_REF        a commit, tag or branch, e.g. main or d5ca516
#     --rounds N      base/head runs each (default 5); more rounds, steadier medians
#     --filter REGEX  Google Benchmark filter (default 'Sweep|Estimate')
#     --no-build      use build/native/bench/vramlens_bench as it is (the base is still built once)
set -euo pipefail
VL_TAG=bench-compare
. "$(dirname "$0")/lib.sh"
cd "$VL_ROOT"

usage() { awk 'NR > 1 && /^set / { exit } NR > 1' "$0"; exit 2; }
base_ref="" rounds=5 filter='Sweep|Estimate' build=1
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) [ $# -ge 2 ] || usage; rounds=$2; shift 2 ;;
    --filter) [ $# -ge 2 ] || usage; filter=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) usage ;;
    -*) vl_warn "unknown option $1"; usage ;;
    *) [ -z "$base_ref" ] || usage; base_ref=$1; shift ;;
  esac
done
[ -n "$base_ref" ] || usage
case $rounds in ''|*[!0-9]*|0) vl_die "--rounds takes a whole number of at least 1, not '$rounds'" ;; esac
command -v python3 >/dev/null || vl_die "python3 is needed to read the benchmark's JSON output (scripts/deps.sh installs it)"

base=$(git rev-parse --verify --quiet "$base_ref^{commit}") || vl_die "BASE_REF '$base_ref' is not a commit in this repository"
short=$(git rev-parse --short "$base")
head_desc="working tree at $(git rev-parse --short HEAD)"
[ -z "$(git status --porcelain --untracked-files=no)" ] || head_desc+=" + uncommitted changes"
jobs=$(nproc 2>/dev/null || echo 2)
[ "$jobs" -le 2 ] || jobs=2   # a benchmark build on a shared machine: keep it polite

# ---- the base: the commit's tree, exported (no git worktree to prune), built once per commit ----
work="build/bench-compare/$base"
base_bin="$work/bin/bench/vramlens_bench"
if [ ! -x "$base_bin" ]; then
  vl_log "base $short: exporting the tree into $work/src"
  rm -rf "$work"
  mkdir -p "$work/src"
  git archive "$base" | tar -x -C "$work/src"
  vl_log "base $short: configure + build vramlens_bench ($work/bin)"
  cmake -S "$work/src" -B "$work/bin" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DVRAMLENS_TESTS=OFF -DVRAMLENS_CLI=OFF -DVRAMLENS_BENCH=ON >/dev/null
  cmake --build "$work/bin" --target vramlens_bench -j "$jobs"
fi
[ -x "$base_bin" ] || vl_die "$base_bin was not built"

# ---- the head: the working tree's usual native build ------------------------------------------
head_bin=build/native/bench/vramlens_bench
if [ "$build" = 1 ]; then
  vl_log "head: configure + build vramlens_bench (build/native)"
  cmake --preset native >/dev/null
  cmake --build --preset native --target vramlens_bench -j "$jobs"
fi
[ -x "$head_bin" ] || vl_die "$head_bin missing: build it (cmake --preset native && cmake --build --preset native) or run without --no-build"

# ---- interleaved runs: base and head alternate, and which goes first alternates too -------------
out="build/bench-compare/runs"
rm -rf "$out"
mkdir -p "$out"
run() {  # run SIDE ROUND: the figures go to SIDE-ROUND.json, the console output to SIDE-ROUND.log
  local bin=$base_bin; [ "$1" = head ] && bin=$head_bin
  "$bin" --benchmark_filter="$filter" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/$1-$2.json" --benchmark_out_format=json >"$out/$1-$2.log" 2>&1 ||
    { cat "$out/$1-$2.log" >&2; vl_die "$bin failed (round $2); its output is above"; }
}
vl_log "base $short vs $head_desc: $rounds rounds, filter '$filter'"
for ((r = 1; r <= rounds; r++)); do
  if (( r % 2 )); then order=(base head); else order=(head base); fi
  for side in "${order[@]}"; do
    printf '  round %d/%d: %s\n' "$r" "$rounds" "$side"
    run "$side" "$r"
  done
done

# ---- side by side: the median over rounds of each run's median CPU time ------------------------
python3 - "$out" "$rounds" "$short" "$head_desc" <<'PY'
import json, statistics, sys
out, rounds, short, head_desc = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
fig = {"base": {}, "head": {}}  # side -> name -> [cpu ns per round]
order = []
for side in fig:
    for r in range(1, rounds + 1):
        with open(f"{out}/{side}-{r}.json") as f:
            text = f.read()
        for b in json.loads(text)["benchmarks"] if text.strip() else []:  # empty when nothing matched
            if b.get("run_type") != "aggregate" or b.get("aggregate_name") != "median":
                continue
            name = b["run_name"]
            fig[side].setdefault(name, []).append(b["cpu_time"] * scale[b.get("time_unit", "ns")])
            if name not in order:
                order.append(name)

if not order:
    sys.exit("bench-compare: no benchmark matched the filter")

def show(ns):
    for unit, s in (("ms", 1e6), ("us", 1e3)):
        if ns >= s:
            return f"{ns / s:.3f} {unit}"
    return f"{ns:.1f} ns"

print(f"\nbase = {short}, head = {head_desc}")
print(f"median CPU time over {rounds} rounds (each round: median of 3 repetitions); spread = lowest..highest round")
print(f"  {'benchmark':<38} {'base':>11} {'head':>11} {'head/base':>10}   spread base | head")
for name in order:
    b, h = fig["base"].get(name), fig["head"].get(name)
    if not b or not h:
        print(f"  {name:<38} only in {'base' if b else 'head'}")
        continue
    mb, mh = statistics.median(b), statistics.median(h)
    print(f"  {name:<38} {show(mb):>11} {show(mh):>11} {mh / mb:>10.3f}   "
          f"{show(min(b))}..{show(max(b))} | {show(min(h))}..{show(max(h))}")
print("head/base < 1: the working tree is faster. Printed, not judged: nothing here fails on a figure.")
PY
