//! Helpers shared by the end-to-end tests: run the binary, read its outputs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `privpost` in the repository with `CI` set (no progress bar).
pub fn privpost(args: &[&str]) -> Output {
    privpost_in(&repo(), args, &[])
}

/// Runs `privpost` in `dir` with extra environment variables.
pub fn privpost_in(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privpost"));
    c.args(args).current_dir(dir).env("CI", "true");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("binary runs")
}

/// Runs `privpost` in the repository like [`privpost`], but kills it and fails the
/// test if it has not ended within `seconds` (a hang fails instead of stalling).
pub fn privpost_within(seconds: u64, args: &[&str]) -> Output {
    privpost_within_in(&repo(), seconds, args)
}

/// [`privpost_within`] in `dir`.
pub fn privpost_within_in(dir: &Path, seconds: u64, args: &[&str]) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_privpost"))
        .args(args)
        .current_dir(dir)
        .env("CI", "true")
        .env_remove("PRIVPOST_DATA")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("binary runs");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(seconds)) {
        Ok(o) => o.expect("binary runs"),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("privpost {args:?} did not end within {seconds} s");
        }
    }
}

/// Exit 2, naming `key`, and no panic.
pub fn refused(o: &Output, key: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains(key), "{key} not named: {e}");
    assert!(!e.contains("panicked"), "{e}");
}

/// `privpost run FIGURE --smoke -q --out OUT --set S…` within `seconds`.
pub fn smoke_within(seconds: u64, figure: &str, out: &str, sets: &[&str]) -> Output {
    let mut args = vec!["run", figure, "--smoke", "-q", "--out", out];
    for s in sets {
        args.extend(["--set", s]);
    }
    privpost_within(seconds, &args)
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn header(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect()
}

pub fn rows(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    r.records()
        .map(|x| x.unwrap().iter().map(str::to_string).collect())
        .collect()
}

pub fn manifest(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The one folder `<out>/<figure>@…` a run with a value-changing `--set` wrote
/// (such a run never replaces the figure's own folder); panics
/// unless there is exactly one.
#[allow(dead_code)]
pub fn point_dir(out: &Path, figure: &str) -> PathBuf {
    let (paper, name) = figure.split_once('/').unwrap();
    let prefix = format!("{name}@");
    let found: Vec<PathBuf> = std::fs::read_dir(out.join(paper))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect();
    assert_eq!(found.len(), 1, "{figure}@… folders: {found:?}");
    found.into_iter().next().unwrap()
}

/// An `infer` folder's summary.csv: (parameter, mean, sd, bulk ESS) per row.
pub fn infer_summary(dir: &Path) -> Vec<(String, f64, f64, f64)> {
    let t = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    t.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let num = |i: usize| f[i].parse::<f64>().unwrap();
            (f[0].to_string(), num(1), num(2), num(7))
        })
        .collect()
}

/// Runs `privpost infer ARGS` in `dir`.
pub fn infer_in(dir: &Path, args: &[&str]) -> Output {
    privpost_in(dir, &[&["infer"], args].concat(), &[])
}

/// Bytes a command wrote, as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
