//! End-to-end tests of the `privpost` binary on the smoke configs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn privpost(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_privpost"))
        .args(args)
        .current_dir(repo())
        .env("CI", "true")
        .output()
        .expect("binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn header(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect()
}

fn rows(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    r.records()
        .map(|x| x.unwrap().iter().map(str::to_string).collect())
        .collect()
}

const FIGURES: [(&str, &[&str]); 17] = [
    (
        "foulds2016/fig7",
        &[
            "region_name",
            "month",
            "date",
            "modal_state",
            "last_state",
            "true_state",
        ],
    ),
    (
        "foulds2016/recovery",
        &[
            "dataset",
            "mechanism",
            "epsilon",
            "ari_modal_mean",
            "ari_modal_se",
            "ari_last_mean",
            "tv_mean",
            "tv_se",
            "repeats",
        ],
    ),
    (
        "foulds2016/fig6",
        &[
            "dataset",
            "model",
            "mechanism",
            "epsilon",
            "mean",
            "se",
            "splits",
        ],
    ),
    (
        "foulds2016/fig3",
        &[
            "region",
            "region_name",
            "month",
            "date",
            "modal_state",
            "last_state",
            "true_state",
        ],
    ),
    (
        "foulds2016/fig4_5",
        &["state", "feature", "value", "label", "probability"],
    ),
    (
        "geumlek2017/fig3",
        &[
            "dataset",
            "lambda",
            "ln_epsilon",
            "mechanism",
            "beta",
            "rho",
            "test_error_mean",
            "test_error_se",
            "test_loglik_mean",
            "test_loglik_se",
            "runs",
        ],
    ),
    (
        "geumlek2017/samplers",
        &[
            "dataset",
            "sampler",
            "mean_z_max",
            "var_ratio_median",
            "ks_pvalue",
            "rhat_max",
            "ess_min",
            "ess_min_per_1000_gradients",
        ],
    ),
    (
        "minami2016/logreg",
        &[
            "dataset",
            "ln_epsilon",
            "delta",
            "mechanism",
            "rho",
            "gibbs_beta_corollary",
            "corollary_covered_by_theorem",
            "test_error_mean",
            "test_error_se",
        ],
    ),
    (
        "heikkila2019/fig3",
        &[
            "method",
            "reference",
            "iteration",
            "epsilon",
            "parameter",
            "mean_error",
            "mean_error_se",
            "var_error",
            "var_error_se",
            "runs",
        ],
    ),
    (
        "heikkila2019/fig2",
        &["chain", "iteration", "theta1", "theta2"],
    ),
    (
        "heikkila2019/fig1",
        &[
            "proposal_variance",
            "clipped_fraction",
            "acceptance",
            "panel",
            "n_data",
            "batch",
            "q",
            "iterations",
            "delta",
            "epsilon",
            "best_alpha",
            "conversion",
        ],
    ),
    (
        "bun2018/fig2",
        &[
            "k",
            "n",
            "mechanism",
            "mean",
            "q25",
            "q50",
            "q75",
            "draws",
            "crossover_n",
        ],
    ),
    (
        "bun2018/fig3",
        &[
            "panel",
            "k",
            "n",
            "prior",
            "mechanism",
            "distance",
            "probability",
            "mean",
            "q25",
            "q50",
            "q75",
        ],
    ),
    (
        "geumlek2017/fig1",
        &["algorithm", "coefficient", "lambda", "epsilon"],
    ),
    (
        "geumlek2017/fig2",
        &[
            "panel",
            "lambda",
            "ln_epsilon",
            "algorithm",
            "coefficient",
            "mean",
            "sd",
            "runs",
        ],
    ),
    ("foulds2016/fig1", &["curve", "draw", "theta", "density"]),
    ("foulds2016/fig2", &["mechanism", "n", "mean", "se", "runs"]),
];

#[test]
fn smoke_run_writes_every_figure_and_is_identical_for_any_jobs() {
    let one = tempfile::tempdir().unwrap();
    let two = tempfile::tempdir().unwrap();
    for (dir, jobs) in [(&one, "1"), (&two, "2")] {
        let o = privpost(&[
            "run",
            "--all",
            "--smoke",
            "--jobs",
            jobs,
            "--out",
            dir.path().to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("wrote 17 figure(s)"), "{out}");
    }
    for (id, columns) in FIGURES {
        let d = one.path().join(id);
        for f in [
            "data.csv",
            "summary.csv",
            "figure.png",
            "figure.svg",
            "manifest.json",
        ] {
            assert!(d.join(f).is_file(), "{id}: missing {f}");
        }
        let h = header(&d.join("summary.csv"));
        for c in columns {
            assert!(
                h.iter().any(|x| x == c),
                "{id}: summary.csv lacks `{c}`: {h:?}"
            );
        }
        let png = std::fs::read(d.join("figure.png")).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let svg = std::fs::read_to_string(d.join("figure.svg")).unwrap();
        assert!(svg.contains("<text"), "{id}: figure.svg has no text");
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(manifest["figure"], id);
        assert_eq!(manifest["profile"], "smoke");
        assert!(manifest["seed"].is_u64() && manifest["wall_seconds"].is_f64());
        for f in ["data.csv", "summary.csv"] {
            let a = std::fs::read(d.join(f)).unwrap();
            let b = std::fs::read(two.path().join(id).join(f)).unwrap();
            assert!(a == b, "{id}/{f} differs between --jobs 1 and --jobs 2");
        }
    }
    // No temporary folders are left behind.
    for paper in [
        "geumlek2017",
        "foulds2016",
        "bun2018",
        "heikkila2019",
        "minami2016",
    ] {
        for e in std::fs::read_dir(one.path().join(paper)).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            assert!(!name.starts_with('.'), "leftover {name}");
        }
    }
    check_values(one.path());
}

/// Facts the smoke outputs must show, whatever the seed.
fn check_values(out: &Path) {
    check_logreg(out);
    check_hmm(out);
    // Fig 1: direct sampling (r = 1) is finite below λ* = 7 and infinite above.
    let fig1 = rows(&out.join("geumlek2017/fig1/summary.csv"));
    for r in &fig1 {
        let (c, lambda, eps): (f64, f64, &str) =
            (r[1].parse().unwrap(), r[2].parse().unwrap(), &r[3]);
        if c == 1.0 {
            assert_eq!(eps == "inf", lambda >= 7.0, "λ = {lambda}: ε = {eps}");
        }
    }
    // Fig 2: every released coefficient meets its target.
    let fig2 = rows(&out.join("geumlek2017/fig2/summary.csv"));
    let h = header(&out.join("geumlek2017/fig2/summary.csv"));
    let (eps, ach) = (
        h.iter().position(|x| x == "epsilon").unwrap(),
        h.iter().position(|x| x == "achieved_epsilon").unwrap(),
    );
    for r in &fig2 {
        if !r[ach].is_empty() {
            assert!(
                r[ach].parse::<f64>().unwrap() <= r[eps].parse::<f64>().unwrap() * (1.0 + 1e-12)
            );
        }
    }
    // Bun Fig 3: each exact output distribution sums to one; the audit found no violation.
    let fig3 = rows(&out.join("bun2018/fig3/summary.csv"));
    for panel in ["b", "c"] {
        for mech in ["hellinger_em", "laplace_hist", "laplace_dim"] {
            let total: f64 = fig3
                .iter()
                .filter(|r| r[0] == panel && r[4] == mech)
                .map(|r| r[6].parse::<f64>().unwrap())
                .sum();
            assert!((total - 1.0).abs() < 1e-9, "{panel} {mech}: {total}");
        }
    }
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("bun2018/fig3/manifest.json")).unwrap(),
    )
    .unwrap();
    for a in m["details"]["privacy_audit"].as_array().unwrap() {
        assert!(
            a["delta_needed_at_epsilon"].as_f64().unwrap() <= 1e-8,
            "{a}"
        );
    }
    // Heikkilä Fig 1(b): b = 100, T = 10 → 0.677 (classic, as the paper's figure)
    let h = rows(&out.join("heikkila2019/fig1/summary.csv"));
    let r = h
        .iter()
        .find(|r| r[0] == "b" && r[2] == "100" && r[4] == "10" && r[8] == "classic")
        .unwrap();
    assert!((r[6].parse::<f64>().unwrap() - 0.677).abs() < 1e-3, "{r:?}");
    // Heikkilä Fig 1(c): clipping is rare and grows with the proposal variance
    let c: Vec<&Vec<String>> = h.iter().filter(|r| r[0] == "c").collect();
    assert_eq!(c.len(), 2);
    let frac = |r: &Vec<String>| r[10].parse::<f64>().unwrap();
    assert!(frac(c[0]) < frac(c[1]) && frac(c[1]) < 0.1, "{c:?}");
    // Heikkilä Fig 2: both chains recorded after burn-in; the manifest states ε of the private chain
    let h2 = rows(&out.join("heikkila2019/fig2/summary.csv"));
    assert_eq!(h2.iter().filter(|r| r[0] == "private").count(), 1300);
    let m2: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("heikkila2019/fig2/manifest.json")).unwrap(),
    )
    .unwrap();
    assert!(
        m2["details"]["private_chain"]["epsilon_classic"]["epsilon"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    // Heikkilä Fig 3: every method against both references, ε increasing along each curve
    let h3 = rows(&out.join("heikkila2019/fig3/summary.csv"));
    for method in ["dp_mcmc", "dp_sgld", "dp_sgld_corrected"] {
        for reference in ["exact", "nonprivate_chain"] {
            let eps: Vec<f64> = h3
                .iter()
                .filter(|r| r[0] == method && r[1] == reference && r[4] == "theta1")
                .map(|r| r[3].parse().unwrap())
                .collect();
            assert!(
                !eps.is_empty() && eps.windows(2).all(|w| w[0] < w[1]),
                "{method} {reference}: {eps:?}"
            );
        }
    }
    // Foulds Fig 1: OPS at ε = 1, a₀ = 0.2 has temperature 2 ln 4 ≈ 2.77.
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("foulds2016/fig1/manifest.json")).unwrap(),
    )
    .unwrap();
    assert!((m["details"]["ops"]["temperature"].as_f64().unwrap() - 2.0 * 4f64.ln()).abs() < 1e-12);
}

/// HMM case study: the planted regime change is recovered under Laplace ε = 5 (up to
/// relabelling); emission distributions sum to one; the manifest states the privacy cost.
fn check_hmm(out: &Path) {
    let f = out.join("foulds2016/fig3/summary.csv");
    let h = header(&f);
    let (m, t) = (
        h.iter().position(|x| x == "modal_state").unwrap(),
        h.iter().position(|x| x == "true_state").unwrap(),
    );
    let r = rows(&f);
    let agree = r.iter().filter(|x| x[m] == x[t]).count() as f64 / r.len() as f64;
    assert!(agree.max(1.0 - agree) > 0.9, "agreement {agree}");
    let e = rows(&out.join("foulds2016/fig4_5/summary.csv"));
    let p = header(&out.join("foulds2016/fig4_5/summary.csv"))
        .iter()
        .position(|x| x == "probability")
        .unwrap();
    for state in ["0", "1"] {
        for feature in ["type", "category", "civilian_casualty"] {
            let total: f64 = e
                .iter()
                .filter(|x| x[0] == state && x[1] == feature)
                .map(|x| x[p].parse::<f64>().unwrap())
                .sum();
            assert!((total - 1.0).abs() < 1e-9, "{state} {feature}: {total}");
        }
    }
    let man: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("foulds2016/fig3/manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(man["details"]["privacy"]["epsilon"], 5.0);
    assert_eq!(man["details"]["privacy"]["per_feature_epsilon"], 1.0);
    // Fig 7 (OPS, afghanistan): three states, the last sample mostly agrees with the
    // modal estimate but not everywhere would be the paper's picture; here check shape
    let f7 = out.join("foulds2016/fig7/summary.csv");
    let h7 = header(&f7);
    let col7 = |n: &str| h7.iter().position(|x| x == n).unwrap();
    let r7 = rows(&f7);
    let states: std::collections::BTreeSet<&str> =
        r7.iter().map(|x| x[col7("true_state")].as_str()).collect();
    assert_eq!(states.len(), 3);
    assert!(r7.iter().all(|x| x[col7("date")].starts_with("20")));
    let man: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("foulds2016/fig7/manifest.json")).unwrap(),
    )
    .unwrap();
    let p = &man["details"]["privacy"];
    assert_eq!(p["mechanism"], "ops");
    assert_eq!(p["epsilon_if_converged"], 5.0);
    assert_eq!(p["worst_case_epsilon_if_not_converged"], 2.0 * 60.0 * 5.0);
    // recovery: the non-private sampler finds the planted states; every private
    // mechanism recovers states and emissions better at ε = 5 than at ε = 0.5
    let rf = out.join("foulds2016/recovery/summary.csv");
    let hr = header(&rf);
    let colr = |n: &str| hr.iter().position(|x| x == n).unwrap();
    let rr = rows(&rf);
    let get = |ds: &str, mech: &str, eps: &str, c: &str| -> f64 {
        rr.iter()
            .find(|x| x[0] == ds && x[1] == mech && x[2] == eps)
            .map(|x| x[colr(c)].parse().unwrap())
            .unwrap_or_else(|| panic!("no row {ds} {mech} {eps}"))
    };
    for ds in ["iraq", "afghanistan"] {
        assert_eq!(get(ds, "non_private", "0.5", "ari_modal_mean"), 1.0);
        for mech in ["laplace", "ops_m10", "ops_m100"] {
            assert!(
                get(ds, mech, "5.0", "ari_modal_mean") >= get(ds, mech, "0.5", "ari_modal_mean")
            );
            assert!(get(ds, mech, "5.0", "tv_mean") < get(ds, mech, "0.5", "tv_mean"));
        }
    }
    // Fig 6: three panels in config order, four mechanisms, finite likelihoods; the
    // non-private value does not depend on ε; Laplace improves with ε
    let f6 = rows(&out.join("foulds2016/fig6/summary.csv"));
    assert_eq!(f6.len(), 3 * 4 * 2);
    assert_eq!(
        (f6[0][0].as_str(), f6[0][1].as_str()),
        ("afghanistan", "naive_bayes")
    );
    assert_eq!((f6[23][0].as_str(), f6[23][1].as_str()), ("iraq", "hmm"));
    for r in &f6 {
        assert!(
            r[4].parse::<f64>().unwrap().is_finite() && r[6] == "2",
            "{r:?}"
        );
    }
    for panel in f6.chunks(8) {
        assert_eq!(panel[0][2], "non_private");
        assert_eq!(panel[0][4], panel[1][4]);
        assert_eq!(panel[2][2], "laplace");
        assert!(panel[2][4].parse::<f64>().unwrap() < panel[3][4].parse::<f64>().unwrap());
    }
}

/// Logistic-regression figures: calibrations in range, shared draws where the
/// mechanisms coincide, OPS worst at small ε, samplers agreeing with the reference.
fn check_logreg(out: &Path) {
    let d = out.join("geumlek2017/fig3");
    assert!(d.join("figure_loglik.png").is_file() && d.join("figure_loglik.svg").is_file());
    let h = header(&d.join("summary.csv"));
    let col = |name: &str| h.iter().position(|x| x == name).unwrap();
    let (ds, le, mech, beta, rho, err, runs) = (
        col("dataset"),
        col("ln_epsilon"),
        col("mechanism"),
        col("beta"),
        col("rho"),
        col("test_error_mean"),
        col("runs"),
    );
    let f3 = rows(&d.join("summary.csv"));
    assert_eq!(
        f3.len(),
        3 * 3 * 4,
        "3 datasets × 3 ε × 4 mechanisms at λ = 10"
    );
    let get = |dataset: &str, l: &str, m: &str| -> f64 {
        f3.iter()
            .find(|r| r[ds] == dataset && r[le] == l && r[mech] == m)
            .unwrap()[err]
            .parse()
            .unwrap()
    };
    for r in &f3 {
        assert!(r[beta].parse::<f64>().unwrap() >= 1e-3 && r[rho].parse::<f64>().unwrap() <= 1.0);
        assert_eq!(r[runs], "5");
    }
    for dataset in ["abalone", "adult", "mnist"] {
        assert!(get(dataset, "-4.0", "ops") > get(dataset, "-4.0", "true_posterior"));
    }
    // ε = e³, λ = 10: the Diffuse posterior is the true posterior (ρ = 1), same draws
    for dataset in ["abalone", "adult"] {
        assert_eq!(
            get(dataset, "3.0", "diffuse"),
            get(dataset, "3.0", "true_posterior")
        );
    }
    // Minami: Theorem 7's β never above 1; Corollary 8 covered at small ε only
    let m = out.join("minami2016/logreg/summary.csv");
    let h = header(&m);
    let col = |name: &str| h.iter().position(|x| x == name).unwrap();
    let (ds, le, mech, rho, cov) = (
        col("dataset"),
        col("ln_epsilon"),
        col("mechanism"),
        col("rho"),
        col("corollary_covered_by_theorem"),
    );
    for r in rows(&m).iter().filter(|r| r[mech] == "gibbs") {
        assert!(r[rho].parse::<f64>().unwrap() <= 1.0);
        if r[le] == "-2.0" {
            assert_eq!(r[cov], "yes", "{r:?}");
        }
        if r[le] == "1.0" && r[ds] == "adult" {
            assert_eq!(r[cov], "no", "{r:?}");
        }
    }
    // Samplers: HMC agrees with the reference chains
    let s = out.join("geumlek2017/samplers/summary.csv");
    let h = header(&s);
    let col = |name: &str| h.iter().position(|x| x == name).unwrap();
    let (sm, z, rhat) = (col("sampler"), col("mean_z_max"), col("rhat_max"));
    for r in rows(&s).iter().filter(|r| r[sm] == "hmc") {
        assert!(r[z].parse::<f64>().unwrap() < 6.0, "{r:?}");
        assert!(r[rhat].parse::<f64>().unwrap() < 1.1, "{r:?}");
    }
}

#[test]
fn bad_input_is_rejected_with_file_key_and_exit_2_without_touching_results() {
    let out = tempfile::tempdir().unwrap();
    let o = privpost(&[
        "run",
        "configs/foulds2016/fig1.toml",
        "--smoke",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let data = out.path().join("foulds2016/fig1/data.csv");
    let before = std::fs::read(&data).unwrap();

    let cfg = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(repo().join("configs/geumlek2017/fig2.toml")).unwrap();
    let cases: &[(&str, &str, &str)] = &[
        ("typo = 3\n", "typo", "unknown key"),
        ("", "lambdas", "λ > 1"),
        ("", "prior", "both > 0"),
        ("", "n", "u64"),
        ("", "gaussian_calibration", "variant"),
    ];
    let replacements = [
        ("", ""),
        ("lambdas = [2.0, 15.0]", "lambdas = [1.0, 15.0]"),
        ("prior = [6.0, 18.0]", "prior = [-6.0, 18.0]"),
        ("n = 100", "n = -5"),
        (
            "gaussian_calibration = \"paper\"",
            "gaussian_calibration = \"loose\"",
        ),
    ];
    for ((extra, key, hint), (from, to)) in cases.iter().zip(replacements) {
        let text = format!("{extra}{}", base.replacen(from, to, 1));
        let path = cfg.path().join("bad.toml");
        std::fs::write(&path, text).unwrap();
        let o = privpost(&[
            "run",
            path.to_str().unwrap(),
            "--out",
            out.path().to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{key}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains("bad.toml") && e.contains(&format!("`{key}`")) && e.contains(hint),
            "{key}: {e}"
        );
        assert_eq!(e.lines().count(), 1, "one clear line: {e}");
    }
    let set_cases: &[(&str, &str)] = &[
        ("epsilon=0", "ε > 0"),
        ("epsilon=-1", "ε > 0"),
        ("a0=0.7", "0 < a0 < 0.5"),
        ("p=1.5", "0 ≤ value ≤ 1"),
        ("grid_points=oops", "expected u64"),
    ];
    for (set, hint) in set_cases {
        let o = privpost(&[
            "run",
            "configs/foulds2016/fig1.toml",
            "--set",
            set,
            "--out",
            out.path().to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{set}");
        assert!(
            stderr(&o).contains(hint) && stderr(&o).contains("fig1.toml"),
            "{set}: {}",
            stderr(&o)
        );
    }
    let fig1_bad = privpost(&[
        "check",
        "configs/geumlek2017/fig1.toml",
        "--set",
        "coefficients=[0.5, 1.5]",
    ]);
    assert_eq!(fig1_bad.status.code(), Some(2));
    assert!(
        stderr(&fig1_bad).contains("0 < value ≤ 1"),
        "{}",
        stderr(&fig1_bad)
    );
    for args in [
        &["run", "--all", "--jobs", "0"][..],
        &["run", "missing.toml"],
        &["run", "--all", "--configs", "nowhere"],
        &["run"],
    ] {
        let o = privpost(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
    let no_d = privpost(&[
        "check",
        "configs/heikkila2019/fig1.toml",
        "--set",
        "panels=[\"a\",\"d\"]",
    ]);
    assert_eq!(no_d.status.code(), Some(2));
    assert!(stderr(&no_d).contains("unknown panel"), "{}", stderr(&no_d));
    assert_eq!(
        std::fs::read(&data).unwrap(),
        before,
        "earlier results were changed"
    );
}

#[test]
fn sweeps_check_and_plot() {
    let out = tempfile::tempdir().unwrap();
    let o = privpost(&[
        "check",
        "configs/foulds2016/fig2.toml",
        "--smoke",
        "--set",
        "epsilon=[0.1,1]",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(text.matches("tasks").count(), 2, "{text}");
    assert!(text.contains("500 tasks"), "{text}");

    let o = privpost(&[
        "run",
        "configs/foulds2016/fig2.toml",
        "--smoke",
        "--set",
        "epsilon=[0.1,1]",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let a = out.path().join("foulds2016/fig2@epsilon=0.1");
    let b = out.path().join("foulds2016/fig2@epsilon=1");
    assert!(a.join("summary.csv").is_file() && b.join("summary.csv").is_file());
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(b.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["resolved_config"]["epsilon"], 1.0);
    assert_eq!(m["sweep_point"], "epsilon=1");

    // plot re-renders from the CSVs alone
    std::fs::remove_file(a.join("figure.png")).unwrap();
    std::fs::remove_file(a.join("manifest.json")).unwrap();
    let o = privpost(&["plot", out.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(a.join("figure.png").is_file());
    assert!(String::from_utf8_lossy(&o.stdout).contains("re-rendered 2 figure(s)"));

    let o = privpost(&["list"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("geumlek2017/fig2"));
}

#[test]
fn account_answers_budget_questions_and_refuses_bad_ones() {
    let o = privpost(&[
        "account",
        "--n-data",
        "1000000",
        "--batch",
        "1000",
        "--iterations",
        "1000,20000",
        "--delta",
        "1e-6",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("ε = 0.2306 (classic") && out.contains("ε = 1.0004 (classic"),
        "{out}"
    );
    let o = privpost(&[
        "account",
        "--mechanism",
        "sgld",
        "--q",
        "1e-4",
        "--sigma",
        "1.1952",
        "--iterations",
        "6000000",
        "--delta",
        "2e-6",
    ]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("ε = 1.2958 (classic, α = 22)"));
    for (args, hint) in [
        (
            &[
                "account",
                "--n-data",
                "1000",
                "--batch",
                "2000",
                "--iterations",
                "10",
            ][..],
            "1 ≤ b ≤ N",
        ),
        (
            &[
                "account",
                "--n-data",
                "1000000",
                "--batch",
                "1000",
                "--iterations",
                "10",
                "--n0",
                "100",
                "--clip",
                "0.4",
            ],
            "eq. 23",
        ),
        (
            &[
                "account",
                "--n-data",
                "1000000",
                "--batch",
                "1000",
                "--iterations",
                "10",
                "--delta",
                "0",
            ],
            "0 < δ < 1",
        ),
        (
            &[
                "account",
                "--n-data",
                "1000000",
                "--batch",
                "15",
                "--iterations",
                "10",
            ],
            "b/5",
        ),
        (
            &["account", "--n-data", "1000000", "--iterations", "10"],
            "--batch",
        ),
        (
            &[
                "account",
                "--n-data",
                "1000000",
                "--batch",
                "1000",
                "--iterations",
                "10",
                "--alpha",
                "200",
            ],
            "α < b/5",
        ),
    ] {
        let o = privpost(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(hint), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "nothing printed before the error");
    }
}

#[test]
fn data_status_reports_missing_and_corrupt_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("adult.data"), b"tampered").unwrap();
    let o = privpost(&["data", "status", "--dir", dir.path().to_str().unwrap()]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("abalone.csv: missing") && out.contains("privpost data fetch"),
        "{out}"
    );
    assert!(
        out.contains("adult.data: SHA-256") && out.contains("does not match"),
        "{out}"
    );
}

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
    ] {
        let o = privpost(&["check", config, "--smoke", "--set", set]);
        assert_eq!(o.status.code(), Some(2), "{set}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(config) && e.contains(key), "{set}: {e}");
    }
    // all files present but altered: a clear error, no download attempted
    let dir = tempfile::tempdir().unwrap();
    for f in ["abalone.csv", "adult.data", "adult.test", "mnist_5k.csv"] {
        std::fs::write(dir.path().join(f), b"tampered").unwrap();
    }
    let o = Command::new(env!("CARGO_BIN_EXE_privpost"))
        .args(["check", "configs/geumlek2017/fig3.toml", "--smoke"])
        .current_dir(repo())
        .env("CI", "true")
        .env("PRIVPOST_DATA", dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("does not match") && e.contains("privpost data fetch") && e.contains("data_dir"),
        "{e}"
    );
    // the Langevin sampler is refused with the iteration count it would need
    let o = privpost(&[
        "check",
        "configs/minami2016/logreg.toml",
        "--smoke",
        "--set",
        "gibbs_sampler=\"langevin\"",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("Proposition 13 needs T =") && e.contains("langevin_max_iterations"),
        "{e}"
    );
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
    let d = out.join("foulds2016/fig7");
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
        "check",
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
    let f6 = rows(&out.join("foulds2016/fig6/summary.csv"));
    assert!(f6.iter().all(|x| x[0] == "afg" && x[1] == "hmm"));
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
