"""Räisä et al.'s own DP-HMC and penalty chains on their banana (their code, imported
from the patched copy in the working directory, on JAX 0.4.x: their random stream),
at the ε and repeats given: argv = EPSILONS (comma-separated) FIRST COUNT, the repeats
FIRST … FIRST + COUNT − 1. Each repeat is one call of their sampler with their 4
starts of that repeat (get_start_point(i), i = repeat·4 + chain) and the seed
run_chain.py derives from the algorithm, experiment and ε, plus the repeat: their
sampler loops over chains in Python and copies the whole chain array per update, so
one call with 30 repeats (120 chains) runs for hours, and separate calls need
separate seeds. The MMD is theirs: result.MCMCMetrics.agg_mmd, the pooled final
chains against their 1000 reference draws. Prints a CSV: method, epsilon, repeat,
mmd, acceptance (with a header when FIRST is 0)."""
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
first, count = int(sys.argv[2]), int(sys.argv[3])
chains = 4
if first == 0:
    print("method,epsilon,repeat,mmd,acceptance", flush=True)
for r in range(first, first + count):
    theta0 = np.vstack([problem.get_start_point(r * chains + c) for c in range(chains)]).transpose()
    for name, algorithm, run in [("penalty", "dp-penalty", dp_penalty.dp_penalty), ("dp_hmc", "dp-hmc", hmc.hmc)]:
        for eps in epsilons:
            seed_base = algorithm + "banana" + str(eps)
            seed = (int(seed_base.encode("utf8").hex(), 16) + r) % 2**32
            par = params.__dict__[algorithm + "_banana"].params(epsilon=eps)
            res = run(problem, theta0, eps, 0.1 / n, par, chains, 1, verbose=False, seed=seed)
            m = result.MCMCMetrics(res, problem.true_posterior)
            print(f"{name},{eps},{r},{float(m.agg_mmd)!r},{float(m.agg_acceptance)!r}", flush=True)
