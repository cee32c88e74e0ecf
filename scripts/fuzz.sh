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
#                                     (default 30), then once on its limit cases; any crash, sanitizer
#                                     report, leak, timeout or broken round trip fails, and the input
#                                     is kept in build/fuzz/findings/
#   scripts/fuzz.sh                   build + test + run 30
#
# Limit cases (generated here, not committed; also copied into each corpus): inputs over the 4 MiB
# and 32-level limits of core/json_input.h (a > 4 MiB document, 80,000 levels of nesting; through a
# link and the command line too). Each target runs once on each whole file with
# VRAMLENS_FUZZ_EXPECT_ERROR naming the error it must give (fuzz/fuzz_checks.h): no crash, and
# that error.
#
# Longer local runs: `scripts/fuzz.sh run 3600 fuzz_scenario_json` (the corpus in
# build/fuzz/corpus/<target> grows across runs); reproduce a finding with
# `build/fuzz/fuzz/<target> build/fuzz/findings/<target>-crash-...`.
# Environment: CC/CXX (default clang-14/clang++-14), FUZZ_JOBS (unset: one process; N: N parallel
# libFuzzer jobs, logs fuzz-<n>.log in the current directory), FUZZ_BUILD_DIR (default build/fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# Absolute: fuzz_cli works inside a temporary folder, so relative corpus and artifact paths would
# point there.
BUILD=$(realpath -m "${FUZZ_BUILD_DIR:-build/fuzz}")
TARGETS=(fuzz_hf_config fuzz_scenario_json fuzz_share_link fuzz_cli fuzz_checkpoint)
unset VRAMLENS_FUZZ_EXPECT_ERROR
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
        fuzz_cli)           cp fuzz/seeds/cli/* "$dir"/ ;;
        fuzz_checkpoint)    cp fuzz/seeds/checkpoint/* "$dir"/ ;;
    esac
}

# target -> writes $BUILD/limits/<target>/<case> (whole) and prints one "<case> <expected error>"
# line per case. The documents are valid JSON apart from their size or depth.
limit_cases() {
    local dir=$BUILD/limits/$1
    rm -rf "$dir"; mkdir -p "$dir"
    python3 - "$1" "$dir" <<'PY'
import base64, os, sys, zlib
target, out = sys.argv[1], sys.argv[2]
big = 5_000_000                   # over kMaxJsonInputBytes (4 MiB = 4,194,304 bytes)
deep = '[' * 80000 + ']' * 80000  # 80,000 levels; kMaxJsonDepth is 32
TOO_BIG, TOO_DEEP, LINK_TOO_LONG = 'KB; at most 4194 KB is read', 'is nested deeper than 32 levels', 'longer than 64 KiB'
def link(doc):
    b = doc.encode()
    b += zlib.crc32(b).to_bytes(4, 'big')
    return 'v1.' + base64.urlsafe_b64encode(b).decode().rstrip('=')
cases = {
    'fuzz_hf_config': {
        'big.json': ('{"model_type": "llama", "_name_or_path": "' + 'a' * big + '"}', TOO_BIG),
        'deep.json': ('{"model_type": "llama", "hidden_size": ' + deep + '}', TOO_DEEP)},
    'fuzz_scenario_json': {
        'big.json': ('{"version": 1, "model": {"params": 7e9, "name": "' + 'a' * big + '"}}', TOO_BIG),
        'deep.json': ('{"version": 1, "model": ' + deep + '}', TOO_DEEP)},
    'fuzz_share_link': {  # location.hash as the page reads it
        'big.txt': ('#v1.' + 'A' * big, LINK_TOO_LONG),
        'deep.txt': ('#' + link('{"version": 1, "model": ' + deep + '}'), LINK_TOO_LONG),
        # 20,000 levels: the deepest document a link under 64 KiB holds reaches the JSON reader
        'deep-in-link.txt': ('#embed,' + link('{"version":1,"model":' + '[' * 20000 + ']' * 20000 + '}'), TOO_DEEP)},
    'fuzz_cli': {  # command lines; big.json, deep.json, deep-config.json are in its sandbox
        'big-scenario.txt': ('estimate\nbig.json\n', TOO_BIG),
        'big-config.txt': ('estimate\n--model-config\nbig.json\n', TOO_BIG),
        'deep-scenario.txt': ('link\ndeep.json\n', TOO_DEEP),
        'deep-import.txt': ('import\ndeep-config.json\n', TOO_DEEP),
        'deep-config.txt': ('solve\nmicro-batch\n--model-config\ndeep-config.json\n', TOO_DEEP),
        'big-link.txt': ('link\n--decode\nv1.' + 'A' * big + '\n', LINK_TOO_LONG)},
    'fuzz_checkpoint': {  # the first byte picks the reader (fuzz_checkpoint.cpp): 2 index, 4 adapter_config
        'big-index.json': ('\x02{"weight_map": {"a": "' + 'a' * big + '"}}', TOO_BIG),
        'deep-adapter.json': ('\x04{"peft_type": "LORA", "r": ' + deep + '}', TOO_DEEP)},
}[target]
for name, (text, expect) in cases.items():
    with open(os.path.join(out, name), 'w') as f:
        f.write(text)
    print(name, expect)
PY
}

# target -> runs it once on each whole limit case (no -max_len: nothing is cut) with the error it
# must give; the cases also join the corpus, where fuzzing starts from their first 16 KiB.
run_limits() {
    local t=$1 name expect control
    # First the check itself: an input the target accepts must fail it.
    case $t in
        fuzz_hf_config) control=tests/data/configs/gpt2.json ;;
        fuzz_scenario_json) control=fuzz/seeds/scenario_json/default-pretty.json ;;
        fuzz_share_link) control=fuzz/seeds/share_link/link-1.txt ;;
        fuzz_cli) control=fuzz/seeds/cli/version.txt ;;
        fuzz_checkpoint) control=fuzz/seeds/checkpoint/gguf-tiny.bin ;;
    esac
    if VRAMLENS_FUZZ_EXPECT_ERROR="is nested deeper" "$BUILD/fuzz/$t" "$ROOT/$control" -artifact_prefix="$BUILD/findings/control-" \
           </dev/null >"$BUILD/findings/$t-limit-control.log" 2>&1; then
        echo "FAIL: $t passed the limit check on $control, which it accepts: the check is broken" >&2
        return 1
    fi
    grep -q "accepted an input that must be rejected" "$BUILD/findings/$t-limit-control.log" \
        || { echo "FAIL: $t on $control failed for another reason than the limit check:" >&2; tail -n 20 "$BUILD/findings/$t-limit-control.log" >&2; return 1; }
    while read -r name expect; do
        cp "$BUILD/limits/$t/$name" "$BUILD/corpus/$t/limit-$name"
        if VRAMLENS_FUZZ_EXPECT_ERROR=$expect "$BUILD/fuzz/$t" "$BUILD/limits/$t/$name" </dev/null \
               >"$BUILD/findings/$t-limit-$name.log" 2>&1; then
            printf '   limit %-18s %9s B: %s\n' "$name" "$(stat -c %s "$BUILD/limits/$t/$name")" \
                "$(grep -m1 'rejected as expected' "$BUILD/findings/$t-limit-$name.log" | cut -c1-150)"
        else
            echo "FAIL: $t on limit case $name (must be rejected with \"$expect\"); last lines of $BUILD/findings/$t-limit-$name.log:" >&2
            tail -n 20 "$BUILD/findings/$t-limit-$name.log" >&2
            return 1
        fi
    done < <(limit_cases "$t")
}

dict_of() {  # absolute: fuzz_cli changes its working folder before libFuzzer reads the dictionary
    case $1 in
        fuzz_cli) echo "$ROOT/fuzz/cli.dict" ;;
        *) echo "$ROOT/fuzz/json.dict" ;;  # links wrap JSON too (fuzz_share_link.cpp)
    esac
}

run() {
    local secs=${1:-30}; shift || true
    local targets=("$@"); [[ ${#targets[@]} -gt 0 ]] || targets=("${TARGETS[@]}")
    mkdir -p "$BUILD/findings" "$BUILD/tmp"
    # fuzz_cli's sandbox folders (and anything else a target puts in the temp folder) stay in the
    # build tree, also when a finding ends a process before it cleans up.
    export TMPDIR=$BUILD/tmp
    local failed=()
    for t in "${targets[@]}"; do
        seed_corpus "$t"
        echo "== fuzz $t: ${secs}s (corpus $BUILD/corpus/$t)"
        local log=$BUILD/findings/$t.log
        # -timeout: one input taking over 10 s is a finding (a hang); -rss_limit_mb: so is 2 GB.
        if "$BUILD/fuzz/$t" "$BUILD/corpus/$t" -dict="$(dict_of "$t")" -max_total_time="$secs" \
               -timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
               ${FUZZ_JOBS:+-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS} \
               -artifact_prefix="$BUILD/findings/$t-" </dev/null >"$log" 2>&1; then
            grep -E "^stat::number_of_executed_units|^stat::new_units_added|^#[0-9]+.*DONE" "$log" | tr '\n' ' ' || true
            echo
            run_limits "$t" || failed+=("$t")
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
