//! `manifest.json`: the provenance of a folder privpost wrote. Two kinds, one
//! type ([`FolderManifest`]): a figure's ([`Manifest`]: config, seed, code
//! version, command line, timings, datasets, and its privacy ledger; written by
//! `runner::write`) and a posterior's of `privpost infer` ([`InferManifest`]:
//! the release, the kernel, the chains; written by `api::infer`). Every reader
//! goes through [`FolderManifest::read`] or, where only a figure will do,
//! [`Manifest::read`]: gallery, combine, show, plot, `account --manifest`, the
//! runner's up-to-date check, external figures, `infer` (recorded releases and
//! the folder it would replace), the Python module's `load`. Every field a
//! reader needs is required; the rest default, so manifests of an older
//! privpost (tests/reference/manifests/) still read. The two kinds keep their
//! own shapes, so those older files read and new ones write as they always
//! were: a figure's in field order, an infer posterior's with its keys sorted.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::privacy::ledger::Entry;

/// A dataset a figure read or generated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetRecord {
    /// The name the config uses (e.g. `adult`, `iraq`).
    pub name: String,
    /// Files read (relative to the data folder or as given), or empty when generated.
    pub files: Vec<String>,
    /// SHA-256 of each file, in the order of `files`.
    pub sha256: Vec<String>,
    /// Rows (records) used, after preprocessing.
    pub rows: usize,
    /// How it was made or read, e.g. "pip wheel, §5.2 preprocessing" or the generator's settings.
    pub source: serde_json::Value,
}

/// How the run used the task cache.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CacheUse {
    /// The key of this run's tasks: a rerun with the same key is up to date.
    pub run_key: String,
    /// SHA-256 of the binary that computed (or would compute) the rows.
    pub code_sha256: String,
    pub tasks_computed: usize,
    pub tasks_from_cache: usize,
}

/// The shards whose task rows `privpost merge` assembled into a folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardsUse {
    /// The plan id (`<out>/.privpost-shards/<plan>/`).
    pub plan: String,
    /// Shards in the plan.
    pub count: usize,
    /// The shards assigned tasks of this figure run, in shard order.
    pub shards: Vec<ShardUse>,
}

/// One shard's part in a merged figure run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardUse {
    /// 1-based shard number.
    pub shard: usize,
    /// Tasks of this figure run assigned to the shard.
    pub tasks: usize,
    /// Of those, computed by the shard (the rest it found in the cache).
    pub computed: usize,
    pub host: String,
    /// `SLURM_JOB_ID` (array job `_` task) when the shard ran under Slurm.
    pub slurm_job: Option<String>,
    pub finished_at: String,
    pub code_sha256: String,
}

/// Wall-clock split of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Preparing the figure before its tasks (data, fits, accounting).
    pub prepare_seconds: f64,
    pub tasks_seconds: f64,
    /// Tables after the tasks: data, summary and side tables.
    pub summary_seconds: f64,
    pub plot_seconds: f64,
    /// The cost model's units of all the run's tasks, summed and the largest
    /// (see `runner::estimate`): what wall-time estimates are calibrated on;
    /// 0 in manifests written before the cost model.
    #[serde(default)]
    pub cost_units: f64,
    #[serde(default)]
    pub max_task_cost_units: f64,
}

/// Everything `manifest.json` holds, in the order written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub figure: String,
    pub description: Option<String>,
    pub config_file: String,
    pub profile: Option<String>,
    pub overrides: Vec<String>,
    pub sweep_point: Option<String>,
    /// The config's own `id` (the folder), when it declares one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// How the run departs from the paper's setting (own config, profile,
    /// changed values); empty for the shipped config at the paper's setting.
    /// Absent (None) in manifests written before privpost recorded it: their
    /// departures are read from `profile`, `overrides` and `sweep_point`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub departures: Option<Vec<String>>,
    /// The external figure a `[compare]` run is drawn beside (a helper
    /// folder, not a sweep point).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compare_for: Option<String>,
    pub seed: u64,
    pub resolved_config: serde_json::Value,
    /// The privpost command line that produced the folder.
    pub command_line: Vec<String>,
    pub privpost_version: String,
    pub git_commit: Option<String>,
    pub git_dirty_at_build: Option<bool>,
    pub jobs: usize,
    pub tasks: usize,
    pub data_rows: usize,
    pub rng: String,
    /// How the additive releases drew their noise (the ledger labels each
    /// entry); float, the papers' noise, in manifests written before the modes.
    #[serde(default)]
    pub noise: NoiseRecord,
    /// Absent in the earliest manifests: such a folder is never up to date.
    #[serde(default)]
    pub cache: CacheUse,
    /// Present when `privpost merge` assembled the folder from shards.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shards: Option<ShardsUse>,
    pub started_at: String,
    pub finished_at: String,
    pub wall_seconds: f64,
    pub timings: Timings,
    pub datasets: Vec<DatasetRecord>,
    /// The kind of every column of `data.csv` and `summary.csv` as written
    /// (`plot` refuses a file whose number columns no longer hold numbers);
    /// empty in manifests written before privpost recorded them.
    #[serde(default)]
    pub columns: std::collections::BTreeMap<
        String,
        std::collections::BTreeMap<String, crate::results::table::ColumnKind>,
    >,
    /// One entry per series or grid point: events, composition, guarantee, conditions.
    #[serde(default)]
    pub privacy: Vec<Entry>,
    /// What a membership attacker can do against each private release of the ledger
    /// (μ-GDP, TPR at FPR, advantage: `privacy::release_risk`); empty in manifests
    /// written before privpost recorded it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attack_risk: Vec<crate::privacy::release_risk::ReleaseRisk>,
    /// The layout of the kept posterior draws (`draws.csv`), when the run keeps them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draws: Option<crate::results::draws::Layout>,
    pub details: serde_json::Value,
}

/// What `manifest.json` of an infer folder holds (docs/infer.md): written by
/// `api::infer`, read back typed by [`FolderManifest::read`]. Written with its
/// keys sorted, as it always was.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InferManifest {
    /// Always `infer`: what tells this manifest from a figure's.
    pub command: String,
    pub privpost_version: String,
    /// What the posterior was computed from (absent in the first infer folders).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// What the user should know of the run (absent in the first infer folders).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warnings: Option<Vec<String>>,
    /// The release file's keys, as checked.
    pub release_file: serde_json::Value,
    pub method: String,
    pub kernel: String,
    pub chains: usize,
    pub warmup: usize,
    pub seed: u64,
    pub record_acceptance: f64,
    pub record_acceptance_bound: Option<f64>,
    pub changing_proposals_accepted: f64,
    pub l1_sensitivity: f64,
    pub wall_seconds: f64,
    pub cpu_seconds: f64,
    /// The layout of draws.csv.
    pub draws: crate::results::draws::Layout,
    /// The columns of summary.csv.
    pub columns: std::collections::BTreeMap<String, Vec<String>>,
    pub privacy: InferPrivacy,
}

/// An infer folder's privacy: none added (post-processing of the release).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InferPrivacy {
    pub added_cost: String,
    pub why: String,
}

/// A folder's manifest, of the kind that wrote it: what every reader reads
/// and both writers write.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", content = "manifest", rename_all = "lowercase")]
pub enum FolderManifest {
    Figure(Box<Manifest>),
    Infer(Box<InferManifest>),
}

impl FolderManifest {
    /// The manifest of a folder (`dir/manifest.json`, a regular file only: a
    /// pipe found there would be waited on forever) or a manifest file named as
    /// such (which may be a pipe), read and checked: at most
    /// [`crate::input::MAX_JSON_BYTES`], valid JSON, no key given twice, every
    /// field of its type; an infer posterior's when its `command` is `infer`.
    pub fn read(path: &Path) -> Result<FolderManifest, ManifestError> {
        let (file, value) = read_value(path)?;
        let bad = |what: String| ManifestError {
            path: file.clone(),
            missing: false,
            what,
        };
        if value.get("command").and_then(|c| c.as_str()) == Some("infer") {
            return serde_json::from_value(value)
                .map(|m| FolderManifest::Infer(Box::new(m)))
                .map_err(|e| {
                    bad(format!(
                    "not an infer manifest this privpost reads: {e} (allowed: a manifest.json written by `privpost infer`)"
                ))
                });
        }
        serde_json::from_value(value)
            .map(|m| FolderManifest::Figure(Box::new(m)))
            .map_err(|e| {
                bad(format!(
                "not a figure manifest this privpost reads: {e} (allowed: a manifest.json written by `privpost run`)"
            ))
            })
    }

    /// The text of `manifest.json`: a figure's fields in their order, an infer
    /// posterior's keys sorted (through a JSON value), as each was always written.
    pub fn to_json(&self) -> String {
        match self {
            FolderManifest::Figure(m) => m.to_json(),
            FolderManifest::Infer(m) => {
                serde_json::to_value(m)
                    .and_then(|v| serde_json::to_string_pretty(&v))
                    .unwrap_or_default()
                    + "\n"
            }
        }
    }
}

/// The noise mode of a run, and whether the same seed reproduces it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoiseRecord {
    pub mode: crate::privacy::event::NoiseMode,
    pub reproducible: bool,
    pub source: String,
}

impl Default for NoiseRecord {
    fn default() -> Self {
        NoiseRecord::of(crate::privacy::event::NoiseMode::Float)
    }
}

impl NoiseRecord {
    pub fn of(mode: crate::privacy::event::NoiseMode) -> Self {
        use crate::privacy::event::NoiseMode;
        Self {
            mode,
            reproducible: mode.reproducible(),
            source: match mode {
                NoiseMode::Float => "floating-point samplers on the task's seeded stream (the papers' noise; not private as implemented: see the float_attack audit)",
                NoiseMode::Exact => "CKS20 exact discrete samplers on the task's seeded stream: exact distribution, byte-reproducible, not secret (the seed replays the noise)",
                NoiseMode::Secure => "CKS20 exact discrete samplers on a ChaCha20 keyed from the operating system's random source for every release: NOT reproducible (the seed drives only the data and the non-additive randomness), no task cached; rejection samplers may leak through timing",
            }
            .to_string(),
        }
    }
}

impl Manifest {
    pub const RNG: &'static str =
        "ChaCha8, seed_from_u64(seed), stream = task index; set-up streams named in crates/privpost-core/src/rng.rs";

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// The manifest of a figure folder (`dir/manifest.json`, a regular file
    /// only: a pipe found there would be waited on forever) or a manifest file
    /// named as such (which may be a pipe), read and checked: at most
    /// [`crate::input::MAX_JSON_BYTES`], valid JSON, no key given twice, every
    /// field of its type. `privpost infer`'s folders are refused, naming what
    /// they are.
    pub fn read(path: &Path) -> Result<Manifest, ManifestError> {
        match FolderManifest::read(path)? {
            FolderManifest::Figure(m) => Ok(*m),
            FolderManifest::Infer(_) => Err(ManifestError {
                path: if path.is_dir() {
                    path.join("manifest.json")
                } else {
                    path.to_path_buf()
                },
                missing: false,
                what: "the manifest of a `privpost infer` posterior, not of a figure (allowed: a figure folder written by `privpost run`)".into(),
            }),
        }
    }
}

/// The JSON of a folder's `manifest.json` (a regular file only) or of a
/// manifest file named as such, checked as [`FolderManifest::read`] says but
/// not typed: the file read and the value (`account --manifest` reads a bare
/// ledger through it).
pub fn read_value(path: &Path) -> Result<(PathBuf, serde_json::Value), ManifestError> {
    let (file, found) = if path.is_dir() {
        (path.join("manifest.json"), true)
    } else {
        (path.to_path_buf(), false)
    };
    let bad = |what: String| ManifestError {
        path: file.clone(),
        missing: false,
        what,
    };
    if std::fs::symlink_metadata(&file).is_err() {
        return Err(ManifestError {
            missing: true,
            ..bad(if found {
                "missing: not a folder privpost wrote (allowed: a figure folder written by `privpost run`)".into()
            } else {
                "no such file (allowed: a figure folder or its manifest.json)".into()
            })
        });
    }
    let text = if found {
        crate::input::read_found_text(&file).map_err(|e| e.to_string())
    } else {
        crate::input::read_input_text(&file, crate::input::MAX_JSON_BYTES)
            .map_err(|e| e.to_string())
    }
    .map_err(|e| bad(format!("cannot be read: {e}")))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("not valid JSON: {e}")))?;
    if let Some(key) = crate::results::json_keys::duplicate_key(&text) {
        return Err(bad(format!(
                "key `{key}` given twice (JSON would keep the last without a word); allowed: each key once"
            )));
    }
    Ok((file, value))
}

/// A manifest that cannot be read: the file, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}: {what}", path.display())]
pub struct ManifestError {
    pub path: PathBuf,
    /// The file does not exist.
    pub missing: bool,
    pub what: String,
}

/// UTC timestamp `YYYY-MM-DDTHH:MM:SSZ` (civil-from-days, Hinnant's algorithm).
pub fn rfc3339(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A manifest written by privpost at e1b8e2a (2026-12-01) reads, and
    /// writes back to the same JSON value.
    #[test]
    fn a_manifest_of_e1b8e2a_still_reads() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/manifests");
        let file = dir.join("e1b8e2a-foulds2016-fig2.json");
        let m = Manifest::read(&file).unwrap();
        assert_eq!(m.figure, "foulds2016/fig2");
        assert_eq!(
            m.git_commit.as_deref(),
            Some("e1b8e2afa86a4f7fdf5130ebb3cdc1679b9923a1")
        );
        assert!(!m.privacy.is_empty());
        let text = std::fs::read_to_string(&file).unwrap();
        let original: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_value(&m).unwrap(), original);
    }

    #[test]
    fn unreadable_manifests_name_the_file_and_the_fault() {
        let tmp = tempfile::tempdir().unwrap();
        let e = Manifest::read(tmp.path()).unwrap_err();
        assert!(
            e.missing && e.to_string().contains("manifest.json: missing"),
            "{e}"
        );
        let f = tmp.path().join("manifest.json");
        std::fs::write(&f, r#"{"figure": "x", "figure": "y"}"#).unwrap();
        assert!(Manifest::read(tmp.path())
            .unwrap_err()
            .what
            .contains("given twice"));
        std::fs::write(&f, r#"{"command": "infer"}"#).unwrap();
        assert!(Manifest::read(tmp.path())
            .unwrap_err()
            .what
            .contains("privpost infer"));
        std::fs::write(&f, r#"{"figure": "x"}"#).unwrap();
        assert!(Manifest::read(&f)
            .unwrap_err()
            .what
            .contains("missing field"));
    }

    #[test]
    fn timestamps_are_rfc3339() {
        let t = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        assert_eq!(rfc3339(t), "2023-11-14T22:13:20Z");
    }
}
