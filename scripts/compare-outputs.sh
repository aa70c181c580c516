#!/usr/bin/env bash
# Proves a refactor left the results unchanged: runs a set of configs with two
# privpost binaries (or compares two existing result trees) and checks that every
# data.csv and summary.csv is byte-identical.
#   scripts/compare-outputs.sh OLD_BIN NEW_BIN [--smoke|--paper]   run both, compare
#   scripts/compare-outputs.sh --trees DIR_A DIR_B                  compare two result trees
# --smoke (default): every config at its smoke profile; --paper: the paper-scale
# Beta-Bernoulli (Geumlek Figs 1-2, Foulds Figs 1-2), Bun and Heikkila Fig. 1 figures.
set -euo pipefail
cd "$(dirname "$0")/.."
compare_trees() {
  local a=$1 b=$2 n=0 bad=0
  while IFS= read -r f; do
    rel=${f#"$a"/}
    n=$((n + 1))
    if [ ! -f "$b/$rel" ]; then echo "missing in $b: $rel"; bad=$((bad + 1));
    elif ! cmp -s "$f" "$b/$rel"; then echo "differs: $rel"; bad=$((bad + 1)); fi
  done < <(find "$a" \( -name data.csv -o -name summary.csv \) | sort)
  extra=$(cd "$b" && find . \( -name data.csv -o -name summary.csv \) | wc -l)
  [ "$extra" -eq "$n" ] || { echo "file count differs: $n in $a, $extra in $b"; bad=$((bad + 1)); }
  echo "compared $n CSV files: $bad differ"
  [ "$bad" -eq 0 ]
}
if [ "${1:-}" = "--trees" ]; then compare_trees "$2" "$3"; exit; fi
old=$1 new=$2 scale=${3:---smoke}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case "$scale" in
  --smoke) args=(--all --smoke) ;;
  --paper) args=(configs/geumlek2017/fig1.toml configs/geumlek2017/fig2.toml
                 configs/foulds2016/fig1.toml configs/foulds2016/fig2.toml
                 configs/bun2018/fig2.toml configs/bun2018/fig3.toml configs/heikkila2019/fig1.toml) ;;
  *) echo "compare-outputs.sh: unknown scale $scale (allowed: --smoke, --paper)" >&2; exit 2 ;;
esac
for side in old new; do
  bin=$old; [ "$side" = new ] && bin=$new
  if ! CI=true "$bin" run "${args[@]}" --out "$work/$side" >"$work/$side.log" 2>&1; then
    echo "compare-outputs.sh: $bin failed:" >&2; cat "$work/$side.log" >&2; exit 1
  fi
done
compare_trees "$work/old" "$work/new"
