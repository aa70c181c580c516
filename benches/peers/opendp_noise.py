"""Throughput of OpenDP's exact integer noise, for benches/noise-peers.sh.

make_laplace / make_gaussian on a vector of integers (OpenDP samples each
coordinate exactly: CKS20 discrete Laplace / Gaussian on dashu rationals, with
OS randomness). One JSON line per (sampler, scale): nanoseconds per draw, best of
5 calls on a vector of N integers (the Python-to-Rust conversion of the vector is
included; it is a small share at this size)."""
import json
import sys
import time

import opendp.prelude as dp

dp.enable_features("contrib")
N = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
x = [5] * N
for scale in [1, 10, 100, 1000]:
    lap = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=float(scale))
    gau = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=int)), dp.l2_distance(T=int), scale=float(scale))
    for name, m in [("opendp_laplace", lap), ("opendp_gaussian", gau)]:
        best = float("inf")
        for _ in range(5):
            t = time.perf_counter()
            m(x)
            best = min(best, (time.perf_counter() - t) * 1e9 / N)
        print(json.dumps({"sampler": name, "scale": scale, "ns_per_draw": round(best, 2)}))
