//! End-to-end: `privpost audit --smoke` passes every real mechanism and fails every
//! broken variant; its table, score files and bad input.

mod common;

use common::*;

fn col(header: &[String], name: &str) -> usize {
    header.iter().position(|h| h == name).unwrap()
}

#[test]
fn audit_smoke_passes_every_real_mechanism_and_fails_every_broken_variant() {
    let out = tempfile::tempdir().unwrap();
    let o = privpost(&["audit", "--smoke", "--out", out.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}\n{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("every real mechanism passed; every broken variant failed"));
    let dir = out.path().join("audit/mechanisms@smoke");
    // the written tables re-render: `plot` accepts the infinite ε estimates of
    // broken variants in data.csv's `value` column
    assert!(stdout(&o).contains("trade-off curve (sampled audits; audit-tradeoff.csv)"));
    for f in ["audit-tradeoff.png", "audit-tradeoff.svg"] {
        std::fs::remove_file(dir.join(f)).unwrap();
    }
    let o = privpost(&["plot", dir.to_str().unwrap()]);
    assert!(o.status.success(), "plot: {}", stderr(&o));
    for f in [
        "data.csv",
        "summary.csv",
        "figure.png",
        "figure.svg",
        "manifest.json",
        "audit-tradeoff.csv",
        "audit-tradeoff.png",
        "audit-tradeoff.svg",
    ] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    let summary = dir.join("summary.csv");
    let h = header(&summary);
    let rows = rows(&summary);
    let (audit, method, variant, verdict, ratio, scores) = (
        col(&h, "audit"),
        col(&h, "method"),
        col(&h, "variant"),
        col(&h, "verdict"),
        col(&h, "epsilon_ratio"),
        col(&h, "scores_file"),
    );
    // every audit id is there, every real one passes, every broken one fails
    for id in privpost::experiments::audit::audit_ids() {
        assert!(
            rows.iter().any(|r| r[audit] == id && r[variant] == "real"),
            "{id}"
        );
    }
    let broken: Vec<_> = rows.iter().filter(|r| r[variant] != "real").collect();
    for want in ["half_scale", "untruncated", "uniform_noise", "variance_h"] {
        assert!(broken.iter().any(|r| r[variant] == want), "{want}");
    }
    for r in &rows {
        let expected = if r[variant] == "real" { "PASS" } else { "FAIL" };
        assert_eq!(r[verdict], expected, "{r:?}");
        let x: f64 = r[ratio].parse().unwrap();
        if r[variant] == "real" {
            assert!(x <= 1.0 + 1e-6, "{r:?}");
        } else {
            assert!(x > 1.0, "{r:?}");
        }
    }
    // tight where the claim is exact: Laplace, OPS-free closed forms, the Gaussians
    for (id, m) in [
        ("laplace_counts", "exact"),
        ("gaussian_count", "exact"),
        ("beta_bernoulli_diffused", "exact"),
        ("sgld_step", "exact"),
        ("bun_laplace", "exact"),
        ("laplace_counts_discrete", "exact"),
        ("gaussian_count_discrete", "exact"),
        ("hmm_laplace_discrete", "exact"),
        ("bun_laplace_discrete", "exact"),
        ("float_attack", "reachability"),
    ] {
        let r = rows
            .iter()
            .find(|r| r[audit] == id && r[method] == m && r[variant] == "real")
            .unwrap();
        let x: f64 = r[ratio].parse().unwrap();
        assert!(x > 0.999, "{id}: the exact audit reaches the claim: {x}");
    }
    // the statistical Laplace audit reaches 0.85 of the claim at 2·10⁴ draws
    let lap = rows
        .iter()
        .find(|r| {
            r[audit] == "laplace_counts" && r[method] == "statistical" && r[variant] == "real"
        })
        .unwrap();
    assert!(lap[ratio].parse::<f64>().unwrap() > 0.85, "{lap:?}");
    // the scores are written once, to the score files, not also into data.csv
    let data = std::fs::read_to_string(dir.join("data.csv")).unwrap();
    assert!(
        !data.contains(",score_d,") && !data.contains(",score_d_prime,"),
        "data.csv repeats the score files"
    );
    assert!(
        data.lines().count() < 1000,
        "{} data rows",
        data.lines().count()
    );
    // raw scores: one file per statistical audit, labels 1 and 0, 2·10⁴ draws each
    for r in rows.iter().filter(|r| r[method] == "statistical") {
        let f = dir.join(&r[scores]);
        assert_eq!(header(&f), ["label", "score"]);
        let s = common::rows(&f);
        assert_eq!(
            s.iter().filter(|x| x[0] == "1").count(),
            20_000,
            "{}",
            r[scores]
        );
        assert_eq!(
            s.iter().filter(|x| x[0] == "0").count(),
            20_000,
            "{}",
            r[scores]
        );
        assert!(s
            .iter()
            .all(|x| x[1].parse::<f64>().is_ok_and(f64::is_finite)));
    }
    // the trade-off points: every statistical audit's threshold tests, the points
    // `audit --samples` finds in its scores file; no real mechanism's conservative
    // corner lies below its claimed curve, the half-scale Laplace's several do
    let tradeoff = dir.join("audit-tradeoff.csv");
    let th = header(&tradeoff);
    let points = common::rows(&tradeoff);
    let (t_audit, t_variant, t_below, t_mu) = (
        col(&th, "audit"),
        col(&th, "variant"),
        col(&th, "below_claim"),
        col(&th, "mu_lower"),
    );
    let claim_eps = col(&h, "claim_epsilon");
    for r in rows.iter().filter(|r| r[method] == "statistical") {
        let mine: Vec<_> = points
            .iter()
            .filter(|t| t[t_audit] == r[audit] && t[t_variant] == r[variant])
            .collect();
        assert!(!mine.is_empty(), "no trade-off points for {r:?}");
        let below = mine.iter().filter(|t| t[t_below] == "true").count();
        let mu = mine
            .iter()
            .map(|t| t[t_mu].parse::<f64>().unwrap())
            .fold(0.0, f64::max);
        if r[variant] == "real" {
            assert_eq!(
                below, 0,
                "{} real: points below its claimed curve",
                r[audit]
            );
        }
        if r[audit] == "laplace_counts" {
            if r[variant] == "half_scale" {
                assert!(below >= 3, "half-scale Laplace: {below} points below");
            }
            let claim = format!("epsilon={}", r[claim_eps]);
            let f = dir.join(&r[scores]);
            let o = privpost(&[
                "audit",
                "--samples",
                f.to_str().unwrap(),
                "--claim",
                &claim,
                "--json",
            ]);
            let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
            let t = &v["tradeoff"];
            assert_eq!(t["points"].as_array().unwrap().len(), mine.len());
            assert_eq!(t["violations"].as_u64().unwrap() as usize, below);
            assert_eq!(t["mu_lower"].as_f64().unwrap(), mu);
        }
    }
    // a rerun is up to date; a single audit reruns only that one
    let o = privpost(&[
        "audit",
        "barker_step",
        "--smoke",
        "--no-broken",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // a subset runs into its own folder, named by what it changed, and says
    // where; the full audit's folder is left as it was
    let full = std::fs::read(&summary).unwrap();
    let subset = out
        .path()
        .join("audit/mechanisms@smoke,audits=[barker_step],broken=false");
    assert!(stderr(&o).contains("mechanisms@smoke,audits=[barker_step],broken=false"));
    let sub_h = header(&subset.join("summary.csv"));
    let (sub_audit, sub_variant) = (col(&sub_h, "audit"), col(&sub_h, "variant"));
    assert_eq!(sub_h[..2], ["set.audits", "set.broken"]);
    let rows = common::rows(&subset.join("summary.csv"));
    assert_eq!(rows.len(), 2);
    assert!(rows
        .iter()
        .all(|r| r[sub_audit] == "barker_step" && r[sub_variant] == "real"));
    assert_eq!(std::fs::read(&summary).unwrap(), full);
    // `plot` of an edited summary with very many rows draws the first 500 and says so
    let text = std::fs::read_to_string(&summary).unwrap();
    let mut lines = text.lines();
    let head = lines.next().unwrap();
    let row = lines.next().unwrap();
    let mut big = format!("{head}\n");
    for _ in 0..501 {
        big.push_str(row);
        big.push('\n');
    }
    std::fs::write(&summary, big).unwrap();
    let o = privpost(&["plot", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(dir.join("figure.svg")).unwrap();
    assert!(svg.contains("first 500 of 501 audits"));
}

#[test]
fn audit_rejects_unknown_audits_and_bad_draws_with_exit_2() {
    let out = tempfile::tempdir().unwrap();
    let o = privpost(&[
        "audit",
        "laplace_count",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("did you mean laplace_counts"), "{e}");
    assert!(e.contains("allowed values"), "{e}");
    let o = privpost(&[
        "audit",
        "--draws",
        "5",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("draws"), "{}", stderr(&o));
    assert!(!out.path().join("audit").exists());
    let o = privpost(&["audit", "--list"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("barker_step") && stdout(&o).contains("uniform_noise"));
}
