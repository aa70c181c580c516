"""Your own model from Python (`privpost.infer_model`): a Beta-Bernoulli and a
Dirichlet-categorical written in three numpy parts agree with the exact
posterior and with the built-in models; a seed gives the same draws, and a
log density written in numpy gives the law's draws bit for bit; every bad
callable raises ValueError naming it, with its own exception chained."""

import math

import numpy as np
import pytest

import privpost
from privpost import errors


def coin(n, a=1.0, b=1.0):
    return privpost.Model(
        init=lambda rng: rng.beta(a, b),
        theta_step=lambda x, rng: rng.beta(a + x.sum(), b + n - x.sum()),
        propose=lambda theta, rng: (rng.random(n) < theta).astype(float),
        names=["theta"],
    )


def exact_beta_bernoulli(n, a, b, value, scale):
    """E[θ] and sd[θ] given a Laplace release of the count, by summing over the
    count k: p(k) ∝ C(n, k) B(a + k, b + n − k) e^{−|value − k|/scale}."""
    k = np.arange(n + 1, dtype=float)
    lg = np.vectorize(math.lgamma)
    ln_w = (lg(n + 1.0) - lg(k + 1) - lg(n - k + 1) + lg(a + k) + lg(b + n - k) - lg(a + b + n)
            - np.abs(value - k) / scale)
    w = np.exp(ln_w - ln_w.max())
    w /= w.sum()
    s = a + b + n
    mean_k = (a + k) / s
    second_k = (a + k) * (a + k + 1) / (s * (s + 1))
    mean = float(w @ mean_k)
    return mean, math.sqrt(float(w @ second_k) - mean**2)


def mc_se(summary, i=0):
    row = summary.iloc[i]
    return float(row["sd"]) / math.sqrt(float(row["ess_bulk"]))


def test_a_beta_bernoulli_model_agrees_with_exact_and_the_built_in_one(tmp_path):
    n, a, b, value, scale = 2000, 2.0, 3.0, 1211.6, 4.0
    release = {"mechanism": "laplace", "scale": scale, "values": [value]}
    ours = privpost.infer_model(coin(n, a, b), release, chains=4, warmup=300, draws=2000, seed=3)
    built = privpost.infer(
        {"model": "beta_bernoulli", "prior": {"alpha": [a, b]}, "n": n, "counts": "free",
         "release": release, "sampler": {"chains": 4, "warmup": 300, "draws": 2000, "seed": 3}},
        out=tmp_path, name="coin", jobs=1)
    mean, sd = exact_beta_bernoulli(n, a, b, value, scale)
    for s in (ours.summary, built.summary):
        assert abs(float(s["mean"][0]) - mean) < 4 * mc_se(s), (s, mean)
        assert abs(float(s["sd"][0]) / sd - 1) < 0.10, (s, sd)
    both = math.hypot(mc_se(ours.summary), mc_se(built.summary))
    assert abs(float(ours.summary["mean"][0]) - float(built.summary["mean"][0])) < 4 * both
    assert list(ours.summary.columns) == list(built.summary.columns)
    assert ours.draws.shape == (4, 2000, 1) and ours.names == ("theta",)
    assert 0 < ours.move_rate <= 1 and ours.move_rate <= ours.acceptance <= 1
    idata = ours.to_inference_data()
    assert dict(idata.posterior.sizes) == {"chain": 4, "draw": 2000}
    np.testing.assert_array_equal(idata.posterior["theta"].values, ours.draws[:, :, 0])


def test_a_dirichlet_categorical_model_agrees_with_the_built_in_one(tmp_path):
    """m = 3 released counts: the records are categories, their contributions one-hot."""
    n, alpha = 300, np.array([1.0, 2.0, 1.0])
    values = [101.3, 148.2, 52.9]

    def propose(theta, rng):
        x = rng.choice(3, size=n, p=theta / theta.sum())
        return x, np.eye(3)[x]

    model = privpost.Model(
        init=lambda rng: rng.dirichlet(alpha),
        theta_step=lambda x, rng: rng.dirichlet(alpha + np.bincount(x, minlength=3)),
        propose=propose,
        names=["theta[1]", "theta[2]", "theta[3]"],
    )
    release = {"mechanism": "laplace", "scale": 2.0, "values": values}
    ours = privpost.infer_model(model, release, chains=4, warmup=300, draws=1500, seed=5)
    built = privpost.infer(
        {"model": "dirichlet_categorical", "prior": {"alpha": alpha.tolist()}, "n": n,
         "release": release, "sampler": {"chains": 4, "warmup": 300, "draws": 1500, "seed": 5}},
        out=tmp_path, name="cat", jobs=1)
    for i in range(3):
        both = math.hypot(mc_se(ours.summary, i), mc_se(built.summary, i))
        gap = float(ours.summary["mean"][i]) - float(built.summary["mean"][i])
        assert abs(gap) < 4 * both, (i, ours.summary, built.summary)
        assert abs(float(ours.summary["sd"][i]) / float(built.summary["sd"][i]) - 1) < 0.10


def test_a_seed_gives_the_same_draws_and_a_numpy_density_the_laws_draws():
    n, scale, value = 200, 2.0, 131.2
    release = {"mechanism": "laplace", "scale": scale, "values": [value]}

    def laplace(s):
        # bit for bit the engine's Laplace: −ln(2b) − |z − s|/b
        return -math.log(2 * scale) - abs(value - float(s[0])) / scale

    one = privpost.infer_model(coin(n), release, chains=2, warmup=50, draws=300, seed=11)
    two = privpost.infer_model(coin(n), release, chains=2, warmup=50, draws=300, seed=11)
    own = privpost.infer_model(coin(n), laplace, chains=2, warmup=50, draws=300, seed=11)
    other = privpost.infer_model(coin(n), release, chains=2, warmup=50, draws=300, seed=12)
    np.testing.assert_array_equal(one.draws, two.draws)
    np.testing.assert_array_equal(one.draws, own.draws)
    assert one.acceptance == own.acceptance and one.move_rate == own.move_rate
    assert not np.array_equal(one.draws, other.draws)
    # chains differ from each other
    assert not np.array_equal(one.draws[0], one.draws[1])


def shrinking(n):
    """A propose that gives n records at the start and n − 1 after."""
    calls = []

    def propose(theta, rng):
        calls.append(1)
        return np.zeros(n if len(calls) == 1 else n - 1)

    return propose


def raising(message):
    def f(*args):
        raise ZeroDivisionError(message)

    return f


@pytest.mark.parametrize(
    "change, release, match, cause",
    [
        ({"propose": shrinking(100)}, None, r"model\.propose returned contributions of shape \(99, 1\) at iteration 0 of chain 0; allowed: \(100, 1\)", None),
        ({"propose": lambda t, rng: np.zeros((100, 2, 2))}, None, r"model\.propose returned contributions of shape \(100, 2, 2\) at the start", None),
        ({"propose": lambda t, rng: np.full(100, np.nan)}, None, r"model\.propose returned nan in contributions row 0, column 0", None),
        ({"propose": lambda t, rng: (np.zeros(7), np.zeros(100))}, None, r"model\.propose returned records of shape \(7,\) at the start of chain 0 beside 100", None),
        ({"propose": lambda t, rng: "abc"}, None, r"model\.propose returned str contributions", ValueError),
        ({"theta_step": raising("no θ today")}, None, r"model\.theta_step raised ZeroDivisionError at iteration 0 of chain 0: no θ today", ZeroDivisionError),
        ({"theta_step": lambda x, rng: [0.5, 0.5]}, None, r"model\.theta_step returned 2 values of θ at iteration 0 of chain 0; allowed: 1", None),
        ({"theta_step": lambda x, rng: float("nan")}, None, r"model\.theta_step returned nan in θ\[0\]", None),
        ({"init": raising("prior")}, None, r"model\.init raised ZeroDivisionError at the start of chain 0: prior", ZeroDivisionError),
        ({"init": lambda rng: "half"}, None, r"model\.init returned str at the start of chain 0", ValueError),
        ({}, lambda s: float("nan"), r"release \(the log density\) returned nan for the statistic", None),
        ({}, lambda s: "big", r"release \(the log density\) returned str big", None),
        ({}, raising("density"), r"release \(the log density\) raised ZeroDivisionError at the start of chain 0: density", ZeroDivisionError),
        ({}, {"mechanism": "laplace", "scale": -1.0, "values": [50.0]}, r"release\.scale: -1", None),
        ({}, {"mechanism": "laplace", "scale": 1.0, "values": [50.0, 3.0]}, r"release\.values: 2 values", None),
        ({}, {"mechanism": "laplace", "scale": 1.0, "value": [50.0]}, r"release: unknown field `value`", None),
        ({}, {"mechanism": "discrete_laplace", "scale": 1.0, "values": [50.5]}, r"release\.values: value 1 = 50\.5", None),
        ({"names": ["a", "b"]}, None, r"model\.names: \['a', 'b'\]; allowed: 1 distinct names", None),
    ],
)
def test_bad_callables_raise_valueerror_naming_them(change, release, match, cause):
    n = 100
    parts = dict(
        init=lambda rng: 0.5,
        theta_step=lambda x, rng: rng.beta(1 + x.sum(), 1 + n - x.sum()),
        propose=lambda theta, rng: (rng.random(n) < theta).astype(float),
        names=None,
    )
    parts.update(change)
    model = privpost.Model(**parts)
    release = {"mechanism": "laplace", "scale": 2.0, "values": [50.0]} if release is None else release
    with pytest.raises(errors.InputError, match=match) as e:
        privpost.infer_model(model, release, chains=1, warmup=2, draws=3)
    assert isinstance(e.value, ValueError)
    if cause is not None:
        assert isinstance(e.value.__cause__, cause), repr(e.value.__cause__)


def test_bad_arguments_and_impossible_starts_are_refused():
    n = 10
    with pytest.raises(errors.ArgumentTypeError, match="object has no callable init; allowed: a privpost.Model"):
        privpost.infer_model(object(), {"mechanism": "laplace", "scale": 1.0, "values": [5.0]})
    with pytest.raises(errors.ArgumentTypeError, match="release: a dict"):
        privpost.infer_model(coin(n), [5.0])
    with pytest.raises(errors.InputError, match="chains = 0"):
        privpost.infer_model(coin(n), {"mechanism": "laplace", "scale": 1.0, "values": [5.0]}, chains=0)
    with pytest.raises(errors.ArgumentTypeError, match="draws = 2.5"):
        privpost.infer_model(coin(n), {"mechanism": "laplace", "scale": 1.0, "values": [5.0]}, draws=2.5)
    # more kept values than memory should hold: refused before any sweep, as infer does
    with pytest.raises(errors.InputError, match="draws = 100000000: 4 chains × 100000000 draws × 1 parameters"):
        privpost.infer_model(coin(n), {"mechanism": "laplace", "scale": 1.0, "values": [5.0]}, draws=10**8)
    # a discrete law cannot have released 5 from a statistic of 2.5
    half = privpost.Model(init=lambda rng: 0.5, theta_step=lambda x, rng: 0.5,
                          propose=lambda t, rng: np.full(n, 0.25))
    with pytest.raises(errors.InputError, match="probability \\(or density\\) 0 at chain 0's first records"):
        privpost.infer_model(half, {"mechanism": "discrete_laplace", "scale": 1.0, "values": [5.0]})


def test_the_python_model_example_runs(run_example, capsys):
    """docs/examples/python-model.py (docs/infer.md's example) runs start to end,
    its two posteriors where its own checks put them."""
    run_example("python-model.py")
    assert "lambda" in capsys.readouterr().out
