#!/usr/bin/env bash
# Speed of data-augmentation MCMC (crates/privpost-core/src/damcmc) through `privpost infer`, one core:
# seconds per sweep over n records and ESS per second, for the record-wise kernel
# (Ju et al. 2022) and SOMA (Xiong & Ju 2025), on a Dirichlet-Categorical release
# (K = 3, Laplace b = 2/ε on every count, ε ∈ {1, 3, 10}). Not run in CI.
#   usage: benches/damcmc.sh [N ...]     (default: 1000 100000)
# Prints one line per (n, kernel): wall seconds of the sampling (manifest
# wall_seconds, 4 chains one after another on one worker), seconds per sweep of one
# chain, the smallest bulk ESS over θ₁..θ₃, ESS per second, and the acceptance of the
# proposals (offers) that would change the counts.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -q
bin=target/release/privpost
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1000 100000)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%8s %4s %12s %10s %14s %9s %10s %11s\n' n eps kernel seconds s_per_sweep min_ess ess_per_s acceptance
for n in "${sizes[@]}"; do
  case $n in ''|*[!0-9]*|0) echo "damcmc.sh: N=$n (allowed: a whole number ≥ 1)" >&2; exit 2 ;; esac
  third=$(python3 -c "print(round($n/3 + 0.7, 1))")
  for eps in 1 3 10; do
  scale=$(python3 -c "print(2 / $eps)")
  for kernel in record_wise soma; do
    iters=$(( n >= 100000 ? 200 : 1000 ))
    cat > "$tmp/r.toml" <<TOML
model = "dirichlet_categorical"
prior = { alpha = [1.0, 1.0, 1.0] }
n = $n
[release]
mechanism = "laplace"
scale = $scale
values = [$third, $third, $third]
[sampler]
kernel = "$kernel"
chains = 4
warmup = $(( iters / 5 ))
draws = $iters
TOML
    "$bin" infer "$tmp/r.toml" --out "$tmp/out" --jobs 1 -q > /dev/null
    python3 - "$tmp/out/infer/r" "$n" "$kernel" "$iters" "$eps" <<'PY'
import csv, json, sys
d, n, kernel, iters, eps = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
m = json.load(open(f"{d}/manifest.json"))
ess = min(float(r["ess_bulk"]) for r in csv.DictReader(open(f"{d}/summary.csv")))
secs = m["wall_seconds"]
sweeps = 4 * (iters + iters // 5)
acc = m["changing_proposals_accepted"]
print(f"{n:8d} {eps:>4} {kernel:>12} {secs:10.3f} {secs / sweeps:14.2e} {ess:9.0f} {ess / secs:10.0f} {acc:11.4f}")
PY
  done
  done
done
