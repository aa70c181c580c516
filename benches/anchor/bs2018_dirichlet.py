"""Bernstein & Sheldon 2018's Dirichlet-Multinomial Gibbs sampler (their public code, a
local checkout given on the command line: never copied into privpost) on the setting of
privpost's calibration/dirichlet `count_gibbs` and `count_naive` rows: θ* from their
Dirichlet(5, 5, 5) prior, n categorical records, y = the K − 1 free counts + Laplace(b),
their calculate_Gibbs_posterior (500 burn-in, 1000 kept) and their naive conjugate update.
Prints one JSON line per setting: coverage of θ₁ and θ₂ at 19 levels, how many
replications their code could not finish, and the CPU seconds per posterior.

Their code cannot run as published here; two changes, both made in this harness at run
time (their files are not edited):
1. Dirichlet_Multinomial.sample_sufficient_statistics: the rejection loop never
   increments `tries`, tests `ss[:-1]` (only the first of the K − 1 free counts) and joins
   its two conditions with "and", so it accepts draws with a negative second count or a
   sum above N, which make the Dirichlet update's parameters negative and scipy raise.
   Replaced by the loop its comment describes: redraw until every free count is > 0 and
   their sum ≤ N − 1, counting tries, giving up (their exception) after 100 as their code
   intends.
2. Their naive update has no floor for the Dirichlet (the Beta one floors at 0.001), so a
   noisy count below −α gives negative parameters; the naive posterior here takes their
   update and floors it at 0.001, as privpost's count_naive does.
The Laplace scale is passed in (privpost's b = 2/ε, where their code would use 1/ε: see
the shell script).

Our harness only (this file); their modules are imported from the checkout as they are.
"""
import json
import sys
import time

import numpy as np
import scipy.stats

checkout, n, scale, reps, seed = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
sys.path.insert(0, checkout + "/Bounded_Suff_Stats")
import Gibbs  # noqa: E402  (theirs)
from distributions import Dirichlet_Multinomial  # noqa: E402  (theirs)


def sample_sufficient_statistics(N, conditional_mean, conditional_covariance):
    """Change 1: the rejection loop as its comment describes it."""
    tries = 0
    while True:
        ss = np.atleast_1d(scipy.stats.multivariate_normal.rvs(
            mean=conditional_mean.flatten(), cov=conditional_covariance, size=1))
        if all(ss > 0) and sum(ss) <= N - 1:
            return ss[:, None]
        tries += 1
        if tries > 100:
            raise Exception('Multinomial unable to sample sufficient statistics!')


Dirichlet_Multinomial.sample_sufficient_statistics = staticmethod(sample_sufficient_statistics)

np.random.seed(seed)
pair = Dirichlet_Multinomial()
# their Gibbs code derives the Laplace scale as sensitivity / epsilon: with sensitivity 1
# (theirs) and epsilon = 1/b it uses privpost's scale b
eps_theirs = 1.0 / scale
levels = [round(0.05 * k, 2) for k in range(1, 20)]
pits = {"count_gibbs": [[], []], "count_naive": [[], []]}
cpu, failed = 0.0, 0
for _ in range(reps):
    theta = pair.draw_model_parameters(pair.prior_parameters)
    s = pair.draw_sufficient_statistics(n, theta)
    y = s + np.random.laplace(scale=scale, size=s.shape)
    t0 = time.process_time()
    try:
        draws = Gibbs.calculate_Gibbs_posterior(y, pair, n, eps_theirs)
    except Exception:  # their rejection gave up
        failed += 1
        cpu += time.process_time() - t0
        continue
    cpu += time.process_time() - t0
    alpha = np.maximum(pair.conjugate_update(n, pair.prior_parameters, y).ravel(), 0.001)
    for j in range(2):
        truth = float(np.ravel(theta)[j])
        pits["count_gibbs"][j].append((np.sum(draws[j, :] < truth) + 0.5) / (draws.shape[1] + 1))
        pits["count_naive"][j].append(float(scipy.stats.beta.cdf(truth, alpha[j], alpha.sum() - alpha[j])))
done = reps - failed
out = {"n": n, "scale": scale, "replications": reps, "failed": failed,
       "gibbs_cpu_seconds_per_posterior": cpu / reps}
for m, per_coordinate in pits.items():
    for j, u in enumerate(per_coordinate):
        v = np.abs(2 * np.asarray(u) - 1)
        out[f"{m}:theta{j + 1}"] = [float(np.mean(v <= l)) if done else float("nan") for l in levels]
print(json.dumps(out))
