#!/usr/bin/env python3
"""A user's own mechanism as a privpost external figure (README, "Your own mechanism").

Beside Foulds et al. 2016 Fig. 2 (L1 error of one private posterior sample vs N):
when N is public, release only n+ with Laplace noise of scale 1/epsilon (replace-one
neighbours change n+ by at most 1), clamp it to [0, N] (post-processing), and
draw one sample of the Beta posterior it implies. Foulds' Laplace mechanism noises
both counts with scale 2/epsilon.

privpost writes one JSON object on stdin: figure, task, seed, repeats, params
(p, epsilon, prior and this task's n), columns. This script writes CSV on stdout:
the declared columns `mechanism,l1_error`, one row per repeat. Standard library only.
"""
import json
import random
import sys


def laplace(rng, scale):
    # the difference of two exponentials of mean `scale` is Laplace(0, scale)
    return rng.expovariate(1.0 / scale) - rng.expovariate(1.0 / scale)


def main():
    task = json.load(sys.stdin)
    params = task["params"]
    n, p, eps = int(params["n"]), float(params["p"]), float(params["epsilon"])
    a, b = (float(x) for x in params["prior"])
    rng = random.Random(task["seed"])
    out = [",".join(task["columns"])]
    for _ in range(task["repeats"]):
        successes = sum(rng.random() < p for _ in range(n))
        noisy = min(max(successes + laplace(rng, 1.0 / eps), 0.0), float(n))
        theta = rng.betavariate(a + noisy, b + n - noisy)
        out.append(f"laplace_public_n,{abs(theta - p)!r}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
