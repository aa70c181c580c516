//! `privpost infer` end to end: a researcher's release file in, the posterior's
//! draws, summary, figure and manifest out; bad files refused with exit 2 naming
//! the file and the key, before any sampling and without touching earlier results.

mod common;

use common::{privpost_in, repo};
use std::path::Path;

fn infer(dir: &Path, args: &[&str]) -> std::process::Output {
    privpost_in(dir, &[&["infer"], args].concat(), &[])
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The documented example (docs/examples/release.toml) runs from another folder
/// and writes every file; draws are byte-identical for any --jobs.
#[test]
fn the_example_release_gives_draws_summary_figure_and_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let example = repo().join("docs/examples/release.toml");
    let small = tmp.path().join("small.toml");
    let t = std::fs::read_to_string(&example)
        .unwrap()
        .replace("warmup = 1000", "warmup = 200")
        .replace("draws = 2000", "draws = 500");
    std::fs::write(&small, t).unwrap();
    let out = tmp.path().join("out with space");
    let o = infer(
        tmp.path(),
        &[
            small.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--jobs",
            "1",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(
        stdout.contains("theta1") && stdout.contains("ESS bulk"),
        "{stdout}"
    );
    assert!(stdout.contains("record acceptance"), "{stdout}");
    let dir = out.join("infer/small");
    for f in [
        "draws.csv",
        "summary.csv",
        "figure.png",
        "figure.svg",
        "manifest.json",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let draws = std::fs::read_to_string(dir.join("draws.csv")).unwrap();
    let mut lines = draws.lines();
    assert_eq!(lines.next(), Some("chain,draw,theta1,theta2,theta3"));
    assert_eq!(lines.count(), 4 * 500);
    let summary = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    assert!(summary.starts_with("parameter,mean,sd,q05,q50,q95,rhat,ess_bulk,ess_tail\n"));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["privacy"]["added_cost"], "none");
    assert_eq!(manifest["release_file"]["release"]["values"][0], 12.7);
    let bound = manifest["record_acceptance_bound"].as_f64().unwrap();
    assert!((bound - (-1.0f64).exp()).abs() < 1e-12);
    assert!(manifest["record_acceptance"].as_f64().unwrap() >= bound);
    // the same draws with two workers
    let again = tmp.path().join("again");
    let o = infer(
        tmp.path(),
        &[
            small.to_str().unwrap(),
            "--out",
            again.to_str().unwrap(),
            "--jobs",
            "2",
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        std::fs::read(again.join("infer/small/draws.csv")).unwrap(),
        draws.as_bytes()
    );
}

#[test]
fn bad_release_files_exit_2_naming_file_and_key_and_leave_results_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(repo().join("docs/examples/release.toml"))
        .unwrap()
        .replace("warmup = 1000", "warmup = 20")
        .replace("draws = 2000", "draws = 30");
    let file = tmp.path().join("r.toml");
    std::fs::write(&file, &good).unwrap();
    let out = tmp.path().join("out");
    let o = infer(
        tmp.path(),
        &[file.to_str().unwrap(), "--out", out.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let before = std::fs::read(out.join("infer/r/draws.csv")).unwrap();
    let cases = [
        (
            good.replace("values = [12.7, 9.1, 8.4]", "values = [12.7, 9.1]"),
            "release.values",
        ),
        (good.replace("scale = 2.0", "scale = 0.0"), "release.scale"),
        (good.replace("scale = 2.0", "scale = inf"), "release.scale"),
        (
            good.replace("mechanism = \"laplace\"", "mechanism = \"cauchy\""),
            "release.mechanism",
        ),
        (
            good.replace("model = \"dirichlet_categorical\"", "model = \"poisson\""),
            "model",
        ),
        (good.replace("n = 30", "n = 0"), "n"),
        (good.replace("n = 30", "n = -3"), "n"),
        (
            good.replace("[12.7, 9.1, 8.4]", "[12.7, nan, 8.4]"),
            "release.values",
        ),
        (
            good.replace("[1.0, 1.0, 1.0]", "[1.0, 0.0, 1.0]"),
            "prior.alpha",
        ),
        (good.replace("draws = 30", "draws = 0"), "sampler.draws"),
        (
            good.replace("kernel = \"record_wise\"", "kernel = \"gibbs\""),
            "kernel",
        ),
        (format!("{good}\nextra = 1\n"), "extra"),
    ];
    for (body, key) in cases {
        std::fs::write(&file, &body).unwrap();
        let o = infer(
            tmp.path(),
            &[file.to_str().unwrap(), "--out", out.to_str().unwrap()],
        );
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{key}: {err}");
        assert!(err.contains("r.toml") && err.contains(key), "{key}: {err}");
        assert!(
            !err.contains("infer: 4 chains"),
            "{key}: sampling started: {err}"
        );
    }
    for path in ["/dev/zero", tmp.path().to_str().unwrap(), "missing.toml"] {
        let o = infer(tmp.path(), &[path, "--out", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{path}: {}", text(&o.stderr));
    }
    assert_eq!(
        std::fs::read(out.join("infer/r/draws.csv")).unwrap(),
        before
    );
}

/// A release whose statistic no proposal may change ends with the numbers, not
/// a silent posterior.
#[test]
fn a_release_that_pins_the_statistic_fails_with_the_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("pinned.toml");
    std::fs::write(
        &file,
        "model = \"beta_bernoulli\"\nprior = { alpha = [1.0, 1.0] }\nn = 10\n[release]\nmechanism = \"laplace\"\nscale = 0.001\nvalues = [5.0, 5.0]\n[sampler]\nwarmup = 50\ndraws = 100\n",
    )
    .unwrap();
    let o = infer(tmp.path(), &[file.to_str().unwrap(), "--out", "out"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot mix") && err.contains("pinned.toml"),
        "{err}"
    );
    assert!(!tmp.path().join("out/infer/pinned").exists());
}

/// A figure that records its releases (ju2022/loglinear) hands one to `infer`
/// from its folder or its manifest.json with --release NAME; the posterior is
/// written under `<out>/infer/<folder>-<name>`; a missing or unknown name, a
/// manifest without releases and --release beside a TOML file are refused with
/// exit 2, naming what is wrong.
#[test]
fn a_release_recorded_in_a_manifest_is_inferred() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("runs");
    let o = common::smoke_within(
        120,
        "ju2022/loglinear",
        out.to_str().unwrap(),
        &["repeats=1", "epsilons=[1.0, 3.0]", "runs=[\"record_wise\"]"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let folder = common::point_dir(&out, "ju2022/loglinear");
    let m = common::manifest(&folder.join("manifest.json"));
    let releases = m["details"]["releases"].as_array().unwrap();
    assert_eq!(releases.len(), 2);
    assert_eq!(releases[0]["name"], "epsilon=1/repeat=0");
    // 5 features × 5 classes × 3 answers, Laplace scale 2K/ε = 10
    assert_eq!(
        releases[0]["spec"]["release"]["values"]
            .as_array()
            .unwrap()
            .len(),
        75
    );
    assert_eq!(releases[0]["spec"]["release"]["scale"], 10.0);
    let res = tmp.path().join("res");
    let o = infer(
        tmp.path(),
        &[
            folder.to_str().unwrap(),
            "--release",
            "epsilon=3/repeat=0",
            "--out",
            res.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    // the figure folder's name and the release's, reduced to letters, digits, - and _
    // (at most 64 of them) and, as characters were reduced, 12 hex digits of a hash
    let dirs: Vec<std::path::PathBuf> = std::fs::read_dir(res.join("infer"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    let dir = &dirs[0];
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let (kept, hash) = name.rsplit_once('-').unwrap();
    assert!(
        name.starts_with("loglinear_smoke")
            && kept.chars().count() <= 64
            && hash.len() == 12
            && hash.chars().all(|c| c.is_ascii_hexdigit()),
        "{name}"
    );
    assert!(dir.join("draws.csv").is_file(), "{}", dir.display());
    let written = common::manifest(&dir.join("manifest.json"));
    assert_eq!(written["release_file"], releases[1]["spec"]);
    assert!(text(&o.stdout).contains("p4"));

    let manifest = folder.join("manifest.json");
    let o = infer(tmp.path(), &[manifest.to_str().unwrap()]);
    common::refused(&o, "--release: missing — 2 releases are recorded");
    let o = infer(
        tmp.path(),
        &[
            manifest.to_str().unwrap(),
            "--release",
            "epsilon=2/repeat=0",
        ],
    );
    common::refused(&o, "epsilon=1/repeat=0, epsilon=3/repeat=0");
    // a figure's manifest (written by e1b8e2a) that records no release
    let other = repo().join("tests/reference/manifests/e1b8e2a-foulds2016-fig2.json");
    let o = infer(tmp.path(), &[other.to_str().unwrap()]);
    common::refused(
        &o,
        "details.releases: missing — foulds2016/fig2 records no release",
    );
    // a JSON file that is not a figure's manifest
    let partial = tmp.path().join("partial.json");
    std::fs::write(&partial, r#"{"figure": "foulds2016/fig1", "details": {}}"#).unwrap();
    let o = infer(tmp.path(), &[partial.to_str().unwrap()]);
    common::refused(
        &o,
        "partial.json: not a figure manifest this privpost reads: missing field",
    );
    let toml = repo().join("docs/examples/release.toml");
    let o = infer(tmp.path(), &[toml.to_str().unwrap(), "--release", "x"]);
    common::refused(&o, "--release x: only with a figure's manifest");
    assert!(!tmp.path().join("results").exists());
}
