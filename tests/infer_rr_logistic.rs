//! `privpost infer` on a logistic regression whose labels were released by
//! randomized response (`logistic_regression`, docs/infer.md): the posterior against
//! the closed-form marginal integrated on a grid, draws byte-identical for any
//! --jobs, the documented example from another folder, and bad records refused with
//! exit 2 naming the file, key, row and column, before any sampling.

mod common;

use common::{infer_in as infer, infer_summary as summary, repo, text};

const DOSE: [f64; 16] = [
    -2.0, -1.6, -1.1, -0.9, -0.5, -0.3, 0.0, 0.2, 0.4, 0.5, 0.9, 1.1, 1.4, 1.8, 2.2, 2.5,
];
const YES: [bool; 16] = [
    false, false, true, false, false, true, false, true, false, true, true, true, false, true,
    true, true,
];
const KEEP: f64 = 0.8;
const TAU: f64 = 1.5;

/// The released records: a label, a covariate, and a column the model ignores.
fn records() -> String {
    let mut s = String::from("note,dose,outcome\n");
    for (x, y) in DOSE.iter().zip(YES) {
        s.push_str(&format!("r,{x},{}\n", if y { "yes" } else { "no" }));
    }
    s
}

const RELEASE: &str = r#"
model = "logistic_regression"
prior = { tau = 1.5 }
[records]
file = "records.csv"
attributes = [{ column = "outcome", categories = ["no", "yes"], keep = 0.8 }]
covariates = ["dose"]
[sampler]
chains = 4
warmup = 500
draws = 20000
seed = 5
"#;

/// ln p(β | released labels) up to a constant, written out here from the model
/// (each released label is the truth with probability KEEP): the labels summed out.
fn ln_marginal(b0: f64, b1: f64) -> f64 {
    let mut l = -0.5 * (b0 * b0 + b1 * b1) / (TAU * TAU);
    for (x, y) in DOSE.iter().zip(YES) {
        let p = 1.0 / (1.0 + (-(b0 + b1 * x)).exp());
        let (m1, m0) = if y {
            (KEEP, 1.0 - KEEP)
        } else {
            (1.0 - KEEP, KEEP)
        };
        l += (m1 * p + m0 * (1.0 - p)).ln();
    }
    l
}

/// Means and sds of (β₀, β₁) on a 1001² grid over ±8 prior sds.
fn grid() -> ([f64; 2], [f64; 2]) {
    let (k, half) = (1001, 8.0 * TAU);
    let h = 2.0 * half / (k - 1) as f64;
    let (mut z, mut s1, mut s2) = (0.0, [0.0; 2], [0.0; 2]);
    for i in 0..k {
        for j in 0..k {
            let b = [-half + i as f64 * h, -half + j as f64 * h];
            let w = ln_marginal(b[0], b[1]).exp();
            z += w;
            for c in 0..2 {
                s1[c] += w * b[c];
                s2[c] += w * b[c] * b[c];
            }
        }
    }
    let mean = [s1[0] / z, s1[1] / z];
    (mean, [0, 1].map(|c| (s2[c] / z - mean[c] * mean[c]).sqrt()))
}

/// 16 records, keep 0.8 (ε = ln 4): means within 4 Monte Carlo standard errors
/// (sd/√ESS) of the grid's and sds within 10 %; the same draws with one worker or
/// two.
#[test]
fn randomized_response_labels_give_the_closed_form_posterior() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("records.csv"), records()).unwrap();
    let file = tmp.path().join("lr.toml");
    std::fs::write(&file, RELEASE).unwrap();
    let out = tmp.path().join("out with space");
    let run = |jobs: &str| {
        infer(
            tmp.path(),
            &[
                file.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--jobs",
                jobs,
            ],
        )
    };
    let o = run("2");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("randomized response, ε = 1.3863"),
        "{}",
        text(&o.stdout)
    );
    let folder = out.join("infer/lr");
    let got = summary(&folder);
    let (mean, sd) = grid();
    assert_eq!(
        got.iter().map(|g| g.0.as_str()).collect::<Vec<_>>(),
        ["intercept", "b_dose"]
    );
    for (k, (name, m, s, ess)) in got.iter().enumerate() {
        let se = s / ess.sqrt();
        assert!(
            (m - mean[k]).abs() < 4.0 * se,
            "{name}: mean {m} against the grid's {} (se {se})",
            mean[k]
        );
        assert!(
            (s - sd[k]).abs() < 0.1 * sd[k],
            "{name}: sd {s} against the grid's {}",
            sd[k]
        );
    }
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(m["kernel"], "gibbs");
    assert_eq!(m["release_file"]["records"]["covariates"][0], "dose");
    let first = std::fs::read(folder.join("draws.csv")).unwrap();
    let o = run("1");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(std::fs::read(folder.join("draws.csv")).unwrap(), first);
}

/// docs/examples/rr-logistic.toml runs from another folder, its chains settled.
#[test]
fn the_documented_example_runs_from_another_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let example = repo().join("docs/examples/rr-logistic.toml");
    let out = tmp.path().join("out");
    let o = infer(
        tmp.path(),
        &[example.to_str().unwrap(), "--out", out.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        !text(&o.stderr).contains("have not settled"),
        "{}",
        text(&o.stderr)
    );
    let got = summary(&out.join("infer/rr-logistic"));
    assert_eq!(got.len(), 3);
    assert!(got.iter().all(|g| g.3 > 400.0), "ESS: {got:?}");
}

/// Bad records and keys: exit 2 naming the release file and the key (and the row
/// and column of a bad value), before any sampling, the earlier folder left alone.
#[test]
fn bad_records_exit_2_naming_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let good = records();
    let small = RELEASE.replace("draws = 20000", "draws = 50");
    let file = tmp.path().join("lr.toml");
    std::fs::write(&file, &small).unwrap();
    std::fs::write(tmp.path().join("records.csv"), &good).unwrap();
    let out = tmp.path().join("out");
    let o = infer(
        tmp.path(),
        &[file.to_str().unwrap(), "--out", out.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let before = std::fs::read(out.join("infer/lr/draws.csv")).unwrap();
    let cases: Vec<(String, String, Vec<&str>)> = vec![
        (
            small.clone(),
            good.replacen("r,-1.6,no", "r,abc,no", 1),
            vec!["records.file", "row 3, column dose", "\"abc\""],
        ),
        (
            small.clone(),
            good.replacen("r,-1.6,no", "r,inf,no", 1),
            vec!["records.file", "row 3, column dose"],
        ),
        (
            small.clone(),
            good.replacen("r,-1.6,no", "r,-1.6,maybe", 1),
            vec!["records.file", "row 3, column outcome", "no, yes"],
        ),
        (
            small.replace("covariates = [\"dose\"]", "covariates = [\"weight\"]"),
            good.clone(),
            vec!["records.file", "no column \"weight\""],
        ),
        (
            small.replace(
                "covariates = [\"dose\"]",
                "covariates = [\"dose\", \"dose\"]",
            ),
            good.clone(),
            vec!["records.covariates[2]"],
        ),
        (
            small.replace("covariates = [\"dose\"]", "covariates = [\"outcome\"]"),
            good.clone(),
            vec!["records.covariates[1]"],
        ),
        (
            small.replace("[\"no\", \"yes\"]", "[\"no\", \"yes\", \"maybe\"]"),
            good.clone(),
            vec!["records.attributes", "2 categories"],
        ),
        (
            small.replace("keep = 0.8", "keep = 0.4"),
            good.clone(),
            vec!["records.attributes[1].keep"],
        ),
        (
            small.replace("prior = { tau = 1.5 }", "prior = { alpha = [1.0, 1.0] }"),
            good.clone(),
            vec!["prior.alpha"],
        ),
        (
            small.replace("prior = { tau = 1.5 }", "prior = { }"),
            good.clone(),
            vec!["prior.tau"],
        ),
        (
            small.replace("prior = { tau = 1.5 }", "prior = { tau = 0.0 }"),
            good.clone(),
            vec!["prior.tau"],
        ),
        (
            small.replace("seed = 5", "seed = 5\nkernel = \"soma\""),
            good.clone(),
            vec!["sampler.kernel"],
        ),
        (
            format!("n = 17\n{small}"),
            good.clone(),
            vec!["n: 17", "16"],
        ),
        (
            small.clone(),
            "note,dose,outcome\n".to_string(),
            vec!["records.file", "0 records"],
        ),
        (
            small.replace(
                "model = \"logistic_regression\"",
                "model = \"contingency_table\"",
            ),
            good.clone(),
            vec!["prior.tau"],
        ),
        (
            small
                .replace(
                    "model = \"logistic_regression\"",
                    "model = \"contingency_table\"",
                )
                .replace("prior = { tau = 1.5 }", "prior = { alpha = [1.0, 1.0] }"),
            good.clone(),
            vec!["records.covariates", "only for logistic_regression"],
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
        assert!(err.contains("lr.toml"), "{wanted:?}: {err}");
        for w in &wanted {
            assert!(err.contains(w), "{w}: {err}");
        }
        assert!(!err.contains("infer: 4 chains"), "sampling started: {err}");
    }
    assert_eq!(
        std::fs::read(out.join("infer/lr/draws.csv")).unwrap(),
        before
    );
}
