//! The one datasets folder every command uses, so nothing is fetched twice:
//! `--data DIR` (a global option), else a config's own `data_dir` key (no built-in
//! config has one), else `$PRIVPOST_DATA`, else the per-user default —
//! `$XDG_DATA_HOME/privpost`, or `~/.local/share/privpost` (the XDG Base
//! Directory default). The command line wins over a file, a file over the
//! environment.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The folder `--data` named, set once at start-up.
static FLAG: OnceLock<PathBuf> = OnceLock::new();

/// The environment variable naming the datasets folder.
pub const VAR: &str = "PRIVPOST_DATA";

/// Where the folder came from, for messages ("--data /x", "$PRIVPOST_DATA", …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Flag,
    Var,
    Config,
    Default,
}

/// A `--data DIR` that is not an existing folder, or a second setting.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("--data {path}: {why} (allowed: an existing folder for the datasets; without --data, ${VAR} or the per-user folder {default} is used)")]
pub struct FlagError {
    path: String,
    why: String,
    default: String,
}

/// Sets the folder `--data` named: it must exist and be a folder (it is created
/// for nobody: a typo would otherwise fetch 15 MB into a new folder).
pub fn set_flag(dir: &Path) -> Result<(), FlagError> {
    let bad = |why: &str| FlagError {
        path: dir.display().to_string(),
        why: why.to_string(),
        default: default_folder().display().to_string(),
    };
    if dir.as_os_str().is_empty() {
        return Err(bad("empty"));
    }
    if !dir.is_dir() {
        return Err(bad(if dir.exists() {
            "not a folder"
        } else {
            "no such folder"
        }));
    }
    let dir = std::path::absolute(dir).map_err(|e| bad(&e.to_string()))?;
    FLAG.set(dir).map_err(|_| bad("given twice"))
}

/// The folder `--data` named, if any (absolute).
pub fn flag() -> Option<&'static Path> {
    FLAG.get().map(PathBuf::as_path)
}

/// The per-user default: `$XDG_DATA_HOME/privpost` (an absolute value only, as
/// the XDG specification says), else `$HOME/.local/share/privpost`, else `./data`.
pub fn default_folder() -> PathBuf {
    if let Some(x) = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
    {
        return x.join("privpost");
    }
    match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        Some(home) => PathBuf::from(home).join(".local/share/privpost"),
        None => PathBuf::from("data"),
    }
}

/// The datasets folder for a config whose `data_dir` key is `configured` (None
/// when it has none), with where it came from and how a message names it.
pub fn resolve(configured: Option<&str>) -> (PathBuf, Origin, String) {
    if let Some(dir) = flag() {
        return (
            dir.to_path_buf(),
            Origin::Flag,
            format!("--data {}", dir.display()),
        );
    }
    if let Some(c) = configured {
        return (PathBuf::from(c), Origin::Config, format!("{c:?}"));
    }
    if let Some(v) = std::env::var_os(VAR) {
        let shown = format!("{:?} (from ${VAR})", v.to_string_lossy());
        return (PathBuf::from(v), Origin::Var, shown);
    }
    let d = default_folder();
    let shown = format!("{} (the per-user data folder)", d.display());
    (d, Origin::Default, shown)
}

/// How a message names the datasets folder `dir`: `--data DIR`, `DIR (from
/// $PRIVPOST_DATA)`, `DIR (the per-user data folder)` or the path a config gave.
pub fn describe(dir: &Path) -> String {
    if flag() == Some(dir) {
        return format!("--data {}", dir.display());
    }
    if std::env::var_os(VAR).is_some_and(|v| Path::new(&v) == dir) {
        return format!("{} (from ${VAR})", dir.display());
    }
    if default_folder() == dir {
        return format!("{} (the per-user data folder)", dir.display());
    }
    dir.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A --data that does not exist, or is a file, is refused naming the path.
    #[test]
    fn a_missing_data_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = set_flag(&dir.path().join("nope")).unwrap_err().to_string();
        assert!(e.contains("nope: no such folder"), "{e}");
        let f = dir.path().join("f");
        std::fs::write(&f, "x").unwrap();
        let e = set_flag(&f).unwrap_err().to_string();
        assert!(e.contains("not a folder"), "{e}");
    }
}
