"""The typed answers of privpost's functions: frozen dataclasses with a
readable ``repr`` and ``to_dict()`` (the object ``privpost … --json`` prints)."""

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple


def _float(x: Any) -> float:
    """A number of an answer: JSON's "inf" / "-inf" strings as infinities."""
    if isinstance(x, str):
        return math.inf if x == "inf" else -math.inf if x == "-inf" else float(x)
    return float(x)


def _opt(x: Any) -> Optional[float]:
    return None if x is None else _float(x)


@dataclass(frozen=True)
class Accounted:
    """One accountant's answer: ε at δ (``order``: the Rényi order of an RDP
    bound; ``slack``: how far a PLD answer may exceed the exact ε;
    ``iterations``: the repeats it is for)."""

    accountant: str
    epsilon: float
    delta: float
    order: Optional[float] = None
    slack: float = 0.0
    iterations: Optional[int] = None

    @classmethod
    def _of(cls, d: Dict[str, Any]) -> "Accounted":
        return cls(
            accountant=d["accountant"],
            epsilon=_float(d["epsilon"]),
            delta=_float(d["delta"]),
            order=_opt(d.get("order")),
            slack=_float(d.get("slack") or 0.0),
            iterations=d.get("iterations"),
        )


@dataclass(frozen=True)
class Verification:
    """A ledger entry's claim beside the ε recomputed from its event."""

    series: str
    claim: Dict[str, Any]
    #: None where the claim has no single ε (an RDP curve, no privacy: JSON's null)
    claim_epsilon: Optional[float]
    claim_delta: Optional[float]
    recomputed_epsilon: Optional[float]
    holds: bool


@dataclass(frozen=True)
class AttackRisk:
    """What an attacker can do against an event (its f-DP trade-off curve).

    ``tpr_at_fpr`` maps each requested FPR to the attacker's largest TPR;
    ``mu`` is the smallest μ whose Gaussian curve lies below the event's wherever
    the FPR and the miss rate are at least ``mu_rates`` (10⁻¹⁰, gdpnum's
    convention); ``curve`` holds (α, β(α)) pairs.
    """

    method: str
    mu: Optional[float]
    mu_rates: float
    regret: Optional[float]
    tpr_at_fpr: Dict[float, float]
    advantage: float
    prior: float
    bayes_risk: float
    curve: Tuple[Tuple[float, float], ...]

    @classmethod
    def _of(cls, d: Dict[str, Any]) -> "AttackRisk":
        return cls(
            method=d["method"],
            mu=_opt(d.get("mu")),
            mu_rates=float(d["mu_rates"]),
            regret=_opt(d.get("regret")),
            tpr_at_fpr={float(p["fpr"]): float(p["tpr"]) for p in d["tpr_at_fpr"]},
            advantage=float(d["advantage"]),
            prior=float(d["prior"]),
            bayes_risk=float(d["bayes_risk"]),
            curve=tuple((float(a), float(b)) for a, b in d["curve"]),
        )


@dataclass(frozen=True)
class AccountAnswer:
    """What :func:`privpost.account` answers.

    ``question`` is ``"forward"`` (ε of the event by each accountant),
    ``"inverse"`` (the largest number of repeats within ``target_epsilon``;
    ``answers`` holds the forward check at it), ``"calibrate"`` (a target
    attack risk: ``pure_epsilon``, ``gdp_mu``, ``noise_factor``) or ``"verify"`` (a ledger entry's
    claim re-checked: ``verification``).
    """

    question: str
    answers: Tuple[Accounted, ...]
    warnings: Tuple[str, ...] = ()
    mechanism: Optional[str] = None
    target_epsilon: Optional[float] = None
    verification: Optional[Verification] = None
    attack: Optional[AttackRisk] = None
    #: calibration (``question == "calibrate"``): the target, e.g.
    #: ``{"kind": "tpr", "tpr": 0.05, "fpr": 0.01}`` or ``{"kind": "advantage", …}``
    target: Optional[Dict[str, Any]] = None
    #: the largest pure ε whose trade-off curve meets the target
    pure_epsilon: Optional[float] = None
    #: the largest μ-GDP that meets it (a Gaussian mechanism: σ = Δ/μ)
    gdp_mu: Optional[float] = None
    #: the smallest factor on the event's noise scales that meets it (None: see warnings)
    noise_factor: Optional[float] = None
    #: the event with its noise scaled by ``noise_factor``
    calibrated_event: Optional[Dict[str, Any]] = None
    _raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def best(self) -> Optional[Accounted]:
        """The answer with the smallest ε (every answer is a valid bound), or None."""
        return min(self.answers, key=lambda a: a.epsilon, default=None)

    @property
    def largest_repeat(self) -> Optional[int]:
        """For an inverse question: the largest number of repeats within the target (None: not even one)."""
        return self.answers[0].iterations if self.answers else None

    def to_dict(self) -> Dict[str, Any]:
        """The answer as ``privpost account --event FILE --json`` prints it."""
        return dict(_copy(self._raw))

    @classmethod
    def _of(cls, d: Dict[str, Any]) -> "AccountAnswer":
        verification = None
        if d["question"] == "verify":
            verification = Verification(
                series=d["series"],
                claim=d["claim"],
                claim_epsilon=_opt(d.get("claim_epsilon")),
                claim_delta=_opt(d.get("claim_delta")),
                recomputed_epsilon=_opt(d.get("recomputed_epsilon")),
                holds=bool(d["holds"]),
            )
        return cls(
            question=d["question"],
            answers=tuple(Accounted._of(a) for a in d.get("answers", [])),
            warnings=tuple(d.get("warnings", [])),
            mechanism=d.get("mechanism"),
            target_epsilon=_opt(d.get("target_epsilon")),
            verification=verification,
            attack=AttackRisk._of(d["attack"]) if d.get("attack") else None,
            target=d.get("target"),
            pure_epsilon=_opt(d.get("pure_epsilon")),
            gdp_mu=_opt(d.get("gdp_mu")),
            noise_factor=_opt(d.get("noise_factor")),
            calibrated_event=d.get("calibrated_event"),
            _raw=d,
        )


@dataclass(frozen=True)
class LedgerEntry(Verification):
    """One entry of a run's ledger, verified as :class:`Verification` is;
    ``reason`` says why the claim does not hold, when it does not."""

    reason: Optional[str] = None
    released_with: Optional[str] = None


@dataclass(frozen=True)
class Release:
    """One release of a figure: a series at its last checkpoint (entries that
    differ only in ``iteration`` are one chain, not composed)."""

    series: str
    entry: str
    checkpoints: int
    private: bool
    guarantee: Dict[str, Any]
    #: None for a non-private baseline
    epsilon: Optional[float]
    delta: Optional[float]


@dataclass(frozen=True)
class Composition:
    """The basic composition of the entries a manifest tags as released together."""

    released_with: str
    entries: Tuple[str, ...]
    #: math.inf where a part has no (ε, δ) claim (an RDP claim, no privacy: JSON's null)
    epsilon: float
    delta: float


@dataclass(frozen=True)
class ReleaseRisk:
    """What a membership attacker can do against one private release of a figure,
    recomputed from its event (``privpost account --manifest``), beside what the
    manifest recorded at the run (``recorded``, the same fields; None in manifests
    written before privpost recorded them). ``holds`` is False when the record shows
    the attacker weaker than the recomputed curve. ``tpr_at_fpr`` maps FPR 10⁻³,
    10⁻² and 10⁻¹ to the attacker's largest TPR; all numbers are None when the
    curve was not computed (``not_computed`` says why)."""

    release: str
    entry: str
    method: Optional[str]
    mu: Optional[float]
    regret: Optional[float]
    tpr_at_fpr: Dict[float, float]
    advantage: Optional[float]
    not_computed: Optional[str]
    holds: bool
    reason: Optional[str]
    recorded: Optional["ReleaseRisk"]

    @classmethod
    def _of(cls, d: Dict[str, Any], holds: bool = True) -> "ReleaseRisk":
        recorded = d.get("recorded")
        return cls(
            release=d["release"],
            entry=d["entry"],
            method=d.get("method"),
            mu=_opt(d.get("mu")),
            regret=_opt(d.get("regret")),
            tpr_at_fpr={float(p["fpr"]): float(p["tpr"]) for p in d.get("tpr_at_fpr", [])},
            advantage=_opt(d.get("advantage")),
            not_computed=d.get("not_computed"),
            holds=bool(d.get("holds", holds)),
            reason=d.get("reason"),
            recorded=cls._of(recorded) if recorded else None,
        )


@dataclass(frozen=True)
class LedgerCheck:
    """What :func:`privpost.verify_ledger` found: every entry re-verified, the
    figure's releases and the compositions its manifest declares. A claim that
    does not hold is an answer (``holds`` is False), not an exception."""

    entries: Tuple[LedgerEntry, ...]
    releases: Tuple[Release, ...]
    composed: Tuple[Composition, ...]
    #: each private release's attack risk, recomputed and set beside the record
    attack_risk: Tuple[ReleaseRisk, ...] = ()
    #: whether the manifest records attack risks at all
    attack_risk_recorded: bool = False
    _raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def holds(self) -> bool:
        """Whether every entry's claim follows from its event and every recorded
        attack risk holds on recheck."""
        return all(e.holds for e in self.entries) and all(r.holds for r in self.attack_risk)

    def to_dict(self) -> Dict[str, Any]:
        """The check as ``privpost account --manifest FILE --json`` prints it
        (with each entry's ``reason``)."""
        return dict(_copy(self._raw))

    @classmethod
    def _of(cls, d: Dict[str, Any]) -> "LedgerCheck":
        return cls(
            entries=tuple(
                LedgerEntry(
                    series=e["series"],
                    claim=e["claim"],
                    claim_epsilon=_opt(e.get("claim_epsilon")),
                    claim_delta=_opt(e.get("claim_delta")),
                    recomputed_epsilon=_opt(e.get("recomputed_epsilon")),
                    holds=bool(e["holds"]),
                    reason=e.get("reason"),
                    released_with=e.get("released_with"),
                )
                for e in d["entries"]
            ),
            releases=tuple(
                Release(
                    series=r["series"],
                    entry=r["entry"],
                    checkpoints=int(r["checkpoints"]),
                    private=bool(r["private"]),
                    guarantee=r["guarantee"],
                    epsilon=_opt(r.get("epsilon")),
                    delta=_opt(r.get("delta")),
                )
                for r in d["releases"]
            ),
            composed=tuple(
                Composition(
                    released_with=c["released_with"],
                    entries=tuple(c["entries"]),
                    epsilon=math.inf if c["epsilon"] is None else _float(c["epsilon"]),
                    delta=_float(c["delta"]),
                )
                for c in d["composed"]
            ),
            attack_risk=tuple(ReleaseRisk._of(r) for r in d.get("attack_risk", [])),
            attack_risk_recorded=bool(d.get("attack_risk_recorded", False)),
            _raw=d,
        )


@dataclass(frozen=True)
class AuditVerdict:
    """What :func:`privpost.audit_samples` found. ``verdict`` is ``"PASS"`` or
    ``"FAIL"`` (the audited lower bound exceeds the claim, or a threshold test's
    trade-off point lies below the claimed curve); a FAIL is an answer, not an
    exception. ``tradeoff`` holds the audit on the curve: ``points`` (each with
    ``fpr``, ``fpr_upper``, ``tpr``, ``tpr_lower``, ``claimed_tpr``,
    ``below_claim`` and the point's own ``mu_lower``), ``violations`` and
    ``mu_lower``, the empirical μ-GDP lower bound (the largest point's)."""

    verdict: str
    audited_epsilon: float
    estimate_epsilon: float
    claim: Dict[str, Any]
    method: str
    direction: str
    draws_d: int
    draws_d_prime: int
    confidence: float
    audited_epsilon_exact_comparison: float
    verdict_exact_comparison: str
    score_tolerance: float
    file: str
    tradeoff: Dict[str, Any] = field(default_factory=dict)
    _raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def passed(self) -> bool:
        return self.verdict == "PASS"

    def to_dict(self) -> Dict[str, Any]:
        """The verdict as ``privpost audit --samples FILE --json`` prints it."""
        return dict(_copy(self._raw))

    @classmethod
    def _of(cls, d: Dict[str, Any]) -> "AuditVerdict":
        return cls(
            verdict=d["verdict"],
            audited_epsilon=_float(d["audited_epsilon"]),
            estimate_epsilon=_float(d["estimate_epsilon"]),
            claim=d["claim"],
            method=d["method"],
            direction=d["direction"],
            draws_d=int(d["draws_d"]),
            draws_d_prime=int(d["draws_d_prime"]),
            confidence=_float(d["confidence"]),
            audited_epsilon_exact_comparison=_float(d["audited_epsilon_exact_comparison"]),
            verdict_exact_comparison=d["verdict_exact_comparison"],
            score_tolerance=_float(d["score_tolerance"]),
            file=d["file"],
            tradeoff=d.get("tradeoff", {}),
            _raw=d,
        )


@dataclass(frozen=True)
class Run:
    """A result folder privpost wrote: its CSV tables by name (pandas
    DataFrames: ``data``, ``summary``, ``draws``, …) and its manifest (the
    privacy ledger is ``manifest["privacy"]``, also ``.ledger``)."""

    tables: Dict[str, Any] = field(repr=False)
    manifest: Dict[str, Any] = field(repr=False)
    folder: Path

    @property
    def ledger(self) -> List[Dict[str, Any]]:
        """The manifest's privacy ledger: one entry per series or grid point."""
        ledger = self.manifest.get("privacy", [])
        return list(ledger) if isinstance(ledger, list) else []

    @property
    def summary(self) -> Any:
        return self.tables["summary"]

    @property
    def data(self) -> Any:
        return self.tables["data"]

    def __repr__(self) -> str:
        return f"Run(folder={str(self.folder)!r}, tables={sorted(self.tables)}, ledger={len(self.ledger)} entries)"

    def to_dict(self) -> Dict[str, Any]:
        """The folder, the manifest and each table as a dict of columns."""
        return {
            "folder": str(self.folder),
            "manifest": _copy(self.manifest),
            "tables": {k: v.to_dict("list") for k, v in self.tables.items()},
        }


@dataclass(frozen=True)
class InferResult:
    """What :func:`privpost.infer` wrote (``run``: the folder loaded) and found:
    the warnings, the record acceptance (and its e^-ε lower bound, for pure-DP
    noise), the rate at which proposals that change the statistic were
    accepted, the record kernel (``gibbs`` for randomized response, with the
    release's ``release_epsilon``), and the time taken."""

    run: Run
    warnings: Tuple[str, ...]
    acceptance: float
    move_rate: float
    acceptance_bound: Optional[float]
    wall_seconds: float
    cpu_seconds: float
    kernel: str = "record_wise"
    release_epsilon: Optional[float] = None

    @property
    def folder(self) -> Path:
        return self.run.folder

    @property
    def summary(self) -> Any:
        """summary.csv: mean, sd, quantiles, R-hat and ESS of each parameter."""
        return self.run.summary

    @property
    def tables(self) -> Dict[str, Any]:
        return self.run.tables

    @property
    def manifest(self) -> Dict[str, Any]:
        return self.run.manifest

    def __repr__(self) -> str:
        return (
            f"InferResult(folder={str(self.folder)!r}, acceptance={self.acceptance:.4f}, "
            f"warnings={len(self.warnings)})"
        )

    def to_dict(self) -> Dict[str, Any]:
        return {
            "folder": str(self.folder),
            "warnings": list(self.warnings),
            "acceptance": self.acceptance,
            "move_rate": self.move_rate,
            "acceptance_bound": self.acceptance_bound,
            "kernel": self.kernel,
            "release_epsilon": self.release_epsilon,
            "wall_seconds": self.wall_seconds,
            "cpu_seconds": self.cpu_seconds,
        }


def _copy(d: Any) -> Any:
    if isinstance(d, dict):
        return {k: _copy(v) for k, v in d.items()}
    if isinstance(d, list):
        return [_copy(v) for v in d]
    return d


@dataclass(frozen=True)
class FigureRun:
    """One figure run of :func:`privpost.run`: its folder (``load`` reads it),
    the tasks it has and how many this call computed (the rest came from the
    task cache), and whether the folder was already up to date."""

    figure: str
    label: Optional[str]
    folder: Path
    tasks: int
    computed: int
    up_to_date: bool
    wall_seconds: float

    def to_dict(self) -> Dict[str, Any]:
        return {
            "figure": self.figure,
            "label": self.label,
            "folder": str(self.folder),
            "tasks": self.tasks,
            "computed": self.computed,
            "up_to_date": self.up_to_date,
            "wall_seconds": self.wall_seconds,
        }

    @classmethod
    def _of(cls, d: Dict[str, Any]) -> "FigureRun":
        return cls(
            figure=d["figure"],
            label=d["label"],
            folder=Path(d["folder"]),
            tasks=int(d["tasks"]),
            computed=int(d["computed"]),
            up_to_date=bool(d["up_to_date"]),
            wall_seconds=_float(d["wall_seconds"]),
        )
