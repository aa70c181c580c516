//! A user's input files (events, manifests, audit samples, CSV datasets, war logs,
//! configs), read with a size cap and never from a device: `/dev/zero` given as an
//! event had been read for 2 GB, and as audit samples until a 4 GiB allocation
//! aborted. A leaf: imported by `config` and `data` alike.

use std::path::Path;

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
