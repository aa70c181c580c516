//! Fig. 3's parameters as the config gives them (checked in `config.rs`, the
//! tight-accountant checkpoints in `budgets.rs`): a leaf both import.

use crate::experiments::heikkila2019::StartSpec;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Fig3Config {
    pub(super) n_data: u64,
    pub(super) batch: u64,
    pub(super) n0: f64,
    pub(super) clip_factor: f64,
    pub(super) proposal_variance: f64,
    pub(super) runs: u64,
    /// DP-SGLD runs per variant (unset: `runs`). Fig. 3's config sizes them by the
    /// Monte Carlo error its claims need; the paper ran 20.
    #[serde(default)]
    pub(super) sgld_runs: Option<u64>,
    pub(super) mcmc_iterations: u64,
    pub(super) mcmc_burn_in: u64,
    pub(super) mcmc_every: u64,
    pub(super) start: StartSpec,
    pub(super) reference_iterations: u64,
    pub(super) sgld_iterations: u64,
    pub(super) sgld_burn_in: u64,
    pub(super) sgld_every: u64,
    pub(super) sgld_variants: Vec<crate::dpmcmc::sgld::Noise>,
    pub(super) delta_mcmc: f64,
    pub(super) delta_sgld: f64,
    pub(super) alpha_max_mcmc: u32,
    pub(super) alpha_max_sgld: u32,
    /// Checkpoints (at most this many, evenly spaced, ending at the last) where the
    /// published DP-SGLD's ε is also computed by the tight PLD accountant: a labelled
    /// extra curve `dp_sgld_tight` in the summary (0: none; the paper's curve is unchanged).
    #[serde(default)]
    pub(super) sgld_tight_points: u64,
    /// Keep each chain's draw at every checkpoint in `draws.csv` (off by default).
    #[serde(default)]
    pub(super) keep_draws: bool,
}
