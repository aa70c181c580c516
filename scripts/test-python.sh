#!/usr/bin/env bash
# The Python package's tests: `pip install .[test]` in a fresh venv (maturin builds
# the crate with PyO3; pandas, arviz and pytest come from the registry), then pytest on
# python/tests, which compares the package with the cargo-built CLI, runs the
# docstring examples and docs/examples/python-tour.py, and type-checks with mypy.
set -euo pipefail
cd "$(dirname "$0")/.."
export PRIVPOST_DATA="${PRIVPOST_DATA:-$PWD/data}"
target="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release --locked
# crates/privpost-python is linted by the workspace clippy of scripts/test.sh
# python3 -m venv needs Debian's python3-venv on a bare machine (CI runs as root)
if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' 2>/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -q python3-venv >/dev/null 2>&1 \
            || { apt-get update -q >/dev/null && apt-get install -y -q python3-venv >/dev/null; }
    fi
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --upgrade pip
# the wheel is built in its own target folder: building the library alone in the
# shared one removes the CLI binary the other tests and the Slurm test run
CARGO_TARGET_DIR="$target/python" "$work/venv/bin/python" -m pip install -q ".[test]"
cd "$work"
PRIVPOST_BIN="$target/release/privpost" "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$OLDPWD/python/tests"
