//! `privpost infer` on records released by randomized response (`contingency_table`,
//! docs/infer.md): the posterior against the exact one by enumeration, the
//! documented example from another folder, draws byte-identical for any --jobs, and
//! bad records refused with exit 2 naming the file, row and column, nothing written.

mod common;

use common::{infer_in as infer, infer_summary as summary, repo, text};
use privpost::damcmc::randomized_response::{exact_moments, RrAttribute, RrTable};

/// Records of two binary attributes, `counts` per cell in the cell order
/// (Admitted/Male, Admitted/Female, Rejected/Male, Rejected/Female), shuffled.
fn records(counts: [usize; 4]) -> String {
    let cells = [
        "Admitted,Male",
        "Admitted,Female",
        "Rejected,Male",
        "Rejected,Female",
    ];
    let mut rows: Vec<&str> = Vec::new();
    for round in 0..counts.iter().max().copied().unwrap_or(0) {
        for (c, &n) in counts.iter().enumerate() {
            if round < n {
                rows.push(cells[c]);
            }
        }
    }
    format!("admit,gender\n{}\n", rows.join("\n"))
}

const RELEASE: &str = r#"
model = "contingency_table"
prior = { alpha = [1.0, 2.0, 0.5, 1.5] }
[records]
file = "records.csv"
attributes = [
  { column = "admit", categories = ["Admitted", "Rejected"], keep = 0.75 },
  { column = "gender", categories = ["Male", "Female"], epsilon = 1.0986122886681098 },
]
[sampler]
chains = 4
warmup = 500
draws = 20000
seed = 3
"#;

/// Eight records, keep 3/4 on both attributes (one given as ε = ln 3): the posterior
/// means within 4 Monte Carlo standard errors (sd/√ESS) of the enumeration's and the
/// sds within 10 %; the parameters named by the categories; the manifest says Gibbs.
#[test]
fn randomized_response_records_give_the_exact_posterior() {
    let tmp = tempfile::tempdir().unwrap();
    let counts = [3, 1, 2, 2];
    std::fs::write(tmp.path().join("records.csv"), records(counts)).unwrap();
    let file = tmp.path().join("rr.toml");
    std::fs::write(&file, RELEASE).unwrap();
    let out = tmp.path().join("out with space");
    let o = infer(
        tmp.path(),
        &[file.to_str().unwrap(), "--out", out.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("randomized response, ε = 2.1972"),
        "{}",
        text(&o.stdout)
    );
    let folder = out.join("infer/rr");
    let got = summary(&folder);
    let channel = RrAttribute::new(2, 0.75).unwrap();
    let table = RrTable::new(
        vec![channel, channel],
        vec![1.0, 2.0, 0.5, 1.5],
        counts.iter().map(|&c| c as u64).collect(),
    )
    .unwrap();
    let (mean, sd) = exact_moments(&table).unwrap();
    let names = [
        "p_Admitted_Male",
        "p_Admitted_Female",
        "p_Rejected_Male",
        "p_Rejected_Female",
    ];
    for (k, (name, m, s, ess)) in got.iter().enumerate() {
        assert_eq!(name, names[k]);
        let se = s / ess.sqrt();
        assert!(
            (m - mean[k]).abs() < 4.0 * se,
            "{name}: mean {m} against the exact {} (se {se})",
            mean[k]
        );
        assert!(
            (s - sd[k]).abs() < 0.1 * sd[k],
            "{name}: sd {s} against the exact {}",
            sd[k]
        );
    }
    let manifest = std::fs::read_to_string(folder.join("manifest.json")).unwrap();
    let m: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    assert_eq!(m["kernel"], "gibbs");
    assert_eq!(m["release_file"]["records"]["file"], "records.csv");
    // the same draws with one worker or two
    let first = std::fs::read(folder.join("draws.csv")).unwrap();
    let o = infer(
        tmp.path(),
        &[
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--jobs",
            "1",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(std::fs::read(folder.join("draws.csv")).unwrap(), first);
}

/// docs/examples/rr-release.toml (400 records, dapper's vignette's channel) runs
/// from another folder: its records file is found beside it.
#[test]
fn the_documented_example_runs_from_another_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let example = repo().join("docs/examples/rr-release.toml");
    let out = tmp.path().join("out");
    let o = infer(
        tmp.path(),
        &[example.to_str().unwrap(), "--out", out.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let got = summary(&out.join("infer/rr-release"));
    assert_eq!(got.len(), 4);
    let total: f64 = got.iter().map(|g| g.1).sum();
    assert!((total - 1.0).abs() < 1e-9, "the cell means sum to {total}");
    assert!(got.iter().all(|g| g.3 > 400.0), "ESS: {got:?}");
}

/// Bad records and keys: exit 2 naming the release file and the key (and the row and
/// column of a bad value), before any sampling, the earlier folder left alone.
#[test]
fn bad_records_exit_2_naming_row_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    let good_records = records([3, 1, 2, 2]);
    std::fs::write(tmp.path().join("records.csv"), &good_records).unwrap();
    let small = RELEASE.replace("draws = 20000", "draws = 50");
    let file = tmp.path().join("rr.toml");
    std::fs::write(&file, &small).unwrap();
    let out = tmp.path().join("out");
    let o = infer(
        tmp.path(),
        &[file.to_str().unwrap(), "--out", out.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let before = std::fs::read(out.join("infer/rr/draws.csv")).unwrap();
    let bad_value = good_records.replacen("Rejected,Male", "Rejected,Other", 1);
    let row = bad_value
        .lines()
        .position(|l| l == "Rejected,Other")
        .unwrap()
        + 1;
    let cases: Vec<(String, String, Vec<String>)> = vec![
        (
            small.clone(),
            bad_value,
            vec![
                format!("row {row}, column gender"),
                "\"Other\"".into(),
                "Male, Female".into(),
            ],
        ),
        (
            small.clone(),
            good_records.replace("admit,gender", "admit,sex"),
            vec!["records.file".into(), "no column \"gender\"".into()],
        ),
        (
            small.clone(),
            good_records
                .replace("admit,gender", "admit,gender,id")
                .replace("Male\n", "Male,1\n")
                .replace("Female\n", "Female,2\n"),
            vec!["column \"id\" is not an attribute".into()],
        ),
        (
            small.clone(),
            "admit,gender\n".into(),
            vec!["records.file".into(), "0 records".into()],
        ),
        (
            small.replace("keep = 0.75", "keep = 0.5"),
            good_records.clone(),
            vec!["records.attributes[1].keep".into(), "(1/k, 1]".into()],
        ),
        (
            small.replace("epsilon = 1.0986122886681098", "epsilon = -1.0"),
            good_records.clone(),
            vec!["records.attributes[2].epsilon".into()],
        ),
        (
            small.replace("keep = 0.75", "keep = 0.75, epsilon = 1.0"),
            good_records.clone(),
            vec![
                "records.attributes[1].keep".into(),
                "keep and epsilon".into(),
            ],
        ),
        (
            small.replace("[\"Male\", \"Female\"]", "[\"Male\", \"Male\"]"),
            good_records.clone(),
            vec!["records.attributes[2].categories".into()],
        ),
        (
            small.replace("[1.0, 2.0, 0.5, 1.5]", "[1.0, 2.0, 0.5]"),
            good_records.clone(),
            vec!["prior.alpha".into()],
        ),
        (
            small.replace("file = \"records.csv\"", "file = \"missing.csv\""),
            good_records.clone(),
            vec!["records.file".into(), "missing.csv".into()],
        ),
        (
            format!("n = 9\n{small}"),
            good_records.clone(),
            vec!["n: 9".into(), "8".into()],
        ),
        (
            format!("{small}\n[release]\nmechanism = \"laplace\"\nscale = 1.0\nvalues = [1.0]\n"),
            good_records.clone(),
            vec!["release: given".into()],
        ),
        (
            small.replace("seed = 3", "seed = 3\nkernel = \"soma\""),
            good_records.clone(),
            vec!["sampler.kernel".into()],
        ),
        (
            small.replace("[records]", "[recs]"),
            good_records.clone(),
            vec!["recs".into()],
        ),
    ];
    for (release, rows, wanted) in cases {
        std::fs::write(&file, &release).unwrap();
        std::fs::write(tmp.path().join("records.csv"), &rows).unwrap();
        let o = infer(
            tmp.path(),
            &[file.to_str().unwrap(), "--out", out.to_str().unwrap()],
        );
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{wanted:?}: {err}");
        assert!(err.contains("rr.toml"), "{wanted:?}: {err}");
        for w in &wanted {
            assert!(err.contains(w.as_str()), "{w}: {err}");
        }
        assert!(!err.contains("infer: 4 chains"), "sampling started: {err}");
        // a file is named once, not once by the key and again by the reader
        if err.contains("missing.csv") {
            assert_eq!(err.matches("missing.csv").count(), 1, "{err}");
        }
    }
    // records with another model, a count model without its release
    let counts_release = std::fs::read_to_string(repo().join("docs/examples/release.toml"))
        .unwrap()
        .replace("warmup = 1000", "warmup = 20")
        .replace("draws = 2000", "draws = 30");
    let with_records =
        format!("{counts_release}\n[records]\nfile = \"records.csv\"\nattributes = []\n");
    std::fs::write(&file, with_records).unwrap();
    let o = infer(
        tmp.path(),
        &[file.to_str().unwrap(), "--out", out.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("records: given"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(
        std::fs::read(out.join("infer/rr/draws.csv")).unwrap(),
        before
    );
}
