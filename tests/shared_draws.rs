//! End-to-end: the logistic figures draw each posterior from a stream keyed by the
//! posterior and the seed (`rng::keyed_rng`, `experiments::logreg::shared_scores`).
//! So Geumlek Fig. 3 and Minami (same seed) report the same draws for the posteriors
//! both sample, Minami's output does not depend on whether Geumlek ran first in the
//! same process (the in-process store is only a speed-up), and a point's draws do not
//! move when the grid around it changes. Abalone only, smoke settings: about 2 s.

mod common;

use std::path::Path;

use common::*;

const ABALONE: &str = "datasets=[\"abalone\"]";
const EPSILONS: &str = "ln_epsilons=[-2.0, 1.0]";

fn run(out: &Path, configs: &[&str], extra: &[&str]) {
    let mut args = vec!["run"];
    args.extend_from_slice(configs);
    args.extend_from_slice(&["--smoke", "--no-cache", "--quiet", "--set", ABALONE]);
    for s in extra {
        args.extend_from_slice(&["--set", s]);
    }
    args.extend_from_slice(&["--out", out.to_str().unwrap()]);
    let o = privpost(&args);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// (mechanism, ln ε, repeat) → (test error, test log-likelihood) of a figure's data.csv.
fn draws(csv: &Path, mechanisms: &[&str]) -> Vec<(String, String, String, String, String)> {
    let h = header(csv);
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let (m, le, r, e, l) = (
        col("mechanism"),
        col("ln_epsilon"),
        col("repeat"),
        col("test_error"),
        col("test_loglik"),
    );
    let mut out: Vec<_> = rows(csv)
        .into_iter()
        .filter(|row| mechanisms.contains(&row[m].as_str()))
        .map(|row| {
            (
                row[m].clone(),
                row[le].clone(),
                row[r].clone(),
                row[e].clone(),
                row[l].clone(),
            )
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn posteriors_share_draws_across_figures_and_grids() {
    let geumlek = "configs/geumlek2017/fig3.toml";
    let minami = "configs/minami2016/logreg.toml";
    let alone = tempfile::tempdir().unwrap();
    let both = tempfile::tempdir().unwrap();
    let narrow = tempfile::tempdir().unwrap();
    run(alone.path(), &[minami], &[EPSILONS]);
    run(both.path(), &[geumlek, minami], &[EPSILONS]);
    run(narrow.path(), &[minami], &["ln_epsilons=[1.0]"]);

    // 1. Minami after Geumlek in one process = Minami alone, byte for byte
    let m_alone = common::point_dir(alone.path(), "minami2016/logreg").join("data.csv");
    let m_both = common::point_dir(both.path(), "minami2016/logreg").join("data.csv");
    assert_eq!(
        std::fs::read(&m_alone).unwrap(),
        std::fs::read(&m_both).unwrap(),
        "Minami's draws depend on what ran before it"
    );

    // 2. the posteriors both figures sample (same seed) have the same draws
    let g = common::point_dir(both.path(), "geumlek2017/fig3").join("data.csv");
    for mech in ["true_posterior", "ops"] {
        let ours = draws(&g, &[mech]);
        let theirs = draws(&m_both, &[mech]);
        assert!(!ours.is_empty(), "{mech}");
        // Geumlek repeats its OPS and true posterior rows per λ; deduplicated, they are
        // Minami's rows (true posterior: every ε; OPS: ln ε −2 and 1)
        let at = |v: &[(String, String, String, String, String)], le: &str| -> Vec<_> {
            v.iter()
                .filter(|d| d.1 == le)
                .map(|d| (d.2.clone(), d.3.clone(), d.4.clone()))
                .collect::<Vec<_>>()
        };
        for le in ["-2.0", "1.0"] {
            assert_eq!(at(&ours, le), at(&theirs, le), "{mech} at ln ε {le}");
            assert_eq!(at(&ours, le).len(), 5, "{mech} at ln ε {le}");
        }
    }

    // 3. dropping ln ε = −2 from the grid leaves the draws at ln ε = 1 where they were
    let exact = ["gibbs", "ops", "concentrated", "diffuse", "true_posterior"];
    let wide: Vec<_> = draws(&m_alone, &exact)
        .into_iter()
        .filter(|d| d.1 == "1.0")
        .collect();
    let narrow = draws(
        &common::point_dir(narrow.path(), "minami2016/logreg").join("data.csv"),
        &exact,
    );
    assert_eq!(wide.len(), 5 * exact.len());
    assert_eq!(wide, narrow);
}
