"""nutpie (NUTS in Rust) on a PyMC model of the same posterior as numpyro_nuts.py.

usage: nutpie_nuts.py DATA.csv DRAWS.csv — writes the draws, prints one JSON line with
the CPU seconds of the whole run (PyMC model, numba compilation, sampling) and of the
sampling call alone.
"""
import json
import sys
import time

import numpy as np
import pymc as pm
import nutpie

from common import load, WARMUP, DRAWS

t_start = time.process_time()
y, X, precision = load(sys.argv[1])
n, d = X.shape
with pm.Model() as model:
    w = pm.Normal("w", 0.0, sigma=1.0 / np.sqrt(precision), shape=d)
    # ln σ(z) = −ln(1 + e^{−z})
    pm.Potential("loglik", -pm.math.sum(pm.math.log1pexp(-(y * pm.math.dot(X, w)))))
compiled = nutpie.compile_pymc_model(model)
t_sample = time.process_time()
trace = nutpie.sample(compiled, draws=DRAWS, tune=WARMUP, chains=1, cores=1, seed=0, progress_bar=False)
sampling = time.process_time() - t_sample
total = time.process_time() - t_start
w = trace.posterior["w"].values[0]
np.savetxt(sys.argv[2], w, delimiter=",")
print(json.dumps({"cpu_total": total, "cpu_sampling": sampling, "gradients": None}))
