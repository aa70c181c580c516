//! Bad input never crashes, hangs or writes a NaN: the fuzz
//! findings, each refused with exit 2 and a message naming the key, or run
//! cleanly where the value is legitimate.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{privpost, refused, repo, stderr, stdout};

fn run(out: &Path, args: &[&str]) -> std::process::Output {
    let mut a = vec!["run", "--out", out.to_str().unwrap(), "-q"];
    a.extend_from_slice(args);
    privpost(&a)
}

#[test]
fn huge_counts_nan_and_overflowing_values_are_refused() {
    let out = tempfile::tempdir().unwrap();
    for (cfg, set, key) in [
        // wrapped the task count to 4 (exit 0, runs = 0, se NaN)
        (
            "foulds2016/fig2",
            "repeats=3689348814741910324",
            "key `repeats`",
        ),
        (
            "foulds2016/fig2",
            "repeats=1000000000000",
            "integers up to 10000000",
        ),
        // reached unreachable!() through a NaN s²
        ("heikkila2019/fig2", "n0=1e308", "key `n0`: N₀ = 1e308"),
        // a NaN guard let a run attempt ~1.6e19 steps
        (
            "minami2016/logreg",
            "langevin_max_iterations=nan",
            "finite numbers",
        ),
        (
            "heikkila2019/fig2",
            "proposal_variance=inf",
            "key `proposal_variance`",
        ),
        ("bun2018/fig2", "draws=99999999999", "key `draws`"),
    ] {
        let o = run(out.path(), &[cfg, "--smoke", "--set", set]);
        refused(&o, key);
    }
    // nothing was written by any refusal
    assert!(std::fs::read_dir(out.path()).unwrap().next().is_none());
}

/// A seed may be any TOML integer ≥ 0 (only counts are bounded).
#[test]
fn seeds_may_be_large() {
    let o = privpost(&["check", "bun2018/fig2", "--set", "seed=9223372036854775807"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// One run: the standard error is an empty cell, not NaN; a NaN the inputs
/// produce is refused naming file, column and row.
#[test]
fn no_nan_in_any_csv() {
    let out = tempfile::tempdir().unwrap();
    let o = run(
        out.path(),
        &["foulds2016/fig2", "--smoke", "--set", "repeats=1"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let summary = std::fs::read_to_string(
        out.path()
            .join("foulds2016/fig2@smoke,repeats=1/summary.csv"),
    )
    .unwrap();
    assert!(!summary.to_lowercase().contains("nan"), "{summary}");
    assert!(
        summary.lines().nth(1).unwrap().ends_with(",,1"),
        "{summary}"
    );

    let o = run(
        out.path(),
        &[
            "foulds2016/fig6",
            "--smoke",
            "--set",
            "held_out_fraction=1e-300",
        ],
    );
    // refused up front (it used to be computed, then refused by
    // the NaN guard): an empty hold-out set is known from the fraction
    refused(&o, "key `held_out_fraction`");
    assert!(!out.path().join("foulds2016/fig6").exists());

    let o = run(
        out.path(),
        &[
            "geumlek2017/fig2",
            "--smoke",
            "--set",
            "prior={alpha=1e308,beta=18}",
        ],
    );
    // refused up front (it used to be computed, then refused by
    // the NaN guard, which results::table's unit tests keep covering)
    refused(&o, "key `prior.alpha`: 1e308");
}

/// A typo inside a profile that is not selected is still found.
#[test]
fn every_profile_is_validated() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("fig2.toml");
    let text = std::fs::read_to_string(repo().join("configs/bun2018/fig2.toml")).unwrap();
    std::fs::write(&cfg, format!("{text}\n[profile.smok]\ndraw = 10\n")).unwrap();
    let o = privpost(&["check", cfg.to_str().unwrap()]);
    refused(&o, "[profile.smok]");
    assert!(stderr(&o).contains("key `draw`"), "{}", stderr(&o));
    assert!(stderr(&o).contains("did you mean `draws`") || stderr(&o).contains("unknown key"));
}

/// Writing to a full device or a closed pipe: an error or a quiet end, never a panic.
#[test]
fn output_write_errors_are_not_panics() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    for args in [
        vec!["list"],
        vec!["check", "foulds2016/fig2", "--resolved"],
        vec!["completions", "bash"],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_privpost"))
            .args(&args)
            .current_dir(repo())
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
        assert!(
            e.contains("cannot write to standard output"),
            "{args:?}: {e}"
        );
    }
    let o = privpost(&[
        "account",
        "--n-data",
        "1000",
        "--batch",
        "100",
        "--iterations",
        "10",
        "--delta",
        "1e-3",
        "--n0",
        "0",
        "--clip",
        "0.1",
    ]);
    refused(&o, "n0");
}

/// An output folder that cannot be written is refused before any work.
#[test]
fn unwritable_out_is_refused_before_work() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let out = file.join("results");
    let o = privpost(&[
        "run",
        "geumlek2017/fig3",
        "--smoke",
        "--out",
        out.to_str().unwrap(),
    ]);
    refused(&o, "--out");
    assert!(stderr(&o).contains("cannot write there"), "{}", stderr(&o));
    // refused before preparing: no dataset fetch, no plan lines printed
    assert!(!stderr(&o).contains("plan:"), "{}", stderr(&o));
}

/// The plan-size check: too many tasks, or too much estimated work, is
/// refused with the estimate before anything runs; --allow-long overrides the
/// work limit.
#[test]
fn oversized_plans_are_refused_with_the_estimate() {
    let out = tempfile::tempdir().unwrap();
    let o = run(
        out.path(),
        &["foulds2016/fig2", "--set", "repeats=10000000"],
    );
    refused(
        &o,
        "160000000 tasks planned; allowed: at most 1000000 per figure run",
    );
    let long = [
        "heikkila2019/fig3",
        "--smoke",
        "--set",
        "runs=10000",
        "--set",
        "mcmc_iterations=10000000",
    ];
    let o = run(out.path(), &long);
    refused(&o, "estimated work 8.0e15 flops");
    assert!(stderr(&o).contains("--allow-long"), "{}", stderr(&o));
    // a shard of it is checked on its own share
    let mut sharded = long.to_vec();
    sharded.extend(["--shard", "1/2"]);
    let o = run(out.path(), &sharded);
    refused(&o, "estimated work 4.0e15 flops");
    assert!(!out.path().join("heikkila2019").exists());
}

/// The output swap under a kill at every file operation of writing a folder
/// (`PRIVPOST_FAULT_AT=N`: the run SIGKILLs itself at its N-th operation):
/// afterwards the folder is always either the whole previous result or the
/// whole new one, never a mix and never missing; the next run cleans up.
#[test]
fn the_swap_is_atomic_under_a_kill_at_every_step() {
    let out = tempfile::tempdir().unwrap();
    let reference = tempfile::tempdir().unwrap();
    // two configs of the figure that differ in their seed: with one own `id`
    // both write the same folder (a `--set seed=…` would write `…@seed=…`)
    let configs = tempfile::tempdir().unwrap();
    let text = "id = \"swap/test\"\n".to_string()
        + &std::fs::read_to_string(repo().join("configs/bun2018/fig2.toml")).unwrap();
    for seed in ["1", "2"] {
        let changed: String = text
            .lines()
            .map(|l| {
                if l.starts_with("seed =") {
                    format!("seed = {seed}\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        std::fs::write(configs.path().join(format!("seed{seed}.toml")), changed).unwrap();
    }
    let o = |out: &Path, seed: &str, fault: Option<usize>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_privpost"));
        c.arg("run")
            .arg(configs.path().join(format!("seed{seed}.toml")))
            .args(["--smoke", "-q", "--no-cache", "--force"])
            .arg("--out")
            .arg(out)
            .current_dir(repo())
            .env("CI", "true");
        if let Some(n) = fault {
            c.env("PRIVPOST_FAULT_AT", n.to_string());
        }
        c.output().unwrap()
    };
    let files = [
        "data.csv",
        "summary.csv",
        "figure.png",
        "figure.svg",
        "manifest.json",
    ];
    let snapshot = |dir: &Path| -> Vec<Vec<u8>> {
        files
            .iter()
            .map(|f| std::fs::read(dir.join(f)).unwrap_or_default())
            .collect()
    };
    // the two complete results: seed 1 (old) and seed 2 (new)
    assert!(o(reference.path(), "2", None).status.success());
    let new = snapshot(&reference.path().join("swap/test@smoke"));
    assert!(o(out.path(), "1", None).status.success());
    let dir = out.path().join("swap/test@smoke");
    let old = snapshot(&dir);
    let mut killed = 0;
    for n in 1..=16 {
        let r = o(out.path(), "2", Some(n));
        if r.status.code().is_none() {
            killed += 1;
        }
        for f in files {
            assert!(dir.join(f).is_file(), "kill at step {n}: {f} missing");
        }
        let now = snapshot(&dir);
        // data, summary and manifest seed must come from the same run
        let same_run = |want: &Vec<Vec<u8>>| now[0] == want[0] && now[1] == want[1];
        assert!(
            same_run(&old) || same_run(&new),
            "kill at step {n}: a mix of runs"
        );
        let manifest: serde_json::Value = serde_json::from_slice(&now[4]).unwrap();
        let seed = manifest["seed"].as_u64().unwrap();
        assert_eq!(seed, if same_run(&old) { 1 } else { 2 }, "kill at step {n}");
        // back to the old result for the next step
        if !same_run(&old) {
            assert!(o(out.path(), "1", None).status.success());
        }
    }
    assert!(
        killed >= 8,
        "only {killed} kills: the fault points were not reached"
    );
    // the next run removes what the killed runs left beside the folder
    assert!(o(out.path(), "1", None).status.success());
    let leftovers: Vec<String> = std::fs::read_dir(out.path().join("swap"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "test@smoke")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// `account`'s papercuts.
#[test]
fn account_answers_say_what_they_cannot_do() {
    // integer flags written in scientific notation
    let o = privpost(&[
        "account",
        "--n-data",
        "1e5",
        "--batch",
        "1000",
        "--iterations",
        "1e3",
        "--delta",
        "1e-6",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("T = 1000:"), "{}", stdout(&o));
    let o = privpost(&[
        "account",
        "--n-data",
        "100000",
        "--batch",
        "1000",
        "--iterations",
        "1.5",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a whole number"), "{}", stderr(&o));
    // --iterations is not silently ignored by the inverse question
    let o = privpost(&[
        "account",
        "--n-data",
        "100000",
        "--batch",
        "1000",
        "--target-epsilon",
        "1",
        "--iterations",
        "5",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--iterations with --target-epsilon"),
        "{}",
        stderr(&o)
    );
    // an impossible target: said in text and JSON, exit 1
    for json in [false, true] {
        let mut args = vec![
            "account",
            "--n-data",
            "100000",
            "--batch",
            "1000",
            "--target-epsilon",
            "0.0001",
            "--delta",
            "1e-7",
        ];
        if json {
            args.push("--json");
        }
        let o = privpost(&args);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("no T ≥ 1 meets ε ≤ 0.0001"),
            "{}",
            stderr(&o)
        );
        if json {
            let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
            let w = v["warnings"].as_array().unwrap();
            assert!(
                w.iter().any(|x| x.as_str().unwrap().contains("no T ≥ 1")),
                "{v}"
            );
            assert!(v["answers"]
                .as_array()
                .unwrap()
                .iter()
                .all(|a| a["iterations"] == 0));
        }
    }
    // δ ≥ 1/N is said to be weak; δ ≪ 1/N is not
    let o = privpost(&[
        "account",
        "--n-data",
        "1000",
        "--batch",
        "100",
        "--iterations",
        "10",
        "--delta",
        "0.01",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("a weak guarantee"), "{}", stderr(&o));
    let o = privpost(&[
        "account",
        "--n-data",
        "1000",
        "--batch",
        "100",
        "--iterations",
        "10",
        "--delta",
        "1e-6",
    ]);
    assert!(!stderr(&o).contains("weak"), "{}", stderr(&o));
    // an unresolvable δ is said in words a user can act on, the number short
    let o = privpost(&[
        "account",
        "--mechanism",
        "sgld",
        "--q",
        "1e-4",
        "--delta",
        "1e-300",
        "--target-epsilon",
        "1",
        "--solve",
        "sigma",
        "--iterations",
        "1000",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1e-300") && stderr(&o).contains("--no-tight"),
        "{}",
        stderr(&o)
    );
}

/// The command line's papercuts.
#[test]
fn the_command_line_understands_near_misses() {
    // `--set KEY VALUE` is a missing `=`, not an unknown figure "0.5"
    let o = privpost(&["check", "foulds2016/fig2", "--set", "epsilon", "0.5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("has no `=`: write --set epsilon=VALUE"),
        "{}",
        stderr(&o)
    );
    // a paper id is every figure of that paper; check --all checks every config
    let o = privpost(&["check", "bun2018", "--smoke"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("bun2018/fig2") && stdout(&o).contains("bun2018/fig3"),
        "{}",
        stdout(&o)
    );
    let o = privpost(&["check", "--all", "--smoke"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).lines().filter(|l| l.contains(": ok — ")).count(),
        privpost::experiments::REGISTRY.len(),
        "{}",
        stdout(&o)
    );
    // integers written as whole floats, where the schema wants an integer
    let o = privpost(&["check", "foulds2016/fig2", "--set", "repeats=1e2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("100 repeats"), "{}", stdout(&o));
    let o = privpost(&["check", "foulds2016/fig2", "--set", "repeats=1.5"]);
    assert!(stderr(&o).contains("expected an integer"), "{}", stderr(&o));
    // a bracketed list of bare words, and did-you-mean for a choice and a profile
    let o = privpost(&[
        "check",
        "heikkila2019/fig1",
        "--smoke",
        "--set",
        "conversions=[classic,improved]",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = privpost(&[
        "check",
        "heikkila2019/fig1",
        "--smoke",
        "--set",
        "conversions=[clasic]",
    ]);
    assert!(
        stderr(&o).contains("did you mean `classic`?"),
        "{}",
        stderr(&o)
    );
    let o = privpost(&["check", "foulds2016/fig2", "--profile", "smok"]);
    assert!(
        stderr(&o).contains("did you mean `smoke`?"),
        "{}",
        stderr(&o)
    );
    // range(a, b) without a step over less than 1: one point, with a warning
    let o = privpost(&[
        "check",
        "heikkila2019/fig1",
        "--smoke",
        "--set",
        "q_min=range(0.001,0.005)",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stderr(&o).matches("gives the one value 0.001").count(),
        1,
        "{}",
        stderr(&o)
    );
}

/// A profile shared by every config of a configs folder
/// (`profiles.toml`, `[NAME."<figure>"]`); a config's own profile wins.
#[test]
fn a_shared_profiles_file_serves_every_config() {
    let tmp = tempfile::tempdir().unwrap();
    let configs = tmp.path().join("configs");
    std::fs::create_dir_all(configs.join("foulds2016")).unwrap();
    for f in ["fig1", "fig2"] {
        std::fs::copy(
            repo().join(format!("configs/foulds2016/{f}.toml")),
            configs.join(format!("foulds2016/{f}.toml")),
        )
        .unwrap();
    }
    std::fs::write(
        configs.join("profiles.toml"),
        "[ci.\"foulds2016/fig2\"]\nrepeats = 7\n[ci.\"foulds2016/fig1\"]\nlaplace_draws = 3\n[smoke.\"foulds2016/fig2\"]\nrepeats = 999\n",
    )
    .unwrap();
    let c = configs.to_str().unwrap();
    let o = privpost(&["check", "--configs", c, "--all", "--profile", "ci"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("× 7 repeats") && out.contains("3 Laplace draws"),
        "{out}"
    );
    // the config's own [profile.smoke] wins over the shared one
    let o = privpost(&["check", "--configs", c, "foulds2016/fig2", "--smoke"]);
    assert!(!stdout(&o).contains("999"), "{}", stdout(&o));
    // a broken shared file is named
    std::fs::write(configs.join("profiles.toml"), "ci = 3\n").unwrap();
    let o = privpost(&["check", "--configs", c, "foulds2016/fig2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("profiles.toml"), "{}", stderr(&o));
}

/// Manifests hold structured JSON, not Rust `Debug` text.
#[test]
fn manifests_hold_no_rust_debug_text() {
    let out = tempfile::tempdir().unwrap();
    let o = run(
        out.path(),
        &["foulds2016/fig3", "geumlek2017/fig3", "--smoke"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    for fig in ["foulds2016/fig3", "geumlek2017/fig3"] {
        let text = std::fs::read_to_string(
            out.path()
                .join(format!("{fig}@smoke"))
                .join("manifest.json"),
        )
        .unwrap();
        for debug in ["Preset {", "Hmc {", "Imh {", "Slice {", "Some(", "[\\\""] {
            assert!(!text.contains(debug), "{fig}: `{debug}` in the manifest");
        }
    }
    let m = common::manifest(&out.path().join("geumlek2017/fig3@smoke/manifest.json"));
    assert_eq!(m["details"]["sampler"]["kind"], "imh", "{}", m["details"]);
    assert_eq!(
        m["details"]["sampler"]["settings"]["tv_target"], 0.01,
        "{}",
        m["details"]
    );
    let m = common::manifest(&out.path().join("foulds2016/fig3@smoke/manifest.json"));
    assert!(
        m["datasets"][0]["source"]["settings"]["months"].is_u64(),
        "{}",
        m["datasets"]
    );
}

/// Räisä et al.'s comparison refuses τ ≤ 0, clip ≤ 0, L = 0 and an ε whose budget
/// leaves a method fewer than 2 iterations per chain, with exit 2 naming the key,
/// before any work.
/// A DP-SGNHT chain whose step is far too large diverges: its moments are written as
/// empty cells and its summary rows count 0 runs — never a NaN, never a made-up number.
#[test]
fn a_diverged_gmm_chain_is_reported_empty() {
    let out = tempfile::tempdir().unwrap();
    let o = run(
        out.path(),
        &["raisa2021/gmm", "--smoke", "--set", "sgnht.eta=1e9"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dir = std::fs::read_dir(out.path().join("raisa2021"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let summary = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    let rows: Vec<&str> = summary
        .lines()
        .filter(|l| l.contains(",dp_sgnht,"))
        .collect();
    assert!(!rows.is_empty());
    for r in &rows {
        assert!(r.ends_with(",,,,,0"), "{r}");
    }
    assert!(!summary.to_lowercase().contains("nan"));
    // the other chains are unaffected
    assert!(summary
        .lines()
        .any(|l| l.contains(",dp_hmc,") && !l.ends_with(",0")));
}

/// raisa2021/gmm's added chains: each table's keys are checked by name, before any
/// data is made (nothing is written).
#[test]
fn raisa2021_gmm_added_chains_outside_their_range_are_refused() {
    let out = tempfile::tempdir().unwrap();
    for (set, key) in [
        ("penalty.tau=0", "key `penalty.tau`"),
        ("penalty.clip=-1", "key `penalty.clip`"),
        ("penalty.proposal_sd=1e300", "key `penalty.proposal_sd`"),
        ("penalty.burn_in=300", "key `penalty.burn_in`"),
        ("penalty.every=0", "key `penalty.every`"),
        ("dp_hmc.leapfrog=0", "key `dp_hmc.leapfrog`"),
        ("dp_hmc.tau_l=0", "key `dp_hmc.tau_l`"),
        ("dp_hmc.clip_grad=0", "key `dp_hmc.clip_grad`"),
        ("dp_hmc.iterations=1", "key `dp_hmc.iterations`"),
        ("dp_hmc.iterations=1000000000", "key `dp_hmc.iterations`"),
        ("sgnht.clip=0", "key `sgnht.clip`"),
        ("sgnht.batch=0", "key `sgnht.batch`"),
        ("sgnht.diffusion=nan", "key `sgnht.diffusion`"),
        ("penalty.unknown=1", "unknown"),
    ] {
        let o = run(out.path(), &["raisa2021/gmm", "--smoke", "--set", set]);
        refused(&o, key);
    }
    assert!(std::fs::read_dir(out.path()).unwrap().next().is_none());
}

#[test]
fn raisa2021_settings_outside_their_range_are_refused() {
    let out = tempfile::tempdir().unwrap();
    for (set, key) in [
        ("penalty.tau=0", "key `penalty.tau`"),
        ("dp_hmc.tau_g=-1", "key `dp_hmc.tau_g`"),
        ("penalty.clip=0", "key `penalty.clip`"),
        ("dp_hmc.clip_grad=0", "key `dp_hmc.clip_grad`"),
        ("sgld.clip=-0.5", "key `sgld.clip`"),
        ("dp_hmc.leapfrog=0", "key `dp_hmc.leapfrog`"),
        ("epsilons=[0.01, 6.0]", "key `epsilons`"),
        ("epsilons=[2.0, 1000.0]", "key `epsilons`"),
        (
            "sgld.published_iterations=[10]",
            "key `sgld.published_iterations`",
        ),
        ("sgnht.diffusion=nan", "sgnht.diffusion"),
    ] {
        let o = run(out.path(), &["raisa2021/banana", "--smoke", "--set", set]);
        refused(&o, key);
    }
    assert!(std::fs::read_dir(out.path()).unwrap().next().is_none());
}

/// Fig. 3's DP-SGLD runs are sized apart from DP-MCMC's (`sgld_runs`): the plan and
/// the summary count them so, and zero runs is refused naming the key.
#[test]
fn fig3_sizes_its_dp_sgld_runs_apart_from_dp_mcmc() {
    let out = tempfile::tempdir().unwrap();
    let small = [
        "heikkila2019/fig3",
        "--smoke",
        "--set",
        "sgld_runs=2",
        "--set",
        "sgld_iterations=6000",
        "--set",
        "sgld_burn_in=1000",
        "--set",
        "sgld_tight_points=0",
    ];
    let mut check = vec!["check"];
    check.extend_from_slice(&small);
    let o = privpost(&check);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("3 runs × (DP-MCMC of 1300 iterations) + 2 runs × 2 DP-SGLD variants of 6000 steps = 8 tasks"),
        "{}",
        stdout(&o)
    );
    let o = run(out.path(), &small);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = common::point_dir(out.path(), "heikkila2019/fig3");
    let summary = common::rows(&dir.join("summary.csv"));
    // a `--set` point's CSVs lead with its `set.*` columns
    let head = common::header(&dir.join("summary.csv"));
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let (method, runs) = (col("method"), col("runs"));
    let runs_of = |m: &str| -> Vec<String> {
        let mut r: Vec<String> = summary
            .iter()
            .filter(|r| r[method] == m)
            .map(|r| r[runs].clone())
            .collect();
        r.dedup();
        r
    };
    assert_eq!(runs_of("dp_mcmc"), ["3"]);
    assert_eq!(runs_of("dp_sgld"), ["2"]);
    assert_eq!(runs_of("dp_sgld_corrected"), ["2"]);
    let o = run(
        out.path(),
        &["heikkila2019/fig3", "--smoke", "--set", "sgld_runs=0"],
    );
    refused(
        &o,
        "key `sgld_runs`: invalid value 0 (allowed: an integer ≥ 1)",
    );
}
