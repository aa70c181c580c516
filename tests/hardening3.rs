//! Hardening round 3 (issue 47): the doors added for users' own commands, events,
//! samples and data — no read without a bound, no panic that hangs a run, no
//! process that outlives its run, no estimate far below the work.

mod common;

use common::{privpost, privpost_within, stderr};

/// Exit 2, naming `key`, and no panic.
fn refused(o: &std::process::Output, key: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains(key), "{key} not named: {e}");
    assert!(!e.contains("panicked"), "{e}");
}

/// A device is never read as an input file (`/dev/zero` was read for 2 GB, or
/// until a 4 GiB allocation aborted): events, manifests, samples, CSV datasets.
#[test]
fn devices_are_not_read_as_inputs() {
    let out = tempfile::tempdir().unwrap();
    for args in [
        vec!["account", "--event", "/dev/zero", "--delta", "1e-5"],
        vec!["account", "--manifest", "/dev/zero"],
        vec!["audit", "--samples", "/dev/zero", "--claim", "epsilon=1"],
        vec![
            "run",
            "geumlek2017/fig3",
            "--smoke",
            "-q",
            "--out",
            out.path().to_str().unwrap(),
            "--set",
            "datasets=[\"csv:/dev/zero\"]",
        ],
    ] {
        let o = privpost(&args);
        refused(&o, "/dev/zero: a device");
    }
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
}

/// Issue 47 item 4: statrs panicked in a worker and the run waited forever. A
/// Dirichlet prior outside the documented [1e-6, 1e6] is refused naming `prior`;
/// a Beta prior inside it ([10000, 10], whose truncated posterior holds 10⁻¹⁸⁹ of
/// its mass inside OPS's interval) runs to the end; so do the two priors whose runs
/// stalled at 22/500 tasks and did nothing in 120 s (statrs' inverse Beta CDF looping
/// in a far tail).
#[test]
fn priors_that_panicked_or_stalled_are_refused_or_run() {
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_str().unwrap();
    let r = privpost_within(
        60,
        &[
            "run",
            "calibration/dirichlet",
            "--smoke",
            "-q",
            "--out",
            o,
            "--set",
            "prior=[5.0, 5.0, 1e20]",
        ],
    );
    refused(&r, "key `prior`: 1e20");
    for (figure, prior) in [
        ("calibration/beta_bernoulli", "prior=[10000.0, 10.0]"),
        ("calibration/beta_bernoulli", "prior=[65634.8, 10.0]"),
        ("foulds2016/fig2", "prior=[1.0, 50000]"),
        ("calibration/dirichlet", "prior=[1e6, 1e-6, 1.0]"),
    ] {
        let r = privpost_within(
            120,
            &["run", figure, "--smoke", "-q", "--out", o, "--set", prior],
        );
        assert_eq!(r.status.code(), Some(0), "{figure} {prior}: {}", stderr(&r));
    }
}
