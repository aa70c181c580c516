//! The Beta distribution as the conjugate prior of the Bernoulli, in the
//! natural parameterisation of geumlek2017 §3: η = (α, α + β), S(x) = x,
//! C(η) = ln Γ(η₁) + ln Γ(η₂ − η₁) − ln Γ(η₂) (the paper prints Γ for ln Γ).

use crate::numeric::ln_gamma_remainder;
use rand::Rng;
use rand_distr::Distribution;
use statrs::function::beta::ln_beta;

use super::FamilyError;

/// Beta(α, β) with α, β > 0 and finite. Validated on construction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BetaDist {
    alpha: f64,
    beta: f64,
}

impl BetaDist {
    pub fn new(alpha: f64, beta: f64) -> Result<Self, FamilyError> {
        let ok = |x: f64| x > 0.0 && x.is_finite();
        super::check("alpha", alpha, ok(alpha), "a finite value > 0")?;
        super::check("beta", beta, ok(beta), "a finite value > 0")?;
        Ok(Self { alpha, beta })
    }

    /// For parameters already known to be positive and finite (debug-checked).
    pub(crate) fn new_unchecked(alpha: f64, beta: f64) -> Self {
        debug_assert!(
            alpha > 0.0 && beta > 0.0 && alpha.is_finite() && beta.is_finite(),
            "Beta({alpha}, {beta})"
        );
        Self { alpha, beta }
    }

    /// From η = (α, α + β); `None` when η is not normalisable (not in E).
    pub fn from_natural(eta: [f64; 2]) -> Option<Self> {
        Self::new(eta[0], eta[1] - eta[0]).ok()
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }
    pub fn beta(&self) -> f64 {
        self.beta
    }
    pub fn natural(&self) -> [f64; 2] {
        [self.alpha, self.alpha + self.beta]
    }
    pub fn mean(&self) -> f64 {
        self.alpha / (self.alpha + self.beta)
    }

    /// ln of the density at θ ∈ [0, 1] (−∞ outside the support).
    pub fn ln_pdf(&self, theta: f64) -> f64 {
        if !(0.0..=1.0).contains(&theta) {
            return f64::NEG_INFINITY;
        }
        let a = (self.alpha - 1.0) * if self.alpha == 1.0 { 0.0 } else { theta.ln() };
        let b = (self.beta - 1.0)
            * if self.beta == 1.0 {
                0.0
            } else {
                (-theta).ln_1p()
            };
        a + b - ln_beta(self.alpha, self.beta)
    }

    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        // Parameters were validated, so construction cannot fail.
        match rand_distr::Beta::new(self.alpha, self.beta) {
            Ok(d) => d.sample(rng),
            Err(_) => f64::NAN,
        }
    }
}

/// Log-partition C(η) of the Beta in natural parameters (geumlek2017 §3,
/// Beta-Bernoulli system); `+∞` outside the normalisable set E.
#[cfg(test)]
pub fn log_partition(eta: [f64; 2]) -> f64 {
    match BetaDist::from_natural(eta) {
        Some(d) => ln_beta(d.alpha, d.beta),
        None => f64::INFINITY,
    }
}

/// `h(t) = C(η_P + t v) − C(η_P) − t ∇C(η_P)·v` for v = η_Q − η_P, expressed
/// through the ln Γ remainder φ so that it is a sum of accurate terms:
/// `h(t) = φ(α, t dα) + φ(β, t dβ) − φ(α + β, t (dα + dβ))`.
fn bregman_remainder(p: &BetaDist, q: &BetaDist, t: f64) -> f64 {
    let da = q.alpha - p.alpha;
    let db = q.beta - p.beta;
    let total = ln_gamma_remainder(p.alpha + p.beta, t * (da + db));
    ln_gamma_remainder(p.alpha, t * da) + ln_gamma_remainder(p.beta, t * db) - total
}

/// Rényi divergence of order λ > 1 between two Betas, geumlek2017 eq. (5):
/// `D_λ(P‖Q) = [C(λη_P + (1−λ)η_Q) − λ C(η_P)] / (λ − 1) + C(η_Q)`.
///
/// Evaluated in the algebraically equal form `h(1 − λ)/(λ − 1) + h(1)` (the
/// first-order terms of C cancel exactly), which keeps full relative precision
/// when the parameters are ~10⁶ and the divergence ~10⁻⁶. Returns `+∞` when
/// λη_P + (1−λ)η_Q is not normalisable, and the KL divergence for λ = 1.
pub fn renyi_divergence(p: &BetaDist, q: &BetaDist, lambda: f64) -> f64 {
    if lambda.is_nan() || lambda < 1.0 {
        return f64::NAN;
    }
    if lambda == 1.0 {
        return kl_divergence(p, q);
    }
    if lambda.is_infinite() {
        // Max divergence: finite only for identical Betas.
        return if p == q { 0.0 } else { f64::INFINITY };
    }
    let t = 1.0 - lambda;
    let mixed_alpha = p.alpha + t * (q.alpha - p.alpha);
    let mixed_beta = p.beta + t * (q.beta - p.beta);
    if mixed_alpha <= 0.0 || mixed_beta <= 0.0 {
        return f64::INFINITY;
    }
    let value = bregman_remainder(p, q, t) / (lambda - 1.0) + bregman_remainder(p, q, 1.0);
    value.max(0.0)
}

/// KL(P‖Q) between Betas in closed form: the λ → 1 limit of eq. (5),
/// `KL = C(η_Q) − C(η_P) − ∇C(η_P)·(η_Q − η_P) = h(1)`.
pub fn kl_divergence(p: &BetaDist, q: &BetaDist) -> f64 {
    bregman_remainder(p, q, 1.0).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::quadrature::GaussLegendre;
    use crate::testutil::{assert_rel, REL_CLOSED_FORM, REL_QUADRATURE, REL_REFERENCE};
    use statrs::function::gamma::{digamma, ln_gamma};

    fn b(a: f64, c: f64) -> BetaDist {
        BetaDist::new(a, c).unwrap()
    }

    /// ln ∫ p^λ q^{1−λ} dθ by composite Gauss–Legendre in θ, an independent
    /// second method for eq. (5).
    fn renyi_by_quadrature(p: &BetaDist, q: &BetaDist, lambda: f64) -> f64 {
        let rule = GaussLegendre::new(30);
        let lp = |x: f64| lambda * p.ln_pdf(x) + (1.0 - lambda) * q.ln_pdf(x);
        // Integrate on a logit scale to resolve the boundary behaviour.
        let integral = rule.integrate_composite(-120.0, 120.0, 2400, |z| {
            let x = 1.0 / (1.0 + (-z).exp());
            let jac = x * (1.0 - x);
            if jac == 0.0 {
                0.0
            } else {
                (lp(x) + jac.ln()).exp()
            }
        });
        integral.ln() / (lambda - 1.0)
    }

    /// 50-digit mpmath values (tests/reference/beta_renyi.py), including the
    /// concentrated-posterior regime with parameters ~10⁸ where the literal
    /// eq. (5) loses every digit.
    #[test]
    fn matches_mpmath_reference_values() {
        let text = include_str!("../../../../tests/reference/beta_renyi.csv");
        let mut checked = 0;
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("kind"))
        {
            let f: Vec<&str> = line.split(',').collect();
            let num = |i: usize| f[i].parse::<f64>().unwrap();
            let (p, q) = (b(num(1), num(2)), b(num(3), num(4)));
            let got = if f[0] == "kl" {
                kl_divergence(&p, &q)
            } else {
                renyi_divergence(&p, &q, num(5))
            };
            assert_rel(got, num(6), REL_REFERENCE);
            checked += 1;
        }
        assert_eq!(checked, 12);
    }

    #[test]
    fn log_partition_is_ln_beta_and_infinite_outside_e() {
        assert_rel(log_partition([6.0, 24.0]), ln_beta(6.0, 18.0), 1e-15);
        assert_eq!(log_partition([0.0, 24.0]), f64::INFINITY);
        assert_eq!(log_partition([6.0, 6.0]), f64::INFINITY);
    }

    #[test]
    fn renyi_closed_form_matches_quadrature() {
        let cases = [
            (b(6.0, 118.0), b(7.0, 117.0), 2.0),
            (b(6.0, 118.0), b(7.0, 117.0), 6.5),
            (b(106.0, 18.0), b(105.0, 19.0), 15.0),
            (b(2.5, 3.0), b(3.5, 2.0), 1.7),
        ];
        for (p, q, lambda) in cases {
            let closed = renyi_divergence(&p, &q, lambda);
            let numeric = renyi_by_quadrature(&p, &q, lambda);
            assert_rel(closed, numeric, REL_QUADRATURE);
        }
    }

    #[test]
    fn renyi_equals_the_literal_formula_when_cancellation_is_mild() {
        let c = |eta: [f64; 2]| log_partition(eta);
        let (p, q, lambda) = (b(6.0, 118.0), b(7.0, 117.0), 3.0);
        let (ep, eq) = (p.natural(), q.natural());
        let mixed = [
            lambda * ep[0] + (1.0 - lambda) * eq[0],
            lambda * ep[1] + (1.0 - lambda) * eq[1],
        ];
        let literal = (c(mixed) - lambda * c(ep)) / (lambda - 1.0) + c(eq);
        assert_rel(renyi_divergence(&p, &q, lambda), literal, 1e-10);
    }

    #[test]
    fn kl_matches_the_textbook_closed_form() {
        for (p, q) in [
            (b(44.0, 80.0), b(9.8, 24.2)),
            (b(2.0, 3.0), b(600000.0, 1800000.0)),
        ] {
            let (a1, b1, a2, b2) = (p.alpha, p.beta, q.alpha, q.beta);
            let textbook = ln_gamma(a2) + ln_gamma(b2)
                - ln_gamma(a2 + b2)
                - (ln_gamma(a1) + ln_gamma(b1) - ln_gamma(a1 + b1))
                + (a1 - a2) * digamma(a1)
                + (b1 - b2) * digamma(b1)
                + (a2 - a1 + b2 - b1) * digamma(a1 + b1);
            assert_rel(kl_divergence(&p, &q), textbook, 1e-9);
        }
    }

    #[test]
    fn renyi_properties() {
        let p = b(6.0, 118.0);
        let q = b(7.0, 117.0);
        // zero at identical inputs
        assert_eq!(renyi_divergence(&p, &p, 4.0), 0.0);
        // non-decreasing in the order, with the KL as the λ → 1 limit
        let mut last = kl_divergence(&p, &q);
        assert_rel(renyi_divergence(&p, &q, 1.0 + 1e-7), last, 1e-5);
        for k in 1..60 {
            let d = renyi_divergence(&p, &q, 1.0 + 0.1 * k as f64);
            assert!(d >= last * (1.0 - REL_CLOSED_FORM), "order {k}");
            last = d;
        }
        // not normalisable → +∞, never NaN: α_P − (λ−1) ≤ 0 at λ ≥ 7
        assert_eq!(renyi_divergence(&p, &q, 7.0), f64::INFINITY);
        assert_eq!(renyi_divergence(&p, &q, 9.0), f64::INFINITY);
        assert!(renyi_divergence(&p, &q, 6.999).is_finite());
    }
}
