"""Bernstein & Sheldon 2018's Gibbs sampler (their public code, a local checkout given
on the command line: never copied into privpost) run on the same calibration setting
as privpost's calibration/beta_bernoulli `count_gibbs` and `count_naive` rows: θ* from
their Beta(10, 10) prior, n Bernoulli(θ*) records, y = s + Laplace(1/ε), their
calculate_Gibbs_posterior (500 burn-in, 1000 kept, as published) and their naive
conjugate update. Prints one JSON line per setting: coverage at 19 levels, the PITs'
summary and the CPU seconds per posterior.

Our harness only (this file); their modules are imported from the checkout as they are.
"""
import json
import sys
import time

import numpy as np

checkout, n, eps, reps, seed = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
sys.path.insert(0, checkout + "/Bounded_Suff_Stats")
from distributions import Beta_Binomial  # noqa: E402  (theirs)
from Gibbs import calculate_Gibbs_posterior  # noqa: E402  (theirs)

np.random.seed(seed)
pair = Beta_Binomial()
levels = [round(0.05 * k, 2) for k in range(1, 20)]
pits = {"count_gibbs": [], "count_naive": []}
cpu = 0.0
for _ in range(reps):
    theta = pair.draw_model_parameters(pair.prior_parameters)
    s = pair.draw_sufficient_statistics(n, theta)
    y = s + np.random.laplace(scale=pair.sensitivity / eps)
    t0 = time.process_time()
    draws = calculate_Gibbs_posterior(y, pair, n, eps)[0, :]
    cpu += time.process_time() - t0
    truth = float(np.ravel(theta)[0])
    pits["count_gibbs"].append((np.sum(draws < truth) + 0.5) / (len(draws) + 1))
    a, b = pair.conjugate_update(n, pair.prior_parameters, y).ravel()
    import scipy.stats  # noqa: E402

    pits["count_naive"].append(float(scipy.stats.beta.cdf(truth, a, b)))
out = {"n": n, "epsilon": eps, "replications": reps, "gibbs_cpu_seconds_per_posterior": cpu / reps}
for m, u in pits.items():
    v = np.abs(2 * np.asarray(u) - 1)
    out[m] = [float(np.mean(v <= l)) for l in levels]
print(json.dumps(out))
