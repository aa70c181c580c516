//! An audit on the trade-off curve: the empirical (FPR, TPR) points of threshold
//! tests on a mechanism's outputs on D and D′, with Clopper–Pearson bounds on both
//! error rates, set against the claimed curve ([`super::tradeoff`]). A point whose
//! TPR lower bound lies above the claimed TPR at its FPR upper bound is a violation:
//! the claim says TPR ≤ 1 − β(FPR) and 1 − β rises with the FPR, so the true point
//! cannot meet it (at the stated confidence). The same points give an empirical
//! lower bound on μ-GDP: G_μ's TPR at FPR α is Φ(μ − Φ⁻¹(1 − α)), so any μ-GDP
//! mechanism has μ ≥ Φ⁻¹(1 − α_upper) − Φ⁻¹(1 − TPR_lower) at every point.
//!
//! Validity: each class's draws are split in half; the thresholds are the pooled
//! first halves' quantiles (chosen before the second halves are seen), the rates are
//! counted on the second halves, and the error is split evenly (Bonferroni) over
//! every bound of every test — two per test, [`THRESHOLDS`] tests per orientation,
//! both orientations when the score's direction is unknown. This mirrors the ε
//! audit's held-out threshold test (`audit::epsilon_lower_bound`), and, like it,
//! counts scores within [`SCORE_TOLERANCE`] (relative) of a threshold as equal to it.

use serde::Serialize;

use super::audit::{clopper_pearson_lower, clopper_pearson_upper, SCORE_TOLERANCE};
use super::tradeoff::{upper_quantile, Curve};

/// Threshold tests per orientation (the first halves' 5 %, 10 %, …, 95 % quantiles).
pub const THRESHOLDS: usize = 19;

/// One threshold test's empirical trade-off point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TradeoffPoint {
    /// "score ≥ τ" (guess D when the score is at least τ) or "score ≤ τ".
    pub test: String,
    pub fpr: f64,
    /// Clopper–Pearson upper bound on the FPR.
    pub fpr_upper: f64,
    pub tpr: f64,
    /// Clopper–Pearson lower bound on the TPR.
    pub tpr_lower: f64,
    /// The claimed curve's TPR at `fpr_upper`.
    pub claimed_tpr: f64,
    /// `tpr_lower` above `claimed_tpr`: the point lies below the claimed curve.
    pub below_claim: bool,
    /// The μ-GDP lower bound of this point alone, Φ⁻¹(1 − `fpr_upper`) −
    /// Φ⁻¹(1 − `tpr_lower`) (0 when its bounds do not beat a coin flip).
    pub mu_lower: f64,
}

/// The points, their violations and the empirical μ lower bound.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurveAudit {
    pub points: Vec<TradeoffPoint>,
    /// How many points lie below the claimed curve.
    pub violations: usize,
    /// The largest μ lower bound over the points (0 when no point beats a coin flip).
    pub mu_lower: f64,
    /// The confidence level of each bound (the joint level split over them).
    pub level_each: f64,
}

/// The audit of `on_d`, `on_d2` against `claimed` at joint `confidence`; both
/// orientations of the score unless `high_suggests_d`.
pub fn curve_audit(
    on_d: &[f64],
    on_d2: &[f64],
    claimed: &Curve,
    confidence: f64,
    high_suggests_d: bool,
) -> CurveAudit {
    let (d_pick, d_count) = on_d.split_at(on_d.len() / 2);
    let (d2_pick, d2_count) = on_d2.split_at(on_d2.len() / 2);
    let mut pooled: Vec<f64> = d_pick
        .iter()
        .chain(d2_pick)
        .copied()
        .filter(|x| !x.is_nan())
        .collect();
    pooled.sort_by(f64::total_cmp);
    let mut thresholds: Vec<f64> = (1..=THRESHOLDS)
        .filter_map(|k| {
            let i = (k * pooled.len()) / (THRESHOLDS + 1);
            pooled.get(i).copied()
        })
        .collect();
    thresholds.dedup();
    let orientations: &[bool] = if high_suggests_d {
        &[true]
    } else {
        &[true, false]
    };
    let bounds = 2 * THRESHOLDS * orientations.len();
    let level_each = 1.0 - (1.0 - confidence) / bounds as f64;
    let mut points = Vec::new();
    for &high in orientations {
        for &t in &thresholds {
            // scores within the ε audit's relative tolerance of τ are τ (float
            // rounding must not split a tie into a perfect test)
            let slack = SCORE_TOLERANCE * t.abs();
            let hit = |x: &f64| {
                if high {
                    *x >= t - slack
                } else {
                    *x <= t + slack
                }
            };
            let (k_d, n_d) = (d_count.iter().filter(|x| hit(x)).count(), d_count.len());
            let (k_d2, n_d2) = (d2_count.iter().filter(|x| hit(x)).count(), d2_count.len());
            let fpr_upper = clopper_pearson_upper(k_d2, n_d2, level_each);
            let tpr_lower = clopper_pearson_lower(k_d, n_d, level_each);
            let claimed_tpr = claimed.tpr(fpr_upper);
            let mu_lower = if tpr_lower > fpr_upper && fpr_upper < 1.0 {
                upper_quantile(fpr_upper) - upper_quantile(tpr_lower)
            } else {
                0.0
            };
            points.push(TradeoffPoint {
                test: format!("score {} {t}", if high { "≥" } else { "≤" }),
                fpr: k_d2 as f64 / n_d2.max(1) as f64,
                fpr_upper,
                tpr: k_d as f64 / n_d.max(1) as f64,
                tpr_lower,
                claimed_tpr,
                below_claim: tpr_lower > claimed_tpr + 1e-12,
                mu_lower,
            });
        }
    }
    let mu_lower = points.iter().map(|p| p.mu_lower).fold(0.0, f64::max);
    CurveAudit {
        violations: points.iter().filter(|p| p.below_claim).count(),
        points,
        mu_lower,
        level_each,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// Laplace releases of a count (sensitivity 1) with scale 1/ε_true, audited
    /// against a claim of ε: a correct claim leaves no point below its curve, a
    /// broken one (the noise four times smaller than claimed) several; the μ lower
    /// bound never exceeds the mechanism's own μ-GDP fit and grows with the privacy
    /// loss.
    #[test]
    fn a_broken_mechanism_falls_below_its_curve_and_a_correct_one_does_not() {
        let draws = |scale: f64, seed: u64| -> (Vec<f64>, Vec<f64>) {
            let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
            // Laplace(0, scale) by its inverse CDF
            let mut noise = || {
                let u: f64 = rng.random::<f64>() - 0.5;
                -scale * u.signum() * (1.0 - 2.0 * u.abs()).ln()
            };
            let d: Vec<f64> = (0..20_000).map(|_| 1.0 + noise()).collect();
            let d2: Vec<f64> = (0..20_000).map(|_| noise()).collect();
            (d, d2)
        };
        let claim = Curve::epsilon_delta(vec![(1.0, 0.0)]);
        for seed in 0..3 {
            let (d, d2) = draws(1.0, seed);
            let ok = curve_audit(&d, &d2, &claim, 0.95, false);
            assert_eq!(ok.violations, 0, "seed {seed}: {:?}", ok.points);
            assert_eq!(ok.points.len(), 2 * THRESHOLDS);
            // ε = 1 Laplace is about 1.03-GDP at its tightest point
            assert!(ok.mu_lower > 0.3 && ok.mu_lower < 1.1, "{}", ok.mu_lower);
            let (d, d2) = draws(0.25, seed);
            let broken = curve_audit(&d, &d2, &claim, 0.95, true);
            assert!(broken.violations >= 3, "seed {seed}: {}", broken.violations);
            assert!(broken.mu_lower > ok.mu_lower);
            assert!(broken
                .points
                .iter()
                .all(|p| p.fpr_upper >= p.fpr && p.tpr_lower <= p.tpr));
        }
    }
}
