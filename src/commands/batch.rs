//! Running a selection, shared by the `run` verb and `audit`: validate every
//! config (`plan`), prepare (fetch missing datasets, generate data, fit
//! initialisations), check the limits, run the tasks (reusing finished ones from
//! the task cache) or one shard of them, write the outputs and the gallery.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::{CommandError, Work};
use crate::api::run::prepare_selection;
use crate::api::{self, RunOptions};
use crate::plan::{assignment, check_limits, footprints, pool, Prepared, Selection};
use crate::results::cache;
use crate::results::manifest::rfc3339;
use crate::results::shards::{self, PlanFile, RunShare, ShardRecord};
use crate::runner::shard::ShardSpec;
use crate::runner::{self, Options, Progress, Report};

/// Run configs and write CSVs, figures and manifests under --out.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Targets are config files or figure ids (`privpost run foulds2016/fig2`).

Sweeps: --set epsilon=0.1,0.5,1   --set epsilon=[0.1,0.5,1]   --set epsilon=range(0.1,1,0.1)
        --set epsilon=geomspace(0.01,10,7)   --set lambdas=[[2,15],[4,30]] (a list-valued key)
Each point is written to <out>/<paper>/<figure>@key=value; `privpost combine` joins them.

Finished tasks are kept in <out>/.privpost-cache (keyed by figure, parameters, seed, datasets and
the binary's SHA-256): a rerun computes only what is missing, an up-to-date folder is left as it
is, and an interrupted run resumes. --force recomputes. In a log (no terminal, or CI set) a
heartbeat line is printed every 30 s per running figure (PRIVPOST_HEARTBEAT_SECONDS changes it).
PRIVPOST_TASK_TIMES=FILE appends each computed task's seconds to FILE (for calibrating estimates).

Shards: --shard i/n computes the i-th of n slices of all tasks of the command (balanced by cost
estimates) into <out>/.privpost-cache and writes no figure folder; once all n have finished,
`privpost merge <out>` writes the folders (CSVs byte-identical to a single-machine run).
`privpost slurm` writes and submits the job array for you."
)]
pub struct RunArgs {
    #[command(flatten)]
    pub selection: Selection,
    #[command(flatten)]
    pub work: Work,
    /// Output root.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// After a figure fails, run the remaining ones; exit 1 at the end with a list of failures.
    #[arg(long)]
    pub keep_going: bool,
    /// Do not read or write the task cache.
    #[arg(long, conflicts_with = "shard")]
    pub no_cache: bool,
    /// Compute only slice i of n of the plan's tasks into the task cache (1 ≤ i ≤ n); see `privpost merge`.
    #[arg(long, value_name = "i/n")]
    pub shard: Option<ShardSpec>,
    /// Run even if the estimated work exceeds 10^15 flops (about a CPU-week).
    #[arg(long)]
    pub allow_long: bool,
}

/// `run`, answering the figure folders it wrote or found up to date (none for
/// a shard): [`api::run`](crate::api::run()), its reports printed as a table.
pub fn run_folders(args: RunArgs) -> Result<Vec<PathBuf>, CommandError> {
    let progress = if args.work.quiet {
        Progress::Quiet
    } else {
        Progress::detect()
    };
    if let Some(shard) = args.shard {
        let (paths, prepared, jobs, heartbeat) = prepare_selection(
            &args.selection,
            &args.out,
            args.work.jobs,
            args.work.quiet,
            true,
        )?;
        let split = assignment(&prepared, shard.count);
        check_limits(
            &footprints(&prepared, |r| split.tasks[shard.index - 1][r].clone()),
            jobs,
            args.allow_long,
        )?;
        let pool = pool(jobs)?;
        return run_shard(&args, &paths, shard, &prepared, &pool, progress, heartbeat)
            .map(|()| Vec::new());
    }
    let outcome = api::run(
        &args.selection,
        &RunOptions {
            out: args.out.clone(),
            jobs: args.work.jobs,
            force: args.work.force,
            no_cache: args.no_cache,
            allow_long: args.allow_long,
            keep_going: args.keep_going,
            progress,
            stop: None,
        },
    )?;
    let reports = &outcome.reports;
    let computed: usize = reports.iter().map(|r| r.computed).sum();
    let tasks: usize = reports.iter().map(|r| r.tasks).sum();
    crate::outln!(
        "wrote {} figure(s) in {:.2} s wall ({} jobs; {computed} of {tasks} tasks computed, the rest cached):",
        reports.iter().filter(|r| !r.up_to_date).count(),
        outcome.wall_seconds,
        outcome.jobs
    );
    let width = Report::name_width(reports);
    for r in reports {
        crate::outln!(
            "  {:<width$} {:>8} tasks {:>8} computed {:>8.2} s  {}{}",
            r.name(),
            r.tasks,
            r.computed,
            r.wall_seconds,
            r.dir.join("figure.png").display(),
            if r.up_to_date { "  (up to date)" } else { "" }
        );
    }
    if !reports.is_empty() {
        match &outcome.gallery {
            Ok(page) => crate::outln!("gallery: {}", page.display()),
            Err(e) => errln!("warning: gallery not written: {e}"),
        }
    }
    if let Some(e) = outcome.failure() {
        return Err(e.into());
    }
    Ok(outcome.reports.into_iter().map(|r| r.dir).collect())
}

/// Exit 1 listing the failed figures, if any.
fn failure_list(failures: &[(String, anyhow::Error)], total: usize) -> Result<(), CommandError> {
    if !failures.is_empty() {
        let list: Vec<String> = failures
            .iter()
            .map(|(name, e)| {
                format!(
                    "{name}: {}",
                    e.chain()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(": ")
                )
            })
            .collect();
        return Err(CommandError::failed(format!(
            "{} of {total} figure(s) failed:\n  {}",
            failures.len(),
            list.join("\n  ")
        )));
    }
    Ok(())
}

/// `run --shard i/n`: this shard's tasks of every figure run into the task
/// cache, then its record; no figure folder is written.
fn run_shard(
    args: &RunArgs,
    paths: &[crate::plan::ConfigRef],
    shard: ShardSpec,
    prepared: &[Prepared],
    pool: &rayon::ThreadPool,
    progress: Progress,
    heartbeat: Duration,
) -> Result<(), CommandError> {
    let started = std::time::SystemTime::now();
    let clock = Instant::now();
    let sel = &args.selection;
    let targets = crate::plan::as_targets(paths)
        .map_err(|e| CommandError::input(format!("cannot resolve the config paths: {e}")))?;
    let plan = PlanFile::new(targets, sel.profile(), &sel.set, shard.count)
        .map_err(|e| CommandError::input(format!("cannot resolve the config paths: {e}")))?;
    plan.write(&args.out)
        .map_err(|e| CommandError::Failed(e.into()))?;
    let split = assignment(prepared, shard.count);
    let mine = &split.tasks[shard.index - 1];
    let total_cost: u64 = split.cost.iter().sum();
    let total_tasks: usize = prepared.iter().map(|p| p.figure.task_count()).sum();
    let my_tasks: usize = mine.iter().map(Vec::len).sum();
    if progress != Progress::Quiet {
        errln!(
            "shard {shard} of plan {}: {my_tasks} of {total_tasks} tasks, {:.1}% of the estimated cost",
            plan.plan,
            100.0 * split.cost[shard.index - 1] as f64 / total_cost.max(1) as f64
        );
    }
    if progress != Progress::Quiet {
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
            progress,
            Some(args.out.join(cache::DIR_NAME)),
            heartbeat,
            (position, runs_with_tasks),
        );
        options.force = args.work.force;
        match runner::run_shard(p.figure.as_ref(), &p.resolved, tasks, pool, &options) {
            Ok(r) => shares.push(RunShare {
                figure: p.resolved.experiment.clone(),
                sweep_point: p.resolved.sweep_label.clone(),
                run_key: r.run_key,
                tasks: tasks.clone(),
                computed: r.computed,
            }),
            Err(e) if args.keep_going && !matches!(e, runner::RunError::Interrupted { .. }) => {
                let name = p.name();
                errln!("error: {name}: {e}");
                failures.push((name, e.into()));
            }
            Err(e) => return Err(e.into()),
        }
    }
    if !failures.is_empty() {
        // no record: merge reports this shard as unfinished
        return failure_list(&failures, runs_with_tasks);
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
    let path = plan.record_path(&args.out, shard.index);
    record
        .write(&path)
        .map_err(|e| CommandError::Failed(e.into()))?;
    crate::outln!(
        "shard {shard} of plan {}: {my_tasks} tasks ({computed} computed, {} from the cache) in {:.2} s -> {}",
        plan.plan,
        my_tasks - computed,
        clock.elapsed().as_secs_f64(),
        path.display()
    );
    crate::outln!(
        "when all {} shards have finished: privpost merge {}",
        shard.count,
        args.out.display()
    );
    Ok(())
}
