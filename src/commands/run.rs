//! `privpost run`: validate every config, prepare (fetch missing datasets,
//! generate data, fit initialisations), run the tasks (reusing finished ones
//! from the task cache), write the outputs.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::{all_configs, plan, targets, CommandError};
use crate::config::Resolved;
use crate::experiments::{Figure, Footprint, Spec};
use crate::results::cache;
use crate::results::manifest::rfc3339;
use crate::results::shards::{self, PlanFile, RunShare, ShardRecord};
use crate::runner::shard::{self as split, Assignment, ShardSpec};
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
    /// Worker threads (default: SLURM_CPUS_PER_TASK if set, else all cores). Results do not depend on it.
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Output root.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Recompute every task and rewrite every folder, even if cached or up to date.
    #[arg(long)]
    pub force: bool,
    /// Print only errors and the final summary.
    #[arg(long, short)]
    pub quiet: bool,
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

/// What a command runs: configs or figure ids (or --all), a profile, --set
/// overrides; shared by `run` and `slurm`.
#[derive(Debug, clap::Args)]
pub struct Selection {
    /// Config files (configs/<paper>/<figure>.toml) or figure ids (see `privpost list`).
    #[arg(value_name = "CONFIG|ID")]
    pub targets: Vec<String>,
    /// Run every config under --configs.
    #[arg(long)]
    pub all: bool,
    /// Apply each config's [profile.smoke] (same figure, seconds to run); = --profile smoke.
    #[arg(long, conflicts_with = "profile")]
    pub smoke: bool,
    /// Apply each config's [profile.NAME].
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Override a parameter: --set key=value (repeatable, each key once; see the sweep forms below).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Folder holding configs/<paper>/<figure>.toml (for --all and figure ids).
    #[arg(long = "configs", default_value = "configs")]
    pub config_dir: PathBuf,
}

impl Selection {
    /// The profile named by --smoke or --profile.
    pub fn profile(&self) -> Option<&str> {
        if self.smoke {
            Some("smoke")
        } else {
            self.profile.as_deref()
        }
    }

    /// The config files of the targets (and --all).
    pub fn paths(&self) -> Result<Vec<PathBuf>, CommandError> {
        // the overrides first: `--set epsilon 0.5` is a missing `=`, not a figure "0.5"
        super::overrides(&self.set)?;
        config_paths(&self.targets, self.all, &self.config_dir)
    }
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

/// Worker threads: --jobs, else SLURM_CPUS_PER_TASK inside a Slurm job, else all cores.
pub(crate) fn jobs(requested: Option<usize>) -> Result<usize, CommandError> {
    match requested {
        Some(0) => Err(CommandError::input(
            "--jobs 0: allowed values are integers from 1 to 1024",
        )),
        Some(j) if j > 1024 => Err(CommandError::input(format!(
            "--jobs {j}: allowed values are integers from 1 to 1024"
        ))),
        Some(j) => Ok(j),
        None => Ok(std::env::var("SLURM_CPUS_PER_TASK")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| (1..=1024).contains(&n))
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))),
    }
}

/// A figure run ready to compute: its registry row, resolved config and
/// prepared figure.
pub(crate) struct Prepared {
    pub spec: &'static Spec,
    pub resolved: Resolved,
    pub figure: Box<dyn Figure>,
    /// Seconds spent preparing the figure (data, fits, accounting): part of its wall time.
    pub prepare_seconds: f64,
}

impl Prepared {
    /// `figure@point`: the folder below the output root.
    pub fn name(&self) -> String {
        self.resolved.name()
    }
}

/// Validates every config (printing the plan unless `quiet`), then prepares
/// every figure: a missing dataset or a bad data file stops the command
/// before any figure is written.
pub(crate) fn prepare_all(
    paths: &[PathBuf],
    profile: Option<&str>,
    set: &[String],
    quiet: bool,
) -> Result<Vec<Prepared>, CommandError> {
    prepare_planned(plan(paths, profile, set)?, paths.len(), quiet)
}

/// Prepares validated plans (printing them unless `quiet`).
fn prepare_planned(
    planned: Vec<super::Planned>,
    configs: usize,
    quiet: bool,
) -> Result<Vec<Prepared>, CommandError> {
    if !quiet {
        let points = planned.len();
        errln!(
            "plan: {configs} config(s), {points} run(s){}",
            if planned.iter().any(|p| p.resolved.sweep_label.is_some()) {
                " (sweep points × configs)"
            } else {
                ""
            }
        );
        for (k, p) in planned.iter().enumerate() {
            errln!(
                "  [{}/{points}] {}: {}",
                k + 1,
                p.resolved.name(),
                p.plan.describe()
            );
        }
    }
    let mut prepared = Vec::new();
    for p in planned {
        let clock = Instant::now();
        let figure = p
            .plan
            .prepare()
            .map_err(|e| e.in_file(&p.resolved.file()))?;
        prepared.push(Prepared {
            spec: p.spec,
            resolved: p.resolved,
            figure,
            prepare_seconds: clock.elapsed().as_secs_f64(),
        });
    }
    Ok(prepared)
}

/// The estimated wall time of each prepared figure run and of all of them,
/// with `jobs` workers, from the calibrated cost model.
pub(crate) fn print_estimates(prepared: &[Prepared], jobs: usize) {
    let runs = prepared.iter().map(|p| {
        let cost = crate::runner::estimate::Cost::all(p.figure.as_ref());
        (p.name(), p.resolved.experiment.clone(), Some(cost))
    });
    for line in super::estimate_lines(runs, jobs) {
        errln!("{line}");
    }
}

/// The most tasks one figure run may have: its rows are held in memory and
/// written as one data.csv.
pub const MAX_TASKS: usize = 1_000_000;

/// The most estimated work a command (or a shard) runs without --allow-long:
/// 10^15 flops, about a CPU-week at the 1–2 Gflop/s the samplers reach here.
pub const MAX_FLOPS: f64 = 1e15;

/// The plan-size check: each figure run's task count and its largest task's memory
/// (one task per worker at once), then the estimated work of the tasks this process
/// will compute, refused (exit 2) with the estimate before anything runs. A typo of
/// three zeros is a refusal, not a memory abort or a week-long run. `check` applies
/// the same limits to the plans it can size without preparing.
pub(crate) fn check_limits(
    runs: &[(String, String, Footprint)],
    jobs: usize,
    allow_long: bool,
) -> Result<(), CommandError> {
    let memory = memory_limit();
    for (name, file, fp) in runs {
        if fp.tasks > MAX_TASKS {
            return Err(CommandError::input(format!(
                "{name} (config {file}): {} tasks planned; allowed: at most {MAX_TASKS} per figure run (lower its counts, e.g. repeats or runs, or split it into sweep points)",
                fp.tasks
            )));
        }
        let workers = jobs.min(fp.tasks).max(1) as f64;
        if fp.memory * workers > memory {
            let gb = |b: f64| format!("{:.1} GB", b / 1e9);
            let hint = if fp.memory <= memory {
                format!(
                    "run it with --jobs {} or fewer, or lower the counts that size a task",
                    (memory / fp.memory).floor().max(1.0)
                )
            } else {
                "lower the counts that size a task (draws or chains kept, the data's dimension)"
                    .to_string()
            };
            return Err(CommandError::input(format!(
                "{name} (config {file}): a task holds about {} at once, {} with {workers} workers; allowed: {} ({MEMORY_SHARE}× this machine's memory): {hint}",
                gb(fp.memory),
                gb(fp.memory * workers),
                gb(memory)
            )));
        }
    }
    let flops: f64 = runs.iter().map(|r| r.2.flops).sum();
    if flops > MAX_FLOPS && !allow_long {
        let days = flops / 1.5e9 / 86_400.0;
        return Err(CommandError::input(format!(
            "estimated work {flops:.1e} flops, about {days:.0} CPU-days at 1.5 Gflop/s per core; allowed without --allow-long: {MAX_FLOPS:.0e} flops (about a CPU-week). Check the counts for a typo, pass --allow-long if this is intended, or split it over machines (--shard i/n, privpost slurm)"
        )));
    }
    Ok(())
}

/// The share of the machine's memory the tasks of one run may hold at once.
pub const MEMORY_SHARE: f64 = 0.8;

/// [`MEMORY_SHARE`] of the machine's memory (`MemTotal` of /proc/meminfo), or of
/// 8 GB where it cannot be read.
fn memory_limit() -> f64 {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(8e9, |kb| kb * 1024.0);
    MEMORY_SHARE * total
}

/// The [`check_limits`] rows of prepared figures, over the tasks `tasks(r)` of run r.
fn footprints(
    prepared: &[Prepared],
    tasks: impl Fn(usize) -> Vec<usize>,
) -> Vec<(String, String, Footprint)> {
    prepared
        .iter()
        .enumerate()
        .map(|(r, p)| {
            (
                p.name(),
                p.resolved.file(),
                Footprint::of(p.figure.as_ref(), tasks(r)),
            )
        })
        .collect()
}

/// A rayon pool of `jobs` threads.
pub(crate) fn pool(jobs: usize) -> Result<rayon::ThreadPool, CommandError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| CommandError::failed(format!("cannot start {jobs} worker threads: {e}")))
}

/// The split of every task of `prepared` over `shards` shards.
pub(crate) fn assignment(prepared: &[Prepared], shards: usize) -> Assignment {
    let costs: Vec<Vec<u64>> = prepared
        .iter()
        .map(|p| {
            (0..p.figure.task_count())
                .map(|i| split::cost_units(p.figure.task_cost(i)))
                .collect()
        })
        .collect();
    split::assign(&costs, shards)
}

/// The config files of the command's targets (and --all).
pub(crate) fn config_paths(
    targets_given: &[String],
    all: bool,
    config_dir: &std::path::Path,
) -> Result<Vec<PathBuf>, CommandError> {
    let mut paths = targets(targets_given, config_dir)?;
    if all {
        paths.extend(all_configs(config_dir)?);
    }
    if paths.is_empty() {
        return Err(CommandError::input(
            "nothing to run: give config files, figure ids or --all",
        ));
    }
    Ok(paths)
}

pub fn run(args: RunArgs) -> Result<(), CommandError> {
    run_folders(args).map(drop)
}

/// `run`, answering the figure folders it wrote or found up to date (none for
/// a shard).
pub fn run_folders(args: RunArgs) -> Result<Vec<PathBuf>, CommandError> {
    let clock = Instant::now();
    let paths = args.selection.paths()?;
    let jobs = jobs(args.jobs)?;
    let heartbeat = heartbeat()?;
    runner::check_task_times().map_err(CommandError::input)?;
    let progress = if args.quiet {
        Progress::Quiet
    } else {
        Progress::detect()
    };
    let sel = &args.selection;
    // configs first (no side effects), then the output folder, then the work
    let planned = plan(&paths, sel.profile(), &sel.set)?;
    if args.shard.is_some() {
        super::refuse_secure(&planned, "--shard")?;
    }
    super::check_targets(&args.out, &planned)?;
    super::check_writable(&args.out)?;
    let prepared = prepare_planned(planned, paths.len(), args.quiet)?;
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
    if !args.quiet && args.shard.is_none() {
        print_estimates(&prepared, jobs);
    }
    let pool = pool(jobs)?;
    if let Some(shard) = args.shard {
        return run_shard(&args, &paths, shard, &prepared, &pool, progress, heartbeat)
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
        options.force = args.force;
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
        super::gallery::after_run(&args.out)?;
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
    paths: &[PathBuf],
    shard: ShardSpec,
    prepared: &[Prepared],
    pool: &rayon::ThreadPool,
    progress: Progress,
    heartbeat: Duration,
) -> Result<(), CommandError> {
    let started = std::time::SystemTime::now();
    let clock = Instant::now();
    let sel = &args.selection;
    let plan = PlanFile::new(paths, sel.profile(), &sel.set, shard.count)
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
        options.force = args.force;
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
