#!/usr/bin/env bash
# Regenerates every figure at paper scale into results/ (extra arguments are
# passed to `privpost run`, e.g. --smoke or --jobs 2).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release --locked --quiet -- run --all "$@"
