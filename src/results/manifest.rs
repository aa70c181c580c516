//! `manifest.json`: the provenance of one figure folder — config, seed, code
//! version, command line, timings, datasets — and its privacy ledger.

use serde::Serialize;

use crate::privacy::ledger::Entry;

/// A dataset a figure read or generated.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
#[derive(Debug, Clone, Serialize)]
pub struct CacheUse {
    /// The key of this run's tasks: a rerun with the same key is up to date.
    pub run_key: String,
    /// SHA-256 of the binary that computed (or would compute) the rows.
    pub code_sha256: String,
    pub tasks_computed: usize,
    pub tasks_from_cache: usize,
}

/// The shards whose task rows `privpost merge` assembled into a folder.
#[derive(Debug, Clone, Serialize)]
pub struct ShardsUse {
    /// The plan id (`<out>/.privpost-shards/<plan>/`).
    pub plan: String,
    /// Shards in the plan.
    pub count: usize,
    /// The shards assigned tasks of this figure run, in shard order.
    pub shards: Vec<ShardUse>,
}

/// One shard's part in a merged figure run.
#[derive(Debug, Clone, Serialize)]
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
#[derive(Debug, Clone, Serialize)]
pub struct Timings {
    /// Preparing the figure before its tasks (data, fits, accounting).
    pub prepare_seconds: f64,
    pub tasks_seconds: f64,
    /// Tables after the tasks: data, summary and side tables.
    pub summary_seconds: f64,
    pub plot_seconds: f64,
    /// The cost model's units of all the run's tasks, summed and the largest
    /// (see `runner::estimate`): what wall-time estimates are calibrated on.
    pub cost_units: f64,
    pub max_task_cost_units: f64,
}

/// Everything `manifest.json` holds, in the order written.
#[derive(Debug, Clone, Serialize)]
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
    pub departures: Vec<String>,
    /// The external figure a `[compare]` run is drawn beside (a helper
    /// folder, not a sweep point).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compare_for: Option<String>,
    pub seed: u64,
    pub resolved_config: serde_json::Value,
    /// The privpost command line that produced the folder.
    pub command_line: Vec<String>,
    pub privpost_version: &'static str,
    pub git_commit: Option<&'static str>,
    pub git_dirty_at_build: Option<bool>,
    pub jobs: usize,
    pub tasks: usize,
    pub data_rows: usize,
    pub rng: &'static str,
    /// How the additive releases drew their noise (the ledger labels each entry).
    pub noise: NoiseRecord,
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
    /// (`plot` refuses a file whose number columns no longer hold numbers).
    pub columns: std::collections::BTreeMap<
        &'static str,
        std::collections::BTreeMap<String, crate::results::table::ColumnKind>,
    >,
    /// One entry per series or grid point: events, composition, guarantee, conditions.
    pub privacy: Vec<Entry>,
    /// The layout of the kept posterior draws (`draws.csv`), when the run keeps them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draws: Option<crate::results::draws::Layout>,
    pub details: serde_json::Value,
}

/// The noise mode of a run, and whether the same seed reproduces it.
#[derive(Debug, Clone, Serialize)]
pub struct NoiseRecord {
    pub mode: crate::privacy::event::NoiseMode,
    pub reproducible: bool,
    pub source: &'static str,
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
            },
        }
    }
}

impl Manifest {
    pub const RNG: &'static str =
        "ChaCha8, seed_from_u64(seed), stream = task index; set-up streams named in crates/privpost-core/src/rng.rs";

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }
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

    #[test]
    fn timestamps_are_rfc3339() {
        let t = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        assert_eq!(rfc3339(t), "2023-11-14T22:13:20Z");
    }
}
