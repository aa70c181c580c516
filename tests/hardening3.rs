//! Hardening round 3: the doors added for users' own commands, events,
//! samples and data — no read without a bound, no panic that hangs a run, no
//! process that outlives its run, no estimate far below the work.

mod common;

use common::{privpost, privpost_within, refused, smoke_within, stderr};

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

/// Statrs panicked in a worker and the run waited forever. A
/// Dirichlet prior outside the documented [1e-6, 1e6] is refused naming `prior`;
/// a Beta prior inside it ([10000, 10], whose truncated posterior holds 10⁻¹⁸⁹ of
/// its mass inside OPS's interval) runs to the end; so do the two priors whose runs
/// stalled at 22/500 tasks and did nothing in 120 s (statrs' inverse Beta CDF looping
/// in a far tail).
#[test]
fn priors_that_panicked_or_stalled_are_refused_or_run() {
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_str().unwrap();
    let r = smoke_within(60, "calibration/dirichlet", o, &["prior=[5.0, 5.0, 1e20]"]);
    refused(&r, "key `prior`: 1e20");
    for (figure, prior) in [
        ("calibration/beta_bernoulli", "prior=[10000.0, 10.0]"),
        ("calibration/beta_bernoulli", "prior=[65634.8, 10.0]"),
        ("foulds2016/fig2", "prior=[1.0, 50000]"),
        ("calibration/dirichlet", "prior=[1e6, 1e-6, 1.0]"),
    ] {
        let r = smoke_within(120, figure, o, &[prior]);
        assert_eq!(r.status.code(), Some(0), "{figure} {prior}: {}", stderr(&r));
    }
}

/// Processes whose command line contains `marker` (from /proc).
fn processes_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(c) = std::fs::read(e.path().join("cmdline")) {
            let c = String::from_utf8_lossy(&c).replace('\0', " ");
            if c.contains(marker) && pid != std::process::id() {
                found.push(pid);
            }
        }
    }
    found
}

/// Waits up to `seconds` for `done()`.
fn eventually(seconds: f64, mut done: impl FnMut() -> bool) -> bool {
    let end = std::time::Instant::now() + std::time::Duration::from_secs_f64(seconds);
    while std::time::Instant::now() < end {
        if done() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    done()
}

/// `privpost run CONFIG -q --no-cache --out OUT` within `seconds`.
fn run_config(seconds: u64, cfg: &str, out: &str) -> std::process::Output {
    privpost_within(seconds, &["run", cfg, "-q", "--no-cache", "--out", out])
}

/// An external figure whose one task runs `script` (sh), declared columns series, y.
fn external(dir: &std::path::Path, script: &str, timeout: f64) -> String {
    let mech = dir.join("mech.sh");
    std::fs::write(&mech, script).unwrap();
    let mech = mech.to_str().unwrap();
    let text = format!(
        "experiment = \"external\"\nid = \"lab/procs\"\nseed = 1\ncommand = [\"sh\", \"{mech}\"]\ncode = [\"{mech}\"]\ntimeout_seconds = {timeout}\nrepeats = 1\n\
         [grid]\nx = [1]\n[[columns]]\nname = \"series\"\ntype = \"string\"\n[[columns]]\nname = \"y\"\ntype = \"float\"\n\
         [plot]\nx = \"x\"\ny = \"y\"\nseries = \"series\"\n\
         [[privacy]]\nseries = \"series=mine\"\nevent = {{ mechanism = \"non_private\" }}\n"
    );
    let path = dir.join("procs.toml");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// A background child holding stdout made the run ignore
/// `timeout_seconds`; it is killed with its command's group when the command exits.
/// More than 256 MiB of stdout is named as such, not as "exited with status 141".
#[test]
fn a_task_leaves_no_process_and_names_oversized_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let marker = "sleep 31.4159";
    let cfg = external(
        dir.path(),
        &format!("{marker} &\necho series,y\necho mine,0.5\n"),
        20.0,
    );
    let o = run_config(15, &cfg, out.to_str().unwrap());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(eventually(2.0, || processes_with(marker).is_empty()));
    let cfg = external(
        dir.path(),
        "echo series,y\nhead -c 300000000 /dev/zero | tr '\\0' 'a'\n",
        60.0,
    );
    let o = run_config(60, &cfg, out.to_str().unwrap());
    refused(&o, "wrote more than 268435456 bytes on stdout");
    assert!(!stderr(&o).contains("status 141"), "{}", stderr(&o));
}

/// Ctrl-C, SIGTERM or SIGKILL of `privpost run` had left the user's
/// command and its children running; the watcher kills their group when privpost
/// ends, however it ends.
#[test]
fn no_user_process_outlives_an_interrupted_or_killed_run() {
    for (k, signal) in ["INT", "TERM", "KILL"].into_iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let marker = format!("sleep 27.18{k}");
        let cfg = external(
            dir.path(),
            &format!("{marker} &\n{marker}\necho series,y\necho mine,0.5\n"),
            120.0,
        );
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_privpost"))
            .args(["run", &cfg, "-q", "--out", out.to_str().unwrap()])
            .env("CI", "true")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        assert!(
            eventually(20.0, || processes_with(&marker).len() >= 2),
            "the task did not start"
        );
        std::process::Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        let ended = eventually(20.0, || child.try_wait().unwrap().is_some());
        if !ended {
            let _ = child.kill();
        }
        assert!(ended, "privpost did not end on SIG{signal}");
        let left = eventually(5.0, || processes_with(&marker).is_empty());
        for pid in processes_with(&marker) {
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
        }
        assert!(
            left,
            "the task's processes outlived privpost after SIG{signal}"
        );
    }
}

/// Work thrown away by a late exit 1. A split-R̂ of 2·10¹⁶ (DP-HMC
/// at step 1, chains that never move) is drawn at the panel's cap instead of failing
/// the plot check after every task ran; ε = 5·10⁻³²⁴ is refused up front (it became
/// 0 in task 2); an external row of 1e16 is refused at its row.
#[test]
fn nothing_fails_after_the_work() {
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_str().unwrap();
    let r = smoke_within(240, "raisa2021/gauss", o, &["dp_hmc.step=1"]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let png = out
        .path()
        .join("raisa2021/gauss@smoke,dp_hmc.step=1/figure.png");
    assert!(png.is_file());
    let r = smoke_within(
        60,
        "foulds2016/recovery",
        o,
        &["epsilons=[0.1, 5e-324, 1.0]"],
    );
    refused(&r, "key `epsilons`: invalid privacy level ε = 5e-324");
    let dir = tempfile::tempdir().unwrap();
    let cfg = external(dir.path(), "echo series,y\necho mine,1e16\n", 20.0);
    let r = run_config(60, &cfg, o);
    refused(
        &r,
        "stdout line 2: column `y` = \"1e16\" is not a finite number of magnitude at most 1e15",
    );
}

/// Messages. `runs = 1` in geumlek2017/fig2 (one run has no sd)
/// runs to the end instead of stopping at "NaN in column sd"; a data_dir that cannot
/// be written is refused before any download; a JSON key given twice is refused;
/// stderr on a full device is exit 1, not a panic (exit 101).
#[test]
fn messages_name_the_cause_and_stderr_never_panics() {
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_str().unwrap();
    let r = smoke_within(120, "geumlek2017/fig2", o, &["runs=1"]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    if std::path::Path::new("/proc/self").is_dir() {
        let r = smoke_within(60, "geumlek2017/fig3", o, &["data_dir=/proc/privpost-no"]);
        refused(
            &r,
            "key `data_dir`: /proc/privpost-no: cannot write the datasets there",
        );
        assert!(!stderr(&r).contains("fetching"), "{}", stderr(&r));
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("dup.json");
    std::fs::write(
        &f,
        r#"{"event": {"mechanism": "laplace", "l1_sensitivity": 1.0, "scale": 0.1, "scale": 10.0}}"#,
    )
    .unwrap();
    let r = privpost(&["account", "--event", f.to_str().unwrap(), "--delta", "1e-5"]);
    refused(&r, "key `event.scale` given twice");
    if std::path::Path::new("/dev/full").exists() {
        for args in [
            vec!["run", "foulds2016/fig1", "--smoke", "--out", o],
            vec![
                "run",
                "foulds2016/fig1",
                "--smoke",
                "--out",
                o,
                "--set",
                "prior=[0,1]",
            ],
        ] {
            let r = std::process::Command::new(env!("CARGO_BIN_EXE_privpost"))
                .args(&args)
                .current_dir(common::repo())
                .stderr(std::fs::File::create("/dev/full").unwrap())
                .output()
                .unwrap();
            assert!(
                matches!(r.status.code(), Some(1) | Some(2)),
                "{args:?}: {:?}",
                r.status
            );
        }
    }
}

/// A diverged DP-SGNHT chain had left empty moments beside
/// `runs = 2`; a repeat enters a row only with every score, and `runs` counts those.
#[test]
fn diverged_chains_are_not_counted_as_runs() {
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_str().unwrap();
    let r = smoke_within(
        240,
        "raisa2021/gauss",
        o,
        &["sgnht.eta=20", "methods=[\"dp_sgnht\"]"],
    );
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let dir = std::fs::read_dir(out.path().join("raisa2021"))
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("gauss@"))
        .unwrap()
        .path();
    let h = common::header(&dir.join("summary.csv"));
    let c = |n: &str| h.iter().position(|x| x == n).unwrap();
    for row in common::rows(&dir.join("summary.csv")) {
        let runs: usize = row[c("runs")].parse().unwrap();
        let filled = !row[c("mmd_mean")].is_empty();
        assert_eq!(runs > 0, filled, "{row:?}");
        assert_eq!(runs, 0, "η = 20 diverges: {row:?}");
    }
    // and the data rows of a diverged repeat hold no score (its NaN variance had
    // been reported as a variance error of 0.0)
    let h = common::header(&dir.join("data.csv"));
    let c = |n: &str| h.iter().position(|x| x == n).unwrap();
    for row in common::rows(&dir.join("data.csv")) {
        if row[c("mmd")].is_empty() {
            assert!(row[c("var_error")].is_empty(), "{row:?}");
        }
    }
}
