//! The posteriors a calibration method reports from a release: the noise-aware and naive ones, and the candidates of the exponential mechanism.

use super::{beta_reg, rank, BetaDist, BetaMixture, ChaCha8Rng};
use rand::RngExt;

/// The posterior a method gives from one replication, as what it can answer:
/// a CDF and draws, or draws only (the Gibbs sampler).
pub(super) enum Posterior {
    Beta(BetaDist),
    Mixture(BetaMixture),
    Truncated(crate::expfam::truncated::TruncatedBeta),
    Draws(Vec<f64>),
}

impl Posterior {
    /// (PIT of θ*, SBC rank of θ* among `l` draws).
    pub(super) fn check(&self, truth: f64, l: usize, rng: &mut ChaCha8Rng) -> (f64, usize) {
        let draws_of = |f: &dyn Fn(&mut ChaCha8Rng) -> f64, rng: &mut ChaCha8Rng| {
            (0..l).map(|_| f(rng)).collect::<Vec<f64>>()
        };
        match self {
            Self::Beta(d) => (
                beta_reg(d.alpha(), d.beta(), truth.clamp(0.0, 1.0)),
                rank(truth, &draws_of(&|r| d.sample(r), rng)),
            ),
            Self::Mixture(m) => (m.cdf(truth), rank(truth, &draws_of(&|r| m.sample(r), rng))),
            Self::Truncated(t) => (t.cdf(truth), rank(truth, &draws_of(&|r| t.sample(r), rng))),
            Self::Draws(d) => {
                // PIT from all kept draws (mid-rank); the SBC rank from l of them, evenly thinned
                let pit = (rank(truth, d) as f64 + 0.5) / (d.len() as f64 + 1.0);
                let thinned: Vec<f64> = (0..l).map(|j| d[(j + 1) * d.len() / l - 1]).collect();
                (pit, rank(truth, &thinned))
            }
        }
    }
}

/// One candidate's first count from the mechanism's exact output
/// probabilities (candidate, H, probability).
pub(super) fn draw_candidate(outputs: &[(Vec<u32>, f64, f64)], rng: &mut ChaCha8Rng) -> f64 {
    let mut u: f64 = rng.random();
    for (r, _, p) in outputs {
        if u < *p {
            return f64::from(r[0]);
        }
        u -= p;
    }
    outputs.last().map_or(0.0, |o| f64::from(o.0[0]))
}

/// The releases of one replication.
pub(super) struct Drawn {
    pub(super) positives: f64,
    pub(super) negatives: f64,
    pub(super) y: f64,
}
