#!/usr/bin/env bash
# Speed figures quoted in the README: criterion kernels, then wall time of all
# figures at paper scale and in the smoke profile (best of 3 runs each).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
for bench in beta_bernoulli hellinger dpmcmc; do
  cargo bench --locked --bench "$bench" -- --warm-up-time 1 --measurement-time 3 2>&1 | grep -E '^[a-z_0-9]+/|time:'
done
out=$(mktemp -d)
# every config except the long Heikkilä Fig. 3, best of 3; then Fig. 3 once
configs=$(ls configs/*/*.toml | grep -v heikkila2019/fig3.toml)
for profile in "" "--smoke"; do
  best=""
  for _ in 1 2 3; do
    start=$(date +%s%N)
    ./target/release/privpost run $configs $profile --out "$out" >/dev/null 2>&1
    t=$(( ($(date +%s%N) - start) / 1000000 ))
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  echo "run (all but heikkila2019/fig3) ${profile:-(paper scale)}: best of 3 = ${best} ms wall on $(nproc) cores"
done
start=$(date +%s%N)
./target/release/privpost run configs/heikkila2019/fig3.toml --out "$out" >/dev/null 2>&1
echo "heikkila2019/fig3 at paper scale: $(( ($(date +%s%N) - start) / 1000 ))" | awk '{printf "%s %s %s %s %.1f s wall\n", $1, $2, $3, $4, $5/1e6}'
start=$(date +%s%N)
/usr/bin/env time -v ./target/release/privpost run configs/bun2018/fig2.toml --out "$out" 2>"$out/time.txt" >/dev/null || true
echo "bun2018/fig2 at paper scale: $(( ($(date +%s%N) - start) / 1000000 )) ms wall; peak RSS $(grep -o 'Maximum resident set size (kbytes): [0-9]*' "$out/time.txt" | grep -o '[0-9]*$' || echo '?') KB"
rm -rf "$out"
