//! The Laplace mechanism's exact Rényi-DP curve and the tight (ε, δ) of compositions
//! of Laplace and Gaussian mechanisms by their privacy-loss distribution.
//!
//! **RDP** (Mironov 2017, "Rényi differential privacy", Proposition 6 and Table II):
//! Laplace noise of scale b on a statistic of sensitivity Δ, with ε = Δ/b, is
//! (α, r(α))-RDP with
//! r(α) = 1/(α − 1) · ln( α/(2α − 1) · e^{(α−1)ε} + (α − 1)/(2α − 1) · e^{−αε} ),
//! r(1) = ε + e^{−ε} − 1 (the KL divergence) and r(∞) = ε. It is attained by the
//! shift Δ; for a vector statistic of L1 sensitivity Δ the Rényi divergence is the sum
//! of the coordinates' r(α, |vᵢ|/b), at most r(α, Σ|vᵢ|/b) because r is superadditive in
//! ε (tested), so the 1-d pair with the whole shift dominates.
//!
//! **PLD.** For X ~ P = Lap(0, b) against Q = Lap(Δ, b), the privacy loss
//! L = ln p(X)/q(X) = (|X − Δ| − |X|)/b takes ε with probability ½ (X ≤ 0), −ε with
//! probability ½e^{−ε} (X ≥ Δ), and in between P(L < l) = ½e^{−(ε−l)/2}. The pair is
//! symmetric (Q against P has the same loss law), and the loss of a composition is
//! the sum of independent losses, so δ(ε) = E[(1 − e^{ε − L_lap − Y})₊] with Y the
//! Gaussian part's loss ~ N(μ, 2μ), μ = Σ Δⱼ²/(2σⱼ²) (Balle & Wang 2018; Sommer et al.
//! 2019). Given L_lap = l the expectation over Y is the Gaussian closed form
//! [`super::gaussian_pld::delta`]`(ε − l, μ)`, nondecreasing in l.
//!
//! **The computation** is pessimistic: each Laplace loss is rounded *up* onto a grid
//! of width h (the mass of ((k−1)h, kh] put on kh, in closed form from the CDF
//! above), the rounded laws are convolved exactly (direct sums), and δ(ε) is the sum
//! over the composed grid of pmf × Gaussian closed form. Rounding up can only raise
//! δ(ε) (the integrand is nondecreasing in each loss), and it moves the total loss by
//! less than N·h for N Laplace releases; with h = η/N the reported ε lies in
//! [ε_exact, ε_exact + η]. The masses' own floating-point error (relative ≈ 10⁻¹⁵) is
//! not bounded rigorously.

use super::gaussian_pld;

/// Mironov's Proposition 6: the order-`alpha` RDP of the Laplace mechanism with
/// pure ε = Δ/b (module docs). `alpha` ≥ 1; +∞ gives ε.
pub fn laplace_rdp(epsilon: f64, alpha: f64) -> f64 {
    if epsilon == 0.0 {
        return 0.0;
    }
    if !epsilon.is_finite() {
        return f64::INFINITY;
    }
    if alpha == 1.0 {
        return epsilon + (-epsilon).exp_m1();
    }
    if alpha == f64::INFINITY {
        return epsilon;
    }
    let a = alpha;
    let t1 = (a / (2.0 * a - 1.0)).ln() + (a - 1.0) * epsilon;
    let t2 = ((a - 1.0) / (2.0 * a - 1.0)).ln() - a * epsilon;
    let (hi, lo) = if t1 >= t2 { (t1, t2) } else { (t2, t1) };
    let r = (hi + (lo - hi).exp().ln_1p()) / (a - 1.0);
    // rounding can leave r a hair above its supremum ε or below 0
    r.clamp(0.0, epsilon)
}

/// Largest number of multiply–adds the convolution may take before the PLD answer is
/// declined (≈ a second on one core).
const BUDGET: f64 = 1e9;

/// The rounded-up loss law of one Laplace release of pure ε on a grid of width h:
/// (index of the first grid point, masses of k·h for consecutive k).
fn rounded_laplace(epsilon: f64, h: f64) -> (i64, Vec<f64>) {
    // P(L ≤ l) for the loss of module docs
    let cdf = |l: f64| -> f64 {
        if l < -epsilon {
            0.0
        } else if l >= epsilon {
            1.0
        } else {
            0.5 * (-(epsilon - l) / 2.0).exp()
        }
    };
    let lo = (-epsilon / h).ceil() as i64;
    let hi = (epsilon / h).ceil() as i64;
    let masses = (lo..=hi)
        .map(|k| {
            let (a, b) = ((k - 1) as f64 * h, k as f64 * h);
            let (fa, fb) = (cdf(a), cdf(b));
            if a >= -epsilon && b < epsilon {
                // both in the continuous part: F(b) − F(a) = F(a)(e^{(b−a)/2} − 1)
                fa * ((b - a) / 2.0).exp_m1()
            } else {
                (fb - fa).max(0.0)
            }
        })
        .collect();
    (lo, masses)
}

fn convolve(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; a.len() + b.len() - 1];
    for (i, &x) in a.iter().enumerate() {
        if x == 0.0 {
            continue;
        }
        for (o, &y) in out[i..].iter_mut().zip(b) {
            *o += x * y;
        }
    }
    out
}

/// The composed, rounded-up Laplace loss: (first index, pmf, grid width).
#[derive(Debug, Clone)]
pub(crate) struct Composed {
    pub(crate) lo: i64,
    pub(crate) pmf: Vec<f64>,
    pub(crate) h: f64,
}

impl Composed {
    /// δ(ε) of the composition with a Gaussian part of total μ (an upper bound).
    pub(crate) fn delta(&self, epsilon: f64, mu: f64) -> f64 {
        let mut d = 0.0;
        for (j, &p) in self.pmf.iter().enumerate() {
            if p > 0.0 {
                let l = (self.lo + j as i64) as f64 * self.h;
                d += p * gaussian_pld::delta(epsilon - l, mu);
            }
        }
        d.min(1.0)
    }
}

/// Why a PLD answer is not given.
#[derive(Debug, Clone, PartialEq)]
pub enum Declined {
    /// A release without noise or with a non-finite ε.
    NotFinite,
    /// The grid the slack needs is too fine for the budget.
    TooLarge { multiply_adds: f64 },
}

impl std::fmt::Display for Declined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Declined::NotFinite => write!(f, "a part has no finite ε"),
            Declined::TooLarge { multiply_adds } => write!(
                f,
                "the grid this slack needs takes ≈ {multiply_adds:.1e} multiply–adds (the budget is {BUDGET:.0e}): raise --pld-slack, or use the RDP answers"
            ),
        }
    }
}

/// The composed, rounded-up loss of the Laplace releases (pure ε of each, with its
/// number of repetitions) on the finest grid h = η/(N·m), m ∈ {16, 4, 1}, whose
/// convolution fits the budget: total loss rounded up by less than `slack`. `None`
/// when there is no Laplace release with ε > 0 (the Gaussian part alone).
pub(crate) fn grid(laplace: &[(f64, u64)], slack: f64) -> Result<Option<Composed>, Declined> {
    if laplace.iter().any(|&(e, _)| !(e.is_finite() && e >= 0.0)) {
        return Err(Declined::NotFinite);
    }
    let parts: Vec<(f64, u64)> = laplace
        .iter()
        .copied()
        .filter(|&(e, t)| e > 0.0 && t > 0)
        .collect();
    let n: f64 = parts.iter().map(|&(_, t)| t as f64).sum();
    if n == 0.0 {
        return Ok(None);
    }
    // the finest grid (h = η/(N·m), m ≤ 16) whose convolution fits the budget
    let cost = |h: f64| {
        let (mut width, mut total) = (1.0, 0.0);
        for &(e, t) in &parts {
            let w = 2.0 * e / h + 2.0;
            for _ in 0..t.min(1_000_000) {
                total += width * w;
                width += w - 1.0;
            }
            if t > 1_000_000 {
                return f64::INFINITY;
            }
        }
        total
    };
    let h = [16.0, 4.0, 1.0]
        .into_iter()
        .map(|m| slack / (n * m))
        .find(|&h| cost(h) <= BUDGET)
        .ok_or(Declined::TooLarge {
            multiply_adds: cost(slack / n),
        })?;
    let mut composed = Composed {
        lo: 0,
        pmf: vec![1.0],
        h,
    };
    for &(e, t) in &parts {
        let (lo, part) = rounded_laplace(e, h);
        for _ in 0..t {
            composed.pmf = convolve(&composed.pmf, &part);
            composed.lo += lo;
        }
    }
    Ok(Some(composed))
}

/// The tight ε at `delta` of a composition of Laplace releases (pure ε of each, with
/// its number of repetitions) and Gaussian releases of total μ = Σ Δ²/(2σ²): an upper
/// bound, above the exact value by at most `slack` (module docs).
pub fn epsilon(laplace: &[(f64, u64)], mu: f64, delta: f64, slack: f64) -> Result<f64, Declined> {
    if mu.is_nan() {
        return Err(Declined::NotFinite);
    }
    let Some(composed) = grid(laplace, slack)? else {
        return Ok(gaussian_pld::epsilon(delta, mu));
    };
    let h = composed.h;
    // the smallest ε ≥ 0 with δ(ε) ≤ target, by bisection (δ decreases in ε), rounded up
    if composed.delta(0.0, mu) <= delta {
        return Ok(0.0);
    }
    let top = (composed.lo + composed.pmf.len() as i64) as f64 * h;
    let mut hi = top.max(0.0) + gaussian_pld::epsilon(delta / 2.0, mu).max(h) + 1.0;
    while composed.delta(hi, mu) > delta {
        hi *= 2.0;
        if !hi.is_finite() {
            return Ok(f64::INFINITY);
        }
    }
    let mut lo = 0.0;
    while hi - lo > 1e-12 * hi.max(1.0) {
        let mid = 0.5 * (lo + hi);
        if composed.delta(mid, mu) <= delta {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::quadrature::GaussLegendre;

    /// r(α) against the Rényi divergence of Lap(0, 1) and Lap(ε, 1) by quadrature,
    /// (1/(α − 1)) ln ∫ p^α q^{1−α}, on [−60, 60 + ε] split at the kinks 0 and ε.
    #[test]
    fn laplace_rdp_matches_quadrature() {
        let gl = GaussLegendre::new(32);
        for &eps in &[0.01f64, 0.1, 0.5, 1.0, 3.0] {
            for &alpha in &[1.25f64, 1.5, 2.0, 3.5, 10.0, 64.0] {
                let ln_p = |x: f64| -x.abs() - 2f64.ln();
                let ln_q = |x: f64| -(x - eps).abs() - 2f64.ln();
                // ∫ p^α q^{1−α} − 1 = ∫ p (e^{(1−α)(ln q − ln p)} − 1), summed as such so
                // that small divergences keep their digits
                let mut excess = 0.0;
                for (a, b) in [(-60.0, 0.0), (0.0, eps), (eps, 60.0 + eps)] {
                    let cells = 600;
                    let w = (b - a) / cells as f64;
                    for c in 0..cells {
                        for (x, wt) in gl.mapped(a + c as f64 * w, a + (c + 1) as f64 * w) {
                            excess +=
                                wt * ln_p(x).exp() * ((1.0 - alpha) * (ln_q(x) - ln_p(x))).exp_m1();
                        }
                    }
                }
                let quad = excess.ln_1p() / (alpha - 1.0);
                let ours = laplace_rdp(eps, alpha);
                assert!(
                    (ours - quad).abs() <= 1e-9 * quad.max(1e-12),
                    "ε = {eps}, α = {alpha}: {ours} vs {quad}"
                );
                assert!(ours <= eps && ours >= 0.0);
            }
        }
        // the limits: KL at α = 1, ε at α = ∞, continuous near both
        let e = 0.7f64;
        assert!((laplace_rdp(e, 1.0) - laplace_rdp(e, 1.0 + 1e-7)).abs() < 1e-6);
        assert!((laplace_rdp(e, 1e9) - e).abs() < 1e-6);
        assert_eq!(laplace_rdp(e, f64::INFINITY), e);
    }

    /// r is superadditive in ε at every order: a vector statistic's L1 shift split over
    /// coordinates gives no more than the whole shift on one (module docs).
    #[test]
    fn laplace_rdp_is_superadditive() {
        for &alpha in &[1.25f64, 2.0, 8.0, 100.0, 1024.0] {
            for i in 1..40 {
                for j in 1..40 {
                    let (a, b) = (0.05 * i as f64, 0.05 * j as f64);
                    let (ra, rb, rab) = (
                        laplace_rdp(a, alpha),
                        laplace_rdp(b, alpha),
                        laplace_rdp(a + b, alpha),
                    );
                    assert!(ra + rb <= rab * (1.0 + 1e-12), "α {alpha}: {a}, {b}");
                }
            }
        }
    }

    /// One Laplace release of pure ε₀ alone: δ(ε) = 1 − e^{−(ε₀−ε)/2} below ε₀ (the
    /// hockey stick of two shifted Laplace laws), so ε(δ) = ε₀ + 2 ln(1 − δ); the PLD
    /// answer lies within [exact, exact + η].
    #[test]
    fn one_laplace_matches_its_hockey_stick() {
        for &(e0, target) in &[(1.0f64, 1e-5f64), (0.1, 1e-3), (2.0, 0.1), (0.5, 0.3)] {
            let exact = (e0 + 2.0 * (1.0 - target).ln()).max(0.0);
            let ours = epsilon(&[(e0, 1)], 0.0, target, 0.005).unwrap();
            assert!(
                ours >= exact - 1e-9 && ours <= exact + 0.005,
                "{e0} {target}: {ours} vs {exact}"
            );
        }
    }

    /// Laplace composed with Gaussians against a direct evaluation of the hockey stick:
    /// E over the exact Laplace loss (its atoms and Gauss–Legendre over its continuous
    /// part) of the Gaussian closed form; the PLD answer brackets the exact ε from above
    /// within η; Gaussians alone give the closed form.
    #[test]
    fn laplace_plus_gaussian_against_quadrature() {
        let (e0, mu, target, slack) = (0.1, 10.0 / (2.0 * 25.0), 1e-5, 0.005);
        let exact_delta = |eps: f64| {
            let gl = GaussLegendre::new(32);
            let mut d = 0.5 * gaussian_pld::delta(eps - e0, mu)
                + 0.5 * (-e0).exp() * gaussian_pld::delta(eps + e0, mu);
            // continuous part: X ∈ (0, Δ) with density ½e^{−x} (b = 1, Δ = ε₀), L = ε₀ − 2x
            for (x, w) in gl.mapped(0.0, e0) {
                d += w * 0.5 * (-x).exp() * gaussian_pld::delta(eps - (e0 - 2.0 * x), mu);
            }
            d
        };
        let (mut lo, mut hi) = (0.0, 20.0);
        for _ in 0..200 {
            let m = 0.5 * (lo + hi);
            if exact_delta(m) <= target {
                hi = m
            } else {
                lo = m
            }
        }
        let ours = epsilon(&[(e0, 1)], mu, target, slack).unwrap();
        assert!(
            ours >= hi - 1e-9 && ours <= hi + slack,
            "{ours} vs exact {hi}"
        );
        assert_eq!(
            epsilon(&[], mu, target, slack).unwrap(),
            gaussian_pld::epsilon(target, mu)
        );
    }

    /// Two Laplace releases of ε₁ and ε₂ are dominated by one of ε₁ + ε₂ (what taking
    /// a vector statistic's whole L1 shift on one coordinate assumes), at every ε
    /// of a grid: δ_product(ε) ≤ δ_single(ε).
    #[test]
    fn split_laplace_is_dominated_by_the_whole_shift() {
        let h = 1e-4;
        for &(a, b) in &[(0.3f64, 0.7f64), (0.5, 0.5), (0.05, 1.5)] {
            let mk = |parts: &[f64]| {
                let mut c = Composed {
                    lo: 0,
                    pmf: vec![1.0],
                    h,
                };
                for &e in parts {
                    let (lo, p) = rounded_laplace(e, h);
                    c.pmf = convolve(&c.pmf, &p);
                    c.lo += lo;
                }
                c
            };
            let (two, one) = (mk(&[a, b]), mk(&[a + b]));
            for k in 0..40 {
                let eps = 0.025 * k as f64;
                let (dt, d1) = (two.delta(eps, 0.0), one.delta(eps, 0.0));
                // the rounding moves each by < 2h in ε: compare with that allowance
                assert!(
                    dt <= one.delta(eps - 2.0 * h, 0.0),
                    "{a}+{b} at ε {eps}: {dt} > {d1}"
                );
            }
        }
    }
}
