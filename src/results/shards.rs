//! The files of a sharded run, under `<out>/.privpost-shards/<plan>/`:
//!
//! ```text
//! plan.json                    the command: config files, profile, --set values, shard count
//! shard-<i>-of-<n>.json        one record per finished shard: code, host, Slurm job, its tasks
//! slurm/                       the sbatch scripts and logs of `privpost slurm`
//! ```
//!
//! The task rows themselves go to the task cache (`cache.rs`), one file per
//! task, so shards never write the same file with different bytes. `plan.json`
//! is the same bytes whichever shard writes it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::cache::{hex, write_atomic};
use super::WriteError;

/// The most shards a plan can be split into.
pub const MAX_SHARDS: usize = 100_000;

/// Folder of the sharded plans under an output root.
pub const DIR_NAME: &str = ".privpost-shards";

/// The command a sharded plan runs: what `merge` replays from the cache.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanFile {
    /// Plan id: hash of the other fields.
    pub plan: String,
    pub shards: usize,
    /// The configs in command order: a file's absolute path, a built-in figure's id.
    pub configs: Vec<String>,
    pub profile: Option<String>,
    /// The `--set KEY=VALUE` arguments, in command order.
    pub set: Vec<String>,
}

impl PlanFile {
    /// The plan of `configs` (each a target a later process is given: a config
    /// file's absolute path or a built-in figure's id) with `profile` and `set`,
    /// split into `shards`.
    pub fn new(
        configs: Vec<String>,
        profile: Option<&str>,
        set: &[String],
        shards: usize,
    ) -> std::io::Result<Self> {
        let mut h = Sha256::new();
        let shards_text = shards.to_string();
        let profile_text = profile.unwrap_or("");
        let fields = ["privpost plan v1", &shards_text, profile_text]
            .into_iter()
            .chain(configs.iter().map(String::as_str))
            .chain(["--set"])
            .chain(set.iter().map(String::as_str));
        for f in fields {
            h.update((f.len() as u64).to_le_bytes());
            h.update(f.as_bytes());
        }
        let plan = hex(&h.finalize())[..16].to_string();
        Ok(Self {
            plan,
            shards,
            configs,
            profile: profile.map(str::to_string),
            set: set.to_vec(),
        })
    }

    /// `<out>/.privpost-shards/<plan>`.
    pub fn dir(&self, out: &Path) -> PathBuf {
        out.join(DIR_NAME).join(&self.plan)
    }

    /// Writes `plan.json` (atomically; every shard writes the same bytes).
    pub fn write(&self, out: &Path) -> Result<PathBuf, WriteError> {
        let dir = self.dir(out);
        std::fs::create_dir_all(&dir).map_err(|source| WriteError {
            path: dir.display().to_string(),
            source,
        })?;
        let path = dir.join("plan.json");
        let text = serde_json::to_string_pretty(self).unwrap_or_default() + "\n";
        write_atomic(&path, text.as_bytes())?;
        Ok(path)
    }

    /// The record file of shard `index` (1-based).
    pub fn record_path(&self, out: &Path, index: usize) -> PathBuf {
        self.dir(out)
            .join(format!("shard-{index}-of-{}.json", self.shards))
    }
}

/// Every plan under `out`, sorted by id; a plan file that cannot be read is an
/// error naming it.
pub fn read_plans(out: &Path) -> Result<Vec<PlanFile>, String> {
    let root = out.join(DIR_NAME);
    let Ok(entries) = std::fs::read_dir(&root) else {
        return Ok(Vec::new());
    };
    let mut plans = Vec::new();
    for e in entries.flatten() {
        let path = e.path().join("plan.json");
        if !path.is_file() {
            continue;
        }
        let text = crate::input::read_found_text(&path)
            .map_err(|err| format!("{}: cannot read: {err}", path.display()))?;
        let plan: PlanFile = serde_json::from_str(&text)
            .map_err(|err| format!("{}: not a privpost plan file: {err}", path.display()))?;
        let max = MAX_SHARDS;
        if !(1..=max).contains(&plan.shards) || plan.configs.is_empty() {
            return Err(format!(
                "{}: key `shards` = {} with {} config(s): allowed are 1 to {max} shards and at least one config",
                path.display(),
                plan.shards,
                plan.configs.len()
            ));
        }
        plans.push(plan);
    }
    plans.sort_by(|a, b| a.plan.cmp(&b.plan));
    Ok(plans)
}

/// One shard's share of one figure run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunShare {
    pub figure: String,
    pub sweep_point: Option<String>,
    /// The task-cache key the rows were stored under.
    pub run_key: String,
    /// Task indices assigned to the shard.
    pub tasks: Vec<usize>,
    /// How many of them the shard computed (the rest were in the cache).
    pub computed: usize,
}

/// What a finished shard writes: which code ran where, and its tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardRecord {
    pub plan: String,
    /// 1-based.
    pub shard: usize,
    pub shards: usize,
    /// SHA-256 of the binary that computed the rows.
    pub code_sha256: String,
    pub git_commit: Option<String>,
    pub host: String,
    pub pid: u32,
    /// `SLURM_ARRAY_JOB_ID_SLURM_ARRAY_TASK_ID` (or `SLURM_JOB_ID`) under Slurm.
    pub slurm_job: Option<String>,
    pub jobs: usize,
    pub started_at: String,
    pub finished_at: String,
    pub wall_seconds: f64,
    /// Estimated cost of the shard's tasks (units of `Figure::task_cost`).
    pub cost: u64,
    pub runs: Vec<RunShare>,
}

impl ShardRecord {
    pub fn write(&self, path: &Path) -> Result<(), WriteError> {
        let text = serde_json::to_string_pretty(self).unwrap_or_default() + "\n";
        write_atomic(path, text.as_bytes())
    }
}

/// The Slurm job of this process, if it runs under Slurm.
pub fn slurm_job() -> Option<String> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    match (var("SLURM_ARRAY_JOB_ID"), var("SLURM_ARRAY_TASK_ID")) {
        (Some(job), Some(task)) => Some(format!("{job}_{task}")),
        _ => var("SLURM_JOB_ID"),
    }
}

/// The records of `plan`'s shards that are readable (index → record); an
/// unreadable record counts as absent (its shard is reported as unfinished).
pub fn read_records(out: &Path, plan: &PlanFile) -> Vec<Option<ShardRecord>> {
    (1..=plan.shards)
        .map(|i| {
            let text = crate::input::read_found_text(&plan.record_path(out, i)).ok()?;
            serde_json::from_str::<ShardRecord>(&text)
                .ok()
                .filter(|r| r.plan == plan.plan && r.shard == i && r.shards == plan.shards)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_ids_depend_on_every_part_and_files_round_trip() {
        let cfg = || {
            vec![
                "/abs/configs/a.toml".to_string(),
                "foulds2016/fig2".to_string(),
            ]
        };
        let set = vec!["epsilon=0.1,1".to_string()];
        let p = PlanFile::new(cfg(), Some("smoke"), &set, 4).unwrap();
        assert_eq!(p.plan.len(), 16);
        assert_eq!(p, PlanFile::new(cfg(), Some("smoke"), &set, 4).unwrap());
        assert_ne!(
            p.plan,
            PlanFile::new(cfg(), Some("smoke"), &set, 3).unwrap().plan
        );
        assert_ne!(p.plan, PlanFile::new(cfg(), None, &set, 4).unwrap().plan);
        assert_ne!(
            p.plan,
            PlanFile::new(cfg(), Some("smoke"), &[], 4).unwrap().plan
        );
        let out = tempfile::tempdir().unwrap();
        p.write(out.path()).unwrap();
        assert_eq!(read_plans(out.path()).unwrap(), vec![p.clone()]);
        let record = ShardRecord {
            plan: p.plan.clone(),
            shard: 2,
            shards: 4,
            code_sha256: "c".into(),
            git_commit: None,
            host: "h".into(),
            pid: 1,
            slurm_job: Some("7_1".into()),
            jobs: 2,
            started_at: "s".into(),
            finished_at: "f".into(),
            wall_seconds: 1.5,
            cost: 10,
            runs: vec![],
        };
        record.write(&p.record_path(out.path(), 2)).unwrap();
        std::fs::write(p.record_path(out.path(), 3), "{ truncated").unwrap();
        let records = read_records(out.path(), &p);
        assert_eq!(records.len(), 4);
        assert_eq!(records[1].as_ref(), Some(&record));
        assert!(records[0].is_none() && records[2].is_none() && records[3].is_none());
        std::fs::write(
            out.path().join(DIR_NAME).join(&p.plan).join("plan.json"),
            "x",
        )
        .unwrap();
        assert!(read_plans(out.path()).unwrap_err().contains("plan.json"));
    }
}
