//! Noise-aware posteriors of the Beta-Bernoulli model from a Laplace release
//! of its counts: posteriors that condition on the release
//! mechanism instead of treating the noisy counts as real ones. Each is
//! post-processing of a release privpost already makes, so it costs no privacy.
//!
//! Two releases, with n public and prior Beta(α, β) on θ:
//! - **Foulds et al. 2016, §3.2, eq. (16)** (the release of `laplace_posterior`):
//!   z₊ = max(0, n₊ + W₊), z₋ = max(0, n₋ + W₋), W iid Laplace(2/ε) (L1
//!   sensitivity 2 under replace-one neighbours), or the discrete Laplace in the
//!   exact noise modes.
//! - **Bernstein & Sheldon 2018, §3** (one count, their convention): y = s + W,
//!   W ~ Laplace(1/ε), unclamped; s = n₊.
//!
//! The exact posterior ([`BetaMixture::exact`]): because Beta × Binomial is
//! conjugate, p(θ | release) = Σₛ wₛ Beta(θ; α + s, β + n − s) with
//! wₛ ∝ C(n, s) B(α + s, β + n − s)/B(α, β) · p(release | s) — the
//! Beta-Binomial prior predictive of s times the noise law of the release.
//! A sum over s = 0..n (n ≤ [`MAX_EXACT_N`]), not an approximation.
//!
//! The Bernstein–Sheldon Gibbs sampler ([`bs_gibbs`], their §4 "Gibbs-SS" for
//! the Beta-Binomial): latent s with its normal (CLT) approximation
//! N(nθ, nθ(1 − θ)), the Laplace noise as a scale mixture of normals
//! (W | ω ~ N(0, ω), ω ~ Exponential(mean 2b²)), and three conditionals per
//! sweep. It targets an approximation of p(θ | y): the CLT density in the s
//! update and the exact binomial kernel in the θ update are not the
//! conditionals of one joint distribution, so it is checked against
//! [`BetaMixture::exact`] at stated n, ε.

use rand::{Rng, RngExt};
use rand_distr::{Distribution, Exp, InverseGaussian, StandardNormal};
use statrs::function::beta::{beta_reg, ln_beta};
use statrs::function::factorial::ln_binomial;

use super::beta::BetaDist;
use super::FamilyError;
use crate::numeric::log_sum_exp;
use crate::privacy::noise::CountNoise;

/// Largest n of the exact posterior (a sum over n + 1 latent counts).
pub const MAX_EXACT_N: u64 = 100_000;

/// Mixture components lighter than this (relative to the total) are dropped;
/// the CDF of the rest is off by at most (n + 1) times it (≤ 1e-10 at n = 10⁵).
const PRUNE: f64 = 1e-15;

/// The law of the noise added to one count: Laplace of scale b (noise =
/// "float"), or the discrete Laplace on ℤ of scale b (exact and secure), as
/// [`CountNoise`] draws it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CountLaw {
    Laplace { scale: f64 },
    DiscreteLaplace { scale: f64 },
}

impl CountLaw {
    /// The law `noise` draws from.
    pub fn of(noise: &CountNoise) -> Self {
        match noise {
            CountNoise::Float(_) => Self::Laplace {
                scale: noise.scale(),
            },
            CountNoise::Discrete { .. } => Self::DiscreteLaplace {
                scale: noise.scale(),
            },
        }
    }

    /// ln p(y | c) of the unclamped release y = c + W (a density for the
    /// Laplace, a probability for the discrete Laplace: −∞ off the integers).
    pub fn ln_unclamped(&self, y: f64, c: f64) -> f64 {
        match *self {
            Self::Laplace { scale } => -(2.0 * scale).ln() - (y - c).abs() / scale,
            Self::DiscreteLaplace { scale } => {
                let k = y - c;
                if k.fract() != 0.0 {
                    return f64::NEG_INFINITY;
                }
                // P(k) = (1 − q)/(1 + q) · q^|k|, q = e^{−1/b}
                let q = (-1.0 / scale).exp();
                (-(-1.0 / scale).exp_m1()).ln() - q.ln_1p() - k.abs() / scale
            }
        }
    }

    /// ln p(z | c) of the clamped release z = max(0, c + W) for a count c ≥ 0:
    /// the atom at 0, P(W ≤ −c), and the unclamped law above 0 (Foulds eq. 16's
    /// projection onto non-negative counts).
    pub fn ln_clamped(&self, z: f64, c: f64) -> f64 {
        if z < 0.0 {
            return f64::NEG_INFINITY;
        }
        if z > 0.0 {
            return self.ln_unclamped(z, c);
        }
        match *self {
            // ½ e^{−c/b}
            Self::Laplace { scale } => -std::f64::consts::LN_2 - c / scale,
            // Σ_{k ≤ −c} P(k) = e^{−c/b}/(1 + e^{−1/b})
            Self::DiscreteLaplace { scale } => -c / scale - (-1.0 / scale).exp().ln_1p(),
        }
    }
}

/// A release of the counts of n Bernoulli records.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Release {
    /// Foulds et al. 2016 eq. (16): both counts, each noised and clamped at 0.
    FouldsCounts { positives: f64, negatives: f64 },
    /// Bernstein & Sheldon 2018: the success count, noised, not clamped.
    OneCount { y: f64 },
}

impl Release {
    /// ln p(release | s successes of n) under `law`.
    pub fn ln_likelihood(&self, law: &CountLaw, s: f64, n: f64) -> f64 {
        match *self {
            Self::FouldsCounts {
                positives,
                negatives,
            } => law.ln_clamped(positives, s) + law.ln_clamped(negatives, n - s),
            Self::OneCount { y } => law.ln_unclamped(y, s),
        }
    }
}

/// A finite mixture of Beta distributions: the exact noise-aware posterior.
#[derive(Debug, Clone, PartialEq)]
pub struct BetaMixture {
    /// (weight, α, β), weights summing to 1.
    components: Vec<(f64, f64, f64)>,
}

impl BetaMixture {
    /// The exact posterior of θ given `release` of n records under `law`, prior
    /// `prior`: Σₛ wₛ Beta(α + s, β + n − s), wₛ ∝ C(n, s) B(α + s, β + n − s)
    /// p(release | s) (module docs). Refuses n > [`MAX_EXACT_N`] and a release
    /// impossible under every s (e.g. a non-integer discrete release).
    pub fn exact(
        prior: &BetaDist,
        n: u64,
        release: Release,
        law: &CountLaw,
    ) -> Result<Self, FamilyError> {
        super::check(
            "n",
            n as f64,
            n <= MAX_EXACT_N,
            "n ≤ 100000 (the exact posterior sums over n + 1 latent counts)",
        )?;
        let (a, b) = (prior.alpha(), prior.beta());
        let nf = n as f64;
        let ln_prior_b = ln_beta(a, b);
        let ln_w: Vec<f64> = (0..=n)
            .map(|s| {
                let sf = s as f64;
                ln_binomial(n, s) + ln_beta(a + sf, b + nf - sf) - ln_prior_b
                    + release.ln_likelihood(law, sf, nf)
            })
            .collect();
        let total = log_sum_exp(&ln_w);
        super::check(
            "release",
            total,
            total.is_finite(),
            "a release with positive probability under some count s = 0..n",
        )?;
        let mut components: Vec<(f64, f64, f64)> = ln_w
            .iter()
            .enumerate()
            .map(|(s, lw)| ((lw - total).exp(), a + s as f64, b + nf - s as f64))
            .filter(|c| c.0 > PRUNE)
            .collect();
        let kept: f64 = components.iter().map(|c| c.0).sum();
        for c in &mut components {
            c.0 /= kept;
        }
        Ok(Self { components })
    }

    /// A mixture from (weight, α, β) triples with α, β > 0 and weights ≥ 0 not all
    /// 0: weights normalised, components below the pruning level dropped.
    pub fn from_components(mut components: Vec<(f64, f64, f64)>) -> Self {
        let total: f64 = components.iter().map(|c| c.0).sum();
        components.retain(|c| c.0 > PRUNE * total);
        let kept: f64 = components.iter().map(|c| c.0).sum();
        for c in &mut components {
            c.0 /= kept;
        }
        Self { components }
    }

    /// The components (weight, α, β).
    pub fn components(&self) -> &[(f64, f64, f64)] {
        &self.components
    }

    /// P(θ ≤ x).
    pub fn cdf(&self, x: f64) -> f64 {
        if x <= 0.0 {
            return 0.0;
        }
        if x >= 1.0 {
            return 1.0;
        }
        self.components
            .iter()
            .map(|&(w, a, b)| w * beta_reg(a, b, x))
            .sum::<f64>()
            .clamp(0.0, 1.0)
    }

    pub fn mean(&self) -> f64 {
        self.components
            .iter()
            .map(|&(w, a, b)| w * a / (a + b))
            .sum()
    }

    /// One draw: a component by its weight, then its Beta.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let mut u: f64 = rng.random();
        let last = self.components.len() - 1;
        for (k, &(w, a, b)) in self.components.iter().enumerate() {
            if u < w || k == last {
                return BetaDist::new_unchecked(a, b).sample(rng);
            }
            u -= w;
        }
        unreachable!("a mixture has at least one component")
    }
}

/// Sweeps of [`bs_gibbs`]: discarded, then kept (the authors' code: 500, 1000).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GibbsSettings {
    pub burn_in: usize,
    pub draws: usize,
}

/// Smallest Beta parameter of the θ update (the authors floor at 0.001).
const BETA_FLOOR: f64 = 1e-3;

/// Bernstein & Sheldon's noise-aware Gibbs sampler for the Beta-Binomial
/// (module docs): from y = s + Laplace(`scale`), `settings.draws` draws of θ
/// after `settings.burn_in` sweeps. One sweep:
/// (a) s | θ, ω, y ~ N(m, V) truncated to [0, n], V = (1/ω + 1/(nθ(1−θ)))⁻¹,
///     m = V(y/ω + nθ/(nθ(1−θ))) — the CLT normal times N(y; s, ω);
/// (b) 1/ω | s, y ~ InverseGaussian(mean 1/(b|y − s|), shape 1/b²);
/// (c) θ | s ~ Beta(α + s, β + n − s), parameters floored at 0.001.
/// θ starts from the prior and ω from Exponential(mean 2b²), as in their code.
pub fn bs_gibbs<R: Rng + ?Sized>(
    prior: &BetaDist,
    n: u64,
    y: f64,
    scale: f64,
    settings: GibbsSettings,
    rng: &mut R,
) -> Vec<f64> {
    let nf = n as f64;
    let (a, b) = (prior.alpha(), prior.beta());
    let mut theta = prior.sample(rng);
    let mut omega = match Exp::new(1.0 / (2.0 * scale * scale)) {
        Ok(e) => e.sample(rng),
        Err(_) => 2.0 * scale * scale,
    };
    let mut out = Vec::with_capacity(settings.draws);
    for sweep in 0..settings.burn_in + settings.draws {
        // (a) the latent count; θ kept off {0, 1} so the CLT variance is positive
        let t = theta.clamp(1e-12, 1.0 - 1e-12);
        let clt_var = nf * t * (1.0 - t);
        let v = 1.0 / (1.0 / omega + 1.0 / clt_var);
        let m = v * (y / omega + nf * t / clt_var);
        let s = truncated_normal(m, v.sqrt(), 0.0, nf, rng);
        // (b) the noise variance
        let gap = (y - s).abs().max(1e-300);
        let inv_omega = match InverseGaussian::new(1.0 / (scale * gap), 1.0 / (scale * scale)) {
            Ok(ig) => ig.sample(rng),
            Err(_) => 1.0 / (2.0 * scale * scale),
        };
        omega = (1.0 / inv_omega).clamp(1e-300, 1e300);
        // (c) θ from its conjugate update
        theta = BetaDist::new_unchecked((a + s).max(BETA_FLOOR), (b + nf - s).max(BETA_FLOOR))
            .sample(rng);
        if sweep >= settings.burn_in {
            out.push(theta);
        }
    }
    out
}

/// One draw of N(mean, sd²) truncated to [lo, hi] (lo < hi, sd > 0). Inputs
/// that are not numbers the rejection can use (a non-finite mean or sd, sd ≤ 0,
/// a NaN bound) return the mean clamped to [lo, hi] (or lo) instead of looping.
pub fn truncated_normal<R: Rng + ?Sized>(mean: f64, sd: f64, lo: f64, hi: f64, rng: &mut R) -> f64 {
    let (a, b) = ((lo - mean) / sd, (hi - mean) / sd);
    if !(mean.is_finite() && sd.is_finite() && sd > 0.0) || a.is_nan() || b.is_nan() || a >= b {
        return if mean.is_nan() || lo.is_nan() || hi.is_nan() {
            if lo.is_finite() {
                lo
            } else {
                hi
            }
        } else {
            mean.clamp(lo, hi)
        };
    }
    let z = truncated_standard_normal(a, b, rng);
    (mean + sd * z).clamp(lo, hi)
}

/// N(0, 1) truncated to [a, b] by rejection: Robert's (1995) translated
/// exponential proposal in a tail, a uniform proposal on a short interval, the
/// normal itself on a long interval around 0. Every branch accepts with
/// probability above about 0.3.
fn truncated_standard_normal<R: Rng + ?Sized>(a: f64, b: f64, rng: &mut R) -> f64 {
    if b <= 0.0 {
        return -truncated_standard_normal(-b, -a, rng);
    }
    let uniform = |rng: &mut R| a + (b - a) * rng.random::<f64>();
    if a >= 0.0 {
        // the density is largest at a
        if (b - a) * (a + 1.0) <= 1.0 {
            loop {
                let z = uniform(rng);
                if rng.random::<f64>().ln() <= 0.5 * (a * a - z * z) {
                    return z;
                }
            }
        }
        let lambda = 0.5 * (a + (a * a + 4.0).sqrt());
        loop {
            let e: f64 = -(1.0 - rng.random::<f64>()).ln() / lambda;
            let z = a + e;
            if z > b {
                continue;
            }
            if rng.random::<f64>().ln() <= -0.5 * (z - lambda) * (z - lambda) {
                return z;
            }
        }
    }
    // a < 0 < b
    if b - a >= 1.0 {
        loop {
            let z: f64 = StandardNormal.sample(rng);
            if (a..=b).contains(&z) {
                return z;
            }
        }
    }
    loop {
        let z = uniform(rng);
        if rng.random::<f64>().ln() <= -0.5 * z * z {
            return z;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs the rejection cannot use return at once (ε = 1e-300 once hung a sampler).
    #[test]
    fn truncated_normal_never_loops_on_unusable_inputs() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        assert_eq!(truncated_normal(f64::NAN, 1.0, 0.0, 1.0, &mut rng), 0.0);
        assert_eq!(
            truncated_normal(5.0, f64::INFINITY, 0.0, 1.0, &mut rng),
            1.0
        );
        assert_eq!(truncated_normal(0.5, 0.0, 0.0, 1.0, &mut rng), 0.5);
        assert_eq!(
            truncated_normal(1e300, 1e-300, f64::NEG_INFINITY, 0.0, &mut rng),
            0.0
        );
        assert_eq!(
            truncated_normal(-3.0, f64::NAN, f64::NEG_INFINITY, 0.0, &mut rng),
            -3.0
        );
    }
    use crate::privacy::event::NoiseMode;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn prior() -> BetaDist {
        BetaDist::new(2.0, 3.0).unwrap()
    }

    /// The posterior by brute force: the unnormalised density
    /// p(θ) Σₛ Bin(s; n, θ) p(release | s) integrated on a fine grid.
    fn quadrature_cdf(n: u64, release: Release, law: &CountLaw, x: f64) -> f64 {
        let p = prior();
        let density = |t: f64| -> f64 {
            let terms: Vec<f64> = (0..=n)
                .map(|s| {
                    let sf = s as f64;
                    ln_binomial(n, s)
                        + sf * t.ln()
                        + (n - s) as f64 * (-t).ln_1p()
                        + release.ln_likelihood(law, sf, n as f64)
                })
                .collect();
            (p.ln_pdf(t) + log_sum_exp(&terms)).exp()
        };
        // Simpson on 20 000 intervals of (0, 1)
        let m = 20_000;
        let h = 1.0 / m as f64;
        let mut total = 0.0;
        let mut below = 0.0;
        for i in 0..=m {
            let t = (i as f64 * h).clamp(1e-12, 1.0 - 1e-12);
            let w = if i == 0 || i == m {
                1.0
            } else if i % 2 == 1 {
                4.0
            } else {
                2.0
            };
            let f = density(t) * w;
            total += f;
            if t <= x {
                below += f;
            }
        }
        below / total
    }

    fn laws() -> Vec<CountLaw> {
        [NoiseMode::Float, NoiseMode::Exact]
            .into_iter()
            .map(|m| CountLaw::of(&CountNoise::for_privacy(m, 2.0, 0.5).unwrap()))
            .collect()
    }

    #[test]
    fn exact_posterior_equals_quadrature() {
        for law in laws() {
            let releases = [
                Release::FouldsCounts {
                    positives: 3.0,
                    negatives: 7.0,
                },
                // an observed zero: the atom's factor ½e^{−s/b}
                Release::FouldsCounts {
                    positives: 0.0,
                    negatives: 14.0,
                },
                Release::OneCount { y: -2.0 },
                Release::OneCount { y: 6.0 },
            ];
            for release in releases {
                let mix = BetaMixture::exact(&prior(), 12, release, &law).unwrap();
                // the quadrature grid's points sit on multiples of 1/20000
                for x in [0.1, 0.25, 0.5, 0.75, 0.9] {
                    let (c, q) = (mix.cdf(x), quadrature_cdf(12, release, &law, x));
                    assert!(
                        (c - q).abs() < 1e-4,
                        "{law:?} {release:?} x = {x}: {c} vs {q}"
                    );
                }
            }
        }
    }

    #[test]
    fn clamped_law_sums_to_one() {
        for law in laws() {
            for c in [0.0, 1.0, 5.0] {
                let total = match law {
                    CountLaw::DiscreteLaplace { .. } => (0..400)
                        .map(|z| law.ln_clamped(z as f64, c).exp())
                        .sum::<f64>(),
                    CountLaw::Laplace { .. } => {
                        // atom + ∫₀^∞ density (trapezoid on a fine grid)
                        let h = 1e-3;
                        let tail: f64 = (1..400_000)
                            .map(|i| law.ln_clamped(i as f64 * h, c).exp() * h)
                            .sum();
                        law.ln_clamped(0.0, c).exp() + tail
                    }
                };
                assert!((total - 1.0).abs() < 1e-4, "{law:?} c = {c}: {total}");
            }
        }
    }

    /// Without noise information (a huge scale) the posterior is the prior; with
    /// a tiny scale it is the non-private posterior.
    #[test]
    fn exact_posterior_limits() {
        let wide = CountLaw::Laplace { scale: 1e9 };
        let mix = BetaMixture::exact(&prior(), 50, Release::OneCount { y: 10.0 }, &wide).unwrap();
        assert!((mix.mean() - 0.4).abs() < 1e-6, "{}", mix.mean());
        let sharp = CountLaw::Laplace { scale: 1e-3 };
        let mix = BetaMixture::exact(
            &prior(),
            50,
            Release::FouldsCounts {
                positives: 10.0,
                negatives: 40.0,
            },
            &sharp,
        )
        .unwrap();
        assert_eq!(mix.components().len(), 1);
        assert!((mix.mean() - 12.0 / 55.0).abs() < 1e-12);
    }

    #[test]
    fn exact_posterior_refuses_what_it_cannot_sum() {
        let law = CountLaw::Laplace { scale: 2.0 };
        let e = BetaMixture::exact(
            &prior(),
            MAX_EXACT_N + 1,
            Release::OneCount { y: 1.0 },
            &law,
        )
        .unwrap_err();
        assert!(e.to_string().contains("n ≤ 100000"), "{e}");
        let discrete = CountLaw::DiscreteLaplace { scale: 2.0 };
        let e =
            BetaMixture::exact(&prior(), 5, Release::OneCount { y: 1.5 }, &discrete).unwrap_err();
        assert!(e.to_string().contains("release"), "{e}");
    }

    #[test]
    fn mixture_draws_follow_its_cdf() {
        let law = CountLaw::Laplace { scale: 4.0 };
        let mix = BetaMixture::exact(
            &prior(),
            30,
            Release::FouldsCounts {
                positives: 0.0,
                negatives: 26.5,
            },
            &law,
        )
        .unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let k = 40_000;
        let mut draws: Vec<f64> = (0..k).map(|_| mix.sample(&mut rng)).collect();
        draws.sort_by(f64::total_cmp);
        let ks = draws
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let f = mix.cdf(x);
                (f - i as f64 / k as f64)
                    .abs()
                    .max((f - (i + 1) as f64 / k as f64).abs())
            })
            .fold(0.0, f64::max);
        // the KS statistic's 99.9 % point is about 1.95/√k = 0.0098
        assert!(ks < 0.0098, "KS = {ks}");
    }

    /// Truncated-normal draws against the closed-form mean and variance,
    /// in the centre, in a far tail, on a short interval and across 0.
    #[test]
    fn truncated_normal_moments() {
        use statrs::distribution::{Continuous, ContinuousCDF, Normal};
        let phi = Normal::new(0.0, 1.0).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for (a, b) in [
            (-1.0, 2.0),
            (3.0, 50.0),
            (8.0, 8.05),
            (-0.2, 0.3),
            (-30.0, -6.0),
            (0.0, 0.5),
            (0.5, 4.0),
        ] {
            let (pa, pb) = (phi.pdf(a), phi.pdf(b));
            // the interval's mass without cancellation in either tail
            let z = if a > 0.0 {
                phi.sf(a) - phi.sf(b)
            } else {
                phi.cdf(b) - phi.cdf(a)
            };
            let mean = (pa - pb) / z;
            let var = 1.0 + (a * pa - b * pb) / z - mean * mean;
            let k = 200_000;
            let xs: Vec<f64> = (0..k)
                .map(|_| truncated_standard_normal(a, b, &mut rng))
                .collect();
            assert!(xs.iter().all(|&x| (a..=b).contains(&x)));
            let m = xs.iter().sum::<f64>() / k as f64;
            let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / k as f64;
            let se = (var / k as f64).sqrt();
            assert!(
                (m - mean).abs() < 5.0 * se,
                "[{a}, {b}]: mean {m} vs {mean}"
            );
            assert!(
                (v - var).abs() < 0.02 * var + 1e-9,
                "[{a}, {b}]: var {v} vs {var}"
            );
        }
    }

    /// The Gibbs sampler against the exact posterior of the same single-count
    /// release: Kolmogorov distance of its pooled draws at n = 100, ε = 1
    /// (b = 1) and n = 1000, ε = 0.1 (b = 10), where the CLT step is accurate.
    #[test]
    fn bs_gibbs_is_close_to_the_exact_posterior() {
        let p = BetaDist::new(10.0, 10.0).unwrap();
        let settings = GibbsSettings {
            burn_in: 500,
            draws: 1000,
        };
        for (n, y, scale) in [(100u64, 37.0, 1.0), (1000, 480.0, 10.0), (100, 20.0, 10.0)] {
            let law = CountLaw::Laplace { scale };
            let exact = BetaMixture::exact(&p, n, Release::OneCount { y }, &law).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(n);
            let mut draws: Vec<f64> = (0..20)
                .flat_map(|_| bs_gibbs(&p, n, y, scale, settings, &mut rng))
                .collect();
            draws.sort_by(f64::total_cmp);
            let k = draws.len() as f64;
            let d = draws
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    let f = exact.cdf(x);
                    (f - i as f64 / k).abs().max((f - (i + 1) as f64 / k).abs())
                })
                .fold(0.0, f64::max);
            errln!("n = {n}, y = {y}, b = {scale}: Kolmogorov distance {d:.4}");
            // 20 chains of 1000 autocorrelated draws: a tolerance of a few times
            // the iid KS scale 1/√20000 = 0.007
            assert!(
                d < 0.04,
                "n = {n}, y = {y}, b = {scale}: Kolmogorov distance {d}"
            );
        }
    }
}
