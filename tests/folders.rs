//! A folder says what it holds, and nothing replaces a
//! paper-scale result. A profile run writes `<figure>@smoke`, a config that
//! differs from the shipped one writes `<figure>@config=<stem>` (or its own
//! `id`), numbers have one spelling in folder names, the gallery's status is
//! computed by the run, `combine` joins like with like, and `[compare]`
//! follows a sweep or is refused.

mod common;

use std::path::{Path, PathBuf};

use common::{manifest, privpost, privpost_in, repo, rows, stderr, stdout};

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

fn run_in(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut a = vec!["run", "-q", "--out", "out"];
    a.extend_from_slice(args);
    privpost_in(dir, &a, &[])
}

fn ok(o: &std::process::Output) {
    assert!(o.status.success(), "{}\n{}", stdout(o), stderr(o));
}

fn refused(o: &std::process::Output, needles: &[&str]) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    for n in needles {
        assert!(e.contains(n), "{n:?} not in: {e}");
    }
}

/// The paper-scale folder of Foulds Fig. 2, then a smoke run, an own config
/// (a copy with another ε), the user's external figure drawn beside it in a
/// sweep, and a `--set` sweep: the paper folder stays byte-identical, every
/// other run has its own folder, and the gallery says which is which.
#[test]
fn nothing_replaces_a_paper_scale_result() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let shipped = repo().join("configs/foulds2016/fig2.toml");
    ok(&run_in(d, &[shipped.to_str().unwrap()]));
    let paper = d.join("out/foulds2016/fig2");
    let before = snapshot(&paper);
    assert!(!paper.join("departures.txt").exists());
    assert_eq!(
        manifest(&paper.join("manifest.json"))["departures"],
        serde_json::json!([])
    );

    // a copy of the shipped config is the paper's config: up to date, same folder
    std::fs::copy(&shipped, d.join("copy.toml")).unwrap();
    let o = run_in(d, &["copy.toml"]);
    ok(&o);
    assert!(stdout(&o).contains("(up to date)"), "{}", stdout(&o));

    // the smoke profile, an own config, and a sweep point that changes ε
    ok(&run_in(d, &[shipped.to_str().unwrap(), "--smoke"]));
    let text = std::fs::read_to_string(&shipped).unwrap();
    assert!(text.contains("\nepsilon = 0.1\n"));
    std::fs::write(
        d.join("mine.toml"),
        text.replace("\nepsilon = 0.1\n", "\nepsilon = 0.5\n"),
    )
    .unwrap();
    ok(&run_in(d, &["mine.toml"]));
    ok(&run_in(
        d,
        &[
            shipped.to_str().unwrap(),
            "--smoke",
            "--set",
            "epsilon=0.1,1",
        ],
    ));
    // the user's mechanism beside the built-in figure, following its sweep
    let example = repo().join("examples/laplace_public_n/config.toml");
    let o = privpost_in(
        &repo(),
        &[
            "run",
            example.to_str().unwrap(),
            "--smoke",
            "-q",
            "--set",
            "params.epsilon=0.1,1",
            "--out",
            d.join("out").to_str().unwrap(),
        ],
        &[],
    );
    ok(&o);
    assert_eq!(snapshot(&paper), before, "the paper-scale folder changed");

    let mut folders: Vec<String> = std::fs::read_dir(d.join("out/foulds2016"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    folders.sort();
    assert_eq!(
        folders,
        [
            "fig2",
            "fig2@config=mine",
            "fig2@smoke",
            "fig2@smoke,epsilon=0.1",
            "fig2@smoke,epsilon=1",
            "fig2@smoke,for=examples_laplace_public_n,params.epsilon=0.1",
            "fig2@smoke,for=examples_laplace_public_n,params.epsilon=1",
        ]
    );
    let m = manifest(&d.join("out/foulds2016/fig2@config=mine/manifest.json"));
    assert_eq!(
        m["departures"][0],
        "own config mine.toml: differs from the shipped configs/foulds2016/fig2.toml in `epsilon`"
    );
    // a non-paper-scale figure says so on the picture
    let svg =
        std::fs::read_to_string(d.join("out/foulds2016/fig2@config=mine/figure.svg")).unwrap();
    assert!(svg.contains("NOT THE PAPER"), "no departures line");
    let svg = std::fs::read_to_string(paper.join("figure.svg")).unwrap();
    assert!(!svg.contains("NOT THE PAPER"));

    // the gallery's status is the run's own record
    let html = std::fs::read_to_string(d.join("out/index.html")).unwrap();
    let contents = &html[..html.find("</table>").unwrap()];
    let row = |folder: &str| -> String {
        let at = contents
            .find(&format!(">{folder}</a>"))
            .unwrap_or_else(|| panic!("no row for {folder}"));
        let end = contents[at..].find("</tr>").unwrap();
        contents[at..at + end].to_string()
    };
    assert!(row("foulds2016/fig2").contains("paper scale: reproduced"));
    assert!(row("foulds2016/fig2@config=mine").contains("own config mine.toml"));
    assert!(!row("foulds2016/fig2@config=mine").contains("paper scale"));
    assert!(row("foulds2016/fig2@smoke").contains("smoke profile"));
    // the sweep point at the config's own ε departs only by its profile
    let same = row("foulds2016/fig2@smoke,epsilon=0.1");
    assert!(
        same.contains("smoke profile") && !same.contains("epsilon ="),
        "{same}"
    );
    assert!(row("foulds2016/fig2@smoke,epsilon=1").contains("epsilon = 1 (config: 0.1)"));
    let helper = row("foulds2016/fig2@smoke,for=examples_laplace_public_n,params.epsilon=1");
    assert!(
        helper.contains("drawn beside the external figure examples/laplace_public_n")
            && helper.contains("epsilon = 1"),
        "{helper}"
    );

    // the comparison ran at each point's ε: its ledger follows
    for eps in ["0.1", "1"] {
        let m = manifest(&d.join(format!(
            "out/foulds2016/fig2@smoke,for=examples_laplace_public_n,params.epsilon={eps}/manifest.json"
        )));
        assert_eq!(
            m["resolved_config"]["epsilon"].as_f64().unwrap(),
            eps.parse::<f64>().unwrap()
        );
        assert_eq!(m["compare_for"], "examples/laplace_public_n");
    }

    // combine takes the sweep points, not the helper folders or the plain smoke run
    let o = privpost(&[
        "combine",
        d.join("out/foulds2016/fig2").to_str().unwrap(),
        "--where",
        "profile=smoke",
    ]);
    ok(&o);
    let listing = manifest(&d.join("out/foulds2016/fig2.combined/combined.json"));
    let names: Vec<&str> = listing["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["label"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["epsilon=0.1", "epsilon=1"]);
    // a helper folder named explicitly is refused
    let o = privpost(&[
        "combine",
        d.join("out/foulds2016/fig2@smoke,epsilon=1")
            .to_str()
            .unwrap(),
        d.join("out/foulds2016/fig2@smoke,for=examples_laplace_public_n,params.epsilon=1")
            .to_str()
            .unwrap(),
    ]);
    refused(&o, &["a comparison run drawn beside the external figure"]);
}

/// `=1` and `=1.0` are one point; an own `id` is the folder; a built-in id or a
/// malformed one is refused before anything runs.
#[test]
fn one_spelling_per_number_and_own_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let shipped = repo().join("configs/foulds2016/fig2.toml");
    let cfg = shipped.to_str().unwrap();
    ok(&run_in(d, &[cfg, "--smoke", "--set", "epsilon=1"]));
    let o = run_in(d, &[cfg, "--smoke", "--set", "epsilon=1.0"]);
    ok(&o);
    assert!(stdout(&o).contains("(up to date)"), "{}", stdout(&o));
    assert!(d.join("out/foulds2016/fig2@smoke,epsilon=1").is_dir());
    assert!(!d.join("out/foulds2016/fig2@smoke,epsilon=1.0").exists());
    // the swept value as summary.csv shows it: one spelling too
    let o = run_in(d, &[cfg, "--smoke", "--set", "epsilon=[2.0,3]"]);
    ok(&o);
    let r = rows(&d.join("out/foulds2016/fig2@smoke,epsilon=2/summary.csv"));
    assert!(r.iter().all(|r| r[0] == "2"), "{r:?}");

    let text = std::fs::read_to_string(&shipped).unwrap();
    std::fs::write(
        d.join("own.toml"),
        format!("id = \"lab/fig2-copy\"\n{text}"),
    )
    .unwrap();
    ok(&run_in(d, &["own.toml"]));
    let m = manifest(&d.join("out/lab/fig2-copy/manifest.json"));
    assert_eq!(m["figure"], "foulds2016/fig2");
    assert_eq!(m["id"], "lab/fig2-copy");
    // the same config as shipped, in a folder of its own: at the paper's setting
    assert_eq!(m["departures"], serde_json::json!([]));
    for (id, needle) in [
        ("foulds2016/fig1", "a built-in figure's id"),
        ("noslash", "GROUP/NAME"),
        ("a/../b", "GROUP/NAME"),
        ("../x", "GROUP/NAME"),
    ] {
        std::fs::write(d.join("bad.toml"), format!("id = {id:?}\n{text}")).unwrap();
        let o = run_in(d, &["bad.toml"]);
        refused(&o, &["bad.toml", "key `id`", needle]);
    }
    assert!(!d.join("out/foulds2016/fig1").exists());
}

/// `combine` refuses a mixture of profiles or base configs naming the
/// folders, refuses a point given twice (`1` and `1.0` from an older run),
/// filters with `--where`, and draws the points in value order.
#[test]
fn combine_joins_like_with_like() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let shipped = repo().join("configs/foulds2016/fig2.toml");
    let cfg = shipped.to_str().unwrap();
    ok(&run_in(d, &[cfg, "--smoke", "--set", "epsilon=10,2,0.5"]));
    ok(&run_in(
        d,
        &[
            cfg,
            "--smoke",
            "--set",
            "repeats=3",
            "--set",
            "epsilon=0.5,2",
        ],
    ));
    let base = d.join("out/foulds2016/fig2");
    let o = privpost(&["combine", base.to_str().unwrap()]);
    refused(
        &o,
        &[
            "not points of one sweep",
            "fig2@smoke,epsilon=0.5",
            "fig2@smoke,repeats=3,epsilon=0.5",
        ],
    );
    // --where picks one sweep; points are drawn in value order, not by name
    let o = privpost(&[
        "combine",
        base.to_str().unwrap(),
        "--where",
        "repeats=3",
        "--out",
        d.join("three").to_str().unwrap(),
    ]);
    ok(&o);
    let points: Vec<PathBuf> = ["10", "2", "0.5"]
        .iter()
        .map(|e| d.join(format!("out/foulds2016/fig2@smoke,epsilon={e}")))
        .collect();
    let mut args: Vec<&str> = vec!["combine"];
    args.extend(points.iter().map(|p| p.to_str().unwrap()));
    ok(&privpost(&args));
    let listing = manifest(&d.join("out/foulds2016/fig2.combined/combined.json"));
    let labels: Vec<&str> = listing["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["epsilon=0.5", "epsilon=2", "epsilon=10"]);
    // an older run's `epsilon=2.0` beside `epsilon=2`: the same point twice
    let old = d.join("out/foulds2016/fig2@smoke,epsilon=2.0");
    std::fs::create_dir_all(&old).unwrap();
    for f in ["manifest.json", "summary.csv", "data.csv"] {
        let text = std::fs::read_to_string(points[1].join(f)).unwrap();
        let text = if f == "summary.csv" {
            text.lines()
                .map(|l| match l.strip_prefix("2,") {
                    Some(rest) => format!("2.0,{rest}\n"),
                    None => format!("{l}\n"),
                })
                .collect()
        } else {
            text
        };
        std::fs::write(old.join(f), text).unwrap();
    }
    let o = privpost(&[
        "combine",
        points[1].to_str().unwrap(),
        old.to_str().unwrap(),
    ]);
    refused(
        &o,
        &["the same sweep point twice", "epsilon=2 and epsilon=2.0"],
    );
    let o = privpost(&["combine", base.to_str().unwrap(), "--where", "nokey"]);
    refused(&o, &["--where nokey", "KEY=VALUE"]);
}

/// A sweep of the user's mechanism that the comparison does not follow is
/// refused before anything runs.
#[test]
fn a_comparison_that_ignores_the_sweep_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let text =
        std::fs::read_to_string(repo().join("examples/laplace_public_n/config.toml")).unwrap();
    let fixed = text.replace(
        "set = { epsilon = \"$epsilon\", p = \"$p\" }",
        "set = { epsilon = 0.1, p = 0.1 }",
    );
    assert_ne!(fixed, text);
    let cfg = d.join("fixed.toml");
    std::fs::write(&cfg, &fixed).unwrap();
    let run = |extra: &[&str]| {
        let mut a = vec!["run", cfg.to_str().unwrap(), "--smoke", "-q", "--out"];
        let out = d.join("out");
        let out = out.to_str().unwrap().to_string();
        a.push(&out);
        a.extend_from_slice(extra);
        privpost_in(&repo(), &a, &[])
    };
    let o = run(&["--set", "params.epsilon=0.1,10"]);
    refused(
        &o,
        &[
            "fixed.toml",
            "compare.set",
            "params.epsilon = 0.1",
            "epsilon = \"$params.epsilon\"",
        ],
    );
    assert!(!d.join("out").exists());
    // a misspelt reference is named
    let typo = text.replace(
        "set = { epsilon = \"$epsilon\"",
        "set = { epsilon = \"$epsilonn\"",
    );
    assert_ne!(typo, text);
    std::fs::write(&cfg, typo).unwrap();
    let o = run(&[]);
    refused(&o, &["compare.set.epsilon", "$epsilonn"]);
}

/// An external figure's `id` that climbs out of `--out`
/// (`../victim` replaced the folder beside it) is refused before anything
/// runs, and the folder beside `--out` is untouched.
#[test]
fn an_external_id_never_leaves_the_output_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let victim = d.join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    std::fs::write(victim.join("keep.txt"), "mine").unwrap();
    let text =
        std::fs::read_to_string(repo().join("examples/laplace_public_n/config.toml")).unwrap();
    for id in ["../victim", "../..", "a/../../victim", ".hidden/x"] {
        let evil = text.replace(
            "id = \"examples/laplace_public_n\"",
            &format!("id = {id:?}"),
        );
        assert_ne!(evil, text);
        let cfg = d.join("evil.toml");
        std::fs::write(&cfg, evil).unwrap();
        let out = d.join("out");
        let o = privpost_in(
            &repo(),
            &[
                "run",
                cfg.to_str().unwrap(),
                "--smoke",
                "-q",
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        );
        refused(&o, &["evil.toml", "key `id`", "GROUP/NAME"]);
        assert!(!out.exists(), "{id}: something was written");
        assert_eq!(
            std::fs::read_to_string(victim.join("keep.txt")).unwrap(),
            "mine"
        );
    }
}
