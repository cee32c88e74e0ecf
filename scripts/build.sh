#!/usr/bin/env bash
# Builds everything: the native core, CLI, tests and benchmarks (build/native) and the web app
# (build/web/site, a static folder). Runs scripts/deps.sh first, so it works on a fresh machine.
#   scripts/build.sh [native|web|all]     (default all)
set -euo pipefail
VL_TAG=build
. "$(dirname "$0")/lib.sh"
what=${1:-all}

"$VL_ROOT/scripts/deps.sh"
vl_load_env
cd "$VL_ROOT"

jobs=$(nproc 2>/dev/null || echo 2)
if [ "$what" = native ] || [ "$what" = all ]; then
  vl_log "native: configure + build (build/native)"
  cmake --preset native >/dev/null
  cmake --build --preset native -j "$jobs"
fi
if [ "$what" = web ] || [ "$what" = all ]; then
  # The page carries the default scenario's answer as HTML, written at build time by the native
  # vramlens_prerender (web/prerender): built here first, then named to the web build.
  vl_log "web: the native vramlens_prerender (build/native), for the answer before the wasm"
  cmake --preset native >/dev/null
  cmake --build --preset native -j "$jobs" --target vramlens_prerender
  vl_log "web: configure + build (build/web/site) with $VRAMLENS_TOOLCHAIN Emscripten"
  cmake --preset web -DVRAMLENS_PRERENDER="$VL_ROOT/build/native/web/prerender/vramlens_prerender" >/dev/null
  cmake --build --preset web -j "$jobs"
  vl_log "web: site ready in build/web/site ($(du -sh build/web/site | cut -f1))"
fi
