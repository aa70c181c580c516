//! DP-SGLD (Li, Chen, Liu, Zhang 2019) as Heikkilä et al. ran it as a baseline:
//! minibatch of b drawn with replacement, per-example gradients of the tempered
//! log-likelihood clipped to L2 norm ≤ L, and the update
//! θ ← θ + η (mean clipped gradient + ∇ln p(θ)/N) + N(0, v I) with step h = η/N.
//! `Noise::Published` uses v = h, as the authors' code; then the chain targets
//! roughly π² (about half the posterior variance), which is why the paper finds
//! that DP-SGLD misses the variance. `Noise::Corrected` uses the Langevin v = 2h.
//! Privacy: Poisson-subsampled Gaussian with noise multiplier σ = b/(L√(ηN)),
//! accounted in `privacy::rdp::SgldAccount`.

use rand::Rng;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use super::model::RecordModel;

/// Injected noise variance per step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Noise {
    /// v = h (the authors' code)
    Published,
    /// v = 2h (Langevin dynamics)
    Corrected,
}

/// Settings (defaults: the authors' run).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sgld {
    pub batch: usize,
    pub clip: f64,
    pub eta: f64,
    /// tempering N₀: the model the chain runs on is tempered by τ = N₀/N
    /// ([`crate::dpmcmc::gmm::Gmm::new`])
    pub n0: f64,
    pub noise: Noise,
}

impl Sgld {
    pub fn paper(noise: Noise) -> Self {
        Self {
            batch: 100,
            clip: 0.01,
            eta: 70.0,
            n0: 100.0,
            noise,
        }
    }

    /// Noise multiplier σ = b/(L√(ηN)) of the privacy analysis.
    pub fn noise_multiplier(&self, n: usize) -> f64 {
        self.batch as f64 / (self.clip * (self.eta * n as f64).sqrt())
    }

    /// One update; returns how many per-example gradients were clipped. (The same as
    /// [`Sgld::run`] for one iteration.)
    pub fn step<const D: usize, M: RecordModel<D>, R: Rng + ?Sized>(
        &self,
        model: &M,
        theta: &mut [f64; D],
        rng: &mut R,
    ) -> usize {
        let mut clipped = 0;
        self.run(model, theta, 1, rng, |_, _, c| clipped = c);
        clipped
    }

    /// `iterations` updates of θ, calling `after(t, θ, clipped)` after update t
    /// (1-based). Pipelined: the minibatch indices of update t + 1 are drawn (with
    /// replacement) right after update t's values are read, and their cache lines
    /// prefetched, so the random reads of a large data set overlap update t's
    /// arithmetic. (Pass the data as a [`crate::numeric::pages::HugePageSlice`] to
    /// spare the reads a TLB miss each.) The random stream is used in the order
    /// indices(1), indices(2), noise(1), indices(3), noise(2), …
    pub fn run<const D: usize, M: RecordModel<D>, R: Rng + ?Sized>(
        &self,
        model: &M,
        theta: &mut [f64; D],
        iterations: u64,
        rng: &mut R,
        mut after: impl FnMut(u64, &[f64; D], usize),
    ) {
        let n = model.n() as f64;
        let h = self.eta / n;
        let sd = match self.noise {
            Noise::Published => h.sqrt(),
            Noise::Corrected => (2.0 * h).sqrt(),
        };
        let b = self.batch;
        let (mut idx, mut next) = (vec![0usize; b], vec![0usize; b]);
        let draw = |idx: &mut [usize], rng: &mut R| {
            for i in idx.iter_mut() {
                *i = crate::rng::index_below(rng, model.n());
                model.prefetch(*i);
            }
        };
        draw(&mut idx, rng);
        for t in 1..=iterations {
            let (sum, clipped) = model.clipped_batch_grad_sum(theta, self.clip, &idx);
            if t < iterations {
                draw(&mut next, rng);
            }
            // the sum, then one division (not a division per example on the critical path)
            let prior = model.grad_log_prior(theta);
            for k in 0..D {
                let z: f64 = StandardNormal.sample(rng);
                theta[k] += self.eta * (sum[k] / b as f64 + prior[k] / n) + sd * z;
            }
            after(t, theta, clipped as usize);
            std::mem::swap(&mut idx, &mut next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn corrected_noise_targets_the_posterior_and_published_noise_halves_its_variance() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let data: Vec<f64> = (0..10_000)
            .map(|_| 0.7 + Distribution::<f64>::sample(&StandardNormal, &mut rng))
            .collect();
        let n0 = 20.0;
        let post_var = 1.0 / (1.0 + n0);
        let model = crate::dpmcmc::model::NormalMean {
            tau: n0 / data.len() as f64,
            data,
            prior_var: 1.0,
        };
        let mut var_of = |noise: Noise| {
            // step small enough that the discretisation bias is ≪ the effect tested
            let s = Sgld {
                batch: 100,
                clip: f64::INFINITY,
                eta: 5.0,
                n0,
                noise,
            };
            let mut theta = [0.7];
            let (mut sum, mut sum2, mut k) = (0.0, 0.0, 0.0);
            for i in 0..400_000 {
                s.step(&model, &mut theta, &mut rng);
                if i > 20_000 {
                    sum += theta[0];
                    sum2 += theta[0] * theta[0];
                    k += 1.0;
                }
            }
            sum2 / k - (sum / k).powi(2)
        };
        let corrected = var_of(Noise::Corrected);
        let published = var_of(Noise::Published);
        assert!(
            (corrected / post_var - 1.0).abs() < 0.1,
            "corrected {corrected} vs {post_var}"
        );
        assert!(
            (published / post_var - 0.5).abs() < 0.07,
            "published {published} vs {post_var}"
        );
    }

    #[test]
    fn gmm_gradient_matches_finite_differences() {
        use crate::dpmcmc::gmm::{grad_log_lik, log_lik};
        for (x, t) in [(0.3, [0.1, 0.8]), (-2.0, [0.5, -0.4]), (4.0, [1.0, 1.0])] {
            let g = grad_log_lik(x, t);
            let e = 1e-6;
            let d1 = (log_lik(x, [t[0] + e, t[1]]) - log_lik(x, [t[0] - e, t[1]])) / (2.0 * e);
            let d2 = (log_lik(x, [t[0], t[1] + e]) - log_lik(x, [t[0], t[1] - e])) / (2.0 * e);
            assert!(
                (g[0] - d1).abs() < 1e-7 && (g[1] - d2).abs() < 1e-7,
                "{g:?} vs {d1}, {d2}"
            );
        }
    }

    /// `run` (vectorised terms, chunked and pipelined index draws) against the plain
    /// definition: the documented stream order and the trait's element-wise terms.
    #[test]
    fn pipelined_run_is_the_plain_update_bit_for_bit() {
        use crate::dpmcmc::gmm::{grad_log_lik, Gmm, PRIOR_VAR};
        // the plain DP-SGLD terms: v = τ∇ln p(x | θ), scaled to norm `clip` when longer
        let plain = |xs: &[f64], t: [f64; 2], tau: f64, clip: f64, sum: &mut [f64; 2]| {
            let mut clipped = 0;
            for &x in xs {
                let mut g = grad_log_lik(x, t);
                let mut norm2 = 0.0;
                for v in g.iter_mut() {
                    *v *= tau;
                    norm2 += *v * *v;
                }
                if norm2 > clip * clip {
                    let scale = clip / norm2.sqrt();
                    g.iter_mut().for_each(|v| *v *= scale);
                    clipped += 1;
                }
                for (m, v) in sum.iter_mut().zip(g) {
                    *m += v;
                }
            }
            clipped
        };
        let data = crate::dpmcmc::gmm::generate(5_000, &mut ChaCha8Rng::seed_from_u64(8));
        for (clip, batch) in [(0.01, 100), (1e-4, 37), (f64::INFINITY, 3)] {
            let s = Sgld {
                batch,
                clip,
                ..Sgld::paper(Noise::Corrected)
            };
            let steps = 200;
            let mut rng = ChaCha8Rng::seed_from_u64(9);
            let mut theta = [0.4, 0.2];
            let mut got = Vec::new();
            s.run(
                &Gmm::new(&data, s.n0),
                &mut theta,
                steps,
                &mut rng,
                |_, th, c| got.push((*th, c)),
            );
            let mut rng = ChaCha8Rng::seed_from_u64(9);
            let mut theta = [0.4, 0.2];
            let n = data.len() as f64;
            let draw = |rng: &mut ChaCha8Rng| -> Vec<usize> {
                (0..batch)
                    .map(|_| rng.random_range(0..data.len()))
                    .collect()
            };
            let mut idx = draw(&mut rng);
            for t in 1..=steps {
                let next = if t < steps { draw(&mut rng) } else { vec![] };
                let xs: Vec<f64> = idx.iter().map(|&i| data[i]).collect();
                let mut sum = [0.0; 2];
                let c = plain(&xs, theta, s.n0 / n, clip, &mut sum);
                let prior = [-theta[0] / PRIOR_VAR[0], -theta[1] / PRIOR_VAR[1]];
                for k in 0..2 {
                    let z: f64 = StandardNormal.sample(&mut rng);
                    theta[k] += s.eta * (sum[k] / batch as f64 + prior[k] / n)
                        + (2.0 * s.eta / n).sqrt() * z;
                }
                assert_eq!(got[t as usize - 1], (theta, c), "step {t}");
                idx = next;
            }
        }
    }

    #[test]
    fn paper_noise_multiplier() {
        // σ = b/(L√(ηN)) = 100/(0.01·√(7·10⁷)) = 1.1952
        assert!((Sgld::paper(Noise::Published).noise_multiplier(1_000_000) - 1.1952).abs() < 1e-4);
    }
}
