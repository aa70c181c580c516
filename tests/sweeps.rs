//! The sweep workflow end to end, through the binary: the task cache (rerun,
//! resume after SIGKILL, extending a sweep, concurrent runs, --force), the
//! `--set` grammar and its errors, `combine`, progress heartbeats, and the CLI
//! habits (figure ids as targets, --profile, --keep-going, completions, --version).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{header, manifest, privpost, privpost_in, repo, rows, stderr, stdout};

fn run(out: &Path, args: &[&str]) -> std::process::Output {
    let mut a = vec!["run", "--out", out.to_str().unwrap()];
    a.extend_from_slice(args);
    privpost(&a)
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn cache_use(dir: &Path) -> (u64, u64) {
    let m = manifest(&dir.join("manifest.json"));
    (
        m["cache"]["tasks_computed"].as_u64().unwrap(),
        m["cache"]["tasks_from_cache"].as_u64().unwrap(),
    )
}

/// A rerun of a finished config executes no task; a deleted folder is rebuilt
/// from the cache alone, byte-identical; --force recomputes everything.
#[test]
fn reruns_compute_nothing_and_force_recomputes() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("bun2018/fig2@smoke");
    let o = run(out.path(), &["bun2018/fig2", "--smoke", "-j", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (computed, cached) = cache_use(&dir);
    assert!(computed > 0 && cached == 0);
    let data = read(&dir.join("data.csv"));
    let summary = read(&dir.join("summary.csv"));
    let manifest_bytes = read(&dir.join("manifest.json"));

    // up to date: nothing computed, nothing rewritten, said in one line
    let o = run(out.path(), &["bun2018/fig2", "--smoke", "-j", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("up to date"), "{}", stderr(&o));
    assert_eq!(read(&dir.join("manifest.json")), manifest_bytes);

    // folder gone: every task from the cache, same bytes
    std::fs::remove_dir_all(&dir).unwrap();
    let o = run(out.path(), &["bun2018/fig2", "--smoke", "-j", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(cache_use(&dir), (0, computed));
    assert_eq!(read(&dir.join("data.csv")), data);
    assert_eq!(read(&dir.join("summary.csv")), summary);

    // a different parameter is a different run
    let o = run(
        out.path(),
        &["bun2018/fig2", "--smoke", "--set", "epsilon=2"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // ... written beside the figure's own folder, which it leaves as it was
    let point = out.path().join("bun2018/fig2@smoke,epsilon=2");
    assert_eq!(cache_use(&point), (computed, 0));
    assert_eq!(cache_use(&dir), (0, computed));
    assert_eq!(read(&dir.join("data.csv")), data);

    let o = run(out.path(), &["bun2018/fig2", "--smoke", "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(cache_use(&dir), (computed, 0));
    assert_eq!(read(&dir.join("data.csv")), data);

    // cache status and clean
    let o = privpost(&["cache", "status", "--out", out.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("2 run(s), 2 usable by this binary"),
        "{}",
        stdout(&o)
    );
    let o = privpost(&["cache", "clean", "--out", out.path().to_str().unwrap()]);
    assert!(o.status.success() && stdout(&o).contains("removed 2"));
    let o = privpost(&["cache", "status", "--out", out.path().to_str().unwrap()]);
    assert!(stdout(&o).contains("empty"), "{}", stdout(&o));
}

/// `cache clean --older-than` removes only runs unused for that long (a run's
/// files aged by setting their modification time), keeps the rest, and refuses
/// an age without a unit with exit 2.
#[test]
fn cache_clean_older_than_removes_only_old_runs() {
    let out = tempfile::tempdir().unwrap();
    let o = run(out.path(), &["bun2018/fig2", "--smoke"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let root = out.path().join(".privpost-cache");
    let old: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(old.len(), 1);
    let ten_days_ago = std::time::SystemTime::now() - Duration::from_secs(10 * 86_400);
    for f in std::fs::read_dir(&old[0]).unwrap() {
        let f = std::fs::File::options()
            .append(true)
            .open(f.unwrap().path())
            .unwrap();
        f.set_modified(ten_days_ago).unwrap();
    }
    let o = run(
        out.path(),
        &["bun2018/fig2", "--smoke", "--set", "epsilon=2"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = out.path().to_str().unwrap();
    let o = privpost(&["cache", "status", "--out", dir]);
    assert!(stdout(&o).contains("used 10 d ago"), "{}", stdout(&o));
    let o = privpost(&["cache", "clean", "--out", dir, "--older-than", "7d"]);
    assert!(
        stdout(&o).contains("removed 1 cached run"),
        "{}",
        stdout(&o)
    );
    assert!(!old[0].exists());
    let o = privpost(&["cache", "status", "--out", dir]);
    assert!(stdout(&o).contains("1 run(s)"), "{}", stdout(&o));
    let o = privpost(&["cache", "clean", "--out", dir, "--older-than", "7"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--older-than") && stderr(&o).contains("no unit"));
}

/// Ctrl-C (SIGINT) during a run: exit 130 with how many tasks are kept and
/// how to resume, no output folder written, and the rerun resumes from the
/// cached tasks.
#[test]
fn ctrl_c_says_what_was_kept_and_the_rerun_resumes() {
    use std::io::BufRead;
    let out = tempfile::tempdir().unwrap();
    let args = [
        "foulds2016/recovery",
        "--smoke",
        "--set",
        "repeats=40",
        "-j",
        "1",
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_privpost"))
        .args(["run", "--out", out.path().to_str().unwrap()])
        .args(args)
        .current_dir(repo())
        .env("CI", "true")
        .env("PRIVPOST_HEARTBEAT_SECONDS", "0.1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    // wait for a heartbeat (tasks are running), then interrupt
    let mut log = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        log.push_str(&line);
        log.push('\n');
        if line.contains("elapsed, ETA") {
            break;
        }
    }
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    for line in lines {
        log.push_str(&line.unwrap());
        log.push('\n');
    }
    let status = child.wait().unwrap();
    let fig = "foulds2016/recovery@smoke,repeats=40";
    if out.path().join(fig).exists() {
        // the run finished before the signal arrived: nothing to check
        return;
    }
    assert_eq!(status.code(), Some(130), "{log}");
    assert!(log.contains("interrupted after"), "{log}");
    assert!(
        log.contains("run the same command again to resume"),
        "{log}"
    );
    let o = run(out.path(), &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let (_, cached) = cache_use(&out.path().join(fig));
    assert!(cached > 0, "nothing was kept: {log}");
}

/// The final table stays aligned when sweep labels are longer than its usual
/// name column.
#[test]
fn the_final_table_is_aligned_for_long_sweep_labels() {
    let out = tempfile::tempdir().unwrap();
    let o = run(
        out.path(),
        &[
            "foulds2016/fig2",
            "--smoke",
            "--set",
            "epsilon=0.1,1",
            "--set",
            "repeats=10,200",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let columns: Vec<usize> = text
        .lines()
        .filter(|l| l.starts_with("  foulds2016/fig2@"))
        .map(|l| l.find(" tasks ").unwrap())
        .collect();
    assert_eq!(columns.len(), 4, "{text}");
    assert!(columns.iter().all(|&c| c == columns[0]), "{text}");
}

/// A run killed with SIGKILL at random points resumes with only the unfinished
/// tasks, and its CSVs are byte-identical to an uninterrupted run's.
#[test]
fn killed_runs_resume_to_byte_identical_outputs() {
    let args = [
        "foulds2016/recovery",
        "--smoke",
        "--set",
        "repeats=6",
        "-j",
        "1",
    ];
    let reference = tempfile::tempdir().unwrap();
    let o = run(reference.path(), &[&args[..], &["--no-cache"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let fig = "foulds2016/recovery@smoke,repeats=6";
    let n = manifest(&reference.path().join(fig).join("manifest.json"))["tasks"]
        .as_u64()
        .unwrap();
    let wall = manifest(&reference.path().join(fig).join("manifest.json"))["wall_seconds"]
        .as_f64()
        .unwrap();

    let out = tempfile::tempdir().unwrap();
    // fixed pseudo-random kill times across the run (seeded, so the test is repeatable)
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut resumed_with_fewer = false;
    for trial in 0..4 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let fraction = 0.15 + 0.7 * (state % 1000) as f64 / 1000.0;
        let mut child = Command::new(env!("CARGO_BIN_EXE_privpost"))
            .args(["run", "--out", out.path().to_str().unwrap()])
            .args(args)
            .current_dir(repo())
            .env("CI", "true")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_secs_f64(0.2 + fraction * wall.max(0.5)));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        if out.path().join(fig).exists() {
            // finished before the kill: start the next trial from scratch
            std::fs::remove_dir_all(out.path()).unwrap();
            std::fs::create_dir_all(out.path()).unwrap();
            continue;
        }
        let o = run(out.path(), &args);
        assert!(o.status.success(), "trial {trial}: {}", stderr(&o));
        let (computed, cached) = cache_use(&out.path().join(fig));
        assert_eq!(computed + cached, n);
        resumed_with_fewer |= cached > 0;
        for f in ["data.csv", "summary.csv"] {
            assert_eq!(
                read(&out.path().join(fig).join(f)),
                read(&reference.path().join(fig).join(f)),
                "trial {trial}: {f} differs after a kill at {fraction:.2} of the run"
            );
        }
        // next trial from scratch (cache included), another kill point
        std::fs::remove_dir_all(out.path()).unwrap();
        std::fs::create_dir_all(out.path()).unwrap();
    }
    assert!(
        resumed_with_fewer,
        "no trial was killed mid-run with tasks already cached"
    );
}

/// Adding a sweep value computes only that point; the points' summaries carry
/// the swept key; `combine` joins them into one table, an overlay figure and a
/// listing of the points.
#[test]
fn extending_a_sweep_computes_only_the_new_point_and_combine_joins_them() {
    let out = tempfile::tempdir().unwrap();
    let o = run(
        out.path(),
        &["foulds2016/fig2", "--smoke", "--set", "epsilon=0.1,1"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(
        out.path(),
        &["foulds2016/fig2", "--smoke", "--set", "epsilon=[0.1,1,10]"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(text.matches("(up to date)").count(), 2, "{text}");
    let p = |v: &str| {
        out.path()
            .join(format!("foulds2016/fig2@smoke,epsilon={v}"))
    };
    let (computed, cached) = cache_use(&p("10"));
    assert!(computed > 0 && cached == 0);
    assert!(text.contains(&format!("{computed} of {} tasks computed", 3 * computed)));

    let h = header(&p("1").join("summary.csv"));
    assert_eq!(h[0], "set.epsilon");
    assert_eq!(&h[1..], ["mechanism", "n", "mean", "se", "runs"]);
    assert!(rows(&p("1").join("summary.csv"))
        .iter()
        .all(|r| r[0] == "1"));

    let dirs: Vec<String> = ["0.1", "1", "10"]
        .iter()
        .map(|v| p(v).display().to_string())
        .collect();
    let mut args = vec!["combine"];
    args.extend(dirs.iter().map(String::as_str));
    let o = privpost(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let c = out.path().join("foulds2016/fig2.combined");
    let h = header(&c.join("combined.csv"));
    assert_eq!(h[..3], ["point", "set.epsilon", "mechanism"]);
    let r = rows(&c.join("combined.csv"));
    let per_point = rows(&p("1").join("summary.csv")).len();
    assert_eq!(r.len(), 3 * per_point);
    assert_eq!(r[0][0], "epsilon=0.1");
    assert_eq!(r[2 * per_point][1], "10");
    for f in ["combined.png", "combined.svg"] {
        assert!(std::fs::metadata(c.join(f)).unwrap().len() > 1000, "{f}");
    }
    let listing = manifest(&c.join("combined.json"));
    assert_eq!(listing["points"].as_array().unwrap().len(), 3);
    assert_eq!(listing["points"][2]["set"]["epsilon"], "10");
    assert_eq!(
        listing["points"][0]["manifest"]["figure"],
        "foulds2016/fig2"
    );
    assert_eq!(listing["overlay"]["y"], "mean");

    // combine refuses other figures and non-figure folders
    let other = out.path().join("bun2018/fig2@smoke");
    let o = run(out.path(), &["bun2018/fig2", "--smoke"]);
    assert!(o.status.success());
    let o = privpost(&["combine", &dirs[0], other.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("differs"), "{}", stderr(&o));
    let o = privpost(&["combine", out.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("manifest.json"), "{}", stderr(&o));
}

/// Two runs into one output folder at once leave a complete, correct result.
#[test]
fn concurrent_runs_leave_a_complete_result() {
    let reference = tempfile::tempdir().unwrap();
    let args = ["foulds2016/recovery", "--smoke", "-j", "1"];
    let o = run(reference.path(), &[&args[..], &["--no-cache"]].concat());
    assert!(o.status.success());
    let out = tempfile::tempdir().unwrap();
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_privpost"))
            .args(["run", "--out", out.path().to_str().unwrap()])
            .args(args)
            .current_dir(repo())
            .env("CI", "true")
            .output()
            .unwrap()
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(spawn);
        let b = s.spawn(spawn);
        (a.join().unwrap(), b.join().unwrap())
    });
    assert!(a.status.success(), "{}", stderr(&a));
    assert!(b.status.success(), "{}", stderr(&b));
    let fig = "foulds2016/recovery@smoke";
    for f in ["data.csv", "summary.csv"] {
        assert_eq!(
            read(&out.path().join(fig).join(f)),
            read(&reference.path().join(fig).join(f))
        );
    }
    assert!(out.path().join(fig).join("figure.png").is_file());
    assert!(out.path().join(fig).join("manifest.json").is_file());
    // no temporary folders left beside it
    let leftovers: Vec<_> = std::fs::read_dir(out.path().join("foulds2016"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// In a log (no terminal, CI set) a figure that runs longer than the heartbeat
/// interval prints heartbeat lines with done/total, elapsed and ETA; --quiet
/// prints none.
#[test]
fn logs_get_heartbeats_and_quiet_runs_do_not() {
    let out = tempfile::tempdir().unwrap();
    let args = [
        "run",
        "foulds2016/recovery",
        "--smoke",
        "--set",
        "repeats=4",
        "-j",
        "1",
        "--no-cache",
        "--out",
        out.path().to_str().unwrap(),
    ];
    let beat = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_privpost"))
            .args(args)
            .args(extra)
            .current_dir(repo())
            .env("CI", "true")
            .env("PRIVPOST_HEARTBEAT_SECONDS", "0.1")
            .output()
            .unwrap()
    };
    let o = beat(&["--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("[1/1] foulds2016/recovery@smoke,repeats=4: 56 tasks to run"),
        "{e}"
    );
    let beats: Vec<&str> = e.lines().filter(|l| l.contains("elapsed, ETA")).collect();
    assert!(!beats.is_empty(), "no heartbeat in: {e}");
    assert!(beats.iter().all(|l| l.contains("/56 tasks")), "{beats:?}");
    // log lines carry the wall-clock time first (UTC, RFC 3339)
    let stamped = |l: &str| {
        let t = l.split(' ').next().unwrap_or("");
        t.len() == 20 && t.as_bytes()[4] == b'-' && t.as_bytes()[10] == b'T' && t.ends_with('Z')
    };
    assert!(beats.iter().all(|l| stamped(l)), "{beats:?}");
    assert!(
        e.lines()
            .filter(|l| l.contains("foulds2016/recovery@smoke,repeats=4: 56 tasks"))
            .all(stamped),
        "{e}"
    );
    let o = beat(&["--force", "--quiet"]);
    assert!(o.status.success());
    assert_eq!(stderr(&o), "");
    assert!(stdout(&o).contains("wrote 1 figure(s)"));
    let o = privpost_in(
        &repo(),
        &[
            "run",
            "bun2018/fig2",
            "--smoke",
            "--out",
            out.path().to_str().unwrap(),
        ],
        &[("PRIVPOST_HEARTBEAT_SECONDS", Path::new("soon"))],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("PRIVPOST_HEARTBEAT_SECONDS"));
}

/// Every form of the `--set` grammar, through `check`.
#[test]
fn the_set_grammar_sweeps_any_key() {
    let labels = |args: &[&str]| -> Vec<String> {
        let mut a = vec!["check"];
        a.extend_from_slice(args);
        let o = privpost(&a);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        stdout(&o)
            .lines()
            .filter_map(|l| {
                l.split_once(" [")
                    .and_then(|(_, r)| r.rsplit_once("], profile"))
                    .map(|(label, _)| label.to_string())
            })
            .collect()
    };
    let f2 = ["foulds2016/fig2", "--smoke", "--set"];
    assert_eq!(
        labels(&[&f2[..], &["epsilon=range(0.1,0.4,0.1)"]].concat()),
        ["epsilon=0.1", "epsilon=0.2", "epsilon=0.3"]
    );
    assert_eq!(
        labels(&[&f2[..], &["epsilon=geomspace(0.01,1,3)"]].concat()),
        ["epsilon=0.01", "epsilon=0.1", "epsilon=1"]
    );
    assert_eq!(
        labels(&[&f2[..], &["epsilon=0.5,2"]].concat()),
        ["epsilon=0.5", "epsilon=2"]
    );
    // a list-valued key: a list of lists sweeps, a list replaces
    assert_eq!(
        labels(&[&f2[..], &["n_values=[[10,20],[30]]"]].concat()),
        ["n_values=[10, 20]", "n_values=[30]"]
    );
    // a plain replacement labels its run too, unless it changes nothing
    assert_eq!(
        labels(&[&f2[..], &["n_values=[10,20]"]].concat()),
        ["n_values=[10,20]"]
    );
    // optional keys the config leaves out, and nested preset keys
    assert_eq!(
        labels(&["foulds2016/fig1", "--smoke", "--set", "successes=[3,5]"]),
        ["successes=3", "successes=5"]
    );
    assert_eq!(
        labels(&[
            "foulds2016/fig3",
            "--smoke",
            "--set",
            "states=2,3",
            "--set",
            "data.base_events=[10,20]"
        ]),
        [
            "states=2,data.base_events=10",
            "states=2,data.base_events=20",
            "states=3,data.base_events=10",
            "states=3,data.base_events=20"
        ]
    );
    // --profile smoke is --smoke
    let a = privpost(&["check", "bun2018/fig2", "--smoke"]);
    let b = privpost(&["check", "bun2018/fig2", "--profile", "smoke"]);
    assert_eq!(stdout(&a), stdout(&b));
    // the resolved config of each point
    let o = privpost(&[
        "check",
        "bun2018/fig2",
        "--smoke",
        "--resolved",
        "--set",
        "seed=1,2",
    ]);
    let text = stdout(&o);
    assert_eq!(
        text.matches("experiment = \"bun2018/fig2\"").count(),
        2,
        "{text}"
    );
    assert!(
        text.contains("seed = 2") && text.contains("draws = 500"),
        "{text}"
    );
}

/// Every `--set` mistake: exit 2, blamed on the `--set`, with what is allowed.
#[test]
fn set_mistakes_are_named() {
    for (set, expect) in [
        ("epsilonn=3", "--set epsilonn=3 (config configs/foulds2016/fig2.toml): key `epsilonn`: unknown key (did you mean `epsilon`?)"),
        ("epsilon=range(0,1,0)", "--set epsilon=range(0,1,0): range(…): the step must not be 0"),
        ("epsilon=range(0,1,1e-9)", "has 1000000000 values, more than 1000"),
        ("epsilon=range(0,1e308,1)", "range(0.0, 1e308, 1.0) has 1e308 values"),
        ("seed=-1,2", "--set seed=-1,2: key `seed`: invalid value -1"),
        ("epsilon=geomspace(0,1,3)", "start and stop must be > 0"),
        ("epsilon=spline(1,2)", "unknown sweep function `spline`"),
        ("epsilon=1,,2", "an empty value"),
        ("epsilon", "--set epsilon: has no `=`"),
        ("epsilon=[]", "a sweep needs at least one value"),
        ("experiment=x", "cannot be set from the command line"),
        ("prior=x", "--set prior=x (config configs/foulds2016/fig2.toml): key `prior`"),
    ] {
        let o = privpost(&["check", "foulds2016/fig2", "--set", set]);
        assert_eq!(o.status.code(), Some(2), "{set}");
        assert!(stderr(&o).contains(expect), "{set}: {}", stderr(&o));
    }
    let o = privpost(&[
        "check",
        "foulds2016/fig2",
        "--set",
        "epsilon=[0.1,0.5]",
        "--set",
        "epsilon=[1,2]",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .contains("--set epsilon=[1,2]: `epsilon` is already set by --set epsilon=[0.1,0.5]"),
        "{}",
        stderr(&o)
    );
    let o = privpost(&[
        "check",
        "foulds2016/fig2",
        "--set",
        "a=range(0,200)",
        "--set",
        "b=range(0,200)",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("40000 points"), "{}", stderr(&o));
    // figure ids: did you mean
    let o = privpost(&["run", "foulds2016/fg2", "--smoke"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("did you mean `foulds2016/fig2`"),
        "{}",
        stderr(&o)
    );
}

/// Figure ids as targets, --keep-going, completions and --version.
#[test]
fn cli_habits() {
    // a figure that cannot be written (its paper folder is a file) is refused
    // before any work, with or without --keep-going (it used to fail
    // after computing); --keep-going past a failing figure is tested in
    // tests/external.rs
    for keep_going in [true, false] {
        let out = tempfile::tempdir().unwrap();
        std::fs::write(out.path().join("foulds2016"), "not a folder").unwrap();
        let mut args = vec!["foulds2016/fig2", "bun2018/fig2", "--smoke"];
        if keep_going {
            args.push("--keep-going");
        }
        let o = run(out.path(), &args);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("foulds2016 is a file"),
            "{}",
            stderr(&o)
        );
        assert!(!out.path().join("bun2018").exists());
    }

    let o = privpost(&["completions", "bash"]);
    assert!(o.status.success() && stdout(&o).contains("_privpost"));
    let o = privpost(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    let o = privpost(&["--version"]);
    assert!(stdout(&o).contains("commit"), "{}", stdout(&o));
}

/// The fixed parameters under a figure's title come from the run itself: a
/// sweep point's `parameters.csv` holds its own ε, and `plot` refuses a damaged
/// one with exit 2 naming the file, leaving the figure as it was.
#[test]
fn subtitle_parameters_follow_the_sweep_point_and_a_damaged_file_is_refused() {
    let out = tempfile::tempdir().unwrap();
    let o = run(
        out.path(),
        &["foulds2016/fig1", "--smoke", "--set", "epsilon=0.5,2"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    for (point, eps) in [("epsilon=0.5", "0.5"), ("epsilon=2", "2")] {
        let dir = out.path().join(format!("foulds2016/fig1@smoke,{point}"));
        let text = std::fs::read_to_string(dir.join("parameters.csv")).unwrap();
        assert!(text.starts_with("parameter,value\n"), "{text}");
        assert!(text.contains(&format!("\nε,{eps}\n")), "{point}: {text}");
    }
    let dir = out.path().join("foulds2016/fig1@smoke,epsilon=2");
    let png = read(&dir.join("figure.png"));
    std::fs::write(dir.join("parameters.csv"), "name,value\nε,2\n").unwrap();
    let o = privpost(&["plot", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("parameters.csv") && stderr(&o).contains("parameter"),
        "{}",
        stderr(&o)
    );
    assert_eq!(read(&dir.join("figure.png")), png);
    // an edited file with a huge value is cut, not drawn as a huge canvas
    let huge = format!("parameter,value\nε,{}\n", "2 ".repeat(500_000));
    std::fs::write(dir.join("parameters.csv"), huge).unwrap();
    let o = privpost(&["plot", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let png = read(&dir.join("figure.png"));
    let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert!(height < 1500, "canvas height {height}");
}

/// `$PRIVPOST_TASK_TIMES` (for refitting the cost models): one line per
/// computed task with its cost and seconds, appended, the header once; a path
/// that cannot be appended to is refused before any work, exit 2.
#[test]
fn task_times_log_each_computed_task_once() {
    let out = tempfile::tempdir().unwrap();
    let log = out.path().join("times.csv");
    let args = [
        "run",
        "foulds2016/fig1",
        "--smoke",
        "--no-cache",
        "--force",
        "--out",
        out.path().to_str().unwrap(),
    ];
    for _ in 0..2 {
        let o = privpost_in(&repo(), &args, &[("PRIVPOST_TASK_TIMES", &log)]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let n = manifest(&out.path().join("foulds2016/fig1@smoke/manifest.json"))["tasks"]
        .as_u64()
        .unwrap() as usize;
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "figure,index,cost_units,seconds");
    assert_eq!(lines.len(), 1 + 2 * n, "{text}");
    for l in &lines[1..] {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f[0], "foulds2016/fig1@smoke", "{l}");
        assert!(f[1].parse::<usize>().unwrap() < n, "{l}");
        assert!(f[2].parse::<f64>().unwrap() > 0.0, "{l}");
        assert!(f[3].parse::<f64>().unwrap() >= 0.0, "{l}");
    }
    let fresh = tempfile::tempdir().unwrap();
    let mut bad = args.to_vec();
    let last = bad.len() - 1;
    bad[last] = fresh.path().to_str().unwrap();
    let o = privpost_in(&repo(), &bad, &[("PRIVPOST_TASK_TIMES", out.path())]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("PRIVPOST_TASK_TIMES="),
        "{}",
        stderr(&o)
    );
    assert!(!fresh.path().join("foulds2016").exists());
}

/// `--set key=[a, b]` on a key the config does not set: the figure's schema
/// decides — a list value where it takes a list (bun2018/fig2's `dimensions`), a
/// sweep where it takes one value (`epsilon`).
#[test]
fn a_list_for_an_unset_key_follows_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo().join("configs/bun2018/fig2.toml")).unwrap();
    let own: String = text
        .lines()
        .filter(|l| !l.starts_with("dimensions") && !l.starts_with("epsilon"))
        .map(|l| format!("{l}\n"))
        .collect();
    let cfg = dir.path().join("own.toml");
    std::fs::write(&cfg, own).unwrap();
    let out = privpost(&[
        "check",
        cfg.to_str().unwrap(),
        "--smoke",
        "--set",
        "dimensions=[2, 3, 4]",
        "--set",
        "epsilon=[1, 2]",
    ]);
    let said = stdout(&out);
    assert!(out.status.success(), "{said}{}", stderr(&out));
    assert!(said.contains("2 run(s) from 1 config(s)"), "{said}");
    for eps in ["epsilon=1]", "epsilon=2]"] {
        assert!(
            said.contains(&format!("[dimensions=[2,3,4],{eps}")),
            "{said}"
        );
    }
}

/// The cache holds a few files per sweep point, not one per task: a 3-point
/// sweep of 1,500 tasks leaves run.json and one pack per point; `cache status`
/// counts them with their bytes on disk; a rerun of one point with `--jobs 1`
/// (another process) reads the packs and computes nothing.
#[test]
fn the_cache_keeps_a_few_files_per_point_and_status_counts_them() {
    let out = tempfile::tempdir().unwrap();
    let args = [
        "foulds2016/fig2",
        "--smoke",
        "--set",
        "epsilon=0.1,1,10",
        "-q",
    ];
    let o = run(out.path(), &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let root = out.path().join(".privpost-cache");
    let mut files = 0;
    for run_dir in std::fs::read_dir(&root).unwrap() {
        let names: Vec<String> = std::fs::read_dir(run_dir.unwrap().path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(names.iter().any(|n| n.ends_with(".pack")), "{names:?}");
        files += names.len();
    }
    assert_eq!(files, 6);
    let o = privpost(&["cache", "status", "--out", out.path().to_str().unwrap()]);
    let s = stdout(&o);
    assert!(
        s.contains("3 run(s), 3 usable by this binary")
            && s.contains("in 6 files (")
            && s.contains("bytes on disk"),
        "{s}"
    );
    assert!(s.contains("500/500"), "{s}");
    let point = out.path().join("foulds2016/fig2@smoke,epsilon=1");
    std::fs::remove_dir_all(&point).unwrap();
    let o = run(
        out.path(),
        &[
            "foulds2016/fig2",
            "--smoke",
            "--set",
            "epsilon=1",
            "-j",
            "1",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(cache_use(&point), (0, 500));
}
