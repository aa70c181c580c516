//! What a data-augmentation run is asked for and what it gives back, shared by
//! the engine in `mod.rs` and the samplers of their own (randomized response):
//! the record kernel, the settings, the errors, the draws with their summary,
//! and the mixing check.

use super::release::ReleaseError;

/// How the records are updated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kernel {
    /// Ju et al.'s independent Metropolis step per record.
    RecordWise,
    /// Xiong & Ju's single offer, multiple attempts.
    Soma,
}

crate::names::name_table!(Kernel {
    RecordWise => "record_wise",
    Soma => "soma",
});

/// The run's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Iterations dropped at the start of each chain.
    pub warmup: usize,
    /// Iterations kept per chain (one draw each).
    pub draws: usize,
    pub chains: usize,
    pub kernel: Kernel,
    pub seed: u64,
}

/// Why a run gave no posterior.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DaError {
    #[error(transparent)]
    Release(#[from] ReleaseError),
    #[error("{key}: {found} — allowed: {allowed}")]
    Setting {
        key: &'static str,
        found: String,
        allowed: String,
    },
    #[error("the release has probability (or density) 0 at the chain's start in chain {chain} (coordinate {coordinate}): a discrete release needs an integer statistic, and a continuous one a scale at which the released value is reachable from the statistic")]
    ImpossibleStart { chain: usize, coordinate: usize },
    #[error("interrupted: the stop flag was set while the chains ran (nothing was written)")]
    Interrupted,
    #[error("the chains cannot mix: after warm-up {rate:.3e} of the {proposals} record proposals that would change the released statistic were accepted (below 1e-6), so the statistic stayed where warm-up left it; a noise scale that small next to the statistic's sensitivity pins it (check the scale and the model)")]
    NoMixing { rate: f64, proposals: u64 },
}

/// The draws of every chain and what the records' kernel did.
#[derive(Debug, Clone, PartialEq)]
pub struct Draws {
    pub names: Vec<String>,
    /// chains × draws × parameters
    pub chains: Vec<Vec<Vec<f64>>>,
    /// record proposals (or SOMA offers) and acceptances after warm-up, summed
    /// over chains (a proposal that leaves the statistic as it is counts as accepted,
    /// as in Ju et al.'s scripts)
    pub proposals: u64,
    pub accepted: u64,
    /// of those, the proposals that would change the statistic, and the accepted ones
    pub changing: u64,
    pub moves: u64,
}

impl Draws {
    /// The record acceptance rate after warm-up.
    pub fn acceptance(&self) -> f64 {
        self.accepted as f64 / self.proposals.max(1) as f64
    }

    /// The acceptance rate of the proposals that would change the statistic.
    pub fn move_rate(&self) -> f64 {
        self.moves as f64 / self.changing.max(1) as f64
    }

    /// [`DaError::NoMixing`] when fewer than one in a million of the proposals
    /// that would change the statistic was accepted after warm-up: the statistic
    /// stayed where warm-up left it, and the draws cannot show whether that is
    /// where the posterior is.
    pub fn check_mixing(&self) -> Result<(), DaError> {
        check_moves(self.changing, self.moves)
    }

    /// Parameter `p`'s draws, one vector per chain.
    pub fn parameter(&self, p: usize) -> Vec<Vec<f64>> {
        self.chains
            .iter()
            .map(|c| c.iter().map(|d| d[p]).collect())
            .collect()
    }

    /// One row per parameter: mean, sd, quantiles, R̂ and ESS over all chains.
    pub fn summary(&self) -> Vec<ParameterSummary> {
        (0..self.names.len())
            .map(|p| {
                let chains = self.parameter(p);
                let mut pooled: Vec<f64> = chains.iter().flatten().copied().collect();
                pooled.sort_by(f64::total_cmp);
                let (mean, var) = crate::stats::diagnostics::mean_var(&pooled);
                let diag = crate::stats::diagnostics::rank_diagnostics(&chains);
                let q = |x: f64| crate::stats::quantile(&pooled, x);
                ParameterSummary {
                    parameter: self.names[p].clone(),
                    mean,
                    sd: var.sqrt(),
                    q05: q(0.05),
                    q50: q(0.5),
                    q95: q(0.95),
                    rhat: diag.as_ref().and_then(|d| d.rhat),
                    ess_bulk: diag.as_ref().map(|d| d.ess_bulk),
                    ess_tail: diag.as_ref().map(|d| d.ess_tail),
                }
            })
            .collect()
    }
}

/// [`DaError::NoMixing`] when, of `changing` record proposals that would have
/// changed the released statistic after warm-up, fewer than one in a million
/// (`moves`) were accepted.
pub fn check_moves(changing: u64, moves: u64) -> Result<(), DaError> {
    let rate = moves as f64 / changing.max(1) as f64;
    if changing > 0 && rate < 1e-6 {
        return Err(DaError::NoMixing {
            rate,
            proposals: changing,
        });
    }
    Ok(())
}

/// One parameter's posterior summary.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ParameterSummary {
    pub parameter: String,
    pub mean: f64,
    pub sd: f64,
    pub q05: f64,
    pub q50: f64,
    pub q95: f64,
    pub rhat: Option<f64>,
    pub ess_bulk: Option<f64>,
    pub ess_tail: Option<f64>,
}

impl Settings {
    /// At least one chain and one kept draw per chain (the samplers of their own
    /// check this; the engine's `check_settings` more).
    pub fn check_counts(&self) -> Result<(), DaError> {
        let setting = |key: &'static str, allowed: &str| DaError::Setting {
            key,
            found: "0".into(),
            allowed: allowed.into(),
        };
        if self.draws == 0 {
            return Err(setting("draws", "at least 1 draw per chain"));
        }
        if self.chains == 0 {
            return Err(setting("chains", "at least 1 chain"));
        }
        Ok(())
    }
}

impl Draws {
    /// The draws of a sampler that draws every record from its full conditional
    /// (Gibbs): `records` per sweep, each counted as a proposal accepted.
    pub fn gibbs(
        names: Vec<String>,
        chains: Vec<Result<Vec<Vec<f64>>, DaError>>,
        records: u64,
        settings: &Settings,
    ) -> Result<Self, DaError> {
        let n = records * (settings.draws * settings.chains) as u64;
        Ok(Self {
            names,
            chains: chains.into_iter().collect::<Result<_, _>>()?,
            proposals: n,
            accepted: n,
            changing: 0,
            moves: 0,
        })
    }
}
