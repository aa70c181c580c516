//! Fig. 3's privacy budgets at the checkpoints: DP-MCMC's by Theorem 2, DP-SGLD's as the paper states them (RDP, classic conversion) and, beside them, the tight PLD curve at a bounded number of checkpoints.

use super::ParamError;

use super::params::Fig3Config;

/// Most checkpoints of the tight DP-SGLD curve.
pub(super) const MAX_TIGHT_POINTS: u64 = 1000;

/// The tight checkpoints: at most `sgld_tight_points` of `sgld_t`, evenly spaced and
/// ending at the last.
pub(super) fn tight_checkpoints(c: &Fig3Config, sgld_t: &[u64]) -> Vec<u64> {
    let k = (c.sgld_tight_points as usize).min(sgld_t.len());
    if k == 0 {
        return Vec::new();
    }
    let stride = sgld_t.len().div_ceil(k);
    let mut out: Vec<u64> = sgld_t.iter().rev().step_by(stride).copied().collect();
    out.reverse();
    out
}

/// ε of the published DP-SGLD by the tight PLD accountant (privacy::pld, default
/// slack) at the tight checkpoints, computed in parallel (each value is independent).
pub(super) fn tight_sgld_curve(
    c: &Fig3Config,
    sgld_t: &[u64],
) -> Result<Vec<(u64, f64)>, ParamError> {
    use rayon::prelude::*;
    let sgld = crate::dpmcmc::sgld::Sgld::paper(crate::dpmcmc::sgld::Noise::Published);
    let q = sgld.batch as f64 / c.n_data as f64;
    let sigma = sgld.noise_multiplier(c.n_data as usize);
    tight_checkpoints(c, sgld_t)
        .par_iter()
        .map(|&t| {
            crate::privacy::pld::poisson_gaussian_epsilon(
                q,
                sigma,
                t,
                c.delta_sgld,
                &crate::privacy::pld::PldOptions::default(),
            )
            .map(|e| (t, e.epsilon))
            .map_err(|e| {
                ParamError::new(
                    "delta_sgld",
                    format!("the tight (PLD) accountant at T = {t}: {e}"),
                    "a δ the tight accountant resolves (e.g. 1e-6), or sgld_tight_points = 0 for no tight curve",
                )
            })
        })
        .collect()
}
