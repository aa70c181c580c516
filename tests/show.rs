//! `privpost show` end to end: a figure's summary in the terminal with the
//! ledger's claim beside each row, the same table as CSV, JSON and Markdown;
//! bad folders and table names refused with exit 2.

mod common;

use common::{privpost, privpost_in};
use std::path::{Path, PathBuf};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// foulds2016/fig2 at its smoke profile, into a folder with a space in its name.
fn figure(tmp: &Path) -> PathBuf {
    let out = tmp.join("out with space");
    let o = privpost(&[
        "run",
        "foulds2016/fig2",
        "--smoke",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    out.join("foulds2016/fig2@smoke")
}

fn show(dir: &Path, args: &[&str]) -> std::process::Output {
    privpost_in(dir, &[&["show"], args].concat(), &[])
}

/// Every format shows every summary row, with the ledger's claim in `privacy`:
/// the Laplace and OPS rows their ε = 0.1, the non-private rows "not private";
/// the CSV is summary.csv with that column added, byte for byte before it.
#[test]
fn every_format_shows_the_summary_with_its_claims() {
    let tmp = tempfile::tempdir().unwrap();
    let fig = figure(tmp.path());
    let summary = std::fs::read_to_string(fig.join("summary.csv")).unwrap();
    let rows = summary.lines().count() - 1;

    let o = show(tmp.path(), &[fig.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("foulds2016/fig2 — summary.csv"),
        "{out}"
    );
    assert!(lines[1].contains("mechanism") && lines[1].ends_with("privacy"));
    assert_eq!(lines.len(), rows + 3, "{out}");
    // aligned: the privacy column starts at the same place on every row
    let at = lines[1].find("privacy").unwrap();
    for l in &lines[2..2 + rows] {
        let c = l.chars().count();
        assert!(c > at, "{l}");
    }
    assert!(out
        .lines()
        .any(|l| l.starts_with("laplace") && l.contains("ε = 0.1")));
    assert!(out
        .lines()
        .any(|l| l.starts_with("posterior") && l.contains("not private")));

    let o = show(tmp.path(), &[fig.to_str().unwrap(), "--format", "csv"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let csv = text(&o.stdout);
    for (a, b) in summary.lines().zip(csv.lines()) {
        assert!(b.starts_with(a), "{b} does not extend {a}");
    }
    assert_eq!(csv.lines().count(), rows + 1);

    let o = show(
        tmp.path(),
        &[
            fig.join("manifest.json").to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["figure"], "foulds2016/fig2");
    assert_eq!(v["rows"].as_array().unwrap().len(), rows);
    let first_laplace = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["mechanism"] == "laplace")
        .unwrap();
    assert!(first_laplace["mean"].is_f64(), "{first_laplace}");
    assert!(first_laplace["privacy"]
        .as_str()
        .unwrap()
        .starts_with("ε = 0.1"));

    let o = show(tmp.path(), &[fig.to_str().unwrap(), "--format", "markdown"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let md = text(&o.stdout);
    assert!(md.starts_with("| mechanism | n |"), "{md}");
    assert_eq!(md.lines().count(), rows + 2);

    // another of the folder's tables
    let o = show(tmp.path(), &[fig.to_str().unwrap(), "--table", "data"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).starts_with("foulds2016/fig2 — data.csv"));
}

/// A folder without a manifest, a file that is not one, an unknown table and a
/// manifest that is not JSON: exit 2, the path and what is allowed named.
#[test]
fn bad_folders_and_tables_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let fig = figure(tmp.path());
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let o = show(tmp.path(), &[empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("no manifest.json"),
        "{}",
        text(&o.stderr)
    );

    let o = show(tmp.path(), &[fig.join("summary.csv").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("not a figure folder"));

    let o = show(
        tmp.path(),
        &[fig.to_str().unwrap(), "--table", "../summary"],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("--table") && err.contains("allowed: data, parameters, summary"),
        "{err}"
    );

    let broken = tmp.path().join("broken");
    std::fs::create_dir(&broken).unwrap();
    std::fs::write(broken.join("manifest.json"), "{ not json").unwrap();
    let o = show(tmp.path(), &[broken.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("manifest.json"),
        "{}",
        text(&o.stderr)
    );

    let o = show(tmp.path(), &[fig.to_str().unwrap(), "--format", "yaml"]);
    assert_eq!(o.status.code(), Some(2));
}
