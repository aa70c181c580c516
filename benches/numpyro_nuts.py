"""NumPyro NUTS on a logistic-regression posterior exported by `privpost data export`.

Prints ESS (minimum and median over coordinates), split R-hat (maximum) and the
minimum ESS per CPU-second (process time, JIT compilation included).
"""
import sys
import time

import numpy as np
import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
import numpyro  # noqa: E402
import numpyro.distributions as dist  # noqa: E402
from numpyro.diagnostics import effective_sample_size, split_gelman_rubin  # noqa: E402
from numpyro.infer import MCMC, NUTS  # noqa: E402

path, name = sys.argv[1], sys.argv[2]
data = np.loadtxt(path, delimiter=",", skiprows=1)
y, X = jnp.asarray(data[:, 0]), jnp.asarray(data[:, 1:])
n, d = X.shape
precision = n * 1e-3


def model():
    w = numpyro.sample("w", dist.Normal(0.0, 1.0 / np.sqrt(precision)).expand([d]).to_event(1))
    numpyro.factor("loglik", jnp.sum(jax.nn.log_sigmoid(y * (X @ w))))


t0 = time.process_time()
mcmc = MCMC(NUTS(model), num_warmup=1000, num_samples=1000, num_chains=1, progress_bar=False)
mcmc.run(jax.random.PRNGKey(0))
w = np.asarray(mcmc.get_samples()["w"])
cpu = time.process_time() - t0
ess = effective_sample_size(w[None, :, :])
rhat = split_gelman_rubin(w[None, :, :])
print(
    f"numpyro-nuts {name}: n={n} d={d} ESS_min={ess.min():.0f} ESS_median={np.median(ess):.0f} "
    f"R-hat_max={rhat.max():.4f} cpu_seconds={cpu:.1f} ESS_min_per_cpu_second={ess.min() / cpu:.2f}"
)
