#!/usr/bin/env bash
# Installs and caches everything vramlens needs to build and test. Idempotent: a second run checks,
# finds everything in place and takes about a second.
#
# Two toolchain paths (docs/building.md, "Toolchains"):
#   debian  (default on Debian 12): apt's Emscripten 3.1.6; Dear ImGui and SDL2 sources come from
#           Debian's source packages (apt-get source), SDL2 is compiled for wasm once into .deps/.
#   emsdk   (EMSDK set, or an emcc other than Debian's on PATH): your Emscripten; SDL2 is its port
#           (-sUSE_SDL=2) and Dear ImGui is the upstream tag below, fetched with git or curl.
# Force one with VRAMLENS_TOOLCHAIN=debian|emsdk.
#
# Everything lands in .deps/ (gitignored): downloads/, src/imgui, src/SDL2, wasm/sdl2, stamps/, env.sh.
set -euo pipefail
VL_TAG=deps
. "$(dirname "$0")/lib.sh"

IMGUI_UPSTREAM_TAG=v1.86      # same release as Debian's imgui 1.86: one ImGui API for both paths
APT_BASE=(cmake ninja-build g++ python3 xz-utils ca-certificates
          nlohmann-json3-dev libcli11-dev catch2 libbenchmark-dev libsdl2-dev chromium fonts-dejavu-core
          python3-fonttools fonts-wqy-microhei
          clang-14 libclang-rt-14-dev
          libcurl4-openssl-dev)   # sanitizer suite + libFuzzer targets (scripts/fuzz.sh)   # fonttools + WenQuanYi: the zh UI font subset at build time   # libcurl: the CLI reads checkpoint headers from the Hugging Face Hub

mkdir -p "$VL_DEPS"/{downloads,src,wasm,stamps}

# ---- 1. toolchain choice -------------------------------------------------------------------
emcc_version() { "$1" --version 2>/dev/null | sed -n '1s/.*) \([0-9][0-9.]*\).*/\1/p'; }
toolchain=${VRAMLENS_TOOLCHAIN:-}
if [ -z "$toolchain" ]; then
  if [ -n "${EMSDK:-}" ]; then toolchain=emsdk
  elif command -v emcc >/dev/null && [[ "$(readlink -f "$(command -v emcc)")" != /usr/share/emscripten/* ]]; then toolchain=emsdk
  else toolchain=debian; fi
fi
case $toolchain in debian|emsdk) ;; *) vl_die "VRAMLENS_TOOLCHAIN must be debian or emsdk, got '$toolchain'";; esac
vl_log "toolchain: $toolchain"

# ---- 2. system packages (apt) ----------------------------------------------------------------
apt_pkgs=("${APT_BASE[@]}")
[ "$toolchain" = debian ] && apt_pkgs+=(emscripten)
command -v npm >/dev/null || apt_pkgs+=(npm)   # nodesource's nodejs bundles npm; Debian's does not
if command -v apt-get >/dev/null; then
  missing=()
  for p in "${apt_pkgs[@]}"; do
    dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    vl_log "apt: installing ${missing[*]}"
    vl_as_root apt-get update
    vl_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
  else
    vl_log "apt: all ${#apt_pkgs[@]} packages already installed"
  fi
else
  [ "$toolchain" = emsdk ] || vl_die "no apt-get: the debian toolchain path needs Debian 12; use your own emsdk (docs/building.md)"
  for c in cmake ninja node npm; do command -v $c >/dev/null || vl_die "no apt-get here: please install '$c'"; done
  vl_warn "no apt-get: using cmake/ninja/node from PATH; native tests need Catch2 v2, nlohmann_json, CLI11, Google Benchmark"
fi

# ---- 3. Dear ImGui and SDL2 sources ----------------------------------------------------------
extract() {  # extract TARBALL DIR: unpack with the top directory stripped
  rm -rf "$2.tmp" && mkdir -p "$2.tmp"
  tar -xf "$1" -C "$2.tmp" --strip-components=1
  rm -rf "$2" && mv "$2.tmp" "$2"
}
if [ "$toolchain" = debian ]; then
  if ls "$VL_DEPS"/downloads/imgui_*.orig.tar.* "$VL_DEPS"/downloads/libsdl2_*.orig.tar.* >/dev/null 2>&1; then
    vl_log "sources: imgui and libsdl2 source packages already downloaded"
  else
    # apt-get source needs a deb-src entry: mirror the system's Debian archive entry.
    if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
      codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
      src_file=/etc/apt/sources.list.d/vramlens-deb-src.sources
      vl_log "apt: adding deb-src entry for $codename ($src_file)"
      printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        "$codename" "$codename" | vl_as_root tee "$src_file" >/dev/null
    fi
    vl_log "apt: updating indexes (source packages)"
    vl_as_root apt-get update
    vl_log "sources: apt-get source --download-only imgui libsdl2 -> .deps/downloads"
    (cd "$VL_DEPS/downloads" && apt-get source --download-only imgui libsdl2)
  fi
  imgui_tar=$(ls "$VL_DEPS"/downloads/imgui_*.orig.tar.* | head -1)
  sdl_tar=$(ls "$VL_DEPS"/downloads/libsdl2_*.orig.tar.* | head -1)
  if [ "$(cat "$VL_DEPS/stamps/imgui-src" 2>/dev/null)" != "$(basename "$imgui_tar")" ]; then
    vl_log "sources: extracting $(basename "$imgui_tar") -> .deps/src/imgui"
    extract "$imgui_tar" "$VL_DEPS/src/imgui"
    basename "$imgui_tar" > "$VL_DEPS/stamps/imgui-src"
  else
    vl_log "sources: .deps/src/imgui up to date ($(basename "$imgui_tar"))"
  fi
  if [ "$(cat "$VL_DEPS/stamps/sdl2-src" 2>/dev/null)" != "$(basename "$sdl_tar")" ]; then
    vl_log "sources: extracting $(basename "$sdl_tar") -> .deps/src/SDL2"
    extract "$sdl_tar" "$VL_DEPS/src/SDL2"
    basename "$sdl_tar" > "$VL_DEPS/stamps/sdl2-src"
    rm -f "$VL_DEPS/stamps/sdl2-wasm"
  else
    vl_log "sources: .deps/src/SDL2 up to date ($(basename "$sdl_tar"))"
  fi
else
  if [ "$(cat "$VL_DEPS/stamps/imgui-src" 2>/dev/null)" != "upstream-$IMGUI_UPSTREAM_TAG" ]; then
    vl_log "sources: fetching Dear ImGui $IMGUI_UPSTREAM_TAG from github.com/ocornut/imgui"
    rm -rf "$VL_DEPS/src/imgui"
    if command -v git >/dev/null; then
      git -c advice.detachedHead=false clone --quiet --depth 1 --branch "$IMGUI_UPSTREAM_TAG" \
        https://github.com/ocornut/imgui.git "$VL_DEPS/src/imgui"
    else
      curl -fsSL -o "$VL_DEPS/downloads/imgui-$IMGUI_UPSTREAM_TAG.tar.gz" \
        "https://github.com/ocornut/imgui/archive/refs/tags/$IMGUI_UPSTREAM_TAG.tar.gz"
      extract "$VL_DEPS/downloads/imgui-$IMGUI_UPSTREAM_TAG.tar.gz" "$VL_DEPS/src/imgui"
    fi
    echo "upstream-$IMGUI_UPSTREAM_TAG" > "$VL_DEPS/stamps/imgui-src"
  else
    vl_log "sources: .deps/src/imgui up to date (upstream $IMGUI_UPSTREAM_TAG)"
  fi
fi
[ -f "$VL_DEPS/src/imgui/backends/imgui_impl_sdl.cpp" ] || vl_die "ImGui sources lack backends/imgui_impl_sdl.cpp"

# ---- 4. SDL2 for wasm (debian path only; emsdk uses its port) --------------------------------
emscripten_root=""
if [ "$toolchain" = debian ]; then
  emscripten_root=/usr/share/emscripten
  export NODE_PATH=/usr/share/nodejs    # toolchain.md pitfall 1
  "$VL_ROOT/scripts/build-sdl2-wasm.sh" "$VL_DEPS/src/SDL2" "$VL_DEPS/wasm/sdl2" "$VL_DEPS/stamps/sdl2-wasm"
else
  emcc_path=$(command -v emcc || true)
  [ -z "$emcc_path" ] && [ -n "${EMSDK:-}" ] && emcc_path=$EMSDK/upstream/emscripten/emcc
  [ -x "$emcc_path" ] || vl_die "emsdk path: no emcc found (source emsdk_env.sh first)"
  emscripten_root=$(dirname "$(readlink -f "$emcc_path")")
  vl_log "emscripten: $emscripten_root (emcc $(emcc_version "$emcc_path")); SDL2 from its port (-sUSE_SDL=2)"
fi
[ -f "$emscripten_root/cmake/Modules/Platform/Emscripten.cmake" ] || vl_die "no Emscripten.cmake under $emscripten_root"

# ---- 5. playwright-core for the browser tests (npm, local to tests/browser) ------------------
lock="$VL_ROOT/tests/browser/package-lock.json"
want="$(sha256sum "$lock" | cut -d' ' -f1)"
if [ "$(cat "$VL_DEPS/stamps/npm" 2>/dev/null)" != "$want" ] || [ ! -d "$VL_ROOT/tests/browser/node_modules/playwright-core" ]; then
  vl_log "npm: npm ci in tests/browser (playwright-core, no browser download)"
  (cd "$VL_ROOT/tests/browser" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" > "$VL_DEPS/stamps/npm"
else
  vl_log "npm: tests/browser/node_modules up to date"
fi

# ---- 5b. terser for the web build (npm, local to scripts/minify-js; web/CMakeLists.txt) -------
lock="$VL_ROOT/scripts/minify-js/package-lock.json"
want="$(sha256sum "$lock" | cut -d' ' -f1)"
if [ "$(cat "$VL_DEPS/stamps/npm-minify" 2>/dev/null)" != "$want" ] || [ ! -d "$VL_ROOT/scripts/minify-js/node_modules/terser" ]; then
  vl_log "npm: npm ci in scripts/minify-js (terser, minifies the web build's JavaScript glue)"
  (cd "$VL_ROOT/scripts/minify-js" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" > "$VL_DEPS/stamps/npm-minify"
else
  vl_log "npm: scripts/minify-js/node_modules up to date"
fi

# ---- 6. environment for the build scripts ----------------------------------------------------
chromium=${VRAMLENS_CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
cat > "$VL_DEPS/env.sh" <<ENV
# Written by scripts/deps.sh; sourced by the other scripts.
export VRAMLENS_TOOLCHAIN=$toolchain
export VRAMLENS_EMSCRIPTEN_ROOT=$emscripten_root
export VRAMLENS_IMGUI_DIR=$VL_DEPS/src/imgui
export VRAMLENS_SDL2_DIR=$( [ "$toolchain" = debian ] && echo "$VL_DEPS/wasm/sdl2" )
export VRAMLENS_CHROMIUM=$chromium
$( [ "$toolchain" = debian ] && echo "export NODE_PATH=/usr/share/nodejs" )
ENV
vl_log "ready: toolchain=$toolchain imgui=$(cat "$VL_DEPS/stamps/imgui-src") chromium=${chromium:-none} (env in .deps/env.sh)"
