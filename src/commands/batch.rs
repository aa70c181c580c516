//! Running a selection, shared by the `run` verb and `audit`: validate every
//! config (`plan`), prepare (fetch missing datasets, generate data, fit
//! initialisations), check the limits, run the tasks (reusing finished ones from
//! the task cache) or one shard of them, write the outputs and the gallery.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::{CommandError, Work};
use crate::plan::{
    assignment, check_limits, footprints, jobs, plan, pool, prepare_planned, Prepared, Selection,
};
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

/// Heartbeat interval of log lines: PRIVPOST_HEARTBEAT_SECONDS (default 30).
fn heartbeat() -> Result<Duration, CommandError> {
    match std::env::var("PRIVPOST_HEARTBEAT_SECONDS") {
        Err(_) => Ok(Duration::from_secs(30)),
        Ok(v) => match v.trim().parse::<f64>() {
            Ok(s) if s.is_finite() && (0.1..=86_400.0).contains(&s) => {
                Ok(Duration::from_secs_f64(s))
            }
            _ => Err(CommandError::input(format!(
                "PRIVPOST_HEARTBEAT_SECONDS={v}: allowed values are seconds from 0.1 to 86400"
            ))),
        },
    }
}

/// The estimated wall time of each prepared figure run and of all of them,
/// with `jobs` workers, from the calibrated cost model.
pub(crate) fn print_estimates(prepared: &[Prepared], jobs: usize) {
    let runs = prepared.iter().map(|p| {
        let cost = crate::runner::estimate::Cost::all(p.figure.as_ref());
        (p.name(), p.resolved.experiment.clone(), Some(cost))
    });
    for line in crate::plan::estimate_lines(runs, jobs) {
        errln!("{line}");
    }
}

/// `run`, answering the figure folders it wrote or found up to date (none for
/// a shard).
pub fn run_folders(args: RunArgs) -> Result<Vec<PathBuf>, CommandError> {
    let clock = Instant::now();
    let parsed = args.selection.parse()?;
    let paths = &parsed.paths;
    let jobs = jobs(args.work.jobs)?;
    let heartbeat = heartbeat()?;
    runner::check_task_times().map_err(CommandError::input)?;
    let progress = if args.work.quiet {
        Progress::Quiet
    } else {
        Progress::detect()
    };
    let sel = &args.selection;
    // configs first (no side effects), then the output folder, then the work
    let planned = plan(paths, sel.profile(), &parsed.overrides)?;
    if args.shard.is_some() {
        crate::plan::refuse_secure(&planned, "--shard")?;
    }
    crate::plan::check_targets(&args.out, &planned)?;
    crate::plan::check_writable(&args.out)?;
    let prepared = prepare_planned(planned, paths.len(), args.work.quiet)?;
    match args.shard {
        Some(shard) => {
            let split = assignment(&prepared, shard.count);
            check_limits(
                &footprints(&prepared, |r| split.tasks[shard.index - 1][r].clone()),
                jobs,
                args.allow_long,
            )?;
        }
        None => check_limits(
            &footprints(&prepared, |r| {
                (0..prepared[r].figure.task_count()).collect()
            }),
            jobs,
            args.allow_long,
        )?,
    }
    if !args.work.quiet && args.shard.is_none() {
        print_estimates(&prepared, jobs);
    }
    let pool = pool(jobs)?;
    if let Some(shard) = args.shard {
        return run_shard(&args, paths, shard, &prepared, &pool, progress, heartbeat)
            .map(|()| Vec::new());
    }
    let total = prepared.len();
    let mut reports: Vec<Report> = Vec::new();
    let mut failures: Vec<(String, anyhow::Error)> = Vec::new();
    let mut overall = Overall::new(&prepared, jobs);
    for (k, p) in prepared.iter().enumerate() {
        if k > 0 && progress != Progress::Quiet {
            overall.report(k, clock.elapsed().as_secs_f64());
        }
        let mut options = Options::new(
            progress,
            (!args.no_cache).then(|| args.out.join(cache::DIR_NAME)),
            heartbeat,
            (k + 1, total),
        );
        options.force = args.work.force;
        options.prepare_seconds = p.prepare_seconds;
        match runner::run(
            p.spec,
            p.figure.as_ref(),
            &p.resolved,
            &args.out,
            &pool,
            &options,
        ) {
            Ok(r) => {
                overall.finished(k, &r);
                reports.push(r);
            }
            Err(e) if args.keep_going => {
                let name = p.name();
                errln!("error: {name}: {e}");
                failures.push((name, e.into()));
            }
            Err(e) => return Err(e.into()),
        }
    }
    let computed: usize = reports.iter().map(|r| r.computed).sum();
    let tasks: usize = reports.iter().map(|r| r.tasks).sum();
    crate::outln!(
        "wrote {} figure(s) in {:.2} s wall ({jobs} jobs; {computed} of {tasks} tasks computed, the rest cached):",
        reports.iter().filter(|r| !r.up_to_date).count(),
        clock.elapsed().as_secs_f64()
    );
    let width = crate::runner::Report::name_width(&reports);
    for r in &reports {
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
        super::after_run(&args.out)?;
    }
    failure_list(&failures, total)?;
    Ok(reports.into_iter().map(|r| r.dir).collect())
}

/// The overall line of a multi-figure run: figures done, and the time left
/// from the estimates of the figures still to run, scaled by how the computed
/// ones compared with their own estimates.
struct Overall {
    estimates: Vec<Option<f64>>,
    /// (estimated, actual) seconds of the figures that computed tasks
    seen: (f64, f64),
}

impl Overall {
    fn new(prepared: &[Prepared], jobs: usize) -> Overall {
        use crate::runner::estimate;
        Overall {
            estimates: prepared
                .iter()
                .map(|p| {
                    let cost = estimate::Cost::all(p.figure.as_ref());
                    estimate::wall_seconds(&p.resolved.experiment, cost, jobs)
                })
                .collect(),
            seen: (0.0, 0.0),
        }
    }

    fn finished(&mut self, k: usize, r: &Report) {
        if let (Some(e), true) = (self.estimates[k], r.computed == r.tasks && r.tasks > 0) {
            self.seen.0 += e;
            self.seen.1 += r.wall_seconds;
        }
    }

    /// Before figure `k` (0-based) of a run that started `elapsed` s ago.
    fn report(&self, k: usize, elapsed: f64) {
        let n = self.estimates.len();
        let left: Option<f64> = self.estimates[k..].iter().copied().sum();
        let scale = if self.seen.0 > 0.0 {
            (self.seen.1 / self.seen.0).clamp(0.2, 5.0)
        } else {
            1.0
        };
        let left = left.map_or_else(
            || "unknown".to_string(),
            |s| format!("about {}", crate::runner::human_duration(s * scale)),
        );
        crate::runner::log_line(format_args!(
            "overall: {k} of {n} figures done, {} elapsed, {left} left if nothing is cached",
            crate::runner::human_duration(elapsed)
        ));
    }
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
            Err(e) if args.keep_going => {
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
