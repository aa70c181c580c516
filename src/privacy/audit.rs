//! Statistical privacy auditing: a lower confidence bound on ε from samples of a
//! mechanism's output on two neighbouring datasets (the building block of the
//! `privpost audit` of issue 15; the command and its mechanisms are not built yet),
//! and the exact pure ε of a one-dimensional release on a neighbouring pair.
//!
//! The attack (Jagielski, Ullman, Oprea 2020; Nasr et al. 2021): score each output by a
//! (log-)likelihood ratio, guess "D" when the score is at least a threshold τ. For an
//! (ε, δ)-DP mechanism every test satisfies TPR ≤ e^ε FPR + δ, so with a Clopper–Pearson
//! lower bound on TPR and an upper bound on FPR (each at level 1 − (1 − c)/2, jointly c),
//! ε ≥ ln((TPR_lo − δ) / FPR_hi) holds with probability ≥ c. The threshold is chosen on
//! the first half of the draws and the bound evaluated on the second half, so the
//! choice does not bias the interval. Both directions (D vs D′ and D′ vs D) are tried.

use statrs::distribution::{Beta, ContinuousCDF};

/// Clopper–Pearson one-sided bounds on a binomial proportion: the lower bound at
/// confidence `level` for k successes in n, `Beta(k, n − k + 1)` quantile 1 − level.
pub fn clopper_pearson_lower(k: usize, n: usize, level: f64) -> f64 {
    if k == 0 || n == 0 {
        return 0.0;
    }
    Beta::new(k as f64, (n - k + 1) as f64)
        .map(|b| b.inverse_cdf(1.0 - level))
        .unwrap_or(0.0)
}

/// The upper bound at confidence `level`: `Beta(k + 1, n − k)` quantile `level`.
pub fn clopper_pearson_upper(k: usize, n: usize, level: f64) -> f64 {
    if k >= n {
        return 1.0;
    }
    Beta::new((k + 1) as f64, (n - k) as f64)
        .map(|b| b.inverse_cdf(level))
        .unwrap_or(1.0)
}

/// A lower confidence bound on ε with the test that achieved it.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct EpsilonLowerBound {
    /// ε_lcb (0 when no test beats the trivial bound).
    pub epsilon: f64,
    /// The point estimate ln((TPR − δ)/FPR) of the chosen test on the held-out half.
    pub estimate: f64,
    pub threshold: f64,
    /// Held-out counts: outputs of D scoring ≥ τ of n_d, of D′ of n_d2.
    pub hits: usize,
    pub n_d: usize,
    pub false_hits: usize,
    pub n_d2: usize,
    /// Which dataset the scores favour: "d" (score high on D) or "d_prime".
    pub direction: &'static str,
}

/// ε_lcb from scores of outputs on D (`on_d`) and on D′ (`on_d2`), where a high score
/// suggests D; `confidence` is the joint level (e.g. 0.95).
pub fn epsilon_lower_bound(
    on_d: &[f64],
    on_d2: &[f64],
    delta: f64,
    confidence: f64,
) -> EpsilonLowerBound {
    let forward = one_direction(on_d, on_d2, delta, confidence, "d");
    let neg = |x: &[f64]| x.iter().map(|v| -v).collect::<Vec<_>>();
    let backward = one_direction(&neg(on_d2), &neg(on_d), delta, confidence, "d_prime");
    if backward.epsilon > forward.epsilon {
        backward
    } else {
        forward
    }
}

fn one_direction(
    pos: &[f64],
    neg: &[f64],
    delta: f64,
    confidence: f64,
    direction: &'static str,
) -> EpsilonLowerBound {
    let level = 1.0 - (1.0 - confidence) / 2.0;
    let (p1, p2) = pos.split_at(pos.len() / 2);
    let (n1, n2) = neg.split_at(neg.len() / 2);
    // choose τ on the first half: the candidate maximising the same bound there
    let mut sorted_p: Vec<f64> = p1.iter().copied().filter(|x| !x.is_nan()).collect();
    let mut sorted_n: Vec<f64> = n1.iter().copied().filter(|x| !x.is_nan()).collect();
    sorted_p.sort_by(f64::total_cmp);
    sorted_n.sort_by(f64::total_cmp);
    let count_ge = |s: &[f64], t: f64| s.len() - s.partition_point(|&x| x < t);
    let bound = |hits: usize, n: usize, fh: usize, m: usize| {
        let tpr = clopper_pearson_lower(hits, n, level);
        let fpr = clopper_pearson_upper(fh, m, level);
        if tpr - delta <= 0.0 {
            0.0
        } else {
            ((tpr - delta) / fpr).ln().max(0.0)
        }
    };
    let mut candidates: Vec<f64> = sorted_p.clone();
    candidates.dedup();
    // at most 2000 candidate thresholds (quantiles of the D scores)
    let stride = candidates.len().div_ceil(2000).max(1);
    let mut best = (f64::INFINITY, -1.0);
    for &t in candidates.iter().step_by(stride) {
        let b = bound(
            count_ge(&sorted_p, t),
            sorted_p.len(),
            count_ge(&sorted_n, t),
            sorted_n.len(),
        );
        if b > best.1 {
            best = (t, b);
        }
    }
    let tau = best.0;
    let hits = p2.iter().filter(|&&x| x >= tau).count();
    let false_hits = n2.iter().filter(|&&x| x >= tau).count();
    let (n_d, n_d2) = (p2.len(), n2.len());
    let estimate = {
        let tpr = hits as f64 / n_d.max(1) as f64;
        let fpr = false_hits as f64 / n_d2.max(1) as f64;
        ((tpr - delta) / fpr).ln()
    };
    EpsilonLowerBound {
        epsilon: bound(hits, n_d, false_hits, n_d2),
        estimate,
        threshold: tau,
        hits,
        n_d,
        false_hits,
        n_d2,
        direction,
    }
}

/// The exact pure ε of a one-dimensional release on one neighbouring pair: the
/// supremum over outputs of |ln p(x) − ln p′(x)|, evaluated at `points` (which must
/// include every point where the supremum can sit, e.g. the support's ends when the
/// log ratio is monotone). +∞ where one density vanishes and the other does not.
pub fn exact_pure_epsilon(
    points: impl IntoIterator<Item = f64>,
    ln_p: impl Fn(f64) -> f64,
    ln_p2: impl Fn(f64) -> f64,
) -> f64 {
    points
        .into_iter()
        .map(|x| {
            let (a, b) = (ln_p(x), ln_p2(x));
            if a == f64::NEG_INFINITY && b == f64::NEG_INFINITY {
                0.0
            } else {
                (a - b).abs()
            }
        })
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_distr::{Distribution, Exp1};

    /// Clopper–Pearson against the exact binomial tail: at the lower bound p, P(X ≥ k) = 1 − level.
    #[test]
    fn clopper_pearson_matches_the_binomial_tail() {
        use statrs::distribution::{Binomial, DiscreteCDF};
        for (k, n) in [(3usize, 20usize), (50, 100), (990, 1000)] {
            let lo = clopper_pearson_lower(k, n, 0.975);
            let tail = 1.0 - Binomial::new(lo, n as u64).unwrap().cdf(k as u64 - 1);
            assert!((tail - 0.025).abs() < 1e-6, "k={k} n={n}: {tail}");
            let hi = clopper_pearson_upper(k, n, 0.975);
            let below = Binomial::new(hi, n as u64).unwrap().cdf(k as u64);
            assert!((below - 0.025).abs() < 1e-6, "k={k} n={n}: {below}");
        }
        assert_eq!(clopper_pearson_lower(0, 10, 0.95), 0.0);
        assert_eq!(clopper_pearson_upper(10, 10, 0.95), 1.0);
    }

    fn laplace(rng: &mut rand_chacha::ChaCha20Rng, centre: f64, scale: f64) -> f64 {
        let e: f64 = Exp1.sample(rng);
        let sign = if rand::RngExt::random::<bool>(rng) {
            1.0
        } else {
            -1.0
        };
        centre + sign * scale * e
    }

    /// The exact likelihood-ratio attack on the Laplace count mechanism (neighbouring
    /// counts 0 and 1, claim ε = 1): the real mechanism passes with ε_lcb close to the
    /// claim; the broken one (half the scale, as a calibration bug) exceeds it and fails.
    #[test]
    fn the_laplace_audit_is_tight_and_catches_half_the_scale() {
        let claim = 1.0;
        let run = |scale: f64, seed: u64| {
            let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
            let n = 100_000;
            // score: the log-likelihood ratio of D (count 1) vs D′ (count 0) under the claim
            let score = |x: f64| (x.abs() - (x - 1.0).abs()) / (1.0 / claim);
            let on_d: Vec<f64> = (0..n)
                .map(|_| score(laplace(&mut rng, 1.0, scale)))
                .collect();
            let on_d2: Vec<f64> = (0..n)
                .map(|_| score(laplace(&mut rng, 0.0, scale)))
                .collect();
            epsilon_lower_bound(&on_d, &on_d2, 0.0, 0.95)
        };
        let real = run(1.0 / claim, 15);
        assert!(real.epsilon <= claim, "{real:?}");
        assert!(real.epsilon > 0.9 * claim, "tight: {real:?}");
        let broken = run(0.5 / claim, 16);
        assert!(
            broken.epsilon > claim,
            "the audit must fail the broken mechanism: {broken:?}"
        );
    }
}
