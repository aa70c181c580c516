"""privpost from Python: the accountants, the sample audit, the papers' figures
and the posterior from a private release (of a built-in model, or of your own
model written in Python) of the Rust crate (the same code and numbers as the
``privpost`` command, called with typed values, not command lines), and
readers for the folders it writes.

>>> import privpost
>>> privpost.account({"mechanism": "laplace", "l1_sensitivity": 1.0, "scale": 2.0}).best.epsilon
0.5

Answers are typed (:class:`AccountAnswer`, :class:`AuditVerdict`,
:class:`InferResult`, :class:`FigureRun`, :class:`Run`, :class:`LedgerCheck`; each with ``to_dict()``); errors are
:mod:`privpost.errors` classes that are also ValueError, FileNotFoundError,
OSError or RuntimeError; warnings are :class:`PrivpostWarning` subclasses.
docs/python.md is the guide.
"""

from . import _native
from ._api import account, audit_samples, infer, load, run, to_inference_data, verify_ledger
from ._model import Model, ModelResult, infer_model
from ._results import (
    Accounted,
    AccountAnswer,
    AttackRisk,
    AuditVerdict,
    Composition,
    FigureRun,
    InferResult,
    LedgerCheck,
    LedgerEntry,
    Release,
    ReleaseRisk,
    Run,
    Verification,
)
from .errors import (
    AccountantWarning,
    ArgumentTypeError,
    ConvergenceWarning,
    DepartureWarning,
    InputError,
    PathNotFoundError,
    PrivpostError,
    PrivpostOSError,
    PrivpostWarning,
    RunError,
)

__all__ = [
    "AttackRisk",
    "account",
    "audit_samples",
    "infer",
    "infer_model",
    "Model",
    "ModelResult",
    "load",
    "run",
    "to_inference_data",
    "verify_ledger",
    "AccountAnswer",
    "Accounted",
    "Verification",
    "LedgerCheck",
    "LedgerEntry",
    "Release",
    "ReleaseRisk",
    "Composition",
    "AuditVerdict",
    "InferResult",
    "FigureRun",
    "Run",
    "PrivpostError",
    "InputError",
    "ArgumentTypeError",
    "PathNotFoundError",
    "PrivpostOSError",
    "RunError",
    "PrivpostWarning",
    "ConvergenceWarning",
    "DepartureWarning",
    "AccountantWarning",
]
__version__: str = _native.version().split(" ")[0]
