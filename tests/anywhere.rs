//! privpost from any folder: figure ids, paper ids and `--all`
//! run the built-in configs compiled into the binary when no configs folder is
//! there; `config show` prints one to start from; a config file on disk wins;
//! `--data` names the datasets folder; every hint, when followed, works.

mod common;

use common::{stderr, stdout};
use std::path::Path;
use std::process::{Command, Output};

/// privpost in `dir` with the datasets of the test run (`$PRIVPOST_DATA`, set by
/// scripts/test.sh) or, without it, a fresh per-user folder under `dir`.
fn run_in(dir: &Path, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privpost"));
    c.args(args)
        .current_dir(dir)
        .env("CI", "true")
        .env("XDG_DATA_HOME", dir.join(".xdg"));
    c.output().expect("binary runs")
}

/// A folder with a space in its name and nothing in it.
fn empty() -> (tempfile::TempDir, std::path::PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("an empty folder");
    std::fs::create_dir(&d).unwrap();
    (t, d)
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// From an empty folder: a figure id runs its built-in config into ./results
/// (the same CSVs as the repository's config file gives), nothing else is created,
/// and `list` and `check` say which config they use.
#[test]
fn a_figure_id_runs_its_built_in_config_from_an_empty_folder() {
    let (_t, d) = empty();
    let o = run_in(&d, &["run", "foulds2016/fig2", "--smoke", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(entries(&d), ["results"]);
    let fig = d.join("results/foulds2016/fig2@smoke");
    let repo_out = tempfile::tempdir().unwrap();
    let o = common::privpost(&[
        "run",
        "configs/foulds2016/fig2.toml",
        "--smoke",
        "-q",
        "--out",
        repo_out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for csv in ["data.csv", "summary.csv"] {
        assert_eq!(
            std::fs::read(fig.join(csv)).unwrap(),
            std::fs::read(repo_out.path().join("foulds2016/fig2@smoke").join(csv)).unwrap(),
            "{csv}"
        );
    }
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fig.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["config_file"], "[built-in] configs/foulds2016/fig2.toml");
    let o = run_in(&d, &["list"]);
    assert!(
        stdout(&o).contains("[built-in] configs/foulds2016/fig2.toml"),
        "{}",
        stdout(&o)
    );
    // a paper id is each of its figures; --all is every figure
    let o = run_in(&d, &["check", "bun2018", "--smoke"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).matches(": ok — bun2018/").count(),
        2,
        "{}",
        stdout(&o)
    );
    let o = run_in(&d, &["check", "--all", "--smoke"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ids = privpost::experiments::REGISTRY.len();
    assert_eq!(stdout(&o).matches(": ok — ").count(), ids, "{}", stdout(&o));
}

/// `config show` prints the config a run starts from; saved and edited, it runs as
/// the user's own config; put in ./configs it replaces the built-in one for the id.
#[test]
fn config_show_gives_a_config_that_runs_and_a_file_on_disk_wins() {
    let (_t, d) = empty();
    let o = run_in(&d, &["config", "show", "foulds2016/fig2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let repo_text =
        std::fs::read_to_string(common::repo().join("configs/foulds2016/fig2.toml")).unwrap();
    assert_eq!(text, repo_text);
    let edited = text.replace("repeats = 1000", "repeats = 999");
    assert_ne!(edited, text, "the config names its repeats");
    std::fs::write(d.join("mine.toml"), &edited).unwrap();
    let o = run_in(&d, &["run", "mine.toml", "--smoke", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // a file at ./foulds2016/fig2.toml is not a configs folder: the id stays built in
    std::fs::create_dir_all(d.join("foulds2016")).unwrap();
    std::fs::write(d.join("foulds2016/fig2.toml"), &edited).unwrap();
    let o = run_in(&d, &["check", "foulds2016/fig2"]);
    assert!(
        stdout(&o).starts_with("[built-in] configs/foulds2016/fig2.toml: ok"),
        "{}",
        stdout(&o)
    );
    // the same file as configs/foulds2016/fig2.toml: the id runs it
    std::fs::create_dir_all(d.join("configs/foulds2016")).unwrap();
    std::fs::write(d.join("configs/foulds2016/fig2.toml"), &edited).unwrap();
    let o = run_in(&d, &["check", "foulds2016/fig2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("configs/foulds2016/fig2.toml: ok"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("999"), "{}", stdout(&o));
    let o = run_in(&d, &["config", "show", "foulds2016/fig2"]);
    assert_eq!(stdout(&o), edited);
    let o = run_in(&d, &["config", "show", "foulds2016/fig2", "--built-in"]);
    assert_eq!(stdout(&o), repo_text);
}

/// Each refusal's hint, followed, works: a misspelt id names the right one; a
/// `--configs` that does not exist says what to give; `config show` of a wrong id
/// names the right one; a `--data` that does not exist is refused before any work.
#[test]
fn every_hint_works_when_followed() {
    let (_t, d) = empty();
    let o = run_in(&d, &["run", "foulds2016/fgi2", "--smoke"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    let hint = e
        .split("did you mean `")
        .nth(1)
        .and_then(|r| r.split('`').next())
        .unwrap_or_else(|| panic!("no hint in {e}"));
    assert_eq!(hint, "foulds2016/fig2");
    let o = run_in(&d, &["check", hint, "--smoke"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run_in(&d, &["config", "show", "bun2018/fgi2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("did you mean `bun2018/fig2`"),
        "{}",
        stderr(&o)
    );
    // --configs must exist; without it the built-in configs are used
    let o = run_in(&d, &["check", "foulds2016/fig2", "--configs", "nowhere"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--configs nowhere: no such folder")
            && stderr(&o).contains("without --configs"),
        "{}",
        stderr(&o)
    );
    let o = run_in(&d, &["check", "foulds2016/fig2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // the repository's configs folder given from elsewhere (the old hint pointed
    // at its parent, which failed again)
    let configs = common::repo().join("configs");
    let o = run_in(
        &d,
        &[
            "check",
            "foulds2016/fig2",
            "--configs",
            configs.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("configs/foulds2016/fig2.toml: ok"),
        "{}",
        stdout(&o)
    );
    // --data: an existing folder, else refused before anything runs
    let o = run_in(
        &d,
        &["run", "foulds2016/fig2", "--smoke", "--data", "no data"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--data no data: no such folder"),
        "{}",
        stderr(&o)
    );
    assert_eq!(entries(&d), Vec::<String>::new(), "something was written");
    let o = run_in(&d, &["data", "status", "--data", "no data"]);
    assert_eq!(o.status.code(), Some(2));
    // `data status` of an empty --data folder: exit 1 and the fetch hint
    std::fs::create_dir(d.join("data here")).unwrap();
    let o = run_in(&d, &["data", "status", "--data", "data here"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("privpost data fetch"), "{}", stdout(&o));
}

/// The datasets folder every command uses: `--data`, then a config's own
/// `data_dir`, then `$PRIVPOST_DATA`, then `$XDG_DATA_HOME/privpost`.
#[test]
fn the_data_folder_follows_flag_config_variable_default() {
    let (_t, d) = empty();
    let status = |extra: &[&str], env: Option<&Path>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_privpost"));
        c.args([&["data", "status"][..], extra].concat())
            .current_dir(&d)
            .env("XDG_DATA_HOME", d.join("xdg"))
            .env_remove("PRIVPOST_DATA");
        if let Some(e) = env {
            c.env("PRIVPOST_DATA", e);
        }
        stdout(&c.output().unwrap())
    };
    assert!(status(&[], None).contains(&format!("{}", d.join("xdg/privpost").display())));
    std::fs::create_dir(d.join("v")).unwrap();
    assert!(status(&[], Some(&d.join("v"))).contains(&format!("{}", d.join("v").display())));
    std::fs::create_dir(d.join("f")).unwrap();
    let flagged = status(&["--data", "f"], Some(&d.join("v")));
    assert!(
        flagged.contains(&format!("{}", d.join("f").display())),
        "{flagged}"
    );
}

/// A shell word list of a documented command line (single and double quotes
/// kept together, the quotes removed), without its trailing `# comment`.
fn words(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quote, mut any) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (None, '#') if cur.is_empty() => break,
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (Some(q), c) if c == q => quote = None,
            (None, ' ') => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            (_, c) => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Every `privpost …` command the README and docs/usage.md show works from an
/// empty folder, in document order, as a new user after `cargo install` types
/// it (`> FILE` writes stdout there): the README's `infer docs/examples/…` once
/// failed outside the clone. Skipped, each for its stated reason: placeholders
/// for the user's own files and clusters, and the few paper-scale runs of
/// minutes that other tests run at smoke size.
#[test]
fn every_documented_command_works_from_an_empty_folder() {
    let (_t, d) = empty();
    // (words the command contains, why it is not run here)
    let skipped: [(&str, &str); 13] = [
        ("my_release.json", "the user's own event file"),
        ("my_scores.csv", "the user's own scores"),
        ("/shared/r", "a cluster's shared folder"),
        ("--profile NAME", "a placeholder profile"),
        ("completions bash >", "writes into the user's home"),
        (
            "data fetch",
            "network: the datasets are fetched once by scripts/test.sh",
        ),
        ("data export", "needs the fetched datasets"),
        (
            "data status",
            "exit 1 until the datasets are fetched, as documented",
        ),
        (
            "run --all --smoke",
            "every figure: tests/smoke.rs runs them",
        ),
        ("gallery results --thumbnails", "needs paper-scale folders"),
        (
            "audit",
            "the paper-scale audit (34 s): tests/audit.rs runs it at smoke size",
        ),
        (
            "geomspace",
            "seven paper-scale points: tests/sweeps.rs runs sweeps",
        ),
        (
            "gaussian_calibration=tight",
            "a paper-scale Geumlek run: tests/verbs.rs",
        ),
    ];
    let mut ran = Vec::new();
    for doc in ["README.md", "docs/usage.md"] {
        let text = std::fs::read_to_string(common::repo().join(doc)).unwrap();
        let mut in_code = false;
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
                continue;
            }
            let line = line.trim();
            if !in_code || !line.starts_with("privpost ") {
                continue;
            }
            if skipped.iter().any(|(w, _)| line.contains(w))
                && !line.starts_with("privpost audit --smoke")
            {
                continue;
            }
            let mut args = words(line);
            args.remove(0);
            let redirect = args.iter().position(|a| a == ">");
            let to = redirect.map(|i| {
                let file = args[i + 1].clone();
                args.truncate(i);
                file
            });
            let argv: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = run_in(&d, &argv);
            assert!(
                o.status.success(),
                "{doc}: `{line}` failed from an empty folder: {}",
                stderr(&o)
            );
            if let Some(file) = to {
                std::fs::write(d.join(file), &o.stdout).unwrap();
            }
            ran.push(line.to_string());
        }
    }
    for must in [
        "privpost infer release.toml",
        "privpost show results/foulds2016/fig2",
    ] {
        assert!(
            ran.iter().any(|l| l.starts_with(must)),
            "{must} was not run: {ran:?}"
        );
    }
}
