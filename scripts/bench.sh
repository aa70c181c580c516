#!/usr/bin/env bash
# Speed figures quoted in the README: criterion kernels, then wall time of all
# figures at paper scale and in the smoke profile (best of 3 runs each).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${CARGO_TARGET_DIR:-target}/release/privpost"   # also with CARGO_TARGET_DIR elsewhere
cargo build --release --locked --quiet
for bench in beta_bernoulli hellinger dpmcmc hmm vmath; do
  cargo bench --locked --bench "$bench" -- --warm-up-time 1 --measurement-time 3 2>&1 | grep -E '^[a-z_0-9]+/|time:'
done
# effective samples per second of the logistic-regression sampler (50 chains, datasets needed)
bash scripts/fetch-data.sh >/dev/null
PRIVPOST_BENCH_CHAINS=50 cargo bench --locked --bench glm_sampler 2>/dev/null | grep -v '^$'
echo "(NumPyro, nutpie and Stan NUTS on the same posteriors, side by side: benches/peers.sh)"
out=$(mktemp -d)
# every config except the long ones, best of 3; then each long one once
long="heikkila2019/fig3 geumlek2017/fig3 geumlek2017/samplers minami2016/logreg"
configs=$(ls configs/*/*.toml | grep -v -e heikkila2019/fig3.toml -e geumlek2017/fig3.toml \
  -e geumlek2017/samplers.toml -e minami2016/logreg.toml)
for profile in "" "--smoke"; do
  best=""
  for _ in 1 2 3; do
    start=$(date +%s%N)
    "$bin" run $configs $profile --out "$out" >/dev/null 2>&1
    t=$(( ($(date +%s%N) - start) / 1000000 ))
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  echo "run (all but the long figures) ${profile:-(paper scale)}: best of 3 = ${best} ms wall on $(nproc) cores"
done
for id in $long; do
  for profile in "--smoke" ""; do
    start=$(date +%s%N)
    "$bin" run "configs/$id.toml" $profile --out "$out" >/dev/null 2>&1
    echo "$id ${profile:-(paper scale)}: $(( ($(date +%s%N) - start) / 1000000 )) ms wall"
  done
done
start=$(date +%s%N)
/usr/bin/env time -v "$bin" run configs/bun2018/fig2.toml --out "$out" 2>"$out/time.txt" >/dev/null || true
echo "bun2018/fig2 at paper scale: $(( ($(date +%s%N) - start) / 1000000 )) ms wall; peak RSS $(grep -o 'Maximum resident set size (kbytes): [0-9]*' "$out/time.txt" | grep -o '[0-9]*$' || echo '?') KB"
rm -rf "$out"
