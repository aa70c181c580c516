"""Reference values of JAX's random stream before 0.5 (threefry, not partitionable,
x64 on) and of the inputs Räisä et al.'s banana draws with it, for the tests of
crates/privpost-core/src/jax_random.rs and of raisa2021/banana's `inputs = "authors"`.

    python3 -m venv v && v/bin/pip install jax==0.4.30 jaxlib==0.4.30 numba matplotlib scipy
    v/bin/python tests/reference/jax_threefry.py CHECKOUT > tests/reference/jax-threefry.json

CHECKOUT is a work tree of DPBayes/DP-HMC-experiments: its banana_model.py draws the
data (key 43247), the 1000 reference draws (key 56437) and, as problem.py's
get_start_point does, the starts (key 4236482 + i, i = repeat * 4 + chain).
"""
import json
import sys

import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

assert jax.__version__ < "0.5", "the pre-0.5 stream is the one the authors' code drew"
sys.path.insert(0, sys.argv[1])
import banana_model  # noqa: E402  (the authors' file)

f = lambda a: [float(x) for x in jnp.ravel(a)]  # noqa: E731
key = jax.random.PRNGKey(43247)
k0 = jax.random.split(key, 3)[0]
model = banana_model.BananaModel(dim=2, a=20, tau0=0.001, tau1=0.0005, tau2=0.0004)
data = model.generate_test_data(100000)
reference = model.generate_posterior_samples(1000, data, 1)
mul = float(reference.std(axis=0).mean())
theta0 = jnp.array([0.0, 3.0])
starts = {str(i): f(theta0 + jax.random.normal(jax.random.PRNGKey(4236482 + i), shape=(2,)) * mul)
          for i in [0, 1, 5, 39]}
out = {
    "jax_version": jax.__version__,
    "split_43247_3": [[int(w) for w in k] for k in jax.random.split(key, 3)],
    "bits64_k0_3": [str(int(b)) for b in jax.random.bits(k0, (3,), dtype=jnp.uint64)],
    "uniform_k0_3": f(jax.random.uniform(k0, (3,))),
    "normal_k0_5": f(jax.random.normal(k0, (5, 1))),
    "normal_seed7_1001_tail": f(jax.random.normal(jax.random.PRNGKey(7), (1001,))[-4:]),
    "banana_data_rows": {str(i): f(data[i]) for i in [0, 1, 2, 50000, 99999]},
    "banana_data_mean": f(data.mean(axis=0)),
    "banana_reference_rows": {str(i): f(reference[i]) for i in [0, 1, 999]},
    "banana_reference_sd_mean": mul,
    "banana_starts": starts,
}
json.dump(out, sys.stdout, indent=1)
print()
