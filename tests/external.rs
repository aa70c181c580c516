//! End-to-end: the external figure kind — a user's command as a figure, with
//! the worked example (`examples/laplace_public_n`, beside Foulds Fig. 2) at
//! smoke scale: sweeps, the task cache, shards + merge, `plot`, `combine`, the
//! gallery, the declared ledger; and every bad input refused with exit 2 naming
//! the key, the task, the row, with nothing damaged.

mod common;

use std::path::Path;

use common::*;

const EXAMPLE: &str = "examples/laplace_public_n/config.toml";

fn run_in(out: &Path, extra: &[&str]) -> std::process::Output {
    let mut a = vec!["run", EXAMPLE, "--smoke", "--out", out.to_str().unwrap()];
    a.extend_from_slice(extra);
    privpost(&a)
}

fn python() -> bool {
    std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_worked_example_runs_beside_foulds_fig2_with_cache_shards_and_gallery() {
    if !python() {
        eprintln!("python3 missing: skipping the external example");
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let o = run_in(out.path(), &["-j", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let fig = out.path().join("examples/laplace_public_n@smoke");
    let cmp = out
        .path()
        .join("foulds2016/fig2@smoke,for=examples_laplace_public_n");
    assert_eq!(
        header(&fig.join("data.csv")),
        ["n", "mechanism", "l1_error"]
    );
    assert_eq!(rows(&fig.join("data.csv")).len(), 5 * 100);
    assert_eq!(
        header(&fig.join("summary.csv")),
        ["n", "mechanism", "l1_error_mean", "l1_error_se", "runs"]
    );
    assert!(fig.join("figure.png").is_file() && fig.join("figure.svg").is_file());
    assert!(cmp.join("summary.csv").is_file());
    // the comparison is the built-in figure with the example's seed
    let m = manifest(&cmp.join("manifest.json"));
    assert_eq!(
        (m["figure"].as_str(), m["seed"].as_u64()),
        (Some("foulds2016/fig2"), Some(2016))
    );
    // the ledger: the declared event, marked, its ε following --set
    let m = manifest(&fig.join("manifest.json"));
    let entry = &m["privacy"][0];
    assert_eq!(entry["event"]["mechanism"], "laplace");
    assert_eq!(entry["event"]["scale"], 10.0);
    assert_eq!(entry["guarantee"]["epsilon"], 0.1);
    assert!(entry["conditions"][0]
        .as_str()
        .unwrap()
        .starts_with("declared by the user"));
    assert_eq!(
        m["details"]["code"][0]["file"],
        "examples/laplace_public_n/mechanism.py"
    );
    // --jobs 1 gives the same bytes; a rerun is up to date
    let one = tempfile::tempdir().unwrap();
    let o = run_in(one.path(), &["-j", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    for f in ["data.csv", "summary.csv"] {
        assert_eq!(
            std::fs::read(fig.join(f)).unwrap(),
            std::fs::read(one.path().join("examples/laplace_public_n@smoke").join(f)).unwrap()
        );
    }
    let o = run_in(out.path(), &[]);
    assert!(stderr(&o).contains("up to date"), "{}", stderr(&o));
    // shards, then merge: the same bytes
    let sharded = tempfile::tempdir().unwrap();
    for i in [2, 1] {
        let o = run_in(sharded.path(), &["--shard", &format!("{i}/2")]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = privpost(&["merge", sharded.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for f in ["data.csv", "summary.csv"] {
        assert_eq!(
            std::fs::read(fig.join(f)).unwrap(),
            std::fs::read(
                sharded
                    .path()
                    .join("examples/laplace_public_n@smoke")
                    .join(f)
            )
            .unwrap(),
            "{f} after shards + merge"
        );
    }
    // re-render from the folder alone
    std::fs::remove_file(fig.join("figure.png")).unwrap();
    let o = privpost(&["plot", fig.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(fig.join("figure.png").is_file());
    // a damaged drawing declaration is bad input, before any drawing
    let spec = fig.join("plot_spec.csv");
    let kept = std::fs::read(&spec).unwrap();
    std::fs::write(&spec, "key,value\nx,nope\n").unwrap();
    let o = privpost(&["plot", fig.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("names column `nope`"), "{}", stderr(&o));
    std::fs::write(&spec, kept).unwrap();
    // a sweep of a parameter: the ledger follows (ε = 1 → scale 1), combine joins the points
    let o = run_in(out.path(), &["--set", "params.epsilon=0.5,1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let p1 = out
        .path()
        .join("examples/laplace_public_n@smoke,params.epsilon=1");
    let m = manifest(&p1.join("manifest.json"));
    assert_eq!(m["privacy"][0]["event"]["scale"], 1.0);
    assert_eq!(m["privacy"][0]["guarantee"]["epsilon"], 1.0);
    let p05 = out
        .path()
        .join("examples/laplace_public_n@smoke,params.epsilon=0.5");
    let o = privpost(&["combine", p05.to_str().unwrap(), p1.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // the gallery shows the external figure with its notes
    let html = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    assert!(
        html.contains("examples/laplace_public_n@smoke") && html.contains("your own mechanism"),
        "gallery"
    );
}

/// `slurm` writes the job arrays of an external figure like a built-in one, and
/// `--keep-going` runs the other figures past a failing external task.
#[test]
fn slurm_scripts_and_keep_going_treat_external_figures_like_built_in_ones() {
    let out = tempfile::tempdir().unwrap();
    let o = privpost(&[
        "slurm",
        EXAMPLE,
        "--smoke",
        "--shards",
        "2",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("submit with"), "{}", stdout(&o));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cfg = config(d, "echo boom >&2\nexit 5\n", "");
    let fig1 = repo().join("configs/foulds2016/fig1.toml");
    let o = privpost_in(
        d,
        &[
            "run",
            &cfg,
            fig1.to_str().unwrap(),
            "--keep-going",
            "--out",
            "out",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("boom"), "{}", stderr(&o));
    assert!(d.join("out/foulds2016/fig1/summary.csv").is_file());
    assert!(!d.join("out/lab/mine").exists());
}

/// A config written next to a script; returns the config path.
fn config(dir: &Path, script: &str, extra: &str) -> String {
    std::fs::write(dir.join("mech.sh"), script).unwrap();
    let text = format!(
        "experiment = \"external\"\nid = \"lab/mine\"\nseed = 1\ncommand = [\"sh\", \"mech.sh\"]\ncode = [\"mech.sh\"]\ntimeout_seconds = 5\nrepeats = 2\n\
         [grid]\nx = [1, 2, 3]\n[params]\neps = 1.0\n[[columns]]\nname = \"series\"\ntype = \"string\"\n[[columns]]\nname = \"y\"\ntype = \"float\"\n\
         [plot]\nx = \"x\"\ny = \"y\"\nseries = \"series\"\n{extra}\n"
    );
    let privacy = "[[privacy]]\nseries = \"series=mine\"\nevent = { mechanism = \"gaussian\", l2_sensitivity = 1.0, sigma = 2.0, rdp_scale = 0.5 }\nclaim = { kind = \"rdp\", order = 2.0, epsilon = 0.25 }\n";
    let text = if extra.contains("[[privacy]]") {
        text
    } else {
        format!("{text}{privacy}")
    };
    // a top-level key replaces its default (the tables come after it)
    let text = match extra.strip_prefix("timeout_seconds = ") {
        Some(v) => text
            .replace(extra, "")
            .replace("timeout_seconds = 5\n", &format!("timeout_seconds = {v}\n")),
        None => text,
    };
    std::fs::write(dir.join("mine.toml"), text).unwrap();
    "mine.toml".into()
}

const GOOD: &str = "echo series,y\necho mine,0.5\necho mine,0.25\n";

#[test]
fn bad_commands_events_and_rows_exit_2_naming_the_key_task_or_row() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cfg = config(d, GOOD, "");
    let o = privpost_in(d, &["run", &cfg, "--out", "out"], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let data = std::fs::read(d.join("out/lab/mine/data.csv")).unwrap();
    assert_eq!(rows(&d.join("out/lab/mine/data.csv")).len(), 6);
    let snapshot = |p: &Path| {
        let mut v = Vec::new();
        for e in walkdir(p) {
            v.push((e.clone(), std::fs::read(&e).unwrap_or_default()));
        }
        v.sort();
        v
    };
    let before = snapshot(&d.join("out/.privpost-cache"));
    assert!(!before.is_empty());
    let privacy = |event: &str, claim: &str| {
        format!("[[privacy]]\nseries = \"series=mine\"\nevent = {event}\n{claim}")
    };
    let cases: Vec<(String, String, Vec<&str>)> = vec![
        // the command not found: refused at validation
        (
            GOOD.into(),
            String::new(),
            vec!["key `command`", "not-a-program-xyz", "not found"],
        ),
        // non-zero exit: the task index and the stderr tail
        (
            "echo 'Traceback: boom' >&2\nexit 3\n".into(),
            String::new(),
            vec!["external task 0", "status 3", "Traceback: boom"],
        ),
        // the wrong column count, with its stdout line
        (
            "echo series,y\necho mine,0.5,9\n".into(),
            String::new(),
            vec!["external task 0", "stdout line 2", "3 fields, expected 2"],
        ),
        // a wrong header
        (
            "echo name,y\necho mine,0.5\n".into(),
            String::new(),
            vec!["stdout line 1", "header `name,y`"],
        ),
        // NaN in a float column
        (
            "echo series,y\necho mine,nan\n".into(),
            String::new(),
            vec!["column `y` = \"nan\""],
        ),
        // a time-out
        (
            "sleep 30\n".into(),
            "timeout_seconds = 0.5".into(),
            vec!["timed out after 0.5 s"],
        ),
        // an event with σ ≤ 0
        (
            GOOD.into(),
            privacy(
                "{ mechanism = \"gaussian\", l2_sensitivity = 1.0, sigma = -1.0, rdp_scale = 0.5 }",
                "claim = { kind = \"rdp\", order = 2.0, epsilon = 1.0 }",
            ),
            vec!["privacy[0].event", "sigma = -1"],
        ),
        // a claim tighter than the event gives
        (
            GOOD.into(),
            privacy(
                "{ mechanism = \"laplace\", l1_sensitivity = 1.0, scale = 2.0 }",
                "claim = { kind = \"pure_dp\", epsilon = 0.1 }",
            ),
            vec!["privacy[0].claim", "not implied"],
        ),
        // an unknown event
        (
            GOOD.into(),
            privacy("{ mechanism = \"magic\" }", ""),
            vec!["privacy[0].event", "magic"],
        ),
        // the plot names a column that is not there
        (
            GOOD.into(),
            "[profile.x]\nrepeats = 2\n[profile.x.plot]\nx = \"x\"\ny = \"z\"".into(),
            vec!["plot.y", "\"z\""],
        ),
        // a [[privacy]] series naming no key of the figure: refused before any task
        (
            GOOD.into(),
            "[[privacy]]\nseries = \"seires=mine\"\nevent = { mechanism = \"laplace\", l1_sensitivity = 1.0, scale = 2.0 }\n".into(),
            vec!["privacy[0].series", "\"seires\" names no grid key", "string columns"],
        ),
        // … a grid value or parameter the figure does not have
        (
            GOOD.into(),
            "[[privacy]]\nseries = \"series=mine, x=7\"\nevent = { mechanism = \"laplace\", l1_sensitivity = 1.0, scale = 2.0 }\n".into(),
            vec!["privacy[0].series", "x = 7 is not a value of grid.x"],
        ),
    ];
    for (script, extra, wants) in cases {
        let cfg = config(d, &script, &extra);
        if wants[0] == "key `command`" {
            let t = std::fs::read_to_string(d.join(&cfg)).unwrap();
            std::fs::write(
                d.join(&cfg),
                t.replace("[\"sh\", \"mech.sh\"]", "[\"not-a-program-xyz\"]"),
            )
            .unwrap();
        }
        let o = privpost_in(d, &["run", &cfg, "--out", "out"], &[]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{wants:?}: {e}");
        for w in &wants {
            assert!(e.contains(w), "`{w}` not in: {e}");
        }
        assert!(!e.contains("panicked"), "{e}");
        assert_eq!(
            std::fs::read(d.join("out/lab/mine/data.csv")).unwrap(),
            data,
            "{wants:?}"
        );
        // no row of a failed task enters the cache (the good run's files stay as they were)
        let after = snapshot(&d.join("out/.privpost-cache"));
        for (f, bytes) in &after {
            if let Some(b) = before.iter().find(|x| &x.0 == f) {
                assert_eq!(&b.1, bytes, "{} changed", f.display());
            }
        }
        let new_rows = after
            .iter()
            .filter(|(f, _)| {
                !before.iter().any(|b| &b.0 == f) && f.extension().is_some_and(|x| x == "rows")
            })
            .count();
        assert_eq!(new_rows, 0, "{wants:?}: rows of a failed task were cached");
    }
}

/// A `[[privacy]]` series naming a value no row has, or a drawn series without an
/// entry, is refused with exit 2 once the rows are in, before anything is written
/// (a misspelt series was accepted and the real one left unledgered). The
/// task rows themselves are right and stay cached.
#[test]
fn privacy_series_must_name_the_drawn_series() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cfg = config(d, GOOD, "");
    let o = privpost_in(d, &["run", &cfg, "--out", "out"], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let data = std::fs::read(d.join("out/lab/mine/data.csv")).unwrap();
    let misspelt = "[[privacy]]\nseries = \"series=mien\"\nevent = { mechanism = \"laplace\", l1_sensitivity = 1.0, scale = 2.0 }\n";
    for (script, extra, wants) in [
        (
            GOOD,
            misspelt,
            vec!["privacy[0].series", "series = \"mien\"", "its values: mine"],
        ),
        (
            "echo series,y\necho mine,0.5\necho other,0.25\n",
            "",
            vec!["series = \"other\" has no [[privacy]] entry"],
        ),
    ] {
        let cfg = config(d, script, extra);
        let o = privpost_in(d, &["run", &cfg, "--out", "out"], &[]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{wants:?}: {e}");
        for w in &wants {
            assert!(e.contains(w), "`{w}` not in: {e}");
        }
        assert_eq!(
            std::fs::read(d.join("out/lab/mine/data.csv")).unwrap(),
            data
        );
    }
}

fn walkdir(p: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(p) {
        for e in rd.flatten() {
            let path = e.path();
            if path.is_dir() {
                out.extend(walkdir(&path));
            } else {
                out.push(path);
            }
        }
    }
    out
}
