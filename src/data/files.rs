//! The data files of the logistic-regression experiments: the pinned SHA-256
//! list (`data/checksums.sha256`, compiled in), verified reads, and the state of a
//! data folder.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

const CHECKSUMS: &str = include_str!("../../data/checksums.sha256");

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

/// The most bytes privpost reads from a user's JSON input (an event, a ledger
/// entry, a manifest): far above any real one, far below a machine's memory.
pub const MAX_JSON_BYTES: u64 = 64 << 20;
/// The most bytes privpost reads from a user's table (audit scores, war logs).
pub const MAX_TABLE_BYTES: u64 = 1 << 30;

/// Reads a user's input file, at most `cap` bytes: a regular file or a pipe (so
/// `--event <(…)` works), never a device or a folder — `/dev/zero` would otherwise
/// be read until memory ran out. The error names the path and what is allowed.
pub fn read_input(path: &Path, cap: u64) -> Result<Vec<u8>, InputError> {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    let err = |message: String| InputError {
        path: path.display().to_string(),
        message,
    };
    let allowed = format!("allowed: a regular file (or a pipe) of at most {cap} bytes");
    let meta = std::fs::metadata(path).map_err(|e| err(format!("cannot read: {e}")))?;
    let t = meta.file_type();
    if !(t.is_file() || t.is_fifo()) {
        let what = if t.is_dir() {
            "a folder"
        } else if t.is_char_device() || t.is_block_device() {
            "a device"
        } else {
            "not a regular file"
        };
        return Err(err(format!("{what}; {allowed}")));
    }
    if t.is_file() && meta.len() > cap {
        return Err(err(format!("{} bytes; {allowed}", meta.len())));
    }
    let f = std::fs::File::open(path).map_err(|e| err(format!("cannot read: {e}")))?;
    let mut bytes = Vec::new();
    f.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| err(format!("cannot read: {e}")))?;
    if bytes.len() as u64 > cap {
        return Err(err(format!("more than {cap} bytes; {allowed}")));
    }
    Ok(bytes)
}

/// [`read_input`] as UTF-8 text.
pub fn read_input_text(path: &Path, cap: u64) -> Result<String, InputError> {
    String::from_utf8(read_input(path, cap)?).map_err(|e| InputError {
        path: path.display().to_string(),
        message: format!("not UTF-8 text: {e}"),
    })
}

/// Why a user's input file was not read: its path and the reason.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{path}: {message}")]
pub struct InputError {
    pub path: String,
    pub message: String,
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
    let bytes = match std::fs::read(&path) {
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
            std::fs::read(&path)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_capped_and_devices_refused() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.json");
        std::fs::write(&f, "0123456789").unwrap();
        assert_eq!(read_input(&f, 10).unwrap().len(), 10);
        let e = read_input(&f, 9).unwrap_err().to_string();
        assert!(
            e.contains("10 bytes") && e.contains("at most 9 bytes"),
            "{e}"
        );
        let e = read_input(Path::new("/dev/zero"), 1 << 20)
            .unwrap_err()
            .to_string();
        assert!(e.contains("/dev/zero: a device"), "{e}");
        let e = read_input(dir.path(), 1 << 20).unwrap_err().to_string();
        assert!(e.contains("a folder"), "{e}");
    }
}
