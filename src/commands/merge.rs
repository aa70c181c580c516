//! `privpost merge DIR`: [`api::merge`](crate::api::merge()) — the figure
//! folders of a sharded run written from the task cache once every shard has
//! finished — and the table of what it wrote.

use std::path::PathBuf;

use super::CommandError;
use crate::api::{self, MergeOptions};
use crate::runner::{Progress, Report};

/// Assemble the figure folders of a sharded run from its shards' task rows.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "DIR is the --out folder the shards wrote to. The plan (configs, profile, \
--set, shard count) is read from DIR/.privpost-shards/<plan>/plan.json; with several plans there, \
choose one with --plan. A shard that failed can be rerun alone (`privpost run … --shard i/n`, or \
`sbatch --array=<i-1> …` under Slurm): it reuses the tasks it had finished."
)]
pub struct MergeArgs {
    /// The output folder the shards wrote to.
    pub dir: PathBuf,
    /// The plan id (or a unique prefix) when DIR holds several.
    #[arg(long)]
    pub plan: Option<String>,
    #[command(flatten)]
    pub work: super::Work,
}

pub fn merge(args: MergeArgs) -> Result<(), CommandError> {
    let progress = if args.work.quiet {
        Progress::Quiet
    } else {
        Progress::detect()
    };
    let outcome = api::merge(
        &args.dir,
        &MergeOptions {
            plan: args.plan.clone(),
            jobs: args.work.jobs,
            force: args.work.force,
            progress,
            stop: None,
        },
    )?;
    let reports = &outcome.reports;
    crate::outln!(
        "merged plan {} ({} shards) into {} figure folder(s) in {:.2} s:",
        outcome.plan,
        outcome.shards,
        reports.iter().filter(|r| !r.up_to_date).count(),
        outcome.wall_seconds
    );
    let width = Report::name_width(reports);
    for r in reports {
        crate::outln!(
            "  {:<width$} {:>8} tasks  {}{}",
            r.name(),
            r.tasks,
            r.dir.display(),
            if r.up_to_date { "  (up to date)" } else { "" }
        );
    }
    super::after_run(&args.dir)
}
