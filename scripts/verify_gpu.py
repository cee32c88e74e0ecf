#!/usr/bin/env python3
"""Measure a spread of scenarios on a real GPU with the vramlens verify script (issue 14).

Three steps, each run on purpose (never by the tests):

  scripts/verify_gpu.py gen    [--plan P] [--cli build/native/cli/vramlens] [--cases ID,ID...] OUTDIR
      here: one verify script per case of the plan (tests/data/accuracy/gpu-runs/plan.json), or per
      case named by --cases in that order, every case on the GPU preset --gpu (default h100-80gb: the
      estimate's "fits" and its CUDA context are that GPU's), and OUTDIR/manifest.json.
  python3 verify_gpu.py run    [--budget SECONDS] [--timeout SECONDS] DIR OUT
      on the GPU machine (needs only python3 with torch, transformers, peft): runs each script
      alone (one process per case, so each starts with a fresh CUDA context), in plan order, until
      the budget is spent; writes OUT/results.jsonl (one line per case: exit status, seconds,
      the script's JSON report or the tail of its error) and OUT/env.json (GPU, driver, versions).
  scripts/verify_gpu.py ingest --name DATE-GPU --date DATE [--gpu PRESET] RESULTS_DIR [--measured M] [--runs-dir D]
      here: copies results.jsonl and env.json beside the plan (gpu-runs/DATE-GPU/) and adds one
      measured case per reading to measured.json (peak allocated and GPU memory used for a run that
      fitted, an OOM bound for one that did not), split by the measured set's rule.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLAN = os.path.join(ROOT, "tests/data/accuracy/gpu-runs/plan.json")
GPU_PRESET = "h100-80gb"
MIB = 1024 ** 2


def gen(args):
    plan = json.load(open(args.plan))
    cases = plan["cases"]
    if args.cases:  # a subset, in the order given (the runner runs them in manifest order until its budget is spent)
        by_id = {c["case"]: c for c in cases}
        unknown = [i for i in args.cases.split(",") if i not in by_id]
        if unknown:
            sys.exit("--cases: not in %s: %s" % (args.plan, ", ".join(unknown)))
        cases = [by_id[i] for i in args.cases.split(",")]
    os.makedirs(args.outdir, exist_ok=True)
    manifest = []
    for c in cases:
        cmd = [args.cli, "verify-script", "--gpu", args.gpu] + c["args"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("%s: vramlens verify-script failed:\n%s" % (c["case"], p.stderr))
        name = c["case"] + ".py"
        with open(os.path.join(args.outdir, name), "w") as f:
            f.write(p.stdout)
        manifest.append({"case": c["case"], "script": name, "force": bool(c.get("force")), "env": c.get("env", {})})
    with open(os.path.join(args.outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print("%d scripts in %s" % (len(manifest), args.outdir))


def environment():
    env = {"python": sys.version.split()[0], "PYTORCH_CUDA_ALLOC_CONF": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")}
    for mod in ("torch", "transformers", "peft", "accelerate"):
        try:
            env[mod] = __import__(mod).__version__
        except Exception as e:  # recorded, not fatal: the scripts say what they need
            env[mod] = "not available (%s)" % e
    try:
        import torch
        env["cuda_runtime"] = torch.version.cuda
        env["gpu"] = torch.cuda.get_device_name()
        env["gpu_total_bytes"] = torch.cuda.get_device_properties(0).total_memory
    except Exception as e:
        env["gpu"] = "not available (%s)" % e
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        env["nvidia_smi"] = q.stdout.strip()
    except Exception as e:
        env["nvidia_smi"] = "not available (%s)" % e
    return env


def run(args):
    manifest = json.load(open(os.path.join(args.dir, "manifest.json")))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "env.json"), "w") as f:
        json.dump(environment(), f, indent=1)
    start = time.time()
    results = os.path.join(args.out, "results.jsonl")
    with open(results, "w") as out:
        for m in manifest:
            left = args.budget - (time.time() - start)
            if left < 20:
                print("budget spent: %s and later cases not run" % m["case"], flush=True)
                break
            cmd = [sys.executable, os.path.join(args.dir, m["script"])] + (["--force"] if m["force"] else [])
            t0 = time.time()
            env = dict(os.environ, **m.get("env", {}))  # e.g. PYTORCH_CUDA_ALLOC_CONF for an allocator setting
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=min(args.timeout, left), env=env)
                rc, stdout, stderr = p.returncode, p.stdout, p.stderr
            except subprocess.TimeoutExpired as e:
                rc, stdout, stderr = "timeout", (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), ""
            report = None
            for line in stdout.splitlines():
                if line.startswith('{"outcome"'):
                    report = json.loads(line)
            row = {"case": m["case"], "rc": rc, "seconds": round(time.time() - t0, 1), "report": report}
            if report is None:
                row["stdout_tail"] = stdout[-1500:]
                row["stderr_tail"] = stderr[-3000:]
            out.write(json.dumps(row) + "\n")
            out.flush()
            measured = report["measured"] if report else None
            print("%-48s rc=%s %5.1fs %s" % (m["case"], rc, row["seconds"],
                  "alloc %.2f GiB used %.2f GiB est %.2f GiB" % (measured["allocated"] / 1024 ** 3, measured["gpu_used"] / 1024 ** 3,
                                                             report["estimate"]["total_bytes"] / 1024 ** 3) if report else
                  (stderr.strip().splitlines() or ["?"])[-1][:200]), flush=True)


def split_of(case):  # the measured set's rule (docs/measured-set.md)
    return "holdout" if int(hashlib.sha256(case.encode("utf-8")).hexdigest()[:8], 16) % 3 == 0 else "calibrate"


def ingest(args):
    env = json.load(open(os.path.join(args.results, "env.json")))
    rows = [json.loads(line) for line in open(os.path.join(args.results, "results.jsonl")) if line.strip()]
    last = {r["case"]: i for i, r in enumerate(rows)}  # a case run twice (a rerun with more counters): its last run
    rows = [r for i, r in enumerate(rows) if last[r["case"]] == i]
    plan = {c["case"]: c for c in json.load(open(args.plan))["cases"]}
    gpu = env["gpu"]
    folder = os.path.join(args.runs_dir, args.name)
    os.makedirs(folder, exist_ok=True)
    # The GPU preset the scripts were generated for: --gpu, else the run folder's run.json (written by the
    # first ingest that named it, so that a re-ingest of the committed folder gives the same cases).
    run_json = os.path.join(args.results, "run.json")
    run_info = json.load(open(run_json)) if os.path.exists(run_json) else {}
    gpu_preset = args.gpu or run_info.get("gpu_preset", GPU_PRESET)
    if args.gpu or run_info:
        run_info["gpu_preset"] = gpu_preset
        with open(os.path.join(folder, "run.json"), "w") as f:
            json.dump(run_info, f, indent=1)
            f.write("\n")
    # run.json's "config_as_run": {preset id: {config key: value}}: what the built model had where the preset's
    # config has since changed (a key the preset lacked then, so the library's default applied). Such a case's
    # scenario names the model as {"hf_config": the preset's config with those values}, so that it estimates
    # what ran, not today's preset.
    presets = {m["id"]: m for m in json.load(open(os.path.join(ROOT, "assets/presets/models.json")))["models"]}
    for f in ("env.json", "results.jsonl"):
        src_path, dst_path = os.path.join(args.results, f), os.path.join(folder, f)
        if os.path.abspath(src_path) != os.path.abspath(dst_path):
            with open(src_path) as src, open(dst_path, "w") as dst:
                dst.write(src.read())
    rel = "tests/data/accuracy/gpu-runs/" + args.name  # where the committed copy lives
    software = "PyTorch %s (CUDA %s), Transformers %s, PEFT %s, driver/GPU: %s" % (
        env.get("torch"), env.get("cuda_runtime"), env.get("transformers"), env.get("peft"), env.get("nvidia_smi"))
    doc = json.load(open(args.measured))
    ran = {r["case"] for r in rows if r.get("report")}  # a case this run did not measure keeps any other run's reading
    # A re-ingest replaces this run's cases where they stand (no other run's), so ingesting every run again
    # gives the same file whatever the order.
    at = next((i for i, c in enumerate(doc["cases"]) if c["case"] in ran), len(doc["cases"]))
    kept = [c for c in doc["cases"] if c["case"] not in ran]
    at -= sum(1 for c in doc["cases"][:at] if c["case"] in ran)
    new_cases = []
    added = 0
    for r in rows:
        rep = r.get("report")
        if not rep:
            continue
        case = r["case"]
        scenario = rep["scenario"]
        as_run = run_info.get("config_as_run", {}).get(scenario.get("model"))
        if as_run is not None:
            scenario = dict(scenario, model={"hf_config": dict(presets[scenario["model"]]["config"], **as_run)})
        if "expandable_segments:True" in plan.get(case, {}).get("env", {}).get("PYTORCH_CUDA_ALLOC_CONF", ""):
            # run with the allocator setting in the environment (before the scenario field existed)
            scenario = dict(scenario, overheads=dict(scenario.get("overheads", {}), expandable_segments=True))
        mode = scenario.get("mode", "train")
        base = {
            "case": case, "kind": "measured", "split": split_of(case), "expressible": True,
            "framework": {"infer": "transformers generate()", "train": "PyTorch + transformers (verify script training step)",
                          "finetune": "PEFT LoRA + transformers (verify script training step)"}.get(mode, mode),
            "workload": {"infer": "inference", "train": "training", "finetune": "finetune"}.get(mode, mode),
            "source": "vramlens verify script run on a lent GPU by the project (raw output in %s)" % rel,
            "url": rel + "/results.jsonl",
            "date": args.date, "hardware": "1x " + gpu, "software": software,
            "setting": dict({"verify_script_args": plan[case]["args"] if case in plan else None, "gpu_preset": gpu_preset},
                            **({"env": plan[case]["env"]} if case in plan and plan[case].get("env") else {})),
            "confidence": "high",
            "uncertain": "random weights (from_config); the allocator's peak depends on the PyTorch version",
            "scenario": scenario,
        }
        m = rep["measured"]
        if rep["outcome"] == "measured":
            for quantity, value, measure, how in (
                    ("peak_allocated", m["allocated"], "total-minus:overhead.cuda_context,cuda_context,overhead.fragmentation",
                     "torch.cuda.max_memory_allocated() over the step (after building the model)"),
                    # a run that fitted had room: what nvidia-smi shows then (the estimate's shown figure, allocator_reserve.h)
                    ("gpu_used", m["gpu_used"], "shown",
                     "cudaMemGetInfo total - free after the run (torch.cuda.mem_get_info): CUDA context + the allocator's reserve")):
                c = dict(base)
                c.update({"quantity": quantity, "measured_with": how, "quote": "%s = %d bytes" % (quantity, value),
                          "published": round(value / MIB, 1), "unit": "MiB", "outcome": "fit", "measure": measure})
                new_cases.append(c)
                added += 1
        else:
            c = dict(base)
            c.update({"quantity": "oom", "measured_with": "CUDA out of memory while %s (allocator peak %d bytes)" % (rep["where"], m["allocated"]),
                      "quote": "did not fit", "published": round(env["gpu_total_bytes"] / MIB, 1), "unit": "MiB",
                      "bound": "above", "outcome": "oom", "measure": "total"})
            new_cases.append(c)
            added += 1
    doc["cases"] = kept[:at] + new_cases + kept[at:]
    with open(args.measured, "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("%d cases added to %s; results in %s" % (added, args.measured, rel))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--plan", default=PLAN)
    g.add_argument("--cli", default=os.path.join(ROOT, "build/native/cli/vramlens"))
    g.add_argument("--gpu", default=GPU_PRESET, help="GPU preset of the estimates (the GPU the scripts will run on)")
    g.add_argument("--cases", help="comma-separated case ids: only these, in this order (default: the whole plan)")
    g.add_argument("outdir")
    r = sub.add_parser("run")
    r.add_argument("--budget", type=float, default=420)
    r.add_argument("--timeout", type=float, default=150)
    r.add_argument("dir")
    r.add_argument("out")
    i = sub.add_parser("ingest")
    i.add_argument("--plan", default=PLAN)
    i.add_argument("--measured", default=os.path.join(ROOT, "tests/data/accuracy/measured.json"))
    i.add_argument("--name", required=True, help="folder of the run under the runs folder, e.g. 2026-11-25-h100")
    i.add_argument("--runs-dir", default=os.path.dirname(PLAN), help="where the run's folder is written (default: beside the plan)")
    i.add_argument("--date", required=True)
    i.add_argument("--gpu", help="the GPU preset the scripts were generated for (gen --gpu); default: the run folder's "
                                 "run.json, else " + GPU_PRESET)
    i.add_argument("results")
    a = ap.parse_args()
    {"gen": gen, "run": run, "ingest": ingest}[a.cmd](a)


if __name__ == "__main__":
    main()
