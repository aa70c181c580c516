"""privpost from Python: the accountants, the audit and `infer` of the Rust crate
(the same code and numbers as the `privpost` command), and readers for the
folders it writes.

    import privpost
    privpost.account({"mechanism": "gaussian", "l2_sensitivity": 1.0, "sigma": 2.0,
                      "rdp_scale": 0.5}, delta=1e-5)
    run = privpost.load("results/foulds2016/fig2")      # run.tables["summary"], run.manifest
    idata = privpost.to_inference_data("results/heikkila2019/fig2", sampler="private")

Bad input raises ValueError with the CLI's message; a failure while running,
RuntimeError.
"""

import hashlib
import json
import math
import numbers
import os
import warnings
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional

from . import _native

__all__ = ["account", "audit_samples", "infer", "load", "to_inference_data", "Run"]
__version__ = _native.version().split(" ")[0]


def _number(name: str, value: Any, *, allow_none: bool = True) -> Optional[float]:
    """A real number argument, checked: not a bool or a string, not NaN."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} = {value!r}: a number (got {type(value).__name__})")
    x = float(value)
    if math.isnan(x):
        raise ValueError(f"{name} = nan: a number, not NaN")
    return x


def _json(name: str, value: Any) -> str:
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name}: {e} (allowed: JSON values; NaN and infinities are not)") from None
    except RecursionError:
        raise ValueError(f"{name}: nested too deeply to be a privpost input (allowed: at most 128 levels)") from None


def account(
    event: Any,
    delta: Optional[float] = None,
    *,
    target_epsilon: Optional[float] = None,
    tight: bool = True,
    pld_slack: Optional[float] = None,
    alpha_max: Optional[int] = None,
) -> Dict[str, Any]:
    """The privacy of an event, as `privpost account --event FILE --json` answers it.

    `event` is the event file's content as a dict (a bare event with `mechanism`,
    `{"schema": "privpost-event/1", "event": …}`, or a ledger entry from a
    manifest's `privacy` list, which is then verified: the answer's `holds`).
    Returns the CLI's JSON answer as a dict (`answers`: one per accountant, with
    `epsilon`, `delta`, `order`).
    """
    if not isinstance(event, dict):
        raise ValueError(f"event: a dict (the event file's JSON), got {type(event).__name__}")
    flags: List[str] = []
    for name, value in (("delta", delta), ("target-epsilon", target_epsilon), ("pld-slack", pld_slack)):
        x = _number(name.replace("-", "_"), value)
        if x is not None:
            flags += [f"--{name}", repr(x)]
    if alpha_max is not None:
        if isinstance(alpha_max, bool) or not isinstance(alpha_max, numbers.Integral):
            raise ValueError(f"alpha_max = {alpha_max!r}: an integer (got {type(alpha_max).__name__})")
        flags += ["--alpha-max", str(int(alpha_max))]
    if not isinstance(tight, bool):
        raise ValueError(f"tight = {tight!r}: True or False")
    if not tight:
        flags.append("--no-tight")
    return json.loads(_native.account(_json("event", event), flags))


def audit_samples(
    samples: Any,
    claim: str,
    *,
    log_ratio: bool = False,
    confidence: float = 0.95,
) -> Dict[str, Any]:
    """Audits a claim from a mechanism's outputs, as `privpost audit --samples … --json`.

    `samples`: a CSV file's path, or a pandas DataFrame (or a dict of lists) with
    columns `label` (1 = drawn on D, 0 = on D′) and `score` (higher suggests D; with
    `log_ratio`, the exact ln p(x)/p′(x)). `claim`: `"epsilon=E"`,
    `"epsilon=E,delta=D"` or `"epsilon=E,order=A"`. Returns the CLI's JSON answer
    as a dict; `verdict` is PASS or FAIL (a FAIL is an answer, not an exception).
    """
    if not isinstance(claim, str):
        raise ValueError(f"claim = {claim!r}: a string such as \"epsilon=1\"")
    if not isinstance(log_ratio, bool):
        raise ValueError(f"log_ratio = {log_ratio!r}: True or False")
    level = _number("confidence", confidence, allow_none=False)
    if isinstance(samples, (str, os.PathLike)):
        path = Path(samples)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise ValueError(f"{path}: {e.strerror or e}") from None
        name = str(path)
    else:
        text = _samples_csv(samples)
        name = "samples"
    answer = json.loads(_native.audit_samples(text, claim, log_ratio, level))
    if name != "samples":
        answer["file"] = name
    return answer


def _samples_csv(samples: Any) -> str:
    """`label,score` CSV text of a DataFrame or a dict of lists, checked row by row."""
    try:
        labels = list(samples["label"])
        scores = list(samples["score"])
    except (KeyError, TypeError, IndexError):
        raise ValueError(
            "samples: columns `label` and `score` (allowed: a DataFrame or a dict of lists "
            "with them, or a CSV file's path)"
        ) from None
    if len(labels) != len(scores):
        raise ValueError(f"samples: {len(labels)} labels but {len(scores)} scores")
    lines = ["label,score"]
    for i, (label, score) in enumerate(zip(labels, scores)):
        if isinstance(label, bool) or not isinstance(label, numbers.Real) or label not in (0, 1):
            raise ValueError(f"samples: row {i}: label = {label!r}; allowed: 1 (drawn on D) or 0 (on D′)")
        x = _number(f"samples: row {i}: score", score, allow_none=False)
        lines.append(f"{int(label)},{x!r}")
    return "\n".join(lines) + "\n"


def infer(
    release: Any,
    *,
    out: "str | os.PathLike[str]" = "results",
    name: Optional[str] = None,
    jobs: Optional[int] = None,
) -> "Run":
    """The posterior from a private release, as `privpost infer RELEASE.toml`.

    `release` is the release file's content as a dict (`model`, `prior`, `n`,
    `[release]`, optional `[sampler]`; docs/infer.md), or a TOML file's path.
    Writes `<out>/infer/<name>/` (draws, summary, figure, manifest) and returns it
    loaded ([`load`]); `to_inference_data` reads its draws. Without `name`, a
    file's stem, or for a dict `release-` and 12 hex digits of its content's
    SHA-256 (so two releases never share a folder). What the CLI warns of (chains
    that have not settled, a value beyond every possible statistic) is issued as
    a Python warning (RuntimeWarning).
    """
    if isinstance(release, (str, os.PathLike)):
        path = Path(release)
        try:
            import tomllib
        except ImportError:  # Python < 3.11
            raise ValueError(f"{path}: reading TOML needs Python 3.11; give the release as a dict") from None
        try:
            with open(path, "rb") as f:
                release = tomllib.load(f)
        except OSError as e:
            raise ValueError(f"{path}: {e.strerror or e}") from None
        except tomllib.TOMLDecodeError as e:
            raise ValueError(f"{path}: {e}") from None
        name = path.stem if name is None else name
    if not isinstance(release, dict):
        raise ValueError(f"release: a dict (the release file's keys), got {type(release).__name__}")
    if name is None:
        text = json.dumps(release, sort_keys=True, allow_nan=True, default=str)
        name = "release-" + hashlib.sha256(text.encode()).hexdigest()[:12]
    if not isinstance(name, str) or not name:
        raise ValueError(f"name = {name!r}: a non-empty string")
    flags = ["--out", os.fspath(out), "--quiet"]
    if jobs is not None:
        if isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral):
            raise ValueError(f"jobs = {jobs!r}: an integer")
        flags += ["--jobs", str(int(jobs))]
    folder = _native.infer(_json(name, release), name, flags)
    run = load(folder)
    for message in run.manifest.get("warnings", []):
        warnings.warn(f"privpost infer: {message}", RuntimeWarning, stacklevel=2)
    return run


class Run(NamedTuple):
    """A result folder: its CSV tables by name (`data`, `summary`, `draws`, …) and
    its manifest (the privacy ledger is `manifest["privacy"]`)."""

    tables: Dict[str, Any]
    manifest: Dict[str, Any]
    folder: Path

    @property
    def ledger(self) -> List[Dict[str, Any]]:
        """The manifest's privacy ledger: one entry per series or grid point."""
        return list(self.manifest.get("privacy", []))

    @property
    def summary(self):
        return self.tables["summary"]

    @property
    def data(self):
        return self.tables["data"]


def load(folder: "str | os.PathLike[str]") -> Run:
    """A figure's (or `infer`'s) folder: every CSV as a pandas DataFrame, and the manifest."""
    import pandas as pd

    if not isinstance(folder, (str, os.PathLike)):
        raise ValueError(f"folder = {folder!r}: a path")
    root = Path(folder)
    manifest_file = root / "manifest.json"
    if not root.is_dir():
        raise ValueError(f"{root}: not a folder (allowed: a figure folder privpost wrote, e.g. results/foulds2016/fig2)")
    if not manifest_file.is_file():
        raise ValueError(f"{root}: no manifest.json — not a folder privpost wrote (allowed: a figure or infer folder)")
    try:
        manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"{manifest_file}: not a manifest: {e}") from None
    tables = {}
    for csv in sorted(root.glob("*.csv")):
        try:
            tables[csv.stem] = pd.read_csv(csv)
        except Exception as e:  # a damaged file: name it
            raise ValueError(f"{csv}: cannot be read as CSV: {e}") from None
    return Run(tables=tables, manifest=manifest, folder=root)


def to_inference_data(source: "Run | str | os.PathLike[str]", **run: Any):
    """The kept draws of one run as an ArviZ InferenceData (dims `chain`, `draw`).

    `source`: a folder with `draws.csv` (docs/outputs.md, "Posterior draws") or
    its [`load`]ed Run. When the folder holds several runs, name one by its run
    columns: `to_inference_data(folder, method="dp_hmc", epsilon=8, repeat=0)`.
    Needs arviz (`pip install arviz`).
    """
    try:
        import arviz as az
    except ImportError:
        raise ImportError("to_inference_data needs arviz: pip install arviz (or pip install 'privpost[arviz]')") from None
    import pandas as pd

    loaded = source if isinstance(source, Run) else load(source)
    layout = loaded.manifest.get("draws")
    if not layout:
        raise ValueError(
            f"{loaded.folder}: keeps no posterior draws (its manifest has no `draws`); "
            "allowed: an infer folder, heikkila2019/fig2, or a figure run with --set keep_draws=true"
        )
    draws = loaded.tables.get(Path(layout["file"]).stem)
    if draws is None:
        raise ValueError(f"{loaded.folder}: {layout['file']} is missing")
    run_columns = list(layout["run_columns"])
    parameters = list(layout["parameters"])
    unknown = sorted(set(run) - set(run_columns))
    if unknown:
        allowed = ", ".join(run_columns) or "none (the folder holds one run)"
        raise ValueError(f"{loaded.folder}: run column {unknown[0]!r} unknown; allowed: {allowed}")
    picked = draws
    for column, value in run.items():
        if isinstance(value, float) and math.isnan(value):
            raise ValueError(f"{column} = nan: a value of the column, not NaN")
        col = picked[column]
        if pd.api.types.is_numeric_dtype(col):
            x = _number(column, value, allow_none=False)
            picked = picked[col.astype(float) == x]
        else:
            picked = picked[col.astype(str) == str(value)]
    if picked.empty:
        raise ValueError(f"{loaded.folder}: no draws with {run!r}; the runs: {_runs(draws, run_columns)}")
    if run_columns and len(picked.groupby(run_columns).size()) > 1:
        raise ValueError(
            f"{loaded.folder}: {len(picked.groupby(run_columns).size())} runs match; name one with "
            f"keyword arguments ({', '.join(run_columns)}): {_runs(picked, run_columns)}"
        )
    lengths = picked.groupby("chain").size()
    if lengths.nunique() != 1:
        raise ValueError(f"{loaded.folder}: the chains have different lengths {dict(lengths)}: not one (chain, draw) array")
    picked = picked.sort_values(["chain", "draw"])
    shape = (len(lengths), int(lengths.iloc[0]))
    posterior = {p: picked[p].to_numpy(dtype=float).reshape(shape) for p in parameters}
    attrs = {"privpost_folder": str(loaded.folder)}
    attrs.update({str(k): str(v) for k, v in run.items()})
    try:
        return az.from_dict(posterior=posterior, attrs=attrs)
    except TypeError:  # ArviZ 1.x: from_dict({"posterior": …})
        return az.from_dict({"posterior": posterior}, attrs=attrs)


def _runs(table, run_columns: List[str], most: int = 8) -> str:
    keys = table[run_columns].drop_duplicates().head(most + 1).to_dict("records")
    text = "; ".join(", ".join(f"{k}={v}" for k, v in r.items()) for r in keys[:most])
    return text + ("; …" if len(keys) > most else "")
