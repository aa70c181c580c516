#!/usr/bin/env bash
# Beside Räisä, Koskela, Honkela 2021: their DP-HMC and penalty chains
# (DPBayes/DP-HMC-experiments, on no package registry) against privpost's on the
# banana at ε = 6 (4 chains, their hyperparameters, the same iteration counts), timed
# in one run on this machine. Not run in CI.
#   usage: benches/raisa2021-jax.sh CHECKOUT
# CHECKOUT is a local work tree of their repository (e.g. `git worktree add` from the
# mirror `fetch` gives). Their pinned JAX (0.2.13 / jaxlib 0.1.67) cannot be installed
# from the package registry (jaxlib before 0.4.13 is not there), so a temporary copy of
# their code is patched at run time (benches/anchor/raisa2021_patch.py: the removed
# jax.ops.index_update → .at[].set, nothing else) and run on the current JAX in a
# temporary venv, one CPU thread each side. Nothing of their code enters privpost.
# Random stream: the current JAX draws with the partitionable threefry stream (the
# default since JAX 0.5), not the one their results were drawn with, so their data,
# reference draws and starts here are not theirs: right for timing, wrong for any
# accuracy comparison. For accuracy, privpost's `--set inputs=authors` reproduces
# their inputs on the old stream (crates/privpost-core/src/jax_random.rs), to set beside their code on
# JAX 0.4.x.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout="${1:?usage: benches/raisa2021-jax.sh CHECKOUT}"
if [ ! -f "$checkout/hmc.py" ] || [ ! -f "$checkout/dp_penalty.py" ]; then
  echo "raisa2021-jax.sh: $checkout: no hmc.py / dp_penalty.py (allowed: a work tree of DPBayes/DP-HMC-experiments)" >&2
  exit 2
fi
bin="${CARGO_TARGET_DIR:-target}/release/privpost"
cargo build --release --locked -q
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$checkout"/*.py "$tmp/" && mkdir -p "$tmp/params" && cp "$checkout"/params/*.py "$tmp/params/"
python3 benches/anchor/raisa2021_patch.py "$tmp"
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --disable-pip-version-check jax==0.10.2 jaxlib==0.10.2 numpy==2.4.6 scipy==1.17.1 pandas==3.1.1 numba==0.68.1 matplotlib==3.11.2 fourier-accountant==0.12.11
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
# privpost's per-chain counts at ε = 6 (the authors' adp_iters ÷ 4)
hmc_iters=192
pen_iters=1034
cfg=configs/raisa2021/banana.toml
for m in dp_hmc penalty; do
  out="$tmp/pp-$m"
  "$bin" run "$cfg" --set "methods=[\"$m\"]" --set 'epsilons=[6.0]' \
    --set 'sgld.published_iterations=[223642]' --set 'sgnht.published_iterations=[223642]' \
    --set repeats=1 -j1 -q --out "$out" >/dev/null
  secs=$(python3 -c "import json,glob; print(json.load(open(glob.glob('$out/raisa2021/*/manifest.json')[0]))['timings']['tasks_seconds'])")
  it=$(python3 -c "import csv,glob; print(next(csv.DictReader(open(glob.glob('$out/raisa2021/*/data.csv')[0])))['iterations_per_chain'])")
  echo "privpost $m $secs $it"
done > "$tmp/ours.txt"
(cd "$tmp" && "$tmp/venv/bin/python" "$OLDPWD/benches/anchor/raisa2021_time.py" "$hmc_iters" "$pen_iters") > "$tmp/theirs.txt"
python3 - "$tmp/ours.txt" "$tmp/theirs.txt" <<'PY'
import sys
ours = {l.split()[1]: (float(l.split()[2]), int(l.split()[3])) for l in open(sys.argv[1])}
theirs = {l.split()[0]: float(l.split()[1]) for l in open(sys.argv[2])}
print("banana, ε = 6, 4 chains, n = 10⁵, one thread each, measured in one run")
print(f"{'method':10} {'iters/chain':>11} {'theirs s':>10} {'privpost s':>11} {'ratio':>7}")
for m in ["dp_hmc", "penalty"]:
    s, it = ours[m]
    print(f"{m:10} {it:>11} {theirs[m]:>10.2f} {s:>11.2f} {theirs[m] / s:>7.1f}")
PY
