#!/usr/bin/env bash
# Recomputes the wall-time model's rates (each figure's `rate` in its registry row,
# src/experiments/registry.rs) from the
# manifests of a paper-scale run with no task cached (e.g. `privpost run --all
# --force --out DIR`): per figure, seconds per cost unit = tasks_seconds / the LPT
# makespan in cost units (max(Σ cost / jobs, largest task)), and the fixed part
# = wall_seconds − tasks_seconds (preparing, summary, plot, manifest).
#   scripts/calibrate-estimates.sh DIR     prints, per figure, the `rate` to paste into its row
# A figure whose in-run ETA drifts has a task-cost model that weighs its kinds of
# task wrongly: rerun it with PRIVPOST_TASK_TIMES=FILE (per-task cost and seconds)
# and make seconds / cost_units equal across its tasks (e.g. logreg::SLICE_FLOP_COST).
set -euo pipefail
out="${1:?usage: scripts/calibrate-estimates.sh DIR (the output folder of a paper-scale run)}"
if [ ! -d "$out" ]; then
    echo "calibrate-estimates.sh: $out: not a directory (allowed: a paper-scale run's output folder)" >&2
    exit 2
fi
python3 - "$out" <<'PY'
import json, pathlib, sys
rows = []
for m in sorted(pathlib.Path(sys.argv[1]).glob("*/*/manifest.json")):
    if "@" in m.parent.name:
        continue
    j = json.loads(m.read_text())
    t = j["timings"]
    if j.get("profile") or j.get("overrides") or j["cache"]["tasks_from_cache"]:
        print(f"// skipped {j['figure']}: not a paper-scale run with every task computed", file=sys.stderr)
        continue
    total, big, jobs = t["cost_units"], t["max_task_cost_units"], j["jobs"]
    span = max(total / jobs, big)
    per_unit = t["tasks_seconds"] / span
    fixed = max(j["wall_seconds"] - t["tasks_seconds"], 0.0)
    rows.append((j["figure"], per_unit, fixed, total, big))
for fig, per_unit, fixed, total, big in rows:
    print(f"// {fig}")
    print(f"rate: Some(Rate {{ per_unit: {per_unit:.4e}, fixed: {fixed:.3}, "
          f"paper: Cost {{ total: {total:.6e}, max: {big:.6e} }} }}),")
PY
