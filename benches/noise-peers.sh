#!/usr/bin/env bash
# Side by side, in one run: nanoseconds per draw of privpost's noise samplers
# (benches/noise.rs: float Laplace and Gaussian, CKS20 exact discrete Laplace and
# Gaussian on the seeded ChaCha8 stream) and of OpenDP's exact integer
# make_laplace / make_gaussian (PyPI `opendp`, in a temporary venv; its
# randomness is the OS's), at scales 1, 10, 100, 1000. Both pinned to one core
# (taskset -c 0). Prints a Markdown table with the ratios, the date and the load.
#   usage: benches/noise-peers.sh            (not run in CI)
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cargo bench --locked --bench noise --no-run -q 2>/dev/null
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --disable-pip-version-check "opendp==0.16.0"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
taskset -c 0 cargo bench --locked --bench noise -q 2>/dev/null | grep '^{' > "$tmp/results.jsonl"
taskset -c 0 "$tmp/venv/bin/python" benches/peers/opendp_noise.py >> "$tmp/results.jsonl"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$tmp/results.jsonl" "$load_before" "$load_after" <<'PY'
import json, sys, datetime
rows = [json.loads(l) for l in open(sys.argv[1])]
ns = {(r["sampler"], r["scale"]): r["ns_per_draw"] for r in rows}
print(f"noise samplers, ns per draw, one core; {datetime.date.today()}, load {sys.argv[2]} → {sys.argv[3]}")
print()
print("| scale | float Laplace | exact Laplace | OpenDP Laplace | exact vs OpenDP | exact vs float | float Gaussian | exact Gaussian | OpenDP Gaussian | exact vs OpenDP | exact vs float |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for s in [1, 10, 100, 1000]:
    fl, el, ol = ns[("float_laplace", s)], ns[("exact_laplace", s)], ns[("opendp_laplace", s)]
    fg, eg, og = ns[("float_gaussian", s)], ns[("exact_gaussian", s)], ns[("opendp_gaussian", s)]
    print(f"| {s} | {fl:.1f} | {el:.1f} | {ol:.0f} | {ol/el:.0f}× faster | {el/fl:.1f}× slower | {fg:.1f} | {eg:.1f} | {og:.0f} | {og/eg:.0f}× faster | {eg/fg:.1f}× slower |")
PY
