"""The Python package against the CLI: the same numbers and messages for an
event, an audit and a release; tables and manifests loaded; kept chains opened
by ArviZ; bad calls refused with ValueError. `PRIVPOST_BIN` names the CLI
binary built by cargo (scripts/test-python.sh sets it); the package's own
`privpost` command is checked beside it."""

import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privpost

REPO = Path(__file__).resolve().parents[2]
BIN = os.environ.get("PRIVPOST_BIN") or shutil.which("privpost")

EVENTS = [
    {"mechanism": "gaussian", "l2_sensitivity": 1.0, "sigma": 2.0, "rdp_scale": 0.5},
    {"mechanism": "laplace", "l1_sensitivity": 2.0, "scale": 4.0},
    {"mechanism": "repeat", "times": 1000,
     "event": {"mechanism": "poisson_subsampled_gaussian", "q": 0.01, "sigma": 1.1}},
    {"schema": "privpost-event/1", "event": {"mechanism": "compose", "composition": "sequential", "parts": [
        {"mechanism": "laplace", "l1_sensitivity": 1.0, "scale": 2.0},
        {"mechanism": "gaussian", "l2_sensitivity": 1.0, "sigma": 3.0, "rdp_scale": 0.5}]}},
    {"mechanism": "random_allocation", "steps": 100, "selected": 2, "sigma": 1.5},
    {"mechanism": "repeat", "times": 100,
     "event": {"mechanism": "sampled_with_replacement_gaussian", "batch": 10, "n_data": 1000, "sigma": 1.0}},
    # two releases on one Poisson sample (OpenDP #2933): accounted as one amplified Gaussian
    {"mechanism": "compose", "composition": "sequential", "parts": [
        {"mechanism": "poisson_subsampled_gaussian", "q": 0.01, "sigma": 1.0, "sample": "batch"},
        {"mechanism": "poisson_subsampled_gaussian", "q": 0.01, "sigma": 2.0, "sample": "batch"}]},
]


def cli(*args, cwd=None, check=True):
    """The cargo-built binary: (exit code, stdout, stderr)."""
    p = subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, cwd=cwd)
    if check and p.returncode != 0:
        raise AssertionError(f"privpost {' '.join(map(str, args))}: exit {p.returncode}\n{p.stderr}")
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: json.dumps(e)[:40])
@pytest.mark.parametrize("delta", [1e-5, 1e-8])
def test_account_gives_the_clis_answer(tmp_path, event, delta):
    f = tmp_path / "event.json"
    f.write_text(json.dumps(event))
    _, out, _ = cli("account", "--event", f, "--delta", delta, "--json")
    answer = privpost.account(event, delta=delta)
    assert isinstance(answer, privpost.AccountAnswer)
    assert answer.to_dict() == json.loads(out)
    assert answer.question == "forward" and answer.best is not None
    assert answer.best.epsilon == min(a["epsilon"] for a in json.loads(out)["answers"])


def test_verify_ledger_gives_the_clis_check(tmp_path):
    """privpost.verify_ledger is `account --manifest`: the same entries,
    releases and compositions; a claim that does not hold is an answer with
    its reason; a missing file and a file with no ledger raise."""
    folder = privpost.run("foulds2016/fig2", smoke=True, out=tmp_path / "r", jobs=1)[0].folder
    check = privpost.verify_ledger(folder)
    assert isinstance(check, privpost.LedgerCheck) and check.holds
    _, out, _ = cli("account", "--manifest", folder, "--json")
    expected = json.loads(out)
    got = check.to_dict()
    assert [e.pop("reason") for e in got["entries"]] == [None] * len(check.entries)
    assert got == expected
    assert [r.series for r in check.releases] == [r["series"] for r in expected["releases"]]
    # each private release's attack risk: recorded at the run, rechecked, holding
    private = [r for r in check.releases if r.private]
    assert check.attack_risk_recorded and len(check.attack_risk) == len(private)
    for r in check.attack_risk:
        assert isinstance(r, privpost.ReleaseRisk) and r.holds and r.recorded is not None
        assert set(r.tpr_at_fpr) == {1e-3, 1e-2, 1e-1} and r.recorded.tpr_at_fpr == r.tpr_at_fpr
        assert 0 <= r.advantage <= 1
    # a record showing the attacker weaker than its event allows does not hold
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["attack_risk"][0]["advantage"] /= 2
    weak = tmp_path / "weak.json"
    weak.write_text(json.dumps(manifest))
    check = privpost.verify_ledger(weak)
    assert not check.holds and not check.attack_risk[0].holds
    assert "advantage recorded" in check.attack_risk[0].reason
    # two entries tagged as released together, one claim halved: composed, and refuted
    ledger = json.loads((folder / "manifest.json").read_text())["privacy"]
    ledger[0]["released_with"] = ledger[1]["released_with"] = "both"
    ledger[1]["guarantee"]["epsilon"] /= 2
    bad = tmp_path / "ledger.json"
    bad.write_text(json.dumps({"privacy": ledger}))
    check = privpost.verify_ledger(bad)
    assert not check.holds
    assert [e.holds for e in check.entries][:2] == [True, False]
    assert check.entries[1].reason and check.entries[1].released_with == "both"
    assert [(c.released_with, len(c.entries)) for c in check.composed] == [("both", 2)]
    code, _, _ = cli("account", "--manifest", bad, check=False)
    assert code == 1
    with pytest.raises(FileNotFoundError) as e:
        privpost.verify_ledger(tmp_path / "none.json")
    assert isinstance(e.value, privpost.PathNotFoundError) and e.value.argument == "manifest"
    (tmp_path / "empty.json").write_text("{}")
    with pytest.raises(privpost.InputError) as e:
        privpost.verify_ledger(tmp_path / "empty.json")
    assert e.value.argument == "manifest" and e.value.key == "privacy"


def test_account_options_are_the_clis_flags(tmp_path):
    event = EVENTS[0]
    f = tmp_path / "e.json"
    f.write_text(json.dumps(event))
    _, out, _ = cli("account", "--event", f, "--delta", 1e-6, "--no-tight", "--alpha-max", 64, "--json")
    assert privpost.account(event, 1e-6, tight=False, alpha_max=64).to_dict() == json.loads(out)
    f.write_text(json.dumps(EVENTS[2]))
    _, out, _ = cli("account", "--event", f, "--delta", 1e-6, "--target-epsilon", 3, "--json")
    inverse = privpost.account(EVENTS[2], 1e-6, target_epsilon=3)
    assert inverse.to_dict() == json.loads(out)
    assert inverse.question == "inverse" and inverse.largest_repeat == json.loads(out)["answers"][0]["iterations"]
    # the attack risk: the same curve and numbers as --fpr/--prior; bad values raise ValueError naming them
    g = {"mechanism": "gaussian", "l2_sensitivity": 1.0, "sigma": 1.0}
    f.write_text(json.dumps(g))
    _, out, _ = cli("account", "--event", f, "--delta", 1e-6, "--fpr", "0.05,0.2", "--prior", 0.8, "--json")
    a = privpost.account(g, 1e-6, fpr=np.array([0.05, 0.2]), prior=0.8)
    assert a.to_dict() == json.loads(out)
    assert isinstance(a.attack, privpost.AttackRisk) and a.attack.mu == 1.0
    assert sorted(a.attack.tpr_at_fpr) == [0.05, 0.2] and a.attack.prior == 0.8
    assert abs(a.attack.tpr_at_fpr[0.05] - 0.2595110) < 1e-6
    for kwargs, name in [({"fpr": [0.0]}, "fpr"), ({"fpr": [0.5, 1.5]}, "fpr"), ({"prior": 1.0}, "prior")]:
        with pytest.raises(ValueError, match=name):
            privpost.account(g, 1e-6, **kwargs)


def test_numpy_and_pandas_values_are_numbers():
    """numpy scalars and arrays, and pandas columns, where numbers and lists are."""
    plain = privpost.account(EVENTS[0], delta=1e-5)
    numpy_event = {"mechanism": "gaussian", "l2_sensitivity": np.float32(1.0), "sigma": np.int64(2),
                   "rdp_scale": np.float64(0.5)}
    assert privpost.account(numpy_event, delta=np.float64(1e-5)) == plain
    assert privpost.account(EVENTS[0], delta=1e-5, alpha_max=np.int32(64)).answers
    composed = {"mechanism": "repeat", "times": np.int64(1000),
                "event": {"mechanism": "poisson_subsampled_gaussian", "q": np.float64(0.01), "sigma": 1.1}}
    assert privpost.account(composed, delta=1e-5) == privpost.account(EVENTS[2], delta=1e-5)
    # boolean labels, numpy arrays, a DataFrame and a dict of lists give one verdict
    s = laplace_scores(np.random.default_rng(3), 200, 1.0)
    as_bool = {"label": s.label.to_numpy().astype(bool), "score": s.score.to_numpy()}
    as_lists = {"label": s.label.tolist(), "score": s.score.tolist()}
    v = privpost.audit_samples(s, epsilon=1.0)
    assert privpost.audit_samples(as_bool, epsilon=np.float64(1.0)) == v
    assert privpost.audit_samples(as_lists, epsilon=1) == v
    # the audit on the curve: points with bounds, none below a correct claim's curve
    assert v.tradeoff["violations"] == 0 and len(v.tradeoff["points"]) > 0
    assert 0.0 <= v.tradeoff["mu_lower"] and v.passed


def test_each_error_class_names_the_argument_and_key(tmp_path):
    from privpost import errors

    cases = [
        (lambda: privpost.account({"mechanism": "laplace", "scale": 1.0}), errors.InputError, "event", "l1_sensitivity"),
        (lambda: privpost.account(EVENTS[0], delta=2.0), errors.InputError, "delta", None),
        (lambda: privpost.account(EVENTS[0], delta="1e-5"), errors.ArgumentTypeError, "delta", None),
        (lambda: privpost.account("gaussian"), errors.ArgumentTypeError, "event", None),
        (lambda: privpost.account(dict(EVENTS[1], scale=float("nan"))), errors.InputError, "event", "scale"),
        (lambda: privpost.infer(tmp_path / "nope.toml", out=tmp_path), errors.PathNotFoundError, "release", None),
        (lambda: privpost.audit_samples(tmp_path / "nope.csv", epsilon=1), errors.PathNotFoundError, "samples", None),
        (lambda: privpost.load(tmp_path / "nope"), errors.PathNotFoundError, "folder", None),
    ]
    for call, cls, argument, key in cases:
        with pytest.raises(cls) as e:
            call()
        assert isinstance(e.value, errors.PrivpostError)
        assert (e.value.argument, e.value.key) == (argument, key), (str(e.value), e.value.argument, e.value.key)
    assert issubclass(errors.InputError, ValueError) and issubclass(errors.ArgumentTypeError, TypeError)
    assert issubclass(errors.PathNotFoundError, FileNotFoundError)
    assert issubclass(errors.PrivpostOSError, OSError) and issubclass(errors.RunError, RuntimeError)
    with pytest.raises(FileNotFoundError) as e:
        privpost.infer(tmp_path / "nope.toml", out=tmp_path)
    assert e.value.filename == str(tmp_path / "nope.toml") and e.value.errno == 2
    # an output root that is a file: the write fails (OSError kind) or is refused as input
    (tmp_path / "file").write_text("x")
    release = small_release()
    with pytest.raises((errors.PrivpostOSError, errors.InputError)):
        privpost.infer(release, out=tmp_path / "file", name="x")
    # RunError: a chain that cannot move (a release no prior supports) fails while running
    assert errors.RunError.__mro__[1] is errors.PrivpostError


def test_bad_input_raises_valueerror_with_the_clis_message(tmp_path):
    bad = {"mechanism": "gaussian", "l2_sensitivity": 1.0, "sigma": -1.0, "rdp_scale": 0.5}
    f = tmp_path / "event"
    f.write_text(json.dumps(bad))
    code, _, err = cli("account", "--event", f, "--delta", 1e-5, cwd=tmp_path, check=False)
    assert code == 2
    with pytest.raises(ValueError) as e:
        privpost.account(bad, delta=1e-5)
    # the CLI names the file, the package the argument: the rest is the same
    assert err.strip() == "error: " + str(e.value).replace("event:", f"{f}:", 1)
    for call, named in [
        (lambda: privpost.account(EVENTS[0], delta=float("nan")), "delta"),
        (lambda: privpost.account(EVENTS[0], delta=True), "delta"),
        (lambda: privpost.account(dict(EVENTS[0], sigma=float("nan")), delta=1e-5), "event.sigma"),
        (lambda: privpost.account(EVENTS[0], delta=2.0), "delta = 2"),
        (lambda: privpost.account({"mechanism": "laplace", "scale": 1.0, "l1_sensitivity": 1.0, "typo": 1}), "typo"),
        (lambda: privpost.account({"mechanism": "laplace", "scale": object()}), "event.scale"),
    ]:
        with pytest.raises(ValueError) as e:
            call()
        assert named in str(e.value), str(e.value)


def laplace_scores(rng, n, scale):
    """Laplace-mechanism outputs on D (mean 1) and D′ (mean 0), scored by the output."""
    d = rng.laplace(1.0, scale, n)
    d2 = rng.laplace(0.0, scale, n)
    return pd.DataFrame({"label": [1] * n + [0] * n, "score": np.concatenate([d, d2])})


@pytest.mark.parametrize("claim,verdict", [({"epsilon": 1.0}, "PASS"), ({"epsilon": 0.5}, "FAIL"),
                                           ({"epsilon": 1.0, "delta": 1e-6}, "PASS")])
def test_audit_samples_gives_the_clis_answer(tmp_path, claim, verdict):
    samples = laplace_scores(np.random.default_rng(7), 20000, 1.0)
    f = tmp_path / "s.csv"
    f.write_text("label,score\n" + "".join(f"{l},{float(x)!r}\n" for l, x in zip(samples.label, samples.score)))
    text = ",".join(f"{k}={v}" for k, v in claim.items())
    code, out, _ = cli("audit", "--samples", f, "--claim", text, "--json", check=False)
    assert code == (0 if verdict == "PASS" else 1)
    want = json.loads(out)
    got = privpost.audit_samples(samples, **claim)
    assert isinstance(got, privpost.AuditVerdict)
    assert got.verdict == verdict and got.passed == (verdict == "PASS")
    assert {k: v for k, v in got.to_dict().items() if k != "file"} == {k: v for k, v in want.items() if k != "file"}
    # a file path is read as the CLI reads it
    assert privpost.audit_samples(f, **claim).to_dict() == want


def test_audit_samples_refuses_nan_labels_and_short_files():
    s = laplace_scores(np.random.default_rng(1), 50, 1.0)
    s.loc[3, "score"] = float("nan")
    with pytest.raises(ValueError, match="row 3: column `score`"):
        privpost.audit_samples(s, epsilon=1)
    s = laplace_scores(np.random.default_rng(1), 50, 1.0)
    s.loc[5, "label"] = 2
    with pytest.raises(ValueError, match="row 5: column `label`"):
        privpost.audit_samples(s, epsilon=1)
    with pytest.raises(ValueError, match="at least 20"):
        privpost.audit_samples(laplace_scores(np.random.default_rng(1), 10, 1.0), epsilon=1)
    with pytest.raises(ValueError, match="order"):
        privpost.audit_samples(laplace_scores(np.random.default_rng(1), 50, 1.0), epsilon=1, order=2)
    with pytest.raises(ValueError, match="confidence"):
        privpost.audit_samples(laplace_scores(np.random.default_rng(1), 50, 1.0), epsilon=1, confidence=float("nan"))
    with pytest.raises(ValueError, match="columns `label` and `score`"):
        privpost.audit_samples({"x": [1]}, epsilon=1)


def small_release():
    import tomllib

    release = tomllib.loads((REPO / "docs/examples/release.toml").read_text())
    release["sampler"].update(warmup=200, draws=300)
    return release


def test_infer_writes_the_clis_folder_and_arviz_opens_its_draws(tmp_path):
    release = small_release()
    run = privpost.infer(release, out=tmp_path / "py", name="small", jobs=1)
    assert run.folder == tmp_path / "py" / "infer" / "small"
    toml = tmp_path / "small.toml"
    toml.write_text((REPO / "docs/examples/release.toml").read_text()
                    .replace("warmup = 1000", "warmup = 200").replace("draws = 2000", "draws = 300"))
    cli("infer", toml, "--out", tmp_path / "cli", "--jobs", 2, "-q")
    cli_dir = tmp_path / "cli" / "infer" / "small"
    assert (run.folder / "draws.csv").read_bytes() == (cli_dir / "draws.csv").read_bytes()
    assert (run.folder / "summary.csv").read_bytes() == (cli_dir / "summary.csv").read_bytes()
    assert run.manifest["draws"]["parameters"] == ["theta1", "theta2", "theta3"]
    idata = privpost.to_inference_data(run)
    post = idata.posterior
    assert dict(post.sizes)["chain"] == 4 and dict(post.sizes)["draw"] == 300
    draws = run.tables["draws"]
    chain2 = draws[draws.chain == 2].sort_values("draw")
    assert np.array_equal(post["theta3"].values[1], chain2["theta3"].to_numpy())
    # a TOML file's folder named by `name` (as privpost 0.1 at e1b8e2a did), else by its stem
    named = privpost.infer(toml, out=tmp_path / "named", name="renamed", jobs=2)
    assert named.folder == tmp_path / "named" / "infer" / "renamed"
    assert (named.folder / "draws.csv").read_bytes() == (cli_dir / "draws.csv").read_bytes()
    with pytest.raises(privpost.InputError) as e:
        privpost.infer(toml, out=tmp_path / "named", name="")
    assert e.value.argument == "name"
    # the same means as the summary the CLI wrote
    summary = run.summary.set_index("parameter")
    for p in ["theta1", "theta2", "theta3"]:
        assert math.isclose(float(post[p].mean()), summary.loc[p, "mean"], rel_tol=1e-12)
    with pytest.raises(ValueError, match=r"(?s)small: .*model = \"nope\".*unknown variant `nope`"):
        privpost.infer(dict(release, model="nope"), out=tmp_path / "bad", name="small")
    with pytest.raises(TypeError, match="release"):
        privpost.infer([1, 2], out=tmp_path / "bad")
    assert not (tmp_path / "bad" / "infer").exists()


def test_infer_reads_records_released_by_randomized_response(tmp_path):
    """A contingency_table release as a dict: the records file (a path, relative to
    the working folder or absolute) read as the CLI reads it, the same draws as the
    CLI's, the kernel and the release's ε on the result; a bad record is a
    ValueError naming the row and column."""
    records = tmp_path / "records.csv"
    records.write_text("admit,gender\n" + "Admitted,Male\nRejected,Female\n" * 5)
    release = {
        "model": "contingency_table",
        "prior": {"alpha": [1.0, 1.0, 1.0, 1.0]},
        "records": {
            "file": str(records),
            "attributes": [
                {"column": "admit", "categories": ["Admitted", "Rejected"], "keep": 0.75},
                {"column": "gender", "categories": ["Male", "Female"], "keep": 0.75},
            ],
        },
        "sampler": {"chains": 2, "warmup": 100, "draws": 400, "seed": 1},
    }
    run = privpost.infer(release, out=tmp_path / "py", name="rr", jobs=1)
    assert run.kernel == "gibbs"
    assert abs(run.release_epsilon - 2 * np.log(3)) < 1e-12
    assert list(run.summary.parameter) == [
        "p_Admitted_Male", "p_Admitted_Female", "p_Rejected_Male", "p_Rejected_Female"]
    toml = tmp_path / "rr.toml"
    toml.write_text(
        'model = "contingency_table"\nprior = { alpha = [1.0, 1.0, 1.0, 1.0] }\n'
        '[records]\nfile = "records.csv"\nattributes = [\n'
        '  { column = "admit", categories = ["Admitted", "Rejected"], keep = 0.75 },\n'
        '  { column = "gender", categories = ["Male", "Female"], keep = 0.75 },\n]\n'
        "[sampler]\nchains = 2\nwarmup = 100\ndraws = 400\nseed = 1\n")
    cli("infer", toml, "--out", tmp_path / "cli", "-q")
    assert (run.folder / "draws.csv").read_bytes() == (
        tmp_path / "cli" / "infer" / "rr" / "draws.csv").read_bytes()
    records.write_text("admit,gender\nAdmitted,Mal\n")
    with pytest.raises(ValueError, match="row 2, column gender"):
        privpost.infer(release, out=tmp_path / "py", name="rr2", jobs=1)


def test_infer_fits_a_logistic_regression_to_randomized_response_labels(tmp_path):
    """A logistic_regression release as a dict reads the documented example's
    records: the coefficients named by the covariates, the release's ε, and a
    covariate that is not a number a ValueError naming the row and column."""
    example = REPO / "docs" / "examples"
    release = {
        "model": "logistic_regression",
        "prior": {"tau": 5.0},
        "records": {
            "file": str(example / "rr-logistic-records.csv"),
            "attributes": [{"column": "low", "categories": ["no", "yes"], "keep": 0.85}],
            "covariates": ["age", "smoke"],
        },
        "sampler": {"chains": 2, "warmup": 100, "draws": 200, "seed": 1},
    }
    run = privpost.infer(release, out=tmp_path / "py", name="lr", jobs=1)
    assert run.kernel == "gibbs"
    assert abs(run.release_epsilon - np.log(0.85 / 0.15)) < 1e-12
    assert list(run.summary.parameter) == ["intercept", "b_age", "b_smoke"]
    bad = tmp_path / "bad.csv"
    bad.write_text("low,age,smoke\nyes,twenty,1\n")
    release["records"]["file"] = str(bad)
    with pytest.raises(ValueError, match="row 2, column age"):
        privpost.infer(release, out=tmp_path / "py", name="lr2", jobs=1)


def test_infer_warns_names_by_content_and_runs_in_threads(tmp_path):
    """What the CLI warns of is a Python warning; without a name each release gets
    a folder of its own; four threads with one name each finish (they once shared a
    temporary folder); a deeply nested input is a ValueError, not RecursionError."""
    import threading
    import warnings

    release = small_release()
    release["sampler"].update(warmup=20, draws=30)
    with pytest.warns(privpost.ConvergenceWarning, match="the chains have not settled"):
        run = privpost.infer(release, out=tmp_path / "w", jobs=1)
    assert issubclass(privpost.ConvergenceWarning, RuntimeWarning)
    assert any("not settled" in w for w in run.warnings)
    other = dict(release, release=dict(release["release"], values=[13.0, 9.0, 8.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        run2 = privpost.infer(other, out=tmp_path / "w", jobs=1)
    assert run.folder != run2.folder
    assert run.folder.name.startswith("release-") and run2.folder.name.startswith("release-")
    assert run.manifest["warnings"] and "python: release-" in run.manifest["input"]
    # the same name from four threads at once
    errors = []

    def call():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                privpost.infer(release, out=tmp_path / "t", name="same", jobs=1)
        except Exception as e:  # noqa: BLE001 - the test reports any failure
            errors.append(repr(e))

    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    deep: dict = {}
    node = deep
    for _ in range(100_000):
        node["e"] = {}
        node = node["e"]
    with pytest.raises(ValueError, match="nested more than 128 levels"):
        privpost.account(deep, delta=1e-5)


def test_ctrl_c_stops_infer_and_leaves_nothing(tmp_path):
    """SIGINT during a long `infer` raises KeyboardInterrupt within seconds (the
    chains once ran on for minutes) and writes no folder."""
    import signal
    import time

    release = small_release()
    release["n"] = 100000
    release["release"]["values"] = [40000.0, 30000.0, 30000.0]
    release["sampler"].update(warmup=1000, draws=200000)
    code = (
        "import json, sys, privpost\n"
        f"release = json.loads({json.dumps(json.dumps(release))})\n"
        "print('started', flush=True)\n"
        "try:\n"
        f"    privpost.infer(release, out={str(tmp_path)!r}, name='long', jobs=1)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.5)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert "interrupted" in out, err
    assert time.monotonic() - sent < 30
    assert not (tmp_path / "infer" / "long").exists()


def test_ctrl_c_stops_run_between_tasks_and_keeps_them(tmp_path):
    """SIGINT during privpost.run raises KeyboardInterrupt once the running
    tasks finish: no figure folder is written, the finished tasks are in the
    task cache, and the same call then resumes from them."""
    import signal
    import time

    args = dict(smoke=True, set=["repeats=150"], out=str(tmp_path), jobs=1)
    code = (
        "import privpost\n"
        "print('started', flush=True)\n"
        "try:\n"
        f"    privpost.run('foulds2016/recovery', **{args!r})\n"
        "    print('finished', flush=True)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "started"
    # once the first tasks are in the task cache (150 repeats take about 15 s)
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".privpost-cache/*/*.pack")) and time.monotonic() < deadline:
        time.sleep(0.1)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert time.monotonic() - sent < 10, out
    assert "interrupted" in out, (out, err)
    folder = tmp_path / "foulds2016" / "recovery@smoke,repeats=150"
    assert not folder.exists()
    runs = privpost.run("foulds2016/recovery", **{**args, "set": ["repeats=150"]})
    assert runs[0].folder == folder and 0 < runs[0].computed < runs[0].tasks


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Smoke runs with kept draws, by the package's own `privpost` command."""
    out = tmp_path_factory.mktemp("results")
    for figure, sets in [("heikkila2019/fig2", []), ("raisa2021/banana", ["keep_draws=true"]),
                         ("foulds2016/fig2", [])]:
        args = [sys.executable, "-m", "privpost", "run", figure, "--smoke", "-q", "--out", str(out)]
        for s in sets:
            args += ["--set", s]
        subprocess.run(args, check=True, capture_output=True)
    return out


def test_load_gives_tables_and_the_manifest_with_its_ledger(results):
    run = privpost.load(results / "foulds2016" / "fig2@smoke")
    assert {"data", "summary", "parameters"} <= set(run.tables)
    assert run.summary.equals(pd.read_csv(results / "foulds2016" / "fig2@smoke" / "summary.csv"))
    assert run.manifest["figure"] == "foulds2016/fig2"
    assert run.ledger and all("guarantee" in e for e in run.ledger)
    # the ledger's entries are verified by account, as privpost account --manifest does
    for entry in run.ledger[:3]:
        answer = privpost.account(entry)
        assert answer.question == "verify" and answer.verification.holds is True
    assert "ledger=" in repr(run) and run.to_dict()["manifest"] == run.manifest
    with pytest.raises(ValueError, match="manifest.json"):
        privpost.load(results)
    with pytest.raises(FileNotFoundError, match="no such folder"):
        privpost.load(results / "nope")


def test_arviz_opens_a_kept_chain_of_each_figure(results):
    fig2 = results / "heikkila2019" / "fig2@smoke"
    idata = privpost.to_inference_data(fig2, sampler="private")
    draws = pd.read_csv(fig2 / "data.csv")
    private = draws[draws.chain == "private"]
    assert idata.posterior["theta1"].shape == (1, len(private))
    assert np.array_equal(idata.posterior["theta2"].values[0], private["theta2"].to_numpy())
    with pytest.raises(ValueError, match="2 runs match"):
        privpost.to_inference_data(fig2)
    with pytest.raises(ValueError, match="run column 'method' unknown; allowed: sampler"):
        privpost.to_inference_data(fig2, method="x")
    banana = results / "raisa2021" / "banana@smoke,keep_draws=true"
    idata = privpost.to_inference_data(banana, method="dp_hmc", epsilon=6, repeat=0)
    assert idata.posterior.sizes["chain"] == 4
    data = pd.read_csv(banana / "data.csv")
    row = data[(data.method == "dp_hmc") & (data.epsilon == 6.0) & (data.repeat == 0)].iloc[0]
    assert idata.posterior["theta1"].size == row.kept_draws
    with pytest.raises(ValueError, match="no draws with"):
        privpost.to_inference_data(banana, method="dp_hmc", epsilon=3, repeat=0)
    with pytest.raises(ValueError, match="keeps no posterior draws"):
        privpost.to_inference_data(results / "foulds2016" / "fig2@smoke")


def test_pip_install_puts_the_cli_on_path_running_the_same_code(results, tmp_path):
    exe = shutil.which("privpost", path=os.path.dirname(sys.executable))
    assert exe, "pip install did not put privpost on PATH"
    p = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True)
    assert p.stdout.startswith("privpost " + privpost.__version__)
    p = subprocess.run([exe, "run", "nope/fig"], capture_output=True, text=True)
    assert p.returncode == 2 and "error:" in p.stderr
    # the package's command wrote the runs above: its manifest has its command line,
    # and its cache is keyed by the extension module's bytes
    m = json.loads((results / "foulds2016" / "fig2@smoke" / "manifest.json").read_text())
    assert m["command_line"][:3] == ["privpost", "run", "foulds2016/fig2"]
    native = Path(privpost._native.__file__).read_bytes()
    assert m["cache"]["code_sha256"] == hashlib.sha256(native).hexdigest()
    # the same CSVs as the cargo-built binary
    cli("run", "foulds2016/fig2", "--smoke", "-q", "--out", tmp_path)
    for f in ["data.csv", "summary.csv"]:
        assert (tmp_path / "foulds2016" / "fig2@smoke" / f).read_bytes() == \
            (results / "foulds2016" / "fig2@smoke" / f).read_bytes()


def test_four_threads_run_at_once_and_agree_with_one(tmp_path):
    """The engine runs without the GIL: four threads calling infer, account and
    audit_samples at once give what one thread gives, while a fifth Python
    thread keeps running."""
    import threading
    import time

    release = small_release()
    release["sampler"].update(warmup=100, draws=400)
    serial = privpost.infer(release, out=tmp_path / "serial", name="r", jobs=1)
    audit_input = laplace_scores(np.random.default_rng(5), 5000, 1.0)
    serial_audit = privpost.audit_samples(audit_input, epsilon=1.0)
    serial_account = privpost.account(EVENTS[2], delta=1e-6)
    got, errors, ticks = {}, [], []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.002)

    def call(i):
        try:
            got[i] = (
                privpost.infer(release, out=tmp_path / f"t{i}", name="r", jobs=1),
                privpost.audit_samples(audit_input, epsilon=1.0),
                privpost.account(EVENTS[2], delta=1e-6),
            )
        except Exception as e:  # noqa: BLE001 - the test reports any failure
            errors.append(repr(e))

    ticker = threading.Thread(target=tick)
    ticker.start()
    threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    ticker.join()
    assert errors == []
    want = (serial.folder / "draws.csv").read_bytes()
    for i, (run, audit, account) in got.items():
        assert (run.folder / "draws.csv").read_bytes() == want, i
        assert audit == serial_audit and account == serial_account
    # the Python thread ran all along: no gap of a second while the engine worked
    during = [t for t in ticks if t >= began]
    assert len(during) > 20 and max(np.diff(during)) < 1.0


def test_run_writes_the_clis_folders_and_refuses_bad_input(tmp_path):
    """privpost.run computes a figure as `privpost run` does (the same CSV
    bytes), a second call finds it up to date, and bad input raises the CLI's
    message as InputError before any work."""
    runs = privpost.run("foulds2016/fig2", "bun2018/fig2", smoke=True, out=tmp_path / "py", jobs=1)
    assert [(r.figure, r.folder.name, r.up_to_date) for r in runs] == [
        ("foulds2016/fig2", "fig2@smoke", False),
        ("bun2018/fig2", "fig2@smoke", False),
    ]
    assert all(r.computed == r.tasks > 0 for r in runs)
    cli("run", "foulds2016/fig2", "bun2018/fig2", "--smoke", "--out", tmp_path / "cli", "-j", 2, "-q")
    for r in runs:
        other = tmp_path / "cli" / r.folder.relative_to(tmp_path / "py")
        for table in ["data.csv", "summary.csv"]:
            assert (r.folder / table).read_bytes() == (other / table).read_bytes(), (r.figure, table)
    again = privpost.run("foulds2016/fig2", smoke=True, out=tmp_path / "py")
    assert again[0].up_to_date and again[0].computed == 0
    assert privpost.load(again[0].folder).manifest["figure"] == "foulds2016/fig2"
    with pytest.raises(privpost.InputError) as e:
        privpost.run("foulds2016/nope", smoke=True, out=tmp_path / "bad")
    assert "foulds2016/nope" in str(e.value) and e.value.argument == "targets"
    with pytest.raises(privpost.InputError) as e:
        privpost.run("foulds2016/fig2", smoke=True, set=["epsilon"], out=tmp_path / "bad")
    assert "epsilon" in str(e.value) and e.value.argument == "set"
    # each plan-stage error names its keyword, spelled as Python's, not the CLI's flag
    with pytest.raises(privpost.InputError) as e:
        privpost.run("foulds2016/fig2", smoke=True, jobs=0, out=tmp_path / "bad")
    assert e.value.argument == "jobs" and str(e.value).startswith("jobs = 0:"), str(e.value)
    with pytest.raises(FileNotFoundError) as e:
        privpost.run("foulds2016/fig2", smoke=True, configs=tmp_path / "none", out=tmp_path / "bad")
    assert isinstance(e.value, privpost.PathNotFoundError) and e.value.argument == "configs"
    assert str(e.value).startswith("configs = "), str(e.value)
    with pytest.raises(privpost.InputError) as e:
        privpost.run("foulds2016/fig2", smoke=True, out="/dev/null/x")
    assert e.value.argument == "out" and str(e.value).startswith("out = /dev/null/x:"), str(e.value)
    with pytest.raises(privpost.ArgumentTypeError):
        privpost.run("foulds2016/fig2", set="epsilon=1", out=tmp_path / "bad")
    assert not (tmp_path / "bad").exists()


def test_docstring_examples_run():
    """Every public function's docstring example runs and prints what it shows."""
    import doctest

    from privpost import _api, _model, errors

    for module in [privpost, _api, _model, errors]:
        failed, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert failed == 0, module.__name__
        assert tried > 0, module.__name__
    for name in ["account", "audit_samples", "infer", "infer_model", "load", "run", "to_inference_data", "verify_ledger"]:
        assert ">>>" in getattr(privpost, name).__doc__, name


def test_all_is_the_api_and_dir_shows_no_helpers():
    assert sorted(privpost.__all__) == sorted(set(privpost.__all__))
    for name in privpost.__all__:
        assert hasattr(privpost, name), name
    public = {n for n in dir(privpost) if not n.startswith("_")}
    # the public names, and the package's own submodules
    assert public - set(privpost.__all__) <= {"errors"}, public - set(privpost.__all__)
    assert (Path(privpost.__file__).parent / "py.typed").exists()
    assert (Path(privpost.__file__).parent / "_native.pyi").exists()


def test_the_python_tour_runs(tmp_path, run_example):
    """docs/examples/python-tour.py, the notebook-style walk through the API
    (cells marked `# %%`), runs start to end."""
    run_example("python-tour.py")
    assert (tmp_path / "results" / "infer" / "tour").is_dir()


def test_mypy_accepts_the_package_and_a_typed_caller():
    """The package's annotations and stubs, and a caller typed against them."""
    pytest.importorskip("mypy")
    p = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", os.devnull, "--config-file", str(REPO / "pyproject.toml"),
         "privpost", "tests/typed_usage.py"],
        cwd=REPO / "python", capture_output=True, text=True,
    )
    assert p.returncode == 0, p.stdout + p.stderr


def test_account_calibrates_to_an_attack_risk(tmp_path):
    """account(target_tpr=, at_fpr=) and account(target_advantage=) are
    `account --target-tpr/--at-fpr/--target-advantage`: the largest pure ε and
    μ-GDP meeting the target and the event's noise factor; bad targets raise
    InputError naming the argument."""
    g = {"mechanism": "gaussian", "l2_sensitivity": 1.0, "sigma": 1.0}
    f = tmp_path / "g.json"
    f.write_text(json.dumps(g))
    c = privpost.account(g, target_tpr=np.float64(0.05), at_fpr=0.01)
    _, out, _ = cli("account", "--event", f, "--target-tpr", "0.05", "--at-fpr", "0.01", "--json")
    assert c.to_dict() == json.loads(out)
    assert c.question == "calibrate" and c.target == {"kind": "tpr", "tpr": 0.05, "fpr": 0.01}
    assert abs(c.gdp_mu - 0.681494) < 1e-6 and 1 / c.gdp_mu <= c.noise_factor <= 1.0011 / c.gdp_mu
    assert c.calibrated_event["sigma"] == c.noise_factor and c.attack.tpr_at_fpr[0.01] <= 0.05
    a = privpost.account(g, target_advantage=0.2)
    assert a.attack.advantage <= 0.2 and a.pure_epsilon > 0
    for kwargs, argument in [
        ({"target_tpr": 0.005, "at_fpr": 0.01}, "target_tpr"),
        ({"target_tpr": 0.5, "at_fpr": 1.5}, "at_fpr"),
        ({"target_tpr": 0.5}, "at_fpr"),
        ({"target_advantage": 1.0}, "target_advantage"),
    ]:
        with pytest.raises(privpost.InputError) as e:
            privpost.account(g, **kwargs)
        assert e.value.argument == argument, kwargs
