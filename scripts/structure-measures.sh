#!/usr/bin/env bash
# Structure measures of the crate layout, printed one per line: pub items per crate,
# `use super::*` outside tests, glob re-exports, `.expect(` outside tests,
# files over 600 lines, and (with --doc) rustdoc warnings. Test code is the
# test-module tail of a file (everything from a `#[cfg(test)]` whose next line
# opens a module; an item or import under its own `#[cfg(test)]` is not counted,
# and does not end the count)
# and files named tests.rs or under tests/. Usage: scripts/structure-measures.sh [--doc]
set -euo pipefail
cd "$(dirname "$0")/.."
crates=()
for d in src crates/*/src; do
  [ -d "$d" ] && crates+=("$d")
done
non_test() { # file → its lines before the first #[cfg(test)] module
  case "$1" in */tests.rs|*/tests/*) return 0 ;; esac
  awk 'held != "" { if ($0 ~ /^[[:space:]]*(pub(\([a-z]+\))? )?mod /) exit; held = ""; next }
       /^[[:space:]]*#\[cfg\(test\)\]/ { held = $0; next }
       { print }' "$1"
}
for d in "${crates[@]}"; do
  n=0; sup=0; glob=0; exp=0
  while IFS= read -r f; do
    body=$(non_test "$f")
    n=$((n + $(grep -cE '^\s*pub (async )?(unsafe )?(fn|struct|enum|trait|type|const|static|mod|use) ' <<<"$body" || true)))
    sup=$((sup + $(grep -cE '^\s*use super::\*;' <<<"$body" || true)))
    glob=$((glob + $(grep -cE '^\s*pub(\([a-z]+\))? use [^;]*::\*;' <<<"$body" || true)))
    exp=$((exp + $({ grep -o "\.expect(" <<<"$body" || true; } | wc -l)))
  done < <(find "$d" -name '*.rs')
  echo "$d: pub items $n, use super::* (non-test) $sup, glob re-exports $glob, .expect( (non-test) $exp"
done
echo "files over 600 lines: $(find src crates -name '*.rs' 2>/dev/null | xargs wc -l | awk '$2 != "total" && $1 > 600' | wc -l)"
if [ "${1:-}" = "--doc" ]; then
  w=$(cargo doc --no-deps --workspace 2>&1 | grep -c '^warning' || true)
  echo "rustdoc warnings: $w"
fi
