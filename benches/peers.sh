#!/usr/bin/env bash
# Side by side, in one run: effective samples per CPU-second of privpost's logistic
# samplers (whitened multi-chain HMC and independence MH, benches/glm_sampler.rs) and of the NUTS samplers of
# NumPyro (JAX), nutpie (Rust, on a PyMC model) and Stan (rstan, bernoulli_logit_glm) on
# the identical posteriors (Geumlek et al. §5.2: prior N(0, (nβ₀)⁻¹I), β₀ = 1e-3, logistic
# likelihood; the data exported by `privpost data export`). Every process is pinned to
# one core (taskset -c 0) with one thread; time is the process's CPU seconds, compilation
# and JIT included ("CPU-s"; the peers' sampling call alone in "sampling CPU-s"). ESS is
# the same for all: the rank-normalised bulk and tail ESS of Vehtari et al. 2021, minimum
# over coordinates, by ArviZ for the peers (benches/peers/ess.py) and by privpost's own
# implementation for privpost (tested equal to ArviZ to 1e-9, tests/reference/).
# NUTS peers: one chain, 1000 warm-up + 1000 draws; privpost: 50 chains, 20 burn-in +
# 200 draws. The Python peers go into a temporary venv (benches/peers/requirements.txt);
# Stan comes from Debian (r-cran-rstan, installed when missing and running as root).
#   usage: benches/peers.sh [dataset ...]        (default: adult mnist)
#   PEERS="numpyro nutpie stan" selects peers (default: all three)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${CARGO_TARGET_DIR:-target}/release/privpost"   # also with CARGO_TARGET_DIR elsewhere
datasets=("$@")
[ ${#datasets[@]} -gt 0 ] || datasets=(adult mnist)
peers=${PEERS:-numpyro nutpie stan}
for p in $peers; do
  case $p in numpyro|nutpie|stan) ;; *) echo "peers.sh: PEERS: unknown peer \"$p\" (allowed: numpyro, nutpie, stan)" >&2; exit 2 ;; esac
done
for d in "${datasets[@]}"; do
  case $d in adult|mnist|abalone) ;; *) echo "peers.sh: unknown dataset \"$d\" (allowed: adult, mnist, abalone)" >&2; exit 2 ;; esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cargo build --release --locked -q
cargo bench --locked --bench glm_sampler --no-run -q 2>/dev/null
bash scripts/fetch-data.sh >/dev/null
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --disable-pip-version-check -r benches/peers/requirements.txt
if [[ " $peers " == *" stan "* ]] && ! Rscript -e 'suppressPackageStartupMessages(library(rstan))' >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    # a fresh machine's package lists may be stale ("held broken packages"): update and retry
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends r-cran-rstan r-base-dev >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends r-cran-rstan r-base-dev >/dev/null; }
  else
    echo "Stan: r-cran-rstan is not installed and this is not root; skipping Stan" >&2
    peers=${peers//stan/}
  fi
fi
# Debian's r-cran-bh relies on the system Boost, but rstan looks for BH's own include/:
# a private library with BH's files and include/boost → /usr/include/boost
if [[ " $peers " == *" stan "* ]] && [ -d /usr/include/boost ] && [ ! -d /usr/lib/R/site-library/BH/include ]; then
  mkdir -p "$tmp/Rlib/BH/include"
  cp -r /usr/lib/R/site-library/BH/. "$tmp/Rlib/BH/"
  ln -s /usr/include/boost "$tmp/Rlib/BH/include/boost"
  export R_LIBS="$tmp/Rlib"
fi
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 NUMBA_NUM_THREADS=1 \
  XLA_FLAGS="--xla_force_host_platform_device_count=1 --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
pin="taskset -c 0"
py="$tmp/venv/bin/python"
results="$tmp/results.jsonl"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for d in "${datasets[@]}"; do
  "$bin" data export "$d" --out "$tmp/$d.csv" >/dev/null
  # two lines: privpost's HMC and its independence MH (IMH)
  PRIVPOST_BENCH_JSON=1 PRIVPOST_BENCH_DATASETS="$d" PRIVPOST_BENCH_CHAINS=50 \
    $pin cargo bench --locked -q --bench glm_sampler 2>/dev/null | grep '^{' \
    | while IFS= read -r line; do echo "{\"sampler\": \"privpost\", \"run\": $line}"; done >> "$results"
  for p in $peers; do
    case $p in
      numpyro|nutpie) run=$( (cd benches/peers && $pin "$py" "${p}_nuts.py" "$tmp/$d.csv" "$tmp/$d-$p.csv") | tail -n 1) ;;
      stan) run=$($pin Rscript benches/peers/stan_nuts.R "$tmp/$d.csv" "$tmp/$d-$p.csv" 2>"$tmp/stan.log" | tail -n 1) ;;
      *) echo "unknown peer $p (numpyro, nutpie, stan)" >&2; exit 2 ;;
    esac
    ess=$("$py" benches/peers/ess.py "$tmp/$d-$p.csv")
    echo "{\"sampler\": \"$p\", \"dataset\": \"$d\", \"run\": $run, \"ess\": $ess}" >> "$results"
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
"$py" - "$results" "$load_before" "$load_after" <<'PY'
import json, sys, platform, datetime, subprocess
rows = [json.loads(l) for l in open(sys.argv[1])]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(f"benches/peers.sh, {datetime.date.today()}: {cpu}, each process pinned to one core; "
      f"load average before {sys.argv[2]}, after {sys.argv[3]}")
print("| posterior | sampler | draws | ESS_bulk min | ESS_tail min | R̂ max | CPU-s | sampling CPU-s | ESS_bulk/CPU-s | privpost ÷ peer |")
print("|---|---|---|---|---|---|---|---|---|---|")
ours = {}  # (HMC, IMH) ESS_bulk per CPU-second by dataset
def rhat(v):  # ArviZ gives no R-hat for a single chain
    return "—" if v != v else f"{v:.3f}"
for r in rows:
    if r["sampler"] == "privpost":
        run = r["run"]
        d = run["dataset"]
        rate = run["ess_bulk_min"] / run["cpu_total"]
        which = run.get("sampler", "hmc")
        ours.setdefault(d, {})[which] = rate
        label = "privpost HMC (50 chains)" if which == "hmc" else "privpost IMH (independent draws)"
        vs = "" if which == "hmc" else f"{rate / ours[d]['hmc']:.1f}× HMC" if "hmc" in ours[d] else ""
        print(f"| {d} | {label} | {run['draws']} | {run['ess_bulk_min']:.0f} | {run['ess_tail_min']:.0f} | "
              f"{run['rhat_max']:.3f} | {run['cpu_total']:.1f} | — | {rate:.1f} | {vs} |")
    else:
        d, run, ess = r["dataset"], r["run"], r["ess"]
        rate = ess["ess_bulk_min"] / run["cpu_total"]
        mine = ours.get(d, {})
        ratio = " / ".join(f"{mine[k] / rate:.1f}× ({k.upper()})" for k in ("hmc", "imh") if k in mine)
        print(f"| {d} | {r['sampler']} NUTS | {ess['draws']} | {ess['ess_bulk_min']:.0f} | {ess['ess_tail_min']:.0f} | "
              f"{rhat(ess['rhat_max'])} | {run['cpu_total']:.1f} | {run['cpu_sampling']:.1f} | {rate:.2f} | {ratio} |")
PY
