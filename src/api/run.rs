//! `api::run`: figures computed and written as `privpost run` writes them —
//! the selection planned and prepared, the limits checked before any work, the
//! tasks run (finished ones taken from the task cache), each figure's folder
//! written, then the gallery — answered as typed reports. Prints nothing
//! unless `progress` asks for the command line's bar or log lines (on stderr);
//! a stop flag ends the work between tasks ([`ErrorKind::Interrupted`](super::ErrorKind::Interrupted)). A
//! shard (`run --shard`) is the command line's own (`commands::batch`).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::error::ApiError;
use crate::error::CommandError;
use crate::plan::{
    check_limits, config_dir, config_paths, footprints, jobs, overrides, plan, pool,
    prepare_planned, ConfigRef, Prepared, Selection,
};
use crate::results::cache;
use crate::runner::{self, Options, Progress};

pub use crate::runner::Report;

/// How [`run`] computes.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The output root (`<out>/<paper>/<figure>/`, the task cache, the gallery).
    pub out: PathBuf,
    /// Worker threads (default: SLURM_CPUS_PER_TASK if set, else all cores).
    pub jobs: Option<usize>,
    /// Recompute every task and rewrite every folder.
    pub force: bool,
    /// Neither read nor write the task cache.
    pub no_cache: bool,
    /// Run even if the estimated work exceeds the plan limits.
    pub allow_long: bool,
    /// After a figure fails, run the remaining ones (the failures are answered).
    pub keep_going: bool,
    /// Progress on stderr: `Quiet` for a library caller.
    pub progress: Progress,
    /// Set by the caller to stop (between tasks); `None`: Ctrl-C (SIGINT) stops.
    pub stop: Option<Arc<AtomicBool>>,
}

impl RunOptions {
    /// Options writing under `out`, quietly, with every other default.
    pub fn new(out: impl Into<PathBuf>) -> Self {
        RunOptions {
            out: out.into(),
            jobs: None,
            force: false,
            no_cache: false,
            allow_long: false,
            keep_going: false,
            progress: Progress::Quiet,
            stop: None,
        }
    }
}

/// A figure that failed while the others ran on (`keep_going`).
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// `figure@point`.
    pub figure: String,
    /// The error and its causes, joined by `: `.
    pub message: String,
}

/// What [`run`] did.
#[derive(Debug)]
pub struct RunOutcome {
    /// One report per figure run, in the order run.
    pub reports: Vec<Report>,
    /// Figures that failed (only with `keep_going`; otherwise the first failure is the error).
    pub failures: Vec<Failure>,
    /// Figure runs planned.
    pub planned: usize,
    pub jobs: usize,
    pub wall_seconds: f64,
    /// The gallery page written, or why it was not.
    pub gallery: Result<PathBuf, String>,
}

/// The selection's plans prepared after every check that comes before work
/// (configs, output folder, datasets), with the worker count and the pool's
/// heartbeat: shared by [`run`] and the command line's shards.
pub(crate) fn prepare_selection(
    selection: &Selection,
    out: &std::path::Path,
    jobs_wanted: Option<usize>,
    quiet: bool,
    shard: bool,
) -> Result<(Vec<ConfigRef>, Vec<Prepared>, usize, Duration), ApiError> {
    // each check's error names the argument it is about
    let at = |argument: &'static str| move |e: CommandError| ApiError::from_command(argument, e);
    let overrides = overrides(&selection.set).map_err(at("set"))?;
    let dir = config_dir(selection.config_dir.as_deref()).map_err(|e| {
        match selection.config_dir.as_ref().filter(|d| !d.exists()) {
            Some(d) => ApiError::not_found("configs", d.clone(), e.to_string()),
            None => ApiError::from_command("configs", e),
        }
    })?;
    let paths =
        config_paths(&selection.targets, selection.all, dir.as_deref()).map_err(at("targets"))?;
    let jobs = jobs(jobs_wanted).map_err(at("jobs"))?;
    let heartbeat = heartbeat().map_err(at("environment"))?;
    runner::check_task_times().map_err(|e| ApiError::input("environment", e.to_string()))?;
    // configs first (no side effects), then the output folder, then the work
    let planned = plan(&paths, selection.profile(), &overrides).map_err(at("selection"))?;
    if shard {
        crate::plan::refuse_secure(&planned, "--shard").map_err(at("shard"))?;
    }
    crate::plan::check_targets(out, &planned).map_err(at("out"))?;
    crate::plan::check_writable(out).map_err(at("out"))?;
    let prepared = prepare_planned(planned, paths.len(), quiet).map_err(at("selection"))?;
    Ok((paths, prepared, jobs, heartbeat))
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

/// Runs a selection (see the module header). Bad input (a config, a key, the
/// output folder, the limits) is an [`ErrorKind::Input`](super::ErrorKind::Input) before any work.
pub fn run(selection: &Selection, options: &RunOptions) -> Result<RunOutcome, ApiError> {
    let clock = Instant::now();
    let err = |e: CommandError| ApiError::from_command("selection", e);
    let quiet = options.progress == Progress::Quiet;
    let (_, prepared, jobs, heartbeat) =
        prepare_selection(selection, &options.out, options.jobs, quiet, false)?;
    check_limits(
        &footprints(&prepared, |r| {
            (0..prepared[r].figure.task_count()).collect()
        }),
        jobs,
        options.allow_long,
    )
    .map_err(err)?;
    if !quiet {
        print_estimates(&prepared, jobs);
    }
    let pool = pool(jobs).map_err(err)?;
    let total = prepared.len();
    let mut reports = Vec::new();
    let mut failures = Vec::new();
    let mut overall = Overall::new(&prepared, jobs);
    for (k, p) in prepared.iter().enumerate() {
        if k > 0 && !quiet {
            overall.report(k, clock.elapsed().as_secs_f64());
        }
        let mut run_options = Options::new(
            options.progress,
            (!options.no_cache).then(|| options.out.join(cache::DIR_NAME)),
            heartbeat,
            (k + 1, total),
        );
        run_options.force = options.force;
        run_options.prepare_seconds = p.prepare_seconds;
        run_options.stop = options.stop.clone();
        match runner::run(
            p.spec,
            p.figure.as_ref(),
            &p.resolved,
            &options.out,
            &pool,
            &run_options,
        ) {
            Ok(r) => {
                overall.finished(k, &r);
                reports.push(r);
            }
            Err(e) if options.keep_going && !matches!(e, runner::RunError::Interrupted { .. }) => {
                let figure = p.name();
                if !quiet {
                    errln!("error: {figure}: {e}");
                }
                let e = anyhow::Error::from(e);
                failures.push(Failure {
                    figure,
                    message: e
                        .chain()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(": "),
                });
            }
            Err(e) => return Err(err(e.into())),
        }
    }
    let gallery = if reports.is_empty() {
        Err("no figure run".to_string())
    } else {
        crate::gallery::write(&options.out)
            .map(|w| w.path)
            .map_err(|e| e.to_string())
    };
    Ok(RunOutcome {
        reports,
        failures,
        planned: total,
        jobs,
        wall_seconds: clock.elapsed().as_secs_f64(),
        gallery,
    })
}

impl RunOutcome {
    /// The figures that failed under `keep_going`, as one error (exit 1).
    pub fn failure(&self) -> Option<ApiError> {
        (!self.failures.is_empty()).then(|| {
            ApiError::failed(format!(
                "{} of {} figure(s) failed:\n  {}",
                self.failures.len(),
                self.planned,
                self.failures
                    .iter()
                    .map(|f| format!("{}: {}", f.figure, f.message))
                    .collect::<Vec<_>>()
                    .join("\n  ")
            ))
        })
    }
}

/// The estimated wall time of each prepared figure run and of all of them,
/// with `jobs` workers, from the calibrated cost model.
fn print_estimates(prepared: &[Prepared], jobs: usize) {
    let runs = prepared.iter().map(|p| {
        let cost = crate::runner::estimate::Cost::all(p.figure.as_ref());
        (p.name(), p.resolved.experiment.clone(), Some(cost))
    });
    for line in crate::plan::estimate_lines(runs, jobs) {
        errln!("{line}");
    }
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
