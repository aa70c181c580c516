#!/usr/bin/env bash
# Speed figures quoted in the README: criterion kernels, then wall time of all
# figures at paper scale and in the smoke profile (best of 3 runs each).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
cargo bench --locked --bench beta_bernoulli -- --warm-up-time 1 --measurement-time 3 2>&1 | grep -E '^[a-z_]+/|time:'
out=$(mktemp -d)
for profile in "" "--smoke"; do
  best=""
  for _ in 1 2 3; do
    start=$(date +%s%N)
    ./target/release/privpost run --all $profile --out "$out" >/dev/null 2>&1
    t=$(( ($(date +%s%N) - start) / 1000000 ))
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  echo "run --all ${profile:-(paper scale)}: best of 3 = ${best} ms wall on $(nproc) cores"
done
rm -rf "$out"
