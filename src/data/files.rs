//! The data files of the logistic-regression experiments: the pinned SHA-256
//! list (`data/checksums.sha256`, compiled in), verified reads, and the state of a
//! data folder.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

pub(super) const CHECKSUMS: &str = include_str!("../../data/checksums.sha256");

/// How a data file failed.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    #[error("{path}: missing — run `privpost data fetch` (or `scripts/fetch-data.sh`) to download the datasets")]
    Missing { path: String },
    #[error("{path}: SHA-256 {got} does not match the expected {want} — the file is corrupt or a different version; delete it and run `privpost data fetch`")]
    Mismatch {
        path: String,
        got: String,
        want: String,
    },
    #[error("{path}: line {line}: {message}")]
    Parse {
        path: String,
        line: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Io { path: String, message: String },
}

/// The expected files and their SHA-256, from data/checksums.sha256.
pub fn expected_files() -> Vec<(&'static str, &'static str)> {
    CHECKSUMS
        .lines()
        .filter_map(|l| l.split_once("  "))
        .map(|(sum, name)| (name.trim(), sum.trim()))
        .collect()
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lower-case hexadecimal of a digest.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads a data file after checking it against its pinned checksum.
pub fn read_verified(dir: &Path, name: &str) -> Result<Vec<u8>, DataError> {
    let path = dir.join(name);
    let shown = path.display().to_string();
    let want = expected_files()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| s.to_string())
        .ok_or_else(|| DataError::Io {
            path: shown.clone(),
            message: "not a known dataset file".into(),
        })?;
    let bytes = match crate::input::read_found(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(DataError::Missing { path: shown })
        }
        Err(e) => {
            return Err(DataError::Io {
                path: shown,
                message: e.to_string(),
            })
        }
    };
    let got = sha256_hex(&bytes);
    if got != want {
        return Err(DataError::Mismatch {
            path: shown,
            got,
            want,
        });
    }
    Ok(bytes)
}

/// The files dataset `name` is read from.
pub fn files_of(name: &str) -> &'static [&'static str] {
    match name {
        "abalone" => &["abalone.csv"],
        "adult" => &["adult.data", "adult.test"],
        "mnist" => &["mnist_5k.csv"],
        "mnist_full" => &["train-images-idx3-ubyte", "train-labels-idx1-ubyte"],
        _ => &[],
    }
}

/// (file, SHA-256) of each file of dataset `name` in `dir`, hashed as found.
pub fn checksums_of(dir: &Path, name: &str) -> Result<Vec<(String, String)>, DataError> {
    files_of(name)
        .iter()
        .map(|f| {
            let path = dir.join(f);
            crate::input::read_found(&path)
                .map(|b| (path.display().to_string(), sha256_hex(&b)))
                .map_err(|e| DataError::Io {
                    path: path.display().to_string(),
                    message: e.to_string(),
                })
        })
        .collect()
}

/// State of each expected file: `Ok(())` when present and valid.
pub fn status(dir: &Path) -> Vec<(PathBuf, Result<(), DataError>)> {
    expected_files()
        .into_iter()
        .map(|(name, _)| (dir.join(name), read_verified(dir, name).map(|_| ())))
        .collect()
}
