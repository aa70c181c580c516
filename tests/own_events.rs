//! End-to-end: a user's own privacy events in `account` (`--event`, `--manifest`)
//! and a user's own mechanism in `audit --samples`, good and bad input.

mod common;

use common::*;

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// The event file answers as the built-in accountant does (Heikkilä's DP-SGLD at
/// T = 6·10⁶: the README's 1.2958 / 1.0905 / 1.0139; the inverse 5,105,906), in
/// one JSON schema with the iteration count as an integer.
#[test]
fn an_event_file_is_answered_by_the_same_accountants() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "sgld.json",
        r#"{"schema": "privpost-event/1", "event": {"mechanism": "repeat", "times": 6000000,
            "event": {"mechanism": "poisson_subsampled_gaussian", "q": 1e-4, "sigma": 1.19523}}}"#,
    );
    let o = privpost(&["account", "--event", &f, "--delta", "2e-6", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["schema"], "privpost-account/1");
    let eps = |name: &str| {
        v["answers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["accountant"] == name)
            .unwrap_or_else(|| panic!("{name}: {v}"))["epsilon"]
            .as_f64()
            .unwrap()
    };
    assert_eq!(format!("{:.4}", eps("rdp_classic")), "1.2958");
    assert_eq!(format!("{:.4}", eps("rdp_improved")), "1.0905");
    assert_eq!(format!("{:.4}", eps("pld")), "1.0139");
    assert_eq!(v["answers"][0]["iterations"], 6000000);
    // the built-in accountant, same question: the same numbers
    let b = privpost(&[
        "account",
        "--mechanism",
        "sgld",
        "--q",
        "1e-4",
        "--sigma",
        "1.19523",
        "--iterations",
        "6000000",
        "--delta",
        "2e-6",
    ]);
    let text = stdout(&b);
    assert!(text.contains("1.2958") && text.contains("1.0905"), "{text}");
    let o = privpost(&[
        "account",
        "--event",
        &f,
        "--delta",
        "2e-6",
        "--target-epsilon",
        "1",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["question"], "inverse");
    assert_eq!(v["answers"][0]["iterations"], 5105906, "{v}");
    assert!(v["answers"][0]["iterations"].is_u64());
    // --solve sigma: the built-in DP-SGLD question, the same answers (RDP; the
    // tight accountant's σ search takes a minute and is the same code)
    let ev = privpost(&[
        "account",
        "--event",
        &f,
        "--delta",
        "2e-6",
        "--target-epsilon",
        "1",
        "--solve",
        "sigma",
        "--no-tight",
        "--json",
    ]);
    let bi = privpost(&[
        "account",
        "--mechanism",
        "sgld",
        "--q",
        "1e-4",
        "--iterations",
        "6000000",
        "--delta",
        "2e-6",
        "--target-epsilon",
        "1",
        "--solve",
        "sigma",
        "--no-tight",
        "--json",
    ]);
    assert!(
        ev.status.success() && bi.status.success(),
        "{}",
        stderr(&ev)
    );
    let (ev, bi): (serde_json::Value, serde_json::Value) = (
        serde_json::from_slice(&ev.stdout).unwrap(),
        serde_json::from_slice(&bi.stdout).unwrap(),
    );
    assert_eq!(ev["answers"], bi["answers"]);
    assert!(ev["answers"][0]["sigma"].as_f64().unwrap() > 1.0);
}

/// Laplace(scale 10) + 10 × Gaussian(σ 5), sensitivity 1, at δ = 10⁻⁵:
/// the Laplace part's RDP is its exact curve (Mironov 2017, Prop. 6), not its pure ε
/// at every order (which gave 2.914), and the composition gets the tight PLD answer.
/// Reference values: dp-accounting 0.6.0 (`tests/reference/oracles.py`, section 7, run
/// on 2026-11-26; `tests/oracles.rs` recomputes them live): RDP 2.848722, PLD bracket
/// [2.627086, 2.627588]. `times` written as 1e1 is accepted, as configs accept counts;
/// `--pld-slack` and `--alpha-max` apply.
#[test]
fn laplace_and_gaussian_events_get_the_exact_rdp_and_the_tight_pld() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "lg.json",
        r#"{"schema": "privpost-event/1", "event": {"mechanism": "compose", "composition": "sequential",
            "parts": [{"mechanism": "laplace", "l1_sensitivity": 1.0, "scale": 10.0},
                      {"mechanism": "repeat", "times": 1e1, "event":
                        {"mechanism": "gaussian", "l2_sensitivity": 1.0, "sigma": 5.0, "rdp_scale": 0.5}}]}}"#,
    );
    let answers = |extra: &[&str]| {
        let mut args = vec!["account", "--event", &f, "--delta", "1e-5", "--json"];
        args.extend_from_slice(extra);
        let o = privpost(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["answers"].as_array().unwrap().clone()
    };
    let pick = |a: &[serde_json::Value], name: &str| {
        a.iter()
            .find(|x| x["accountant"] == name)
            .unwrap_or_else(|| panic!("{name}: {a:?}"))
            .clone()
    };
    let a = answers(&[]);
    let rdp = pick(&a, "rdp_improved")["epsilon"].as_f64().unwrap();
    assert!((rdp / 2.848722 - 1.0).abs() < 0.005, "RDP {rdp}");
    let pld = pick(&a, "pld");
    let (eps, slack) = (
        pld["epsilon"].as_f64().unwrap(),
        pld["slack"].as_f64().unwrap(),
    );
    assert_eq!(slack, 0.005);
    assert!(
        eps >= 2.627086 - 1e-9 && eps <= 2.627588 + slack,
        "PLD {eps}"
    );
    // a finer slack: still inside the bracket + its slack; an order cap: the best order below it
    let a = answers(&["--pld-slack", "1e-4", "--alpha-max", "5"]);
    let pld = pick(&a, "pld");
    assert_eq!(pld["slack"].as_f64().unwrap(), 1e-4);
    let eps = pld["epsilon"].as_f64().unwrap();
    assert!(
        (2.627086 - 1e-9..=2.627588 + 1e-4).contains(&eps),
        "PLD {eps}"
    );
    let order = pick(&a, "rdp_improved")["order"].as_f64().unwrap();
    assert!(order < 5.0, "order {order}");
    // --no-tight: no PLD answer
    assert!(answers(&["--no-tight"])
        .iter()
        .all(|x| x["accountant"] != "pld"));
    // flags that do not apply are refused, never ignored
    for (args, want) in [
        (vec!["--pld-slack", "0"], "--pld-slack"),
        (vec!["--alpha-max", "1"], "--alpha-max"),
    ] {
        let mut all = vec!["account", "--event", &f, "--delta", "1e-5"];
        all.extend_from_slice(&args);
        let o = privpost(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(want), "{}", stderr(&o));
    }
    let m = write(dir.path(), "manifest.json", r#"{"privacy": []}"#);
    let o = privpost(&["account", "--manifest", &m, "--pld-slack", "0.01"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("do not apply to --manifest"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn bad_event_files_exit_2_naming_the_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    for (text, wants) in [
        (
            r#"{"mechanism": "gaussian", "l2_sensitivity": 1.0, "sigma": 0.0, "rdp_scale": 0.5}"#,
            vec!["sigma = 0", "must be finite and > 0"],
        ),
        // a factor below ½ would claim less than Gaussian noise gives (the held-out
        // fuzz of 2026-11-29: rdp_scale 0.1 had "held" a claim of 1/5 the true ε(λ))
        (
            r#"{"mechanism": "gaussian", "l2_sensitivity": 1.0, "sigma": 1.0, "rdp_scale": 0.1}"#,
            vec!["rdp_scale = 0.1", "must be ≥ 0.5"],
        ),
        (
            r#"{"schema": "privpost-event/9", "event": {"mechanism": "laplace", "l1_sensitivity": 1, "scale": 1}}"#,
            vec!["key `schema`", "privpost-event/1"],
        ),
        (
            r#"{"mechanism": "teleport"}"#,
            vec!["unknown variant `teleport`"],
        ),
        (
            r#"{"mechanism": "laplace", "l1_sensitivity": 1.0"#,
            vec!["not valid JSON"],
        ),
        (
            r#"{"event": {"mechanism": "poisson_subsampled_gaussian", "q": 2.0, "sigma": 1.0}}"#,
            vec!["key `event`", "q = 2"],
        ),
        // unknown keys are refused, at any depth, never ignored
        (
            r#"{"mechanism": "laplace", "l1_sensitivity": 1, "scale": 3, "sensitivty": 2}"#,
            vec!["key `sensitivty`", "unknown"],
        ),
        (
            r#"{"schema": "privpost-event/1", "event": {"mechanism": "repeat", "times": 3,
                "event": {"mechanism": "gaussian", "l2_sensitivity": 1, "sigma": 2, "rdp_scale": 0.5, "sigam": 1}}}"#,
            vec!["key `event.event.sigam`", "unknown"],
        ),
        (
            r#"{"schema": "privpost-event/1", "evnt": 1, "event": {"mechanism": "laplace", "l1_sensitivity": 1, "scale": 1}}"#,
            vec!["key `evnt`"],
        ),
        (
            r#"{"series": "s", "event": {"mechanism": "laplace", "l1_sensitivity": 1, "scale": 1},
                "guarantee": {"kind": "pure_dp", "epsilon": 1}, "conditons": []}"#,
            vec!["key `conditons`", "unknown"],
        ),
        // a count must be whole
        (
            r#"{"mechanism": "repeat", "times": 1.5, "event": {"mechanism": "laplace", "l1_sensitivity": 1, "scale": 1}}"#,
            vec!["1.5 is not a count"],
        ),
    ] {
        let f = write(dir.path(), "e.json", text);
        let o = privpost(&["account", "--event", &f, "--delta", "1e-5"]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{text}: {e}");
        assert!(e.contains("e.json"), "{e}");
        for w in wants {
            assert!(e.contains(w), "`{w}` not in {e}");
        }
    }
    // an RDP event without δ: the message says what is missing
    let f = write(
        dir.path(),
        "g.json",
        r#"{"mechanism": "gaussian", "l2_sensitivity": 1.0, "sigma": 2.0, "rdp_scale": 0.5}"#,
    );
    let o = privpost(&["account", "--event", &f]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--delta"), "{}", stderr(&o));
    // a ledger entry whose claim is tighter than its event: exit 1, named
    let f = write(
        dir.path(),
        "entry.json",
        r#"{"series": "mine", "event": {"mechanism": "laplace", "l1_sensitivity": 2.0, "scale": 2.0},
            "guarantee": {"kind": "pure_dp", "epsilon": 0.5}}"#,
    );
    let o = privpost(&["account", "--event", &f]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("does not follow") && stdout(&o).contains("DOES NOT HOLD"),
        "{}",
        stderr(&o)
    );
    // Claims whose own parameters are no guarantee never "hold" — a
    // conversion at order 0.5 (it recomputed ε = 0), an RDP order −3, δ = −1
    for claim in [
        r#"{"kind": "approx_dp", "epsilon": 0.001, "delta": 1e-5, "conversion": "classic", "order": 0.5}"#,
        r#"{"kind": "approx_dp", "epsilon": 0.001, "delta": 1e-5, "conversion": "improved", "order": 0.5}"#,
        r#"{"kind": "rdp", "order": -3, "epsilon": 0.0}"#,
        r#"{"kind": "approx_dp", "epsilon": 0.001, "delta": -1, "conversion": "pld", "order": null}"#,
    ] {
        let f = write(
            dir.path(),
            "bad-claim.json",
            &format!(
                r#"{{"series": "mine", "event": {{"mechanism": "gaussian", "l2_sensitivity": 1.0, "sigma": 1.0, "rdp_scale": 0.5}}, "guarantee": {claim}}}"#
            ),
        );
        let o = privpost(&["account", "--event", &f, "--delta", "1e-5"]);
        assert_eq!(o.status.code(), Some(1), "{claim}: {}", stdout(&o));
        assert!(
            stdout(&o).contains("DOES NOT HOLD") && !stdout(&o).contains("— holds"),
            "{claim}: {}",
            stdout(&o)
        );
        assert!(
            stderr(&o).contains("the claim is not a guarantee"),
            "{}",
            stderr(&o)
        );
    }
}

/// `account --manifest` re-verifies a real run's ledger and composes it.
#[test]
fn a_manifest_ledger_is_reverified_and_composed() {
    let out = tempfile::tempdir().unwrap();
    let o = privpost(&[
        "run",
        "heikkila2019/fig3",
        "--smoke",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = std::fs::read_dir(out.path().join("heikkila2019"))
        .unwrap()
        .map(|e| e.unwrap().path().join("manifest.json"))
        .find(|p| p.is_file())
        .unwrap();
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&m).unwrap()).unwrap();
    let o = privpost(&["account", "--manifest", m.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let entries = v["entries"].as_array().unwrap();
    assert!(entries.iter().all(|e| e["holds"] == true), "{v}");
    // The running checkpoints of one chain are one release, at its last
    // checkpoint, with the figure's own claim there; methods are not composed
    let releases = v["releases"].as_array().unwrap();
    assert_eq!(releases.len(), 5, "{v}");
    let ledger = manifest["privacy"].as_array().unwrap();
    for r in releases {
        let series = r["series"].as_str().unwrap();
        assert!(!series.contains("iteration"), "{series}");
        if series == "method=nonprivate_chain" {
            assert_eq!(r["private"], false);
            assert!(r["epsilon"].is_null());
            continue;
        }
        // the last checkpoint's entry and its claim
        let last = ledger
            .iter()
            .filter(|e| {
                e["series"]
                    .as_str()
                    .unwrap()
                    .starts_with(&format!("{series}, iteration="))
            })
            .max_by_key(|e| {
                let s = e["series"].as_str().unwrap();
                s.rsplit('=').next().unwrap().parse::<u64>().unwrap()
            })
            .unwrap();
        assert_eq!(r["entry"], last["series"]);
        assert_eq!(r["epsilon"], last["guarantee"]["epsilon"], "{series}");
    }
    assert_eq!(v["composed"].as_array().unwrap().len(), 0);
    // each private release's attack risk, recorded at the run, holds on recheck
    let risks = v["attack_risk"].as_array().unwrap();
    assert_eq!(risks.len(), 4, "{v}");
    assert!(
        risks.iter().all(|r| r["holds"] == true && r["mu"].is_f64()),
        "{v}"
    );
    // a record that shows the attacker weaker than its event allows does not hold:
    // exit 1, naming the release and the number
    let mut tampered = manifest.clone();
    let tpr = tampered["attack_risk"][0]["tpr_at_fpr"][1]["tpr"]
        .as_f64()
        .unwrap();
    tampered["attack_risk"][0]["tpr_at_fpr"][1]["tpr"] = serde_json::json!(tpr * 0.9);
    let t = out.path().join("tampered.json");
    std::fs::write(&t, serde_json::to_string(&tampered).unwrap()).unwrap();
    let o = privpost(&["account", "--manifest", t.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("DOES NOT HOLD") && stderr(&o).contains("TPR at FPR 0.01 recorded"),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
    let text = stdout(&privpost(&["account", "--manifest", m.to_str().unwrap()]));
    assert!(
        text.contains("method=nonprivate_chain: not private"),
        "{text}"
    );
    assert!(text.contains("δ = 2e-6"), "{text}");
    assert!(!text.contains("inf") && !text.contains("999999"), "{text}");
    // entries tagged as released together are composed, and only those
    let dir = tempfile::tempdir().unwrap();
    let tagged = write(
        dir.path(),
        "tagged.json",
        r#"{"privacy": [
          {"series": "part=a", "event": {"mechanism": "laplace", "l1_sensitivity": 1, "scale": 2},
           "guarantee": {"kind": "pure_dp", "epsilon": 0.5}, "released_with": "survey"},
          {"series": "part=b", "event": {"mechanism": "laplace", "l1_sensitivity": 1, "scale": 4},
           "guarantee": {"kind": "pure_dp", "epsilon": 0.25}, "released_with": "survey"},
          {"series": "other", "event": {"mechanism": "laplace", "l1_sensitivity": 1, "scale": 1},
           "guarantee": {"kind": "pure_dp", "epsilon": 1}}]}"#,
    );
    let o = privpost(&["account", "--manifest", &tagged, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let c = v["composed"].as_array().unwrap();
    assert_eq!(c.len(), 1, "{v}");
    assert_eq!(c[0]["epsilon"].as_f64().unwrap(), 0.75);
    assert_eq!(v["releases"].as_array().unwrap().len(), 3);
    // a manifest without a ledger: exit 2
    let bad = out.path().join("x.json");
    std::fs::write(&bad, "{}").unwrap();
    let o = privpost(&["account", "--manifest", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no `privacy` ledger"));
}

/// Every statistical audit's own scores file, audited again through `audit
/// --samples` with its claim, gives the ε_lcb (or Rényi bound) of `privpost
/// audit`, bit for bit, and the same verdict (exit 0 PASS, 1 FAIL).
#[test]
fn built_in_score_files_give_the_audits_own_bounds() {
    let out = tempfile::tempdir().unwrap();
    let o = privpost(&[
        "audit",
        "--smoke",
        "-q",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = out.path().join("audit/mechanisms@smoke");
    let t = rows(&dir.join("summary.csv"));
    let h = header(&dir.join("summary.csv"));
    let c = |n: &str| h.iter().position(|x| x == n).unwrap();
    let (mut checked, mut below) = (0, 0);
    for r in t.iter().filter(|r| !r[c("scores_file")].is_empty()) {
        let claim = match r[c("claim")].as_str() {
            "pure" => format!("epsilon={}", r[c("claim_epsilon")]),
            "approx" => format!(
                "epsilon={},delta={}",
                r[c("claim_epsilon")],
                r[c("claim_delta")]
            ),
            "rdp" => format!("epsilon={},order={}", r[c("claim_epsilon")], r[c("order")]),
            other => panic!("claim kind {other}"),
        };
        let file = dir.join(&r[c("scores_file")]);
        let mut args = vec![
            "audit",
            "--samples",
            file.to_str().unwrap(),
            "--claim",
            &claim,
            "--json",
        ];
        if r[c("claim")] == "rdp" {
            args.push("--log-ratio");
        }
        let o = privpost(&args);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|_| panic!("{}: {}", r[c("scores_file")], stderr(&o)));
        assert_eq!(
            v["audited_epsilon"].as_f64().unwrap(),
            r[c("audited_epsilon")].parse::<f64>().unwrap(),
            "{}",
            r[c("scores_file")]
        );
        assert_eq!(v["verdict"], r[c("verdict")].as_str());
        assert_eq!(
            o.status.code(),
            Some(if r[c("verdict")] == "PASS" { 0 } else { 1 })
        );
        // the audit on the curve: a correct mechanism leaves no point below its
        // claimed curve; broken ones do
        let violations = v["tradeoff"]["violations"].as_u64().unwrap();
        if r[c("verdict")] == "PASS" {
            assert_eq!(violations, 0, "{}: {v}", r[c("scores_file")]);
        } else if violations > 0 {
            below += 1;
        }
        assert!(v["tradeoff"]["mu_lower"].as_f64().unwrap() >= 0.0);
        checked += 1;
    }
    assert!(checked >= 10, "{checked} score files");
    assert!(
        below >= 1,
        "no broken mechanism fell below its claimed curve"
    );
    // the half-scale Laplace is exactly 2-DP: its scores pass ε = 2 and fail ε = 1
    // (float rounding of the exact log ratio once made it fail ε = 2)
    let half = dir.join("scores-laplace_counts-statistical-half_scale.csv");
    for (claim, code) in [("epsilon=2", 0), ("epsilon=1", 1)] {
        let o = privpost(&[
            "audit",
            "--samples",
            half.to_str().unwrap(),
            "--claim",
            claim,
        ]);
        assert_eq!(o.status.code(), Some(code), "{claim}: {}", stdout(&o));
    }
    // --plot draws the claimed curve beside the points; the violations are named
    let o = privpost(&[
        "audit",
        "--samples",
        half.to_str().unwrap(),
        "--claim",
        "epsilon=1",
        "--plot",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("below the claim: score"),
        "{}",
        stdout(&o)
    );
    let svg = std::fs::read_to_string(out.path().join("audit-tradeoff.svg")).unwrap();
    assert!(svg.contains("claimed curve") && out.path().join("audit-tradeoff.png").is_file());
}

/// Scores carrying a few ulps of rounding give the same verdict as exact ones, and
/// the report says when comparing exactly would have changed it (the D draws'
/// extreme log ratios 2.0000000000000004 against the D′ draws' 2.0 made an event of
/// rounding and failed an exactly 2-DP mechanism).
#[test]
fn rounding_noise_in_scores_does_not_change_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    // the half-scale Laplace on a count (b = 0.5, ε = 2), seeded, scored by its exact
    // log ratio clamped to ±2; the D draws' 2.0 written one ulp up
    let mut state = 0x9E3779B97F4A7C15u64;
    let mut unif = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut text = String::from("label,score\n");
    for label in [1, 0] {
        let centre = if label == 1 { 1.0 } else { 0.0 };
        // 4000 a side: every distinct selection score is a candidate threshold
        for _ in 0..4_000 {
            let u = unif() - 0.5;
            let x = centre - 0.5 * u.signum() * (1.0 - 2.0 * u.abs()).max(1e-300).ln();
            let s: f64 = ((x.abs() - (x - 1.0).abs()) / 0.5).clamp(-2.0, 2.0);
            let s = match (label, s >= 2.0 - 1e-12) {
                (1, true) => 2.0f64.next_up(),
                (_, true) => 2.0,
                _ => s,
            };
            text.push_str(&format!("{label},{s:?}\n"));
        }
    }
    let f = write(dir.path(), "scores.csv", &text);
    let o = privpost(&["audit", "--samples", &f, "--claim", "epsilon=2", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(0), "{v}");
    assert_eq!(v["verdict"], "PASS");
    assert_eq!(v["verdict_exact_comparison"], "FAIL", "{v}");
    assert!(v["audited_epsilon"].as_f64().unwrap() <= 2.0);
    let o = privpost(&["audit", "--samples", &f, "--claim", "epsilon=2"]);
    assert!(stdout(&o).contains("a different verdict"), "{}", stdout(&o));
    // a real excess still fails: claim 1 for the 2-DP mechanism
    let o = privpost(&["audit", "--samples", &f, "--claim", "epsilon=1"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn bad_samples_exit_2_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut ok = String::from("label,score\n");
    for i in 0..50 {
        ok.push_str(&format!(
            "1,{}\n0,{}\n",
            i as f64 * 0.1,
            i as f64 * 0.1 - 0.5
        ));
    }
    let f = write(dir.path(), "ok.csv", &ok);
    let o = privpost(&["audit", "--samples", &f, "--claim", "epsilon=5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let one_class: String = ok
        .lines()
        .filter(|l| !l.starts_with("0,"))
        .map(|l| format!("{l}\n"))
        .collect();
    for (name, text, claim, wants) in [
        (
            "one.csv",
            one_class.as_str(),
            "epsilon=1",
            vec!["one.csv", "0 rows with label 0"],
        ),
        (
            "nan.csv",
            "label,score\n1,0.5\n0,oops\n",
            "epsilon=1",
            vec!["nan.csv: line 3", "`score`"],
        ),
        (
            "lab.csv",
            "label,score\n2,0.5\n",
            "epsilon=1",
            vec!["lab.csv: line 2", "`label` = \"2\""],
        ),
        (
            "cols.csv",
            "y,score\n1,0.5\n",
            "epsilon=1",
            vec!["cols.csv: line 1", "no column `label`"],
        ),
        ("ok2.csv", ok.as_str(), "epsilon=-1", vec!["epsilon = -1"]),
        (
            "ok3.csv",
            ok.as_str(),
            "epsilon=1,order=2",
            vec!["--log-ratio"],
        ),
        (
            "ok4.csv",
            ok.as_str(),
            "eps=1,beta=2",
            vec!["unknown key \"beta\""],
        ),
    ] {
        let f = write(dir.path(), name, text);
        let o = privpost(&["audit", "--samples", &f, "--claim", claim]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {e}");
        for w in wants {
            assert!(e.contains(w), "{name}: `{w}` not in {e}");
        }
    }
}

/// Exact log ratios that no claim survives fail the audit (one `inf`
/// among 300 on D, `-inf` on D′, or one ratio of 800 had passed with the ε of the
/// file without it); values no draw can have are refused with file and line (blank
/// lines counted); `/dev/zero` and duplicate claim keys are refused.
#[test]
fn extreme_log_ratios_fail_and_impossible_ones_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    // the Gaussian mechanism at Δ/σ = 1: L ~ N(1/2, 1) on D, N(−1/2, 1) on D′ (D_2 = 1)
    let mut state = 0x2545F4914F6CDD1Du64;
    let mut normal = || {
        let mut u = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        };
        let (a, b) = (u(), u());
        (-2.0 * a.ln()).sqrt() * (std::f64::consts::TAU * b).cos()
    };
    let rows: Vec<(u8, f64)> = (0..600)
        .map(|i| {
            if i < 300 {
                (1, 0.5 + normal())
            } else {
                (0, -0.5 + normal())
            }
        })
        .collect();
    // a file of the rows with row `at` (0-based, header excluded) set to `value`
    let file = |name: &str, edit: Option<(usize, f64)>| {
        let mut r = rows.clone();
        if let Some((at, value)) = edit {
            r[at].1 = value;
        }
        let text: String = std::iter::once("label,score\n".to_string())
            .chain(r.iter().map(|(l, s)| format!("{l},{s}\n")))
            .collect();
        write(dir.path(), name, &text)
    };
    let audit = |f: &str, claim: &str| {
        privpost(&[
            "audit",
            "--samples",
            f,
            "--claim",
            claim,
            "--log-ratio",
            "--json",
        ])
    };
    let clean = file("clean.csv", None);
    // true claims pass: D_2 = 1, and ε(10⁻⁶) = 4.887 (Balle and Wang's formula)
    for claim in ["epsilon=1.5,order=2", "epsilon=5,delta=1e-6"] {
        let o = audit(&clean, claim);
        assert_eq!(o.status.code(), Some(0), "{claim}: {}", stderr(&o));
    }
    // a false one is caught by the tail bound: ε = 4 at δ = 10⁻⁶ (these draws: 4.18)
    let o = audit(&clean, "epsilon=4,delta=1e-6");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    for (name, at, value) in [
        ("inf_d.csv", 5, f64::INFINITY),
        ("ninf_d2.csv", 305, f64::NEG_INFINITY),
        ("big_d.csv", 5, 800.0),
        ("big_d2.csv", 305, -800.0),
    ] {
        let f = file(name, Some((at, value)));
        // an (ε, δ) claim too: the hockey-stick tail bound (one ratio of 1e308 on D
        // had passed δ = 1e-6 as ε = 0 in the held-out fuzz of 2026-11-29)
        for claim in ["epsilon=1.5,order=2", "epsilon=4", "epsilon=5,delta=1e-6"] {
            let o = audit(&f, claim);
            assert_eq!(o.status.code(), Some(1), "{name} {claim}: {}", stdout(&o));
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(v["verdict"], "FAIL", "{name} {claim}: {v}");
            let a = &v["audited_epsilon"];
            assert!(a == "inf" || a.as_f64().unwrap() > 700.0, "{name}: {v}");
        }
    }
    // impossible for exact log ratios: −∞ on D (p(x) = 0 at a draw from p), +∞ on D′;
    // a blank line before the bad row counts in the line number
    let mut text = String::from("label,score\n\n");
    for (l, s) in &rows[..40] {
        text.push_str(&format!("{l},{s}\n"));
    }
    text.push_str("1,-inf\n");
    for (l, s) in &rows[300..340] {
        text.push_str(&format!("{l},{s}\n"));
    }
    let f = write(dir.path(), "impossible.csv", &text);
    let o = audit(&f, "epsilon=1,order=2");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("impossible.csv: line 43: column `score` = -inf on D"),
        "{}",
        stderr(&o)
    );
    let f = file("impossible2.csv", Some((310, f64::INFINITY)));
    let o = audit(&f, "epsilon=1,order=2");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("line 312: column `score` = inf on D′"),
        "{}",
        stderr(&o)
    );
    // without --log-ratio an infinite score is only a score: ordered, no refusal
    let o = privpost(&["audit", "--samples", &f, "--claim", "epsilon=4"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for (claim, want) in [
        ("epsilon=100,epsilon=0.1", "epsilon given twice"),
        ("epsilon=1,delta=1e-5,delta=0", "delta given twice"),
    ] {
        let o = privpost(&["audit", "--samples", &clean, "--claim", claim]);
        assert_eq!(o.status.code(), Some(2), "{claim}");
        assert!(stderr(&o).contains(want), "{claim}: {}", stderr(&o));
    }
    let o = privpost(&["audit", "--samples", "/dev/zero", "--claim", "epsilon=1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/dev/zero: a device"), "{}", stderr(&o));
}

/// Every `account --json` output, built-in or `--event`, forward or inverse, has
/// the same fields: schema, question, answers with integer iteration counts.
#[test]
fn account_json_has_one_schema_for_every_mechanism() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "lap.json",
        r#"{"mechanism": "repeat", "times": 3, "event": {"mechanism": "laplace", "l1_sensitivity": 1.0, "scale": 10.0}}"#,
    );
    let runs: Vec<Vec<&str>> = vec![
        vec![
            "--n-data",
            "1000000",
            "--batch",
            "1000",
            "--iterations",
            "1000,20000",
            "--delta",
            "1e-6",
        ],
        vec![
            "--n-data",
            "1000000",
            "--batch",
            "1000",
            "--delta",
            "1e-6",
            "--target-epsilon",
            "1",
        ],
        vec![
            "--mechanism",
            "sgld",
            "--q",
            "1e-3",
            "--sigma",
            "1.2",
            "--iterations",
            "1000",
            "--delta",
            "1e-5",
            "--no-tight",
        ],
        vec![
            "--mechanism",
            "sgld",
            "--q",
            "1e-3",
            "--sigma",
            "1.2",
            "--delta",
            "1e-5",
            "--target-epsilon",
            "1",
            "--no-tight",
        ],
        vec!["--event", &f],
        vec!["--event", &f, "--target-epsilon", "1"],
    ];
    for r in runs {
        let mut args = vec!["account", "--json"];
        args.extend(r.iter().copied());
        let o = privpost(&args);
        assert!(o.status.success(), "{r:?}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["schema"], "privpost-account/1", "{r:?}");
        assert!(
            ["forward", "inverse"].contains(&v["question"].as_str().unwrap()),
            "{r:?}"
        );
        let answers = v["answers"].as_array().unwrap();
        assert!(!answers.is_empty(), "{r:?}: {v}");
        for a in answers {
            for k in ["accountant", "epsilon", "delta", "order", "iterations"] {
                assert!(a.get(k).is_some(), "{r:?}: no `{k}` in {a}");
            }
            assert!(
                a["iterations"].is_u64() || a["iterations"].is_null(),
                "{r:?}: {a}"
            );
        }
        assert!(v["warnings"].is_array());
    }
}

/// `account --event` says what an attacker can do beside ε: the trade-off curve's
/// numbers in the text, the curve itself in `--json`, and bad `--fpr`/`--prior`
/// refused with exit 2 naming the option, before any accounting.
#[test]
fn an_event_answer_carries_its_attack_risk() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "gauss.json",
        r#"{"mechanism": "gaussian", "l2_sensitivity": 1, "sigma": 1}"#,
    );
    // μ = Δ/σ = 1 exactly; TPR at FPR 0.01 is 1 − Φ(Φ⁻¹(0.99) − 1) = 0.092362
    let o = privpost(&["account", "--event", &f, "--delta", "1e-5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for want in [
        "μ = 1.000000",
        "TPR at FPR 0.01     0.092362",
        "advantage      0.382925",
    ] {
        assert!(text.contains(want), "{want:?} missing:\n{text}");
    }
    let o = privpost(&[
        "account", "--event", &f, "--delta", "1e-5", "--fpr", "0.05", "--prior", "0.9", "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let a = &v["attack"];
    assert_eq!(a["method"], "gaussian_exact");
    assert_eq!(a["tpr_at_fpr"].as_array().unwrap().len(), 1);
    assert_eq!(a["tpr_at_fpr"][0]["fpr"], 0.05);
    assert_eq!(a["prior"], 0.9);
    let curve = a["curve"].as_array().unwrap();
    assert!(curve.len() >= 100);
    let mut last = f64::INFINITY;
    for p in curve {
        let (alpha, beta) = (p[0].as_f64().unwrap(), p[1].as_f64().unwrap());
        assert!(beta <= last + 1e-15 && beta <= 1.0 - alpha + 1e-15, "{p}");
        last = beta;
    }
    // an event with only an RDP description: its curve by the data-processing
    // conversion, at its own listed orders
    let r = write(
        dir.path(),
        "rdp.json",
        r#"{"mechanism": "rdp_curve", "posterior": "mine", "parameters": {}, "points": [[2, 0.1], [8.25, 0.5]]}"#,
    );
    let o = privpost(&["account", "--event", &r, "--delta", "1e-5", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !stderr(&o).contains("attack risk: not computed"),
        "{}",
        stderr(&o)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["attack"]["method"], "rdp_conversion");
    let tpr = v["attack"]["tpr_at_fpr"][1]["tpr"].as_f64().unwrap();
    assert!(tpr > 0.01 && tpr < 0.2, "{v}");
    // several Laplace releases with a Gaussian one take the RDP conversion too
    let b = write(
        dir.path(),
        "both.json",
        r#"{"mechanism": "compose", "composition": "sequential", "parts": [{"mechanism": "laplace", "l1_sensitivity": 1, "scale": 1}, {"mechanism": "laplace", "l1_sensitivity": 1, "scale": 2}, {"mechanism": "gaussian", "l2_sensitivity": 1, "sigma": 2}]}"#,
    );
    let o = privpost(&["account", "--event", &b, "--delta", "1e-5", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["attack"]["method"], "rdp_conversion", "{v}");
    // an event no curve can come from (a theorem's (ε, δ) composed with a release):
    // ε, and a warning instead of a curve
    let g = write(
        dir.path(),
        "gibbs.json",
        r#"{"mechanism": "compose", "composition": "sequential", "parts": [{"mechanism": "gibbs_posterior", "beta": 1, "epsilon": 0.5, "delta": 1e-6}, {"mechanism": "laplace", "l1_sensitivity": 1, "scale": 2}]}"#,
    );
    let o = privpost(&["account", "--event", &g, "--delta", "1e-5", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("attack risk: not computed"),
        "{}",
        stderr(&o)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["attack"].is_null());
    for (flag, value, names) in [
        ("--fpr", "0", "fpr = 0"),
        ("--fpr", "0.5,1", "fpr = 1"),
        ("--prior", "1", "prior = 1"),
        ("--prior", "nan", "prior = NaN"),
    ] {
        let o = privpost(&["account", "--event", &f, "--delta", "1e-5", flag, value]);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: {}", stderr(&o));
        assert!(stderr(&o).contains(names), "{flag} {value}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{flag} {value}: printed an answer");
    }
}

/// `account --event E --target-tpr T --at-fpr F` (and `--target-advantage A`)
/// calibrates to an attack risk: the largest pure ε and μ-GDP meeting it (closed
/// forms), and the smallest factor on the event's noise that does — checked forward.
/// Targets no noise can reach, or that no noise is needed for, exit 2 naming the
/// option, with nothing on stdout.
#[test]
fn account_calibrates_to_a_target_attack_risk() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "gauss.json",
        r#"{"mechanism": "gaussian", "l2_sensitivity": 1, "sigma": 1}"#,
    );
    let o = privpost(&[
        "account",
        "--event",
        &f,
        "--target-tpr",
        "0.05",
        "--at-fpr",
        "0.01",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["question"], "calibrate");
    assert_eq!(v["target"]["kind"], "tpr");
    // ε = max(ln(T/F), ln((1 − F)/(1 − T))) = ln 5
    let eps = v["pure_epsilon"].as_f64().unwrap();
    assert!((eps - 5f64.ln()).abs() < 1e-12, "{v}");
    // μ = Φ⁻¹(0.99) − Φ⁻¹(0.95) = 2.326348 − 1.644854
    let mu = v["gdp_mu"].as_f64().unwrap();
    assert!((mu - 0.681494).abs() < 1e-6, "{v}");
    // the Gaussian mechanism meets it at σ = 1/μ: the factor is that, rounded up
    let c = v["noise_factor"].as_f64().unwrap();
    assert!(c >= 1.0 / mu && c <= 1.0011 / mu, "{v}");
    assert_eq!(v["calibrated_event"]["sigma"].as_f64().unwrap(), c);
    let tpr = v["attack"]["tpr_at_fpr"][1]["tpr"].as_f64().unwrap();
    assert!(tpr <= 0.05 && tpr > 0.0499, "{v}");
    let o = privpost(&["account", "--event", &f, "--target-advantage", "0.2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("calibrated to the advantage ≤ 0.2"),
        "{}",
        stdout(&o)
    );
    // an event whose noise cannot be scaled: the closed forms, and a warning
    let r = write(
        dir.path(),
        "rdp.json",
        r#"{"mechanism": "rdp_curve", "posterior": "p", "parameters": {}, "points": [[2, 0.1]]}"#,
    );
    let o = privpost(&[
        "account",
        "--event",
        &r,
        "--target-advantage",
        "0.2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot be scaled"), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["noise_factor"].is_null() && v["gdp_mu"].is_f64());
    for (args, names) in [
        (
            vec!["--target-tpr", "0.005", "--at-fpr", "0.01"],
            "target_tpr = 0.005",
        ),
        (
            vec!["--target-tpr", "1", "--at-fpr", "0.01"],
            "target_tpr = 1",
        ),
        (vec!["--target-tpr", "0.5", "--at-fpr", "0"], "at_fpr = 0"),
        (vec!["--target-advantage", "1"], "target_advantage = 1"),
        (vec!["--target-advantage", "nan"], "target_advantage = NaN"),
        (vec!["--target-tpr", "0.5"], "--at-fpr"),
        (
            vec!["--target-advantage", "0.1", "--target-epsilon", "1"],
            "one target at a time",
        ),
    ] {
        let mut all = vec!["account", "--event", f.as_str()];
        all.extend(args.iter().copied());
        let o = privpost(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(names), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

/// `account --event` on an event written as `name` in `dir`, at δ = 10⁻⁵: its JSON.
fn account_json(dir: &std::path::Path, name: &str, text: &str) -> serde_json::Value {
    let f = write(dir, name, text);
    let o = privpost(&["account", "--event", &f, "--delta", "1e-5", "--json"]);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The ε of `accountant` in an `account --json` answer, or the smallest of all (None).
fn epsilon_of(v: &serde_json::Value, accountant: Option<&str>) -> f64 {
    v["answers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| accountant.is_none_or(|n| a["accountant"] == n))
        .map(|a| a["epsilon"].as_f64().unwrap())
        .fold(f64::INFINITY, f64::min)
}

/// `account --event` on a bad event file: exit 2, stderr naming the file and
/// `key`, nothing on stdout.
fn refused(dir: &std::path::Path, text: &str, key: &str) -> String {
    let f = write(dir, "bad.json", text);
    let o = privpost(&["account", "--event", &f, "--delta", "1e-5"]);
    assert_eq!(o.status.code(), Some(2), "{text}: {}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("bad.json") && err.contains(key),
        "{text}: {err}"
    );
    assert!(o.stdout.is_empty());
    err
}

/// OpenDP #2933: releases that name one `sample` are accounted on that one sample
/// (one amplified Gaussian of 1/σ² = Σ 1/σᵢ²), never as independent samples; a
/// sample named with two rates exits 2 naming the key.
#[test]
fn releases_on_one_sample_are_accounted_together() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = epsilon_of(
        &account_json(
            d,
            "shared.json",
            r#"{"mechanism": "compose", "composition": "sequential", "parts": [
            {"mechanism": "poisson_subsampled_gaussian", "q": 0.01, "sigma": 1.0, "sample": "batch"},
            {"mechanism": "poisson_subsampled_gaussian", "q": 0.01, "sigma": 1.0, "sample": "batch"}]}"#,
        ),
        None,
    );
    let m = epsilon_of(
        &account_json(
            d,
            "merged.json",
            r#"{"mechanism": "poisson_subsampled_gaussian", "q": 0.01, "sigma": 0.7071067811865475}"#,
        ),
        None,
    );
    let i = epsilon_of(
        &account_json(
            d,
            "independent.json",
            r#"{"mechanism": "repeat", "times": 2, "event":
            {"mechanism": "poisson_subsampled_gaussian", "q": 0.01, "sigma": 1.0}}"#,
        ),
        None,
    );
    assert!((s - m).abs() <= 1e-9 * m, "shared {s} vs merged {m}");
    assert!(s > i, "one sample {s} must cost more than two samples {i}");
    let err = refused(
        d,
        r#"{"mechanism": "compose", "composition": "sequential", "parts": [
            {"mechanism": "poisson_subsampled_gaussian", "q": 0.01, "sigma": 1.0, "sample": "batch"},
            {"mechanism": "poisson_subsampled_gaussian", "q": 0.02, "sigma": 1.0, "sample": "batch"}]}"#,
        "sample",
    );
    assert!(err.contains("q = 0.01 and q = 0.02"), "{err}");
}

/// The sampler-faithful kinds through `account --event`: random allocation answers by
/// RDP at about the cost of Poisson sampling at rate k/t; a batch drawn with
/// replacement answers by its PLD only, never below the sensitivity-2 Poisson pair
/// (σ/2) that its K = 1 branch is; both carry an attack-risk curve; bad fields exit 2.
#[test]
fn random_allocation_and_with_replacement_events_are_accounted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let alloc = account_json(
        d,
        "alloc.json",
        r#"{"mechanism": "repeat", "times": 3, "event":
            {"mechanism": "random_allocation", "steps": 1000, "selected": 1, "sigma": 2.0}}"#,
    );
    let poisson = account_json(
        d,
        "poisson.json",
        r#"{"mechanism": "repeat", "times": 3000, "event":
            {"mechanism": "poisson_subsampled_gaussian", "q": 0.001, "sigma": 2.0}}"#,
    );
    let (a, p) = (
        epsilon_of(&alloc, Some("rdp_improved")),
        epsilon_of(&poisson, Some("rdp_improved")),
    );
    assert!(
        (a - p).abs() < 0.02 * p,
        "allocation {a} vs Poisson {p} by RDP"
    );
    assert!(alloc["attack"]["mu"].is_number(), "{alloc}");
    let wr = account_json(
        d,
        "wr.json",
        r#"{"mechanism": "repeat", "times": 1000, "event":
            {"mechanism": "sampled_with_replacement_gaussian", "batch": 100, "n_data": 10000, "sigma": 1.0}}"#,
    );
    assert!(
        wr["answers"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["accountant"] == "pld"),
        "{wr}"
    );
    let pz = account_json(
        d,
        "pz.json",
        r#"{"mechanism": "repeat", "times": 1000, "event":
            {"mechanism": "poisson_subsampled_gaussian", "q": 0.01, "sigma": 0.5}}"#,
    );
    let (w, z) = (epsilon_of(&wr, None), epsilon_of(&pz, Some("pld")));
    assert!(
        w >= z,
        "with replacement {w} below the σ/2 Poisson pair {z}"
    );
    assert!(wr["attack"]["mu"].is_number(), "{wr}");
    for (text, key) in [
        (
            r#"{"mechanism": "random_allocation", "steps": 10, "selected": 11, "sigma": 1.0}"#,
            "selected",
        ),
        (
            r#"{"mechanism": "random_allocation", "steps": 10, "selected": 1, "sigma": 0.0}"#,
            "sigma",
        ),
        (
            r#"{"mechanism": "sampled_with_replacement_gaussian", "batch": 0, "n_data": 10, "sigma": 1.0}"#,
            "batch",
        ),
        (
            r#"{"mechanism": "sampled_with_replacement_gaussian", "batch": 5, "n_data": 1, "sigma": 1.0}"#,
            "n_data",
        ),
    ] {
        refused(d, text, key);
    }
}
