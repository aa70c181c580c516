"""NumPyro NUTS on a logistic-regression posterior exported by `privpost data export`.

usage: numpyro_nuts.py DATA.csv DRAWS.csv  — writes the draws (one row per draw) and
prints one JSON line: CPU seconds of the whole run (JIT compilation included) and of
the sampling call alone. ESS and R-hat are computed afterwards by ess.py (ArviZ).
"""
import json
import sys
import time

import numpy as np
import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
import numpyro  # noqa: E402
import numpyro.distributions as dist  # noqa: E402
from numpyro.infer import MCMC, NUTS  # noqa: E402

from common import load, WARMUP, DRAWS  # noqa: E402

t_start = time.process_time()
y, X, precision = load(sys.argv[1])
y, X = jnp.asarray(y), jnp.asarray(X)
n, d = X.shape


def model():
    w = numpyro.sample("w", dist.Normal(0.0, 1.0 / np.sqrt(precision)).expand([d]).to_event(1))
    numpyro.factor("loglik", jnp.sum(jax.nn.log_sigmoid(y * (X @ w))))


mcmc = MCMC(NUTS(model), num_warmup=WARMUP, num_samples=DRAWS, num_chains=1, progress_bar=False)
mcmc.run(jax.random.PRNGKey(0))
w = np.asarray(mcmc.get_samples()["w"])
total = time.process_time() - t_start
np.savetxt(sys.argv[2], w, delimiter=",")
# NumPyro compiles inside run(): its sampling time includes the JIT
print(json.dumps({"cpu_total": total, "cpu_sampling": total, "gradients": None}))
