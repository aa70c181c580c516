//! `api::run_shard`: one shard of a selection (`run --shard i/n`) computed
//! into the task cache, with its record; no figure folder is written. The
//! selection is planned, prepared and checked as [`run`](super::run()) does;
//! the tasks are split longest-first by estimated cost (`plan::assignment`),
//! so every shard of the same selection agrees on its slice. Once all shards
//! have finished, `privpost merge` writes the folders, byte-identical to a
//! single-machine run.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use super::error::ApiError;
use super::run::prepare_selection;
use crate::error::CommandError;
use crate::plan::{assignment, check_limits, footprints, pool, Selection};
use crate::results::cache;
use crate::results::manifest::rfc3339;
use crate::results::shards::{self, PlanFile, RunShare, ShardRecord};
use crate::runner::shard::ShardSpec;
use crate::runner::{self, Options, Progress};

/// How [`run_shard`] computes.
#[derive(Debug, Clone)]
pub struct ShardOptions {
    /// Which slice: i of n.
    pub shard: ShardSpec,
    /// The output root: the task cache and the shard records go under it.
    pub out: PathBuf,
    /// Worker threads (default: SLURM_CPUS_PER_TASK if set, else all cores).
    pub jobs: Option<usize>,
    /// Recompute tasks the cache holds.
    pub force: bool,
    /// After a figure fails, run the others (the shard then writes no record).
    pub keep_going: bool,
    /// Run even if the estimated work exceeds 10^15 flops.
    pub allow_long: bool,
    /// The command line's bar or log lines on stderr, or nothing.
    pub progress: Progress,
    /// Set to end the work between tasks (Ctrl-C).
    pub stop: Option<Arc<AtomicBool>>,
}

/// What [`run_shard`] did.
#[derive(Debug, Clone)]
pub struct ShardOutcome {
    /// The shard's record, as written.
    pub record: ShardRecord,
    /// Where it was written.
    pub record_path: PathBuf,
    /// The tasks of this shard (computed + taken from the cache).
    pub tasks: usize,
    /// The tasks computed now.
    pub computed: usize,
}

/// The figures that failed under `keep_going`, as one error (exit 1).
fn failure_list(failures: &[(String, anyhow::Error)], total: usize) -> ApiError {
    let list: Vec<String> = failures
        .iter()
        .map(|(name, e)| {
            let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            format!("{name}: {}", chain.join(": "))
        })
        .collect();
    ApiError::failed(format!(
        "{} of {total} figure(s) failed:\n  {}",
        failures.len(),
        list.join("\n  ")
    ))
}

/// One shard of `selection` run into the task cache, then its record (see
/// the module header). Bad input is an error before any work; a figure that
/// fails under `keep_going` leaves the shard without a record, so that
/// `merge` reports it unfinished.
pub fn run_shard(selection: &Selection, o: &ShardOptions) -> Result<ShardOutcome, ApiError> {
    let quiet = o.progress == Progress::Quiet;
    let (paths, prepared, jobs, heartbeat) =
        prepare_selection(selection, &o.out, o.jobs, quiet, true)?;
    let shard = o.shard;
    let split = assignment(&prepared, shard.count);
    let err = |e: CommandError| ApiError::from_command("selection", e);
    check_limits(
        &footprints(&prepared, |r| split.tasks[shard.index - 1][r].clone()),
        jobs,
        o.allow_long,
    )
    .map_err(err)?;
    let pool = pool(jobs).map_err(err)?;
    let started = std::time::SystemTime::now();
    let clock = Instant::now();
    let targets = crate::plan::as_targets(&paths)
        .map_err(|e| ApiError::input("targets", format!("cannot resolve the config paths: {e}")))?;
    let plan = PlanFile::new(targets, selection.profile(), &selection.set, shard.count)
        .map_err(|e| ApiError::input("targets", format!("cannot resolve the config paths: {e}")))?;
    plan.write(&o.out)
        .map_err(|e| ApiError::failed(format!("{e:#}")))?;
    let mine = &split.tasks[shard.index - 1];
    let total_cost: u64 = split.cost.iter().sum();
    let total_tasks: usize = prepared.iter().map(|p| p.figure.task_count()).sum();
    let my_tasks: usize = mine.iter().map(Vec::len).sum();
    if !quiet {
        errln!(
            "shard {shard} of plan {}: {my_tasks} of {total_tasks} tasks, {:.1}% of the estimated cost",
            plan.plan,
            100.0 * split.cost[shard.index - 1] as f64 / total_cost.max(1) as f64
        );
    }
    if !quiet {
        for (p, tasks) in prepared.iter().zip(mine) {
            if !tasks.is_empty() {
                let cost: f64 = tasks.iter().map(|&i| p.figure.task_cost(i)).sum();
                errln!(
                    "  {}: {} of {} tasks, estimated {:.3} Gflop",
                    p.name(),
                    tasks.len(),
                    p.figure.task_count(),
                    cost / 1e9
                );
            }
        }
    }
    let runs_with_tasks = mine.iter().filter(|t| !t.is_empty()).count();
    let mut shares = Vec::new();
    let mut failures: Vec<(String, anyhow::Error)> = Vec::new();
    let mut position = 0;
    for (p, tasks) in prepared.iter().zip(mine) {
        if tasks.is_empty() {
            continue;
        }
        position += 1;
        let mut options = Options::new(
            o.progress,
            Some(o.out.join(cache::DIR_NAME)),
            heartbeat,
            (position, runs_with_tasks),
        );
        options.force = o.force;
        options.stop = o.stop.clone();
        match runner::run_shard(p.figure.as_ref(), &p.resolved, tasks, &pool, &options) {
            Ok(r) => shares.push(RunShare {
                figure: p.resolved.experiment.clone(),
                sweep_point: p.resolved.sweep_label.clone(),
                run_key: r.run_key,
                tasks: tasks.clone(),
                computed: r.computed,
            }),
            Err(e) if o.keep_going && !matches!(e, runner::RunError::Interrupted { .. }) => {
                let name = p.name();
                if !quiet {
                    errln!("error: {name}: {e}");
                }
                failures.push((name, e.into()));
            }
            Err(e) => return Err(err(e.into())),
        }
    }
    if !failures.is_empty() {
        // no record: merge reports this shard as unfinished
        return Err(failure_list(&failures, runs_with_tasks));
    }
    let computed: usize = shares.iter().map(|s| s.computed).sum();
    let record = ShardRecord {
        plan: plan.plan.clone(),
        shard: shard.index,
        shards: shard.count,
        code_sha256: cache::code_id().to_string(),
        git_commit: option_env!("PRIVPOST_GIT_COMMIT").map(str::to_string),
        host: crate::results::hostname().to_string(),
        pid: std::process::id(),
        slurm_job: shards::slurm_job(),
        jobs: pool.current_num_threads(),
        started_at: rfc3339(started),
        finished_at: rfc3339(std::time::SystemTime::now()),
        wall_seconds: clock.elapsed().as_secs_f64(),
        cost: split.cost[shard.index - 1],
        runs: shares,
    };
    let record_path = plan.record_path(&o.out, shard.index);
    record
        .write(&record_path)
        .map_err(|e| ApiError::failed(format!("{e:#}")))?;
    Ok(ShardOutcome {
        record,
        record_path,
        tasks: my_tasks,
        computed,
    })
}
