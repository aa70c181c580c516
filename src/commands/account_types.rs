//! What the `account` verbs share: the arguments, the mechanism and solve
//! choices, the answer's shape and how it is printed. The dispatcher
//! (`account.rs`) and the event and Metropolis–Hastings accountants
//! (`account_event.rs`, `account_mh.rs`) import this file, never each other.

use serde_json::Value;

use super::CommandError;

/// The schema of `account --json` output.
pub const OUTPUT_SCHEMA: &str = "privpost-account/1";

/// Which mechanism `privpost account` accounts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AccountMechanism {
    /// DP-MCMC with the subsampled Barker test (heikkila2019 Theorem 2, Corollary 2).
    Barker,
    /// DP-SGLD (and DPVI): the Poisson-subsampled Gaussian mechanism.
    Sgld,
    /// The penalty algorithm (Yildirim & Ermis 2019): one Gaussian-noised
    /// log-likelihood ratio per iteration, noise τ·n^α × its sensitivity.
    Penalty,
    /// DP-HMC (Räisä, Koskela, Honkela 2021): one noised ratio (τ_l) and L + 1
    /// noised clipped gradients (τ_g) per iteration.
    DpHmc,
}

/// What `--target-epsilon` solves for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Solve {
    /// The largest number of iterations T.
    Iterations,
    /// The smallest noise multiplier σ (sgld; one --iterations value).
    Sigma,
    /// The largest sampling rate q (sgld; one --iterations value).
    Q,
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Orders: every valid order is searched by default (Barker: 2 ≤ α < b/5; SGLD: α ≥ 2 up to 10^6, \
ended early by a proven stop rule); --alpha-max caps the search and a warning says when the best order sits at the cap.\n\n\
Examples:\n  privpost account --n-data 1000000 --batch 1000 --iterations 1000,20000\n  \
privpost account --n-data 1000000 --batch 1000 --iterations 20000 --delta 1e-6 --n0 100 --clip 0.313\n  \
privpost account --mechanism sgld --q 1e-4 --sigma 1.19523 --iterations 100000,6000000 --delta 2e-6\n  \
privpost account --n-data 1000000 --batch 1000 --delta 1e-6 --target-epsilon 1\n  \
privpost account --mechanism sgld --q 1e-4 --iterations 6000000 --delta 2e-6 --target-epsilon 1 --solve sigma --json"
)]
pub struct AccountArgs {
    #[arg(long, value_enum, default_value = "barker")]
    pub mechanism: AccountMechanism,
    /// Dataset size N (Barker).
    #[arg(long, value_parser = super::integer_arg::<u64>)]
    pub n_data: Option<u64>,
    /// Minibatch size b, drawn without replacement (Barker).
    #[arg(long, value_parser = super::integer_arg::<u64>)]
    pub batch: Option<u64>,
    /// Iterations T; several separated by commas.
    #[arg(long, value_delimiter = ',', value_parser = super::integer_arg::<u64>)]
    pub iterations: Vec<u64>,
    /// δ of the (ε, δ) statement (Barker default: 1/N).
    #[arg(long)]
    pub delta: Option<f64>,
    /// Search only orders α < alpha-max (default: every valid order).
    #[arg(long, value_parser = super::integer_arg::<u32>)]
    pub alpha_max: Option<u32>,
    /// Tempering N₀, to check the clipping bound |r| ≤ √b/N₀ (with --clip).
    #[arg(long)]
    pub n0: Option<f64>,
    /// Clipping threshold of the log-likelihood ratios (with --n0).
    #[arg(long)]
    pub clip: Option<f64>,
    /// Sampling rate (SGLD).
    #[arg(long)]
    pub q: Option<f64>,
    /// Noise multiplier (SGLD).
    #[arg(long)]
    pub sigma: Option<f64>,
    /// Evaluate at this order only: Barker, an integer 2 ≤ α < b/5; SGLD, any real α > 1.
    #[arg(long)]
    pub alpha: Option<f64>,
    /// Answer the inverse question: what meets this ε (see --solve).
    #[arg(long)]
    pub target_epsilon: Option<f64>,
    /// With --target-epsilon: solve for the iterations, σ or q.
    #[arg(long, value_enum, default_value = "iterations")]
    pub solve: Solve,
    /// Penalty: τ, the noise scale relative to the ratio's sensitivity and n^α.
    #[arg(long)]
    pub tau: Option<f64>,
    /// Penalty: the exponent α of n in the noise σ = τ·n^α·c (Yildirim & Ermis recommend ½).
    #[arg(long, default_value_t = 0.5)]
    pub n_exponent: f64,
    /// DP-HMC: τ_l of the likelihood-ratio release.
    #[arg(long)]
    pub tau_l: Option<f64>,
    /// DP-HMC: τ_g of each gradient release.
    #[arg(long)]
    pub tau_g: Option<f64>,
    /// DP-HMC: leapfrog steps L per iteration (L + 1 gradient releases).
    #[arg(long, value_parser = super::integer_arg::<u64>)]
    pub leapfrog: Option<u64>,
    /// SGLD: skip the tight (privacy-loss distribution) accountant.
    #[arg(long)]
    pub no_tight: bool,
    /// ε slack η of the tight (PLD) accountants, for SGLD and --event (the answer
    /// exceeds the exact ε by at most about η) [default: 0.005].
    #[arg(long)]
    pub pld_slack: Option<f64>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Account for your own release: a JSON file holding an event of the ledger's
    /// vocabulary, or a ledger entry (event + claim) copied from any manifest
    /// (schema: docs/bring-your-own.md, "Your privacy events").
    #[arg(long, value_name = "FILE.json", conflicts_with = "manifest")]
    pub event: Option<std::path::PathBuf>,
    /// Re-verify every ledger entry of a run's manifest.json and compose them all.
    #[arg(long, value_name = "MANIFEST.json")]
    pub manifest: Option<std::path::PathBuf>,
}

pub type Answer = (Vec<String>, Value, Vec<String>);

pub fn input(message: impl std::fmt::Display) -> CommandError {
    CommandError::input(format!("account: {message}"))
}

/// Prints the answer: the JSON object (`--json`) or the text lines.
pub fn print(args_json: bool, value: Value, lines: Vec<String>) -> Result<(), CommandError> {
    if args_json {
        super::emit_json(value)?;
    } else {
        crate::outln!("{}", lines.join("\n"));
    }
    Ok(())
}
