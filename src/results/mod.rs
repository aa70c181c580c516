//! What a run leaves behind: tables (`data.csv`, `summary.csv`), the typed
//! manifest with its privacy ledger, and the atomic folder swap that keeps a
//! failed or interrupted run from damaging earlier results.

pub mod manifest;
pub mod table;

use std::path::{Path, PathBuf};

/// An I/O failure on a named path.
#[derive(Debug, thiserror::Error)]
#[error("writing {path}")]
pub struct WriteError {
    pub path: String,
    #[source]
    pub source: std::io::Error,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> WriteError + '_ {
    move |source| WriteError {
        path: path.display().to_string(),
        source,
    }
}

/// A fresh temporary folder beside `target` (`.<leaf>.tmp-<pid>`), for
/// [`replace_dir`] once complete.
pub fn temp_dir_for(target: &Path) -> Result<PathBuf, WriteError> {
    let parent = target.parent().unwrap_or(Path::new(".")).to_path_buf();
    std::fs::create_dir_all(&parent).map_err(io_err(&parent))?;
    let leaf = target
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "figure".into());
    let tmp = parent.join(format!(".{leaf}.tmp-{}", std::process::id()));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io_err(&tmp))?;
    }
    std::fs::create_dir_all(&tmp).map_err(io_err(&tmp))?;
    Ok(tmp)
}

/// Swaps `tmp` into `target`: the old folder is moved aside first and removed
/// only after the new one is in place.
pub fn replace_dir(tmp: &Path, target: &Path) -> Result<(), WriteError> {
    let old = target.with_file_name(format!(
        ".{}.old-{}",
        target
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        std::process::id()
    ));
    if target.exists() {
        std::fs::rename(target, &old).map_err(io_err(target))?;
    }
    std::fs::rename(tmp, target).map_err(io_err(target))?;
    if old.exists() {
        std::fs::remove_dir_all(&old).map_err(io_err(&old))?;
    }
    Ok(())
}

/// Writes `text` to `path`.
pub fn write_text(path: &Path, text: &str) -> Result<(), WriteError> {
    std::fs::write(path, text).map_err(io_err(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_dir_swaps_whole_folders() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("fig");
        std::fs::create_dir_all(&target).unwrap();
        std::fs::write(target.join("old.csv"), "old").unwrap();
        let tmp = temp_dir_for(&target).unwrap();
        std::fs::write(tmp.join("new.csv"), "new").unwrap();
        replace_dir(&tmp, &target).unwrap();
        assert!(target.join("new.csv").exists());
        assert!(!target.join("old.csv").exists());
        assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 1);
    }
}
