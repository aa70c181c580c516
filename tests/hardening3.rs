//! Hardening round 3 (issue 47): the doors added for users' own commands, events,
//! samples and data — no read without a bound, no panic that hangs a run, no
//! process that outlives its run, no estimate far below the work.

mod common;

use common::{privpost, stderr};

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
