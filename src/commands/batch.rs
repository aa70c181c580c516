//! Running a selection, shared by the `run` verb and `audit`: validate every
//! config (`plan`), prepare (fetch missing datasets, generate data, fit
//! initialisations), check the limits, run the tasks (reusing finished ones from
//! the task cache) or one shard of them, write the outputs and the gallery.

use std::path::PathBuf;

use super::{CommandError, Work};
use crate::api::{self, RunOptions, ShardOptions};
use crate::plan::Selection;
use crate::runner::shard::ShardSpec;
use crate::runner::{Progress, Report};

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
        let outcome = api::run_shard(
            &args.selection,
            &ShardOptions {
                shard,
                out: args.out.clone(),
                jobs: args.work.jobs,
                force: args.work.force,
                keep_going: args.keep_going,
                allow_long: args.allow_long,
                progress,
                stop: None,
            },
        )?;
        let r = &outcome.record;
        crate::outln!(
            "shard {shard} of plan {}: {} tasks ({} computed, {} from the cache) in {:.2} s -> {}",
            r.plan,
            outcome.tasks,
            outcome.computed,
            outcome.tasks - outcome.computed,
            r.wall_seconds,
            outcome.record_path.display()
        );
        crate::outln!(
            "when all {} shards have finished: privpost merge {}",
            shard.count,
            args.out.display()
        );
        return Ok(Vec::new());
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
