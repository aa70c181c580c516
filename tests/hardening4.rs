//! Hardening, round 4, through the binary: the sample audit tests both
//! orders of the pair and both orientations of a score; `show`, the cache, configs
//! on disk and `infer` read only regular files and refuse what they cannot use
//! before any long work; `infer` never replaces another input's posterior. One test
//! per class of failure; the seeded generators of the same surfaces are in
//! tests/fuzz.rs.

mod common;

use std::path::Path;

use common::{privpost_within_in, refused, stderr, stdout};

/// Puts a special file at a path.
type MakeFile = dyn Fn(&Path);

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
}

/// Laplace noise draws of a count (inverse CDF of seeded uniforms).
fn laplace_counts(seed: u64, count: f64, b: f64, n: usize) -> Vec<f64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let u = ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64 - 0.5;
            count - b * u.signum() * (1.0 - 2.0 * u.abs()).ln()
        })
        .collect()
}

fn scores_csv(path: &Path, on_d: &[f64], on_d2: &[f64]) {
    let mut text = String::from("label,score\n");
    for v in on_d {
        text.push_str(&format!("1,{v}\n"));
    }
    for v in on_d2 {
        text.push_str(&format!("0,{v}\n"));
    }
    std::fs::write(path, text).unwrap();
}

/// The noisy count as the score, D = 10 and D′ = 11 (b = 1: the truth is ε = 1):
/// the score runs high on D′. Its audit fails ε = 0.01 (it passed with audited
/// ε = 0), names the order and event it came from, and passes ε = 1; reversing
/// every score of the audit's own half-scale Laplace file keeps its FAIL.
#[test]
fn a_score_that_runs_high_on_d_prime_is_audited() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("counts.csv");
    scores_csv(
        &f,
        &laplace_counts(1, 10.0, 1.0, 3000),
        &laplace_counts(2, 11.0, 1.0, 3000),
    );
    let audit = |file: &Path, claim: &str| {
        privpost_within_in(
            tmp.path(),
            120,
            &[
                "audit",
                "--samples",
                file.to_str().unwrap(),
                "--claim",
                claim,
                "--json",
            ],
        )
    };
    let o = audit(&f, "epsilon=0.01");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "FAIL");
    let eps = v["audited_epsilon"].as_f64().unwrap();
    assert!(eps > 0.5 && eps <= 1.0, "{v}");
    let dir = v["direction"].as_str().unwrap();
    assert!(
        dir.starts_with("D ‖ D′, scores ≤") || dir.starts_with("D′ ‖ D, scores ≥"),
        "{dir}"
    );
    assert!(v["method"].as_str().unwrap().contains("Bonferroni"), "{v}");
    let o = audit(&f, "epsilon=1");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // the built-in half-scale Laplace scores, reversed
    let out = tmp.path().join("out");
    let o = privpost_within_in(
        tmp.path(),
        300,
        &["audit", "--smoke", "-q", "--out", out.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let half = out.join("audit/mechanisms@smoke/scores-laplace_counts-statistical-half_scale.csv");
    let reversed = tmp.path().join("reversed.csv");
    let text = std::fs::read_to_string(&half).unwrap();
    let mut rev = String::from("label,score\n");
    for line in text.lines().skip(1) {
        let (label, score) = line.split_once(',').unwrap();
        rev.push_str(&format!("{label},{}\n", -score.parse::<f64>().unwrap()));
    }
    std::fs::write(&reversed, rev).unwrap();
    for file in [&half, &reversed] {
        let o = audit(file, "epsilon=1");
        assert_eq!(
            o.status.code(),
            Some(1),
            "{}: {}",
            file.display(),
            stderr(&o)
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(v["audited_epsilon"].as_f64().unwrap() > 1.5, "{v}");
    }
}

/// A Gaussian event without `rdp_scale` takes the mechanism's own ½ (as other
/// accountants do); one without `sigma` names `sigma`, and the message points to
/// the docs that hold the vocabulary.
#[test]
fn a_gaussian_event_defaults_its_factor_and_names_a_missing_key() {
    let tmp = tempfile::tempdir().unwrap();
    let event = |name: &str, text: &str| {
        let p = tmp.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let with = event(
        "with.json",
        r#"{"mechanism": "gaussian", "l2_sensitivity": 1, "sigma": 2, "rdp_scale": 0.5}"#,
    );
    let without = event(
        "without.json",
        r#"{"mechanism": "gaussian", "l2_sensitivity": 1, "sigma": 2}"#,
    );
    let account = |p: &Path| {
        privpost_within_in(
            tmp.path(),
            60,
            &[
                "account",
                "--event",
                p.to_str().unwrap(),
                "--delta",
                "1e-5",
                "--json",
            ],
        )
    };
    let (a, b) = (account(&with), account(&without));
    assert!(a.status.success() && b.status.success(), "{}", stderr(&b));
    assert_eq!(stdout(&a), stdout(&b));
    let no_sigma = event(
        "no_sigma.json",
        r#"{"schema": "privpost-event/1", "event": {"mechanism": "gaussian", "l2_sensitivity": 1}}"#,
    );
    let o = account(&no_sigma);
    refused(&o, "key `event.sigma`: missing");
    assert!(
        stderr(&o).contains("docs/bring-your-own.md"),
        "{}",
        stderr(&o)
    );
}

/// `show`: a row computed from no release shows no claim (ju2022/loglinear's
/// non-private rows once showed the release's ε); no cell reaches the terminal with
/// a control sequence, in any format; a summary.csv that is a pipe or a link to
/// /dev/zero is refused at once; a wrong folder is answered with the folders there.
#[test]
fn show_claims_only_released_rows_and_prints_no_control_sequences() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("results");
    let o = privpost_within_in(
        tmp.path(),
        300,
        &[
            "run",
            "ju2022/loglinear",
            "--smoke",
            "-q",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let fig = out.join("ju2022/loglinear@smoke");
    let o = privpost_within_in(
        tmp.path(),
        60,
        &["show", fig.to_str().unwrap(), "--format", "json"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let mut seen = (0, 0);
    for r in rows {
        let claim = r["privacy"].as_str().unwrap();
        if r["run"] == "non_private" {
            assert!(!claim.contains('ε'), "a non-private row claims {claim}");
            seen.0 += 1;
        } else {
            assert!(claim.starts_with("ε = "), "{r}");
            seen.1 += 1;
        }
    }
    assert!(seen.0 > 0 && seen.1 > 0, "{seen:?}");

    // a cell, a header and the figure's name with ESC, CSI, BEL and a bidi override
    let summary = fig.join("summary.csv");
    let text = std::fs::read_to_string(&summary).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[0] = lines[0].replacen("run", "r\u{1b}]0;owned\u{7}un", 1);
    lines[1] = lines[1].replacen("non_private", "\u{1b}[2J\u{9b}31m\u{202e}evil", 1);
    std::fs::write(&summary, lines.join("\n") + "\n").unwrap();
    for format in ["table", "csv", "json", "markdown"] {
        let o = privpost_within_in(
            tmp.path(),
            60,
            &["show", fig.to_str().unwrap(), "--format", format],
        );
        assert!(o.status.success(), "{format}: {}", stderr(&o));
        let s = stdout(&o);
        let bad: Vec<char> = s
            .chars()
            .filter(|&c| {
                (c.is_control() && c != '\n')
                    || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
            })
            .collect();
        assert!(bad.is_empty(), "{format}: {bad:?} in {s}");
        assert!(s.contains("\\x1b[2J"), "{format}: the escape is shown: {s}");
    }

    // special files where the table should be
    for (name, make) in [
        ("fifo", &(|p: &Path| mkfifo(p)) as &dyn Fn(&Path)),
        ("zero", &|p: &Path| {
            std::os::unix::fs::symlink("/dev/zero", p).unwrap()
        }),
    ] {
        std::fs::remove_file(&summary).unwrap();
        make(&summary);
        let o = privpost_within_in(tmp.path(), 30, &["show", fig.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains("summary.csv"), "{name}: {}", stderr(&o));
    }

    let o = privpost_within_in(tmp.path(), 30, &["show", "results/ju2022/loglinear"]);
    refused(&o, "did you mean");
    assert!(stderr(&o).contains("loglinear@smoke"), "{}", stderr(&o));
}

/// A config on disk that cannot be read is an error naming it, never a silent
/// switch to the built-in config: a dangling link, a folder and a pipe at
/// `configs/<paper>/<figure>.toml`.
#[test]
fn an_unreadable_config_on_disk_is_refused_not_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let paper = tmp.path().join("configs/foulds2016");
    std::fs::create_dir_all(&paper).unwrap();
    let cfg = paper.join("fig2.toml");
    let cases: [(&str, &MakeFile); 3] = [
        ("dangling link", &|p: &Path| {
            std::os::unix::fs::symlink("/nonexistent/fig2.toml", p).unwrap()
        }),
        ("folder", &|p: &Path| std::fs::create_dir(p).unwrap()),
        ("pipe", &|p: &Path| mkfifo(p)),
    ];
    for (what, make) in cases {
        make(&cfg);
        for args in [
            &["run", "foulds2016/fig2", "--smoke", "-q"][..],
            &["check", "foulds2016/fig2", "--smoke"],
        ] {
            let verb = args[0];
            let o = privpost_within_in(tmp.path(), 60, args);
            assert_eq!(o.status.code(), Some(2), "{what} ({verb}): {}", stderr(&o));
            assert!(
                stderr(&o).contains("configs/foulds2016/fig2.toml"),
                "{what}: {}",
                stderr(&o)
            );
        }
        assert!(!tmp.path().join("results").exists(), "{what}: ran anyway");
        if cfg.is_dir() {
            std::fs::remove_dir(&cfg).unwrap();
        } else {
            std::fs::remove_file(&cfg).unwrap();
        }
    }
}

/// The cache reads only regular files of bounded size: a pack whose frame claims
/// 2⁶⁴ − 6 bytes (which panicked every later run and `cache status`), a pack that is
/// a link to /dev/zero and one that is a pipe are reported as damaged, and the run
/// recomputes its tasks.
#[test]
fn special_cache_files_are_damage_not_panics_or_hangs() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    let run = || {
        privpost_within_in(
            tmp.path(),
            120,
            &[
                "run",
                "foulds2016/fig2",
                "--smoke",
                "-q",
                "--out",
                out.to_str().unwrap(),
            ],
        )
    };
    assert!(run().status.success());
    let cache = out.join(".privpost-cache");
    let run_dir = std::fs::read_dir(&cache)
        .unwrap()
        .flatten()
        .find(|e| e.path().is_dir())
        .expect("a cached run")
        .path();
    let key = run_dir.file_name().unwrap().to_string_lossy().into_owned();
    let pack = std::fs::read_dir(&run_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "pack"))
        .expect("a pack");
    let head = std::fs::read_to_string(&pack).unwrap();
    let first = head.lines().next().unwrap().to_string();
    assert!(first.ends_with(&key), "{first}");
    std::fs::write(
        &pack,
        format!("{first}\nframe 18446744073709551610 0123456789abcdef\nxyz"),
    )
    .unwrap();
    std::os::unix::fs::symlink("/dev/zero", run_dir.join("zero.pack")).unwrap();
    mkfifo(&run_dir.join("fifo.pack"));
    let o = privpost_within_in(
        tmp.path(),
        60,
        &["cache", "status", "--out", out.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"));
}

fn release(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const SMALL: &str = "model = \"dirichlet_categorical\"\nprior = { alpha = [1.0, 1.0, 1.0] }\nn = 30\n[release]\nmechanism = \"laplace\"\nscale = 2.0\nvalues = [12.7, 9.1, 8.4]\n[sampler]\nwarmup = 50\ndraws = 50\nchains = 2\n";

fn infer(dir: &Path, file: &Path, out: &Path) -> std::process::Output {
    privpost_within_in(
        dir,
        120,
        &[
            "infer",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    )
}

/// Output names are injective: `a.b.toml` and `a_b.toml`, `é.toml` and
/// `release.toml` get folders of their own; `release.toml` from another folder
/// does not replace the first one's posterior (exit 2, naming both, before
/// sampling); rerunning the same file replaces its own; a 300-character name works.
#[test]
fn infer_never_replaces_another_inputs_posterior() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut folders = std::collections::BTreeSet::new();
    for name in ["a.b.toml", "a_b.toml", "é.toml", "release.toml"] {
        let f = release(tmp.path(), name, SMALL);
        let o = infer(tmp.path(), &f, &out);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let written = stderr(&o);
        let folder = written
            .lines()
            .find_map(|l| l.strip_prefix("wrote "))
            .unwrap_or_else(|| panic!("{name}: {written}"))
            .to_string();
        assert!(folders.insert(folder), "{name} shares a folder");
    }
    assert!(out.join("infer/a_b").is_dir() && out.join("infer/release").is_dir());
    // the same stem from another folder
    let other = tmp.path().join("elsewhere");
    std::fs::create_dir(&other).unwrap();
    let f = release(&other, "release.toml", SMALL);
    let before = std::fs::read(out.join("infer/release/draws.csv")).unwrap();
    let o = infer(tmp.path(), &f, &out);
    refused(&o, "holds the posterior of");
    assert!(
        stderr(&o).contains("elsewhere/release.toml"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        before,
        std::fs::read(out.join("infer/release/draws.csv")).unwrap()
    );
    // the same file again: its own folder, replaced
    let o = infer(tmp.path(), &tmp.path().join("release.toml"), &out);
    assert!(o.status.success(), "{}", stderr(&o));
    // a 300-character name
    let long = format!("{}.toml", "x".repeat(250));
    let f = release(tmp.path(), &long, SMALL);
    let o = infer(tmp.path(), &f, &out);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// `infer` checks everything before sampling: each bad release is exit 2 naming its
/// key; a Laplace release beyond every count warns (and says so in the manifest);
/// 3,500 categories draw a figure of 24 panels (3,500 once made a 4 GB bitmap).
#[test]
fn infer_refuses_before_sampling_and_warns_of_an_uninformative_release() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let regression = |tau: &str, bounds: &str, mech: &str| {
        format!(
            "model = \"linear_regression\"\nprior = {{ tau = {tau} }}\nn = 20\n[regression]\nmean = [0.5]\ncov = [[1.0]]\nnoise_variance = 0.5\nx_bounds = {bounds}\ny_bounds = [-4.0, 4.0]\n[release]\nmechanism = \"{mech}\"\nscale = 2.0\nvalues = [1.0, 2.0, 3.0, 20.0, 1.0, 20.0]\n[sampler]\nwarmup = 20\ndraws = 20\n"
        )
    };
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "tau",
            regression("1e-300", "[-3.0, 3.0]", "laplace"),
            "prior.tau",
        ),
        (
            "bounds",
            regression("1.0", "[-3.0, 3.0, 5.0]", "laplace"),
            "regression.x_bounds",
        ),
        (
            "discrete regression",
            regression("1.0", "[-3.0, 3.0]", "discrete_laplace"),
            "release.mechanism",
        ),
        (
            "fractional clamp",
            SMALL
                .replace(
                    "mechanism = \"laplace\"",
                    "mechanism = \"discrete_laplace\"",
                )
                .replace(
                    "values = [12.7, 9.1, 8.4]",
                    "values = [13, 9, 8]\nclamp = { lower = 0.5 }",
                ),
            "release.clamp.lower",
        ),
        (
            "tiny scale",
            SMALL
                .replace("scale = 2.0", "scale = 1e-308")
                .replace("values = [12.7, 9.1, 8.4]", "values = [1e10, 9.1, 8.4]"),
            "release.scale",
        ),
        (
            "gaussian far out",
            SMALL
                .replace("mechanism = \"laplace\"", "mechanism = \"gaussian\"")
                .replace("scale = 2.0", "scale = 1.0")
                .replace("values = [12.7, 9.1, 8.4]", "values = [10000.0, 9.1, 8.4]"),
            "release.values",
        ),
    ];
    for (what, text, key) in cases {
        let f = release(tmp.path(), "bad.toml", &text);
        let o = infer(tmp.path(), &f, &out);
        refused(&o, key);
        assert!(
            !stderr(&o).contains("chains ×"),
            "{what}: sampling started: {}",
            stderr(&o)
        );
    }
    // every value above n on Laplace counts: the prior, said as a warning
    let f = release(
        tmp.path(),
        "beyond.toml",
        &SMALL.replace(
            "values = [12.7, 9.1, 8.4]",
            "values = [500.0, 400.0, 300.0]",
        ),
    );
    let o = infer(tmp.path(), &f, &out);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the posterior is the prior"),
        "{}",
        stderr(&o)
    );
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("infer/beyond/manifest.json")).unwrap(),
    )
    .unwrap();
    assert!(
        m["warnings"][0]
            .as_str()
            .unwrap()
            .contains("the posterior is the prior"),
        "{m}"
    );
    // 3,500 categories: the figure draws 24 panels, not 3,500
    let alpha = vec!["1.0"; 3500].join(", ");
    let values = vec!["0.0"; 3500].join(", ");
    let f = release(
        tmp.path(),
        "wide.toml",
        &format!("model = \"dirichlet_categorical\"\nprior = {{ alpha = [{alpha}] }}\nn = 10\n[release]\nmechanism = \"laplace\"\nscale = 2.0\nvalues = [{values}]\n[sampler]\nwarmup = 2\ndraws = 2\nchains = 2\n"),
    );
    let o = infer(tmp.path(), &f, &out);
    assert!(o.status.success(), "{}", stderr(&o));
    let png = std::fs::read(out.join("infer/wide/figure.png")).unwrap();
    let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert!(height < 24 * 400 + 400, "{height} px tall");
}

/// Work caps that tell the truth: a regression of 10⁶ records (4 chains × 3000
/// iterations at about 380 ns a proposal: about 1.3 core-hours) is refused before
/// sampling with its estimate, and SOMA on 10⁵ continuous records (every record its
/// own group) is refused even with --allow-long.
#[test]
fn infer_refuses_work_above_its_cap_with_the_estimate() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let regression = |n: u64, kernel: &str| {
        format!(
            "model = \"linear_regression\"\nprior = {{ tau = 1.0 }}\nn = {n}\n[regression]\nmean = [0.5, -0.2]\ncov = [[1.0, 0.3], [0.3, 1.0]]\nnoise_variance = 0.5\nx_bounds = [-3.0, 3.0]\ny_bounds = [-4.0, 4.0]\n[release]\nmechanism = \"laplace\"\nscale = 2.0\nvalues = [10.2, 4.1, -3.3, 20.5, 100.0, 3.1, 30.4, -2.2, 1.0, 28.7]\n[sampler]\nkernel = \"{kernel}\"\nwarmup = 1000\ndraws = 2000\n"
        )
    };
    let f = release(
        tmp.path(),
        "big.toml",
        &regression(1_000_000, "record_wise"),
    );
    let o = infer(tmp.path(), &f, &out);
    refused(
        &o,
        "sampler: chains × (warmup + draws) × n = 1.200e10 record proposals",
    );
    assert!(stderr(&o).contains("--allow-long"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("chains × (1000"), "sampling started");
    let f = release(tmp.path(), "soma.toml", &regression(100_000, "soma"));
    let o = privpost_within_in(
        tmp.path(),
        60,
        &[
            "infer",
            f.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--allow-long",
        ],
    );
    refused(&o, "SOMA offers");
    assert!(
        stderr(&o).contains("at most 720 h 00 min"),
        "{}",
        stderr(&o)
    );
}
