# %% [markdown]
# # privpost from Python: a tour
#
# A notebook in script form (cells marked `# %%`; Jupyter, VS Code and
# jupytext open it as a notebook). CI runs it start to end
# (python/tests/test_privpost.py). `pip install .` in the repository
# installs the package; docs/python.md is the guide.

# %%
import warnings

import numpy as np

import privpost

# %% [markdown]
# ## 1. What does a release cost?
# A Gaussian mechanism of sensitivity 1 and σ = 2, by each accountant:

# %%
gaussian = {"mechanism": "gaussian", "l2_sensitivity": 1.0, "sigma": 2.0, "rdp_scale": 0.5}
answer = privpost.account(gaussian, delta=1e-5)
for a in answer.answers:
    print(f"{a.accountant:<13} ε = {a.epsilon:.4f}")
print("best:", answer.best)

# %% [markdown]
# How many such releases fit in ε = 10? (numpy numbers are numbers.)

# %%
repeated = {"mechanism": "repeat", "times": np.int64(100), "event": gaussian}
print("largest T:", privpost.account(repeated, delta=np.float64(1e-5), target_epsilon=10.0).largest_repeat)

# %% [markdown]
# ## 2. Does a mechanism keep its claim?
# Outputs of a Laplace mechanism (scale 1 on a count, so ε = 1) on two
# neighbouring datasets, audited against a true and a false claim:

# %%
rng = np.random.default_rng(1)
labels = np.repeat([True, False], 5000)          # True: drawn on D
scores = rng.laplace(labels.astype(float), 1.0)
for claim in (1.0, 0.3):
    v = privpost.audit_samples({"label": labels, "score": scores}, epsilon=claim)
    print(f"claim ε = {claim}: audited ε ≥ {v.audited_epsilon:.3f} — {v.verdict}")

# %% [markdown]
# ## 3. The posterior from a private release
# 50 coin flips, their count released with Laplace noise of scale 2:

# %%
release = {
    "model": "beta_bernoulli",
    "prior": {"alpha": [1.0, 1.0]},
    "n": 50,
    "counts": "free",                 # the count of ones alone was released
    "release": {"mechanism": "laplace", "scale": 2.0, "values": [np.float64(31.4)]},
    "sampler": {"chains": 4, "warmup": 500, "draws": 2000, "seed": 1},
}
with warnings.catch_warnings():
    warnings.simplefilter("error", privpost.ConvergenceWarning)   # an unsettled chain stops the tour
    result = privpost.infer(release, name="tour")
print(result)
print(result.summary[["parameter", "mean", "sd", "q05", "q95", "rhat", "ess_bulk"]])

# %% [markdown]
# ## 4. Errors say what is wrong, and are the built-in classes too

# %%
try:
    privpost.account({"mechanism": "laplace", "scale": 1.0})
except ValueError as e:
    print(type(e).__name__, "| argument:", e.argument, "| key:", e.key)
