#!/usr/bin/env bash
# dapper's randomized-response vignette beside privpost, on the same released records
# (not run in CI):
#   - dapper (dapper_sample(), installed from its source into a temporary library)
#     runs the vignette as written (benches/dapper-vignette/vignette.R): the UC
#     Berkeley subsample of 400, both attributes kept with probability 3/4
#     (ε = 2 ln 3), Dirichlet(1, 1, 1, 1), 4 chains, seed 123;
#   - privpost infer, model = "contingency_table", on the release.csv the vignette
#     drew, the same chains, iterations and warm-up, one worker;
#   - the vignette's two comparisons: the confidential records and the released
#     records taken as confidential, as exact Dirichlet draws (R) and through
#     privpost with keep = 1.
# The odds ratio (π₁₁π₀₀)/(π₁₀π₀₁) of every sampler is summarised by one estimator
# (benches/dapper-vignette/odds_ratio.R): median and central 95 % interval, mean and
# sd of its log, each ± one Monte Carlo s.e., and bulk ESS over the four chains
# (posterior's estimators). The odds ratio's own mean does not exist here (see
# there), so the vignette's summarise_draws() mean of it is not compared. CPU
# seconds: R's user + system of dapper_sample(); privpost's manifest cpu_seconds
# (warm-up included on both; reading the release is in neither).
#
#   usage: benches/dapper-vignette.sh DAPPER_SRC [ITERATIONS [WARMUP]]
#     DAPPER_SRC  dapper's source (mango-empire/dapper): a folder or a git directory
#     ITERATIONS  per chain, warm-up included (default 6000, the vignette's)
#     WARMUP      per chain (default 1000, the vignette's)
#
# Needs R with the Debian packages r-base-core r-cran-checkmate r-cran-furrr
# r-cran-bayesplot r-cran-memoise r-cran-posterior r-cran-progressr (dapper's
# imports); it says which are missing. Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
if [ $# -lt 1 ]; then
  sed -n 2,27p "$0" >&2
  exit 2
fi
dapper_src=$1
iters=${2:-6000}
warm=${3:-1000}
for v in "$iters" "$warm"; do
  case $v in ''|*[!0-9]*) echo "dapper-vignette.sh: ITERATIONS=$iters WARMUP=$warm (allowed: whole numbers, 0 ≤ WARMUP < ITERATIONS)" >&2; exit 2 ;; esac
done
if [ "$warm" -ge "$iters" ]; then
  echo "dapper-vignette.sh: ITERATIONS=$iters WARMUP=$warm (allowed: whole numbers, 0 ≤ WARMUP < ITERATIONS)" >&2; exit 2
fi
command -v Rscript >/dev/null || { echo "dapper-vignette.sh: Rscript not found (install r-base-core)" >&2; exit 2; }
missing=$(Rscript -e 'p <- c("checkmate","furrr","bayesplot","memoise","posterior","progressr"); cat(p[!sapply(p, requireNamespace, quietly = TRUE)])')
if [ -n "$missing" ]; then
  echo "dapper-vignette.sh: R packages missing: $missing (the Debian r-cran-* packages of these names)" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$(git -C "$dapper_src" rev-parse --is-bare-repository 2>/dev/null)" = true ]; then
  mkdir -p "$tmp/dapper" && git -C "$dapper_src" archive --format=tar HEAD | tar x -C "$tmp/dapper"
elif [ -d "$dapper_src" ]; then
  mkdir -p "$tmp/dapper" && cp -r "$dapper_src"/. "$tmp/dapper"/
else
  echo "dapper-vignette.sh: $dapper_src: not a folder (allowed: dapper's source folder or git directory)" >&2
  exit 2
fi
[ -e "$tmp/dapper/DESCRIPTION" ] || { echo "dapper-vignette.sh: $dapper_src has no DESCRIPTION (allowed: dapper's source)" >&2; exit 2; }
mkdir -p "$tmp/lib"
R CMD INSTALL -l "$tmp/lib" "$tmp/dapper" >"$tmp/dapper-install.log" 2>&1 ||
  { echo "dapper-vignette.sh: installing dapper failed ($tmp/dapper-install.log):" >&2; tail -5 "$tmp/dapper-install.log" >&2; exit 1; }
export R_LIBS="$tmp/lib"
version=$(Rscript -e 'cat(as.character(packageVersion("dapper")))')

cargo build --release --locked -q
bin="${CARGO_TARGET_DIR:-target}/release/privpost"
here="$root/benches/dapper-vignette"
Rscript "$here/vignette.R" "$tmp" "$iters" "$warm" >"$tmp/r.log" 2>&1 ||
  { echo "dapper-vignette.sh: the vignette failed:" >&2; tail -5 "$tmp/r.log" >&2; exit 1; }
mapfile -t d < "$tmp/dapper_time.txt"

# privpost on FILE with keep KEEP; prints "cpu" and leaves draws in $tmp/inf/infer/r/
infer() {
  cat > "$tmp/r.toml" <<TOML
model = "contingency_table"
prior = { alpha = [1.0, 1.0, 1.0, 1.0] }
[records]
file = "$1"
attributes = [
  { column = "sex", categories = ["Male", "Female"], keep = $2 },
  { column = "status", categories = ["Admitted", "Rejected"], keep = $2 },
]
[sampler]
chains = 4
warmup = $warm
draws = $(( iters - warm ))
seed = 123
TOML
  "$bin" infer "$tmp/r.toml" --out "$tmp/inf" --jobs 1 -q >/dev/null 2>"$tmp/infer.err" || { cat "$tmp/infer.err" >&2; exit 1; }
  python3 -c "import json; print(json.load(open('$tmp/inf/infer/r/manifest.json'))['cpu_seconds'])"
}
summary() { Rscript "$here/odds_ratio.R" "$@"; }
cells="p_Male_Admitted p_Male_Rejected p_Female_Admitted p_Female_Rejected"
row() { # analysis records sampler cpu "median,se,lo,se,hi,se,log_mean,se,log_sd,ess"
  IFS=, read -r md mdse lo lose hi hise lm lmse lsd ess <<< "$5"
  awk -v a="$1" -v dd="$2" -v s="$3" -v c="$4" -v md="$md" -v mdse="$mdse" -v lo="$lo" -v lose="$lose" \
      -v hi="$hi" -v hise="$hise" -v lm="$lm" -v lmse="$lmse" -v lsd="$lsd" -v ess="$ess" \
    'BEGIN{ if (c == "") printf "| %s | %s | %s | %.3f | [%.3f, %.2f] | %.3f | %.3f | — | — | — |\n", a, dd, s, md, lo, hi, lm, lsd;
            else printf "| %s | %s | %s | %.3f ± %.3f | [%.3f ± %.3f, %.2f ± %.2f] | %.3f ± %.3f | %.3f | %.3g | %.0f | %.3g |\n", a, dd, s, md, mdse, lo, lose, hi, hise, lm, lmse, lsd, c, ess, ess/c }'
}
echo "dapper $version; $iters iterations per chain, $warm warm-up, 4 chains, one worker each."
echo
echo "| analysis | records | sampler | OR median | OR 95 % interval | mean ln OR | sd ln OR | CPU s | bulk ESS | ESS / CPU-s |"
echo "|---|---|---|---|---|---|---|---|---|---|"
row "privacy-aware" "released" "dapper $version" "${d[0]}" "$(summary "$tmp/dapper_draws.csv" pi_11 pi_10 pi_01 pi_00)"
cpu=$(infer "$tmp/release.csv" 0.75)
# shellcheck disable=SC2086
row "privacy-aware" "released" "privpost (Gibbs)" "$cpu" "$(summary "$tmp/inf/infer/r/draws.csv" $cells)"
mapfile -t c < "$tmp/conjugate.txt"
row "confidential" "confidential" "exact Dirichlet (R)" "" "${c[0]}"
cpu=$(infer "$tmp/confidential.csv" 1.0)
# shellcheck disable=SC2086
row "confidential" "confidential" "privpost, keep = 1" "$cpu" "$(summary "$tmp/inf/infer/r/draws.csv" $cells)"
row "naive" "released" "exact Dirichlet (R)" "" "${c[1]}"
cpu=$(infer "$tmp/release.csv" 1.0)
# shellcheck disable=SC2086
row "naive" "released" "privpost, keep = 1" "$cpu" "$(summary "$tmp/inf/infer/r/draws.csv" $cells)"
echo
echo "dapper's mean record acceptance: ${d[1]}"
