//! Models for data-augmentation MCMC ([`super::AugmentedModel`]).
//!
//! - [`Categorical`]: n records in K categories, θ ~ Dirichlet(α), the released
//!   statistic their counts — all K (Foulds et al. 2016 eq. 16, usually clamped
//!   at 0) or the first K − 1 (Bernstein & Sheldon 2018's free counts).
//!   Beta-Bernoulli is K = 2 with the positives first: θ is P(x = 1).
//! - [`NaiveBayes`] (`naive_bayes.rs`): Ju et al. 2022's log-linear model.
//! - [`LinearRegression`] (`regression.rs`): their §5.2, from noisy sufficient statistics.
//! - [`NigRegression`] (`nig_regression.rs`): Xiong & Ju 2025's benchmark regression
//!   (normal-inverse-gamma prior), with its coupled draws for meeting times.
//! - [`PerCellHmm`] (`hmm.rs`): Foulds et al. 2016's war-log HMM from its per-cell
//!   Laplace release (θ | x by the HMM's Gibbs sweep, so it runs its own loop).

use rand::{Rng, RngExt};

use super::AugmentedModel;
use crate::expfam::noise_aware_dirichlet::sample_dirichlet;

mod error;
mod hmm;
mod naive_bayes;
mod nig_regression;
mod regression;
pub use error::ModelError;
pub use hmm::{AugmentedState, CellKernel, Moves, PerCellHmm};
pub use naive_bayes::{NaiveBayes, NbRecord, NbTheta};
pub use nig_regression::{NigPosterior, NigRegression};
pub use regression::{LinearRegression, RegressionRecord};

/// Which counts are released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counts {
    /// All K counts.
    All,
    /// The first K − 1 counts (the last is n minus their sum).
    Free,
}

/// n categorical records, a Dirichlet prior, a release of their counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Categorical {
    alpha: Vec<f64>,
    n: usize,
    counts: Counts,
    /// the reported parameters: "theta" (K = 2, θ₁ only) or theta1..thetaK
    names: Vec<String>,
}

impl Categorical {
    /// Dirichlet-Categorical with prior Dirichlet(`alpha`) (K ≥ 2, each α_k > 0
    /// and finite) and n ≥ 1 records.
    pub fn dirichlet(alpha: Vec<f64>, n: usize, counts: Counts) -> Result<Self, ModelError> {
        if alpha.len() < 2 || alpha.iter().any(|a| !(a.is_finite() && *a > 0.0)) {
            return Err(ModelError {
                key: "prior",
                found: format!("{alpha:?}"),
                allowed: "at least 2 finite values > 0",
            });
        }
        if n == 0 {
            return Err(ModelError {
                key: "n",
                found: "0".into(),
                allowed: "at least 1 record",
            });
        }
        let names = (1..=alpha.len()).map(|k| format!("theta{k}")).collect();
        Ok(Self {
            alpha,
            n,
            counts,
            names,
        })
    }

    /// Beta-Bernoulli: prior Beta(a, b) on θ = P(x = 1); the statistic is
    /// (positives, negatives), or the positives alone for [`Counts::Free`].
    pub fn beta_bernoulli(a: f64, b: f64, n: usize, counts: Counts) -> Result<Self, ModelError> {
        let mut m = Self::dirichlet(vec![a, b], n, counts)?;
        m.names = vec!["theta".into()];
        Ok(m)
    }

    pub fn k(&self) -> usize {
        self.alpha.len()
    }
}

impl AugmentedModel for Categorical {
    /// The record's category.
    type Record = u32;
    type Theta = Vec<f64>;

    fn n(&self) -> usize {
        self.n
    }

    fn statistic_len(&self) -> usize {
        match self.counts {
            Counts::All => self.k(),
            Counts::Free => self.k() - 1,
        }
    }

    fn contribution(&self, x: &u32, out: &mut Vec<(usize, f64)>) {
        let k = *x as usize;
        if k < self.statistic_len() {
            out.push((k, 1.0));
        }
    }

    fn group(&self, x: &u32) -> u64 {
        u64::from(*x)
    }

    fn draw_prior<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<f64> {
        sample_dirichlet(&self.alpha, rng)
    }

    fn draw_record<R: Rng + ?Sized>(&self, theta: &Vec<f64>, rng: &mut R) -> u32 {
        let mut u = rng.random::<f64>();
        for (k, &p) in theta.iter().enumerate() {
            if u < p {
                return k as u32;
            }
            u -= p;
        }
        (theta.len() - 1) as u32
    }

    fn draw_theta<R: Rng + ?Sized>(&self, records: &[u32], rng: &mut R) -> Vec<f64> {
        let mut post = self.alpha.clone();
        for &x in records {
            post[x as usize] += 1.0;
        }
        sample_dirichlet(&post, rng)
    }

    fn parameter_names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn parameters(&self, theta: &Vec<f64>) -> Vec<f64> {
        theta[..self.names.len()].to_vec()
    }

    /// Replacing one record moves one unit between two counts: 2, or 1 when
    /// only one of them is released (free counts with K = 2).
    fn l1_sensitivity(&self) -> f64 {
        if self.statistic_len() >= 2 {
            2.0
        } else {
            1.0
        }
    }
}

/// Draws of θ (every coordinate, K per draw) from one record-wise chain on a
/// count release: what the calibration figures' `da_mcmc` arm checks. `seed`
/// names the chain's stream.
pub fn count_posterior(
    model: &Categorical,
    release: &super::Release,
    (warmup, draws): (usize, usize),
    seed: u64,
) -> Result<Vec<Vec<f64>>, super::DaError> {
    let full = Categorical {
        names: (1..=model.k()).map(|k| format!("theta{k}")).collect(),
        ..model.clone()
    };
    let settings = super::Settings {
        warmup,
        draws,
        chains: 1,
        kernel: super::Kernel::RecordWise,
        seed,
    };
    let mut out = super::sample(&full, release, &settings)?;
    Ok(out.chains.pop().unwrap_or_default())
}
