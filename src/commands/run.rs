//! `privpost run`: validate every config, prepare (fetch missing datasets,
//! generate data, fit initialisations), run the tasks (reusing finished ones
//! from the task cache), write the outputs.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::{all_configs, plan, targets, CommandError};
use crate::results::cache;
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
heartbeat line is printed every 30 s per running figure (PRIVPOST_HEARTBEAT_SECONDS changes it)."
)]
pub struct RunArgs {
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
    /// Worker threads (default: SLURM_CPUS_PER_TASK if set, else all cores). Results do not depend on it.
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Output root.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Override a parameter: --set key=value (repeatable, each key once; see the sweep forms below).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Folder holding configs/<paper>/<figure>.toml (for --all and figure ids).
    #[arg(long = "configs", default_value = "configs")]
    pub config_dir: PathBuf,
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
    #[arg(long)]
    pub no_cache: bool,
}

impl RunArgs {
    /// The profile named by --smoke or --profile.
    pub fn profile(&self) -> Option<&str> {
        if self.smoke {
            Some("smoke")
        } else {
            self.profile.as_deref()
        }
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
fn jobs(requested: Option<usize>) -> Result<usize, CommandError> {
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

pub fn run(args: RunArgs) -> Result<(), CommandError> {
    let clock = Instant::now();
    let mut paths = targets(&args.targets, &args.config_dir)?;
    if args.all {
        paths.extend(all_configs(&args.config_dir)?);
    }
    if paths.is_empty() {
        return Err(CommandError::input(
            "nothing to run: give config files, figure ids or --all",
        ));
    }
    let jobs = jobs(args.jobs)?;
    let heartbeat = heartbeat()?;
    let planned = plan(&paths, args.profile(), &args.set)?;
    let progress = if args.quiet {
        Progress::Quiet
    } else {
        Progress::detect()
    };
    if !args.quiet {
        let points = planned.len();
        eprintln!(
            "plan: {} config(s), {points} run(s){}",
            paths.len(),
            if planned.iter().any(|p| p.resolved.sweep_label.is_some()) {
                " (sweep points × configs)"
            } else {
                ""
            }
        );
        for (k, p) in planned.iter().enumerate() {
            let label = p
                .resolved
                .sweep_label
                .as_deref()
                .map(|l| format!("@{l}"))
                .unwrap_or_default();
            eprintln!(
                "  [{}/{points}] {}{label}: {}",
                k + 1,
                p.resolved.experiment,
                p.plan.describe()
            );
        }
    }
    // prepare everything before running anything: a missing dataset or a bad
    // data file stops the run before any figure is written
    let mut prepared = Vec::new();
    for p in planned {
        let figure = p
            .plan
            .prepare()
            .map_err(|e| e.in_file(&p.resolved.file()))?;
        prepared.push((p.spec, p.resolved, figure));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| CommandError::failed(format!("cannot start {jobs} worker threads: {e}")))?;
    let total = prepared.len();
    let mut reports: Vec<Report> = Vec::new();
    let mut failures: Vec<(String, anyhow::Error)> = Vec::new();
    for (k, (spec, resolved, figure)) in prepared.iter().enumerate() {
        let options = Options {
            progress,
            force: args.force,
            cache_root: (!args.no_cache).then(|| args.out.join(cache::DIR_NAME)),
            heartbeat,
            position: (k + 1, total),
        };
        match runner::run(spec, figure.as_ref(), resolved, &args.out, &pool, &options) {
            Ok(r) => reports.push(r),
            Err(e) if args.keep_going => {
                let name = match &resolved.sweep_label {
                    Some(l) => format!("{}@{l}", resolved.experiment),
                    None => resolved.experiment.clone(),
                };
                eprintln!("error: {name}: {e}");
                failures.push((name, e.into()));
            }
            Err(e) => return Err(CommandError::Failed(e.into())),
        }
    }
    let computed: usize = reports.iter().map(|r| r.computed).sum();
    let tasks: usize = reports.iter().map(|r| r.tasks).sum();
    println!(
        "wrote {} figure(s) in {:.2} s wall ({jobs} jobs; {computed} of {tasks} tasks computed, the rest cached):",
        reports.iter().filter(|r| !r.up_to_date).count(),
        clock.elapsed().as_secs_f64()
    );
    for r in &reports {
        let name = match &r.label {
            Some(l) => format!("{}@{l}", r.figure),
            None => r.figure.clone(),
        };
        println!(
            "  {:<22} {:>8} tasks {:>8} computed {:>8.2} s  {}{}",
            name,
            r.tasks,
            r.computed,
            r.wall_seconds,
            r.dir.join("figure.png").display(),
            if r.up_to_date { "  (up to date)" } else { "" }
        );
    }
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
