//! End-to-end: a user's CSV dataset in the logistic-regression figures
//! (`[csv_datasets.NAME]`, `"csv:PATH"`), the `data export --raw` round trip, and
//! bad CSV files refused with their line before anything runs.

mod common;

use std::path::Path;

use common::*;

/// A small two-class CSV: two numeric features (one needing the clip), a category.
fn write_toy(path: &Path, rows: usize) {
    let mut text = String::from("x1,x2,colour,y\n");
    for i in 0..rows {
        let t = i as f64 * 0.37;
        let y = if t.sin() > 0.0 { "yes" } else { "no" };
        let colour = ["red", "green", "blue"][i % 3];
        text.push_str(&format!(
            "{:.4},{:.4},{colour},{y}\n",
            t.sin() * 3.0,
            t.cos()
        ));
    }
    std::fs::write(path, text).unwrap();
}

const TOY_TABLE: &str = "
[csv_datasets.toy]
path = \"toy.csv\"
label = \"y\"
positive = \"yes\"
negative = \"no\"
categorical = [\"colour\"]
max_norm = 1.0
";

/// A minami2016/logreg smoke config on the toy file, in `dir`.
fn toy_config(dir: &Path) -> std::path::PathBuf {
    let base = std::fs::read_to_string(repo().join("configs/minami2016/logreg.toml")).unwrap();
    let base = base
        .replace(
            "datasets = [\"abalone\", \"adult\", \"mnist\"]",
            "datasets = [\"toy\"]",
        )
        .replace("[profile.smoke]", &format!("{TOY_TABLE}\n[profile.smoke]"));
    assert!(base.contains("datasets = [\"toy\"]"));
    let path = dir.join("toy.toml");
    std::fs::write(&path, base).unwrap();
    path
}

#[test]
fn a_csv_dataset_runs_with_its_checksum_in_the_manifest_and_the_cache_key() {
    let dir = tempfile::tempdir().unwrap();
    write_toy(&dir.path().join("toy.csv"), 120);
    let config = toy_config(dir.path());
    let cfg = config.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", cfg, "--smoke", "--out", "out"];
        args.extend_from_slice(extra);
        privpost_in(dir.path(), &args, &[])
    };
    let o = run(&[]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A config on the user's own data never lands in the paper's folder
    let fig = dir.path().join("out/minami2016/logreg@config=toy,smoke");
    assert!(!dir.path().join("out/minami2016/logreg").exists());
    assert!(!dir.path().join("out/minami2016/logreg@smoke").exists());
    let m = manifest(&fig.join("manifest.json"));
    let own = m["departures"][0].as_str().unwrap();
    assert!(
        own.starts_with("own config ")
            && own
                .contains("toy.toml: differs from the shipped configs/minami2016/logreg.toml in ")
            && own.contains("`csv_datasets`")
            && own.contains("`datasets`"),
        "{own}"
    );
    let ds = &m["datasets"][0];
    assert_eq!(ds["name"], "toy");
    assert_eq!(ds["files"][0], "toy.csv");
    let sha = ds["sha256"][0].as_str().unwrap().to_string();
    assert_eq!(sha.len(), 64);
    assert_eq!(ds["rows"], 120);
    assert_eq!(ds["source"]["n_train"], 80);
    assert_eq!(ds["source"]["dim"], 5); // x1, x2, three colours
    let data = std::fs::read(fig.join("data.csv")).unwrap();
    assert!(rows(&fig.join("data.csv")).iter().all(|r| r[0] == "toy"));
    // up to date: nothing recomputed
    let o = run(&[]);
    assert!(stdout(&o).contains("up to date"), "{}", stdout(&o));
    // a changed file changes the key: the run recomputes, with the new SHA-256
    write_toy(&dir.path().join("toy.csv"), 123);
    let o = run(&[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stdout(&o).contains("up to date"), "{}", stdout(&o));
    let m = manifest(&fig.join("manifest.json"));
    assert_ne!(m["datasets"][0]["sha256"][0].as_str().unwrap(), sha);
    assert_eq!(m["datasets"][0]["rows"], 123);
    // back to the first file: the same rows again, from the cache
    write_toy(&dir.path().join("toy.csv"), 120);
    let o = run(&[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(fig.join("data.csv")).unwrap(), data);
    // the shorthand in a sweep: `csv:PATH`, label column `label` or the last one
    std::fs::write(
        dir.path().join("short.csv"),
        "a,b,label\n0.1,0.2,1\n0.3,-0.2,-1\n-0.5,0.1,1\n0.2,0.2,-1\n0.9,0.1,1\n-0.3,-0.3,-1\n",
    )
    .unwrap();
    let o = run(&["--set", "datasets=[\"csv:short.csv\"]"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let fig = dir
        .path()
        .join("out/minami2016/logreg@config=toy,smoke,datasets=[csv:short.csv]");
    let m = manifest(&fig.join("manifest.json"));
    assert_eq!(m["datasets"][0]["name"], "short");
    assert_eq!(m["datasets"][0]["source"]["dim"], 2);
    // the same file in Geumlek Fig. 3 and the sampler validation
    let samplers = repo().join("configs/geumlek2017/samplers.toml");
    let fig3 = repo().join("configs/geumlek2017/fig3.toml");
    for (config, extra) in [
        (samplers.to_str().unwrap(), "paper_slice_datasets=[]"),
        (fig3.to_str().unwrap(), "lambdas=[10.0]"),
    ] {
        let o = privpost_in(
            dir.path(),
            &[
                "run",
                config,
                "--smoke",
                "--out",
                "out2",
                "--set",
                "datasets=[\"csv:short.csv\"]",
                "--set",
                extra,
            ],
            &[],
        );
        assert!(o.status.success(), "{config}: {}", stderr(&o));
    }
    let out2 = dir.path().join("out2");
    assert!(common::point_dir(&out2, "geumlek2017/samplers")
        .join("summary.csv")
        .is_file());
    assert!(
        rows(&common::point_dir(&out2, "geumlek2017/fig3").join("data.csv"))
            .iter()
            .all(|r| r[0] == "short")
    );
}

/// Every mistake a user makes in a CSV dataset: exit 2 naming the file, the line
/// or key, before any task; the earlier results and the cache untouched.
#[test]
fn bad_csv_datasets_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    write_toy(&dir.path().join("toy.csv"), 60);
    let config = toy_config(dir.path());
    let cfg = config.to_str().unwrap();
    let args = ["run", cfg, "--smoke", "--out", "out"];
    let o = privpost_in(dir.path(), &args, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let fig = dir.path().join("out/minami2016/logreg@config=toy,smoke");
    let before = std::fs::read(fig.join("data.csv")).unwrap();
    let cache_files = || {
        let mut v: Vec<_> = walk(&dir.path().join("out/.privpost-cache"));
        v.sort();
        v
    };
    let cache_before = cache_files();
    assert!(!cache_before.is_empty());
    let good = std::fs::read_to_string(dir.path().join("toy.csv")).unwrap();
    let mut lines: Vec<String> = good.lines().map(str::to_string).collect();
    let nan_row = {
        let mut l = lines.clone();
        l[7] = "nan,0.5,red,yes".into();
        l.join("\n")
    };
    let short_row = {
        let mut l = lines.clone();
        l[12] = "0.5,red,yes".into();
        l.join("\n")
    };
    let bad_label = {
        lines[20] = "0.5,0.5,red,maybe".into();
        lines.join("\n")
    };
    for (file_text, set, wants) in [
        (
            nan_row.as_str(),
            None,
            vec!["toy.csv: line 8", "column \"x1\"", "csv_datasets.toy.path"],
        ),
        (
            short_row.as_str(),
            None,
            vec!["toy.csv: line 13", "3 fields, expected 4"],
        ),
        (
            bad_label.as_str(),
            None,
            vec!["toy.csv: line 21", "\"maybe\""],
        ),
        (
            good.as_str(),
            Some("csv_datasets.toy.label=\"income\""),
            vec!["toy.csv: line 1", "no column \"income\""],
        ),
        (
            good.as_str(),
            Some("csv_datasets.toy.path=\"nowhere.csv\""),
            vec!["nowhere.csv", "cannot read"],
        ),
        (
            good.as_str(),
            Some("csv_datasets.toy.max_norm=-1"),
            vec!["csv_datasets.toy.max_norm"],
        ),
        (
            good.as_str(),
            Some("csv_datasets.toy.scale=\"paper\""),
            vec!["csv_datasets.toy.scale", "unknown key"],
        ),
        (
            good.as_str(),
            Some("datasets=[\"toyy\"]"),
            vec!["unknown dataset \"toyy\"", "csv_datasets"],
        ),
    ] {
        std::fs::write(dir.path().join("toy.csv"), file_text).unwrap();
        let mut a: Vec<&str> = args.to_vec();
        a.push("--force");
        if let Some(s) = set {
            a.extend(["--set", s]);
        }
        let o = privpost_in(dir.path(), &a, &[]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{set:?}: {e}");
        for w in wants {
            assert!(e.contains(w), "{set:?}: `{w}` not in: {e}");
        }
        assert!(!e.contains("panicked"), "{e}");
        assert_eq!(std::fs::read(fig.join("data.csv")).unwrap(), before);
        assert_eq!(cache_files(), cache_before, "{set:?}: the cache changed");
    }
}

fn walk(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

/// `privpost data export adult --raw`, read back as a CSV dataset with the printed
/// table, gives the built-in Adult's draws and scores bit for bit (the dataset
/// column aside, which carries the name the config gives). Needs the fetched
/// datasets (scripts/test.sh fetches them); skips with a message without them.
#[test]
fn exported_adult_read_back_as_csv_gives_the_built_in_results() {
    let data = repo().join("data");
    if !data.join("adult.data").is_file() || !data.join("adult.test").is_file() {
        eprintln!("adult not fetched: skipping (run `privpost data fetch`)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = data.to_str().unwrap();
    let o = privpost_in(
        dir.path(),
        &[
            "data",
            "export",
            "adult",
            "--raw",
            "--out",
            "adult.csv",
            "--dir",
            d,
        ],
        &[],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let table: String = stdout(&o)
        .lines()
        .skip_while(|l| !l.starts_with("[csv_datasets."))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(table.contains("scaling = \"paper\""), "{table}");
    let base = std::fs::read_to_string(repo().join("configs/geumlek2017/fig3.toml")).unwrap();
    let base = base.replace("datasets = [", &format!("data_dir = {d:?}\ndatasets = ["));
    for (name, list) in [("builtin", "[\"adult\"]"), ("csv", "[\"adult_csv\"]")] {
        let text = base
            .replace(
                "datasets = [\"abalone\", \"adult\", \"mnist\"]",
                &format!("datasets = {list}"),
            )
            .replace("[profile.smoke]", &format!("{table}\n[profile.smoke]"));
        std::fs::write(dir.path().join(format!("{name}.toml")), text).unwrap();
        let o = privpost_in(
            dir.path(),
            &[
                "run",
                &format!("{name}.toml"),
                "--smoke",
                "--out",
                name,
                "--no-cache",
            ],
            &[],
        );
        assert!(o.status.success(), "{name}: {}", stderr(&o));
    }
    for file in ["data.csv", "summary.csv"] {
        let a = std::fs::read_to_string(
            dir.path()
                .join("builtin/geumlek2017/fig3@config=builtin,smoke")
                .join(file),
        )
        .unwrap();
        let b = std::fs::read_to_string(
            dir.path()
                .join("csv/geumlek2017/fig3@config=csv,smoke")
                .join(file),
        )
        .unwrap();
        assert!(b.contains("adult_csv,"));
        assert_eq!(a, b.replace("adult_csv,", "adult,"), "{file} differs");
    }
    let m = manifest(
        &dir.path()
            .join("csv/geumlek2017/fig3@config=csv,smoke/manifest.json"),
    );
    let b = manifest(
        &dir.path()
            .join("builtin/geumlek2017/fig3@config=builtin,smoke/manifest.json"),
    );
    assert_eq!(
        m["datasets"][0]["source"]["content_sha256"],
        b["datasets"][0]["source"]["content_sha256"]
    );
    assert_eq!(m["datasets"][0]["rows"], 45222);
}

/// A bound that clips most rows is said by `check` and `run`
/// (how many, and what to do); declared ranges that fit are silent; an
/// intercept column is optional, counted in the dimension and the norm, and
/// refused beyond the bound.
#[test]
fn a_bound_that_clips_most_rows_is_said_and_an_intercept_is_optional() {
    let dir = tempfile::tempdir().unwrap();
    write_toy(&dir.path().join("toy.csv"), 90);
    let config = toy_config(dir.path());
    let cfg = config.to_str().unwrap();
    let warning = "warning: csv dataset `toy` (toy.csv): the declared bound max_norm = 1 clips ";
    let o = privpost_in(dir.path(), &["check", cfg, "--smoke"], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains(warning) && e.contains("of 90 rows"), "{e}");
    assert!(e.contains("scaling = \"bounds\""), "{e}");
    let o = privpost_in(
        dir.path(),
        &["run", cfg, "--smoke", "--out", "out", "-q"],
        &[],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains(warning), "{}", stderr(&o));
    let m = manifest(
        &dir.path()
            .join("out/minami2016/logreg@config=toy,smoke/manifest.json"),
    );
    let clipped = m["datasets"][0]["source"]["rows_clipped"].as_u64().unwrap();
    assert!(clipped > 80, "{clipped}");
    assert!(m["datasets"][0]["source"]["preprocessing"]
        .as_str()
        .unwrap()
        .contains("no intercept (the model is w·x)"));

    // declared ranges and a bound that holds: silent, nothing clipped; with an intercept
    let text = std::fs::read_to_string(&config).unwrap();
    let fitted = text.replace(
        "max_norm = 1.0\n",
        "max_norm = 1.3\nscaling = \"bounds\"\nbounds = { x1 = [-3.0, 3.0], x2 = [-1.0, 1.0] }\nintercept = 0.5\n",
    );
    assert_ne!(fitted, text);
    std::fs::write(&config, &fitted).unwrap();
    let o = privpost_in(dir.path(), &["check", cfg, "--smoke"], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !stderr(&o).contains("warning: csv dataset"),
        "{}",
        stderr(&o)
    );
    let o = privpost_in(
        dir.path(),
        &["run", cfg, "--smoke", "--out", "out", "-q"],
        &[],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !stderr(&o).contains("warning: csv dataset"),
        "{}",
        stderr(&o)
    );
    let m = manifest(
        &dir.path()
            .join("out/minami2016/logreg@config=toy,smoke/manifest.json"),
    );
    let src = &m["datasets"][0]["source"];
    assert_eq!(src["rows_clipped"], 0);
    assert_eq!(src["intercept"], 0.5);
    // x1, x2, three colours and the intercept
    assert_eq!(src["dim"], 6);
    // an intercept beyond the bound is refused naming the key
    std::fs::write(
        &config,
        fitted.replace("intercept = 0.5", "intercept = 2.0"),
    )
    .unwrap();
    let o = privpost_in(dir.path(), &["check", cfg, "--smoke"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("csv_datasets.toy.intercept") && stderr(&o).contains("≤ max_norm"),
        "{}",
        stderr(&o)
    );
}
