"""Räisä et al.'s own DP-HMC and penalty chains on their banana (their code, imported
from the patched copy in the working directory, on JAX 0.4.x: their random stream),
at the ε and repeat count given: argv = EPSILONS (comma-separated) REPEATS. Their
starts (get_start_point(i), i = repeat·4 + chain), their seeds (run_chain.py: from
the algorithm, experiment and ε), their MMD of the pooled final chains against their
1000 reference draws (result.MCMCMetrics.agg_mmd). Prints a CSV: method, epsilon,
repeat, mmd, acceptance."""
import os
import sys

sys.path.insert(0, os.getcwd())  # their modules: the patched copy is the working directory

import jax.numpy as np  # noqa: E402

import experiments  # noqa: E402
import params  # noqa: E402
import hmc  # noqa: E402
import dp_penalty  # noqa: E402
import result  # noqa: E402

problem = experiments.experiments["banana"]
n = problem.data.shape[0]
epsilons = [float(e) for e in sys.argv[1].split(",")]
repeats = int(sys.argv[2])
chains = 4
theta0 = np.vstack([problem.get_start_point(i) for i in range(chains * repeats)]).transpose()
print("method,epsilon,repeat,mmd,acceptance", flush=True)
for name, algorithm, run in [("penalty", "dp-penalty", dp_penalty.dp_penalty), ("dp_hmc", "dp-hmc", hmc.hmc)]:
    for eps in epsilons:
        seed_base = algorithm + "banana" + str(eps)
        seed = int(seed_base.encode("utf8").hex(), 16) % 2**32
        par = params.__dict__[algorithm + "_banana"].params(epsilon=eps)
        results = run(problem, theta0, eps, 0.1 / n, par, chains, repeats, verbose=False, seed=seed)
        if repeats == 1:
            results = [results]
        for r, res in enumerate(results):
            m = result.MCMCMetrics(res, problem.true_posterior)
            print(f"{name},{eps},{r},{float(m.agg_mmd)!r},{float(m.agg_acceptance)!r}", flush=True)
