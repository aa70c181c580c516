#!/usr/bin/env bash
# Effective samples per CPU-second of NumPyro's NUTS on the identical posteriors that
# benches/glm_sampler.rs measures (true posterior of Geumlek et al. §5.2: prior
# N(0, (nβ₀)⁻¹I), β₀ = 1e-3, logistic likelihood, data exported by `privpost data export`).
# NumPyro and JAX are installed into a temporary virtual environment, removed afterwards.
# One chain, 1000 warm-up + 1000 draws, float64, one CPU thread; CPU time includes JIT.
#   usage: benches/numpyro_nuts.sh [dataset ...]     (default: adult mnist)
set -euo pipefail
cd "$(dirname "$0")/.."
datasets=("$@")
[ ${#datasets[@]} -gt 0 ] || datasets=(adult mnist)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cargo build --release --locked -q
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --disable-pip-version-check "numpyro==0.19.0" "jax[cpu]==0.7.2"
for d in "${datasets[@]}"; do
  ./target/release/privpost data export "$d" --out "$tmp/$d.csv"
  XLA_FLAGS="--xla_force_host_platform_device_count=1 --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" \
    OMP_NUM_THREADS=1 taskset -c 0 "$tmp/venv/bin/python" benches/numpyro_nuts.py "$tmp/$d.csv" "$d"
done
