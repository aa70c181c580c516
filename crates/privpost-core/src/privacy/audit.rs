//! Statistical privacy auditing: a lower confidence bound on ε from samples of a
//! mechanism's output on two neighbouring datasets (the building block of the
//! `privpost audit`, whose mechanisms live in `experiments/audit`), the exact privacy
//! loss of a release whose two output distributions are known ([`Discrete`]: pure ε,
//! hockey-stick δ(ε), Rényi divergence) and a direct Rényi-divergence estimate with a
//! confidence interval from draws and exact density ratios.
//!
//! The attack (Jagielski, Ullman, Oprea 2020; Nasr et al. 2021): score each output by a
//! (log-)likelihood ratio, guess "D" when the score is at least a threshold τ. For an
//! (ε, δ)-DP mechanism every test satisfies TPR ≤ e^ε FPR + δ, so with a Clopper–Pearson
//! lower bound on TPR and an upper bound on FPR (each at level 1 − (1 − c)/2, jointly c),
//! ε ≥ ln((TPR_lo − δ) / FPR_hi) holds with probability ≥ c. The threshold is chosen on
//! the first half of the draws and the bound evaluated on the second half, so the
//! choice does not bias the interval. Both directions (D vs D′ and D′ vs D) are tried.

use crate::numeric::log_sum_exp;
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

/// Which way a score points, as far as the auditor knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Orientation {
    /// A high score suggests D (a likelihood ratio ln p/p′, or a built-in audit's
    /// score): two tests, {score ≥ τ} for D ‖ D′ and {score ≤ τ} for D′ ‖ D.
    HighSuggestsD,
    /// Nothing is known (a user's own score): the two tests above and their mirror
    /// images, {score ≥ τ} for D′ ‖ D and {score ≤ τ} for D ‖ D′. A score that runs
    /// high on D′ (the noisy count itself, when D′ has the larger count) is audited
    /// as hard as one that runs high on D.
    Unknown,
}

impl Orientation {
    /// The tests tried: (the event's side, the pair's order).
    fn tests(self) -> &'static [(Side, Pair)] {
        const KNOWN: [(Side, Pair); 2] = [
            (Side::AtLeast, Pair::DOverD2),
            (Side::AtMost, Pair::D2OverD),
        ];
        const ALL: [(Side, Pair); 4] = [
            (Side::AtLeast, Pair::DOverD2),
            (Side::AtMost, Pair::D2OverD),
            (Side::AtLeast, Pair::D2OverD),
            (Side::AtMost, Pair::DOverD2),
        ];
        match self {
            Orientation::HighSuggestsD => &KNOWN,
            Orientation::Unknown => &ALL,
        }
    }
}

/// The event of a threshold test: scores at least τ, or at most τ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    AtLeast,
    AtMost,
}

/// The order of the pair a test bounds: P_D(E) ≤ e^ε P_D′(E) + δ, or the reverse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pair {
    DOverD2,
    D2OverD,
}

/// A lower confidence bound on ε with the test that achieved it.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct EpsilonLowerBound {
    /// ε_lcb (0 when no test beats the trivial bound).
    pub epsilon: f64,
    /// The point estimate ln((TPR − δ)/FPR) of the chosen test on the held-out half.
    pub estimate: f64,
    /// τ in the scores' own units; the event is `score ≥ τ` or `score ≤ τ` (`side`).
    pub threshold: f64,
    /// Held-out counts: of the n_d outputs of the numerator's dataset (D for "d",
    /// D′ for "d_prime") `hits` are in the event, of the n_d2 outputs of the other
    /// `false_hits`.
    pub hits: usize,
    pub n_d: usize,
    pub false_hits: usize,
    pub n_d2: usize,
    /// Which inequality the bound refutes: "d" for P_D(E) ≤ e^ε P_D′(E) + δ (D ‖ D′),
    /// "d_prime" for P_D′(E) ≤ e^ε P_D(E) + δ (D′ ‖ D).
    pub direction: &'static str,
    /// The event E: "≥" (scores at least `threshold`) or "≤" (at most).
    pub side: &'static str,
    /// How many tests shared the error 1 − confidence (Bonferroni): each test's two
    /// Clopper–Pearson bounds hold jointly at 1 − (1 − confidence)/tests.
    pub tests: usize,
}

impl EpsilonLowerBound {
    /// The test in words: "D ‖ D′, scores ≥ 1.5".
    pub fn test(&self) -> String {
        let pair = if self.direction == "d" {
            "D ‖ D′"
        } else {
            "D′ ‖ D"
        };
        format!("{pair}, scores {} {:.6}", self.side, self.threshold)
    }
}

/// The scores' precision: a threshold test never separates two scores within
/// `SCORE_TOLERANCE · max(1, |τ|)` of each other. Exact log-likelihood ratios computed
/// in floating point carry errors of a few ulps (≈ 10⁻¹⁶ relative); a threshold between
/// 2.0 and 2.0000000000000004 is an event made of rounding, not of the mechanism, and
/// gave the half-scale Laplace (exactly 2-DP) an ε_lcb of 3.1686. So a score of the
/// selection half is a candidate threshold τ only if no selection score lies in
/// [τ − tol·max(1, |τ|), τ), and the event applied to the held-out half is
/// {score ≥ τ − tol·max(1, |τ|)}: a fixed threshold chosen from the selection half
/// alone, so the Clopper–Pearson bounds stay valid, and scores a rounding error below
/// τ count as reaching it.
pub const SCORE_TOLERANCE: f64 = 1e-9;

/// ε_lcb from scores of outputs on D (`on_d`) and on D′ (`on_d2`) whose orientation is
/// `orientation`; `confidence` is the joint level (e.g. 0.95) over every test tried.
/// Scores closer than [`SCORE_TOLERANCE`] are not told apart.
pub fn epsilon_lower_bound(
    on_d: &[f64],
    on_d2: &[f64],
    delta: f64,
    confidence: f64,
    orientation: Orientation,
) -> EpsilonLowerBound {
    epsilon_lower_bound_at(on_d, on_d2, delta, confidence, SCORE_TOLERANCE, orientation)
}

/// [`epsilon_lower_bound`] with scores compared at relative tolerance `tol` (0: exact
/// float comparison, the audit's behaviour before the tolerance; kept to report when a
/// verdict depends on rounding).
///
/// An (ε, δ)-DP claim bounds both orders of the pair, P_D(E) ≤ e^ε P_D′(E) + δ and
/// P_D′(E) ≤ e^ε P_D(E) + δ, for every event E. Each test of `orientation` (an event
/// side and an order) picks its threshold on the first half of the draws and is
/// evaluated on the second; the error 1 − `confidence` is split evenly between the
/// tests (Bonferroni), so the largest of their bounds holds at `confidence`.
pub fn epsilon_lower_bound_at(
    on_d: &[f64],
    on_d2: &[f64],
    delta: f64,
    confidence: f64,
    tol: f64,
    orientation: Orientation,
) -> EpsilonLowerBound {
    let tests = orientation.tests();
    let level = 1.0 - (1.0 - confidence) / tests.len() as f64;
    let neg = |x: &[f64]| x.iter().map(|v| -v).collect::<Vec<_>>();
    let mut best: Option<EpsilonLowerBound> = None;
    for &(side, pair) in tests {
        let (num, den) = match pair {
            Pair::DOverD2 => (on_d, on_d2),
            Pair::D2OverD => (on_d2, on_d),
        };
        // a test of {score ≤ τ} is the test of {−score ≥ −τ}
        let mut b = match side {
            Side::AtLeast => one_test(num, den, delta, level, tol),
            Side::AtMost => one_test(&neg(num), &neg(den), delta, level, tol),
        };
        if side == Side::AtMost {
            b.threshold = -b.threshold;
        }
        b.direction = match pair {
            Pair::DOverD2 => "d",
            Pair::D2OverD => "d_prime",
        };
        b.side = match side {
            Side::AtLeast => "≥",
            Side::AtMost => "≤",
        };
        b.tests = tests.len();
        if best.as_ref().is_none_or(|x| b.epsilon > x.epsilon) {
            best = Some(b);
        }
    }
    best.expect("at least two tests")
}

/// One threshold test at `level` (each Clopper–Pearson bound at 1 − (1 − level)/2):
/// the event {score ≥ τ}, `pos` the draws of the numerator's dataset, `neg` the other's.
fn one_test(pos: &[f64], neg: &[f64], delta: f64, level: f64, tol: f64) -> EpsilonLowerBound {
    let level = 1.0 - (1.0 - level) / 2.0;
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
    // the event's threshold for a candidate t: t lowered by the scores' precision
    let lowered = |t: f64| {
        if t.is_finite() {
            t - tol * t.abs().max(1.0)
        } else {
            t
        }
    };
    // the largest selection score below t (either sample), to keep t only where no
    // selection score lies within the precision below it
    let below = |t: f64| {
        let last = |s: &[f64]| s[..s.partition_point(|&x| x < t)].last().copied();
        match (last(&sorted_p), last(&sorted_n)) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    };
    let mut candidates: Vec<f64> = sorted_p.clone();
    candidates.dedup();
    if tol > 0.0 {
        candidates.retain(|&t| below(t).is_none_or(|b| b < lowered(t)));
    }
    // at most 2000 candidate thresholds (quantiles of the D scores)
    let stride = candidates.len().div_ceil(2000).max(1);
    let mut best = (f64::INFINITY, -1.0);
    for &t in candidates.iter().step_by(stride) {
        let t = lowered(t);
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
        direction: "d",
        side: "≥",
        tests: 1,
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

/// Two output distributions P (on D) and P′ (on D′) on common points: each point
/// carries a weight (a quadrature weight for a density, 1 for an atom) and the log
/// density (or log mass) under each. Quadrature of a density and exact atoms of a
/// mixed distribution (e.g. a clamped noisy count) go into the same list.
#[derive(Debug, Clone, Default)]
pub struct Discrete {
    pub ln_weight: Vec<f64>,
    pub ln_p: Vec<f64>,
    pub ln_q: Vec<f64>,
}

impl Discrete {
    /// Adds a point (weight w > 0).
    pub fn push(&mut self, weight: f64, ln_p: f64, ln_q: f64) {
        if weight > 0.0 {
            self.ln_weight.push(weight.ln());
            self.ln_p.push(ln_p);
            self.ln_q.push(ln_q);
        }
    }

    /// Total masses (Σ w p, Σ w q): 1 up to the quadrature error.
    pub fn masses(&self) -> (f64, f64) {
        let total = |l: &[f64]| {
            let v: Vec<f64> = self.ln_weight.iter().zip(l).map(|(w, x)| w + x).collect();
            log_sum_exp(&v).exp()
        };
        (total(&self.ln_p), total(&self.ln_q))
    }

    /// The same pair with P and P′ exchanged (the other direction of the neighbours).
    pub fn swapped(&self) -> Self {
        Self {
            ln_weight: self.ln_weight.clone(),
            ln_p: self.ln_q.clone(),
            ln_q: self.ln_p.clone(),
        }
    }

    /// Pure ε: sup over points of |ln p − ln p′| (+∞ where one vanishes and the
    /// other does not).
    pub fn pure_epsilon(&self) -> f64 {
        self.ln_p
            .iter()
            .zip(&self.ln_q)
            .map(|(&a, &b)| {
                if a == f64::NEG_INFINITY && b == f64::NEG_INFINITY {
                    0.0
                } else {
                    (a - b).abs()
                }
            })
            .fold(0.0, f64::max)
    }

    /// Hockey-stick divergence δ(ε) = ∫ max(0, p − e^ε p′) (one direction).
    pub fn hockey_stick(&self, epsilon: f64) -> f64 {
        self.ln_weight
            .iter()
            .zip(self.ln_p.iter().zip(&self.ln_q))
            .map(|(&w, (&a, &b))| {
                let (p, q) = ((w + a).exp(), (w + b + epsilon).exp());
                (p - q).max(0.0)
            })
            .sum()
    }

    /// Rényi divergence D_α(P ‖ P′) = ln ∫ p^α p′^{1−α} / (α − 1), α > 1, in log space.
    pub fn renyi(&self, alpha: f64) -> f64 {
        let terms: Vec<f64> = self
            .ln_weight
            .iter()
            .zip(self.ln_p.iter().zip(&self.ln_q))
            .filter(|(_, (&a, _))| a > f64::NEG_INFINITY)
            .map(|(&w, (&a, &b))| w + alpha * a + (1.0 - alpha) * b)
            .collect();
        log_sum_exp(&terms) / (alpha - 1.0)
    }
}

/// The smallest ε with max(δ_{P‖P′}(ε), δ_{P′‖P}(ε)) ≤ δ, by bisection to 10⁻⁹
/// (returned rounded up; ε = 0 when already δ(0) ≤ δ; +∞ when no finite ε does).
pub fn epsilon_for_delta(pair: &Discrete, delta: f64) -> f64 {
    let back = pair.swapped();
    let worst = |e: f64| pair.hockey_stick(e).max(back.hockey_stick(e));
    if worst(0.0) <= delta {
        return 0.0;
    }
    let mut hi = 1.0;
    while worst(hi) > delta {
        hi *= 2.0;
        if hi > 1e6 {
            return f64::INFINITY;
        }
    }
    let mut lo = 0.0;
    while hi - lo > 1e-9 * hi.max(1.0) {
        let mid = 0.5 * (lo + hi);
        if worst(mid) > delta {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// A Rényi divergence estimated from draws, with a two-sided confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct RenyiEstimate {
    pub estimate: f64,
    pub lower: f64,
    pub upper: f64,
    pub draws: usize,
}

/// D_α(P ‖ P′) from i.i.d. draws of P and the exact log density ratio L = ln p − ln p′
/// at each: D_α = ln E_P[e^{(α−1)L}] / (α − 1). The interval is the normal one for the
/// mean of e^{(α−1)L} at `confidence` (two-sided), mapped through the logarithm; a
/// lower end ≤ 0 gives a lower bound of 0 (the divergence is never negative).
pub fn renyi_from_draws(log_ratios: &[f64], alpha: f64, confidence: f64) -> RenyiEstimate {
    let n = log_ratios.len().max(1) as f64;
    // scale by the largest term so that the exponentials cannot overflow
    let m = log_ratios
        .iter()
        .map(|l| (alpha - 1.0) * l)
        .fold(f64::NEG_INFINITY, f64::max);
    let y: Vec<f64> = log_ratios
        .iter()
        .map(|l| ((alpha - 1.0) * l - m).exp())
        .collect();
    let mean = y.iter().sum::<f64>() / n;
    let var = y.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let z = statrs::distribution::Normal::standard().inverse_cdf(0.5 + confidence / 2.0);
    let half = z * (var / n).sqrt();
    let to_d = |v: f64| (v.ln() + m) / (alpha - 1.0);
    RenyiEstimate {
        estimate: to_d(mean).max(0.0),
        lower: if mean - half > 0.0 {
            to_d(mean - half).max(0.0)
        } else {
            0.0
        },
        upper: to_d(mean + half).max(0.0),
        draws: log_ratios.len(),
    }
}

/// A claim audited from scores: pure ε, (ε, δ), or (α, ε)-RDP.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ScoreClaim {
    Pure { epsilon: f64 },
    Approx { epsilon: f64, delta: f64 },
    Rdp { order: f64, epsilon: f64 },
}

impl ScoreClaim {
    /// `pure`, `approx` or `rdp`.
    pub fn kind(&self) -> &'static str {
        match self {
            ScoreClaim::Pure { .. } => "pure",
            ScoreClaim::Approx { .. } => "approx",
            ScoreClaim::Rdp { .. } => "rdp",
        }
    }

    pub fn epsilon(&self) -> f64 {
        match *self {
            ScoreClaim::Pure { epsilon }
            | ScoreClaim::Approx { epsilon, .. }
            | ScoreClaim::Rdp { epsilon, .. } => epsilon,
        }
    }

    /// The δ of an (ε, δ) claim (0 otherwise).
    pub fn delta(&self) -> f64 {
        match *self {
            ScoreClaim::Approx { delta, .. } => delta,
            _ => 0.0,
        }
    }

    /// The order of an RDP claim (0 otherwise).
    pub fn order(&self) -> f64 {
        match *self {
            ScoreClaim::Rdp { order, .. } => order,
            _ => 0.0,
        }
    }

    /// The trade-off curve the claim states: a pure ε's or an (ε, δ)'s own curve,
    /// or one RDP statement's ([`super::tradeoff`]).
    pub fn curve(&self) -> super::tradeoff::Curve {
        use super::tradeoff::Curve;
        match *self {
            ScoreClaim::Pure { epsilon } => Curve::epsilon_delta(vec![(epsilon, 0.0)]),
            ScoreClaim::Approx { epsilon, delta } => Curve::epsilon_delta(vec![(epsilon, delta)]),
            ScoreClaim::Rdp { order, epsilon } => Curve::rdp(vec![(order, epsilon)]),
        }
    }
}

/// What the audit of scores found: the audited value (ε_lcb, or the Rényi
/// divergence's lower confidence bound), the point estimate, and the test.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ScoreAudit {
    pub audited: f64,
    pub estimate: f64,
    pub method: String,
    /// Which order of the pair the audited value bounds, and by which test:
    /// "D ‖ D′, scores ≥ 1.5" (P_D(E) ≤ e^ε P_D′(E) + δ refuted on that event), or
    /// "D′ ‖ D, …" for the reverse order.
    pub direction: String,
    pub draws_d: usize,
    pub draws_d_prime: usize,
    /// For a threshold test: the audited value with scores compared exactly (no
    /// [`SCORE_TOLERANCE`]) when it differs from `audited`, i.e. when rounding noise
    /// in the scores moves the bound.
    pub exact_comparison: Option<f64>,
}

/// What the Rényi audit of exact log density ratios found ([`renyi_audit`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RenyiAudit {
    /// The lower confidence bound: the larger of the two directions' bounds.
    pub audited: f64,
    /// The point estimate in the direction of `audited`.
    pub estimate: f64,
    /// The normal interval of that direction (its lower end may be below `audited`
    /// when the tail bound is the larger).
    pub interval: (f64, f64),
    /// How the bound was found, for the report.
    pub method: String,
    /// The order of the pair the bound is on: "D ‖ D′" or "D′ ‖ D".
    pub direction: &'static str,
}

/// The distribution-free lower bound on D_α from the largest log ratio L_max of n
/// draws: for Y = e^{(α−1)L} ≥ 0, the population fraction at or above the sample
/// maximum is stochastically at least Beta(1, n) (order-statistic coverage, valid for
/// any distribution, ties included), so with probability ≥ `level` it is at least
/// q = 1 − level^{1/n}, and E\[Y\] ≥ q·e^{(α−1)L_max}:
/// D_α ≥ L_max + ln q / (α − 1). One extreme draw (a log ratio of 800 among 300)
/// moves the mean of Y far more than the normal interval of [`renyi_from_draws`] can
/// show; this bound sees it. +∞ when a draw has L = +∞.
pub fn renyi_tail_lower_bound(log_ratios: &[f64], alpha: f64, level: f64) -> f64 {
    let n = log_ratios.len();
    let l_max = log_ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if n == 0 || l_max == f64::NEG_INFINITY {
        return 0.0;
    }
    // ln q = ln(1 − level^{1/n}) = ln(−expm1(ln(level)/n)), accurate for large n
    let ln_q = (-(level.ln() / n as f64).exp_m1()).ln();
    (l_max + ln_q / (alpha - 1.0)).max(0.0)
}

/// The distribution-free lower bound on ε at δ from the largest exact log ratio
/// L_max of n draws from p (L = ln p(x)/p′(x)): the hockey stick
/// δ(ε) = E_p[(1 − e^{ε−L})₊] is at least P(L ≥ L_max)·(1 − e^{ε−L_max}), and
/// P(L ≥ L_max) ≥ q = 1 − level^{1/n} with probability ≥ `level` (the order-statistic
/// coverage of [`renyi_tail_lower_bound`]). So δ(ε) ≤ δ needs
/// ε ≥ L_max + ln(1 − δ/q); when δ ≥ q the draws say nothing (0). One draw with a
/// huge or infinite log ratio among a few hundred disproves a small δ.
pub fn hockey_stick_tail_lower_bound(log_ratios: &[f64], delta: f64, level: f64) -> f64 {
    let n = log_ratios.len();
    let l_max = log_ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if n == 0 || l_max == f64::NEG_INFINITY {
        return 0.0;
    }
    let q = -(level.ln() / n as f64).exp_m1();
    if delta >= q {
        return 0.0;
    }
    (l_max + (-delta / q).ln_1p()).max(0.0)
}

/// The Rényi audit of exact log density ratios L = ln p(x) − ln p′(x), at draws from
/// D (`on_d`) and from D′ (`on_d2`), of order `alpha` > 1 at joint `confidence`:
/// four one-sided lower bounds on D_α, each at error (1 − confidence)/4 so that all
/// four hold jointly at `confidence` (Bonferroni) — per direction (D‖D′ from `on_d`,
/// D′‖D from −`on_d2`) the normal interval's lower end ([`renyi_from_draws`]) and the
/// distribution-free tail bound ([`renyi_tail_lower_bound`]). The audited value is the
/// largest. A draw on D with L = +∞ (p′ vanishes where p does not), or on D′ with
/// L = −∞, makes that direction's divergence infinite: audited = ∞. The caller refuses
/// the impossible values (L = −∞ on D, +∞ on D′) and NaN.
pub fn renyi_audit(on_d: &[f64], on_d2: &[f64], alpha: f64, confidence: f64) -> RenyiAudit {
    let err = (1.0 - confidence) / 4.0;
    let two_sided = 1.0 - 2.0 * err;
    let back: Vec<f64> = on_d2.iter().map(|v| -v).collect();
    let mut best: Option<RenyiAudit> = None;
    for (draws, dir) in [(on_d, "D ‖ D′"), (&back[..], "D′ ‖ D")] {
        let found = if draws.contains(&f64::INFINITY) {
            RenyiAudit {
                audited: f64::INFINITY,
                estimate: f64::INFINITY,
                interval: (f64::INFINITY, f64::INFINITY),
                direction: dir,
                method: format!(
                    "Rényi divergence {dir} of order {alpha}: a draw has an infinite log ratio (one density vanishes where the other does not), so the divergence is infinite"
                ),
            }
        } else {
            let e = renyi_from_draws(draws, alpha, two_sided);
            let tail = renyi_tail_lower_bound(draws, alpha, 1.0 - err);
            let (audited, which) = if tail > e.lower {
                (tail, "the tail bound from the largest log ratio")
            } else {
                (e.lower, "the normal interval's lower end")
            };
            RenyiAudit {
                audited,
                estimate: e.estimate,
                interval: (e.lower, e.upper),
                direction: dir,
                method: format!(
                    "Rényi divergence {dir} of order {alpha} from the log ratios: {which} (normal interval [{:.4}, {:.4}], tail bound {tail:.4}; four bounds jointly at {confidence})",
                    e.lower, e.upper
                ),
            }
        };
        if best.as_ref().is_none_or(|b| found.audited > b.audited) {
            best = Some(found);
        }
    }
    best.expect("two directions")
}

/// Audits `claim` from scores of outputs drawn on D (`on_d`) and on D′ (`on_d2`),
/// exactly as the built-in statistical audits do: pure and (ε, δ) claims by the
/// threshold test chosen on the first half of each, Clopper–Pearson bounds on the
/// second ([`epsilon_lower_bound`]); RDP claims from the scores as exact log density
/// ratios ([`renyi_audit`]).
///
/// With `log_ratios` (the scores are exact ln p(x)/p′(x)) a pure claim also meets the
/// largest witnessed ratio: pure ε-DP needs |ln p/p′| ≤ ε almost everywhere, so one
/// draw on D with L > ε (or on D′ with −L > ε) disproves it with certainty, whatever
/// the sample size; the audited value is the larger of ε_lcb and that ratio (∞ for an
/// infinite one).
pub fn audit_scores(
    on_d: &[f64],
    on_d2: &[f64],
    claim: ScoreClaim,
    confidence: f64,
    log_ratios: bool,
) -> ScoreAudit {
    match claim {
        ScoreClaim::Rdp { order, .. } => {
            let r = renyi_audit(on_d, on_d2, order, confidence);
            ScoreAudit {
                audited: r.audited,
                estimate: r.estimate,
                method: r.method,
                direction: r.direction.to_string(),
                draws_d: on_d.len(),
                draws_d_prime: on_d2.len(),
                exact_comparison: None,
            }
        }
        ScoreClaim::Pure { .. } | ScoreClaim::Approx { .. } => {
            let delta = match claim {
                ScoreClaim::Approx { delta, .. } => delta,
                _ => 0.0,
            };
            // an (ε, δ) claim with exact log ratios also meets the hockey-stick tail
            // bound of each direction: half the error to the threshold test, a
            // quarter to each tail (Bonferroni)
            let tails = log_ratios && delta > 0.0;
            let test_level = if tails {
                1.0 - (1.0 - confidence) / 2.0
            } else {
                confidence
            };
            // exact log ratios point one way (high suggests D); a user's own score may
            // point either way, so both orientations are tested
            let orientation = if log_ratios {
                Orientation::HighSuggestsD
            } else {
                Orientation::Unknown
            };
            let b = epsilon_lower_bound(on_d, on_d2, delta, test_level, orientation);
            let raw =
                epsilon_lower_bound_at(on_d, on_d2, delta, test_level, 0.0, orientation).epsilon;
            let mut method = format!(
                "threshold test {}: held-out hits {}/{} vs {}/{}; the largest of {} threshold tests ({}), the error {:.4} split evenly between them (Bonferroni), Clopper–Pearson; scores equal within {SCORE_TOLERANCE:e} relative",
                b.test(),
                b.hits,
                b.n_d,
                b.false_hits,
                b.n_d2,
                b.tests,
                if b.tests == 4 {
                    "D ‖ D′ and D′ ‖ D, each with scores ≥ τ and ≤ τ, since the score's orientation is unknown"
                } else {
                    "D ‖ D′ with scores ≥ τ, D′ ‖ D with scores ≤ τ"
                },
                1.0 - test_level,
            );
            let mut audited = b.epsilon;
            let mut direction = b.test();
            let mut estimate = if b.estimate.is_finite() {
                b.estimate.max(0.0)
            } else {
                f64::INFINITY
            };
            if tails {
                let level = 1.0 - (1.0 - confidence) / 4.0;
                let back: Vec<f64> = on_d2.iter().map(|v| -v).collect();
                for (draws, dir) in [(on_d, "D ‖ D′"), (&back[..], "D′ ‖ D")] {
                    let tail = hockey_stick_tail_lower_bound(draws, delta, level);
                    if tail > audited {
                        audited = tail;
                        direction = format!("{dir}, the hockey-stick tail bound");
                        estimate = estimate.max(tail);
                        method = format!("the hockey-stick tail bound {dir} from the largest exact log ratio, {tail} (δ(ε) ≥ P(L ≥ L_max)(1 − e^(ε − L_max)); threshold test at {test_level}, each tail at {level}); {method}");
                    }
                }
            }
            if log_ratios && delta == 0.0 {
                let most = |v: &[f64], sign: f64| v.iter().map(|x| sign * x).fold(0.0, f64::max);
                let (fwd, back) = (most(on_d, 1.0), most(on_d2, -1.0));
                let seen = fwd.max(back);
                if seen > audited {
                    audited = seen;
                    direction = format!(
                        "{}, a draw's exact log ratio",
                        if fwd >= back {
                            "D ‖ D′"
                        } else {
                            "D′ ‖ D"
                        }
                    );
                    estimate = estimate.max(seen);
                    method = format!("a draw's exact log ratio is {seen} (pure ε-DP needs |ln p/p′| ≤ ε wherever either density is positive; {method})");
                }
            }
            ScoreAudit {
                audited,
                estimate,
                method,
                direction,
                draws_d: on_d.len(),
                draws_d_prime: on_d2.len(),
                exact_comparison: (raw != b.epsilon && audited == b.epsilon).then_some(raw),
            }
        }
    }
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
            epsilon_lower_bound(&on_d, &on_d2, 0.0, 0.95, Orientation::HighSuggestsD)
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

    /// Laplace noise draws of a count: `n` outputs of count + Lap(b).
    fn noisy_counts(seed: u64, count: f64, b: f64, n: usize) -> Vec<f64> {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
        (0..n).map(|_| laplace(&mut rng, count, b)).collect()
    }

    /// A DP claim bounds both orders of the pair, so a score that runs high on D′ is
    /// audited as hard as one that runs high on D: the noisy count itself as the score
    /// (D = 10, D′ = 11, b = 1, so the truth is ε = 1) fails a claim of ε = 0.01 and of
    /// ε = 0.5 and passes ε = 1, and reversing every score (the mirror image) fails and
    /// passes the same claims, from the mirrored test. Before both orientations were
    /// tried, the first setup passed ε = 0.01 with an audited ε of 0.
    #[test]
    fn a_score_pointing_either_way_is_audited_both_ways() {
        let on_d = noisy_counts(21, 10.0, 1.0, 4000);
        let on_d2 = noisy_counts(22, 11.0, 1.0, 4000);
        let mirror = |v: &[f64]| v.iter().map(|x| -x).collect::<Vec<_>>();
        // the noisy count runs low on D: the tests that see it are D ‖ D′ on low scores
        // and D′ ‖ D on high ones, the two a likelihood-ratio orientation never tries
        let low_on_d = ["D ‖ D′, scores ≤", "D′ ‖ D, scores ≥"];
        let high_on_d = ["D ‖ D′, scores ≥", "D′ ‖ D, scores ≤"];
        for (d, d2, want) in [
            (on_d.clone(), on_d2.clone(), low_on_d),
            (mirror(&on_d), mirror(&on_d2), high_on_d),
        ] {
            let a = |eps| audit_scores(&d, &d2, ScoreClaim::Pure { epsilon: eps }, 0.95, false);
            let r = a(0.01);
            assert!(r.audited > 0.5 && r.audited <= 1.0, "{r:?}");
            assert!(want.iter().any(|w| r.direction.starts_with(w)), "{r:?}");
            assert!(
                r.method.contains("4 threshold tests") && r.method.contains("Bonferroni"),
                "{}",
                r.method
            );
            assert!(a(0.5).audited > 0.5);
            assert!(a(1.0).audited <= 1.0);
        }
        // a likelihood-ratio score is known to point one way: two tests
        let b = epsilon_lower_bound(&on_d2, &on_d, 0.0, 0.95, Orientation::HighSuggestsD);
        assert_eq!(b.tests, 2);
        assert!(b.epsilon > 0.5 && b.epsilon <= 1.0, "{b:?}");
    }

    /// The error is split between the tests, so the largest bound still covers: over
    /// 400 audits of an exactly 1-DP mechanism (Laplace counts 0 vs 1, b = 1, 300
    /// draws each) at 80 % confidence with the orientation unknown, the audited ε
    /// exceeds the truth in at most 20 % (plus 3 binomial s.e.).
    #[test]
    fn the_split_error_covers_over_four_tests() {
        let (runs, n, c) = (400, 300, 0.8);
        let mut split = 0;
        for k in 0..runs {
            let on_d = noisy_counts(1000 + 2 * k, 1.0, 1.0, n);
            let on_d2 = noisy_counts(1001 + 2 * k, 0.0, 1.0, n);
            let b = epsilon_lower_bound(&on_d, &on_d2, 0.0, c, Orientation::Unknown);
            split += usize::from(b.epsilon > 1.0);
        }
        let allowed = (1.0 - c) * runs as f64 + 3.0 * ((1.0 - c) * c * runs as f64).sqrt();
        assert!(
            (split as f64) <= allowed,
            "{split} of {runs} above the truth"
        );
    }

    /// Rounding noise cannot make an event: the half-scale Laplace (exactly 2-DP) with
    /// the D draws' extreme scores 2.0 carried as 2.0000000000000004 (one ulp above, as
    /// a float log ratio gives) passes its exact ε = 2 with the tolerance, and fails it
    /// with exact float comparisons (the audit's behaviour before the tolerance).
    #[test]
    fn one_ulp_of_rounding_does_not_fail_an_exact_claim() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
        // ≤ 2000 distinct selection scores: every one is a candidate threshold
        let n = 4_000;
        // the plateau ε = 2 (x ≥ 1) written 2.0000000000000004 on D, 2.0 on D′
        let score = |x: f64, top: f64| {
            let s = (x.abs() - (x - 1.0).abs()) / 0.5;
            if s >= 2.0 - 1e-12 {
                top
            } else {
                s
            }
        };
        let up = 2.0f64.next_up();
        let on_d: Vec<f64> = (0..n)
            .map(|_| score(laplace(&mut rng, 1.0, 0.5), up))
            .collect();
        let on_d2: Vec<f64> = (0..n)
            .map(|_| score(laplace(&mut rng, 0.0, 0.5), 2.0))
            .collect();
        let unknown = Orientation::Unknown;
        let exact = epsilon_lower_bound_at(&on_d, &on_d2, 0.0, 0.95, 0.0, unknown);
        assert!(exact.epsilon > 2.5, "rounding made an event: {exact:?}");
        let grid = epsilon_lower_bound(&on_d, &on_d2, 0.0, 0.95, unknown);
        assert!(grid.epsilon <= 2.0 && grid.epsilon > 1.3, "{grid:?}");
        let a = audit_scores(
            &on_d,
            &on_d2,
            ScoreClaim::Pure { epsilon: 2.0 },
            0.95,
            false,
        );
        assert_eq!(a.audited, grid.epsilon);
        assert_eq!(a.exact_comparison, Some(exact.epsilon));
    }

    /// N(0, 1) vs N(μ, 1) by quadrature: Rényi α μ²/2 (closed form), the hockey stick
    /// against Balle–Wang's Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ), and the ε for a δ.
    #[test]
    fn discretised_divergences_match_the_gaussian_closed_forms() {
        use crate::numeric::quadrature::GaussLegendre;
        use statrs::distribution::Normal;
        let mu = 0.8;
        let rule = GaussLegendre::new(16);
        let mut pair = Discrete::default();
        let ln_n =
            |x: f64, m: f64| -0.5 * (x - m).powi(2) - 0.5 * (2.0 * std::f64::consts::PI).ln();
        for k in 0..400 {
            let lo = -20.0 + 0.1 * k as f64;
            for (x, w) in rule.mapped(lo, lo + 0.1) {
                pair.push(w, ln_n(x, 0.0), ln_n(x, mu));
            }
        }
        let (m1, m2) = pair.masses();
        assert!((m1 - 1.0).abs() < 1e-12 && (m2 - 1.0).abs() < 1e-12);
        for alpha in [1.5, 2.0, 7.0] {
            let want = alpha * mu * mu / 2.0;
            assert!(
                (pair.renyi(alpha) - want).abs() < 1e-10 * want,
                "α = {alpha}"
            );
        }
        let phi = |x: f64| Normal::standard().cdf(x);
        for eps in [0.0, 0.3, 1.0] {
            let want = phi(mu / 2.0 - eps / mu) - eps.exp() * phi(-mu / 2.0 - eps / mu);
            // the integrand has a kink where p = e^ε p′, inside a panel: O(10⁻⁷) here
            let got = pair.hockey_stick(eps);
            assert!((got - want).abs() < 1e-6, "ε = {eps}: {got} vs {want}");
        }
        let e = epsilon_for_delta(&pair, 1e-3);
        assert!((pair.hockey_stick(e) - 1e-3).abs() < 1e-9, "{e}");
        // from draws: the estimate's interval covers the truth at 10⁵ draws
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
        let draws: Vec<f64> = (0..100_000)
            .map(|_| {
                let x: f64 = rand_distr::StandardNormal.sample(&mut rng);
                ln_n(x, 0.0) - ln_n(x, mu)
            })
            .collect();
        let est = renyi_from_draws(&draws, 2.0, 0.95);
        assert!(est.lower <= mu * mu && mu * mu <= est.upper, "{est:?}");
        assert!(est.upper - est.lower < 0.05, "{est:?}");
    }

    /// The tail bound's formula against q computed by powf, and its coverage: over
    /// 2000 samples of 40 Gaussian-mechanism log ratios (D_2 = μ² = 1 exactly) the
    /// bound exceeds the truth in at most its error rate (it is conservative: 0 here).
    #[test]
    fn the_tail_bound_is_the_order_statistic_bound_and_covers() {
        let mut draws = vec![0.0; 299];
        draws.push(800.0);
        let level: f64 = 0.9875;
        let q = 1.0 - level.powf(1.0 / 300.0);
        let want = 800.0 + q.ln();
        assert!((renyi_tail_lower_bound(&draws, 2.0, level) - want).abs() < 1e-9);
        assert!(renyi_tail_lower_bound(&draws, 2.0, level) > 789.0);
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(11);
        let mut over = 0;
        for _ in 0..2000 {
            let l: Vec<f64> = (0..40)
                .map(|_| {
                    let z: f64 = rand_distr::StandardNormal.sample(&mut rng);
                    0.5 + z
                })
                .collect();
            if renyi_tail_lower_bound(&l, 2.0, 0.975) > 1.0 {
                over += 1;
            }
        }
        assert!(over <= 50, "{over} of 2000 above the truth");
    }

    /// One draw whose log ratio is +∞ on D (or −∞ on D′) makes the audited Rényi
    /// divergence infinite; one extreme finite ratio is seen by the tail bound where the
    /// normal interval's lower end is 0.
    #[test]
    fn infinite_and_extreme_log_ratios_fail_the_renyi_audit() {
        let base: Vec<f64> = (0..300).map(|i| ((i % 17) as f64 - 8.0) / 10.0).collect();
        let clean = renyi_audit(&base, &base, 2.0, 0.95);
        assert!(
            clean.audited.is_finite() && clean.audited < 1.0,
            "{clean:?}"
        );
        let mut d = base.clone();
        d[5] = f64::INFINITY;
        assert_eq!(renyi_audit(&d, &base, 2.0, 0.95).audited, f64::INFINITY);
        let mut d2 = base.clone();
        d2[9] = f64::NEG_INFINITY;
        assert_eq!(renyi_audit(&base, &d2, 2.0, 0.95).audited, f64::INFINITY);
        let mut d = base.clone();
        d[5] = 800.0;
        let r = renyi_audit(&d, &base, 2.0, 0.95);
        assert!(r.audited > 780.0, "{r:?}");
        assert!(r.method.contains("tail bound"), "{}", r.method);
        // an exact pure claim: a witnessed ratio above ε is a certain violation
        let a = audit_scores(&d, &base, ScoreClaim::Pure { epsilon: 4.0 }, 0.95, true);
        assert_eq!(a.audited, 800.0);
        let a = audit_scores(&d, &base, ScoreClaim::Pure { epsilon: 4.0 }, 0.95, false);
        assert!(a.audited < 4.0, "{a:?}");
    }

    /// An (ε, δ) claim with exact log ratios: one huge or infinite ratio among 25 draws
    /// on D disproves δ = 1e-6 (the fresh fuzz of 2026-11-29 found ratio 1e308 passing
    /// as ε = 0); the D′ direction reads −L; a large δ is not disproved by one draw.
    #[test]
    fn an_approximate_claim_meets_the_hockey_stick_tail() {
        let base: Vec<f64> = (0..25).map(|i| ((i % 5) as f64 - 2.0) / 10.0).collect();
        let approx = ScoreClaim::Approx {
            epsilon: 1.0,
            delta: 1e-6,
        };
        let clean = audit_scores(&base, &base, approx, 0.95, true);
        assert!(clean.audited < 1.0, "{clean:?}");
        for big in [1e308, f64::INFINITY, 800.0] {
            let mut d = base.clone();
            d[7] = big;
            let a = audit_scores(&d, &base, approx, 0.95, true);
            assert!(a.audited > 0.99 * big.min(1e300), "{big}: {a:?}");
            assert!(
                a.method.contains("hockey-stick tail bound D ‖ D′"),
                "{}",
                a.method
            );
            let a = audit_scores(
                &base,
                &d.iter().map(|v| -v).collect::<Vec<_>>(),
                approx,
                0.95,
                true,
            );
            assert!(a.method.contains("D′ ‖ D"), "{}", a.method);
        }
        let mut d = base.clone();
        d[7] = 800.0;
        let loose = ScoreClaim::Approx {
            epsilon: 1.0,
            delta: 0.1,
        };
        assert!(audit_scores(&d, &base, loose, 0.95, true).audited < 1.0);
    }

    /// The tail bound's coverage: draws of the Gaussian mechanism's privacy loss
    /// L ~ N(μ²/2, μ²) (μ = 1); the exact ε(δ) by Balle and Wang's formula
    /// δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ), inverted by bisection. Over 2,000
    /// samples of 200 draws the bound at level 0.975 exceeds it at most ~2.5 % of the time.
    #[test]
    fn the_hockey_stick_tail_bound_covers_the_gaussian_truth() {
        use statrs::distribution::{ContinuousCDF, Normal};
        let (mu, delta) = (1.0f64, 1e-5);
        let phi = |x: f64| Normal::standard().cdf(x);
        let d_of = |e: f64| phi(mu / 2.0 - e / mu) - e.exp() * phi(-mu / 2.0 - e / mu);
        let (mut lo, mut hi) = (0.0, 20.0);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if d_of(mid) > delta {
                lo = mid
            } else {
                hi = mid
            }
        }
        let truth = hi;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(29);
        let normal = rand_distr::Normal::new(mu * mu / 2.0, mu).unwrap();
        let mut over = 0;
        let mut informative = 0;
        for _ in 0..2000 {
            let l: Vec<f64> = (0..200).map(|_| normal.sample(&mut rng)).collect();
            let b = hockey_stick_tail_lower_bound(&l, delta, 0.975);
            if b > 0.0 {
                informative += 1;
            }
            if b > truth {
                over += 1;
            }
        }
        assert!(informative > 1000, "{informative}");
        assert!(over <= 65, "{over} of 2000 above ε(δ) = {truth}");
    }

    /// A point where one density vanishes and the other does not: pure ε = ∞.
    #[test]
    fn disjoint_support_is_infinite_pure_epsilon() {
        let mut pair = Discrete::default();
        pair.push(0.5, (1.0f64).ln(), f64::NEG_INFINITY);
        pair.push(0.5, (1.0f64).ln(), (2.0f64).ln());
        assert_eq!(pair.pure_epsilon(), f64::INFINITY);
        assert_eq!(epsilon_for_delta(&pair, 0.1), f64::INFINITY);
    }
}
