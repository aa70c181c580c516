# %% [markdown]
# # Your own model, from Python
#
# A model privpost does not have built in: counts of events per person, Poisson(λ)
# with a Gamma(2, 1) prior on λ. Each person's count was clamped to at most 10
# (so one person moves the sum by at most 10) and the clamped sum released with
# Laplace noise of scale 10: ε = 1. CI runs this file start to end
# (python/tests/test_model.py); docs/infer.md ("Your own model, from Python")
# explains each part.

# %%
import math

import numpy as np

import privpost

n, a, b, cap = 500, 2.0, 1.0, 10
released = 1617.3  # Σ min(x_j, 10) + Laplace(10), made from λ = 3.2


def theta_step(x, rng):
    """λ | the true counts: Gamma(a + Σx, rate b + n), conjugate."""
    return rng.gamma(a + x.sum(), 1.0 / (b + n))


def propose(lam, rng):
    """A new count for every person from Poisson(λ), and what each adds to the
    released sum: the count clamped at 10."""
    x = rng.poisson(lam, n)
    return x, np.minimum(x, cap)


poisson = privpost.Model(
    init=lambda rng: rng.gamma(a, 1.0 / b),  # the prior
    theta_step=theta_step,
    propose=propose,
    names=["lambda"],
)

# %% [markdown]
# The release, as one of privpost's laws: the keys of a release file's `[release]` table.

# %%
law = {"mechanism": "laplace", "scale": 10.0, "values": [released]}
result = privpost.infer_model(poisson, law, chains=4, warmup=500, draws=2000, seed=1)
print(result)
print(result.summary.to_string(index=False))

# %% [markdown]
# A mechanism privpost has no law for: the same noisy sum rounded to an integer
# before release. Its log density, P(round(s + W) = z) for Laplace W, is yours to
# write; privpost calls it once per proposal that would change the statistic.

# %%
rounded = 1617.0


def rounded_laplace(s, scale=10.0):
    """ln P(round(s + W) = z) for W ~ Laplace(scale): F(d + ½) − F(d − ½) at
    d = z − s, in logs so that it stays finite far in the tails."""
    d = abs(rounded - float(s[0]))  # the law is symmetric
    if d >= 0.5:  # both ends on one side: ½e^{−(d−½)/b}(1 − e^{−1/b})
        return math.log(0.5) - (d - 0.5) / scale + math.log1p(-math.exp(-1.0 / scale))
    return math.log(1.0 - 0.5 * math.exp(-(d + 0.5) / scale) - 0.5 * math.exp(-(0.5 - d) / scale))


own = privpost.infer_model(poisson, rounded_laplace, chains=2, warmup=200, draws=800, seed=1)
print(own.summary.to_string(index=False))
for r in (result, own):
    assert abs(float(r.summary["mean"][0]) - 3.23) < 0.05, r.summary
