"""A caller typed against privpost's annotations and stubs: mypy (strict, in
test_privpost.py) checks it, and it runs as a script."""

from pathlib import Path
from typing import Any, Dict, List, Optional

import privpost
from privpost.errors import InputError


def smallest_epsilon(event: Dict[str, Any], delta: float) -> float:
    answer: privpost.AccountAnswer = privpost.account(event, delta=delta)
    best: Optional[privpost.Accounted] = answer.best
    assert best is not None
    return best.epsilon


def verdicts(labels: List[int], scores: List[float]) -> str:
    verdict: privpost.AuditVerdict = privpost.audit_samples({"label": labels, "score": scores}, epsilon=1.0)
    return verdict.verdict


def folder_of(result: privpost.InferResult) -> Path:
    return result.folder


def computed(out: Path) -> List[int]:
    runs: List[privpost.FigureRun] = privpost.run("foulds2016/fig2", smoke=True, out=out, jobs=1)
    return [r.computed for r in runs]


def unheld(folder: Path) -> List[str]:
    check: privpost.LedgerCheck = privpost.verify_ledger(folder)
    entries: List[privpost.LedgerEntry] = list(check.entries)
    return [e.reason or "" for e in entries if not e.holds]


def refused() -> Optional[str]:
    try:
        privpost.account({"mechanism": "laplace", "scale": 1.0})
    except InputError as e:
        return e.key
    return None


if __name__ == "__main__":
    print(smallest_epsilon({"mechanism": "laplace", "l1_sensitivity": 1.0, "scale": 2.0}, 1e-5), refused())
