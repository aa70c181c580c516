//! `api::merge`: once every shard of a plan (`run --shard i/n --out DIR`)
//! has finished, the figure folders written from the task cache — the same
//! `data.csv`, `summary.csv`, figures and manifest a single-machine run writes
//! — computing nothing. Refused (bad input) when tasks are missing, naming the
//! shards that owe them and why (not finished, other code, changed configs),
//! and the command that reruns one.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use super::error::ApiError;
use crate::error::CommandError;
use crate::invocation::sh_quote;
use crate::plan::{assignment, jobs, pool, prepare_all, Prepared};
use crate::results::cache::{self, RunCache};
use crate::results::manifest::{ShardUse, ShardsUse};
use crate::results::shards::{self, PlanFile, ShardRecord};
use crate::runner::{self, Options, Progress, Report};

/// How [`merge`] writes.
#[derive(Debug, Clone)]
pub struct MergeOptions {
    /// The plan id (or a unique prefix) when the folder holds several.
    pub plan: Option<String>,
    /// Worker threads (default: SLURM_CPUS_PER_TASK if set, else all cores).
    pub jobs: Option<usize>,
    /// Rewrite folders that are up to date.
    pub force: bool,
    /// The command line's bar or log lines on stderr, or nothing.
    pub progress: Progress,
    /// Set to end the work between figures (Ctrl-C).
    pub stop: Option<Arc<AtomicBool>>,
}

/// What [`merge`] wrote.
#[derive(Debug, Clone)]
pub struct MergeOutcome {
    /// The plan merged.
    pub plan: String,
    /// Its number of shards.
    pub shards: usize,
    /// One report per figure run, as `run` gives them.
    pub reports: Vec<Report>,
    pub wall_seconds: f64,
}

/// The plan of `dir` named by `wanted` (or the only one).
fn find_plan(dir: &std::path::Path, wanted: Option<&str>) -> Result<PlanFile, ApiError> {
    let plans = shards::read_plans(dir).map_err(|e| ApiError::input("dir", e))?;
    let describe = |p: &PlanFile| {
        format!(
            "{} ({} shards: {}{}{})",
            p.plan,
            p.shards,
            p.configs.join(" "),
            p.profile
                .as_deref()
                .map(|x| format!(" --profile {x}"))
                .unwrap_or_default(),
            p.set
                .iter()
                .map(|s| format!(" --set {s}"))
                .collect::<String>()
        )
    };
    let matching: Vec<&PlanFile> = plans
        .iter()
        .filter(|p| wanted.is_none_or(|w| p.plan.starts_with(w)))
        .collect();
    match (matching.as_slice(), wanted) {
        ([one], _) => Ok((*one).clone()),
        ([], None) => Err(ApiError::input("dir", format!(
            "{}: no sharded plan here ({} is missing or empty); run `privpost run … --shard i/n --out {}` or `privpost slurm …` first",
            dir.display(),
            dir.join(shards::DIR_NAME).display(),
            dir.display()
        ))),
        ([], Some(w)) => Err(ApiError::input("plan", format!(
            "--plan {w}: no such plan in {} (allowed: {})",
            dir.display(),
            if plans.is_empty() {
                "none: no sharded plan here".to_string()
            } else {
                plans.iter().map(|p| p.plan.as_str()).collect::<Vec<_>>().join(", ")
            }
        ))),
        (several, _) => Err(ApiError::input("plan", format!(
            "{}: {} plans match; choose one with --plan:\n  {}",
            dir.display(),
            several.len(),
            several.iter().map(|p| describe(p)).collect::<Vec<_>>().join("\n  ")
        ))),
    }
}

/// Why a shard's tasks are missing, from its record.
fn shard_state(record: Option<&ShardRecord>, run_keys: &[String], prepared: &[Prepared]) -> String {
    let Some(r) = record else {
        return "has not finished (no record: still running, failed or never started)".into();
    };
    if r.code_sha256 != cache::code_id() {
        return format!(
            "was computed by other code (binary SHA-256 {}…{}; this binary is {}…): rerun it with this binary, or merge with that one",
            r.code_sha256.chars().take(12).collect::<String>(),
            r.git_commit
                .as_deref()
                .map(|c| format!(", commit {c}"))
                .unwrap_or_default(),
            cache::code_id().chars().take(12).collect::<String>()
        );
    }
    let stale: Vec<String> = r
        .runs
        .iter()
        .filter_map(|share| {
            let k = prepared.iter().position(|p| {
                p.resolved.experiment == share.figure && p.resolved.sweep_label == share.sweep_point
            })?;
            (run_keys[k] != share.run_key).then(|| prepared[k].name())
        })
        .collect();
    if !stale.is_empty() {
        return format!(
            "finished on {} but for other inputs (the configs or data files of {} changed since): rerun it",
            r.host,
            stale.join(", ")
        );
    }
    format!(
        "finished on {} at {}, but its task files are gone from the cache: rerun it",
        r.host, r.finished_at
    )
}

/// `3, 7, 9-12` (the first ten ranges, then `…`).
fn ranges(tasks: &[usize]) -> String {
    let mut out = String::new();
    let mut k = 0;
    let mut shown = 0;
    while k < tasks.len() {
        if shown == 10 {
            out.push_str(", …");
            break;
        }
        shown += 1;
        let start = tasks[k];
        let mut end = start;
        while k + 1 < tasks.len() && tasks[k + 1] == end + 1 {
            k += 1;
            end = tasks[k];
        }
        if !out.is_empty() {
            out.push_str(", ");
        }
        if end == start {
            let _ = write!(out, "{start}");
        } else {
            let _ = write!(out, "{start}-{end}");
        }
        k += 1;
    }
    out
}

pub fn merge(dir: &Path, o: &MergeOptions) -> Result<MergeOutcome, ApiError> {
    let clock = Instant::now();
    let plan = find_plan(dir, o.plan.as_deref())?;
    let paths: Vec<crate::plan::ConfigRef> = plan
        .configs
        .iter()
        .map(|c| match crate::experiments::find(c) {
            Some(spec) if !std::path::Path::new(c).is_absolute() => {
                crate::plan::ConfigRef::BuiltIn(spec.id)
            }
            _ => crate::plan::ConfigRef::File(PathBuf::from(c)),
        })
        .collect();
    if let Some(missing) = paths
        .iter()
        .find(|p| matches!(p, crate::plan::ConfigRef::File(f) if !f.is_file()))
    {
        return Err(ApiError::input(
            "dir",
            format!("plan {}: its config {missing} no longer exists", plan.plan),
        ));
    }
    let at = |argument: &'static str| move |e: CommandError| ApiError::from_command(argument, e);
    let jobs = jobs(o.jobs).map_err(at("jobs"))?;
    crate::plan::check_writable(dir).map_err(at("dir"))?;
    let quiet = o.progress == Progress::Quiet;
    let prepared =
        prepare_all(&paths, plan.profile.as_deref(), &plan.set, quiet).map_err(at("dir"))?;
    let pool = pool(jobs).map_err(at("jobs"))?;
    let split = assignment(&prepared, plan.shards);
    let records = shards::read_records(dir, &plan);
    let cache_root = dir.join(cache::DIR_NAME);
    let keys: Vec<String> = prepared
        .iter()
        .map(|p| runner::run_key(p.figure.as_ref(), &p.resolved, p.figure.task_count()))
        .collect();

    // every task of every run must be in the cache before any folder is written
    // missing[shard] = [(run, tasks)]
    let mut missing: Vec<Vec<(usize, Vec<usize>)>> = vec![Vec::new(); plan.shards];
    let mut missing_total = 0usize;
    for (r, p) in prepared.iter().enumerate() {
        let c = RunCache::new(&cache_root, &keys[r]);
        let n = p.figure.task_count();
        let present: Vec<bool> = pool.install(|| {
            use rayon::prelude::*;
            (0..n)
                .into_par_iter()
                .map(|i| c.load(i).is_some())
                .collect()
        });
        for (s, runs) in split.tasks.iter().enumerate() {
            let absent: Vec<usize> = runs[r].iter().copied().filter(|&i| !present[i]).collect();
            if !absent.is_empty() {
                missing_total += absent.len();
                missing[s].push((r, absent));
            }
        }
    }
    if missing_total > 0 {
        let total: usize = prepared.iter().map(|p| p.figure.task_count()).sum();
        let owing: Vec<usize> = (0..plan.shards)
            .filter(|&s| !missing[s].is_empty())
            .collect();
        let mut msg = format!(
            "{}: cannot merge plan {}: {missing_total} of {total} tasks are missing, owed by {} of {} shards; nothing was written",
            dir.display(),
            plan.plan,
            owing.len(),
            plan.shards
        );
        for &s in owing.iter().take(20) {
            let _ = write!(
                msg,
                "\n  shard {}/{} {}",
                s + 1,
                plan.shards,
                shard_state(records[s].as_ref(), &keys, &prepared)
            );
            for (r, tasks) in missing[s].iter().take(5) {
                let _ = write!(
                    msg,
                    "\n    {}: tasks {} ({} of {})",
                    prepared[*r].name(),
                    ranges(tasks),
                    tasks.len(),
                    prepared[*r].figure.task_count()
                );
            }
            if missing[s].len() > 5 {
                let _ = write!(msg, "\n    … and {} more figure runs", missing[s].len() - 5);
            }
        }
        if owing.len() > 20 {
            let _ = write!(msg, "\n  … and {} more shards", owing.len() - 20);
        }
        let which = if owing.len() == 1 {
            (owing[0] + 1).to_string()
        } else {
            "i".into()
        };
        let _ = write!(
            msg,
            "\n  rerun a shard with: privpost run {}{}{} --out {} --shard {which}/{}",
            plan.configs
                .iter()
                .map(|c| sh_quote(c))
                .collect::<Vec<_>>()
                .join(" "),
            plan.profile
                .as_deref()
                .map(|x| format!(" --profile {}", sh_quote(x)))
                .unwrap_or_default(),
            plan.set
                .iter()
                .map(|s| format!(" --set {}", sh_quote(s)))
                .collect::<String>(),
            sh_quote(&dir.display().to_string()),
            plan.shards
        );
        return Err(ApiError::input("dir", msg));
    }

    let total = prepared.len();
    let mut reports = Vec::new();
    for (r, p) in prepared.iter().enumerate() {
        let used: Vec<ShardUse> = (0..plan.shards)
            .filter(|&s| !split.tasks[s][r].is_empty())
            .map(|s| {
                let record = records[s].as_ref();
                let share = record.and_then(|rec| rec.runs.iter().find(|x| x.run_key == keys[r]));
                ShardUse {
                    shard: s + 1,
                    tasks: split.tasks[s][r].len(),
                    computed: share.map_or(0, |x| x.computed),
                    host: record.map_or_else(|| "unknown (no record)".into(), |x| x.host.clone()),
                    slurm_job: record.and_then(|x| x.slurm_job.clone()),
                    finished_at: record.map_or_else(String::new, |x| x.finished_at.clone()),
                    code_sha256: record
                        .map_or_else(|| cache::code_id().to_string(), |x| x.code_sha256.clone()),
                }
            })
            .collect();
        let mut options = Options::new(
            o.progress,
            Some(cache_root.clone()),
            std::time::Duration::from_secs(30),
            (r + 1, total),
        );
        options.force = o.force;
        options.stop = o.stop.clone();
        options.cache_only = true;
        options.shards = Some(ShardsUse {
            plan: plan.plan.clone(),
            count: plan.shards,
            shards: used,
        });
        let report = runner::run(p.spec, p.figure.as_ref(), &p.resolved, dir, &pool, &options)
            .map_err(|e| ApiError::from_command("dir", e.into()))?;
        reports.push(report);
    }
    Ok(MergeOutcome {
        plan: plan.plan,
        shards: plan.shards,
        reports,
        wall_seconds: clock.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::ranges;

    #[test]
    fn task_ranges_are_compact() {
        assert_eq!(ranges(&[]), "");
        assert_eq!(ranges(&[3]), "3");
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), "0-2, 5, 7-8");
        let every_other: Vec<usize> = (0..30).map(|i| 2 * i).collect();
        assert_eq!(ranges(&every_other), "0, 2, 4, 6, 8, 10, 12, 14, 16, 18, …");
    }
}
