#!/usr/bin/env bash
# Side by side, in one run: nanoseconds per draw of privpost's noise samplers
# (benches/noise.rs: float Laplace and Gaussian, CKS20 exact discrete Laplace and
# Gaussian on the seeded ChaCha8 stream), of OpenDP's exact integer
# make_laplace / make_gaussian (PyPI `opendp`, in a temporary venv; its
# randomness is the OS's) and of the `prio` crate's CKS20 samplers (0.18.1,
# built in a temporary crate from benches/peers/prio_noise.rs: the dependency
# privpost chose not to take), at scales 1, 10, 100, 1000. All pinned to one
# core (taskset -c 0). Prints a Markdown table with the ratios, the date and the load.
#   usage: benches/noise-peers.sh            (not run in CI)
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cargo bench --locked --bench noise --no-run -q 2>/dev/null
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --disable-pip-version-check "opendp==0.16.0"
mkdir -p "$tmp/prio/src"
cp benches/peers/prio_noise.rs "$tmp/prio/src/main.rs"
cat > "$tmp/prio/Cargo.toml" <<'TOML'
[package]
name = "prio_noise"
version = "0.1.0"
edition = "2021"

[dependencies]
prio = { version = "=0.18.1", default-features = false }
rand = "0.10"
rand_chacha = "0.10"
TOML
(cd "$tmp/prio" && CARGO_TARGET_DIR="$tmp/prio/target" cargo build --release -q)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
taskset -c 0 cargo bench --locked --bench noise -q 2>/dev/null | grep '^{' > "$tmp/results.jsonl"
taskset -c 0 "$tmp/venv/bin/python" benches/peers/opendp_noise.py >> "$tmp/results.jsonl"
taskset -c 0 "$tmp/prio/target/release/prio_noise" >> "$tmp/results.jsonl"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$tmp/results.jsonl" "$load_before" "$load_after" <<'PY'
import json, sys, datetime
rows = [json.loads(l) for l in open(sys.argv[1])]
ns = {(r["sampler"], r["scale"]): r["ns_per_draw"] for r in rows}
print(f"noise samplers, ns per draw, one core; {datetime.date.today()}, load {sys.argv[2]} → {sys.argv[3]}")
print()
print("| scale | float Laplace | exact Laplace | prio Laplace | OpenDP Laplace | exact vs OpenDP | exact vs float | float Gaussian | exact Gaussian | prio Gaussian | OpenDP Gaussian | exact vs OpenDP | exact vs float |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for s in [1, 10, 100, 1000]:
    fl, el, pl, ol = (ns[(k, s)] for k in ("float_laplace", "exact_laplace", "prio_laplace", "opendp_laplace"))
    fg, eg, pg, og = (ns[(k, s)] for k in ("float_gaussian", "exact_gaussian", "prio_gaussian", "opendp_gaussian"))
    print(f"| {s} | {fl:.1f} | {el:.1f} | {pl:.0f} | {ol:.0f} | {ol/el:.0f}× faster | {el/fl:.1f}× slower | {fg:.1f} | {eg:.1f} | {pg:.0f} | {og:.0f} | {og/eg:.0f}× faster | {eg/fg:.1f}× slower |")
PY
