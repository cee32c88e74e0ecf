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
# The families added for issue 14 item 12 / issue 18 (BERT heads, encoder-decoders, images): their scripts say which
# transformers class they build, and a synthetic results line of each outcome is ingested as a measured case.
grep -q '"task":"seq-cls"' "$tmp/scripts/gpu-bert-large-seqcls-mb4-s512-fp32.py" || { echo "BERT case: no seq-cls task"; exit 1; }
grep -q '"task":"seq2seq"' "$tmp/scripts/gpu-flan-t5-base-train-mb8-s512-t128.py" || { echo "T5 case: no seq2seq task"; exit 1; }
grep -q '"task":"image-text"' "$tmp/scripts/gpu-qwen2-vl-2b-infer-2img-448-p256-n128.py" || { echo "VLM case: no image-text task"; exit 1; }
mkdir -p "$tmp/synthetic"
cat >"$tmp/synthetic/env.json" <<'JSON'
{"gpu": "Fake GPU", "gpu_total_bytes": 85017493504, "torch": "2.11", "cuda_runtime": "12.8", "transformers": "5.0", "peft": "0.17", "nvidia_smi": "Fake GPU, 580, 81559 MiB"}
JSON
cat >"$tmp/synthetic/results.jsonl" <<'JSON'
{"case": "gpu-flan-t5-base-train-mb8-s512-t128", "rc": 0, "seconds": 9.5, "report": {"outcome": "measured", "where": "training", "measured": {"allocated": 6442450944, "reserved": 7516192768, "gpu_used": 8589934592, "gpu_used_before": 536870912}, "scenario": {"model": "flan-t5-base", "mode": "train", "train": {"target_len": 128}}, "estimate": {}}}
{"case": "gpu-qwen2-vl-2b-infer-2img-448-p256-n128", "rc": 4, "seconds": 3.0, "report": {"outcome": "did not fit", "where": "generating", "measured": {"allocated": 85000000000, "reserved": 85000000000, "gpu_used": 85017493504, "gpu_used_before": 536870912}, "scenario": {"model": "qwen2-vl-2b", "mode": "infer", "infer": {"images": 2}}, "estimate": {}}}
JSON
echo '{"about": "synthetic", "cases": []}' >"$tmp/synthetic-measured.json"
python3 "$root/scripts/verify_gpu.py" ingest --name synthetic --date 2026-11-27 --runs-dir "$tmp/runs" \
  --measured "$tmp/synthetic-measured.json" "$tmp/synthetic" >/dev/null
python3 - "$tmp/synthetic-measured.json" <<'PY'
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
got = [(c["case"], c["quantity"], c["outcome"], c["published"]) for c in cases]
want = [("gpu-flan-t5-base-train-mb8-s512-t128", "peak_allocated", "fit", 6144.0),
        ("gpu-flan-t5-base-train-mb8-s512-t128", "gpu_used", "fit", 8192.0),
        ("gpu-qwen2-vl-2b-infer-2img-448-p256-n128", "oom", "oom", 81079.0)]
assert got == want, got
assert cases[0]["scenario"]["train"]["target_len"] == 128 and cases[2]["scenario"]["infer"]["images"] == 2
assert cases[0]["setting"]["verify_script_args"][:2] == ["--model", "flan-t5-base"]
PY
echo "verify_gpu: $want plan cases generate; measured.json matches the committed runs; new families ingest"
