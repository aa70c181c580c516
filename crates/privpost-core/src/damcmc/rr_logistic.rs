//! Logistic regression whose labels were released by randomized response (the
//! model of dapper's `gdp_logit`): covariates xᵢ are public, each binary label yᵢ
//! was reported truthfully with probability `keep` and flipped otherwise, and
//! β ~ N(0, τ²I). The release is (keep(k − 1)/(1 − keep) = keep/(1 − keep))-DP in
//! the label, ε = ln(keep/(1 − keep)).
//!
//! **The sampler.** Data augmentation with the true labels, two steps per
//! iteration:
//! - given β, each true label is drawn from its full conditional,
//!   P(yᵢ = 1 | β, rᵢ) ∝ σ(xᵢᵀβ)·M(rᵢ | 1) against (1 − σ(xᵢᵀβ))·M(rᵢ | 0), with M
//!   the channel (exact Gibbs: no record is proposed and rejected, where dapper's
//!   record step proposes yᵢ from the model and accepts with the channel's ratio);
//! - given the labels, β moves by [`THETA_SWEEPS`] sweeps of the project's
//!   coordinate-wise slice sampler ([`crate::samplers::slice`], Neal 2003, the
//!   sampler of Geumlek et al. §5.2) on the ordinary logistic posterior, started at
//!   the current β. Each sweep leaves p(β | y) invariant, so the pair leaves the
//!   joint posterior invariant; dapper's `gdp_logit` runs an adaptive Metropolis
//!   chain of 50 steps there instead.
//!
//! The slice sampler moves β in the coordinates of standardised covariates,
//! β = M u with M mapping (intercept, (xⱼ − x̄ⱼ)/sⱼ) back to the raw design
//! ([`crate::samplers::LinearTarget::mapped`], the prior carried over exactly as
//! N(0, τ²MᵀM)): one coordinate at a time it would otherwise crawl along the
//! ridge an uncentred covariate (age in years) makes with the intercept. The
//! chains start at u ~ N(0, I), linear predictors of order 1. Started from the
//! prior instead, a covariate of 30 put every σ(xᵢᵀβ) at 0 or 1, the drawn labels
//! all on one side, and β then stayed out there (the augmented chain's known trap
//! under near-separation; the marginal density gives that region no mass).
//!
//! **The reference.** RR acts on each label alone, so the labels sum out in closed
//! form: p(β | r) ∝ N(β; 0, τ²I) Πᵢ [M(rᵢ|0) + (M(rᵢ|1) − M(rᵢ|0)) σ(xᵢᵀβ)]
//! ([`RrLogistic::ln_posterior`]). The tests hold the sampler's means and sds to
//! this density integrated on a grid.

use std::sync::atomic::AtomicBool;

use nalgebra::{DMatrix, DVector};
use rand::{Rng, RngExt};
use rayon::prelude::*;

use super::models::ModelError;
use super::randomized_response::RrAttribute;
use super::run::{DaError, Draws, Settings};
use crate::glm::{log_sigmoid, sigmoid, Posterior};
use crate::samplers::{slice, LinearTarget};

/// Slice-sampler sweeps over β's coordinates per iteration.
pub const THETA_SWEEPS: usize = 2;

/// Most coefficients (the slice sampler moves them one at a time).
pub const MAX_COEFFICIENTS: usize = 64;

/// The model, its release and its prior.
#[derive(Debug, Clone)]
pub struct RrLogistic {
    /// n × d design (an intercept column, if any, is the caller's)
    x: DMatrix<f64>,
    /// the released labels, 0 or 1
    released: Vec<u8>,
    channel: RrAttribute,
    /// prior sd τ of every coefficient
    tau: f64,
    names: Vec<String>,
    /// β = M u: the standardising map (module docs)
    map: DMatrix<f64>,
}

fn error(key: &'static str, found: String, allowed: &'static str) -> ModelError {
    ModelError {
        key,
        found,
        allowed,
    }
}

impl RrLogistic {
    /// `x` is row-major, n rows of d values; `released[i]` is 0 or 1; `channel` a
    /// binary attribute; `names` one per coefficient.
    pub fn new(
        x: Vec<Vec<f64>>,
        released: Vec<u8>,
        channel: RrAttribute,
        tau: f64,
        names: Vec<String>,
    ) -> Result<Self, ModelError> {
        let n = released.len();
        let d = names.len();
        if n == 0 || x.len() != n {
            return Err(error(
                "n",
                format!("{} labels, {} covariate rows", n, x.len()),
                "at least one record, each with a label and its covariates",
            ));
        }
        if d == 0 || d > MAX_COEFFICIENTS {
            return Err(error(
                "covariates",
                format!("{d} coefficients"),
                "1 to 64 coefficients",
            ));
        }
        if channel.levels() != 2 {
            return Err(error(
                "label",
                format!("{} categories", channel.levels()),
                "a binary label: 2 categories",
            ));
        }
        if let Some(i) = x.iter().position(|r| r.len() != d) {
            return Err(error(
                "covariates",
                format!("row {} has {} values", i + 1, x[i].len()),
                "one value per coefficient",
            ));
        }
        if let Some(v) = x.iter().flatten().find(|v| !v.is_finite()) {
            return Err(error("covariates", v.to_string(), "finite numbers"));
        }
        if let Some(&r) = released.iter().find(|&&r| r > 1) {
            return Err(error("label", r.to_string(), "0 or 1"));
        }
        if !(1e-6..=1e6).contains(&tau) {
            return Err(error(
                "tau",
                tau.to_string(),
                "a prior sd τ from 1e-6 to 1e6",
            ));
        }
        let x = DMatrix::from_fn(n, d, |i, j| x[i][j]);
        // β = M u: column j ≥ 1 of X M is (x_j − x̄_j)/s_j when column 0 is the
        // intercept; other designs are left as they are (M = I)
        let mut map = DMatrix::identity(d, d);
        if x.column(0).iter().all(|&v| v == 1.0) {
            for j in 1..d {
                let (mean, var) = crate::stats::diagnostics::mean_var(x.column(j).as_slice());
                let s = if var > 0.0 { var.sqrt() } else { 1.0 };
                map[(j, j)] = 1.0 / s;
                map[(0, j)] = -mean / s;
            }
        }
        Ok(Self {
            x,
            released,
            channel,
            tau,
            names,
            map,
        })
    }

    pub fn n(&self) -> usize {
        self.released.len()
    }

    pub fn dim(&self) -> usize {
        self.x.ncols()
    }

    pub fn parameter_names(&self) -> Vec<String> {
        self.names.clone()
    }

    /// The release's ε: ln(keep/(1 − keep)) (infinite when keep is 1).
    pub fn epsilon(&self) -> f64 {
        self.channel.epsilon()
    }

    /// ln p(β | r) up to a constant, the labels summed out (module docs).
    pub fn ln_posterior(&self, beta: &[f64]) -> f64 {
        let b = DVector::from_column_slice(beta);
        let eta = &self.x * &b;
        let prior = -0.5 * b.norm_squared() / (self.tau * self.tau);
        let lik: f64 = eta
            .iter()
            .zip(&self.released)
            .map(|(&t, &r)| {
                let m0 = self.channel.probability(r as usize, 0);
                let m1 = self.channel.probability(r as usize, 1);
                // m0 (1 − σ) + m1 σ, as a mix of ln σ(t) and ln σ(−t)
                let (a, b) = (m1.ln() + log_sigmoid(t), m0.ln() + log_sigmoid(-t));
                let hi = a.max(b);
                hi + ((a - hi).exp() + (b - hi).exp()).ln()
            })
            .sum();
        prior + lik
    }

    /// The true labels given β, each from its full conditional, as ±1.
    fn draw_labels<R: Rng + ?Sized>(&self, beta: &DVector<f64>, y: &mut DVector<f64>, rng: &mut R) {
        let eta = &self.x * beta;
        for (i, &r) in self.released.iter().enumerate() {
            let p1 = sigmoid(eta[i]) * self.channel.probability(r as usize, 1);
            let p0 = sigmoid(-eta[i]) * self.channel.probability(r as usize, 0);
            let one = rng.random::<f64>() * (p0 + p1) < p1;
            y[i] = if one { 1.0 } else { -1.0 };
        }
    }

    /// The chains (from u ~ N(0, I), module docs), each on its own stream
    /// ([`crate::rng::task_rng`] of the seed and the chain), so the draws do not
    /// depend on the thread count; ended with [`DaError::Interrupted`] once `stop`
    /// is set (looked at every iteration). `settings.kernel` is not used.
    pub fn sample(&self, settings: &Settings, stop: &AtomicBool) -> Result<Draws, DaError> {
        settings.check_counts()?;
        let precision = 1.0 / (self.tau * self.tau);
        let chains: Vec<Result<Vec<Vec<f64>>, DaError>> = (0..settings.chains)
            .into_par_iter()
            .map(|c| {
                let mut rng = crate::rng::task_rng(settings.seed, c);
                let mut u = DVector::from_fn(self.dim(), |_, _| {
                    rng.sample::<f64, _>(rand_distr::StandardNormal)
                });
                let mut y = DVector::zeros(self.n());
                let mut kept = Vec::with_capacity(settings.draws);
                for it in 0..settings.warmup + settings.draws {
                    if stop.load(std::sync::atomic::Ordering::Relaxed) {
                        return Err(DaError::Interrupted);
                    }
                    self.draw_labels(&(&self.map * &u), &mut y, &mut rng);
                    let post = Posterior {
                        x: &self.x,
                        y: &y,
                        rho: 1.0,
                        precision,
                        radius: None,
                    };
                    let target = LinearTarget::mapped(&post, self.map.clone());
                    let mut ch = slice::start(&target, u);
                    for _ in 0..THETA_SWEEPS {
                        slice::sweep(&target, &mut ch, &mut rng);
                    }
                    u = ch.u;
                    if it >= settings.warmup {
                        kept.push((&self.map * &u).iter().copied().collect());
                    }
                }
                Ok(kept)
            })
            .collect();
        // every record is drawn from its full conditional
        Draws::gibbs(self.parameter_names(), chains, self.n() as u64, settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::damcmc::Kernel;

    /// 14 records, an intercept and one covariate, labels kept with probability
    /// 0.8 (ε = ln 4).
    fn small() -> RrLogistic {
        let xs = [
            -1.5, -1.0, -0.8, -0.5, -0.3, 0.0, 0.1, 0.3, 0.5, 0.7, 1.0, 1.2, 1.6, 2.0,
        ];
        let r = [0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1];
        RrLogistic::new(
            xs.iter().map(|&v| vec![1.0, v]).collect(),
            r.to_vec(),
            RrAttribute::new(2, 0.8).unwrap(),
            2.0,
            vec!["intercept".into(), "x".into()],
        )
        .unwrap()
    }

    /// Means and sds of β by the closed-form marginal on a 1201² grid over ±8
    /// prior sds. The likelihood lies in [0.2¹⁴, 1], so the posterior's mass past
    /// the grid is at most the prior's (about 10⁻¹⁵) over the evidence (at least
    /// 0.2¹⁴ ≈ 1.6·10⁻¹⁰): under 10⁻⁵. A grid to ±6 (3 prior sds) had cut the
    /// tail and moved the slope's sd by 3 %.
    fn grid_moments(m: &RrLogistic) -> ([f64; 2], [f64; 2]) {
        let (k, lo, hi) = (1201, -16.0, 16.0);
        let h = (hi - lo) / (k - 1) as f64;
        let mut lp = Vec::with_capacity(k * k);
        for i in 0..k {
            for j in 0..k {
                let b = [lo + i as f64 * h, lo + j as f64 * h];
                lp.push((b, m.ln_posterior(&b)));
            }
        }
        let top = lp.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
        let (mut z, mut s1, mut s2) = (0.0, [0.0; 2], [0.0; 2]);
        for (b, l) in &lp {
            let w = (l - top).exp();
            z += w;
            for c in 0..2 {
                s1[c] += w * b[c];
                s2[c] += w * b[c] * b[c];
            }
        }
        let mean = [s1[0] / z, s1[1] / z];
        let sd = [0, 1].map(|c| (s2[c] / z - mean[c] * mean[c]).sqrt());
        (mean, sd)
    }

    fn settings(chains: usize, seed: u64) -> Settings {
        Settings {
            warmup: 500,
            draws: 20_000,
            chains,
            kernel: Kernel::RecordWise,
            seed,
        }
    }

    /// The marginal ln p(β | r) against the augmented likelihood summed by brute
    /// force over the 2¹⁴ label vectors at a few β.
    #[test]
    fn the_marginal_is_the_sum_over_true_labels() {
        let m = small();
        for beta in [[0.0, 0.0], [0.7, -1.3], [-2.0, 3.0]] {
            let eta: Vec<f64> = (0..m.n())
                .map(|i| beta[0] + beta[1] * m.x[(i, 1)])
                .collect();
            let mut total = 0.0;
            for labels in 0..(1u32 << m.n()) {
                let mut p = 1.0;
                for (i, &r) in m.released.iter().enumerate() {
                    let y = ((labels >> i) & 1) as usize;
                    let py = if y == 1 {
                        sigmoid(eta[i])
                    } else {
                        sigmoid(-eta[i])
                    };
                    p *= py * m.channel.probability(r as usize, y);
                }
                total += p;
            }
            let prior = -0.5 * (beta[0] * beta[0] + beta[1] * beta[1]) / 4.0;
            let want = total.ln() + prior;
            assert!((m.ln_posterior(&beta) - want).abs() < 1e-10, "{beta:?}");
        }
    }

    /// Means within 4 Monte Carlo s.e. (bulk ESS) and sds within 10 % of the
    /// grid's.
    #[test]
    fn draws_match_the_closed_form_marginal() {
        let m = small();
        let (mean, sd) = grid_moments(&m);
        let d = m.sample(&settings(4, 11), &AtomicBool::new(false)).unwrap();
        for (p, s) in d.summary().iter().enumerate() {
            let se = s.sd / s.ess_bulk.unwrap().sqrt();
            assert!(
                (s.mean - mean[p]).abs() < 4.0 * se,
                "{}: mean {} vs {} (se {se})",
                s.parameter,
                s.mean,
                mean[p]
            );
            assert!(
                (s.sd / sd[p] - 1.0).abs() < 0.1,
                "{}: sd {} vs {}",
                s.parameter,
                s.sd,
                sd[p]
            );
        }
    }

    #[test]
    fn draws_do_not_depend_on_threads_and_stop() {
        let m = small();
        let s = Settings {
            draws: 200,
            ..settings(3, 2)
        };
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| m.sample(&s, &AtomicBool::new(false)).unwrap());
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
            .install(|| m.sample(&s, &AtomicBool::new(false)).unwrap());
        assert_eq!(one.chains, two.chains);
        assert_eq!(
            m.sample(&s, &AtomicBool::new(true)),
            Err(DaError::Interrupted)
        );
    }

    #[test]
    fn bad_inputs_name_their_key() {
        let ch = RrAttribute::new(2, 0.8).unwrap();
        let names = vec!["a".to_string()];
        let cases = [
            RrLogistic::new(vec![], vec![], ch, 1.0, names.clone()),
            RrLogistic::new(vec![vec![f64::NAN]], vec![0], ch, 1.0, names.clone()),
            RrLogistic::new(vec![vec![1.0, 2.0]], vec![0], ch, 1.0, names.clone()),
            RrLogistic::new(vec![vec![1.0]], vec![2], ch, 1.0, names.clone()),
            RrLogistic::new(vec![vec![1.0]], vec![0], ch, 0.0, names.clone()),
            RrLogistic::new(
                vec![vec![1.0]],
                vec![0],
                RrAttribute::new(3, 0.8).unwrap(),
                1.0,
                names.clone(),
            ),
        ];
        let keys: Vec<&str> = cases.iter().map(|c| c.as_ref().unwrap_err().key).collect();
        assert_eq!(
            keys,
            ["n", "covariates", "covariates", "label", "tau", "label"]
        );
    }
}
