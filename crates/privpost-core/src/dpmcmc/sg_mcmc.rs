//! DP-SGLD and DP-SGNHT on any [`RecordModel`], as Räisä, Koskela, Honkela (2021) ran
//! them beside DP-HMC (their experiment code's `sgld.py`): a batch of b records drawn without
//! replacement, per-record gradients clipped to norm C, h = η/n, and
//!
//! - **DP-SGLD** (Welling & Teh 2011 with clipping): θ ← θ + h(∇ln p(θ) + (n/b)Σ_B
//!   clip_C(∇ln p(x|θ))) + N(0, v·h·I). Their code uses v = 1, which with drift h∇ln π
//!   targets roughly π² (half the posterior covariance); Langevin dynamics needs v = 2
//!   ([`SgKind::Sgld`] takes v).
//! - **DP-SGNHT** (Ding et al. 2014, the Nosé–Hoover thermostat): p ← p − ξhp + h·G +
//!   N(0, 2A·h·I); θ ← θ + h·p_old; ξ ← ξ + h(‖p_old‖²/d − 1), ξ₀ = A, p₀ ~ N(0, I),
//!   with G the same noisy-free clipped gradient estimate; the thermostat's noise is
//!   also the privacy noise.
//!
//! No accept test: the chains are biased by the step, the clipping and (for v = 1)
//! the noise. Privacy per step: `privacy::sg_mcmc::MinibatchStep`.

use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

use super::model::RecordModel;
use crate::privacy::sg_mcmc::MinibatchStep;

/// Which stochastic-gradient dynamics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SgKind {
    /// Langevin with injected noise N(0, v·h·I)
    Sgld { variance_factor: f64 },
    /// Nosé–Hoover thermostat with diffusion A
    Sgnht { diffusion: f64 },
}

/// Settings of one chain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SgMcmc {
    pub batch: usize,
    pub clip: f64,
    /// step scale η: h = η/n
    pub eta: f64,
    pub kind: SgKind,
}

/// A batch of `b` distinct indices below n, uniform among b-subsets: Floyd's
/// algorithm (Bentley & Floyd 1987) — for j = n − b, …, n − 1 draw t uniform in 0..=j
/// and take t, or j if t was taken — with the taken set as a bitmap of n bits (it
/// stays in L1 cache, where a permutation array's random swaps would not).
struct WithoutReplacement {
    n: usize,
    taken: Vec<u64>,
    batch: Vec<usize>,
}

impl WithoutReplacement {
    fn new(n: usize) -> Self {
        Self {
            n,
            taken: vec![0; n.div_ceil(64)],
            batch: Vec::new(),
        }
    }

    fn draw<R: Rng + ?Sized>(&mut self, b: usize, rng: &mut R) -> &[usize] {
        for &i in &self.batch {
            self.taken[i / 64] = 0;
        }
        self.batch.clear();
        for j in self.n - b..self.n {
            let t = crate::rng::index_below(rng, j + 1);
            let pick = if self.taken[t / 64] >> (t % 64) & 1 == 1 {
                j
            } else {
                t
            };
            self.taken[pick / 64] |= 1 << (pick % 64);
            self.batch.push(pick);
        }
        &self.batch
    }
}

impl SgMcmc {
    /// The privacy of one step on n records.
    pub fn privacy(&self, n: usize) -> MinibatchStep {
        MinibatchStep {
            batch: self.batch as u64,
            n: n as u64,
            clip: self.clip,
            eta: self.eta,
            variance_factor: match self.kind {
                SgKind::Sgld { variance_factor } => variance_factor,
                SgKind::Sgnht { diffusion } => 2.0 * diffusion,
            },
        }
    }

    /// `iterations` steps from θ; `after(t, θ, clipped)` after step t (1-based).
    /// Returns the number of per-record gradients clipped. The stream is used in the
    /// order: (SGNHT) p₀; per step the batch, then the noise of each coordinate.
    pub fn run<const D: usize, M: RecordModel<D>, R: Rng + ?Sized>(
        &self,
        model: &M,
        theta: &mut [f64; D],
        iterations: u64,
        rng: &mut R,
        mut after: impl FnMut(u64, &[f64; D]),
    ) -> u64 {
        let n = model.n();
        let h = self.eta / n as f64;
        let scale = n as f64 / self.batch as f64;
        let mut batches = WithoutReplacement::new(n);
        let mut clipped = 0;
        let mut gradient = |theta: &[f64; D], rng: &mut R| -> [f64; D] {
            let batch = batches.draw(self.batch, rng);
            let (sum, c) = model.clipped_batch_grad_sum(theta, self.clip, batch);
            clipped += c;
            let prior = model.grad_log_prior(theta);
            std::array::from_fn(|k| prior[k] + scale * sum[k])
        };
        match self.kind {
            SgKind::Sgld { variance_factor } => {
                let sd = (variance_factor * h).sqrt();
                for t in 1..=iterations {
                    let g = gradient(theta, rng);
                    for k in 0..D {
                        let z: f64 = StandardNormal.sample(rng);
                        theta[k] += h * g[k] + sd * z;
                    }
                    after(t, theta);
                }
            }
            SgKind::Sgnht { diffusion } => {
                let sd = (2.0 * diffusion * h).sqrt();
                let mut p: [f64; D] = std::array::from_fn(|_| StandardNormal.sample(rng));
                let mut xi = diffusion;
                for t in 1..=iterations {
                    let g = gradient(theta, rng);
                    let old = p;
                    for k in 0..D {
                        let z: f64 = StandardNormal.sample(rng);
                        p[k] += -xi * h * old[k] + h * g[k] + sd * z;
                        theta[k] += h * old[k];
                    }
                    xi += h * (old.iter().map(|x| x * x).sum::<f64>() / D as f64 - 1.0);
                    after(t, theta);
                }
            }
        }
        clipped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// x ~ N(θ, I₂), flat prior: posterior N(x̄, I/n).
    use crate::dpmcmc::model::GaussMean2 as Mean2;

    fn data(n: usize) -> Mean2 {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        Mean2 {
            xs: (0..n)
                .map(|_| {
                    let z: [f64; 2] = std::array::from_fn(|_| StandardNormal.sample(&mut rng));
                    [0.3 + z[0], -0.2 + z[1]]
                })
                .collect(),
            prior_precision: 0.0,
        }
    }

    /// Variance of coordinate 0 over a long chain, relative to the posterior's 1/n.
    fn variance_ratio(kind: SgKind, eta: f64) -> f64 {
        let m = data(1000);
        let s = SgMcmc {
            batch: 1000, // full batch: no minibatch noise, the test isolates the dynamics
            clip: f64::INFINITY,
            eta,
            kind,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mean = m.xs.iter().map(|x| x[0]).sum::<f64>() / 1000.0;
        let mut theta = [mean, 0.0];
        let (mut s1, mut s2, mut k) = (0.0, 0.0, 0.0);
        s.run(&m, &mut theta, 200_000, &mut rng, |t, th| {
            if t > 20_000 {
                s1 += th[0];
                s2 += th[0] * th[0];
                k += 1.0;
            }
        });
        (s2 / k - (s1 / k).powi(2)) * 1000.0
    }

    #[test]
    fn sgld_with_noise_2h_targets_the_posterior_and_with_h_halves_it() {
        let corrected = variance_ratio(
            SgKind::Sgld {
                variance_factor: 2.0,
            },
            0.05,
        );
        let published = variance_ratio(
            SgKind::Sgld {
                variance_factor: 1.0,
            },
            0.05,
        );
        assert!((corrected - 1.0).abs() < 0.08, "corrected {corrected}");
        assert!((published - 0.5).abs() < 0.05, "published {published}");
    }

    #[test]
    fn sgnht_targets_the_posterior() {
        let r = variance_ratio(SgKind::Sgnht { diffusion: 50.0 }, 0.5);
        assert!((r - 1.0).abs() < 0.1, "sgnht {r}");
    }

    #[test]
    fn batches_are_distinct_and_uniform() {
        let mut w = WithoutReplacement::new(10);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut counts = [0u32; 10];
        for _ in 0..20_000 {
            let b = w.draw(3, &mut rng).to_vec();
            assert!(b[0] != b[1] && b[1] != b[2] && b[0] != b[2], "{b:?}");
            for i in b {
                counts[i] += 1;
            }
        }
        // each index in 3/10 of batches: 6000 ± 4 sd (sd ≈ 65)
        assert!(
            counts.iter().all(|&c| (c as f64 - 6000.0).abs() < 260.0),
            "{counts:?}"
        );
    }
}
