//! End-to-end: every figure at its smoke profile, identical for any `--jobs`,
//! with the facts each figure must show.

mod common;

use std::path::Path;

use common::*;

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
        let want = format!("wrote {} figure(s)", privpost::experiments::REGISTRY.len());
        assert!(out.contains(&want), "{out}");
    }
    for spec in privpost::experiments::REGISTRY {
        let id = spec.id;
        let d = one.path().join(format!("{id}@smoke"));
        for f in [
            "data.csv",
            "summary.csv",
            "figure.png",
            "figure.svg",
            "manifest.json",
        ] {
            assert!(d.join(f).is_file(), "{id}: missing {f}");
        }
        // the registry row's column lists are what the files hold
        assert_eq!(
            header(&d.join("summary.csv")),
            spec.summary_columns.get(),
            "{id}"
        );
        assert_eq!(header(&d.join("data.csv")), spec.data_columns.get(), "{id}");
        let png = std::fs::read(d.join("figure.png")).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let svg = std::fs::read_to_string(d.join("figure.svg")).unwrap();
        assert!(svg.contains("<text"), "{id}: figure.svg has no text");
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(manifest["figure"], id);
        assert_eq!(manifest["profile"], "smoke");
        // A smoke run never takes the paper's folder, and says what it is
        assert!(
            !one.path().join(id).exists(),
            "{id}: a smoke run wrote the paper's folder"
        );
        assert_eq!(
            manifest["departures"][0], "smoke profile (reduced, not the paper's scale)",
            "{id}"
        );
        let note = std::fs::read_to_string(d.join("departures.txt")).unwrap();
        assert!(note.contains("smoke profile"), "{id}: {note}");
        assert!(
            svg.contains("NOT THE PAPER"),
            "{id}: the figure does not say it is a smoke run"
        );
        assert!(manifest["seed"].is_u64() && manifest["wall_seconds"].is_f64());
        // a privacy ledger produced by the mechanisms, and the command line
        let ledger = manifest["privacy"].as_array().unwrap();
        assert!(!ledger.is_empty(), "{id}: empty ledger");
        assert!(
            ledger
                .iter()
                .all(|e| e["event"]["mechanism"].is_string() && e["guarantee"]["kind"].is_string()),
            "{id}"
        );
        assert!(manifest["command_line"][1] == "run", "{id}");
        for f in ["data.csv", "summary.csv"] {
            let a = std::fs::read(d.join(f)).unwrap();
            let b = std::fs::read(two.path().join(format!("{id}@smoke")).join(f)).unwrap();
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
    for spec in privpost::experiments::REGISTRY {
        check_releases(&one.path().join(format!("{}@smoke", spec.id)));
    }
}

/// `account --manifest` answers per release, and the answer is the
/// figure's own claim: each release's ε is its ledger entry's claim — for a
/// chain, the entry of its last checkpoint — every series has a release, and
/// for the running-ε figures the ε plotted last for each method.
fn check_releases(dir: &Path) {
    let o = privpost(&[
        "account",
        "--manifest",
        dir.join("manifest.json").to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}: {}", dir.display(), stderr(&o));
    let answer: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let m = manifest(&dir.join("manifest.json"));
    let ledger = m["privacy"].as_array().unwrap();
    assert!(
        answer["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["holds"] == true),
        "{}",
        dir.display()
    );
    let releases = answer["releases"].as_array().unwrap();
    // the series of a ledger entry without its checkpoint
    let base = |s: &str| -> String {
        s.split(", ")
            .filter(|p| !p.starts_with("iteration="))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let iteration = |s: &str| -> u64 {
        s.split(", ")
            .find_map(|p| p.strip_prefix("iteration="))
            .map_or(0, |i| i.parse().unwrap())
    };
    for e in ledger {
        let series = base(e["series"].as_str().unwrap());
        assert!(
            releases.iter().any(|r| r["series"] == series.as_str()),
            "{}: series {series} has no release",
            dir.display()
        );
    }
    for r in releases {
        let series = r["series"].as_str().unwrap();
        let last = ledger
            .iter()
            .filter(|e| base(e["series"].as_str().unwrap()) == series)
            .max_by_key(|e| iteration(e["series"].as_str().unwrap()))
            .unwrap();
        assert_eq!(r["entry"], last["series"], "{}: {series}", dir.display());
        assert_eq!(
            r["guarantee"],
            last["guarantee"],
            "{}: {series}",
            dir.display()
        );
        if r["epsilon"].is_number() {
            assert_eq!(r["epsilon"], last["guarantee"]["epsilon"], "{series}");
        }
        assert_eq!(r["private"], last["guarantee"]["kind"] != "none");
    }
    // every private release carries its attack risk, recorded at the run and
    // rechecked here
    let id = m["figure"].as_str().unwrap();
    let private = releases.iter().filter(|r| r["private"] == true).count();
    let risks = answer["attack_risk"].as_array().unwrap();
    assert_eq!(
        risks.len(),
        private,
        "{id}: one attack risk per private release"
    );
    assert_eq!(
        m["attack_risk"].as_array().map_or(0, Vec::len),
        private,
        "{id}"
    );
    if private > 0 {
        assert_eq!(answer["attack_risk_recorded"], true, "{id}");
    }
    for r in risks {
        assert_eq!(r["holds"], true, "{id}: {r}");
        assert!(r["not_computed"].is_null(), "{id}: {r}");
        let tpr = r["recorded"]["tpr_at_fpr"][1]["tpr"].as_f64().unwrap();
        assert!((0.01..=1.0).contains(&tpr), "{id}: {r}");
        assert!(r["advantage"].as_f64().unwrap() >= 0.0, "{id}: {r}");
    }
    // the running-ε figures: the release is the ε their curves end at
    if ["heikkila2019/fig3", "raisa2021/gmm"].contains(&id) {
        let summary = dir.join("summary.csv");
        let h = header(&summary);
        let (mc, ec) = (col(&h, "method"), col(&h, "epsilon"));
        for r in releases.iter().filter(|r| r["private"] == true) {
            let method = r["series"].as_str().unwrap().trim_start_matches("method=");
            let plotted = rows(&summary)
                .iter()
                .filter(|row| row[mc] == method && !row[ec].is_empty())
                .map(|row| row[ec].parse::<f64>().unwrap())
                .fold(0.0f64, f64::max);
            let said = r["epsilon"].as_f64().unwrap();
            assert!(
                (said - plotted).abs() <= 1e-12 * plotted,
                "{id} {method}: account says {said}, the figure ends at {plotted}"
            );
        }
    }
}

/// Facts the smoke outputs must show, whatever the seed.
fn check_values(out: &Path) {
    check_logreg(out);
    check_hmm(out);
    // Fig 1: direct sampling (r = 1) is finite below λ* = 7 and infinite above.
    let fig1 = rows(&out.join("geumlek2017/fig1@smoke/summary.csv"));
    for r in &fig1 {
        let (c, lambda, eps): (f64, f64, &str) =
            (r[1].parse().unwrap(), r[2].parse().unwrap(), &r[3]);
        if c == 1.0 {
            assert_eq!(eps == "inf", lambda >= 7.0, "λ = {lambda}: ε = {eps}");
        }
    }
    // Fig 2: every released coefficient meets its target.
    let fig2 = rows(&out.join("geumlek2017/fig2@smoke/summary.csv"));
    let h = header(&out.join("geumlek2017/fig2@smoke/summary.csv"));
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
    let fig3 = rows(&out.join("bun2018/fig3@smoke/summary.csv"));
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
        &std::fs::read_to_string(out.join("bun2018/fig3@smoke/manifest.json")).unwrap(),
    )
    .unwrap();
    for a in m["details"]["privacy_audit"].as_array().unwrap() {
        assert!(
            a["delta_needed_at_epsilon"].as_f64().unwrap() <= 1e-8,
            "{a}"
        );
    }
    // Heikkilä Fig 1(b): b = 100, T = 10 → 0.677 (classic, as the paper's figure)
    let h = rows(&out.join("heikkila2019/fig1@smoke/summary.csv"));
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
    let h2 = rows(&out.join("heikkila2019/fig2@smoke/summary.csv"));
    assert_eq!(h2.iter().filter(|r| r[0] == "private").count(), 1300);
    let m2: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("heikkila2019/fig2@smoke/manifest.json")).unwrap(),
    )
    .unwrap();
    // the ledger composes the chain with the DPVI initialisation (basic composition)
    let private = &m2["privacy"][0];
    assert_eq!(private["series"], "chain=private, conversion=classic");
    let parts = private["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 2);
    let sum: f64 = parts
        .iter()
        .map(|p| p["guarantee"]["epsilon"].as_f64().unwrap())
        .sum();
    assert!((private["guarantee"]["epsilon"].as_f64().unwrap() - sum).abs() < 1e-12);
    assert_eq!(m2["datasets"][0]["name"], "gmm");
    // Heikkilä Fig 3: every method against both references, ε increasing along each curve
    let h3 = rows(&out.join("heikkila2019/fig3@smoke/summary.csv"));
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
    // Heikkilä Fig 3: the data.csv epsilon column is the ledger's claim at each checkpoint
    let m3 = manifest(&out.join("heikkila2019/fig3@smoke/manifest.json"));
    let claims: std::collections::HashMap<String, f64> = m3["privacy"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| {
            Some((
                e["series"].as_str()?.to_string(),
                e["guarantee"]["epsilon"].as_f64()?,
            ))
        })
        .collect();
    let d3 = out.join("heikkila2019/fig3@smoke/data.csv");
    let hd = header(&d3);
    let col = |n: &str| hd.iter().position(|x| x == n).unwrap();
    let mut matched = 0;
    for r in rows(&d3) {
        let method = &r[col("method")];
        if method == "nonprivate_chain" {
            let e = m3["privacy"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["series"] == "method=nonprivate_chain")
                .unwrap();
            assert_eq!(e["guarantee"]["kind"], "none");
            continue;
        }
        let key = format!("method={method}, iteration={}", r[col("iteration")]);
        let claim = claims
            .get(&key)
            .unwrap_or_else(|| panic!("no ledger entry {key}"));
        let eps: f64 = r[col("epsilon")].parse().unwrap();
        assert!(
            (eps - claim).abs() <= 1e-12 * claim,
            "{key}: csv {eps}, ledger {claim}"
        );
        matched += 1;
    }
    assert!(matched > 0);
    // Foulds Fig 1: OPS at ε = 1, a₀ = 0.2 has temperature 2 ln 4 ≈ 2.77.
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("foulds2016/fig1@smoke/manifest.json")).unwrap(),
    )
    .unwrap();
    let ops = &m["privacy"][2];
    assert_eq!(ops["series"], "mechanism=ops");
    assert!((ops["event"]["temperature"].as_f64().unwrap() - 2.0 * 4f64.ln()).abs() < 1e-12);
}

/// HMM case study: the planted regime change is recovered under Laplace ε = 5 (up to
/// relabelling); emission distributions sum to one; the manifest states the privacy cost.
fn check_hmm(out: &Path) {
    let f = out.join("foulds2016/fig3@smoke/summary.csv");
    let h = header(&f);
    let (m, t) = (
        h.iter().position(|x| x == "modal_state").unwrap(),
        h.iter().position(|x| x == "true_state").unwrap(),
    );
    let r = rows(&f);
    let agree = r.iter().filter(|x| x[m] == x[t]).count() as f64 / r.len() as f64;
    assert!(agree.max(1.0 - agree) > 0.9, "agreement {agree}");
    let e = rows(&out.join("foulds2016/fig4_5@smoke/summary.csv"));
    let p = header(&out.join("foulds2016/fig4_5@smoke/summary.csv"))
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
        &std::fs::read_to_string(out.join("foulds2016/fig3@smoke/manifest.json")).unwrap(),
    )
    .unwrap();
    let entry = &man["privacy"][0];
    assert_eq!(entry["guarantee"]["epsilon"], 5.0);
    assert_eq!(entry["event"]["composition"], "split_over_features");
    assert_eq!(entry["event"]["parts"][0]["scale"], 2.0 / 1.0);
    assert_eq!(man["datasets"][0]["name"], "iraq");
    // Fig 7 (OPS, afghanistan): three states, the last sample mostly agrees with the
    // modal estimate but not everywhere would be the paper's picture; here check shape
    let f7 = out.join("foulds2016/fig7@smoke/summary.csv");
    let h7 = header(&f7);
    let col7 = |n: &str| h7.iter().position(|x| x == n).unwrap();
    let r7 = rows(&f7);
    let states: std::collections::BTreeSet<&str> =
        r7.iter().map(|x| x[col7("true_state")].as_str()).collect();
    assert_eq!(states.len(), 3);
    assert!(r7.iter().all(|x| x[col7("date")].starts_with("20")));
    let man: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("foulds2016/fig7@smoke/manifest.json")).unwrap(),
    )
    .unwrap();
    let p = &man["privacy"];
    assert_eq!(p[0]["event"]["mechanism"], "one_posterior_sample");
    assert_eq!(p[0]["guarantee"]["epsilon"], 5.0);
    assert_eq!(p[1]["guarantee"]["epsilon"], 2.0 * 60.0 * 5.0);
    // recovery: the non-private sampler finds the planted states; every private
    // mechanism recovers states and emissions better at ε = 5 than at ε = 0.5
    let rf = out.join("foulds2016/recovery@smoke/summary.csv");
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
    let f6_all = rows(&out.join("foulds2016/fig6@smoke/summary.csv"));
    // + the noise-aware series (after each panel's mechanisms): the pooled one on
    // the naive-Bayes panel, data augmentation on the two HMM panels
    let (f6, aware): (Vec<_>, Vec<_>) = f6_all
        .into_iter()
        .partition(|r| !r[2].starts_with("laplace_noise_aware_"));
    let (noise_aware, da): (Vec<_>, Vec<_>) = aware
        .into_iter()
        .partition(|r| r[2] == "laplace_noise_aware_gibbs");
    assert_eq!(f6.len(), 3 * 4 * 2);
    assert_eq!(noise_aware.len(), 2);
    assert_eq!(da.len(), 2 * 2);
    for r in &da {
        assert_eq!(
            (r[1].as_str(), r[2].as_str()),
            ("hmm", "laplace_noise_aware_da")
        );
        assert!(
            r[4].parse::<f64>().unwrap().is_finite() && r[6] == "2",
            "{r:?}"
        );
    }
    for r in &noise_aware {
        assert_eq!(
            (r[0].as_str(), r[1].as_str()),
            ("afghanistan", "naive_bayes")
        );
        assert!(
            r[4].parse::<f64>().unwrap().is_finite() && r[6] == "2",
            "{r:?}"
        );
    }
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
    // the manifest records each dataset with the SHA-256 of the files as read
    let pinned = std::fs::read_to_string(repo().join("data/checksums.sha256")).unwrap();
    for fig in [
        "geumlek2017/fig3",
        "minami2016/logreg",
        "geumlek2017/samplers",
    ] {
        let m = manifest(&out.join(format!("{fig}@smoke")).join("manifest.json"));
        let ds = m["datasets"].as_array().unwrap();
        assert!(!ds.is_empty(), "{fig}");
        for d in ds {
            for (f, h) in d["files"]
                .as_array()
                .unwrap()
                .iter()
                .zip(d["sha256"].as_array().unwrap())
            {
                let name = Path::new(f.as_str().unwrap())
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                assert!(
                    pinned.contains(&format!("{}  {name}", h.as_str().unwrap())),
                    "{fig}: {f} {h}"
                );
            }
            assert!(d["rows"].as_u64().unwrap() > 0);
        }
    }
    let d = out.join("geumlek2017/fig3@smoke");
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
    let m = out.join("minami2016/logreg@smoke/summary.csv");
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
    let s = out.join("geumlek2017/samplers@smoke/summary.csv");
    let h = header(&s);
    let col = |name: &str| h.iter().position(|x| x == name).unwrap();
    let (sm, z, rhat) = (col("sampler"), col("mean_z_max"), col("rhat_max"));
    for r in rows(&s).iter().filter(|r| r[sm] == "hmc") {
        assert!(r[z].parse::<f64>().unwrap() < 6.0, "{r:?}");
        assert!(r[rhat].parse::<f64>().unwrap() < 1.1, "{r:?}");
    }
}

fn col(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|c| c == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}
