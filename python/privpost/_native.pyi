# Stubs of the extension module (crates/privpost-python/src/lib.rs).
from typing import Any, Dict, List, Optional, Tuple

MAX_KEPT: float

def main(argv: List[str], code_file: str, command: List[str]) -> int: ...
def account(
    event: Dict[str, Any],
    delta: Optional[float] = None,
    target_epsilon: Optional[float] = None,
    tight: bool = True,
    pld_slack: Optional[float] = None,
    alpha_max: Optional[int] = None,
    fpr: Optional[List[float]] = None,
    prior: Optional[float] = 0.5,
    target_tpr: Optional[float] = None,
    at_fpr: Optional[float] = None,
    target_advantage: Optional[float] = None,
) -> Dict[str, Any]: ...
def verify_ledger(manifest: str) -> Dict[str, Any]: ...
def audit_samples(
    labels: Optional[List[float]],
    scores: Optional[List[float]],
    path: Optional[str],
    epsilon: float,
    delta: Optional[float] = None,
    order: Optional[float] = None,
    log_ratio: bool = False,
    confidence: float = 0.95,
) -> Dict[str, Any]: ...
def infer(
    release: Any,
    name: Optional[str] = None,
    recorded: Optional[str] = None,
    out: str = "results",
    jobs: Optional[int] = None,
    allow_long: bool = False,
) -> Dict[str, Any]: ...
def load(folder: str) -> Dict[str, Any]: ...
def run(
    targets: List[str],
    all: bool = False,
    profile: Optional[str] = None,
    set: List[str] = ...,
    configs: Optional[str] = None,
    out: str = "results",
    jobs: Optional[int] = None,
    force: bool = False,
    no_cache: bool = False,
    keep_going: bool = False,
    allow_long: bool = False,
) -> Dict[str, Any]: ...
def version() -> str: ...
def summarize(
    names: List[str],
    draws: bytes,
    chains: int,
    per_chain: int,
    accepted: int,
    changing: int,
    moves: int,
    proposals: int,
) -> Dict[str, Any]: ...

class RecordSweep:
    def __init__(self, contributions: bytes, n: int, m: int, seed: int, chain: int, release: Any) -> None: ...
    def sweep(self, proposed: bytes, log_density: Any = None) -> bytes: ...
    def counts(self) -> Tuple[int, int, int, int]: ...
    def statistic(self) -> List[float]: ...
