//! `privpost account`: the privacy budget of a planned DP-MCMC (subsampled
//! Barker test) or DP-SGLD run, before anything runs.

use super::CommandError;

/// Which mechanism `privpost account` accounts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AccountMechanism {
    /// DP-MCMC with the subsampled Barker test (heikkila2019 Theorem 2, Corollary 2).
    Barker,
    /// DP-SGLD: Poisson-subsampled Gaussian mechanism.
    Sgld,
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  privpost account --n-data 1000000 --batch 1000 --iterations 1000,20000\n  privpost account --n-data 1000000 --batch 1000 --iterations 20000 --delta 1e-6 --n0 100 --clip 0.313\n  privpost account --mechanism sgld --q 1e-4 --sigma 1.1952 --iterations 6000000 --delta 2e-6"
)]
pub struct AccountArgs {
    #[arg(long, value_enum, default_value = "barker")]
    pub mechanism: AccountMechanism,
    /// Dataset size N (Barker).
    #[arg(long)]
    pub n_data: Option<u64>,
    /// Minibatch size b, drawn without replacement (Barker).
    #[arg(long)]
    pub batch: Option<u64>,
    /// Iterations T; several separated by commas.
    #[arg(long, value_delimiter = ',')]
    pub iterations: Vec<u64>,
    /// δ of the (ε, δ) statement (Barker default: 1/N).
    #[arg(long)]
    pub delta: Option<f64>,
    /// Largest Rényi order considered (Barker default 100: orders 3 ≤ α < min(100, b/5 − 1); SGLD default 499).
    #[arg(long)]
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
    /// Evaluate the Barker bound at this order only (must satisfy α < b/5).
    #[arg(long)]
    pub alpha: Option<u32>,
}

/// Privacy budget of a planned DP-MCMC or DP-SGLD run, before running anything.
/// Prints (ε, δ) with both conversions.
pub fn account(a: AccountArgs) -> Result<(), CommandError> {
    use crate::privacy::rdp::{check_clipping, BarkerAccount, Conversion, SgldAccount};
    let need = |v: Option<u64>, flag: &str| {
        v.ok_or_else(|| {
            CommandError::input(format!("account: {flag} is required for this mechanism"))
        })
    };
    let bad = |e: crate::privacy::rdp::AccountError| CommandError::input(format!("account: {e}"));
    if a.iterations.is_empty() {
        return Err(CommandError::input(
            "account: --iterations is required (e.g. --iterations 1000,20000)",
        ));
    }
    match a.mechanism {
        AccountMechanism::Barker => {
            let (n, b) = (need(a.n_data, "--n-data")?, need(a.batch, "--batch")?);
            if a.q.is_some() || a.sigma.is_some() {
                return Err(CommandError::input("account: --q and --sigma belong to --mechanism sgld; the Barker test uses --n-data and --batch"));
            }
            match (a.n0, a.clip) {
                (Some(n0), Some(clip)) => check_clipping(clip, b, n0).map_err(bad)?,
                (None, None) => {}
                _ => return Err(CommandError::input("account: give both --n0 and --clip to check the clipping bound (eq. 23), or neither")),
            }
            let delta = a.delta.unwrap_or(1.0 / n as f64);
            if let Some(alpha) = a.alpha {
                // one order: refused outside Theorem 2 (α < b/5)
                crate::privacy::rdp::barker_step_epsilon(alpha, b).map_err(bad)?;
                let acc = BarkerAccount {
                    n_data: n,
                    batch: b,
                    iterations: 0,
                    delta,
                    alpha_max: 100,
                };
                acc.validate().map_err(bad)?;
                let step = acc.step_rdp(alpha);
                crate::outln!("DP-MCMC at order α = {alpha}: per-iteration RDP ε′(α) = {step:.6e}");
                for &t in &a.iterations {
                    let rdp = t as f64 * step;
                    crate::outln!(
                        "  T = {t}: RDP ε = {rdp:.4}; (ε, δ = {delta:e}) = {:.4} (classic), {:.4} (improved)",
                        Conversion::Classic.epsilon(rdp, alpha as f64, delta),
                        Conversion::Improved.epsilon(rdp, alpha as f64, delta)
                    );
                }
                return Ok(());
            }
            let mut lines = vec![
                "DP-MCMC, subsampled Barker test (heikkila2019 Theorem 2, Corollary 2 / eq. 22)"
                    .to_string(),
            ];
            for &t in &a.iterations {
                let acc = BarkerAccount {
                    n_data: n,
                    batch: b,
                    iterations: t,
                    delta,
                    alpha_max: a.alpha_max.unwrap_or(100),
                };
                let classic = acc.spent(Conversion::Classic).map_err(bad)?;
                let improved = acc.spent(Conversion::Improved).map_err(bad)?;
                let orders = acc.orders();
                lines.push(format!(
                    "  N = {n}, b = {b}, q = {}, T = {t}, δ = {delta:e}, orders {}..={}: ε = {:.4} (classic, α = {}), {:.4} (improved, α = {})",
                    acc.q(), orders.start(), orders.end(), classic.epsilon, classic.best_alpha, improved.epsilon, improved.best_alpha
                ));
            }
            crate::outln!("{}", lines.join("\n"));
        }
        AccountMechanism::Sgld => {
            if a.n_data.is_some() || a.batch.is_some() || a.n0.is_some() || a.clip.is_some() {
                return Err(CommandError::input("account: --mechanism sgld takes --q and --sigma (not --n-data, --batch, --n0, --clip)"));
            }
            let q = a.q.ok_or_else(|| {
                CommandError::input("account: --q is required for --mechanism sgld")
            })?;
            let sigma = a.sigma.ok_or_else(|| {
                CommandError::input("account: --sigma is required for --mechanism sgld")
            })?;
            let delta = a.delta.ok_or_else(|| {
                CommandError::input("account: --delta is required for --mechanism sgld")
            })?;
            let mut lines = vec![
                "DP-SGLD, Poisson-subsampled Gaussian mechanism (Mironov, Talwar, Zhang 2019)"
                    .to_string(),
            ];
            for &t in &a.iterations {
                let acc = SgldAccount {
                    q,
                    sigma,
                    iterations: t,
                    delta,
                    alpha_max: a.alpha_max.unwrap_or(499),
                };
                let classic = acc.spent(Conversion::Classic).map_err(bad)?;
                let improved = acc.spent(Conversion::Improved).map_err(bad)?;
                lines.push(format!(
                    "  q = {q}, σ = {sigma}, T = {t}, δ = {delta:e}, orders 2..={}: ε = {:.4} (classic, α = {}), {:.4} (improved, α = {})",
                    acc.alpha_max, classic.epsilon, classic.best_alpha, improved.epsilon, improved.best_alpha
                ));
            }
            crate::outln!("{}", lines.join("\n"));
        }
    }
    Ok(())
}
