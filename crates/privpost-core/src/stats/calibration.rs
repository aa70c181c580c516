//! Calibration checks of a posterior, from replications that draw
//! θ* from the prior, data and a release from θ*, and the posterior from the
//! release:
//! - **coverage** of central credible intervals: with u the posterior CDF at θ*
//!   (the PIT), θ* lies in the central γ-interval iff |2u − 1| ≤ γ, so the
//!   coverage curve ĉ(γ) is the empirical CDF of v = |2u − 1|, uniform on
//!   [0, 1] for a calibrated posterior (the data-averaged posterior is the prior);
//! - its **bands**: pointwise, exact Binomial(R, γ) quantiles (95 %); and
//!   simultaneous over all γ, the Dvoretzky–Kiefer–Wolfowitz half-width
//!   √(ln(2/α)/(2R)) with Massart's constant (0.061 at R = 500, α = 0.05);
//! - the **SBC rank** statistic (Talts et al. 2018, Algorithm 1): the rank of θ*
//!   among L posterior draws is uniform on {0, …, L}; binned into B bins it is
//!   tested with Pearson's χ² on B − 1 degrees of freedom.

use statrs::distribution::{Binomial, ChiSquared, ContinuousCDF, DiscreteCDF};

/// |2u − 1|: the smallest central-interval level that contains θ* given its PIT u.
pub fn central_level(pit: f64) -> f64 {
    (2.0 * pit - 1.0).abs()
}

/// ĉ(γ): the fraction of replications whose θ* lies in the central γ-interval.
pub fn coverage(pits: &[f64], level: f64) -> f64 {
    if pits.is_empty() {
        return f64::NAN;
    }
    pits.iter().filter(|&&u| central_level(u) <= level).count() as f64 / pits.len() as f64
}

/// The empirical CDF of `values` at x: the fraction ≤ x (NaN when empty).
pub fn ecdf(values: &[f64], x: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.iter().filter(|&&v| v <= x).count() as f64 / values.len() as f64
}

/// TARP's statistic as a rank (Lemos, Coogan, Hezaveh & Perreault-Levasseur,
/// ICML 2023, Algorithm 1): how many posterior draws lie closer (Euclidean) to
/// the reference point θ_r than θ* does. With M draws, f = rank/M; the expected
/// coverage at level 1 − α is ECP = P(f < 1 − α), and an accurate posterior
/// gives ECP = 1 − α at every α. When θ_r does not depend on θ* given the data,
/// θ* and the draws are exchangeable under an accurate posterior, so the rank
/// is uniform on {0, …, M}: the SBC rank of the test quantity −‖θ − θ_r‖.
pub fn tarp_rank(truth: &[f64], draws: &[Vec<f64>], reference: &[f64]) -> usize {
    let dist = |x: &[f64]| -> f64 {
        x.iter()
            .zip(reference)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
    };
    let d_truth = dist(truth);
    draws.iter().filter(|d| dist(d) < d_truth).count()
}

/// A rank r among M draws made continuous: (r + u)/(M + 1) with u uniform on
/// [0, 1), exactly Uniform(0, 1) when r is uniform on {0, …, M}.
pub fn randomized_pit(rank: usize, draws: usize, u: f64) -> f64 {
    (rank as f64 + u) / (draws as f64 + 1.0)
}

/// Half-width of the simultaneous (1 − α) band of an empirical CDF of R
/// values (DKW with Massart's constant).
pub fn dkw_halfwidth(replications: usize, alpha: f64) -> f64 {
    ((2.0 / alpha).ln() / (2.0 * replications as f64)).sqrt()
}

/// The pointwise (1 − α) band of ĉ(γ) under calibration: the α/2 and 1 − α/2
/// quantiles of Binomial(R, γ), over R.
pub fn binomial_band(replications: usize, level: f64, alpha: f64) -> (f64, f64) {
    let r = replications as u64;
    match Binomial::new(level, r) {
        Ok(b) => (
            b.inverse_cdf(alpha / 2.0) as f64 / r as f64,
            b.inverse_cdf(1.0 - alpha / 2.0) as f64 / r as f64,
        ),
        Err(_) => (0.0, 1.0),
    }
}

/// The rank of θ* among `draws`: how many are below it.
pub fn rank(truth: f64, draws: &[f64]) -> usize {
    draws.iter().filter(|&&d| d < truth).count()
}

/// Pearson's χ² of SBC ranks in {0, …, L} grouped into `bins` equal bins
/// ((L + 1) divisible by `bins`), and its p-value on bins − 1 degrees of freedom.
pub fn sbc_chi2(ranks: &[usize], draws: usize, bins: usize) -> (f64, f64) {
    let width = (draws + 1) / bins;
    let mut counts = vec![0usize; bins];
    for &r in ranks {
        counts[(r / width).min(bins - 1)] += 1;
    }
    let expected = ranks.len() as f64 / bins as f64;
    let chi2: f64 = counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum();
    let p = ChiSquared::new((bins - 1) as f64).map_or(f64::NAN, |d| d.sf(chi2));
    (chi2, p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tarp_rank_counts_closer_draws() {
        let draws = vec![
            vec![0.0, 0.0],
            vec![1.0, 1.0],
            vec![0.4, 0.0],
            vec![3.0, 0.0],
        ];
        // θ* at distance 0.5 from the reference (0, 0): draws at 0 and 0.4 are closer
        assert_eq!(tarp_rank(&[0.3, 0.4], &draws, &[0.0, 0.0]), 2);
        assert_eq!(tarp_rank(&[0.0, 0.0], &draws, &[0.0, 0.0]), 0);
        assert_eq!(randomized_pit(2, 4, 0.5), 0.5);
        assert_eq!(ecdf(&[0.1, 0.5, 0.9], 0.5), 2.0 / 3.0);
    }

    /// An exact posterior gives uniform TARP ranks (a "check of the
    /// check"): θ* ~ N(0, I₂), x = θ* + N(0, I₂), draws from the exact posterior
    /// N(x/2, I/2), references from the prior; χ² of 20 bins over 4000 replications.
    #[test]
    fn tarp_of_an_exact_posterior_is_uniform() {
        use rand::SeedableRng;
        use rand_distr::{Distribution, Normal};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
        let n01 = Normal::new(0.0, 1.0).unwrap();
        let (l, reps) = (99usize, 4000usize);
        // θ ~ N(0, I₂), x = θ + N(0, I₂): the posterior is N(x/2, I/2); draws with
        // standard deviation `sd` per coordinate
        let mut ranks_with_sd = |sd: f64| -> Vec<usize> {
            (0..reps)
                .map(|_| {
                    let theta = [n01.sample(&mut rng), n01.sample(&mut rng)];
                    let x = [
                        theta[0] + n01.sample(&mut rng),
                        theta[1] + n01.sample(&mut rng),
                    ];
                    let draws: Vec<Vec<f64>> = (0..l)
                        .map(|_| {
                            (0..2)
                                .map(|j| x[j] / 2.0 + sd * n01.sample(&mut rng))
                                .collect()
                        })
                        .collect();
                    let reference = [n01.sample(&mut rng), n01.sample(&mut rng)];
                    tarp_rank(&theta, &draws, &reference)
                })
                .collect()
        };
        let (_, p) = sbc_chi2(&ranks_with_sd(0.5f64.sqrt()), l, 20);
        assert!(p > 0.001, "exact posterior: TARP χ² p = {p}");
        // an overconfident posterior (sd halved) is caught
        let (_, p) = sbc_chi2(&ranks_with_sd(0.125f64.sqrt()), l, 20);
        assert!(p < 1e-6, "overconfident posterior: TARP χ² p = {p}");
    }

    #[test]
    fn coverage_is_the_ecdf_of_the_central_level() {
        let pits = [0.5, 0.3, 0.9, 0.01, 0.975];
        // central levels 0, 0.4, 0.8, 0.98, 0.95
        assert_eq!(coverage(&pits, 0.5), 0.4);
        assert_eq!(coverage(&pits, 0.95), 0.8);
        assert_eq!(coverage(&pits, 0.0), 0.2);
        assert_eq!(coverage(&pits, 1.0), 1.0);
    }

    /// The closed forms: the normal approximation's ±1.96·√(γ(1 − γ)/R) = ±0.0438
    /// at γ = 0.5 and R = 500 (the exact binomial band is within a step of 1/R),
    /// and the DKW half-width √(ln(2/0.05)/(2R)) = 0.0607 at R = 500, 0.0429 at
    /// R = 1000.
    #[test]
    fn bands_match_their_closed_forms() {
        assert!((dkw_halfwidth(500, 0.05) - 0.0607).abs() < 1e-4);
        assert!((dkw_halfwidth(1000, 0.05) - 0.0429).abs() < 1e-4);
        let (lo, hi) = binomial_band(500, 0.5, 0.05);
        assert!((lo - (0.5 - 0.0438)).abs() <= 0.003, "{lo}");
        assert!((hi - (0.5 + 0.0438)).abs() <= 0.003, "{hi}");
        let (lo, hi) = binomial_band(500, 0.9, 0.05);
        assert!(lo < 0.9 && hi > 0.9 && (hi - lo - 2.0 * 0.0263).abs() < 0.006);
    }

    /// Uniform ranks give χ² = 0 and p = 1; χ²₁₉ = 36.19 is the 1 % point; all
    /// ranks in one bin give χ² = N(B − 1).
    #[test]
    fn sbc_chi2_against_hand_values() {
        let uniform: Vec<usize> = (0..100).cycle().take(2000).collect();
        let (c, p) = sbc_chi2(&uniform, 99, 20);
        assert_eq!(c, 0.0);
        assert!((p - 1.0).abs() < 1e-12);
        let piled = vec![0usize; 200];
        let (c, p) = sbc_chi2(&piled, 99, 20);
        assert!((c - 200.0 * 19.0).abs() < 1e-9);
        assert!(p < 1e-100);
        let d = ChiSquared::new(19.0).unwrap();
        assert!((d.sf(36.191) - 0.01).abs() < 1e-4);
        assert_eq!(rank(0.5, &[0.1, 0.7, 0.4, 0.5]), 2);
    }
}
