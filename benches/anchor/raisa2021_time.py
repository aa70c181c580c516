"""Times Räisä et al.'s DP-HMC and penalty chains (their code, imported from the
patched copy in the working directory) on their banana at ε = 6: 4 chains, their
hyperparameters, the per-chain iteration count privpost runs (argv: hmc_iters
penalty_iters). A 2-iteration call first compiles what JAX compiles. Prints one
line per algorithm: name, seconds."""
import os
import sys
import time

sys.path.insert(0, os.getcwd())  # their modules: the patched copy is the working directory

import jax.numpy as np  # noqa: E402

import experiments
import params
import hmc
import dp_penalty

problem = experiments.experiments["banana"]
n = problem.data.shape[0]
theta0 = np.vstack([problem.get_start_point(i) for i in range(4)]).transpose()
for name, run, par, iters in [
    ("dp_hmc", hmc.hmc, params.__dict__["dp-hmc_banana"].params(epsilon=6.0), int(sys.argv[1])),
    ("penalty", dp_penalty.dp_penalty, params.__dict__["dp-penalty_banana"].params(epsilon=6.0), int(sys.argv[2])),
]:
    run(problem, theta0, 6.0, 0.1 / n, par, 4, 1, verbose=False, seed=1, iters=2)
    t = time.perf_counter()
    run(problem, theta0, 6.0, 0.1 / n, par, 4, 1, verbose=False, seed=1, iters=iters)
    print(name, time.perf_counter() - t, flush=True)
