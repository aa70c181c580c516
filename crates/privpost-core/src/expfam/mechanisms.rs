//! Private posterior-sampling mechanisms for the Beta-Bernoulli system.
//!
//! geumlek2017 §3.1: Algorithm 1 (direct), 2 (diffused, data scaled by r) and
//! 3 (concentrated, prior scaled by 1/m), with their (λ, ε)-RDP maps computed
//! from the pset corners of Corollary 2; the Gaussian-mechanism baseline of §5.1.
//! foulds2016 §3: the Laplace mechanism on (n₊, n₋) and OPS (truncated, tempered).

use rand::Rng;
use rand_distr::{Distribution, Normal};
use serde::{Deserialize, Serialize};
use statrs::function::beta::ln_beta;
use statrs::function::erf::erfc;

use super::beta::{kl_divergence, renyi_divergence, BetaDist};
use super::truncated::TruncatedBeta;
use super::FamilyError;
use crate::numeric::quadrature::GaussLegendre;
use crate::privacy::event::Event;
use crate::privacy::event::NoiseMode;
use crate::privacy::exact::DiscreteGaussian;
use crate::privacy::gaussian::GaussianCalibration;
use crate::privacy::noise::{CountNoise, NoiseRng, SystemRandomError};
use crate::privacy::search::{largest_coefficient, Verified};

/// Which tunable posterior of geumlek2017 §3.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// Algorithm 2: η' = η₀ + r Σ (S(xᵢ), 1).
    Diffused,
    /// Algorithm 3: η' = η₀/m + Σ (S(xᵢ), 1).
    Concentrated,
}

crate::names::name_table!(Algorithm {
    Diffused => "diffused",
    Concentrated => "concentrated",
});

/// A Beta-Bernoulli problem: prior Beta(α₀, β₀) and data size n.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BetaBernoulli {
    pub prior: BetaDist,
    pub n: u64,
}

impl BetaBernoulli {
    pub fn new(prior: BetaDist, n: u64) -> Self {
        Self { prior, n }
    }

    /// Algorithm 1: the true posterior Beta(α₀ + s, β₀ + n − s).
    pub fn direct_posterior(&self, successes: f64) -> BetaDist {
        self.posterior(Algorithm::Diffused, 1.0, successes)
    }

    /// Posterior released by `algorithm` with coefficient `c` (r or m) for
    /// `successes` of n; c = 1 is Algorithm 1 (direct sampling).
    /// Requires c ∈ (0, 1] and successes ∈ [0, n] (guaranteed by the callers:
    /// coefficients come from validated configs or the search, counts are clamped).
    pub fn posterior(&self, algorithm: Algorithm, c: f64, successes: f64) -> BetaDist {
        let n = self.n as f64;
        let (a0, b0) = (self.prior.alpha(), self.prior.beta());
        let (a, b) = match algorithm {
            Algorithm::Diffused => (a0 + c * successes, b0 + c * (n - successes)),
            Algorithm::Concentrated => (a0 / c + successes, b0 / c + n - successes),
        };
        // Positive for c ∈ (0, 1] and successes ∈ [0, n].
        BetaDist::new_unchecked(a, b)
    }

    /// The privacy event of sampling the Algorithm 2/3 posterior with coefficient
    /// `c`: its RDP curve at `lambdas`, from [`Self::rdp_epsilon`].
    pub fn rdp_event(&self, algorithm: Algorithm, c: f64, lambdas: &[f64]) -> Event {
        let number = match algorithm {
            Algorithm::Diffused => 2,
            Algorithm::Concentrated => 3,
        };
        Event::RdpCurve {
            posterior: format!(
                "{} Beta-Bernoulli posterior (Geumlek et al. 2017, Algorithm {number})",
                algorithm.as_str()
            ),
            parameters: serde_json::json!({
                "prior": [self.prior.alpha(), self.prior.beta()],
                "n": self.n,
                "coefficient": c,
            }),
            points: lambdas
                .iter()
                .map(|&l| (l, self.rdp_epsilon(algorithm, c, l)))
                .collect(),
        }
    }

    /// The pairs whose divergences bound the RDP ε (geumlek2017 Corollary 2):
    /// for each corner of pset (0 or n successes) and its one neighbour inside
    /// pset (one success more or less), both directions of the divergence.
    /// Read literally, "η_Q ∈ η_P ± (r, 0)" steps outside pset at a corner; that
    /// pair is no posterior of any dataset and would contradict Corollary 1.
    pub fn corner_pairs(&self, algorithm: Algorithm, c: f64) -> Vec<(BetaDist, BetaDist)> {
        if self.n == 0 {
            return Vec::new();
        }
        let n = self.n as f64;
        let low = self.posterior(algorithm, c, 0.0);
        let low_next = self.posterior(algorithm, c, 1.0);
        let high = self.posterior(algorithm, c, n);
        let high_next = self.posterior(algorithm, c, n - 1.0);
        vec![
            (low, low_next),
            (low_next, low),
            (high, high_next),
            (high_next, high),
        ]
    }

    /// ε such that `algorithm` with coefficient c is (λ, ε)-RDP (supremum over
    /// neighbouring datasets, by the corner pairs). `+∞` when not achievable.
    pub fn rdp_epsilon(&self, algorithm: Algorithm, c: f64, lambda: f64) -> f64 {
        self.corner_pairs(algorithm, c)
            .iter()
            .map(|(p, q)| renyi_divergence(p, q, lambda))
            .fold(0.0, f64::max)
    }

    /// The same supremum by brute force over every success count s ∈ [0, n]
    /// and its neighbours s ± 1 (replace-one neighbouring datasets).
    pub fn rdp_epsilon_brute_force(&self, algorithm: Algorithm, c: f64, lambda: f64) -> f64 {
        let mut worst: f64 = 0.0;
        for s in 0..=self.n {
            let p = self.posterior(algorithm, c, s as f64);
            for t in [s.wrapping_sub(1), s + 1] {
                if t <= self.n {
                    let q = self.posterior(algorithm, c, t as f64);
                    worst = worst.max(renyi_divergence(&p, &q, lambda));
                }
            }
        }
        worst
    }

    /// Largest r (or m) in (0, 1] whose release is (λ, ε)-RDP, searched to full
    /// double precision (see [`largest_coefficient`]).
    pub fn calibrate(
        &self,
        algorithm: Algorithm,
        lambda: f64,
        epsilon: f64,
    ) -> Result<Verified, FamilyError> {
        super::check(
            "lambda",
            lambda,
            lambda > 1.0 && lambda.is_finite(),
            "a finite value > 1",
        )?;
        Ok(largest_coefficient(epsilon, |c| {
            self.rdp_epsilon(algorithm, c, lambda)
        })?)
    }

    /// Order λ* = 1 + min(α₀, β₀)/c below which `algorithm` with coefficient c
    /// has finite ε (geumlek2017 Corollary 1 for c = 1, generalised).
    pub fn critical_order(&self, _algorithm: Algorithm, c: f64) -> f64 {
        let m = self.prior.alpha().min(self.prior.beta());
        // Diffused: the step is r, so α₀ − (λ−1) r > 0. Concentrated: α₀/m − (λ−1) > 0.
        1.0 + m / c
    }
}

/// The Gaussian-mechanism baseline of geumlek2017 §5.1: s̃ = clamp(s + N(0, σ²), 0, n),
/// released posterior Beta(α₀ + s̃, β₀ + n − s̃). Sensitivity of the count: Δ = 1.
/// In the exact modes the noise is the discrete Gaussian N_ℤ(0, σ²) (CKS20, σ²
/// rounded up onto its rational grid), so s̃ is an integer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GaussianCount {
    pub problem: BetaBernoulli,
    pub sigma: f64,
    pub calibration: GaussianCalibration,
    /// The discrete Gaussian and its mode, in the exact modes.
    pub discrete: Option<(DiscreteGaussian, NoiseMode)>,
}

impl GaussianCount {
    /// σ for a (λ, ε)-RDP release under the chosen statement (float noise).
    pub fn calibrated(
        problem: BetaBernoulli,
        lambda: f64,
        epsilon: f64,
        calibration: GaussianCalibration,
    ) -> Result<Self, FamilyError> {
        let sigma = calibration.sigma(lambda, epsilon, 1.0)?;
        Ok(Self {
            problem,
            sigma,
            calibration,
            discrete: None,
        })
    }

    /// The same release with noise drawn in `mode`: in the exact modes, the
    /// discrete Gaussian whose σ² is the calibrated σ² rounded up. Its exact RDP
    /// is at most the continuous αΔ²/(2σ²) (CKS20), so the claim still holds.
    pub fn with_noise(self, mode: NoiseMode) -> Result<Self, FamilyError> {
        Ok(Self {
            discrete: match mode {
                NoiseMode::Float => None,
                _ => Some((DiscreteGaussian::with_sigma(self.sigma)?, mode)),
            },
            ..self
        })
    }

    /// The privacy event: N(0, σ²) on a count of sensitivity 1, claimed under the
    /// calibration's RDP statement; in the exact modes the discrete Gaussian with
    /// its exact RDP.
    pub fn event(&self) -> Event {
        match self.discrete {
            None => self.calibration.event(self.sigma, 1.0),
            Some((g, mode)) => Event::DiscreteGaussian {
                shift: 1,
                sigma2_num: g.variance().num,
                sigma2_den: g.variance().den,
                noise: mode,
            },
        }
    }

    /// The clamped noisy count.
    pub fn noisy_count<R: Rng + ?Sized>(
        &self,
        successes: f64,
        rng: &mut R,
    ) -> Result<f64, SystemRandomError> {
        let n = self.problem.n as f64;
        Ok(match self.discrete {
            None => {
                let noise = Normal::new(0.0, self.sigma)
                    .map(|d| d.sample(rng))
                    .unwrap_or(f64::NAN);
                (successes + noise).clamp(0.0, n)
            }
            Some((g, mode)) => {
                let mut r = NoiseRng::new(mode, rng)?;
                ((successes as i128 + g.sample(&mut r)) as f64).clamp(0.0, n)
            }
        })
    }

    pub fn posterior_for(&self, noisy: f64) -> BetaDist {
        self.problem.direct_posterior(noisy)
    }

    /// KL(true posterior ‖ output distribution of the mechanism), where the
    /// output is the mixture over the clamped noisy count: point masses at 0 and
    /// n plus a Gaussian-weighted continuum. Evaluated by nested composite
    /// Gauss–Legendre quadrature in log space; returns (KL, error estimate),
    /// the estimate being the change when every rule is refined twofold.
    pub fn kl_from_truth(&self, successes: f64) -> (f64, f64) {
        let coarse = self.kl_quadrature(successes, 1);
        let fine = self.kl_quadrature(successes, 2);
        (fine, (fine - coarse).abs())
    }

    fn kl_quadrature(&self, s: f64, refine: usize) -> f64 {
        let n = self.problem.n as f64;
        let truth = self.problem.direct_posterior(s);
        let sigma = self.sigma;
        // log N(0,1) CDF via erfc (accurate in the far tail down to underflow).
        let ln_phi = |x: f64| (0.5 * erfc(-x / std::f64::consts::SQRT_2)).ln();
        // Each mixture component as (ln weight − ln B(a, b), a − 1, b − 1), so that
        // ln(weight · Beta(θ; a, b)) = c + (a−1) ln θ + (b−1) ln(1−θ).
        let component = |ln_w: f64, d: BetaDist| {
            (
                ln_w - ln_beta(d.alpha(), d.beta()),
                d.alpha() - 1.0,
                d.beta() - 1.0,
            )
        };
        if let Some((g, _)) = self.discrete {
            return self.mixture_kl(&truth, self.discrete_components(&g, s), refine);
        }
        let mut comps: Vec<(f64, f64, f64)> = vec![
            component(ln_phi(-s / sigma), self.posterior_for(0.0)),
            component(ln_phi((s - n) / sigma), self.posterior_for(n)),
        ];
        // Continuum over t ∈ (0, n), truncated at 12σ from s (weight < e⁻⁷²).
        let t_lo = (s - 12.0 * sigma).max(0.0);
        let t_hi = (s + 12.0 * sigma).min(n);
        if t_hi > t_lo {
            // Panels no wider than σ/2 and 2 counts, resolving both the Gaussian
            // and the Beta's dependence on t (whose width in t is ≈ √n/2 ≥ 2.5 here).
            let width = (0.5 * sigma).min(2.0);
            let panels = (((t_hi - t_lo) / width).ceil() as usize).max(4) * refine;
            let rule = GaussLegendre::new(8);
            let h = (t_hi - t_lo) / panels as f64;
            let ln_norm = -(sigma * (2.0 * std::f64::consts::PI).sqrt()).ln();
            for k in 0..panels {
                let lo = t_lo + h * k as f64;
                for (t, w) in rule.mapped(lo, lo + h) {
                    let ln_w = w.ln() + ln_norm - 0.5 * ((t - s) / sigma).powi(2);
                    comps.push(component(ln_w, self.posterior_for(t)));
                }
            }
        }
        self.mixture_kl(&truth, comps, refine)
    }

    /// (ln weight − ln B(a, b), a − 1, b − 1) of the release's posterior
    /// Beta(α₀ + t, β₀ + n − t) at noisy count t.
    fn component(&self, ln_w: f64, t: f64) -> (f64, f64, f64) {
        let d = self.posterior_for(t);
        (
            ln_w - ln_beta(d.alpha(), d.beta()),
            d.alpha() - 1.0,
            d.beta() - 1.0,
        )
    }

    /// The output mixture of the exact modes: the integer noisy counts t, each
    /// with its discrete-Gaussian probability, P(Z ≤ −s) at 0 and P(Z ≥ n − s) at
    /// n; counts beyond 40σ + 40 of s carry less than e⁻⁸⁰⁰ and are left out.
    fn discrete_components(&self, g: &DiscreteGaussian, s: f64) -> Vec<(f64, f64, f64)> {
        let (n, s) = (self.problem.n as i64, s as i64);
        let ln_norm = g.ln_normaliser();
        let reach = (40.0 * g.variance().to_f64().sqrt() + 40.0) as i64;
        let ln_tail = |from: i64, to: i64| -> f64 {
            let v: Vec<f64> = (from..=to).map(|z| g.ln_pmf(z, ln_norm)).collect();
            crate::numeric::log_sum_exp(&v)
        };
        let mut comps = vec![
            self.component(ln_tail(-s - reach, -s), 0.0),
            self.component(ln_tail(n - s, n - s + reach), n as f64),
        ];
        for t in (s - reach).max(1)..=(s + reach).min(n - 1) {
            comps.push(self.component(g.ln_pmf(t - s, ln_norm), t as f64));
        }
        comps
    }

    /// KL(truth ‖ mixture of the components), by Gauss–Legendre quadrature over θ.
    fn mixture_kl(&self, truth: &BetaDist, mut comps: Vec<(f64, f64, f64)>, refine: usize) -> f64 {
        comps.retain(|c| c.0 > f64::NEG_INFINITY);
        // Outer integral over θ across the bulk of the true posterior, on the logit scale.
        // logit θ under Beta(a, b) has sd ≈ √(1/a + 1/b) and tails ∝ e^{a z}, e^{−b z}:
        // the range below leaves out less than e⁻³⁶ of the truth's mass.
        let rule = GaussLegendre::new(16);
        let center = (truth.mean() / (1.0 - truth.mean())).ln();
        let sd = (1.0 / truth.alpha() + 1.0 / truth.beta()).sqrt();
        let z_lo = center - 12.0 * sd - 36.0 / truth.alpha();
        let z_hi = center + 12.0 * sd + 36.0 / truth.beta();
        let panels = 16 * refine;
        let mut total = 0.0;
        let h = (z_hi - z_lo) / panels as f64;
        for k in 0..panels {
            let lo = z_lo + h * k as f64;
            for (z, w) in rule.mapped(lo, lo + h) {
                let theta = 1.0 / (1.0 + (-z).exp());
                let (ln_t, ln_1t) = (theta.ln(), (-theta).ln_1p());
                let ln_p = truth.ln_pdf(theta);
                if !ln_t.is_finite() || !ln_1t.is_finite() || !ln_p.is_finite() {
                    continue;
                }
                // ln A(θ) by a streaming log-sum-exp over the components
                let (mut max, mut acc) = (f64::NEG_INFINITY, 0.0);
                for &(c, a1, b1) in &comps {
                    let v = c + a1 * ln_t + b1 * ln_1t;
                    if v > max {
                        acc = acc * (max - v).exp() + 1.0;
                        max = v;
                    } else {
                        acc += (v - max).exp();
                    }
                }
                let ln_a = max + acc.ln();
                total += w * (ln_p + ln_t + ln_1t).exp() * (ln_p - ln_a);
            }
        }
        total.max(0.0)
    }
}

/// KL(true posterior ‖ Algorithm 2/3 output), in closed form.
pub fn kl_from_truth(problem: &BetaBernoulli, algorithm: Algorithm, c: f64, successes: f64) -> f64 {
    let truth = problem.direct_posterior(successes);
    kl_divergence(&truth, &problem.posterior(algorithm, c, successes))
}

/// L1 sensitivity of (n₊, n₋) under replace-one neighbours (foulds2016 §3.2):
/// one record moves from one count to the other.
pub const COUNTS_L1_SENSITIVITY: f64 = 2.0;

/// The noise of [`laplace_posterior`] at ε in `mode`: Laplace(Δ/ε) on each
/// count, Δ = 2 (in the exact modes the discrete Laplace of that scale).
pub fn counts_noise(mode: NoiseMode, epsilon: f64) -> Result<CountNoise, FamilyError> {
    Ok(CountNoise::for_privacy(
        mode,
        COUNTS_L1_SENSITIVITY,
        epsilon,
    )?)
}

/// Laplace mechanism on the sufficient statistics (n₊, n₋) of foulds2016 §3.2,
/// eq. (16): L1 sensitivity Δ = 2 under replace-one neighbours, noise
/// Laplace(Δ/ε) on each count (`noise`, from [`counts_noise`]), projected onto
/// counts ≥ 0 (post-processing). Its privacy event is `noise.event()`.
pub fn laplace_posterior<R: Rng + ?Sized>(
    prior: &BetaDist,
    positives: f64,
    negatives: f64,
    noise: &CountNoise,
    rng: &mut R,
) -> anyhow::Result<BetaDist> {
    let mut r = noise.rng(rng)?;
    let pos = noise.add(positives, &mut r).max(0.0);
    let neg = noise.add(negatives, &mut r).max(0.0);
    Ok(BetaDist::new(prior.alpha() + pos, prior.beta() + neg)?)
}

/// One-posterior-sample (OPS) mechanism of foulds2016 §3.1 (Wang et al. 2015):
/// the posterior truncated to [a₀, 1 − a₀] and tempered by T = 2Δ/ε, with the
/// exponential-mechanism sensitivity Δ = ln(1 − a₀) − ln a₀ (eq. 15). T is
/// floored at 1: a sample is never sharper than the posterior (at T = 1 the
/// release costs 2Δ ≤ ε).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ops {
    pub a0: f64,
    pub epsilon: f64,
}

impl Ops {
    pub fn new(a0: f64, epsilon: f64) -> Result<Self, FamilyError> {
        super::check("a0", a0, a0 > 0.0 && a0 < 0.5, "0 < a0 < 0.5")?;
        super::check(
            "epsilon",
            epsilon,
            epsilon > 0.0 && epsilon.is_finite(),
            "a finite value > 0",
        )?;
        Ok(Self { a0, epsilon })
    }

    /// Δ log Pr(θ, X) of eq. (15).
    pub fn sensitivity(&self) -> f64 {
        (-self.a0).ln_1p() - self.a0.ln()
    }

    /// T = max(1, 2Δ/ε), eq. (10)/(14).
    pub fn temperature(&self) -> f64 {
        (2.0 * self.sensitivity() / self.epsilon).max(1.0)
    }

    /// The privacy actually spent: 2Δ/T (= ε unless T was floored at 1).
    pub fn epsilon_spent(&self) -> f64 {
        2.0 * self.sensitivity() / self.temperature()
    }

    /// The privacy event: one sample of the tempered posterior, whose log-density
    /// ratio between neighbours is at most Δ/T (so ε = 2Δ/T, exact sampling).
    pub fn event(&self) -> Event {
        Event::OnePosteriorSample {
            log_ratio_bound: self.sensitivity() / self.temperature(),
            temperature: self.temperature(),
            truncation: vec![self.a0],
            epsilon: self.epsilon_spent(),
        }
    }

    /// Posterior^{1/T} on [a₀, 1 − a₀]: Beta(1 + (α+n₊−1)/T, 1 + (β+n₋−1)/T) truncated.
    pub fn distribution(
        &self,
        prior: &BetaDist,
        positives: f64,
        negatives: f64,
    ) -> Result<TruncatedBeta, FamilyError> {
        let t = self.temperature();
        let a = 1.0 + (prior.alpha() + positives - 1.0) / t;
        let b = 1.0 + (prior.beta() + negatives - 1.0) / t;
        TruncatedBeta::new(a, b, self.a0, 1.0 - self.a0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{assert_rel, REL_CLOSED_FORM};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn fig1_problem() -> BetaBernoulli {
        BetaBernoulli::new(BetaDist::new(6.0, 18.0).unwrap(), 100)
    }

    #[test]
    fn corner_shortcut_equals_brute_force_supremum() {
        let problems = [
            fig1_problem(),
            BetaBernoulli::new(BetaDist::new(18.0, 6.0).unwrap(), 40),
            BetaBernoulli::new(BetaDist::new(1.0, 1.0).unwrap(), 25),
            BetaBernoulli::new(BetaDist::new(0.7, 3.0).unwrap(), 7),
        ];
        for problem in problems {
            for algorithm in [Algorithm::Diffused, Algorithm::Concentrated] {
                for c in [0.05, 0.1, 0.3, 0.5, 0.9, 1.0] {
                    for lambda in [1.5, 2.0, 5.0, 6.9, 7.0, 15.0] {
                        let corner = problem.rdp_epsilon(algorithm, c, lambda);
                        let brute = problem.rdp_epsilon_brute_force(algorithm, c, lambda);
                        if brute.is_infinite() {
                            assert!(corner.is_infinite());
                        } else {
                            assert_rel(corner, brute, REL_CLOSED_FORM);
                        }
                    }
                }
            }
        }
    }

    /// The shipped ε (corner shortcut, double precision) against 50-digit
    /// mpmath brute-force suprema over all datasets (tests/reference/beta_rdp_sup.py).
    #[test]
    fn rdp_epsilon_matches_mpmath_brute_force() {
        let problem = fig1_problem();
        let text = include_str!("../../../../tests/reference/beta_rdp_sup.csv");
        let mut checked = 0;
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("algorithm"))
        {
            let f: Vec<&str> = line.split(',').collect();
            let algorithm = if f[0] == "diffused" {
                Algorithm::Diffused
            } else {
                Algorithm::Concentrated
            };
            let (c, lambda, want): (f64, f64, f64) = (
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
            );
            assert_rel(
                problem.rdp_epsilon(algorithm, c, lambda),
                want,
                crate::testutil::REL_REFERENCE,
            );
            checked += 1;
        }
        assert_eq!(checked, 10);
    }

    #[test]
    fn corollary_one_direct_sampling_is_rdp_iff_lambda_below_seven() {
        let problem = fig1_problem();
        assert_eq!(problem.critical_order(Algorithm::Diffused, 1.0), 7.0);
        for algorithm in [Algorithm::Diffused, Algorithm::Concentrated] {
            assert!(problem.rdp_epsilon(algorithm, 1.0, 6.999).is_finite());
            assert!(problem.rdp_epsilon(algorithm, 1.0, 7.0).is_infinite());
            assert!(problem.rdp_epsilon(algorithm, 1.0, 7.001).is_infinite());
            // The asymptote moves to 1 + 6/c for smaller coefficients.
            let c = 0.5;
            assert!(problem.rdp_epsilon(algorithm, c, 12.999).is_finite());
            assert!(problem.rdp_epsilon(algorithm, c, 13.0).is_infinite());
        }
    }

    #[test]
    fn epsilon_is_monotone_in_the_coefficient() {
        let problem = fig1_problem();
        for algorithm in [Algorithm::Diffused, Algorithm::Concentrated] {
            let mut last = 0.0;
            for k in 1..=200 {
                let e = problem.rdp_epsilon(algorithm, k as f64 / 200.0, 2.0);
                assert!(e >= last, "{algorithm:?} at {k}");
                last = e;
            }
        }
    }

    #[test]
    fn calibration_meets_the_target_and_is_tight() {
        let problem = fig1_problem();
        for algorithm in [Algorithm::Diffused, Algorithm::Concentrated] {
            for &(lambda, eps) in &[(2.0, 1e-4), (15.0, 1e-5), (15.0, 0.5), (2.0, 0.05)] {
                let v = problem.calibrate(algorithm, lambda, eps).unwrap();
                assert!(v.epsilon <= eps);
                assert_eq!(
                    v.epsilon,
                    problem.rdp_epsilon(algorithm, v.coefficient, lambda)
                );
                // one ulp more breaks the target (the boundary is found exactly)
                let next = f64::from_bits(v.coefficient.to_bits() + 1);
                assert!(problem.rdp_epsilon(algorithm, next, lambda) > eps);
            }
            // direct sampling already private enough
            assert_eq!(
                problem.calibrate(algorithm, 2.0, 10.0).unwrap().coefficient,
                1.0
            );
        }
        // m of order 1e-5 at small ε, found to relative precision
        let v = problem
            .calibrate(Algorithm::Concentrated, 15.0, 1e-5)
            .unwrap();
        assert!(
            v.coefficient < 1e-4 && v.coefficient > 1e-7,
            "{}",
            v.coefficient
        );
    }

    #[test]
    fn gaussian_kl_is_consistent() {
        let problem = fig1_problem();
        // Property: KL to the mixture ≤ average KL to its components (convexity),
        // checked against a Monte-Carlo average of the component KLs.
        let mech = GaussianCount {
            problem,
            calibration: GaussianCalibration::Tight,
            sigma: 3.0,
            discrete: None,
        };
        let (kl, err) = mech.kl_from_truth(38.0);
        assert!(err < 1e-6 * kl.max(1e-3), "error estimate {err}");
        let truth = problem.direct_posterior(38.0);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let jensen: f64 = (0..20_000)
            .map(|_| {
                kl_divergence(
                    &truth,
                    &mech.posterior_for(mech.noisy_count(38.0, &mut rng).unwrap()),
                )
            })
            .sum::<f64>()
            / 20_000.0;
        assert!(kl > 0.0 && kl < jensen, "{kl} vs {jensen}");
        // Tiny noise: the output approaches the truth.
        let tiny = GaussianCount {
            problem,
            calibration: GaussianCalibration::Tight,
            sigma: 1e-3,
            discrete: None,
        };
        assert!(tiny.kl_from_truth(38.0).0 < 1e-6);
        // Independent second method: a brute-force trapezoid double integral
        // over θ and the noisy count t, with the clamped point masses explicit.
        for sigma in [3.0, 40.0, 1e7] {
            let mech = GaussianCount {
                problem,
                sigma,
                calibration: GaussianCalibration::Tight,
                discrete: None,
            };
            let reference = brute_force_gaussian_kl(&mech, 38.0);
            assert_rel(mech.kl_from_truth(38.0).0, reference, 2e-5);
        }
    }

    /// The exact mode's KL against a brute-force double sum: the clamped
    /// discrete-Gaussian weights of every noisy count 0..=n, normalised by their
    /// own sum, and a trapezoid over θ; and its noisy counts are integers.
    #[test]
    fn discrete_gaussian_kl_matches_a_brute_force_sum() {
        let problem = fig1_problem();
        for sigma in [0.7, 3.0, 40.0] {
            let mech = GaussianCount {
                problem,
                sigma,
                calibration: GaussianCalibration::Tight,
                discrete: None,
            }
            .with_noise(NoiseMode::Exact)
            .unwrap();
            let (g, _) = mech.discrete.unwrap();
            let s2 = g.variance().to_f64();
            let n = problem.n as i64;
            let s = 38i64;
            // weights of z over a wide range, clamped into t ∈ [0, n]
            let zs = -5000i64..=5000;
            let raw: Vec<f64> = zs
                .clone()
                .map(|z| (-(z * z) as f64 / (2.0 * s2)).exp())
                .collect();
            let total: f64 = raw.iter().sum();
            let mut w = vec![0.0; (n + 1) as usize];
            for (z, r) in zs.zip(&raw) {
                w[(s + z).clamp(0, n) as usize] += r / total;
            }
            let truth = problem.direct_posterior(38.0);
            let (lo, hi, steps) = (0.12, 0.62, 4000);
            let h = (hi - lo) / steps as f64;
            let mut kl = 0.0;
            for i in 0..=steps {
                let th = lo + h * i as f64;
                let mix: f64 = w
                    .iter()
                    .enumerate()
                    .filter(|(_, &x)| x > 1e-300)
                    .map(|(t, &x)| x * mech.posterior_for(t as f64).ln_pdf(th).exp())
                    .sum();
                let p = truth.ln_pdf(th).exp();
                let f = p * (p.ln() - mix.ln());
                kl += if i == 0 || i == steps { 0.5 * f } else { f };
            }
            kl *= h;
            assert_rel(mech.kl_from_truth(38.0).0, kl, 2e-5);
            let mut rng = ChaCha8Rng::seed_from_u64(2);
            let t = mech.noisy_count(38.0, &mut rng).unwrap();
            assert_eq!(t.fract(), 0.0);
        }
    }

    fn brute_force_gaussian_kl(mech: &GaussianCount, s: f64) -> f64 {
        let problem = mech.problem;
        let n = problem.n as f64;
        let sigma = mech.sigma;
        let truth = problem.direct_posterior(s);
        let normal = statrs::distribution::Normal::new(s, sigma).unwrap();
        use statrs::distribution::{Continuous, ContinuousCDF};
        let w0 = normal.cdf(0.0);
        let wn = 1.0 - normal.cdf(n);
        let t_steps = 4000;
        let dt = n / t_steps as f64;
        let theta_steps = 4000;
        let (lo, hi) = (0.12, 0.62); // truth Beta(44, 80): mass outside < 1e-12
        let dth = (hi - lo) / theta_steps as f64;
        let mut kl = 0.0;
        for i in 0..=theta_steps {
            let th = lo + dth * i as f64;
            let mut a = w0 * mech.posterior_for(0.0).ln_pdf(th).exp()
                + wn * mech.posterior_for(n).ln_pdf(th).exp();
            for j in 0..=t_steps {
                let t = dt * j as f64;
                let w = if j == 0 || j == t_steps { 0.5 } else { 1.0 };
                a += w * dt * normal.pdf(t) * mech.posterior_for(t).ln_pdf(th).exp();
            }
            let p = truth.ln_pdf(th).exp();
            let w = if i == 0 || i == theta_steps { 0.5 } else { 1.0 };
            kl += w * dth * p * (p.ln() - a.ln());
        }
        kl
    }

    /// Exact audit of OPS: for n = 30 records and every neighbouring pair
    /// (one record flipped), the supremum of the log density ratio of the two truncated
    /// tempered posteriors (monotone in ln(θ/(1−θ)), so at the truncation ends, checked on a
    /// grid as well) never exceeds the claimed ε; without the truncation (a₀ → 10⁻³⁰⁰,
    /// the support's ends) the same audit fails.
    #[test]
    fn ops_passes_an_exact_audit_and_fails_without_truncation() {
        use crate::privacy::audit::exact_pure_epsilon;
        let prior = BetaDist::new(1.0, 1.0).unwrap();
        let n = 30.0;
        for (a0, eps) in [(0.2, 1.0), (0.05, 0.5), (0.2, 100.0), (0.01, 3.0)] {
            let ops = Ops::new(a0, eps).unwrap();
            let claim = ops.epsilon_spent();
            let mut worst: f64 = 0.0;
            for k in 0..30 {
                let d = ops.distribution(&prior, k as f64, n - k as f64).unwrap();
                let d2 = ops
                    .distribution(&prior, k as f64 + 1.0, n - k as f64 - 1.0)
                    .unwrap();
                let grid = (0..=200).map(|i| a0 + (1.0 - 2.0 * a0) * i as f64 / 200.0);
                worst = worst.max(exact_pure_epsilon(grid, |x| d.ln_pdf(x), |x| d2.ln_pdf(x)));
            }
            assert!(
                worst <= claim * (1.0 + 1e-9),
                "a0={a0} ε={eps}: exact {worst} > claim {claim}"
            );
            // tight: the worst pair reaches the claim (replace-one moves both counts)
            assert!(
                worst >= 0.5 * claim,
                "a0={a0} ε={eps}: exact {worst} vs claim {claim}"
            );
            // broken variant: the same temperature, no truncation
            let t = ops.temperature();
            let broken = |k: f64| BetaDist::new(1.0 + k / t, 1.0 + (n - k) / t).unwrap();
            let (b, b2) = (broken(0.0), broken(1.0));
            let ends = [1e-300, 0.5, 1.0 - 1e-16];
            let exact = exact_pure_epsilon(ends, |x| b.ln_pdf(x), |x| b2.ln_pdf(x));
            assert!(
                exact > claim,
                "untruncated OPS must fail: {exact} vs {claim}"
            );
        }
    }

    #[test]
    fn ops_temperature_matches_foulds_figure_one() {
        let ops = Ops::new(0.2, 1.0).unwrap();
        assert_rel(ops.sensitivity(), 4f64.ln(), 1e-15);
        assert_rel(ops.temperature(), 2.0 * 4f64.ln(), 1e-15); // ≈ 2.77
        assert_eq!(Ops::new(0.2, 100.0).unwrap().temperature(), 1.0);
        assert!(Ops::new(0.2, 100.0).unwrap().epsilon_spent() <= 100.0);
        assert!(Ops::new(0.5, 1.0).is_err());
    }

    #[test]
    fn laplace_posterior_projects_counts() {
        let prior = BetaDist::new(1.0, 1.0).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..1000 {
            let noise = counts_noise(NoiseMode::Float, 0.1).unwrap();
            let post = laplace_posterior(&prior, 0.0, 0.0, &noise, &mut rng).unwrap();
            assert!(post.alpha() >= 1.0 && post.beta() >= 1.0);
        }
    }
}
