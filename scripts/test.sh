#!/usr/bin/env bash
# The one test command (see README): formatting, lints, then unit, reference-value
# and end-to-end tests (datasets fetched first). Release mode, because the numerics run 50-70x slower in debug.
# Ends with one line totalling the tests of every target.
set -euo pipefail
cd "$(dirname "$0")/.."
# the logistic-regression tests run on the real datasets: fetch them (pip, SHA-256 checked)
# into the checkout's data/ and point every privpost the tests start at it (without
# this, privpost uses the per-user data folder and fetches there on first use)
export PRIVPOST_DATA="${PRIVPOST_DATA:-$PWD/data}"
bash scripts/fetch-data.sh
# the gallery's browser test (tests/gallery.rs) loads the page in Debian's headless chromium:
# installed here under CI (root, apt-get); elsewhere the test skips with a message if it is missing
if [ -n "${CI:-}" ] && ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium (Debian package) for the gallery's browser test"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends chromium >/dev/null; }
fi
cargo fmt --all -- --check
cargo clippy --release --workspace --all-targets --locked -- -D warnings
# the math crate stays the math: no CLI, config files, tables, plots, progress bars or Python
forbidden=$(cargo tree -p privpost-core --locked -e normal,build,dev --prefix none | grep -E '^(clap|plotters|toml|csv|indicatif|pyo3) ' || true)
if [ -n "$forbidden" ]; then echo "privpost-core depends on: $forbidden" >&2; exit 1; fi
# the API docs build without a warning (broken links, links to private items, stray HTML)
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --locked --quiet
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
cargo test --release --workspace --locked 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
# the new-figure recipe walked on a copy of the crate (tests/new_figure.rs): it
# builds the copy, so it runs alone, after the suite
if [ "$status" -eq 0 ]; then
    cargo test --release --locked --test new_figure -- --ignored 2>&1 | tee -a "$log"
    status=${PIPESTATUS[0]}
fi
set -e
awk '/^test result:/ { for (i = 1; i < NF; i++) { if ($(i+1) ~ /^passed;/) p += $i; if ($(i+1) ~ /^failed;/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
