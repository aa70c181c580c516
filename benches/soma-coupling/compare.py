#!/usr/bin/env python3
"""The authors' meeting times beside privpost's, as xiong2025/coupling's notes
quote them: per (ε, kernel) where their code met in every run, their times
(their printed iteration + 1, privpost's count), their median, privpost's
median, their ranks among both sets together, and a two-sided exact rank-sum
p-value (every split of the pooled times into theirs and privpost's equally
likely; privpost's censored pairs rank last). With a second folder (privpost run
with `--profile give_up`) it also counts, per (ε, kernel), the pairs of starts
on which the give-up coupling met earlier and later.

  usage: benches/soma-coupling/compare.py AUTHORS.csv FIGURE_DIR [GIVE_UP_DIR]
    AUTHORS.csv  from benches/soma-coupling/authors.sh (rows with steps 10000)
    FIGURE_DIR   results/xiong2025/coupling (its data.csv)
    GIVE_UP_DIR  results/xiong2025/coupling@give_up
"""
import csv
import itertools
import statistics
import sys
from pathlib import Path

KERNELS = {"1": "soma", "2": "random_scan", "3": "systematic_scan"}


def meetings(folder):
    """(ε, kernel) -> times by repeat, None for a censored pair."""
    out = {}
    with open(Path(folder) / "data.csv", newline="") as f:
        for r in csv.DictReader(f):
            key = (float(r["epsilon"]), r["kernel"])
            out.setdefault(key, {})[int(r["repeat"])] = int(r["meeting"]) if r["meeting"] else None
    return out


def rank_sum_p(theirs, ours, cap):
    """Their ranks among the pooled times and the two-sided exact p of their rank sum."""
    pooled = sorted([(t, 0) for t in theirs] + [(cap + 1 if t is None else t, 1) for t in ours])
    ranks = [i + 1 for i, (_, side) in enumerate(pooled) if side == 0]
    got = sum(ranks)
    sums = [sum(c) for c in itertools.combinations(range(1, len(pooled) + 1), len(theirs))]
    low = sum(s <= got for s in sums) / len(sums)
    high = sum(s >= got for s in sums) / len(sums)
    return ranks, min(1.0, 2 * min(low, high))


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    theirs = {}
    with open(sys.argv[1], newline="") as f:
        for r in csv.DictReader(f):
            if r["steps"] != "10000":
                continue
            key = (float(r["epsilon"]), KERNELS[r["method"]])
            theirs.setdefault(key, []).append(None if r["censored"] == "true" else int(r["meeting"]) + 1)
    ours = meetings(sys.argv[2])
    for key in sorted(theirs):
        times = theirs[key]
        mine = [ours[key][i] for i in sorted(ours[key])]
        if None in times:
            met = sum(t is not None for t in mine)
            print(f"ε = {key[0]:g} {key[1]}: theirs censored in {times.count(None)} of {len(times)}; privpost met {met} of {len(mine)}")
            continue
        ranks, p = rank_sum_p(times, mine, 10_000)
        met = [t for t in mine if t is not None]
        ours_median = statistics.median(met) if len(met) * 2 > len(mine) else None
        print(
            f"ε = {key[0]:g} {key[1]}: theirs {sorted(times)} (median {statistics.median(times):g}); "
            f"privpost median {ours_median}; their ranks {ranks} of {len(times) + len(mine)}; two-sided p = {p:.3f}"
        )
    if len(sys.argv) == 4:
        give_up = meetings(sys.argv[3])
        for key in sorted(ours):
            a = [ours[key][i] or 10_001 for i in sorted(ours[key])]
            b = [give_up[key][i] or 10_001 for i in sorted(give_up[key])]
            earlier = sum(y < x for x, y in zip(a, b))
            later = sum(y > x for x, y in zip(a, b))
            print(f"give-up ε = {key[0]:g} {key[1]}: earlier in {earlier}, later in {later} of {len(a)} pairs")


if __name__ == "__main__":
    main()
