#!/usr/bin/env python3
"""Writes docs/examples/rr-logistic-records.csv: 300 synthetic records whose binary
label was released by randomized response, the shape of dapper's gdp_logit example
(a low-birth-weight label; the truth reported with probability 0.7, otherwise a fair
coin, so kept with probability 0.85 and epsilon = ln(0.85/0.15)). The covariates
(age in years, smoking 0/1) and the true coefficients (intercept 0.5, age -0.05,
smoke 0.7) are made up; the records are synthetic, not the data. Python 3 standard
library only.
Run:  python3 scripts/make-rr-logistic-example.py > docs/examples/rr-logistic-records.csv
"""
import math
import random

BETA = (0.5, -0.05, 0.7)
KEEP = 0.85


def main():
    rng = random.Random(20261204)
    print("low,age,smoke")
    for _ in range(300):
        age = rng.randint(15, 45)
        smoke = 1 if rng.random() < 0.4 else 0
        eta = BETA[0] + BETA[1] * age + BETA[2] * smoke
        low = "yes" if rng.random() < 1 / (1 + math.exp(-eta)) else "no"
        if rng.random() >= KEEP:
            low = "no" if low == "yes" else "yes"
        print("{},{},{}".format(low, age, smoke))


if __name__ == "__main__":
    main()
