//! `privpost shards`: a sharded run as a list of commands, one
//! `privpost run … --shard i/N` per line, and the `privpost merge` to run after
//! them — for GNU parallel, HyperQueue (`hq submit --each-line`), Snakemake or any
//! runner that takes one command per line (docs/cluster.md). `privpost slurm`
//! writes the same commands into job arrays; both plan through `ShardPlan`.

use std::path::PathBuf;

use super::CommandError;
use crate::invocation::sh_quote;
use crate::plan::{plan, Planned, Selection};
use crate::results::shards::PlanFile;
use crate::runner::shard::MAX_SHARDS;

/// What `privpost shards` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// one `privpost run … --shard i/N` per line
    Commands,
    /// the `privpost merge` to run once every shard has finished
    Merge,
}

/// Print the shards of a run as commands, one per line (or the merge to run after them).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Runs the shards anywhere one command per line runs, then merges:
  privpost shards geumlek2017 --shards 8 --out res --emit commands | parallel -j 4
  $(privpost shards geumlek2017 --shards 8 --out res --emit merge)
With HyperQueue: privpost shards … --emit commands > shards.txt; hq submit --each-line \
shards.txt bash -c '$HQ_ENTRY'; then the merge. The shards' folders and <out> must be on a \
file system every worker sees; the merged CSVs equal a single-machine run's, byte for byte."
)]
pub struct ShardsArgs {
    #[command(flatten)]
    pub selection: Selection,
    /// Output root shared by the shards and the merge.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Number of shards (commands).
    #[arg(long, default_value_t = 4, value_parser = super::integer_arg::<usize>)]
    pub shards: usize,
    /// Worker threads of each shard command (its --jobs).
    #[arg(long, default_value_t = 1, value_parser = super::integer_arg::<usize>)]
    pub jobs: usize,
    /// commands: one `privpost run … --shard i/N` per line; merge: the merge line.
    #[arg(long, value_enum, default_value_t = Emit::Commands)]
    pub emit: Emit,
}

/// A sharded run, planned and its plan file written: what `shards` and `slurm` print
/// or write their commands from.
pub(super) struct ShardPlan {
    pub plan: PlanFile,
    pub planned: Vec<Planned>,
    /// absolute output root
    pub out: PathBuf,
    /// the privpost binary (and its leading words), shell-quoted
    pub exe: String,
    /// ` --data DIR` when `--data` named a datasets folder, else empty
    pub data_words: String,
}

impl ShardPlan {
    /// Validates every config of `sel` (not on the workers an hour later), refuses
    /// secure-mode figures, and writes `<out>/.privpost-shards/<plan>/plan.json`.
    pub fn prepare(
        sel: &Selection,
        out: &std::path::Path,
        shards: usize,
        verb: &str,
    ) -> Result<Self, CommandError> {
        if !(1..=MAX_SHARDS).contains(&shards) {
            return Err(CommandError::input(format!(
                "--shards {shards}: allowed values are whole numbers from 1 to {MAX_SHARDS}"
            )));
        }
        let parsed = sel.parse()?;
        let planned = plan(&parsed.paths, sel.profile(), &parsed.overrides)?;
        crate::plan::refuse_secure(&planned, verb)?;
        let out = std::path::absolute(out)
            .map_err(|e| CommandError::input(format!("--out {}: {e}", out.display())))?;
        let exe = crate::invocation::command()
            .map_err(|e| CommandError::failed(format!("cannot locate the privpost binary: {e}")))?
            .iter()
            .map(|w| sh_quote(w))
            .collect::<Vec<_>>()
            .join(" ");
        let targets = crate::plan::as_targets(&parsed.paths)
            .map_err(|e| CommandError::input(format!("cannot resolve the config paths: {e}")))?;
        let plan = PlanFile::new(targets, sel.profile(), &sel.set, shards)
            .map_err(|e| CommandError::input(format!("cannot resolve the config paths: {e}")))?;
        crate::plan::check_writable(&out)?;
        plan.write(&out)
            .map_err(|e| CommandError::Failed(e.into()))?;
        // the datasets folder --data named goes to every shard (a worker's own
        // default folder may differ: another $HOME, no datasets)
        let data_words = crate::data::folder::flag()
            .map(|d| format!(" --data {}", sh_quote(&d.display().to_string())))
            .unwrap_or_default();
        Ok(Self {
            plan,
            planned,
            out,
            exe,
            data_words,
        })
    }

    /// `privpost run CONFIGS [--profile P] [--set K=V]… --out OUT [--data D]`, to
    /// which a shard adds `--shard i/N`.
    pub fn run_line(&self) -> String {
        let mut words = vec![self.exe.clone(), "run".into()];
        words.extend(self.plan.configs.iter().map(|c| sh_quote(c)));
        if let Some(p) = &self.plan.profile {
            words.extend(["--profile".into(), sh_quote(p)]);
        }
        for s in &self.plan.set {
            words.extend(["--set".into(), sh_quote(s)]);
        }
        words.extend(["--out".into(), sh_quote(&self.out.display().to_string())]);
        words.join(" ") + &self.data_words
    }

    /// `privpost merge OUT --plan PLAN [--data D]`.
    pub fn merge_line(&self) -> String {
        format!(
            "{} merge {} --plan {}{}",
            self.exe,
            sh_quote(&self.out.display().to_string()),
            self.plan.plan,
            self.data_words
        )
    }
}

pub fn shards(args: ShardsArgs) -> Result<(), CommandError> {
    if !(1..=1024).contains(&args.jobs) {
        return Err(CommandError::input(format!(
            "--jobs {}: allowed values are whole numbers from 1 to 1024",
            args.jobs
        )));
    }
    let p = ShardPlan::prepare(&args.selection, &args.out, args.shards, "shards")?;
    let n = p.plan.shards;
    match args.emit {
        Emit::Commands => {
            let run = p.run_line();
            let lines: Vec<String> = (1..=n)
                .map(|i| format!("{run} --jobs {} --shard {i}/{n}", args.jobs))
                .collect();
            crate::commands::write_out(format_args!("{}", lines.join("\n")))?;
            errln!(
                "plan {}: {} figure run(s) in {n} shard command(s); once all have finished: {}",
                p.plan.plan,
                p.planned.len(),
                p.merge_line()
            );
        }
        Emit::Merge => crate::commands::write_out(format_args!("{}", p.merge_line()))?,
    }
    Ok(())
}
