#!/usr/bin/env bash
# Räisä et al.'s banana on their own inputs, their code beside privpost's: the
# penalty algorithm and DP-HMC, mean MMD ± s.e. over REPEATS repeats at each ε.
#   usage: benches/raisa2021-authors.sh CHECKOUT [EPSILONS] [REPEATS]
# CHECKOUT is a work tree of DPBayes/DP-HMC-experiments (on no package registry).
# Their code runs on JAX 0.4.30 — the random stream their results were drawn with
# (threefry, not partitionable; JAX changed the default in 0.5) — from a temporary
# patched copy (benches/anchor/raisa2021_patch.py: jax.ops.index_update → .at[].set)
# in a temporary venv; privpost runs `--set inputs=authors`: the same data, reference
# draws and starts (crates/privpost-core/src/jax_random.rs). Default: ε = 2,4,6,8,10,12,15 and 30 repeats
# (the full figure's settings); `EPSILONS=2,8 REPEATS=30` made
# tests/reference/raisa2021-authors-mmd.csv. Not run in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout="${1:?usage: benches/raisa2021-authors.sh CHECKOUT [EPSILONS] [REPEATS]}"
epsilons="${2:-2,4,6,8,10,12,15}"
repeats="${3:-30}"
if [ ! -f "$checkout/hmc.py" ] || [ ! -f "$checkout/banana_model.py" ]; then
  echo "raisa2021-authors.sh: $checkout: no hmc.py / banana_model.py (allowed: a work tree of DPBayes/DP-HMC-experiments)" >&2
  exit 2
fi
bin="${CARGO_TARGET_DIR:-target}/release/privpost"
cargo build --release --locked -q
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/code/params"
cp "$checkout"/*.py "$tmp/code/" && cp "$checkout"/params/*.py "$tmp/code/params/"
python3 benches/anchor/raisa2021_patch.py "$tmp/code" >/dev/null
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --disable-pip-version-check jax==0.4.30 jaxlib==0.4.30 numpy==2.4.6 scipy==1.17.1 pandas==3.1.1 numba==0.68.1 matplotlib==3.11.2 fourier-accountant==0.12.11
(cd "$tmp/code" && "$tmp/venv/bin/python" "$OLDPWD/benches/anchor/raisa2021_accuracy.py" "$epsilons" 0 "$repeats") > "$tmp/theirs.csv"
published=$(python3 -c "
e = [float(x) for x in '$epsilons'.split(',')]
table = {2.0: 31410, 4.0: 109701, 6.0: 223642, 8.0: 366548, 10.0: 533749, 12.0: 721774, 15.0: 1037134}
print(','.join(str(table.get(x, 31410)) for x in e))")
"$bin" run raisa2021/banana --set inputs=authors --set 'methods=["penalty","dp_hmc"]' \
  --set "epsilons=[$epsilons]" --set "sgld.published_iterations=[$published]" \
  --set "sgnht.published_iterations=[$published]" --set "repeats=$repeats" -q --out "$tmp/pp" >/dev/null
python3 - "$tmp/theirs.csv" "$(ls -d "$tmp"/pp/raisa2021/banana@*)/data.csv" <<'PY'
import csv, math, sys
def table(path):
    out = {}
    for r in csv.DictReader(open(path)):
        if r["mmd"]:
            out.setdefault((r["method"], float(r["epsilon"])), []).append(float(r["mmd"]))
    return out
def stat(v):
    m = sum(v) / len(v)
    return m, math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1) / len(v))
theirs, ours = table(sys.argv[1]), table(sys.argv[2])
print("banana on the authors' inputs: mean MMD ± s.e. over repeats")
print(f"{'method':8} {'ε':>5} {'theirs':>16} {'privpost':>16} {'z':>6}")
for key in sorted(theirs):
    (a, sa), (b, sb) = stat(theirs[key]), stat(ours[key])
    print(f"{key[0]:8} {key[1]:>5} {a:>9.3f} ± {sa:.3f} {b:>9.3f} ± {sb:.3f} {(b - a) / math.hypot(sa, sb):>6.2f}")
PY
