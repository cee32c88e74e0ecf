#!/usr/bin/env bash
# Sanitizers and fuzzing (issue 8). One clang-14 build in build/fuzz with ASan + UBSan (and libFuzzer
# coverage) serves both: the whole Catch2 suite runs under the sanitizers, and one libFuzzer target per
# parser of outside input runs from its seed corpus.
#
#   scripts/fuzz.sh configure         configure build/fuzz (VRAMLENS_FUZZ=ON, clang-14); every command
#                                     below does this first, so a tree configured by an older
#                                     checkout or with other flags is brought up to date
#   scripts/fuzz.sh build             configure + build build/fuzz
#   scripts/fuzz.sh test              build, then the whole Catch2 suite (ctest) under ASan + UBSan
#   scripts/fuzz.sh run [SECS] [T..]  build, then each fuzz target (or the named ones) for SECS seconds
#                                     (default 30); any crash, sanitizer report, leak, timeout or
#                                     broken round trip fails, and the input is kept in
#                                     build/fuzz/findings/
#   scripts/fuzz.sh                   build + test + run 30
#
# Longer local runs: `scripts/fuzz.sh run 3600 fuzz_scenario_json` (the corpus in
# build/fuzz/corpus/<target> grows across runs); reproduce a finding with
# `build/fuzz/fuzz/<target> build/fuzz/findings/<target>-crash-...`.
# Environment: CC/CXX (default clang-14/clang++-14), FUZZ_JOBS (unset: one process; N: N parallel
# libFuzzer jobs, logs fuzz-<n>.log in the current directory), FUZZ_BUILD_DIR (default build/fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=$(realpath -m "${FUZZ_BUILD_DIR:-build/fuzz}")
TARGETS=(fuzz_hf_config fuzz_scenario_json fuzz_share_link)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

configure() {
    local cc=${CC:-clang-14} cxx=${CXX:-clang++-14}
    command -v "$cxx" >/dev/null || { echo "fuzz.sh: $cxx not found (apt-get install clang-14)" >&2; exit 1; }
    # Configured on every call, not only when build/fuzz is new: a tree configured by an older
    # checkout (other flags, other compiler, options added since) would otherwise be reused as it
    # is. Re-running cmake on a configured tree takes a second or two and changes nothing when
    # nothing changed. -O1 -g: the sanitizer/libFuzzer norm (fast to compile, readable reports).
    # NDEBUG as in the Release build the suite normally runs in (the core has no asserts; Dear
    # ImGui's debug asserts would check the headless UI test harness, not the app).
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
        -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -g -DNDEBUG" -DCMAKE_C_FLAGS_SANITIZE="-O1 -g -DNDEBUG" \
        -DVRAMLENS_FUZZ=ON -DVRAMLENS_BENCH=OFF >/dev/null
}

build() {
    configure
    cmake --build "$BUILD"
}

suite() {
    # The CLI tests run the sanitized CLI binary too (tests/cli_test.cpp).
    ctest --test-dir "$BUILD" --output-on-failure -j "${CTEST_JOBS:-2}"
}

seed_corpus() {  # target -> fills build/fuzz/corpus/<target> from the seeds (kept across runs)
    local t=$1 dir=$BUILD/corpus/$1
    mkdir -p "$dir"
    case $t in
        fuzz_hf_config)     cp tests/data/configs/*.json "$dir"/ ;;
        fuzz_scenario_json) cp fuzz/seeds/scenario_json/* "$dir"/ ;;
        fuzz_share_link)    cp fuzz/seeds/share_link/* "$dir"/ ;;
    esac
}

dict_of() { echo fuzz/json.dict; }  # links wrap JSON too (fuzz_share_link.cpp)

run() {
    local secs=${1:-30}; shift || true
    local targets=("$@"); [[ ${#targets[@]} -gt 0 ]] || targets=("${TARGETS[@]}")
    mkdir -p "$BUILD/findings"
    local failed=()
    for t in "${targets[@]}"; do
        seed_corpus "$t"
        echo "== fuzz $t: ${secs}s (corpus $BUILD/corpus/$t)"
        local log=$BUILD/findings/$t.log
        # -timeout: one input taking over 10 s is a finding (a hang); -rss_limit_mb: so is 2 GB.
        if "$BUILD/fuzz/$t" "$BUILD/corpus/$t" -dict="$(dict_of "$t")" -max_total_time="$secs" \
               -timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
               ${FUZZ_JOBS:+-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS} \
               -artifact_prefix="$BUILD/findings/$t-" >"$log" 2>&1; then
            grep -E "^stat::number_of_executed_units|^stat::new_units_added|^#[0-9]+.*DONE" "$log" | tr '\n' ' ' || true
            echo
        else
            echo "FAIL: $t found a problem; last lines of $log:" >&2
            tail -n 40 "$log" >&2
            failed+=("$t")
        fi
    done
    if [[ ${#failed[@]} -gt 0 ]]; then
        echo "fuzz.sh: findings in ${failed[*]} (inputs in $BUILD/findings/)" >&2
        return 1
    fi
}

case ${1:-all} in
    configure) configure ;;
    build) build ;;
    test) build; suite ;;
    run) shift; build; run "$@" ;;
    all) build; suite; run 30 ;;
    *) awk 'NR > 1 && /^set / { exit } NR > 1' "$0"; exit 2 ;;
esac
