#!/usr/bin/env bash
# privpost's data-augmentation MCMC side by side with the R anchors, on the same
# model, release and number of iterations (not run in CI):
#   - Ju et al.'s own scripts (loglinear_gibbs.R, linearregression_gibbs.R, sourced
#     unchanged; their script draws the naive-Bayes release, and the regression runs
#     on the release saved in their repository, ε = 10);
#   - dapper (dapper_sample(), the CRAN package, installed from its source into a
#     temporary library) with the naive-Bayes model written as its four modules
#     (benches/ju2022/loglinear_dapper.R);
#   - privpost infer, record-wise kernel and SOMA, one chain on one worker.
# Every chain drops its first tenth; mean, sd and bulk ESS of the kept draws come from
# one estimator for all (R's posterior::ess_bulk, benches/ju2022/summarise.R).
#
#   usage: benches/ju2022-anchors.sh JU_SRC DAPPER_SRC [ITERATIONS]
#     JU_SRC      the authors' repository (nianqiaoju/dataaugmentation-mcmc-differentialprivacy):
#                 a folder or a git directory holding loglinear_gibbs.R and the .RData files
#     DAPPER_SRC  dapper's source (mango-empire/dapper): a folder or a git directory
#     ITERATIONS  per chain, warm-up included (default 2000; their scripts use 10,000)
#
# Needs R with the Debian packages r-base-core r-cran-extradistr r-cran-vgam
# r-cran-mass (their scripts) and r-cran-checkmate r-cran-furrr r-cran-bayesplot
# r-cran-memoise r-cran-posterior r-cran-progressr (dapper's imports); it says which
# are missing. Prints a Markdown table: CPU seconds (R: user + system of the run;
# privpost: user + system of the sampling, one worker), seconds per iteration, record
# acceptance, p₄'s (or β₁'s) posterior mean and sd, the smallest bulk ESS over the
# reported parameters and ESS per CPU-second.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
if [ $# -lt 2 ]; then
  sed -n 2,27p "$0" >&2
  exit 2
fi
ju_src=$1
dapper_src=$2
iters=${3:-2000}
case $iters in ''|*[!0-9]*) echo "ju2022-anchors.sh: ITERATIONS=$iters (allowed: a whole number ≥ 100)" >&2; exit 2 ;; esac
if [ "$iters" -lt 100 ]; then echo "ju2022-anchors.sh: ITERATIONS=$iters (allowed: a whole number ≥ 100)" >&2; exit 2; fi
command -v Rscript >/dev/null || { echo "ju2022-anchors.sh: Rscript not found (install r-base-core)" >&2; exit 2; }
missing=$(Rscript -e 'p <- c("extraDistr","VGAM","MASS","checkmate","furrr","bayesplot","memoise","posterior","progressr"); cat(p[!sapply(p, requireNamespace, quietly = TRUE)])')
if [ -n "$missing" ]; then
  echo "ju2022-anchors.sh: R packages missing: $missing (the Debian r-cran-* packages of these names)" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a folder, or a bare git directory (its HEAD, as `fetch` leaves it), copied into $2
unpack() {
  if [ "$(git -C "$1" rev-parse --is-bare-repository 2>/dev/null)" = true ]; then
    mkdir -p "$2" && git -C "$1" archive --format=tar HEAD | tar x -C "$2"
  elif [ -d "$1" ]; then
    mkdir -p "$2" && cp -r "$1"/. "$2"/
  else
    echo "ju2022-anchors.sh: $1: not a folder (allowed: a source folder or a git directory)" >&2
    exit 2
  fi
}
unpack "$ju_src" "$tmp/ju"
unpack "$dapper_src" "$tmp/dapper"
for f in loglinear_gibbs.R loglinear_datageneratingparameters.RData loglinear_notdpdata_N100.RData linearregression_gibbs.R; do
  [ -e "$tmp/ju/$f" ] || { echo "ju2022-anchors.sh: $ju_src has no $f (allowed: the authors' repository)" >&2; exit 2; }
done
[ -e "$tmp/dapper/DESCRIPTION" ] || { echo "ju2022-anchors.sh: $dapper_src has no DESCRIPTION (allowed: dapper's source)" >&2; exit 2; }
mkdir -p "$tmp/lib"
R CMD INSTALL -l "$tmp/lib" "$tmp/dapper" >"$tmp/dapper-install.log" 2>&1 ||
  { echo "ju2022-anchors.sh: installing dapper failed ($tmp/dapper-install.log):" >&2; tail -5 "$tmp/dapper-install.log" >&2; exit 1; }
export R_LIBS="$tmp/lib"

cargo build --release --locked -q
bin="${CARGO_TARGET_DIR:-target}/release/privpost"
warm=$(( iters / 10 ))
kept=$(( iters - warm ))
here="$root/benches/ju2022"

# summary line: "mean_of_col,sd_of_col,min_ess" for column COL (1-based) of the summarise.R output
stats() { Rscript "$here/summarise.R" "$@" | awk -F, -v col="$COL" 'NR==1||$4<m{m=$4} $1==col{mu=$2;sd=$3} END{printf "%s,%s,%s", mu, sd, m}'; }
row() { # model eps sampler cpu acceptance mean sd min_ess
  awk -v m="$1" -v e="$2" -v s="$3" -v c="$4" -v a="$5" -v mu="$6" -v sd="$7" -v ess="$8" -v it="$iters" \
    'BEGIN{printf "| %s | %s | %s | %.2f | %.2e | %.3f | %.4f | %.4f | %.0f | %.1f |\n", m, e, s, c, c/it, a, mu, sd, ess, ess/c}'
}
echo "| model | ε | sampler | CPU s | s / iteration | acceptance | mean | sd | min bulk ESS | ESS / CPU-s |"
echo "|---|---|---|---|---|---|---|---|---|---|"

infer() { # toml kernel -> "cpu,acceptance" and draws in $tmp/inf/infer/r/draws.csv
  "$bin" infer "$1" --out "$tmp/inf" --jobs 1 -q >/dev/null 2>"$tmp/infer.err" || { cat "$tmp/infer.err" >&2; exit 1; }
  python3 -c "import json,sys; m=json.load(open('$tmp/inf/infer/r/manifest.json')); print(f\"{m['cpu_seconds']},{m['record_acceptance']}\")"
}

# naive Bayes: their noise levels 1..3 are ε = 10, 3, 1
COL=4
for level in 3 2 1; do
  out="$tmp/ll$level"; mkdir -p "$out"
  (cd "$tmp/ju" && JU_OUT="$out" Rscript "$here/loglinear_script.R" "niter <- $iters" "noiselevel <- $level" "iexp <- 1" >"$out/log.txt" 2>&1) ||
    { echo "their loglinear_gibbs.R failed:" >&2; tail -5 "$out/log.txt" >&2; exit 1; }
  mapfile -t t < "$out/time.txt"; eps=${t[2]}
  IFS=, read -r mu sd ess <<< "$(stats "$out/draws.csv" "$warm" 5)"
  row "naive Bayes" "$eps" "their script (as published)" "${t[0]}" "${t[3]}" "$mu" "$sd" "$ess"
  (cd "$tmp/ju" && JU_OUT="$out" Rscript "$here/loglinear_dapper.R" "$iters" "$warm" "$eps" >"$out/dlog.txt" 2>&1) ||
    { echo "dapper failed:" >&2; tail -5 "$out/dlog.txt" >&2; exit 1; }
  mapfile -t d < "$out/dapper_time.txt"
  IFS=, read -r mu sd ess <<< "$(stats "$out/dapper_draws.csv" 0 5)"
  row "naive Bayes" "$eps" "dapper" "${d[0]}" "${d[2]}" "$mu" "$sd" "$ess"
  values=$(tail -n +2 "$out/release.csv" | paste -sd, -)
  for kernel in record_wise soma; do
    cat > "$tmp/r.toml" <<TOML
model = "naive_bayes"
n = 100
prior = { classes = [2.0, 2.0, 2.0, 2.0, 2.0], answers = [$(python3 -c "print(','.join(['[' + ','.join(['[2.0,2.0,2.0]']*5) + ']']*5))")] }
[release]
mechanism = "laplace"
scale = $(python3 -c "print(10 / $eps)")
values = [$values]
[sampler]
kernel = "$kernel"
chains = 1
warmup = $warm
draws = $kept
seed = 1
TOML
    IFS=, read -r cpu acc <<< "$(infer "$tmp/r.toml")"
    IFS=, read -r mu sd ess <<< "$(stats "$tmp/inf/infer/r/draws.csv" 0 5 2)"
    row "naive Bayes" "$eps" "privpost $kernel" "$cpu" "$acc" "$mu" "$sd" "$ess"
  done
done

# linear regression on their saved release (ε = 10)
COL=2
out="$tmp/reg"; mkdir -p "$out"
(cd "$tmp/ju" && JU_OUT="$out" Rscript "$here/regression_script.R" "niter <- $iters" >"$out/log.txt" 2>&1) ||
  { echo "their linearregression_gibbs.R failed:" >&2; tail -5 "$out/log.txt" >&2; exit 1; }
mapfile -t t < "$out/reg_time.txt"
IFS=, read -r mu sd ess <<< "$(stats "$out/reg_draws.csv" "$warm" 3)"
row "regression" "${t[2]}" "their script" "${t[0]}" "${t[4]}" "$mu" "$sd" "$ess"
values=$(tail -n +2 "$out/reg_release.csv" | paste -sd, -)
eval "$(cd "$tmp/ju" && Rscript -e 'load("linearregression_datageneratingparam_N100p2.RData"); cat(sprintf("m=\"%.10g, %.10g\"; cov=\"[%.10g, %.10g], [%.10g, %.10g]\"; s2=%.10g; tau=%.10g; xlo=%.10g; xhi=%.10g; ylo=%.10g; yhi=%.10g\n", m_star[1], m_star[2], Sigma_star[1,1], Sigma_star[1,2], Sigma_star[2,1], Sigma_star[2,2], sigma2_star, tau_star, clbounds[1], clbounds[3], clbounds[2], clbounds[4]))')"
for kernel in record_wise soma; do
  cat > "$tmp/r.toml" <<TOML
model = "linear_regression"
n = 100
prior = { tau = $tau }
[regression]
mean = [$m]
cov = [$cov]
noise_variance = $s2
x_bounds = [$xlo, $xhi]
y_bounds = [$ylo, $yhi]
[release]
mechanism = "laplace"
scale = $(python3 -c "print(${t[3]} / ${t[2]})")
values = [$values]
[sampler]
kernel = "$kernel"
chains = 1
warmup = $warm
draws = $kept
seed = 1
TOML
  IFS=, read -r cpu acc <<< "$(infer "$tmp/r.toml")"
  IFS=, read -r mu sd ess <<< "$(stats "$tmp/inf/infer/r/draws.csv" 0 3 2)"
  row "regression" "${t[2]}" "privpost $kernel" "$cpu" "$acc" "$mu" "$sd" "$ess"
done
