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
    read_capped(path, cap, true)
}

/// Reads a file privpost finds by name (a config in a configs folder, a cache pack,
/// a figure's CSV), at most `cap` bytes: a regular file only. A pipe there would
/// block until something writes to it, which nothing will.
pub fn read_regular(path: &Path, cap: u64) -> Result<Vec<u8>, InputError> {
    read_capped(path, cap, false)
}

fn read_capped(path: &Path, cap: u64, pipes: bool) -> Result<Vec<u8>, InputError> {
    use std::io::Read;
    let f = open_capped(path, cap, pipes)?;
    let err = |message: String| InputError {
        path: path.display().to_string(),
        message,
    };
    let mut bytes = Vec::new();
    f.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| err(format!("cannot read: {e}")))?;
    if bytes.len() as u64 > cap {
        return Err(err(format!(
            "more than {cap} bytes; allowed: a regular file of at most {cap} bytes"
        )));
    }
    Ok(bytes)
}

/// Opens `path` for reading after the same checks as [`read_regular`] (a regular
/// file of at most `cap` bytes; with `pipes`, a pipe too): for a reader that
/// streams the file and stops itself at `cap`.
pub fn open_capped(path: &Path, cap: u64, pipes: bool) -> Result<std::fs::File, InputError> {
    use std::os::unix::fs::FileTypeExt;
    let err = |message: String| InputError {
        path: path.display().to_string(),
        message,
    };
    let allowed = if pipes {
        format!("allowed: a regular file (or a pipe) of at most {cap} bytes")
    } else {
        format!("allowed: a regular file of at most {cap} bytes")
    };
    let meta = std::fs::metadata(path).map_err(|e| {
        if std::fs::symlink_metadata(path).is_ok() {
            err(format!("a link to nothing ({e}); {allowed}"))
        } else {
            err(format!("cannot read: {e}"))
        }
    })?;
    let t = meta.file_type();
    if !(t.is_file() || (pipes && t.is_fifo())) {
        let what = if t.is_dir() {
            "a folder"
        } else if t.is_char_device() || t.is_block_device() {
            "a device"
        } else if t.is_fifo() {
            "a pipe (FIFO), which would be waited on forever"
        } else {
            "not a regular file"
        };
        return Err(err(format!("{what}; {allowed}")));
    }
    if t.is_file() && meta.len() > cap {
        return Err(err(format!("{} bytes; {allowed}", meta.len())));
    }
    // O_NONBLOCK: a FIFO swapped in after the check cannot block the open
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(if pipes { 0 } else { libc::O_NONBLOCK })
        .open(path)
        .map_err(|e| err(format!("cannot read: {e}")))?;
    if !pipes {
        let t = f
            .metadata()
            .map_err(|e| err(format!("cannot read: {e}")))?
            .file_type();
        if !t.is_file() {
            return Err(err(format!("not a regular file; {allowed}")));
        }
    }
    Ok(f)
}

/// `std::fs::read_to_string` for a file privpost finds by name (a manifest, a
/// shard record, a departures note, profiles): the guard of [`read_regular`] with
/// the cap [`MAX_TABLE_BYTES`], its refusal an `io::Error` so a caller's own
/// handling stays as it was.
pub fn read_found_text(path: &Path) -> std::io::Result<String> {
    let bytes = read_found(path)?;
    String::from_utf8(bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// `std::fs::read` for a file privpost finds by name (a dataset file, an external
/// figure's input): as [`read_found_text`]. A missing file stays `NotFound`.
pub fn read_found(path: &Path) -> std::io::Result<Vec<u8>> {
    std::fs::symlink_metadata(path)?;
    read_regular(path, MAX_TABLE_BYTES).map_err(|e| {
        let kind = if std::fs::metadata(path).is_err() {
            std::io::ErrorKind::NotFound
        } else {
            std::io::ErrorKind::InvalidInput
        };
        std::io::Error::new(kind, e.message)
    })
}

/// [`read_regular`] as UTF-8 text.
pub fn read_regular_text(path: &Path, cap: u64) -> Result<String, InputError> {
    String::from_utf8(read_regular(path, cap)?).map_err(|e| InputError {
        path: path.display().to_string(),
        message: format!("not UTF-8 text: {e}"),
    })
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

    /// A file privpost finds by name is read only when it is a regular file: a pipe
    /// (which would block), a device, a folder and a dangling link are refused with
    /// what they are; a link to a regular file is read.
    #[test]
    fn found_files_are_regular_or_refused() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.toml");
        std::fs::write(&f, "x = 1").unwrap();
        let link = dir.path().join("link.toml");
        std::os::unix::fs::symlink(&f, &link).unwrap();
        assert_eq!(read_regular_text(&link, 100).unwrap(), "x = 1");
        let fifo = dir.path().join("fifo.toml");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_regular(&fifo, 100).unwrap_err().to_string();
        assert!(e.contains("a pipe (FIFO)"), "{e}");
        let dangling = dir.path().join("dangling.toml");
        std::os::unix::fs::symlink(dir.path().join("gone"), &dangling).unwrap();
        let e = read_regular(&dangling, 100).unwrap_err().to_string();
        assert!(e.contains("a link to nothing"), "{e}");
        let e = read_regular(Path::new("/dev/zero"), 100)
            .unwrap_err()
            .to_string();
        assert!(e.contains("a device"), "{e}");
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let e = read_regular(&zero, 100).unwrap_err().to_string();
        assert!(e.contains("a device"), "{e}");
    }
}
