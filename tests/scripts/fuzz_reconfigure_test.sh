#!/usr/bin/env bash
# scripts/fuzz.sh brings an existing build/fuzz up to date: a tree configured earlier with other
# options (an older checkout, a hand-run cmake) gets the flags fuzz.sh sets, instead of being
# reused as it is. Registered with ctest (tests/CMakeLists.txt); skipped (77) without clang-14.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v clang++-14 >/dev/null && command -v clang-14 >/dev/null || { echo "clang-14 not installed: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The stale tree: fuzz targets off, other sanitizer flags (tests off to keep the check quick).
cmake -S "$root" -B "$tmp/fuzz" -G Ninja -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_CXX_FLAGS_SANITIZE=-O0 -DCMAKE_C_FLAGS_SANITIZE=-O0 \
  -DVRAMLENS_FUZZ=OFF -DVRAMLENS_TESTS=OFF >/dev/null
grep -q '^VRAMLENS_FUZZ:BOOL=OFF$' "$tmp/fuzz/CMakeCache.txt"

FUZZ_BUILD_DIR="$tmp/fuzz" "$root/scripts/fuzz.sh" configure

fail=0
for want in 'VRAMLENS_FUZZ:BOOL=ON' 'CMAKE_CXX_FLAGS_SANITIZE:STRING=-O1 -g -DNDEBUG' \
            'CMAKE_C_FLAGS_SANITIZE:STRING=-O1 -g -DNDEBUG' 'VRAMLENS_BENCH:BOOL=OFF'; do
  if grep -qxF "$want" "$tmp/fuzz/CMakeCache.txt"; then echo "ok: $want"
  else echo "FAIL: after scripts/fuzz.sh configure the cache lacks $want (stale tree reused)"; fail=1; fi
done
grep -q 'fuzz_share_link' "$tmp/fuzz/build.ninja" && echo "ok: the fuzz targets are in the build" \
  || { echo "FAIL: no fuzz targets in the reconfigured tree"; fail=1; }
exit $fail
