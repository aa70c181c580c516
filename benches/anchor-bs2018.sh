#!/usr/bin/env bash
# Beside the anchor: Bernstein & Sheldon 2018's public code
# (gbernstein6/private_bayesian_expfam, on no package registry) against privpost's
# calibration/beta_bernoulli on the same settings, in one run. Not run in CI.
#   usage: benches/anchor-bs2018.sh CHECKOUT [REPLICATIONS] [beta|dirichlet|both]
#          (defaults 200, both)
# CHECKOUT is a local checkout of their repository (a work tree; e.g. `git worktree add`
# from a mirror). Their code is imported from there as published, in a temporary venv
# (numpy, scipy); nothing of it is copied into privpost. Settings: Beta(10, 10), n ∈ {100,
# 1000}, ε ∈ {0.1, 1}; their Gibbs sampler (500 burn-in, 1000 kept) and their naive
# update against privpost's `count_gibbs` (the same sampler, same sweeps) and `count_naive`.
# Reports, per setting, the largest |ĉ_theirs(γ) − ĉ_privpost(γ)| over the 19 levels
# against the two-sample Monte Carlo scale 2·√(2γ(1−γ)/R), and the CPU seconds per
# Gibbs posterior of each (one core each; privpost's from its task seconds ÷ posteriors).
# Dirichlet: their Dirichlet_Multinomial (Dirichlet(5, 5, 5), K = 3) beside privpost's
# calibration/dirichlet `count_gibbs` and `count_naive`, n ∈ {100, 1000}, Laplace scale
# b ∈ {20, 2} on the two free counts (privpost ε = 0.1, 1 with Δ = 2; their code's Δ = 1
# would give this b at ε = 0.05, 0.5), coverage of θ₁ and θ₂. Their rejection loop cannot
# run as published (benches/anchor/bs2018_dirichlet.py says what it changes, at run time).
set -euo pipefail
cd "$(dirname "$0")/.."
checkout="${1:?usage: benches/anchor-bs2018.sh CHECKOUT [REPLICATIONS]}"
reps="${2:-200}"
family="${3:-both}"
case $family in beta|dirichlet|both) ;; *) echo "anchor-bs2018.sh: FAMILY=$family (allowed: beta, dirichlet, both)" >&2; exit 2 ;; esac
if [ ! -f "$checkout/Bounded_Suff_Stats/Gibbs.py" ]; then
  echo "anchor-bs2018.sh: $checkout: no Bounded_Suff_Stats/Gibbs.py (allowed: a work tree of gbernstein6/private_bayesian_expfam)" >&2
  exit 2
fi
case $reps in ''|*[!0-9]*|0) echo "anchor-bs2018.sh: REPLICATIONS=$reps (allowed: a whole number ≥ 1)" >&2; exit 2 ;; esac
bin="${CARGO_TARGET_DIR:-target}/release/privpost"
cargo build --release --locked -q
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --disable-pip-version-check numpy==1.26.4 scipy==1.13.1
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
if [ "$family" != dirichlet ]; then
for n in 100 1000; do
  for eps in 0.1 1; do
    taskset -c 0 "$tmp/venv/bin/python" benches/anchor/bs2018_harness.py "$checkout" "$n" "$eps" "$reps" 1 >> "$tmp/theirs.jsonl"
    out="$tmp/ours-$n-$eps"
    taskset -c 0 "$bin" run calibration/beta_bernoulli --quiet --no-cache -j 1 --out "$out" \
      --set "n_values=[$n]" --set "epsilons=[$eps]" --set "replications=$reps" \
      --set "replications_per_task=$reps" --set 'methods=["count_naive"]' > /dev/null
    taskset -c 0 "$bin" run calibration/beta_bernoulli --quiet --no-cache -j 1 --out "$out-gibbs" \
      --set "n_values=[$n]" --set "epsilons=[$eps]" --set "replications=$reps" \
      --set "replications_per_task=$reps" --set 'methods=["count_gibbs"]' > /dev/null
  done
done
"$tmp/venv/bin/python" - "$tmp" "$reps" <<'PY'
import csv, glob, json, math, sys
tmp, reps = sys.argv[1], int(sys.argv[2])
theirs = [json.loads(l) for l in open(f"{tmp}/theirs.jsonl")]
def ours(folder, method):
    d = glob.glob(f"{folder}/calibration/beta_bernoulli*/coverage.csv")[0]
    rows = [r for r in csv.DictReader(open(d)) if r["method"] == method]
    return [float(r["coverage"]) for r in rows]
def cpu(folder):
    m = json.load(open(glob.glob(f"{folder}/calibration/beta_bernoulli*/manifest.json")[0]))
    return m["timings"]["tasks_seconds"] / reps
levels = [0.05 * k for k in range(1, 20)]
print(f"{'n':>5} {'ε':>4}  method       max|Δcoverage|  MC scale  verdict      CPU s/posterior theirs  privpost  ratio")
for t in theirs:
    n, e = t["n"], t["epsilon"]
    base = f"{tmp}/ours-{n}-{e:g}"
    for m, folder in [("count_naive", base), ("count_gibbs", base + "-gibbs")]:
        c = ours(folder, m)
        d = max(abs(a - b) for a, b in zip(t[m], c))
        scale = max(2 * math.sqrt(2 * l * (1 - l) / reps) for l in levels)
        verdict = "agree" if d <= scale else "DIFFER"
        if m == "count_gibbs":
            th, us = t["gibbs_cpu_seconds_per_posterior"], cpu(folder)
            print(f"{n:>5} {e:>4}  {m:<12} {d:>13.3f}  {scale:>8.3f}  {verdict:<11}  {th:>22.4f}  {us:>8.5f}  {th/us:>5.0f}x")
        else:
            print(f"{n:>5} {e:>4}  {m:<12} {d:>13.3f}  {scale:>8.3f}  {verdict}")
PY
fi

if [ "$family" != beta ]; then
for n in 100 1000; do
  for eps in 0.1 1; do
    b=$(python3 -c "print(2 / $eps)")
    taskset -c 0 "$tmp/venv/bin/python" benches/anchor/bs2018_dirichlet.py "$checkout" "$n" "$b" "$reps" 1 >> "$tmp/theirs-dir.jsonl"
    for m in count_naive count_gibbs; do
      taskset -c 0 "$bin" run calibration/dirichlet --quiet --no-cache -j 1 --out "$tmp/dir-$n-$eps-$m" \
        --set "n_values=[$n]" --set "epsilons=[$eps]" --set "replications=$reps" \
        --set "replications_per_task=$reps" --set "methods=[\"$m\"]" > /dev/null
    done
  done
done
"$tmp/venv/bin/python" - "$tmp" "$reps" <<'PY'
import csv, glob, json, math, sys
tmp, reps = sys.argv[1], int(sys.argv[2])
levels = [0.05 * k for k in range(1, 20)]
print("Dirichlet-Multinomial, K = 3 (their code with the rejection loop fixed at run time)")
print(f"{'n':>5} {'b':>4}  {'method:quantity':<20} max|Δcoverage|  MC scale  KS 95%  verdict    theirs failed  CPU s/posterior theirs  privpost  ratio")
for t in (json.loads(l) for l in open(f"{tmp}/theirs-dir.jsonl")):
    n, b = t["n"], t["scale"]
    eps = 2 / b
    for m in ["count_naive", "count_gibbs"]:
        folder = glob.glob(f"{tmp}/dir-{n}-{eps:g}-{m}/calibration/dirichlet*")[0]
        rows = list(csv.DictReader(open(f"{folder}/coverage.csv")))
        for q in ["theta1", "theta2"]:
            ours = [float(r["coverage"]) for r in rows if r["method"] == m and r["quantity"] == q]
            theirs = t[f"{m}:{q}"]
            done = reps - t["failed"]
            d = max(abs(a - c) for a, c in zip(theirs, ours))
            # as for the Beta-Binomial: twice the largest standard error of a difference
            scale = max(2 * math.sqrt(l * (1 - l) * (1 / done + 1 / reps)) for l in levels)
            # simultaneous over the levels: the two-sample Kolmogorov-Smirnov 95 % bound
            ks = 1.36 * math.sqrt(1 / done + 1 / reps)
            verdict = "agree" if d <= scale else ("within KS" if d <= ks else "DIFFER")
            line = f"{n:>5} {b:>4g}  {m + ':' + q:<20} {d:>14.3f}  {scale:>8.3f}  {ks:>6.3f}  {verdict:<9}  {t['failed']:>13}"
            if m == "count_gibbs" and q == "theta1":
                man = json.load(open(f"{folder}/manifest.json"))
                us = man["timings"]["tasks_seconds"] / reps
                th = t["gibbs_cpu_seconds_per_posterior"]
                line += f"  {th:>22.4f}  {us:>8.5f}  {th / us:>5.0f}x"
            print(line)
PY
fi
