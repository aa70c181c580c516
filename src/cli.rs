//! The command line: the verbs' parser and the dispatch to the library, with
//! errors printed with their cause chain and mapped to the exit code.

use crate::commands::{
    account,
    account::AccountArgs,
    audit::{self, AuditArgs},
    batch::RunArgs,
    cache::{self, CacheArgs},
    check::{self, CheckArgs},
    combine::{self, CombineArgs},
    config::{self, ConfigArgs},
    data::{self, DataArgs},
    gallery::{self, GalleryArgs},
    infer::{self, InferArgs},
    list::{self, ListArgs},
    merge::{self, MergeArgs},
    plot::{self, PlotArgs},
    run,
    shards::{self, ShardsArgs},
    show::{self, ShowArgs},
    slurm::{self, SlurmArgs},
    vcor::{self, VcorArgs},
    CommandError,
};
use clap::{CommandFactory, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "privpost",
    version = env!("PRIVPOST_LONG_VERSION"),
    about = "Reproduce the experiments and figures of papers on differentially private Bayesian inference",
    after_help = "Examples:\n  privpost run --all                      regenerate every figure at paper scale\n  privpost run --all --smoke              a reduced run of every figure (seconds)\n  privpost run configs/geumlek2017/fig2.toml --set gaussian_calibration=tight\n  privpost run configs/foulds2016/fig2.toml --set epsilon=[0.1,1] --jobs 2\n  privpost check configs/geumlek2017/fig1.toml\n  privpost run foulds2016/fig2 --smoke --set epsilon=0.1,1,10 && privpost combine results/foulds2016/fig2@*\n  privpost plot results/foulds2016/fig2"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Datasets folder for every command (an existing folder; default: $PRIVPOST_DATA,
    /// else the per-user folder $XDG_DATA_HOME/privpost or ~/.local/share/privpost).
    #[arg(long, global = true, value_name = "DIR")]
    data: Option<std::path::PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Run configs and write CSVs, figures and manifests under --out.
    Run(RunArgs),
    /// List the figures this build reproduces and their default configs.
    List(ListArgs),
    /// Print a figure's config to start your own from: privpost config show foulds2016/fig2 > mine.toml
    Config(ConfigArgs),
    /// Validate configs and print the plan; no side effects (no downloads, no data, no files).
    Check(CheckArgs),
    /// Privacy budget of a planned DP-MCMC or DP-SGLD run, before running anything.
    Account(AccountArgs),
    /// Audit every mechanism's privacy claim on worst-case neighbours (exact or sampled); broken variants must fail.
    Audit(AuditArgs),
    /// Posterior of a model's parameters from your own private release (data-augmentation MCMC).
    Infer(InferArgs),
    /// Print a figure's summary (or another of its tables) with the ledger's claim beside each row.
    Show(ShowArgs),
    /// Datasets: status, fetch, export, war-log records.
    Data(DataArgs),
    /// Fit the Barker-test correction distribution V_cor (C = 1, 2) and report its error.
    Vcor(VcorArgs),
    /// Re-render figure.png and figure.svg from the summary.csv of figure folders.
    Plot(PlotArgs),
    /// Write DIR/index.html (default results/): every figure beside its paper, with provenance and privacy ledger.
    Gallery(GalleryArgs),
    /// Join sweep-point folders of one figure: combined.csv, an overlay figure, combined.json.
    Combine(CombineArgs),
    /// Write the figure folders of a sharded run (run --shard i/n) once every shard has finished.
    Merge(MergeArgs),
    /// Print a sharded run as commands, one `privpost run … --shard i/N` per line (or the merge after them).
    Shards(ShardsArgs),
    /// Write (and with --submit, submit) a Slurm job array of shards and the merge job after it.
    Slurm(SlurmArgs),
    /// Show or clear the task cache (finished tasks reused by reruns and resumed runs).
    Cache(CacheArgs),
    /// Print a shell completion script: privpost completions bash > ~/.local/share/bash-completion/completions/privpost
    Completions {
        /// bash, zsh, fish, elvish or powershell
        shell: clap_complete::Shell,
    },
    /// The watcher that kills external tasks' process groups left when privpost ends.
    #[command(name = "__reap", hide = true)]
    Reap,
}

/// Runs the command line `args` (the program name first) and returns the exit
/// code: 0, 1 (a failure while running), 2 (bad input). The binary and the
/// Python package's `privpost` command both call this.
pub fn main(args: Vec<std::ffi::OsString>) -> i32 {
    let cli = Cli::parse_from(args);
    if let Command::Reap = cli.command {
        return crate::experiments::external::reaper::serve();
    }
    let data = match &cli.data {
        Some(dir) => crate::data::folder::set_flag(dir).map_err(CommandError::input),
        None => Ok(()),
    };
    let result: Result<(), CommandError> = data.and_then(|()| match cli.command {
        Command::Run(a) => run::run(a),
        Command::List(a) => list::list(&a),
        Command::Check(a) => check::check(&a),
        Command::Config(a) => config::config(&a),
        Command::Account(a) => account::account(a),
        Command::Audit(a) => audit::audit(a),
        Command::Infer(a) => infer::infer(a),
        Command::Show(a) => show::show(a),
        Command::Data(a) => data::data(&a),
        Command::Vcor(a) => vcor::vcor(&a),
        Command::Plot(a) => plot::plot(&a),
        Command::Combine(a) => combine::combine(&a),
        Command::Gallery(a) => gallery::gallery(&a),
        Command::Cache(a) => cache::cache(&a),
        Command::Merge(a) => merge::merge(a),
        Command::Shards(a) => shards::shards(a),
        Command::Slurm(a) => slurm::slurm(a),
        Command::Reap => Ok(()), // answered above
        Command::Completions { shell } => {
            // generated into memory, then written with the error checked
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "privpost", &mut script);
            crate::commands::write_out(format_args!(
                "{}",
                String::from_utf8_lossy(&script).trim_end()
            ))
        }
    });
    if let Err(e) = result {
        if let CommandError::BrokenPipe(_) = e {
            // the reader has what it wanted; nothing to say
            return e.exit_code();
        }
        crate::errln!("error: {e}");
        for cause in e.error().chain().skip(1) {
            crate::errln!("  caused by: {cause}");
        }
        return e.exit_code();
    }
    // a message that could not be written (stderr on a full device or a closed
    // pipe) is a failure, as a stdout that cannot be written is
    if crate::term::stderr_failed() {
        return 1;
    }
    0
}
