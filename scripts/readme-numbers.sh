#!/usr/bin/env bash
# Recomputes every number the README quotes (tests/reference/readme-numbers.toml)
# from the CSVs of a paper-scale run and fails on any that drifted.
#   scripts/readme-numbers.sh [OUT]     OUT: the run's output folder (default results)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-results}"
if [ ! -d "$out" ]; then
    echo "readme-numbers.sh: $out: not a directory (allowed: the output folder of a paper-scale run, e.g. results after scripts/reproduce.sh)" >&2
    exit 2
fi
PRIVPOST_PAPER_RESULTS="$(cd "$out" && pwd)" cargo test --release --locked --quiet --test readme_numbers -- --nocapture
