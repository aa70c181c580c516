"""Reference values for the rank-normalised diagnostics of Vehtari, Gelman, Simpson,
Carpenter & Bürkner (2021, Bayesian Analysis 16(2)): split-R̂ (rank-normalised and
folded), bulk-ESS and tail-ESS, as ArviZ computes them (arviz.rhat(method="rank"),
arviz.ess(method="bulk"), arviz.ess(method="tail")).

The chains are generated here and in `crates/privpost-core/src/stats/diagnostics.rs` (tests) by the same
recipe: a 64-bit LCG (Knuth's MMIX constants) for uniforms, Box–Muller normals, an
AR(1) recursion x_t = φ x_{t-1} + sqrt(1 − φ²) z_t started at z_0, then a per-chain
offset and a transform. Python's `math` and Rust's f64 call the same libm functions,
so the chains agree to the last bit or within an ulp; the Rust test compares at a
relative tolerance of 1e-9.

Run (writes vehtari_diagnostics.csv beside this file):
    python3 -m venv /tmp/az && /tmp/az/bin/pip install "arviz==0.22.0"
    /tmp/az/bin/python tests/reference/vehtari_diagnostics.py
"""

import csv
import math
import os

import arviz as az
import numpy as np

MASK = (1 << 64) - 1

# name, chains, draws, phi, offset per chain index, transform, seed
CASES = [
    ("ar05", 4, 1000, 0.5, 0.0, "none", 1),
    ("ar095", 4, 1000, 0.95, 0.0, "none", 2),
    ("antithetic", 4, 1000, -0.6, 0.0, "none", 3),
    ("unmixed", 4, 500, 0.3, 0.4, "none", 4),
    ("heavy_tail", 4, 800, 0.2, 0.0, "cube", 5),
    ("ties", 3, 600, 0.7, 0.0, "floor3", 6),
    ("odd_two_chains", 2, 501, 0.4, 0.0, "none", 7),
    ("one_chain", 1, 400, 0.5, 0.0, "none", 8),
]


def uniform(state):
    state = (state * 6364136223846793005 + 1442695040888963407) & MASK
    return state, ((state >> 11) + 0.5) / float(1 << 53)


def chains(n_chains, n_draws, phi, offset, transform, seed):
    state = seed
    out = []
    scale = math.sqrt(1.0 - phi * phi)
    for c in range(n_chains):
        xs = []
        x = 0.0
        for t in range(n_draws):
            state, u1 = uniform(state)
            state, u2 = uniform(state)
            z = math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)
            x = z if t == 0 else phi * x + scale * z
            v = x + offset * c
            if transform == "cube":
                v = v * v * v
            elif transform == "floor3":
                v = float(math.floor(3.0 * v))
            xs.append(v)
        out.append(xs)
    return np.array(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "vehtari_diagnostics.csv")
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(
            ["case", "chains", "draws", "phi", "offset", "transform", "seed",
             "rhat_rank", "ess_bulk", "ess_tail"]
        )
        for name, m, n, phi, offset, transform, seed in CASES:
            x = chains(m, n, phi, offset, transform, seed)
            rhat = float(az.rhat(x, method="rank")) if m >= 2 else float("nan")
            bulk = float(az.ess(x, method="bulk"))
            tail = float(az.ess(x, method="tail"))
            w.writerow([name, m, n, repr(phi), repr(offset), transform, seed,
                        repr(rhat), repr(bulk), repr(tail)])
    print("wrote", path)


if __name__ == "__main__":
    main()
