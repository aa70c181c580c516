"""A Beta-Bernoulli written in Python (privpost.infer_model) against the built-in
one (privpost.infer, model = "beta_bernoulli"), on the same Laplace release of a
count of n records (not run in CI):

    python benches/python-model.py [N [ROUNDS]]      # default N = 100000, 3 rounds

Both run 2 chains × (200 warm-up + 1000 draws), one worker each (the built-in
with jobs=1, so both use one core), alternately A B A B for ROUNDS rounds. Prints
per run the CPU seconds of this process (time.process_time: warm-up included),
the posterior mean and sd of θ and bulk ESS, and the median ratio of CPU seconds
and of ESS per CPU-second. Needs the privpost package installed (pip install .).
`farm-bench` gives the wall-time ratio of the same two runs:
    farm-bench --vs "python benches/python-model.py N 1 builtin" -- python benches/python-model.py N 1 model
"""

import statistics
import sys
import tempfile
import time

import numpy as np

import privpost

N = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
ONLY = sys.argv[3] if len(sys.argv) > 3 else None
A, B, SCALE = 1.0, 1.0, 2.0
VALUE = round(0.6124 * N, 1)
RELEASE = {"mechanism": "laplace", "scale": SCALE, "values": [VALUE]}
SAMPLER = {"chains": 2, "warmup": 200, "draws": 1000, "seed": 1}


def model_run():
    n = N
    coin = privpost.Model(
        init=lambda rng: rng.beta(A, B),
        theta_step=lambda x, rng: rng.beta(A + x.sum(), B + n - x.sum()),
        propose=lambda theta, rng: (rng.random(n) < theta).astype(float),
        names=["theta"],
    )
    r = privpost.infer_model(coin, RELEASE, chains=2, warmup=200, draws=1000, seed=1)
    return r.summary


def builtin_run():
    spec = {"model": "beta_bernoulli", "prior": {"alpha": [A, B]}, "n": N, "counts": "free",
            "release": RELEASE, "sampler": SAMPLER}
    with tempfile.TemporaryDirectory() as out:
        return privpost.infer(spec, out=out, jobs=1).summary


RUNS = {"model": model_run, "builtin": builtin_run}
seconds = {k: [] for k in RUNS}
ess_rate = {k: [] for k in RUNS}
print(f"n = {N}, release {VALUE} + Laplace({SCALE}), 2 chains x (200 + 1000)")
print("| run | CPU s | mean θ | sd θ | bulk ESS | ESS/CPU-s |")
print("|---|---|---|---|---|---|")
for _ in range(ROUNDS):
    for name, run in RUNS.items():
        if ONLY and name != ONLY:
            continue
        t = time.process_time()
        s = run()
        cpu = time.process_time() - t
        row = s.iloc[0]
        seconds[name].append(cpu)
        ess_rate[name].append(float(row["ess_bulk"]) / cpu)
        print(f"| {name} | {cpu:.2f} | {float(row['mean']):.5f} | {float(row['sd']):.5f} | "
              f"{float(row['ess_bulk']):.0f} | {ess_rate[name][-1]:.0f} |")
if not ONLY:
    ratio = statistics.median(seconds["model"]) / statistics.median(seconds["builtin"])
    rate = statistics.median(ess_rate["builtin"]) / statistics.median(ess_rate["model"])
    print(f"\nmedian CPU s, model/builtin: {ratio:.2f}; ESS per CPU-s, builtin/model: {rate:.2f}")
