#!/usr/bin/env bash
# The one test command (see README): formatting, lints, then unit, reference-value
# and end-to-end tests. Release mode, because the numerics run 50-70x slower in debug.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --release --all-targets --locked -- -D warnings
cargo test --release --locked
