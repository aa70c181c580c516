//! Kept posterior draws in the one documented layout (`draws.csv`: run columns,
//! `chain`, `draw`, one column per parameter; the manifest's `draws` names them):
//! heikkila2019/fig2 always, raisa2021/banana with `keep_draws = true` — whose
//! data.csv stays byte-identical, whose draws are the ones it scored, and which
//! come back the same from the cache.

mod common;

use common::{manifest, privpost, rows};
use std::collections::BTreeMap;
use std::path::Path;

fn run(out: &Path, figure: &str, sets: &[&str]) -> std::path::PathBuf {
    let mut args = vec![
        "run",
        figure,
        "--smoke",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ];
    for s in sets {
        args.extend(["--set", s]);
    }
    let o = privpost(&args);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let (paper, name) = figure.split_once('/').unwrap();
    let label = if sets.is_empty() {
        format!("{name}@smoke")
    } else {
        format!("{name}@smoke,{}", sets.join(","))
    };
    out.join(paper).join(label)
}

/// The layout the manifest records, checked against the file's header.
fn layout(dir: &Path) -> (Vec<String>, Vec<String>, usize) {
    let m = manifest(&dir.join("manifest.json"));
    let d = &m["draws"];
    assert_eq!(d["file"], "draws.csv");
    let names = |k: &str| -> Vec<String> {
        d[k].as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let (run, params) = (names("run_columns"), names("parameters"));
    let mut want = run.clone();
    want.extend(["chain".to_string(), "draw".to_string()]);
    want.extend(params.iter().cloned());
    assert_eq!(common::header(&dir.join("draws.csv")), want);
    (run, params, d["rows"].as_u64().unwrap() as usize)
}

#[test]
fn heikkila_fig2_keeps_both_chains_in_the_long_layout() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run(tmp.path(), "heikkila2019/fig2", &[]);
    let (run_columns, params, count) = layout(&dir);
    assert_eq!(run_columns, ["sampler"]);
    assert_eq!(params, ["theta1", "theta2"]);
    let data = rows(&dir.join("data.csv"));
    let draws = rows(&dir.join("draws.csv"));
    assert_eq!(draws.len(), count);
    assert_eq!(draws.len(), data.len());
    // the same values, in order; draw counts 1, 2, … within each sampler
    let mut next: BTreeMap<String, usize> = BTreeMap::new();
    for (d, r) in data.iter().zip(&draws) {
        assert_eq!(r[0], d[0]);
        assert_eq!(r[1], "1");
        let n = next.entry(r[0].clone()).or_insert(0);
        *n += 1;
        assert_eq!(r[2], n.to_string());
        assert_eq!((&r[3], &r[4]), (&d[2], &d[3]));
    }
    assert_eq!(next.len(), 2);
}

#[test]
fn raisa_banana_keeps_its_chains_when_asked_and_they_are_the_scored_draws() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = run(tmp.path(), "raisa2021/banana", &[]);
    assert!(!plain.join("draws.csv").exists());
    assert!(manifest(&plain.join("manifest.json"))["draws"].is_null());
    let kept = run(tmp.path(), "raisa2021/banana", &["keep_draws=true"]);
    // keeping the draws changes nothing that was scored
    assert_eq!(
        std::fs::read(plain.join("data.csv")).unwrap(),
        std::fs::read(kept.join("data.csv")).unwrap()
    );
    let (run_columns, params, count) = layout(&kept);
    assert_eq!(run_columns, ["method", "epsilon", "repeat"]);
    assert_eq!(params, ["theta1", "theta2"]);
    let draws = rows(&kept.join("draws.csv"));
    assert_eq!(draws.len(), count);
    // per run: as many draws as data.csv's kept_draws, 4 chains of equal length,
    // and the pooled mean's distance to the exact mean is data.csv's mean_error
    let m = manifest(&kept.join("manifest.json"));
    let exact: Vec<f64> = m["details"]["exact_mean"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let mut runs: BTreeMap<(String, String, String), Vec<&Vec<String>>> = BTreeMap::new();
    for r in &draws {
        runs.entry((r[0].clone(), r[1].clone(), r[2].clone()))
            .or_default()
            .push(r);
    }
    let header = common::header(&kept.join("data.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let data = rows(&kept.join("data.csv"));
    assert_eq!(runs.len(), data.len());
    let mut compared = 0;
    for d in &data {
        let key = (
            d[col("method")].clone(),
            d[col("epsilon")].clone(),
            d[col("repeat")].clone(),
        );
        let run = &runs[&key];
        assert_eq!(run.len().to_string(), d[col("kept_draws")], "{key:?}");
        let mut per_chain: BTreeMap<&str, usize> = BTreeMap::new();
        for r in run {
            *per_chain.entry(r[3].as_str()).or_default() += 1;
        }
        assert_eq!(
            per_chain.keys().copied().collect::<Vec<_>>(),
            ["1", "2", "3", "4"]
        );
        assert!(per_chain.values().all(|&n| n == run.len() / 4), "{key:?}");
        let Ok(reported) = d[col("mean_error")].parse::<f64>() else {
            continue; // a diverged run: no mean error to compare
        };
        let mean: Vec<f64> = (0..2)
            .map(|k| {
                run.iter()
                    .map(|r| r[5 + k].parse::<f64>().unwrap())
                    .sum::<f64>()
                    / run.len() as f64
            })
            .collect();
        let err = mean
            .iter()
            .zip(&exact)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
            .sqrt();
        assert!(
            (err - reported).abs() <= 1e-9 * reported.max(1.0),
            "{key:?}: {err} vs {reported}"
        );
        compared += 1;
    }
    assert!(compared >= data.len() / 2, "{compared} of {}", data.len());
    // served from the cache, the file is the same bytes
    let first = std::fs::read(kept.join("draws.csv")).unwrap();
    std::fs::remove_dir_all(&kept).unwrap();
    let again = privpost(&[
        "run",
        "raisa2021/banana",
        "--smoke",
        "-q",
        "--out",
        tmp.path().to_str().unwrap(),
        "--set",
        "keep_draws=true",
    ]);
    assert!(again.status.success(), "{}", common::stderr(&again));
    assert_eq!(first, std::fs::read(kept.join("draws.csv")).unwrap());
}

/// raisa2021/gmm (heikkila2019 Fig. 3's chains and the added ones) keeps each
/// chain's θ at its checkpoints: one draw per data.csv row of that chain.
#[test]
fn raisa_gmm_keeps_one_draw_per_checkpoint_when_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = run(tmp.path(), "raisa2021/gmm", &[]);
    let kept = run(tmp.path(), "raisa2021/gmm", &["keep_draws=true"]);
    assert_eq!(
        std::fs::read(plain.join("data.csv")).unwrap(),
        std::fs::read(kept.join("data.csv")).unwrap()
    );
    let (run_columns, params, count) = layout(&kept);
    assert_eq!(run_columns, ["method", "run"]);
    assert_eq!(params, ["theta1", "theta2"]);
    let draws = rows(&kept.join("draws.csv"));
    assert_eq!(draws.len(), count);
    let count_by = |rows: &[Vec<String>]| {
        let mut n: BTreeMap<(String, String), usize> = BTreeMap::new();
        for r in rows {
            *n.entry((r[0].clone(), r[1].clone())).or_default() += 1;
        }
        n
    };
    let mut from_data = count_by(&rows(&kept.join("data.csv")));
    let from_draws = count_by(&draws);
    // the non-private reference chain has one data row (its final moments) and
    // a draw at each of DP-MCMC's checkpoints
    let reference = ("nonprivate_chain".to_string(), "0".to_string());
    let mcmc = ("dp_mcmc".to_string(), "0".to_string());
    from_data.insert(reference, from_data[&mcmc]);
    assert_eq!(from_data, from_draws);
    assert!(from_draws.keys().any(|(m, _)| m == "dp_hmc"));
}
