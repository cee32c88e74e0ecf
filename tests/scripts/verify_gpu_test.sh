#!/usr/bin/env bash
# scripts/verify_gpu.py (issue 14), without a GPU: every case of the committed plan still makes a verify
# script that passes its dry run, and the measured set's GPU cases are exactly what `ingest` makes of the
# committed raw results (a stale measured.json, or results edited by hand, fail here). Writes only to a
# temporary folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cli=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$root/scripts/verify_gpu.py" gen --cli "$cli" "$tmp/scripts" >/dev/null
want=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['cases']))" "$root/tests/data/accuracy/gpu-runs/plan.json")
got=$(ls "$tmp/scripts"/*.py | wc -l)
[ "$got" = "$want" ] || { echo "gen wrote $got scripts for $want cases"; exit 1; }
for f in "$tmp/scripts"/*.py; do
  python3 "$f" --dry-run >/dev/null || { echo "dry run failed: $f"; exit 1; }
done
for run in "$root"/tests/data/accuracy/gpu-runs/*/; do
  name=$(basename "$run")
  cp "$root/tests/data/accuracy/measured.json" "$tmp/measured.json"
  python3 "$root/scripts/verify_gpu.py" ingest --name "$name" --date "${name:0:10}" --runs-dir "$tmp/runs" \
    --measured "$tmp/measured.json" "$run" >/dev/null
  cmp -s "$tmp/measured.json" "$root/tests/data/accuracy/measured.json" ||
    { echo "measured.json is not what 'scripts/verify_gpu.py ingest' makes of $run: re-run ingest"; diff <(python3 -m json.tool "$tmp/measured.json") <(python3 -m json.tool "$root/tests/data/accuracy/measured.json") | head -20; exit 1; }
done
echo "verify_gpu: $want plan cases generate; measured.json matches the committed runs"
