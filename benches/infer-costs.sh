#!/usr/bin/env bash
# The CPU cost of one record proposal of `privpost infer`'s record-wise kernel, per
# model and noise law: the numbers behind `config::release::proposal_ns`, which sizes
# a release's work before sampling and refuses it above the cap with the estimate.
# Each case runs one chain on one worker with a fixed number of proposals and
# prints CPU seconds (the manifest's cpu_seconds, sampling only) per proposal.
#   usage: benches/infer-costs.sh [PROPOSALS]   (default 2000000)
# Not run in CI. Run it on an idle machine; note the machine and load with the numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -q
bin=target/release/privpost
total=${1:-2000000}
case $total in ''|*[!0-9]*|0) echo "infer-costs.sh: PROPOSALS=$total (allowed: a whole number ≥ 1)" >&2; exit 2 ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-28s %-20s %8s %10s %12s\n' model law n proposals ns_per_proposal
run() { # name law n toml-body
  local name=$1 law=$2 n=$3 body=$4
  local iters=$(( total / n )); [ "$iters" -lt 2 ] && iters=2
  printf '%s\n[sampler]\nchains = 1\nwarmup = 0\ndraws = %d\nseed = 1\n' "$body" "$iters" > "$tmp/r.toml"
  "$bin" infer "$tmp/r.toml" --out "$tmp/out" --jobs 1 -q >/dev/null 2>&1 || { echo "$name $law: failed" >&2; return; }
  python3 - "$tmp/out/infer/r/manifest.json" "$name" "$law" "$n" "$iters" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
n, iters = int(sys.argv[4]), int(sys.argv[5])
p = n * iters
print(f"{sys.argv[2]:<28} {sys.argv[3]:<20} {n:>8} {p:>10} {1e9 * m['cpu_seconds'] / p:>12.1f}")
PY
  rm -rf "$tmp/out"
}
alpha() { python3 -c "print(', '.join(['1.0'] * $1))"; }
counts() { python3 -c "n=$1; k=$2; print(', '.join([str(round(n / k, 1))] * k))"; }
icounts() { python3 -c "n=$1; k=$2; print(', '.join([str(n // k)] * k))"; }
for law in laplace gaussian discrete_laplace discrete_gaussian discrete_gaussian_clamped; do
  for k in 3 100; do
    n=10000
    mech=${law%_clamped}; clamp=""
    [ "$law" != "$mech" ] && clamp='clamp = { lower = 0.0 }'
    vals=$(counts $n $k); case $mech in discrete_*) vals=$(icounts $n $k) ;; esac
    run "dirichlet_categorical K=$k" "$law" $n "model = \"dirichlet_categorical\"
prior = { alpha = [$(alpha $k)] }
n = $n
[release]
mechanism = \"$mech\"
scale = 20.0
values = [$vals]
$clamp"
  done
done
for law in laplace gaussian; do
  for feats in 2 10; do
    n=10000
    answers=$(python3 -c "print('[' + ', '.join(['[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]'] * $feats) + ']')")
    vals=$(counts $n 6 | python3 -c "import sys; v=sys.stdin.read().strip(); print(', '.join([v] * $feats))")
    run "naive_bayes I=2 J=3 K=$feats" "$law" $n "model = \"naive_bayes\"
prior = { classes = [1.0, 1.0], answers = $answers }
n = $n
[release]
mechanism = \"$law\"
scale = 20.0
values = [$vals]"
  done
  for p in 2 6; do
    n=2000
    q=$(( p + 1 )); len=$(( q + 1 + q * (q + 1) / 2 ))
    vals=$(python3 -c "print(', '.join(['10.0'] * $len))")
    mean=$(python3 -c "print(', '.join(['0.0'] * $p))")
    cov=$(python3 -c "p=$p; print(', '.join('[' + ', '.join('1.0' if i == j else '0.0' for j in range(p)) + ']' for i in range(p)))")
    run "linear_regression p=$p" "$law" $n "model = \"linear_regression\"
prior = { tau = 1.0 }
n = $n
[regression]
mean = [$mean]
cov = [$cov]
noise_variance = 1.0
x_bounds = [-3.0, 3.0]
y_bounds = [-4.0, 4.0]
[release]
mechanism = \"$law\"
scale = 2000.0
values = [$vals]"
  done
done
