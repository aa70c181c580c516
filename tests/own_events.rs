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

#[test]
fn bad_event_files_exit_2_naming_the_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    for (text, wants) in [
        (
            r#"{"mechanism": "gaussian", "l2_sensitivity": 1.0, "sigma": 0.0, "rdp_scale": 0.5}"#,
            vec!["sigma = 0", "must be finite and > 0"],
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
}

/// `account --manifest` re-verifies a real run's ledger and composes it.
#[test]
fn a_manifest_ledger_is_reverified_and_composed() {
    let out = tempfile::tempdir().unwrap();
    let o = privpost(&[
        "run",
        "foulds2016/fig2",
        "--smoke",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = out.path().join("foulds2016/fig2/manifest.json");
    let o = privpost(&["account", "--manifest", m.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let entries = v["entries"].as_array().unwrap();
    assert!(!entries.is_empty());
    assert!(entries.iter().all(|e| e["holds"] == true), "{v}");
    let sum: f64 = entries
        .iter()
        .filter_map(|e| e["claim_epsilon"].as_f64())
        .filter(|e| e.is_finite())
        .sum();
    assert!((v["composed"]["epsilon"].as_f64().unwrap() - sum).abs() < 1e-12);
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
    let dir = out.path().join("audit/mechanisms");
    let t = rows(&dir.join("summary.csv"));
    let h = header(&dir.join("summary.csv"));
    let c = |n: &str| h.iter().position(|x| x == n).unwrap();
    let mut checked = 0;
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
        checked += 1;
    }
    assert!(checked >= 10, "{checked} score files");
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
