#!/usr/bin/env bash
# Foulds Fig. 6's data-augmentation series (laplace_noise_aware_da) on the
# Afghanistan HMM panel alone (2 splits, ε = 0.1 and 1; one panel draws its own
# synthetic data, so its levels differ from the figure's): is its gap to the naive
# Laplace reading the chain's or the posterior's? The same runs at 200, 1,000 and
# 3,000 sweeps (half burn-in), and at 200 sweeps with the emission prior β = 1
# instead of the figure's 0.1. Prints the mean test log-likelihood per held-out
# event (± s.e. over the splits). About two minutes on 2 cores.
#   scripts/fig6-da-checks.sh [OUT]     (default: a temporary folder)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-$(mktemp -d)}"
bin="${CARGO_TARGET_DIR:-target}/release/privpost"
[ -x "$bin" ] || cargo build --release --locked --quiet
common=(--set 'panels=["hmm:afghanistan"]' --set 'epsilons=[0.1,1.0]' --set splits=2
        --set 'mechanisms=["non_private","laplace"]' -q --no-cache)
for run in "200 100 0.1" "1000 500 0.1" "3000 1500 0.1" "200 100 1.0"; do
    set -- $run
    "$bin" run foulds2016/fig6 "${common[@]}" --set "sweeps=$1" --set "burn_in=$2" \
        --set "beta=$3" --out "$out/sweeps-$1-beta-$3" >/dev/null
done
python3 - "$out" <<'PY'
import csv, glob, sys
for run in ("200-beta-0.1", "1000-beta-0.1", "3000-beta-0.1", "200-beta-1.0"):
    path = glob.glob(f"{sys.argv[1]}/sweeps-{run}/foulds2016/fig6@*/summary.csv")[0]
    d = {(r["mechanism"], r["epsilon"]): (float(r["mean"]), float(r["se"])) for r in csv.DictReader(open(path))}
    sweeps, beta = run.split("-beta-")
    print(f"sweeps = {sweeps}, beta = {beta}: non-private {d[('non_private', '0.1')][0]:.3f}")
    for e in ("0.1", "1.0"):
        cells = [f"{m} {d[(m, e)][0]:.3f} ± {d[(m, e)][1]:.3f}"
                 for m in ("laplace", "laplace_noise_aware_da")]
        print(f"  ε = {e}: " + "; ".join(cells))
PY
