//! The task cache: a finished task's rows, stored under a key made of
//! everything that determines them, so that a rerun, a resumed run (after
//! Ctrl-C or SIGKILL) or an extended sweep computes only what is missing.
//!
//! Key of a figure run ([`run_key`]): SHA-256 of the code identity (a hash of
//! the running binary, so rows computed by other code are never served), the
//! figure id, the resolved parameters, the seed, the datasets read (their
//! SHA-256s) and the task count. Task `i` draws from `task_rng(seed, i)`, so
//! (run key, i) determines its rows. Layout under the cache root — a few files
//! per figure run and writing process, not one per task (a cluster's inode
//! quota is the first thing a 100,000-task sweep meets):
//!
//! ```text
//! <root>/<run key>/run.json                 figure, sweep point, code, task count (`cache status`)
//! <root>/<run key>/<pid>-<n>@<host>.pack    the tasks one process computed, appended as they finish
//! ```
//!
//! A pack starts with a line naming its format and run key; each entry is a frame
//! `frame <bytes> <sha-256 prefix>` followed by the task's rows, exact (floats as bit
//! patterns) and self-describing (task index, row count, `end`). Each process
//! appends only to its own pack (created new, never shared), so shards on a shared
//! file system need no locks; a frame is one `write` and, if it fails, is cut off
//! again. A reader takes every whole frame whose hash matches: a run killed while
//! appending leaves a partial last frame, which is ignored (that task is computed
//! again); any other damage is reported with the file and byte offset. `run.json`
//! is written to a unique temporary name and renamed into place. Per-task `<i>.rows`
//! files of earlier versions are read and, when a run next writes, packed and removed.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use sha2::{Digest, Sha256};

use super::table::{Cell, Row};
use super::WriteError;

/// Folder name of the cache under an output root.
pub const DIR_NAME: &str = ".privpost-cache";

const MAGIC: &str = "privpost-rows 1";

/// The first line of a pack, before its run key.
const PACK_MAGIC: &str = "privpost-pack 1 key";

/// A pack's file name ends so.
const PACK_EXT: &str = ".pack";

/// SHA-256 of the running binary: the code that computes the rows.
pub fn code_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let code = crate::invocation::code_file();
        let bytes = code.and_then(|p| std::fs::read(p).ok());
        match bytes {
            Some(b) => hex(&Sha256::digest(&b)),
            // Without a readable binary nothing can be matched to this code:
            // a per-process id disables reuse rather than risking wrong rows.
            None => format!("unreadable-binary-{}", std::process::id()),
        }
    })
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// What determines a figure run's task rows.
pub struct KeyParts<'a> {
    pub code: &'a str,
    pub figure: &'a str,
    /// The resolved parameters (canonical: keys sorted).
    pub params: &'a serde_json::Value,
    pub seed: u64,
    /// The datasets read, with their file hashes.
    pub datasets: &'a serde_json::Value,
    pub tasks: usize,
}

/// The run key: hex SHA-256 over the parts, each length-prefixed.
pub fn run_key(parts: &KeyParts) -> String {
    let mut h = Sha256::new();
    let params = parts.params.to_string();
    let datasets = parts.datasets.to_string();
    let seed = parts.seed.to_string();
    let tasks = parts.tasks.to_string();
    for field in [
        "privpost run key v1",
        parts.code,
        parts.figure,
        &params,
        &seed,
        &datasets,
        &tasks,
    ] {
        h.update((field.len() as u64).to_le_bytes());
        h.update(field.as_bytes());
    }
    hex(&h.finalize())
}

/// The cache of one figure run.
#[derive(Debug, Clone)]
pub struct RunCache {
    dir: PathBuf,
    key: String,
    /// The whole frames of the packs (and legacy files) present when first read:
    /// task → its rows' text.
    index: Arc<OnceLock<HashMap<usize, Arc<str>>>>,
    /// This process's own pack, created at the first store.
    writer: Arc<Mutex<Option<Pack>>>,
}

/// A pack this process appends to.
#[derive(Debug)]
struct Pack {
    path: PathBuf,
    file: std::fs::File,
    len: u64,
}

/// What `run.json` records of a cached run.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunInfo {
    pub figure: String,
    pub sweep_point: Option<String>,
    pub config_file: String,
    pub code: String,
    pub tasks: usize,
}

impl RunCache {
    pub fn new(root: &Path, key: &str) -> Self {
        Self {
            dir: root.join(key),
            key: key.to_string(),
            index: Arc::new(OnceLock::new()),
            writer: Arc::new(Mutex::new(None)),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Creates the folder and records what the run is; packs the per-task files
    /// of an earlier version, if any, into this process's pack (once).
    pub fn open(&self, info: &RunInfo) -> Result<(), WriteError> {
        std::fs::create_dir_all(&self.dir).map_err(|source| WriteError {
            path: self.dir.display().to_string(),
            source,
        })?;
        self.remove_stale_temporaries();
        let text = serde_json::to_string_pretty(info).unwrap_or_default() + "\n";
        write_atomic(&self.dir.join("run.json"), text.as_bytes())?;
        self.convert_legacy()
    }

    /// Moves `<i>.rows` files (one per task, the layout before packs) into this
    /// process's pack, then removes them.
    fn convert_legacy(&self) -> Result<(), WriteError> {
        let legacy: Vec<(usize, PathBuf)> = legacy_files(&self.dir);
        if legacy.is_empty() {
            return Ok(());
        }
        for (i, path) in &legacy {
            if let Some(text) = read_text(path, MAX_ROWS_BYTES).filter(|t| decode(t, *i).is_some())
            {
                self.append(&text)?;
            }
        }
        for (_, path) in legacy {
            let _ = std::fs::remove_file(path);
        }
        Ok(())
    }

    /// Removes `.<name>.tmp-<pid>-<n>@<host>` files left by a killed run of
    /// this host (Linux: its `/proc/<pid>` is gone); a live run's temporaries,
    /// and those of other hosts sharing the file system, are left alone.
    fn remove_stale_temporaries(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let owner = name
                .starts_with('.')
                .then(|| name.rsplit_once(".tmp-"))
                .flatten()
                .map(|(_, rest)| rest);
            if owner.is_some_and(super::owner_gone) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }

    fn index(&self) -> &HashMap<usize, Arc<str>> {
        self.index.get_or_init(|| {
            let c = read_run(&self.dir, &self.key);
            for (path, at, what) in &c.damaged {
                crate::errln!(
                    "note: {} at byte {at}: {what}; its entries from there on are computed again",
                    path.display()
                );
            }
            c.entries
        })
    }

    /// Task `index`'s rows, if a whole, readable entry is stored. A damaged
    /// entry reads as absent: the task is computed again and stored again.
    pub fn load(&self, index: usize) -> Option<Vec<Row>> {
        decode(self.index().get(&index)?, index)
    }

    /// Stores task `index`'s rows: one frame appended to this process's pack.
    pub fn store(&self, index: usize, rows: &[Row]) -> Result<(), WriteError> {
        self.append(&encode(rows, index))
    }

    /// Appends one frame, creating this process's pack at the first call. A write
    /// that fails part way is cut back, so the pack stays whole frames.
    fn append(&self, text: &str) -> Result<(), WriteError> {
        use std::io::Write;
        let mut guard = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            *guard = Some(self.create_pack()?);
        }
        let pack = guard.as_mut().expect("created above");
        let frame = frame(text);
        let err = |source| WriteError {
            path: pack.path.display().to_string(),
            source,
        };
        if let Err(e) = pack.file.write_all(&frame) {
            let _ = pack.file.set_len(pack.len);
            return Err(err(e));
        }
        pack.len += frame.len() as u64;
        Ok(())
    }

    /// A new pack named after this process, host and a counter (never an existing file).
    fn create_pack(&self) -> Result<Pack, WriteError> {
        use std::io::Write;
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let (pid, host) = (std::process::id(), super::hostname());
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = self.dir.join(format!("{pid}-{n}@{host}{PACK_EXT}"));
            match std::fs::OpenOptions::new()
                .append(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut file) => {
                    let head = format!("{PACK_MAGIC} {}\n", self.key);
                    file.write_all(head.as_bytes())
                        .map_err(|source| WriteError {
                            path: path.display().to_string(),
                            source,
                        })?;
                    let len = head.len() as u64;
                    return Ok(Pack { path, file, len });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(source) => {
                    return Err(WriteError {
                        path: path.display().to_string(),
                        source,
                    })
                }
            }
        }
    }
}

/// `<i>.rows` files of the per-task layout, with their task index.
fn legacy_files(dir: &Path) -> Vec<(usize, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let i = name.strip_suffix(".rows")?.parse().ok()?;
            Some((i, e.path()))
        })
        .collect()
}

/// A frame: `frame <bytes> <first 16 hex digits of the text's SHA-256>`, then the text.
fn frame(text: &str) -> Vec<u8> {
    let sum = hex(&Sha256::digest(text.as_bytes()));
    let mut out = format!("frame {} {}\n", text.len(), &sum[..16]).into_bytes();
    out.extend_from_slice(text.as_bytes());
    out
}

/// What reading a run's folder found.
#[derive(Debug, Default)]
pub struct RunContents {
    /// Task → its rows' text, from whole frames (and legacy files).
    pub entries: HashMap<usize, Arc<str>>,
    /// Files in the folder, and their bytes: apparent and on disk (allocated blocks).
    pub files: usize,
    pub bytes: u64,
    pub disk_bytes: u64,
    /// Newest modification time of the folder's files.
    pub last_used: Option<std::time::SystemTime>,
    /// Packs with damage other than a partial last frame: (file, byte offset, what).
    pub damaged: Vec<(PathBuf, u64, String)>,
}

/// Reads every pack (and legacy per-task file) of a run folder.
pub fn read_run(dir: &Path, key: &str) -> RunContents {
    use std::os::unix::fs::MetadataExt;
    let mut c = RunContents::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return c;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        c.files += 1;
        c.bytes += meta.len();
        c.disk_bytes += meta.blocks() * 512;
        c.last_used = c.last_used.max(meta.modified().ok());
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.starts_with('.') {
            continue;
        }
        if name.ends_with(PACK_EXT) {
            match crate::input::read_regular(&path, MAX_PACK_BYTES) {
                Ok(bytes) => {
                    if let Err((at, what)) = read_pack(&bytes, key, &mut c.entries) {
                        c.damaged.push((path, at, what));
                    }
                }
                // a pipe, a device, a link to nothing or an outsized file: not a
                // pack this run wrote; reported, never read (a pipe would block,
                // /dev/zero fill memory)
                Err(e) => c.damaged.push((path, 0, e.message)),
            }
        } else if let Some(i) = name.strip_suffix(".rows").and_then(|s| s.parse().ok()) {
            if let Some(text) = read_text(&path, MAX_ROWS_BYTES) {
                if decode(&text, i).is_some() {
                    c.entries.insert(i, text.into());
                }
            }
        }
    }
    c
}

/// The largest pack read: far above any run's (a paper-scale run's whole cache is
/// 0.56 GB over many packs), far below the machine's memory. A larger file is
/// reported as damaged and its tasks computed again.
pub const MAX_PACK_BYTES: u64 = 1 << 30;
/// The largest legacy `<i>.rows` file or `run.json` read.
const MAX_ROWS_BYTES: u64 = crate::input::MAX_TABLE_BYTES;

/// A cache file's text when it is a regular file of at most `cap` bytes; `None`
/// for anything else (a pipe, a device, a link to nothing, not UTF-8).
fn read_text(path: &Path, cap: u64) -> Option<String> {
    crate::input::read_regular_text(path, cap).ok()
}

/// Reads a pack's whole frames into `entries`. A partial last frame (a writer
/// killed, or still writing) is not an error; anything else is, with its offset.
fn read_pack(
    bytes: &[u8],
    key: &str,
    entries: &mut HashMap<usize, Arc<str>>,
) -> Result<(), (u64, String)> {
    let head = format!("{PACK_MAGIC} {key}\n");
    if !bytes.starts_with(head.as_bytes()) {
        return if head.as_bytes().starts_with(bytes) {
            Ok(())
        } else {
            Err((
                0,
                format!(
                    "not a pack of this run (its first line is not `{}`)",
                    head.trim_end()
                ),
            ))
        };
    }
    let mut at = head.len();
    while at < bytes.len() {
        let rest = &bytes[at..];
        let Some(nl) = rest.iter().position(|&b| b == b'\n') else {
            return Ok(()); // a partial frame line at the end
        };
        let line = std::str::from_utf8(&rest[..nl])
            .map_err(|_| (at as u64, "a frame line that is not text".to_string()))?;
        let mut words = line.split(' ');
        let (Some("frame"), Some(len), Some(sum), None) =
            (words.next(), words.next(), words.next(), words.next())
        else {
            return Err((at as u64, format!("not a frame line: {line:?}")));
        };
        let len: usize = len
            .parse()
            .map_err(|_| (at as u64, format!("not a frame line: {line:?}")))?;
        let body_at = nl + 1;
        match body_at.checked_add(len) {
            // a length no file can hold (near 2⁶⁴ once overflowed the sum and panicked)
            None => {
                return Err((
                    at as u64,
                    format!("a frame line claiming {len} bytes, more than any file holds"),
                ))
            }
            Some(end) if rest.len() < end => return Ok(()), // a partial last frame
            Some(_) => {}
        }
        let body = &rest[body_at..body_at + len];
        if hex(&Sha256::digest(body))[..16] != *sum {
            return Err((
                at as u64,
                "a frame whose content does not match its hash".into(),
            ));
        }
        let text = std::str::from_utf8(body)
            .map_err(|_| (at as u64, "a frame that is not text".to_string()))?;
        let index = text
            .strip_prefix(MAGIC)
            .and_then(|r| r.split_whitespace().nth(1))
            .and_then(|i| i.parse::<usize>().ok())
            .filter(|&i| decode(text, i).is_some())
            .ok_or_else(|| (at as u64, "a frame whose rows do not decode".to_string()))?;
        entries.insert(index, text.into());
        at += body_at + len;
    }
    Ok(())
}

/// Writes `bytes` to a unique temporary file beside `path`, then renames it
/// over `path` (atomic on POSIX file systems).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (pid, host) = (std::process::id(), super::hostname());
    let tmp = path.with_file_name(format!(".{name}.tmp-{pid}-{n}@{host}"));
    let err = |p: &Path| {
        let p = p.display().to_string();
        move |source| WriteError { path: p, source }
    };
    let result = (|| {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp).map_err(err(&tmp))?;
        f.write_all(bytes).map_err(err(&tmp))?;
        std::fs::rename(&tmp, path).map_err(err(path))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// One line per row, cells tab-separated and tagged: `s` string (escaped),
/// `i` integer, `f` float as its 64 bits in hex (exact), `e` empty; a header
/// with the task index and row count and an `end` line guard against a
/// truncated or misplaced file.
fn encode(rows: &[Row], index: usize) -> String {
    let mut s = format!("{MAGIC} task {index} rows {}\n", rows.len());
    for row in rows {
        for (k, cell) in row.iter().enumerate() {
            if k > 0 {
                s.push('\t');
            }
            match cell {
                Cell::Str(t) => {
                    s.push('s');
                    for c in t.chars() {
                        match c {
                            '\\' => s.push_str("\\\\"),
                            '\t' => s.push_str("\\t"),
                            '\n' => s.push_str("\\n"),
                            '\r' => s.push_str("\\r"),
                            c => s.push(c),
                        }
                    }
                }
                Cell::Int(i) => {
                    let _ = write!(s, "i{i}");
                }
                Cell::Float(x) => {
                    let _ = write!(s, "f{:016x}", x.to_bits());
                }
                Cell::Empty => s.push('e'),
            }
        }
        s.push('\n');
    }
    s.push_str("end\n");
    s
}

fn decode(text: &str, index: usize) -> Option<Vec<Row>> {
    let mut lines = text.split('\n');
    let header = lines.next()?;
    let rest = header.strip_prefix(MAGIC)?;
    let mut words = rest.split_whitespace();
    if words.next()? != "task" || words.next()?.parse::<usize>().ok()? != index {
        return None;
    }
    if words.next()? != "rows" {
        return None;
    }
    let count: usize = words.next()?.parse().ok()?;
    let mut rows = Vec::with_capacity(count.min(1 << 20));
    for _ in 0..count {
        let line = lines.next()?;
        let row = if line.is_empty() {
            Vec::new()
        } else {
            line.split('\t').map(decode_cell).collect::<Option<Row>>()?
        };
        rows.push(row);
    }
    (lines.next()? == "end" && lines.next() == Some("") && lines.next().is_none()).then_some(rows)
}

fn decode_cell(text: &str) -> Option<Cell> {
    let mut chars = text.chars();
    let tag = chars.next()?;
    let body = chars.as_str();
    Some(match tag {
        's' => {
            let mut out = String::with_capacity(body.len());
            let mut it = body.chars();
            while let Some(c) = it.next() {
                if c == '\\' {
                    out.push(match it.next()? {
                        '\\' => '\\',
                        't' => '\t',
                        'n' => '\n',
                        'r' => '\r',
                        _ => return None,
                    });
                } else {
                    out.push(c);
                }
            }
            Cell::Str(out)
        }
        'i' => Cell::Int(body.parse().ok()?),
        'f' if body.len() == 16 => Cell::Float(f64::from_bits(u64::from_str_radix(body, 16).ok()?)),
        'e' if body.is_empty() => Cell::Empty,
        _ => return None,
    })
}

/// A cached run found under a cache root.
#[derive(Debug, Clone)]
pub struct CachedRun {
    pub key: String,
    pub info: Option<RunInfo>,
    pub tasks_stored: usize,
    /// Files in the run's folder.
    pub files: usize,
    /// Their bytes (apparent size) and the space they take on disk.
    pub bytes: u64,
    pub disk_bytes: u64,
    /// When the run was last opened or stored a task: the newest modification
    /// time of its files (`run.json` is rewritten whenever a run uses the cache).
    pub last_used: Option<std::time::SystemTime>,
    /// Damage found in its packs: (file, byte offset, what).
    pub damaged: Vec<(PathBuf, u64, String)>,
}

/// Every run folder under `root`, sorted by key.
pub fn list(root: &Path) -> std::io::Result<Vec<CachedRun>> {
    let mut out = Vec::new();
    if !root.is_dir() {
        return Ok(out);
    }
    for entry in std::fs::read_dir(root)? {
        let entry = entry?;
        if !entry.file_type()?.is_dir() {
            continue;
        }
        let key = entry.file_name().to_string_lossy().into_owned();
        let info = read_text(&entry.path().join("run.json"), MAX_ROWS_BYTES)
            .and_then(|t| serde_json::from_str(&t).ok());
        let c = read_run(&entry.path(), &key);
        out.push(CachedRun {
            key,
            info,
            tasks_stored: c.entries.len(),
            files: c.files,
            bytes: c.bytes,
            disk_bytes: c.disk_bytes,
            last_used: c.last_used,
            damaged: c.damaged,
        });
    }
    out.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<Row> {
        vec![
            vec![
                Cell::Str("a\tb\\c\nd,\"e\"".into()),
                Cell::Int(-3),
                Cell::Float(0.1 + 0.2),
                Cell::Empty,
            ],
            vec![
                Cell::Float(f64::NEG_INFINITY),
                Cell::Float(-0.0),
                Cell::Float(f64::MIN_POSITIVE / 3.0),
                Cell::Str(String::new()),
            ],
            Vec::new(),
        ]
    }

    #[test]
    fn rows_round_trip_exactly() {
        let back = decode(&encode(&rows(), 7), 7).unwrap();
        assert_eq!(back.len(), 3);
        for (a, b) in rows().iter().flatten().zip(back.iter().flatten()) {
            match (a, b) {
                (Cell::Float(x), Cell::Float(y)) => assert_eq!(x.to_bits(), y.to_bits()),
                _ => assert_eq!(a, b),
            }
        }
    }

    #[test]
    fn damaged_or_misplaced_entries_read_as_absent() {
        let text = encode(&rows(), 7);
        assert!(decode(&text, 8).is_none(), "another task's file");
        assert!(decode(&text[..text.len() - 4], 7).is_none(), "truncated");
        assert!(decode(&text.replace("i-3", "i-x"), 7).is_none());
        assert!(decode(&text.replace("end\n", "end\nmore\n"), 7).is_none());
        assert!(decode("", 7).is_none());
    }

    #[test]
    fn store_then_load_and_keys_separate_everything() {
        let root = tempfile::tempdir().unwrap();
        let params = serde_json::json!({"epsilon": 1.0});
        let data = serde_json::json!([]);
        let parts = |seed, tasks, code| KeyParts {
            code,
            figure: "x/y",
            params: &params,
            seed,
            datasets: &data,
            tasks,
        };
        let k = run_key(&parts(1, 4, "c"));
        assert_eq!(k.len(), 64);
        assert_ne!(k, run_key(&parts(2, 4, "c")));
        assert_ne!(k, run_key(&parts(1, 5, "c")));
        assert_ne!(k, run_key(&parts(1, 4, "d")));
        let cache = RunCache::new(root.path(), &k);
        assert!(cache.load(0).is_none());
        // a killed run's temporary (no such process) is removed on open; a live one stays
        std::fs::create_dir_all(cache.dir()).unwrap();
        let host = crate::results::hostname();
        let stale = cache.dir().join(format!(".3.rows.tmp-4294967-0@{host}"));
        let live = cache
            .dir()
            .join(format!(".4.rows.tmp-{}-0@{host}", std::process::id()));
        // another node's temporary on a shared file system: never ours to remove
        let remote = cache.dir().join(".5.rows.tmp-4294967-0@another-node");
        std::fs::write(&stale, "x").unwrap();
        std::fs::write(&live, "x").unwrap();
        std::fs::write(&remote, "x").unwrap();
        cache
            .open(&RunInfo {
                figure: "x/y".into(),
                sweep_point: None,
                config_file: "c.toml".into(),
                code: "c".into(),
                tasks: 4,
            })
            .unwrap();
        assert!(!stale.exists() || !Path::new("/proc/self").exists());
        assert!(live.exists());
        assert!(remote.exists());
        std::fs::remove_file(&live).unwrap();
        std::fs::remove_file(&remote).unwrap();
        cache.store(0, &rows()).unwrap();
        // a new reader (another process) sees it
        let again = RunCache::new(root.path(), &k);
        assert_eq!(again.load(0).unwrap().len(), 3);
        let listed = list(root.path()).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].tasks_stored, 1);
        assert_eq!(listed[0].files, 2, "run.json and one pack");
        assert_eq!(listed[0].info.as_ref().unwrap().figure, "x/y");
    }

    fn info() -> RunInfo {
        RunInfo {
            figure: "x/y".into(),
            sweep_point: None,
            config_file: "c.toml".into(),
            code: "c".into(),
            tasks: 100,
        }
    }

    /// One pack per writing process, whatever the number of tasks; a partial last
    /// frame (a writer killed mid-append) is ignored without a report; a damaged
    /// frame is reported with its file and offset, and the frames before it are read.
    #[test]
    fn packs_hold_many_tasks_and_survive_a_torn_or_damaged_frame() {
        let root = tempfile::tempdir().unwrap();
        let c = RunCache::new(root.path(), "k");
        c.open(&info()).unwrap();
        for i in 0..100 {
            c.store(i, &rows()).unwrap();
        }
        let packs: Vec<PathBuf> = std::fs::read_dir(c.dir())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(PACK_EXT))
            .collect();
        assert_eq!(packs.len(), 1);
        let whole = std::fs::read(&packs[0]).unwrap();
        assert_eq!(read_run(c.dir(), "k").entries.len(), 100);
        // torn: the last frame cut short
        std::fs::write(&packs[0], &whole[..whole.len() - 7]).unwrap();
        let r = read_run(c.dir(), "k");
        assert_eq!(r.entries.len(), 99);
        assert!(r.damaged.is_empty(), "{:?}", r.damaged);
        assert!(RunCache::new(root.path(), "k").load(99).is_none());
        // damaged: one byte changed in the 50th frame's rows
        let mut bad = whole.clone();
        let at = whole.len() / 2;
        bad[at] ^= 0x01;
        std::fs::write(&packs[0], &bad).unwrap();
        let r = read_run(c.dir(), "k");
        assert_eq!(r.damaged.len(), 1);
        assert!(r.damaged[0].1 > 0 && (r.damaged[0].1 as usize) < at);
        assert!((40..60).contains(&r.entries.len()), "{}", r.entries.len());
        // a pack of another run, or not a pack: reported, nothing read
        std::fs::write(&packs[0], b"privpost-pack 1 key other\nframe 1 0\nx").unwrap();
        let r = read_run(c.dir(), "k");
        assert!(r.entries.is_empty() && r.damaged[0].2.contains("not a pack of this run"));
    }

    /// The per-task files of an earlier version are read, and packed (then removed)
    /// when a run next opens the cache; a damaged one is left out.
    #[test]
    fn per_task_files_are_read_and_converted_once() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("k");
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..5 {
            std::fs::write(dir.join(format!("{i}.rows")), encode(&rows(), i)).unwrap();
        }
        std::fs::write(dir.join("5.rows"), "privpost-rows 1 task 5 rows 9\n").unwrap();
        let c = RunCache::new(root.path(), "k");
        assert_eq!(c.load(3).unwrap().len(), 3, "read before conversion");
        c.open(&info()).unwrap();
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        let r = read_run(&dir, "k");
        assert_eq!(r.entries.len(), 5);
        assert!(RunCache::new(root.path(), "k").load(5).is_none());
    }

    /// Only regular files of bounded size are read: a frame length near 2⁶⁴ (which
    /// overflowed and panicked every later run and `cache status`) is damage at its
    /// offset; a pack that is a link to /dev/zero or a pipe is reported, not read
    /// (memory without bound, a wait forever); a `.rows` pipe or link to
    /// /dev/zero is left out.
    #[test]
    fn special_files_and_impossible_lengths_are_damage_not_panics_or_hangs() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("k");
        std::fs::create_dir_all(&dir).unwrap();
        let head = format!("{PACK_MAGIC} k\n");
        std::fs::write(
            dir.join(format!("a{PACK_EXT}")),
            format!("{head}frame 18446744073709551610 0123456789abcdef\nxyz"),
        )
        .unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.join(format!("b{PACK_EXT}"))).unwrap();
        let fifo = dir.join(format!("c{PACK_EXT}"));
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        std::os::unix::fs::symlink("/dev/zero", dir.join("7.rows")).unwrap();
        let rows_fifo = std::ffi::CString::new(dir.join("8.rows").to_str().unwrap()).unwrap();
        // SAFETY: as above
        assert_eq!(unsafe { libc::mkfifo(rows_fifo.as_ptr(), 0o600) }, 0);
        let r = read_run(&dir, "k");
        assert!(r.entries.is_empty());
        let said: Vec<&str> = r.damaged.iter().map(|d| d.2.as_str()).collect();
        assert_eq!(said.len(), 3, "{said:?}");
        assert!(said[0].contains("more than any file holds"), "{said:?}");
        assert!(said[1].contains("a device"), "{said:?}");
        assert!(said[2].contains("a pipe"), "{said:?}");
        assert!(RunCache::new(root.path(), "k").load(7).is_none());
        assert_eq!(list(root.path()).unwrap()[0].damaged.len(), 3);
    }
}
