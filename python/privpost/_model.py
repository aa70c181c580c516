"""Your own model from Python: data-augmentation MCMC (Ju et al. 2022) on a
private release, the model written in dapper's parts — θ | records, records | θ,
the mechanism — and vectorised, so a sweep costs three Python calls, not one per
record. privpost's engine (crates/privpost-python/src/model.rs) does the
record-wise accept/reject, the chains' bookkeeping, the diagnostics and the
ArviZ output. docs/infer.md ("Your own model, from Python") is the guide."""

import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from .errors import ArgumentTypeError, ConvergenceWarning, InputError, PrivpostError


@dataclass(frozen=True)
class Model:
    """A model for :func:`infer_model`, in three vectorised parts (any object with
    these attributes will do):

    - ``init(rng) -> theta``: the chain's first θ (a draw from the prior, as the
      built-in models start);
    - ``theta_step(records, rng) -> theta``: a draw of θ given the current records
      (θ | x: conjugate, or a few steps of your own sampler);
    - ``propose(theta, rng) -> (records, contributions)``: one proposal for every
      record drawn from the model f(· | θ), and each proposal's contribution to the
      released statistic, an (n, m) array (or (n,) when one value is released).
      The statistic is the contributions' sum over the records. Return one array
      when the records are their own contributions.

    θ is a number or a 1-D array of numbers, the same length every time; ``names``
    name its entries (default ``theta[0]``, …). ``rng`` is the chain's
    ``numpy.random.Generator``.
    """

    init: Callable[[np.random.Generator], Any]
    theta_step: Callable[[Any, np.random.Generator], Any]
    propose: Callable[[Any, np.random.Generator], Any]
    names: Optional[Sequence[str]] = None


@dataclass(frozen=True)
class ModelResult:
    """The draws of :func:`infer_model` and what the chains did.

    ``draws``: chains × draws × parameters; ``summary``: one row per parameter
    (mean, sd, 5/50/95 % quantiles, R-hat, bulk and tail ESS: the columns of
    ``privpost infer``'s summary.csv); ``acceptance``: the record proposals
    accepted after warm-up; ``move_rate``: of those that would change the
    statistic, the share accepted."""

    names: Tuple[str, ...]
    draws: Any
    summary: Any
    acceptance: float
    move_rate: float
    warnings: Tuple[str, ...]
    n: int
    seed: int

    def to_inference_data(self) -> Any:
        """The draws as an ArviZ InferenceData (dims ``chain``, ``draw``); needs arviz."""
        try:
            import arviz as az
        except ImportError:
            raise ImportError("to_inference_data needs arviz: pip install arviz (or pip install 'privpost[arviz]')") from None
        posterior = {name: self.draws[:, :, i] for i, name in enumerate(self.names)}
        attrs = {"privpost": "infer_model", "seed": str(self.seed), "n": str(self.n)}
        try:
            return az.from_dict(posterior=posterior, attrs=attrs)
        except TypeError:  # ArviZ 1.x: from_dict({"posterior": …})
            return az.from_dict({"posterior": posterior}, attrs=attrs)

    def __repr__(self) -> str:
        c, d, p = self.draws.shape
        return f"ModelResult(chains={c}, draws={d}, parameters={p}, acceptance={self.acceptance:.4f}, warnings={len(self.warnings)})"

    def to_dict(self) -> Dict[str, Any]:
        return {
            "names": list(self.names),
            "summary": self.summary.to_dict("records"),
            "acceptance": self.acceptance,
            "move_rate": self.move_rate,
            "warnings": list(self.warnings),
            "n": self.n,
            "seed": self.seed,
        }


class _Where:
    """Where a chain is, for the messages."""

    def __init__(self, chain: int) -> None:
        self.chain = chain
        self.iteration: Optional[int] = None

    def __str__(self) -> str:
        at = "at the start" if self.iteration is None else f"at iteration {self.iteration}"
        return f"{at} of chain {self.chain}"


def _call(model: Any, part: str, where: _Where, *args: Any) -> Any:
    """``model.part(*args)``; an exception it raises becomes InputError naming the
    part, with the exception chained."""
    try:
        return getattr(model, part)(*args)
    except (KeyboardInterrupt, PrivpostError):
        raise
    except Exception as e:
        raise InputError(f"model.{part} raised {type(e).__name__} {where}: {e}", "model") from e


def _theta(value: Any, part: str, where: _Where, p: Optional[int]) -> Any:
    """θ as a 1-D float array of p finite values."""
    try:
        theta = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as e:
        raise InputError(
            f"model.{part} returned {type(value).__name__} {where}: allowed a number or a 1-D array of numbers", "model"
        ) from e
    if theta.ndim == 0:
        theta = theta.reshape(1)
    if theta.ndim != 1 or theta.size == 0:
        raise InputError(
            f"model.{part} returned θ of shape {theta.shape} {where}: allowed a number or a 1-D array of numbers", "model"
        )
    if p is not None and theta.size != p:
        raise InputError(
            f"model.{part} returned {theta.size} values of θ {where}; allowed: {p}, as before", "model"
        )
    bad = np.flatnonzero(~np.isfinite(theta))
    if bad.size:
        raise InputError(f"model.{part} returned {theta[bad[0]]} in θ[{bad[0]}] {where}: allowed finite numbers", "model")
    return theta


def _proposal(value: Any, where: _Where, like: Optional[Tuple[Any, Any]]) -> Tuple[Any, Any]:
    """``propose``'s (records, contributions), checked: contributions (n, m) finite
    float64; records with n rows (and, after the first, the first's shape)."""
    if isinstance(value, tuple) and len(value) == 2:
        records, contributions = value
    else:
        records = contributions = value
    try:
        records = np.asarray(records)
        c = np.asarray(contributions, dtype="<f8")
    except (TypeError, ValueError) as e:
        raise InputError(
            f"model.propose returned {type(contributions).__name__} contributions {where}: allowed an (n, m) array of numbers",
            "model",
        ) from e
    if c.ndim == 1:
        c = c.reshape(-1, 1)
    if c.ndim != 2 or c.shape[0] == 0 or c.shape[1] == 0:
        raise InputError(
            f"model.propose returned contributions of shape {np.shape(contributions)} {where}: allowed (n, m) or (n,), n ≥ 1 records",
            "model",
        )
    if records.ndim == 0 or records.shape[0] != c.shape[0]:
        raise InputError(
            f"model.propose returned records of shape {records.shape} {where} beside {c.shape[0]} contributions: allowed one record per row",
            "model",
        )
    for what, got, first in (("contributions", c, like[1]), ("records", records, like[0])) if like else ():
        if got.shape != first.shape:
            raise InputError(
                f"model.propose returned {what} of shape {got.shape} {where}; allowed: {first.shape}, as at the start",
                "model",
            )
    finite = np.isfinite(c)
    if not finite.all():
        row, col = np.argwhere(~finite)[0]
        raise InputError(
            f"model.propose returned {c[row, col]} in contributions row {row}, column {col} {where}: allowed finite numbers",
            "model",
        )
    return records, np.ascontiguousarray(c)


def _density(where: _Where, work: Callable[[], Any]) -> Any:
    """``work()``, a call into the engine that may call the user's log density:
    an exception the density raises becomes InputError naming it, chained."""
    try:
        return work()
    except (KeyboardInterrupt, PrivpostError):
        raise
    except Exception as e:
        raise InputError(f"release (the log density) raised {type(e).__name__} {where}: {e}", "release") from e


def _count(name: str, value: Any, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ArgumentTypeError(f"{name} = {value!r}: an integer (got {type(value).__name__})", name)
    if int(value) < least:
        raise InputError(f"{name} = {value}: an integer ≥ {least}", name)
    return int(value)


def infer_model(
    model: Any,
    release: Union[Mapping[str, Any], Callable[[Any], float]],
    *,
    chains: int = 4,
    warmup: int = 1000,
    draws: int = 2000,
    seed: int = 0,
) -> ModelResult:
    """The posterior of your own model's θ given a private release, by
    data-augmentation MCMC (Ju et al. 2022): each iteration draws θ from
    ``model.theta_step(records, rng)``, then one proposal per record from
    ``model.propose(theta, rng)``, which privpost accepts or rejects record by
    record, in order, with probability min(1, η(s_dp | s′)/η(s_dp | s)) (the
    model's terms cancel: the proposals are drawn from the model). See
    :class:`Model` for the three parts.

    ``release``: the mechanism, as one of privpost's laws — a dict of a release
    file's ``[release]`` keys (``mechanism``, ``scale``, ``values``, optional
    ``clamp``; docs/infer.md) — or your own log density, a callable taking the
    statistic s (a float array of m) and returning ln η(s_dp | s) (a real
    number, or -inf where s could not have given the release). Your density is
    called once per proposal that would change the statistic: one Python call
    per record, so a law is far faster at large n.

    Seeds: chain c's model calls get ``numpy.random.default_rng((seed, c))``;
    the accept/reject uniforms come from privpost's own stream of (seed, c). The
    same model, release and seed give the same draws.

    A callable that raises, or returns a wrong shape, NaN or infinity, raises
    InputError (a ValueError) naming the callable, the chain and the iteration,
    with the callable's exception chained. Chains that have not settled warn
    with ConvergenceWarning.

    >>> import numpy as np, privpost
    >>> n, (a, b) = 1000, (1.0, 1.0)
    >>> coin = privpost.Model(
    ...     init=lambda rng: rng.beta(a, b),
    ...     theta_step=lambda x, rng: rng.beta(a + x.sum(), b + n - x.sum()),
    ...     propose=lambda theta, rng: (rng.random(n) < theta).astype(float),
    ...     names=["theta"])
    >>> release = {"mechanism": "laplace", "scale": 2.0, "values": [612.4]}
    >>> result = privpost.infer_model(coin, release, chains=2, warmup=200, draws=500, seed=1)
    >>> 0.58 < float(result.summary["mean"][0]) < 0.64
    True
    """
    chains = _count("chains", chains, 1)
    warmup = _count("warmup", warmup, 0)
    draws = _count("draws", draws, 1)
    seed = _count("seed", seed, 0)
    if seed >= 2**64:
        raise InputError(f"seed = {seed}: an integer below 2**64", "seed")
    for part in ("init", "theta_step", "propose"):
        if not callable(getattr(model, part, None)):
            raise ArgumentTypeError(
                f"model: {type(model).__name__} has no callable {part}; allowed: a privpost.Model, or an object with "
                "init(rng), theta_step(records, rng) and propose(theta, rng)",
                "model",
            )
    own = callable(release)
    if own:
        user = release

        def density(s: List[float]) -> Any:
            return user(np.array(s))  # type: ignore[operator]

        law: Any = density
    elif isinstance(release, Mapping):
        law = dict(release)
    else:
        raise ArgumentTypeError(
            f"release: a dict of the [release] keys (mechanism, scale, values, clamp) or a log density "
            f"(a callable); got {type(release).__name__}",
            "release",
        )

    names: Optional[List[str]] = None
    out: Any = None
    n = 0
    done = np.zeros(3, dtype=np.int64)
    for chain in range(chains):
        where = _Where(chain)
        rng = np.random.default_rng((seed, chain))
        theta = _theta(_call(model, "init", where, rng), "init", where, None)
        if names is None:
            given = getattr(model, "names", None)
            names = [f"theta[{i}]" for i in range(theta.size)] if given is None else [str(x) for x in given]
            if len(names) != theta.size or len(set(names)) != len(names):
                raise InputError(
                    f"model.names: {names!r}; allowed: {theta.size} distinct names, one per entry of θ", "model"
                )
            kept = chains * draws * theta.size
            if kept > _native.MAX_KEPT:
                raise InputError(
                    f"draws = {draws}: {chains} chains × {draws} draws × {theta.size} parameters = {kept:.3e} kept "
                    f"values; allowed: at most {_native.MAX_KEPT:.0e} (8 bytes each), as privpost infer",
                    "draws",
                )
            out = np.empty((chains, draws, theta.size))
        p = len(names)
        theta = _theta(theta, "init", where, p)
        first = _proposal(_call(model, "propose", where, theta, rng), where, None)
        records = np.array(first[0], copy=True)
        n, m = first[1].shape
        sweeper = _density(where, lambda: _native.RecordSweep(first[1].tobytes(), n, m, seed, chain, law))
        before = np.zeros(4, dtype=np.int64)
        for it in range(warmup + draws):
            where.iteration = it
            if it == warmup:
                before = np.array(sweeper.counts(), dtype=np.int64)
            theta = _theta(_call(model, "theta_step", where, records, rng), "theta_step", where, p)
            proposed, c = _proposal(_call(model, "propose", where, theta, rng), where, (records, first[1]))
            answer = _density(where, lambda: sweeper.sweep(c.tobytes(), law if own else None))
            mask = np.frombuffer(answer, dtype=np.uint8).astype(bool)
            records[mask] = proposed[mask]
            if it >= warmup:
                out[chain, it - warmup] = theta
        done += (np.array(sweeper.counts(), dtype=np.int64) - before)[1:]

    assert names is not None
    answer = _native.summarize(
        names,
        np.ascontiguousarray(out, dtype="<f8").tobytes(),
        chains,
        draws,
        int(done[0]),
        int(done[1]),
        int(done[2]),
        n * draws * chains,
    )
    import pandas as pd

    columns = ["parameter", "mean", "sd", "q05", "q50", "q95", "rhat", "ess_bulk", "ess_tail"]
    summary = pd.DataFrame(answer["summary"], columns=columns)
    for w in answer["warnings"]:
        warnings.warn(f"privpost infer_model: {w}", ConvergenceWarning, stacklevel=2)
    return ModelResult(
        names=tuple(names),
        draws=out,
        summary=summary,
        acceptance=float(answer["acceptance"]),
        move_rate=float(answer["move_rate"]),
        warnings=tuple(answer["warnings"]),
        n=n,
        seed=seed,
    )
