//! The task cache: a finished task's rows, stored under a key made of
//! everything that determines them, so that a rerun, a resumed run (after
//! Ctrl-C or SIGKILL) or an extended sweep computes only what is missing.
//!
//! Key of a figure run ([`run_key`]): SHA-256 of the code identity (a hash of
//! the running binary, so rows computed by other code are never served), the
//! figure id, the resolved parameters, the seed, the datasets read (their
//! SHA-256s) and the task count. Task `i` draws from `task_rng(seed, i)`, so
//! (run key, i) determines its rows. Layout under the cache root:
//!
//! ```text
//! <root>/<run key>/run.json        figure, sweep point, code, task count (for `cache status`)
//! <root>/<run key>/<i>.rows        task i's rows, exact (floats as bit patterns)
//! ```
//!
//! Every file is written to a unique temporary name and renamed into place,
//! so a reader sees a whole file or none, and two concurrent runs writing the
//! same task write the same bytes to the same name.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use super::table::{Cell, Row};
use super::WriteError;

/// Folder name of the cache under an output root.
pub const DIR_NAME: &str = ".privpost-cache";

const MAGIC: &str = "privpost-rows 1";

/// SHA-256 of the running binary: the code that computes the rows.
pub fn code_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let exe = std::env::current_exe().ok();
        let bytes = exe.and_then(|p| std::fs::read(p).ok());
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
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn task_path(&self, index: usize) -> PathBuf {
        self.dir.join(format!("{index}.rows"))
    }

    /// Creates the folder and records what the run is.
    pub fn open(&self, info: &RunInfo) -> Result<(), WriteError> {
        std::fs::create_dir_all(&self.dir).map_err(|source| WriteError {
            path: self.dir.display().to_string(),
            source,
        })?;
        self.remove_stale_temporaries();
        let text = serde_json::to_string_pretty(info).unwrap_or_default() + "\n";
        write_atomic(&self.dir.join("run.json"), text.as_bytes())
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

    /// Task `index`'s rows, if a whole, readable entry is stored. A damaged
    /// entry reads as absent: the task is computed again and the entry rewritten.
    pub fn load(&self, index: usize) -> Option<Vec<Row>> {
        let text = std::fs::read_to_string(self.task_path(index)).ok()?;
        decode(&text, index)
    }

    /// Stores task `index`'s rows atomically.
    pub fn store(&self, index: usize, rows: &[Row]) -> Result<(), WriteError> {
        write_atomic(&self.task_path(index), encode(rows, index).as_bytes())
    }
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
    pub bytes: u64,
    /// When the run was last opened or stored a task: the newest modification
    /// time of its files (`run.json` is rewritten whenever a run uses the cache).
    pub last_used: Option<std::time::SystemTime>,
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
        let info = std::fs::read_to_string(entry.path().join("run.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        let mut tasks_stored = 0;
        let mut bytes = 0;
        let mut last_used = None;
        for f in std::fs::read_dir(entry.path())? {
            let f = f?;
            let meta = f.metadata()?;
            bytes += meta.len();
            last_used = last_used.max(meta.modified().ok());
            if f.file_name().to_string_lossy().ends_with(".rows")
                && !f.file_name().to_string_lossy().starts_with('.')
            {
                tasks_stored += 1;
            }
        }
        out.push(CachedRun {
            key,
            info,
            tasks_stored,
            bytes,
            last_used,
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
        assert_eq!(cache.load(0).unwrap().len(), 3);
        let listed = list(root.path()).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].tasks_stored, 1);
        assert_eq!(listed[0].info.as_ref().unwrap().figure, "x/y");
    }
}
