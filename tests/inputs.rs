//! End-to-end: data inputs — the logistic-regression datasets and war-log CSV
//! records — good and bad.

mod common;

use common::*;

#[test]
fn logistic_regression_configs_reject_bad_privacy_parameters_and_corrupt_data() {
    for (config, set, key) in [
        ("configs/geumlek2017/fig3.toml", "lambdas=[0.5]", "lambdas"),
        (
            "configs/geumlek2017/fig3.toml",
            "mechanisms=[\"laplace\"]",
            "mechanisms",
        ),
        (
            "configs/geumlek2017/fig3.toml",
            "ln_epsilons=[]",
            "ln_epsilons",
        ),
        (
            "configs/geumlek2017/fig3.toml",
            "sampler=\"nuts\"",
            "sampler",
        ),
        ("configs/minami2016/logreg.toml", "delta=0", "delta"),
        ("configs/minami2016/logreg.toml", "delta=1.5", "delta"),
        (
            "configs/minami2016/logreg.toml",
            "conversion=\"best\"",
            "conversion",
        ),
        (
            "configs/minami2016/logreg.toml",
            "datasets=[\"iris\"]",
            "datasets",
        ),
        (
            "configs/foulds2016/fig3.toml",
            "data.preset=\"syria\"",
            "data.preset",
        ),
        (
            "configs/foulds2016/fig3.toml",
            "data.region_factors=[1.0]",
            "data",
        ),
        (
            "configs/foulds2016/fig7.toml",
            "data.source=\"xlsx\"",
            "data.source",
        ),
        (
            "configs/foulds2016/fig7.toml",
            "data.colour=1",
            "data.colour",
        ),
        (
            "configs/foulds2016/fig7.toml",
            "data.min_region_events=100000000",
            "data.min_region_events",
        ),
        (
            "configs/foulds2016/fig6.toml",
            "datasets.iraq.base_events=1e9",
            "datasets.iraq.base_events",
        ),
        (
            "configs/foulds2016/recovery.toml",
            "mechanisms=[\"exponential\"]",
            "mechanisms",
        ),
        (
            "configs/foulds2016/recovery.toml",
            "datasets.iraq.source=\"csv\"",
            "datasets.iraq.path",
        ),
        ("configs/foulds2016/fig3.toml", "burn_in=500", "burn_in"),
        (
            "configs/foulds2016/fig4_5.toml",
            "mechanism=\"gaussian\"",
            "mechanism",
        ),
        ("configs/foulds2016/fig4_5.toml", "epsilon=-1", "epsilon"),
        (
            "configs/foulds2016/fig6.toml",
            "panels=[\"lda:iraq\"]",
            "panels",
        ),
        (
            "configs/foulds2016/fig6.toml",
            "held_out_fraction=0.9",
            "held_out_fraction",
        ),
        // more splits than set-up streams per panel (split 100 of panel 0 would be
        // split 0 of panel 1): refused
        ("configs/foulds2016/fig6.toml", "splits=101", "splits"),
    ] {
        // `run` validates and prepares everything before any task: errors that need
        // the data (a threshold that leaves no region) surface there, nothing written
        let out = tempfile::tempdir().unwrap();
        let o = privpost(&[
            "run",
            config,
            "--smoke",
            "--set",
            set,
            "--out",
            out.path().to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{set}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(config) && e.contains(key), "{set}: {e}");
        assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "{set}");
    }
    // all files present but altered: `check` does not read them; `run` stops with a
    // clear error before writing anything, and downloads nothing
    let dir = tempfile::tempdir().unwrap();
    for f in ["abalone.csv", "adult.data", "adult.test", "mnist_5k.csv"] {
        std::fs::write(dir.path().join(f), b"tampered").unwrap();
    }
    let out = tempfile::tempdir().unwrap();
    let env = [("PRIVPOST_DATA", dir.path())];
    let o = privpost_in(
        &repo(),
        &["check", "configs/geumlek2017/fig3.toml", "--smoke"],
        &env,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("decided once the datasets are loaded"),
        "{}",
        stdout(&o)
    );
    let o = privpost_in(
        &repo(),
        &[
            "run",
            "configs/geumlek2017/fig3.toml",
            "--smoke",
            "--out",
            out.path().to_str().unwrap(),
        ],
        &env,
    );
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("does not match") && e.contains("privpost data fetch") && e.contains("data_dir"),
        "{e}"
    );
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
    for f in ["abalone.csv", "adult.data", "adult.test", "mnist_5k.csv"] {
        assert_eq!(std::fs::read(dir.path().join(f)).unwrap(), b"tampered");
    }
    // the Langevin sampler is refused with the iteration count it would need (its
    // schedule depends on the data, so `run` finds it, before any figure is written)
    let o = privpost(&[
        "run",
        "configs/minami2016/logreg.toml",
        "--smoke",
        "--set",
        "gibbs_sampler=\"langevin\"",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("Proposition 13 needs T =") && e.contains("langevin_max_iterations"),
        "{e}"
    );
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
}

/// War-log records as CSV: the generator's output written in the schema runs through
/// the HMM figures; malformed rows are named by line and leave earlier results intact.
#[test]
fn hmm_figures_read_csv_records_and_reject_malformed_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("afg.csv");
    let csv_s = csv.to_str().unwrap();
    let out = tmp.path().join("out");
    let out_s = out.to_str().unwrap();
    let o = privpost(&[
        "data",
        "warlog",
        "--preset",
        "afghanistan",
        "--base-events",
        "20",
        "--out",
        csv_s,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let path_set = format!("data.path=\"{csv_s}\"");
    let o = privpost(&[
        "run",
        "configs/foulds2016/fig7.toml",
        "--smoke",
        "--set",
        "data.source=csv",
        "--set",
        &path_set,
        "--out",
        out_s,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let d = common::point_dir(&out, "foulds2016/fig7");
    let summary = std::fs::read(d.join("summary.csv")).unwrap();
    let h = header(&d.join("summary.csv"));
    let t = h.iter().position(|x| x == "true_state").unwrap();
    let r = rows(&d.join("summary.csv"));
    assert!(r.len() > 100 && r.iter().all(|x| x[t].is_empty()));
    assert!(d.join("figure.png").is_file());
    let man: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(man["details"]["data"]["source"], "csv");
    assert_eq!(man["details"]["data"]["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(
        man["details"]["data"]["regions"].as_array().unwrap().len(),
        5
    );
    // a fixed type domain that leaves out values in the file: malformed rows, exit 2
    let o = privpost(&[
        "run",
        "--out",
        out_s,
        "configs/foulds2016/fig7.toml",
        "--set",
        "data.source=csv",
        "--set",
        &path_set,
        "--set",
        "data.type_values=[\"enemy action\", \"friendly action\"]",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not in type_values") && stderr(&o).contains("line "),
        "{}",
        stderr(&o)
    );
    // Figure 6 on a CSV panel
    let o = privpost(&[
        "run",
        "configs/foulds2016/fig6.toml",
        "--smoke",
        "--set",
        "panels=[\"hmm:afg\"]",
        "--set",
        "datasets.afg.source=csv",
        "--set",
        &format!("datasets.afg.path=\"{csv_s}\""),
        "--set",
        "datasets.afg.min_region_events=100",
        "--out",
        out_s,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let f6_summary = common::point_dir(&out, "foulds2016/fig6").join("summary.csv");
    // after the set.KEY columns of the point's label
    let n_set = header(&f6_summary)
        .iter()
        .take_while(|c| c.starts_with("set."))
        .count();
    let f6 = rows(&f6_summary);
    assert!(f6
        .iter()
        .all(|x| x[n_set] == "afg" && x[n_set + 1] == "hmm"));
    // recovery needs a planted truth
    let o = privpost(&[
        "check",
        "configs/foulds2016/recovery.toml",
        "--smoke",
        "--set",
        "datasets.iraq.source=csv",
        "--set",
        &format!("datasets.iraq.path=\"{csv_s}\""),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("datasets.iraq.source"),
        "{}",
        stderr(&o)
    );
    // corrupt two rows: one clear error naming the file, key and lines; nothing replaced
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[4] = lines[4].replacen("2004-", "2004/", 1);
    lines[8] = format!("{},extra", lines[8]);
    let bad = tmp.path().join("bad.csv");
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let o = privpost(&[
        "run",
        "configs/foulds2016/fig7.toml",
        "--smoke",
        "--set",
        "data.source=csv",
        "--set",
        &format!("data.path=\"{}\"", bad.display()),
        "--out",
        out_s,
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    for needle in [
        "configs/foulds2016/fig7.toml",
        "data.path",
        "bad.csv",
        "2 malformed row(s)",
        "line 5: `month`",
        "line 9: 8 fields, the header has 7",
    ] {
        assert!(e.contains(needle), "missing {needle:?} in {e}");
    }
    assert_eq!(std::fs::read(d.join("summary.csv")).unwrap(), summary);
}
