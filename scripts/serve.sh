#!/usr/bin/env bash
# Builds everything (scripts/build.sh) and serves the web app on http://127.0.0.1:PORT/ with the
# default scenario loaded. Any static server works the same way: the site is plain files.
#   scripts/serve.sh [PORT]      (default 8000)
set -euo pipefail
VL_TAG=serve
. "$(dirname "$0")/lib.sh"
port=${1:-8000}
"$VL_ROOT/scripts/build.sh" all
vl_log "serving build/web/site on http://127.0.0.1:$port/  (Ctrl-C to stop)"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$VL_ROOT/build/web/site"
