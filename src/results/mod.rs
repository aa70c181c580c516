//! What a run leaves behind: tables (`data.csv`, `summary.csv`), the typed
//! manifest with its privacy ledger, and the atomic folder swap that keeps a
//! failed or interrupted run from damaging earlier results.

pub mod cache;
pub mod draws;
pub mod json_keys;
pub mod manifest;
pub mod record;
pub mod shards;
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

/// Fault injection for the tests: with `PRIVPOST_FAULT_AT=N` the process
/// kills itself (SIGKILL) at the N-th file operation of writing a figure
/// folder, counted from 1, as if killed from outside at that instant
/// (`tests/hardening.rs` checks that the old or the new complete folder is
/// always there). Without the variable it does nothing.
pub fn fault_point() {
    use std::sync::atomic::{AtomicU64, Ordering};
    static AT: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let at = AT.get_or_init(|| {
        std::env::var("PRIVPOST_FAULT_AT")
            .ok()
            .and_then(|v| v.trim().parse().ok())
    });
    if let Some(n) = *at {
        if COUNT.fetch_add(1, Ordering::SeqCst) + 1 == n {
            // SAFETY: signalling our own process; SIGKILL cannot be caught.
            unsafe {
                libc::kill(libc::getpid(), libc::SIGKILL);
            }
        }
    }
}

/// A fresh temporary folder beside `target` (`.<leaf>.tmp-<pid>-<n>@<host>`), for
/// [`replace_dir`] once complete. Temporary folders left by runs that were
/// killed (their process is gone) are removed on the way.
pub fn temp_dir_for(target: &Path) -> Result<PathBuf, WriteError> {
    let parent = target.parent().unwrap_or(Path::new(".")).to_path_buf();
    std::fs::create_dir_all(&parent).map_err(io_err(&parent))?;
    let leaf = target
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "figure".into());
    remove_stale(&parent, &leaf);
    // `<pid>-<n>@<host>`: two threads of one process (the Python package's calls)
    // writing the same folder never share a temporary
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = parent.join(format!(
        ".{leaf}.tmp-{}-{n}@{}",
        std::process::id(),
        hostname()
    ));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io_err(&tmp))?;
    }
    std::fs::create_dir_all(&tmp).map_err(io_err(&tmp))?;
    fault_point();
    Ok(tmp)
}

/// Whether process `pid` of this host is known to have ended: Linux only (no
/// `/proc/<pid>`); elsewhere `false`, so that nothing of a possibly live run is
/// removed.
pub fn process_gone(pid: u32) -> bool {
    Path::new("/proc/self").exists()
        && pid != std::process::id()
        && !Path::new(&format!("/proc/{pid}")).exists()
}

/// This host's name (`gethostname`), or `unknown-host`.
pub fn hostname() -> &'static str {
    static NAME: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    NAME.get_or_init(|| {
        let mut buf = [0u8; 256];
        // SAFETY: the buffer is valid for its length; gethostname NUL-terminates
        // within it or we find no NUL and use the whole buffer.
        let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        let name = String::from_utf8_lossy(&buf[..end]).into_owned();
        if rc != 0 || name.is_empty() {
            "unknown-host".into()
        } else {
            name.replace(['/', '@'], "_")
        }
    })
}

/// `<pid>@<host>`: who owns a temporary file or folder. On a shared file system
/// (shards of one sweep on several cluster nodes) a temporary is removed as
/// stale only by a run on its own host, and only once its process is gone.
pub fn owner_tag() -> String {
    format!("{}@{}", std::process::id(), hostname())
}

/// Whether the owner written after `.tmp-` / `.old-` (`<pid>[-<n>]@<host>`, or
/// `<pid>[-<n>]` from before hosts were recorded) is a process of this host
/// that has ended.
pub fn owner_gone(owner: &str) -> bool {
    let (proc_part, host) = match owner.rsplit_once('@') {
        Some((p, h)) => (p, Some(h)),
        None => (owner, None),
    };
    if host.is_some_and(|h| h != hostname()) {
        return false;
    }
    proc_part
        .split('-')
        .next()
        .and_then(|p| p.parse::<u32>().ok())
        .is_some_and(process_gone)
}

/// Removes `.<leaf>.tmp-<owner>` and `.<leaf>.old-<owner>` folders (or files)
/// whose process (on this host) has ended.
pub fn remove_stale(parent: &Path, leaf: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let owner = [".tmp-", ".old-"]
            .iter()
            .find_map(|mark| name.strip_prefix(&format!(".{leaf}{mark}")));
        if owner.is_some_and(owner_gone) {
            let p = e.path();
            let _ = if p.is_dir() {
                std::fs::remove_dir_all(&p)
            } else {
                std::fs::remove_file(&p)
            };
        }
    }
}

/// Swaps `tmp` into `target` so that at every instant `target` is either the
/// whole old folder or the whole new one: on Linux an atomic exchange
/// (`renameat2(RENAME_EXCHANGE)`), after which `tmp` holds the old folder and is
/// removed; a plain rename when there is no old folder. Two runs swapping into
/// the same target concurrently each leave a complete folder.
pub fn replace_dir(tmp: &Path, target: &Path) -> Result<(), WriteError> {
    for _ in 0..100 {
        fault_point();
        match exchange(tmp, target) {
            Ok(true) => {
                fault_point();
                let removed = std::fs::remove_dir_all(tmp).map_err(io_err(tmp));
                fault_point();
                return removed;
            }
            Ok(false) => {}
            Err(e) => return Err(io_err(target)(e)),
        }
        // no old folder: a plain rename, unless another run put one there meanwhile
        match std::fs::rename(tmp, target) {
            Ok(()) => return Ok(()),
            Err(e) if target.exists() => {
                let _ = e;
                continue;
            }
            Err(e) => return Err(io_err(target)(e)),
        }
    }
    Err(io_err(target)(std::io::Error::other(
        "another process keeps replacing this folder",
    )))
}

/// Atomically exchanges two paths; `Ok(false)` when `target` does not exist.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let ca = CString::new(a.as_os_str().as_bytes())?;
    let cb = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: two valid NUL-terminated paths; renameat2 reads them only.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::ENOENT) if !b.exists() => Ok(false),
        // file systems without RENAME_EXCHANGE: the two-rename swap
        Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP) => {
            two_renames(a, b).map(|()| false)
        }
        _ => Err(e),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    two_renames(a, b).map(|()| false)
}

/// Moves `target` aside (`.<leaf>.old-<pid>`, removed by the next run if this
/// one dies before removing it); the caller then renames the new folder in.
fn two_renames(_tmp: &Path, target: &Path) -> std::io::Result<()> {
    if !target.exists() {
        return Ok(());
    }
    let old = target.with_file_name(format!(
        ".{}.old-{}",
        target
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        owner_tag()
    ));
    std::fs::rename(target, &old)?;
    // removed after the caller's rename by the next run's `remove_stale`
    Ok(())
}

/// Writes `text` to `path`.
pub fn write_text(path: &Path, text: &str) -> Result<(), WriteError> {
    let r = std::fs::write(path, text).map_err(io_err(path));
    fault_point();
    r
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

    /// Only this host's ended processes own stale temporaries.
    #[test]
    fn owners_of_other_hosts_are_never_stale() {
        let dead = "4294967";
        assert!(owner_gone(dead));
        assert!(owner_gone(&format!("{dead}-3")));
        assert!(owner_gone(&format!("{dead}-3@{}", hostname())));
        assert!(!owner_gone(&format!("{dead}-3@another-node")));
        assert!(!owner_gone(&format!("{dead}@another-node")));
        assert!(!owner_gone(&owner_tag()));
        assert!(!owner_gone("garbage"));
    }
}
