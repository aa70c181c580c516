#!/usr/bin/env bash
# The task cache's size and speed on a cluster-sized sweep: a 7-point paper-scale
# foulds2016/fig2 sweep (7 × 16,000 tasks) run by each given privpost binary into
# its own folder. Per binary it prints the cache's files, bytes on disk (du) and
# content (du --apparent-size), the first run's wall time, and the wall time of
# serving every task from the cache (figure folders removed, cache kept; best of
# two). With two binaries it also checks that their data.csv files are identical.
#   scripts/cache-sweep.sh BIN [BIN2]      (the numbers in docs/usage.md, "Task cache")
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/cache-sweep.sh BIN [BIN2]" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sweep=(foulds2016/fig2 --set 'epsilon=geomspace(0.01,10,7)' --configs "$repo/configs" -q)
seconds() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
k=0
for bin in "$@"; do
  k=$((k + 1))
  out="$work/run$k"
  first=$(seconds "$bin" run "${sweep[@]}" --out "$out")
  files=$(find "$out/.privpost-cache" -type f | wc -l)
  disk=$(du -sk "$out/.privpost-cache" | cut -f1)
  content=$(du -sk --apparent-size "$out/.privpost-cache" | cut -f1)
  best=""
  for _ in 1 2; do
    rm -rf "$out/foulds2016"
    s=$(seconds "$bin" run "${sweep[@]}" --out "$out")
    if [ -z "$best" ] || [ "$(echo "$s < $best" | bc)" = 1 ]; then best=$s; fi
  done
  printf '%s\n  cache: %d files, %d KiB on disk, %d KiB of content\n  first run: %.2f s; all 112,000 tasks from the cache: %.2f s\n' \
    "$bin" "$files" "$disk" "$content" "$first" "$best"
done
if [ $# -ge 2 ]; then
  for f in "$work"/run1/foulds2016/*/data.csv; do
    cmp -s "$f" "$work/run2/foulds2016/$(basename "$(dirname "$f")")/data.csv" || { echo "DIFFER: $f"; exit 1; }
  done
  echo "data.csv of the two binaries: identical (7 points)"
fi
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
