//! `privpost run`: validate every config, prepare (fetch missing datasets,
//! generate data, fit initialisations), run the tasks, write the outputs.

use std::path::PathBuf;
use std::time::Instant;

use super::{all_configs, plan, CommandError};
use crate::runner::{self, Progress};

/// Run configs and write CSVs, figures and manifests under --out.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "A --set value that is a list, for a key whose config value is a single value, \
makes a sweep: one run per value, written to <out>/<paper>/<figure>@key=value."
)]
pub struct RunArgs {
    /// Config files (configs/<paper>/<figure>.toml).
    pub configs: Vec<PathBuf>,
    /// Run every config under --configs.
    #[arg(long)]
    pub all: bool,
    /// Apply each config's [profile.smoke] (same figure, seconds to run).
    #[arg(long)]
    pub smoke: bool,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Output root.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Override a parameter: --set key=value (repeatable; a list makes a sweep).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Folder searched by --all.
    #[arg(long = "configs", default_value = "configs")]
    pub config_dir: PathBuf,
}

pub fn run(args: RunArgs) -> Result<(), CommandError> {
    let clock = Instant::now();
    let mut paths = args.configs.clone();
    if args.all {
        paths.extend(all_configs(&args.config_dir)?);
    }
    if paths.is_empty() {
        return Err(CommandError::input(
            "nothing to run: give config files or --all",
        ));
    }
    let jobs = match args.jobs {
        Some(0) => {
            return Err(CommandError::input(
                "--jobs 0: allowed values are integers ≥ 1",
            ))
        }
        Some(j) => j,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let planned = plan(&paths, args.smoke.then_some("smoke"), &args.set)?;
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
    let progress = Progress::detect();
    let mut reports = Vec::new();
    for (spec, resolved, figure) in &prepared {
        let report = runner::run(spec, figure.as_ref(), resolved, &args.out, &pool, progress)
            .map_err(|e| CommandError::Failed(e.into()))?;
        reports.push(report);
    }
    println!(
        "wrote {} figure(s) in {:.2} s wall ({jobs} jobs):",
        reports.len(),
        clock.elapsed().as_secs_f64()
    );
    for r in &reports {
        println!(
            "  {:<22} {:>8} tasks {:>8.2} s  {}",
            r.figure,
            r.tasks,
            r.wall_seconds,
            r.dir.join("figure.png").display()
        );
    }
    Ok(())
}
