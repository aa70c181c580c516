//! The three noise modes through the binary: `exact` is
//! byte-reproducible for any `--jobs` and records its mode in the ledger and
//! manifest; `secure` is not reproducible and never cached; bad values and
//! figures with nothing additive are refused with exit 2 naming `noise`.

mod common;

use std::path::Path;

use common::{privpost, stderr};

fn run(out: &Path, args: &[&str]) -> std::process::Output {
    let mut a = vec!["run", "--out", out.to_str().unwrap(), "-q"];
    a.extend_from_slice(args);
    privpost(&a)
}

fn ok(o: &std::process::Output) {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
}

fn refused(o: &std::process::Output, needle: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("key `noise`") || e.contains(needle), "{e}");
    assert!(e.contains(needle), "{needle:?} not in: {e}");
    assert!(!e.contains("panicked"), "{e}");
}

fn read(dir: &Path, figure: &str, file: &str) -> Vec<u8> {
    std::fs::read(dir.join(figure).join(file)).unwrap()
}

fn manifest(dir: &Path, figure: &str) -> serde_json::Value {
    serde_json::from_slice(&read(dir, figure, "manifest.json")).unwrap()
}

/// Every additive figure runs in the exact mode, with the same CSVs at 1 and 2
/// jobs, and its ledger labels the additive entries `exact` and the posterior
/// draws `float-only`.
#[test]
fn exact_mode_is_byte_reproducible_and_labelled() {
    let figures = [
        "foulds2016/fig1",
        "foulds2016/fig2",
        "foulds2016/fig6",
        "bun2018/fig2",
        "bun2018/fig3",
        "geumlek2017/fig2",
    ];
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for (dir, jobs) in [(&a, "1"), (&b, "2")] {
        let mut args = figures.to_vec();
        args.extend(["--smoke", "--set", "noise=exact", "-j", jobs]);
        ok(&run(dir.path(), &args));
    }
    for figure in figures {
        // a --set that changes a value runs into `<figure>@key=value`
        let point = format!("{figure}@smoke,noise=exact");
        let f = point.as_str();
        for file in ["data.csv", "summary.csv"] {
            assert!(
                read(a.path(), f, file) == read(b.path(), f, file),
                "{f}/{file} differs between --jobs 1 and 2"
            );
        }
        let m = manifest(a.path(), f);
        assert_eq!(m["noise"]["mode"], "exact", "{f}");
        assert_eq!(m["noise"]["reproducible"], true);
        let labels: Vec<&str> = m["privacy"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["noise"].as_str().unwrap())
            .collect();
        assert!(labels.contains(&"exact"), "{f}: {labels:?}");
        assert!(
            labels
                .iter()
                .all(|l| ["exact", "float-only", "none"].contains(l)),
            "{f}: {labels:?}"
        );
        let params = String::from_utf8(read(a.path(), f, "parameters.csv")).unwrap_or_default();
        assert!(params.contains("exact (CKS20"), "{f}: {params}");
    }
    // the exact releases are integers: Foulds Fig. 1's noisy counts
    let data = String::from_utf8(read(
        a.path(),
        "foulds2016/fig1@smoke,noise=exact",
        "data.csv",
    ))
    .unwrap();
    let laplace: Vec<&str> = data.lines().filter(|l| l.starts_with("laplace,")).collect();
    assert!(!laplace.is_empty());
    for l in laplace {
        let cols: Vec<&str> = l.split(',').collect();
        for c in &cols[7..9] {
            let v: f64 = c.parse().unwrap();
            assert_eq!(v.fract(), 0.0, "{l}");
        }
    }
}

/// `noise = "float"` spelled out is the default: same run key, same CSVs,
/// no parameters line, ledger entries labelled `float`.
#[test]
fn float_spelled_out_is_the_default() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    ok(&run(a.path(), &["foulds2016/fig2", "--smoke"]));
    ok(&run(
        b.path(),
        &["foulds2016/fig2", "--smoke", "--set", "noise=float"],
    ));
    let f = "foulds2016/fig2@smoke";
    assert!(read(a.path(), f, "data.csv") == read(b.path(), f, "data.csv"));
    let (ma, mb) = (manifest(a.path(), f), manifest(b.path(), f));
    assert_eq!(ma["cache"]["run_key"], mb["cache"]["run_key"]);
    assert_eq!(ma["noise"]["mode"], "float");
    let laplace = ma["privacy"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["series"] == "mechanism=laplace")
        .unwrap();
    assert_eq!(laplace["noise"], "float");
    assert_eq!(laplace["event"]["mechanism"], "laplace");
    let ops = ma["privacy"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["series"] == "mechanism=ops")
        .unwrap();
    assert_eq!(ops["noise"], "float-only");
}

/// Two secure runs of the same config and seed differ, nothing is cached, and
/// the manifest says the run is not reproducible.
#[test]
fn secure_mode_is_fresh_every_run() {
    let out = tempfile::tempdir().unwrap();
    let f = "foulds2016/fig2";
    let point = "foulds2016/fig2@smoke,noise=secure";
    ok(&run(out.path(), &[f, "--smoke", "--set", "noise=secure"]));
    let first = read(out.path(), point, "data.csv");
    ok(&run(out.path(), &[f, "--smoke", "--set", "noise=secure"]));
    assert!(
        first != read(out.path(), point, "data.csv"),
        "the same noise twice"
    );
    let m = manifest(out.path(), point);
    assert_eq!(m["noise"]["mode"], "secure");
    assert_eq!(m["noise"]["reproducible"], false);
    assert_eq!(m["cache"]["tasks_from_cache"], 0);
}

#[test]
fn bad_noise_values_and_float_only_figures_are_refused() {
    let out = tempfile::tempdir().unwrap();
    let p = out.path();
    refused(
        &run(p, &["foulds2016/fig2", "--smoke", "--set", "noise=fast"]),
        "unknown noise mode \"fast\"",
    );
    refused(
        &run(p, &["foulds2016/fig2", "--smoke", "--set", "noise=exakt"]),
        "did you mean `exact`?",
    );
    refused(
        &run(p, &["foulds2016/fig2", "--smoke", "--set", "noise=1"]),
        "expected a string",
    );
    // nothing additive: the figure's mechanisms are float-only
    for f in ["heikkila2019/fig1", "geumlek2017/fig1", "minami2016/logreg"] {
        refused(
            &run(p, &[f, "--smoke", "--set", "noise=exact"]),
            "float-only",
        );
    }
    // an HMM run whose mechanism is OPS has nothing for exact noise to apply to
    refused(
        &run(p, &["foulds2016/fig7", "--smoke", "--set", "noise=exact"]),
        "applies only to the Laplace mechanism",
    );
    // Bun's floor rounding has nothing to round in the exact mode
    refused(
        &run(
            p,
            &[
                "bun2018/fig2",
                "--smoke",
                "--set",
                "noise=exact",
                "--set",
                "laplace_rounding=floor",
            ],
        ),
        "nothing to round",
    );
    // a scale the rational arithmetic cannot hold
    refused(
        &run(
            p,
            &[
                "foulds2016/fig2",
                "--smoke",
                "--set",
                "noise=exact",
                "--set",
                "epsilon=1e-12",
            ],
        ),
        "key `epsilon`",
    );
    // secure noise cannot be sharded (shards meet in the cache)
    refused(
        &run(
            p,
            &[
                "foulds2016/fig2",
                "--smoke",
                "--set",
                "noise=secure",
                "--shard",
                "1/2",
            ],
        ),
        "cannot be used with --shard",
    );
    assert!(
        std::fs::read_dir(p).unwrap().next().is_none(),
        "a refusal wrote"
    );
}

/// The float-attack audit fails the float Laplace (outputs that identify the
/// input: ε = ∞) and passes the exact mode; the discrete Laplace's exact audit
/// gives ratio 1.000.
#[test]
fn the_float_attack_audit_fails_float_and_passes_exact() {
    let out = tempfile::tempdir().unwrap();
    let o = privpost(&[
        "audit",
        "float_attack",
        "laplace_counts_discrete",
        "--smoke",
        "--out",
        out.path().to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // a subset runs into its own folder, with a set.audits column first
    let summary = out
        .path()
        .join("audit/mechanisms@smoke,audits=[float_attack,laplace_counts_discrete]/summary.csv");
    let h = common::header(&summary);
    let rows = common::rows(&summary);
    let at = |name: &str| h.iter().position(|c| c == name).unwrap();
    let row = |audit: &str, variant: &str| -> Vec<String> {
        let r = rows
            .iter()
            .find(|r| r[at("audit")] == audit && r[at("variant")] == variant)
            .unwrap_or_else(|| panic!("no {audit} {variant} in {rows:?}"));
        // the columns after set.audits, as in the full audit's summary
        r[1..].to_vec()
    };
    assert_eq!(h[0], "set.audits");
    let float = row("float_attack", "float");
    assert_eq!(float[4], "FAIL");
    assert_eq!(float[12], "inf", "audited ε of the float Laplace");
    let exact = row("float_attack", "real");
    assert_eq!(exact[4], "PASS");
    let discrete = row("laplace_counts_discrete", "real");
    assert_eq!(discrete[4], "PASS");
    let ratio: f64 = discrete[16].parse().unwrap();
    assert!((ratio - 1.0).abs() < 1e-9, "ratio {ratio}");
    assert_eq!(row("laplace_counts_discrete", "half_scale")[4], "FAIL");
}
