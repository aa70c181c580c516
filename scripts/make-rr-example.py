#!/usr/bin/env python3
"""Writes docs/examples/rr-records.csv: 400 synthetic records released by randomized
response, the shape of dapper 1.1's randomized-response vignette (two binary
attributes, each kept with probability 3/4, so epsilon = 2 ln 3). The true cell
probabilities are made up, near the UC Berkeley admissions table's proportions
(Admitted/Male 0.26, Rejected/Male 0.33, Admitted/Female 0.12, Rejected/Female 0.29);
the records are synthetic, not the data. Python 3 standard library only.
Run:  python3 scripts/make-rr-example.py > docs/examples/rr-records.csv
"""
import random

CELLS = [("Admitted", "Male", 0.26), ("Rejected", "Male", 0.33), ("Admitted", "Female", 0.12), ("Rejected", "Female", 0.29)]
ADMIT, GENDER = ["Admitted", "Rejected"], ["Male", "Female"]
KEEP = 0.75


def report(truth, categories, rng):
    if rng.random() < KEEP:
        return truth
    return rng.choice([c for c in categories if c != truth])


def main():
    rng = random.Random(20261203)
    print("admit,gender")
    for _ in range(400):
        u, acc = rng.random(), 0.0
        for admit, gender, p in CELLS:
            acc += p
            if u < acc:
                break
        print("{},{}".format(report(admit, ADMIT, rng), report(gender, GENDER, rng)))


if __name__ == "__main__":
    main()
