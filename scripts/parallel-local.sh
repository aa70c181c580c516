#!/usr/bin/env bash
# A real GNU parallel test of `privpost shards` / `run --shard` / `merge` on this machine.
#
# Installs GNU parallel from the Debian packages (if missing; root), then:
#   1. runs a small sweep on this machine (foulds2016/fig2 with a 2-point ε sweep and
#      bun2018/fig2, smoke profile) as the reference;
#   2. prints the same sweep as 5 shard commands (`privpost shards … --emit commands`),
#      runs them through `parallel -j 2`, runs the merge line (`--emit merge`), and
#      compares every merged CSV byte for byte with the reference;
#   3. runs the command list again: every shard takes its tasks from the cache.
#
# Usage: scripts/parallel-local.sh [path/to/privpost]
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-${CARGO_TARGET_DIR:-$repo/target}/release/privpost}"
[ -x "$bin" ] || { echo "parallel-local.sh: no privpost binary at $bin (cargo build --release)" >&2; exit 2; }
bin="$(readlink -f "$bin")"
log() { echo "parallel-local: $*" >&2; }

if ! command -v parallel >/dev/null; then
    [ "$(id -u)" = 0 ] || { echo "parallel-local.sh: GNU parallel is missing and this is not root" >&2; exit 2; }
    log "installing GNU parallel (Debian package)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends parallel >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends parallel >/dev/null; }
fi
log "$(parallel --version | head -n 1)"

work="$(mktemp -d /tmp/privpost-parallel.XXXXXX)"
trap 'rm -rf "$work"' EXIT
cd "$repo"
sweep=(foulds2016/fig2 bun2018/fig2 --smoke --set 'epsilon=0.1,1')

"$bin" run "${sweep[@]}" --out "$work/single" -q -j 2 >/dev/null 2>&1

out="$work/pool results"
"$bin" shards "${sweep[@]}" --shards 5 --out "$out" --emit commands > "$work/commands.txt" 2>/dev/null
[ "$(wc -l < "$work/commands.txt")" = 5 ] || { log "expected 5 commands:"; cat "$work/commands.txt" >&2; exit 1; }
parallel -j 2 --halt now,fail=1 < "$work/commands.txt" > "$work/shards.log" 2>&1 \
    || { log "FAILED: a shard command failed:"; tail -n 30 "$work/shards.log" >&2; exit 1; }
merge="$("$bin" shards "${sweep[@]}" --shards 5 --out "$out" --emit merge)"
bash -c "$merge" > "$work/merge.log" 2>&1 || { log "FAILED: $merge"; tail -n 30 "$work/merge.log" >&2; exit 1; }

n=0
while IFS= read -r -d '' f; do
    rel="${f#"$work/single/"}"
    cmp -s "$f" "$out/$rel" || { log "FAILED: $rel differs from the single-machine run"; exit 1; }
    n=$((n + 1))
done < <(find "$work/single" -name '*.csv' -not -path '*/.*' -print0)
[ "$n" = 12 ] || { log "FAILED: expected 12 CSVs, compared $n"; exit 1; }
log "5 shard commands through parallel -j 2 + merge: $n CSVs byte-identical to one machine"

parallel -j 2 --halt now,fail=1 < "$work/commands.txt" > "$work/again.log" 2>/dev/null
computed=$(grep -c "(0 computed" "$work/again.log" || true)
[ "$computed" -ge 4 ] || { log "FAILED: a rerun of the shards recomputed tasks:"; cat "$work/again.log" >&2; exit 1; }
log "PASS"
