"""privpost's functions: each converts and checks its arguments, calls the
typed engine (``privpost._native``, crates/privpost-python) and returns a
typed answer (``_results``); errors are ``privpost.errors`` classes."""

import math
import numbers
import os
import warnings
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from . import _native
from ._results import AccountAnswer, AuditVerdict, FigureRun, InferResult, LedgerCheck, Run
from .errors import (
    AccountantWarning,
    ArgumentTypeError,
    ConvergenceWarning,
    DepartureWarning,
    InputError,
    RunError,
)

PathLike = Union[str, "os.PathLike[str]"]


def _number(name: str, value: Any) -> Optional[float]:
    """A real number argument (numpy's included), checked: not a bool or a string, not NaN."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(f"{name} = {value!r}: a number (got {type(value).__name__})", name)
    x = float(value)
    if math.isnan(x):
        raise InputError(f"{name} = nan: a number, not NaN", name)
    return x


def _integer(name: str, value: Any) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ArgumentTypeError(f"{name} = {value!r}: an integer (got {type(value).__name__})", name)
    if int(value) < 0:
        raise InputError(f"{name} = {value}: an integer ≥ 0", name)
    return int(value)


def _numbers(name: str, values: Any) -> List[float]:
    """A sequence of real numbers (a list, tuple or numpy array), each checked as :func:`_number`."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ArgumentTypeError(f"{name} = {values!r}: a sequence of numbers", name)
    return [_number(name, v) for v in values]  # type: ignore[misc]


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"{name} = {value!r}: True or False", name)
    return bool(value)


def account(
    event: Mapping[str, Any],
    delta: Optional[float] = None,
    *,
    target_epsilon: Optional[float] = None,
    tight: bool = True,
    pld_slack: Optional[float] = None,
    alpha_max: Optional[int] = None,
    fpr: Optional[Sequence[float]] = None,
    prior: float = 0.5,
    target_tpr: Optional[float] = None,
    at_fpr: Optional[float] = None,
    target_advantage: Optional[float] = None,
) -> AccountAnswer:
    """The privacy of an event: ε at ``delta`` by each accountant, and what an
    attacker can do (``answer.attack``: the f-DP trade-off curve, the attacker's
    TPR at each of ``fpr`` — default 10⁻³, 10⁻², 10⁻¹ —, the advantage, the
    Bayes risk at ``prior`` and the safe μ-GDP; docs/privacy.md).

    ``event`` is a dict in the ledger's vocabulary (docs/bring-your-own.md,
    "Your privacy events"): a bare event with ``mechanism``, ``{"schema":
    "privpost-event/1", "event": …}``, or a ledger entry copied from a
    manifest's ``privacy`` list (its claim is then re-verified:
    ``answer.verification.holds``). Numbers may be numpy scalars.
    ``target_epsilon`` asks the inverse question: the largest number of
    repeats of the event within that ε (``answer.largest_repeat``).
    ``target_tpr`` with ``at_fpr`` (the attacker's TPR at that FPR at most
    ``target_tpr``), or ``target_advantage``, calibrate to an attack risk
    (``answer.question == "calibrate"``): the largest pure ε
    (``answer.pure_epsilon``) and μ-GDP (``answer.gdp_mu``) that meet it, and
    the smallest factor on the event's noise scales that does
    (``answer.noise_factor``, ``answer.calibrated_event``).

    >>> import privpost
    >>> a = privpost.account({"mechanism": "laplace", "l1_sensitivity": 1.0, "scale": 2.0})
    >>> a.question, a.best.epsilon
    ('forward', 0.5)
    >>> g = {"mechanism": "gaussian", "l2_sensitivity": 1.0, "sigma": 2.0, "rdp_scale": 0.5}
    >>> round(privpost.account(g, delta=1e-5).best.epsilon, 4)
    1.9931
    >>> a = privpost.account(g, delta=1e-5, fpr=[0.01])
    >>> round(a.attack.mu, 6), round(a.attack.tpr_at_fpr[0.01], 4)
    (0.5, 0.0339)
    >>> repeated = {"mechanism": "repeat", "times": 100, "event": g}
    >>> privpost.account(repeated, delta=1e-5, target_epsilon=10.0).largest_repeat
    16
    >>> c = privpost.account(g, target_tpr=0.05, at_fpr=0.01)
    >>> round(c.gdp_mu, 4), round(c.noise_factor, 3)
    (0.6815, 0.734)

    Raises InputError (a ValueError) naming the key at fault; an order search
    that ends at ``alpha_max`` warns with AccountantWarning.
    """
    if not isinstance(event, Mapping):
        raise ArgumentTypeError(
            f"event: a dict (an event in the ledger's vocabulary), got {type(event).__name__}", "event"
        )
    answer = AccountAnswer._of(
        _native.account(
            dict(event),
            delta=_number("delta", delta),
            target_epsilon=_number("target_epsilon", target_epsilon),
            tight=_flag("tight", tight),
            pld_slack=_number("pld_slack", pld_slack),
            alpha_max=_integer("alpha_max", alpha_max),
            fpr=None if fpr is None else _numbers("fpr", fpr),
            prior=_number("prior", prior),
            target_tpr=_number("target_tpr", target_tpr),
            at_fpr=_number("at_fpr", at_fpr),
            target_advantage=_number("target_advantage", target_advantage),
        )
    )
    for message in answer.warnings:
        warnings.warn(message, AccountantWarning, stacklevel=2)
    return answer


def verify_ledger(manifest: PathLike) -> LedgerCheck:
    """A run's privacy ledger re-verified: every entry's claim recomputed from
    its event, the figure's releases (a chain's checkpoints are one release, at
    its last) and the compositions its manifest declares (``released_with``).
    ``manifest`` is a figure's folder or its manifest.json (or a JSON object
    with a ``privacy`` list). The same check as ``privpost account --manifest``.

    >>> import tempfile, privpost
    >>> folder = privpost.run("foulds2016/fig2", smoke=True, out=tempfile.mkdtemp())[0].folder
    >>> check = privpost.verify_ledger(folder)
    >>> check.holds, len(check.releases) == len(check.entries) > 0
    (True, True)

    A claim that does not hold is in the answer (``check.holds`` is False,
    each entry's ``reason``), not an exception. Raises PathNotFoundError (a
    FileNotFoundError) for a missing file, InputError for a file that holds
    no ledger.
    """
    if not isinstance(manifest, (str, os.PathLike)):
        raise ArgumentTypeError(f"manifest = {manifest!r}: a path", "manifest")
    return LedgerCheck._of(_native.verify_ledger(os.fspath(manifest)))


def _column(samples: Any, name: str) -> List[float]:
    """A column of a DataFrame, dict or structured array as floats (booleans as 1/0)."""
    try:
        column = samples[name]
    except (KeyError, TypeError, IndexError, ValueError):
        raise InputError(
            "samples: columns `label` and `score` (allowed: a DataFrame, a dict of lists or arrays, "
            "or a CSV file's path)",
            "samples",
            name,
        ) from None
    values = np.asarray(column)
    if values.dtype == bool:
        values = values.astype(float)
    if values.ndim != 1:
        raise InputError(f"samples: column `{name}` has shape {values.shape}; allowed: one dimension", "samples", name)
    try:
        return [float(x) for x in values.astype(float).tolist()]
    except (TypeError, ValueError):
        for i, v in enumerate(values.tolist()):
            try:
                float(v)
            except (TypeError, ValueError):
                raise InputError(
                    f"samples: row {i}: column `{name}` = {v!r}: a number", "samples", name
                ) from None
        raise


def audit_samples(
    samples: Any,
    *,
    epsilon: float,
    delta: Optional[float] = None,
    order: Optional[float] = None,
    log_ratio: bool = False,
    confidence: float = 0.95,
) -> AuditVerdict:
    """Audits a privacy claim from a mechanism's outputs on neighbours D and D′.

    ``samples``: a pandas DataFrame, a dict of lists or numpy arrays, or a CSV
    file's path, with columns ``label`` (1 or True: drawn on D; 0 or False: on
    D′) and ``score`` (higher suggests D; with ``log_ratio``, the exact
    ln p(x)/p′(x)); at least 20 of each. The claim: ``epsilon``, with
    ``delta`` for (ε, δ)-DP or ``order`` for Rényi DP (needs ``log_ratio``).
    A FAIL is an answer (``verdict.passed`` False), not an exception.

    >>> import numpy as np, privpost
    >>> rng = np.random.default_rng(1)
    >>> labels = np.repeat([1, 0], 2000)
    >>> scores = rng.laplace(labels, 1.0)      # Laplace noise of scale 1 on a count: ε = 1
    >>> privpost.audit_samples({"label": labels, "score": scores}, epsilon=1.0).verdict
    'PASS'
    >>> privpost.audit_samples({"label": labels, "score": scores}, epsilon=0.05).verdict
    'FAIL'
    """
    level = _number("confidence", confidence)
    eps = _number("epsilon", epsilon)
    if eps is None or level is None:
        raise InputError("epsilon and confidence: numbers, not None", "epsilon" if eps is None else "confidence")
    d, a, lr = _number("delta", delta), _number("order", order), _flag("log_ratio", log_ratio)
    if isinstance(samples, (str, os.PathLike)):
        raw = _native.audit_samples(None, None, os.fspath(samples), eps, d, a, lr, level)
    else:
        labels, scores = _column(samples, "label"), _column(samples, "score")
        raw = _native.audit_samples(labels, scores, None, eps, d, a, lr, level)
    return AuditVerdict._of(raw)


_WARNINGS = {"convergence": ConvergenceWarning, "departure": DepartureWarning}


def infer(
    release: Union[Mapping[str, Any], PathLike],
    *,
    out: PathLike = "results",
    name: Optional[str] = None,
    recorded: Optional[str] = None,
    jobs: Optional[int] = None,
    allow_long: bool = False,
) -> InferResult:
    """The posterior of a model's parameters from a private release
    (data-augmentation MCMC, Ju et al. 2022), as ``privpost infer``.

    ``release``: a dict of a release file's keys (``model``, ``prior``, ``n``,
    ``release``, optional ``sampler``; docs/infer.md; numbers and lists may be
    numpy), a release file's path (TOML), or a figure's folder or manifest with
    ``recorded`` naming the release it recorded. Writes
    ``<out>/infer/<name>/`` (draws, summary, figure, manifest), whole or not at
    all: Ctrl-C stops the chains within a second and writes nothing. Without
    ``name``, a TOML file's stem, or ``release-`` and 12 hex digits of the
    dict's SHA-256 (a recorded release: its figure folder's name and its own). Chains that have not settled warn with ConvergenceWarning; a
    released value no dataset could give, with DepartureWarning.

    >>> import tempfile, privpost
    >>> release = {"model": "beta_bernoulli", "prior": {"alpha": [1.0, 1.0]}, "n": 50, "counts": "free",
    ...            "release": {"mechanism": "laplace", "scale": 2.0, "values": [31.4]},
    ...            "sampler": {"chains": 2, "warmup": 200, "draws": 1000, "seed": 7}}
    >>> result = privpost.infer(release, out=tempfile.mkdtemp(), name="coin")
    >>> result.folder.name, list(result.summary["parameter"])
    ('coin', ['theta'])
    >>> 0.4 < float(result.summary["mean"][0]) < 0.8
    True
    """
    if isinstance(release, Mapping):
        release = dict(release)
    elif not isinstance(release, (str, os.PathLike)):
        raise ArgumentTypeError(
            f"release: a dict of a release file's keys, or a path (got {type(release).__name__})", "release"
        )
    if name is not None and not isinstance(name, str):
        raise ArgumentTypeError(f"name = {name!r}: a string", "name")
    if recorded is not None and not isinstance(recorded, str):
        raise ArgumentTypeError(f"recorded = {recorded!r}: a string", "recorded")
    if not isinstance(out, (str, os.PathLike)):
        raise ArgumentTypeError(f"out = {out!r}: a path", "out")
    outcome = _native.infer(
        release if isinstance(release, dict) else os.fspath(release),
        name=name,
        recorded=recorded,
        out=os.fspath(out),
        jobs=_integer("jobs", jobs),
        allow_long=_flag("allow_long", allow_long),
    )
    for w in outcome["warnings"]:
        warnings.warn(f"privpost infer: {w['message']}", _WARNINGS[w["kind"]], stacklevel=2)
    return InferResult(
        run=load(outcome["folder"]),
        warnings=tuple(w["message"] for w in outcome["warnings"]),
        acceptance=float(outcome["acceptance"]),
        move_rate=float(outcome["move_rate"]),
        acceptance_bound=outcome["acceptance_bound"],
        kernel=str(outcome["kernel"]),
        release_epsilon=outcome["release_epsilon"],
        wall_seconds=float(outcome["wall_seconds"]),
        cpu_seconds=float(outcome["cpu_seconds"]),
    )


def run(
    *targets: str,
    smoke: bool = False,
    profile: Optional[str] = None,
    set: Sequence[str] = (),
    all: bool = False,
    configs: Optional[PathLike] = None,
    out: PathLike = "results",
    jobs: Optional[int] = None,
    force: bool = False,
    no_cache: bool = False,
    keep_going: bool = False,
    allow_long: bool = False,
) -> List[FigureRun]:
    """Figures computed and written, as ``privpost run TARGET...``: figure ids
    (``"foulds2016/fig2"``), paper ids or config files; ``smoke=True`` is the
    reduced profile, ``set=["epsilon=0.5"]`` the ``--set`` overrides. Each
    folder goes under ``<out>/<paper>/``; finished tasks are kept in the task
    cache, so a second call computes nothing. Prints nothing. Ctrl-C stops the
    workers between tasks (KeyboardInterrupt; the finished tasks are kept, no
    folder written). A figure that fails raises RunError (with
    ``keep_going=True``, after the others ran, naming each).

    >>> import tempfile, privpost
    >>> out = tempfile.mkdtemp()
    >>> [r.folder.name for r in privpost.run("foulds2016/fig2", smoke=True, out=out)]
    ['fig2@smoke']
    >>> privpost.run("foulds2016/fig2", smoke=True, out=out)[0].up_to_date
    True
    """
    for t in targets:
        if not isinstance(t, (str, os.PathLike)):
            raise ArgumentTypeError(f"targets: {t!r} is not a figure id or a path", "targets")
    if isinstance(set, str) or not _all_strings(set):
        raise ArgumentTypeError(f"set = {set!r}: a list of KEY=VALUE strings", "set")
    if profile is not None and not isinstance(profile, str):
        raise ArgumentTypeError(f"profile = {profile!r}: a profile's name", "profile")
    if _flag("smoke", smoke):
        if profile is not None:
            raise InputError("smoke=True and profile: give one of them", "profile")
        profile = "smoke"
    for name, value in [("out", out)] + ([("configs", configs)] if configs is not None else []):
        if not isinstance(value, (str, os.PathLike)):
            raise ArgumentTypeError(f"{name} = {value!r}: a path", name)
    outcome = _native.run(
        [os.fspath(t) for t in targets],
        all=_flag("all", all),
        profile=profile,
        set=list(set),
        configs=None if configs is None else os.fspath(configs),
        out=os.fspath(out),
        jobs=_integer("jobs", jobs),
        force=_flag("force", force),
        no_cache=_flag("no_cache", no_cache),
        keep_going=_flag("keep_going", keep_going),
        allow_long=_flag("allow_long", allow_long),
    )
    if outcome["failures"]:
        lines = "\n  ".join(f"{f['figure']}: {f['message']}" for f in outcome["failures"])
        raise RunError(f"{len(outcome['failures'])} figure(s) failed:\n  {lines}", "targets")
    return [FigureRun._of(r) for r in outcome["reports"]]


def _all_strings(values: Any) -> bool:
    try:
        return all(isinstance(v, str) for v in values)
    except TypeError:
        return False


def load(folder: PathLike) -> Run:
    """A figure's (or ``infer``'s) folder: every CSV as a pandas DataFrame, and
    the manifest (read and checked by the engine: a manifest of an older
    privpost still reads; a damaged one raises InputError naming the key).

    >>> import tempfile, privpost
    >>> release = {"model": "beta_bernoulli", "prior": {"alpha": [1.0, 1.0]}, "n": 50, "counts": "free",
    ...            "release": {"mechanism": "laplace", "scale": 2.0, "values": [31.4]},
    ...            "sampler": {"chains": 2, "warmup": 200, "draws": 500, "seed": 7}}
    >>> folder = privpost.infer(release, out=tempfile.mkdtemp(), name="coin").folder
    >>> run = privpost.load(folder)
    >>> sorted(run.tables), run.manifest["command"]
    (['draws', 'summary'], 'infer')
    """
    import pandas as pd

    if not isinstance(folder, (str, os.PathLike)):
        raise ArgumentTypeError(f"folder = {folder!r}: a path", "folder")
    # the manifest is read and checked by the engine, typed (a figure's or infer's)
    loaded = _native.load(os.fspath(folder))
    root = Path(folder)
    tables = {}
    for csv in loaded["tables"]:
        csv = Path(csv)
        try:
            tables[csv.stem] = pd.read_csv(csv)
        except Exception as e:  # a damaged file: name it
            raise InputError(f"{csv}: cannot be read as CSV: {e}", "folder", csv.name) from None
    manifest = loaded["manifest"]
    return Run(tables=tables, manifest=manifest, folder=root)


def to_inference_data(source: Union[Run, InferResult, PathLike], **run: Any) -> Any:
    """The kept draws of one run as an ArviZ InferenceData (dims ``chain``, ``draw``).

    ``source``: a folder with ``draws.csv`` (docs/outputs.md, "Posterior draws"),
    its :func:`load`\\ ed Run, or an :func:`infer` result. When the folder holds
    several runs, name one by its run columns:
    ``to_inference_data(folder, method="dp_hmc", epsilon=8, repeat=0)``.
    Needs arviz (``pip install 'privpost[arviz]'``).

    >>> import tempfile, privpost
    >>> release = {"model": "beta_bernoulli", "prior": {"alpha": [1.0, 1.0]}, "n": 50, "counts": "free",
    ...            "release": {"mechanism": "laplace", "scale": 2.0, "values": [31.4]},
    ...            "sampler": {"chains": 2, "warmup": 200, "draws": 500, "seed": 7}}
    >>> idata = privpost.to_inference_data(privpost.infer(release, out=tempfile.mkdtemp()))
    >>> dict(idata.posterior.sizes)
    {'chain': 2, 'draw': 500}
    """
    try:
        import arviz as az
    except ImportError:
        raise ImportError("to_inference_data needs arviz: pip install arviz (or pip install 'privpost[arviz]')") from None
    import pandas as pd

    loaded = source.run if isinstance(source, InferResult) else source if isinstance(source, Run) else load(source)
    layout = loaded.manifest.get("draws")
    if not layout:
        raise InputError(
            f"{loaded.folder}: keeps no posterior draws (its manifest has no `draws`); "
            "allowed: an infer folder, heikkila2019/fig2, or a figure run with --set keep_draws=true",
            "source",
        )
    draws = loaded.tables.get(Path(layout["file"]).stem)
    if draws is None:
        raise InputError(f"{loaded.folder}: {layout['file']} is missing", "source")
    run_columns = list(layout["run_columns"])
    parameters = list(layout["parameters"])
    unknown = sorted(set(run) - set(run_columns))
    if unknown:
        allowed = ", ".join(run_columns) or "none (the folder holds one run)"
        raise InputError(f"{loaded.folder}: run column {unknown[0]!r} unknown; allowed: {allowed}", unknown[0])
    picked = draws
    for column, value in run.items():
        if isinstance(value, float) and math.isnan(value):
            raise InputError(f"{column} = nan: a value of the column, not NaN", column)
        col = picked[column]
        if pd.api.types.is_numeric_dtype(col):
            x = _number(column, value)
            picked = picked[col.astype(float) == x]
        else:
            picked = picked[col.astype(str) == str(value)]
    if picked.empty:
        raise InputError(f"{loaded.folder}: no draws with {run!r}; the runs: {_runs(draws, run_columns)}", "run")
    if run_columns and len(picked.groupby(run_columns).size()) > 1:
        raise InputError(
            f"{loaded.folder}: {len(picked.groupby(run_columns).size())} runs match; name one with "
            f"keyword arguments ({', '.join(run_columns)}): {_runs(picked, run_columns)}",
            "run",
        )
    lengths = picked.groupby("chain").size()
    if lengths.nunique() != 1:
        raise InputError(
            f"{loaded.folder}: the chains have different lengths {dict(lengths)}: not one (chain, draw) array", "source"
        )
    picked = picked.sort_values(["chain", "draw"])
    shape = (len(lengths), int(lengths.iloc[0]))
    posterior = {p: picked[p].to_numpy(dtype=float).reshape(shape) for p in parameters}
    attrs: Dict[str, str] = {"privpost_folder": str(loaded.folder)}
    attrs.update({str(k): str(v) for k, v in run.items()})
    try:
        return az.from_dict(posterior=posterior, attrs=attrs)
    except TypeError:  # ArviZ 1.x: from_dict({"posterior": …})
        return az.from_dict({"posterior": posterior}, attrs=attrs)


def _runs(table: Any, run_columns: List[str], most: int = 8) -> str:
    keys = table[run_columns].drop_duplicates().head(most + 1).to_dict("records")
    text = "; ".join(", ".join(f"{k}={v}" for k, v in r.items()) for r in keys[:most])
    return text + ("; …" if len(keys) > most else "")
