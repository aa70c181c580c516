#!/usr/bin/env bash
# Why Foulds Fig. 6's Iraq panel reverses the paper here: the HMM Iraq panel
# at four ε, with the Laplace release clamped (the paper's) and post-processed to
# consistent histograms, beside OPS, on the synthetic iraq preset (100 categories) and
# on the same preset with 20 and 10 categories. Prints the mean test log-likelihood per
# held-out event (10 splits, ± s.e.). About one minute on 2 cores.
#   scripts/fig6-iraq-variants.sh [OUT]     (default: a temporary folder)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-$(mktemp -d)}"
bin="${CARGO_TARGET_DIR:-target}/release/privpost"
[ -x "$bin" ] || cargo build --release --locked --quiet
common=(--set 'panels=["hmm:iraq"]' --set 'epsilons=[0.1,0.5,1.0,5.0]'
        --set 'mechanisms=["non_private","laplace","laplace_consistent","ops_m10","ops_m100"]'
        --set noise_aware=false -q --no-cache)
for k in 100 20 10; do
    extra=()
    [ "$k" = 100 ] || extra=(--set "datasets.iraq.categories=$k")
    "$bin" run foulds2016/fig6 "${common[@]}" "${extra[@]}" --out "$out/categories-$k" >/dev/null
done
python3 - "$out" <<'PY'
import csv, glob, sys
for k in (100, 20, 10):
    path = glob.glob(f"{sys.argv[1]}/categories-{k}/foulds2016/fig6@*/summary.csv")[0]
    d = {(r["mechanism"], r["epsilon"]): (float(r["mean"]), float(r["se"])) for r in csv.DictReader(open(path))}
    base = next(v for (m, _), v in d.items() if m == "non_private")
    print(f"categories = {k}: non-private {base[0]:.3f}")
    for e in ("0.1", "0.5", "1.0", "5.0"):
        cells = [f"{m} {d[(m, e)][0]:.3f} ± {d[(m, e)][1]:.3f}"
                 for m in ("laplace", "laplace_consistent", "ops_m10", "ops_m100")]
        print(f"  ε = {e}: " + "; ".join(cells))
PY
