//! The Dirichlet distribution (conjugate prior of the categorical), and the
//! Hellinger distance between two Dirichlets used by Bun et al.
//! (bun2018-smoothed-hellinger-bayesian-inference-poster).

use statrs::function::gamma::ln_gamma;

use super::{check, FamilyError};
use crate::numeric::ln_gamma_remainder;

/// Dirichlet(a₁, …, a_k), k ≥ 2, every aᵢ > 0 and finite.
#[derive(Debug, Clone, PartialEq)]
pub struct Dirichlet {
    alpha: Vec<f64>,
}

impl Dirichlet {
    pub fn new(alpha: Vec<f64>) -> Result<Self, FamilyError> {
        check(
            "k",
            alpha.len() as f64,
            alpha.len() >= 2,
            "at least 2 categories",
        )?;
        for &a in &alpha {
            check("alpha", a, a > 0.0 && a.is_finite(), "finite values > 0")?;
        }
        Ok(Self { alpha })
    }

    pub fn alpha(&self) -> &[f64] {
        &self.alpha
    }

    /// ln B(a) = Σ ln Γ(aᵢ) − ln Γ(Σ aᵢ), the multivariate Beta function.
    pub fn ln_beta(&self) -> f64 {
        self.alpha.iter().map(|&a| ln_gamma(a)).sum::<f64>() - ln_gamma(self.alpha.iter().sum())
    }
}

/// Which formula of ln B the Hellinger distance uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HellingerVariant {
    /// ln B(a) = Σ ln Γ(aᵢ) − ln Γ(Σ aᵢ).
    Correct,
    /// The authors' code: ln B(a) = Σ ln Γ(aᵢ) / ln(Σ aᵢ). For two Dirichlets
    /// with the same total S this scales ln BC by 1/ln S (about halving H at
    /// n = 100–600). Only to reproduce the poster's numbers.
    AsPublished,
}

crate::names::name_table!(HellingerVariant {
    Correct => "correct",
    AsPublished => "as_published",
});

/// ln of the Bhattacharyya coefficient ∫ √(p q) = B((a+b)/2) / √(B(a) B(b)),
/// computed from second-order ln Γ remainders so that it keeps its relative
/// precision when a ≈ b: with m = (a+b)/2, d = (b−a)/2,
/// `ln BC = −½ Σᵢ [φ(mᵢ, dᵢ) + φ(mᵢ, −dᵢ)] + ½ [φ(M, D) + φ(M, −D)]`, M = Σmᵢ, D = Σdᵢ.
pub fn ln_bhattacharyya(p: &Dirichlet, q: &Dirichlet) -> f64 {
    assert_eq!(
        p.alpha.len(),
        q.alpha.len(),
        "Dirichlets of different dimension"
    );
    let mut total = 0.0;
    let (mut big_m, mut big_d) = (0.0, 0.0);
    for (&a, &b) in p.alpha.iter().zip(&q.alpha) {
        let (m, d) = (0.5 * (a + b), 0.5 * (b - a));
        total -= 0.5 * (ln_gamma_remainder(m, d) + ln_gamma_remainder(m, -d));
        big_m += m;
        big_d += d;
    }
    total + 0.5 * (ln_gamma_remainder(big_m, big_d) + ln_gamma_remainder(big_m, -big_d))
}

/// Hellinger distance H = √(1 − BC) between two Dirichlets (H ∈ [0, 1]).
pub fn hellinger(p: &Dirichlet, q: &Dirichlet, variant: HellingerVariant) -> f64 {
    let ln_bc = match variant {
        HellingerVariant::Correct => ln_bhattacharyya(p, q),
        HellingerVariant::AsPublished => {
            let lb = |d: &Dirichlet| {
                d.alpha.iter().map(|&a| ln_gamma(a)).sum::<f64>() / d.alpha.iter().sum::<f64>().ln()
            };
            let mid = Dirichlet {
                alpha: p
                    .alpha
                    .iter()
                    .zip(&q.alpha)
                    .map(|(a, b)| 0.5 * (a + b))
                    .collect(),
            };
            lb(&mid) - 0.5 * (lb(p) + lb(q))
        }
    };
    hellinger_from_ln_bc(ln_bc)
}

/// H = √(1 − e^{ln BC}), accurate for BC near 1.
pub fn hellinger_from_ln_bc(ln_bc: f64) -> f64 {
    (-ln_bc.min(0.0).exp_m1()).max(0.0).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expfam::beta::BetaDist;
    use crate::numeric::quadrature::GaussLegendre;
    use crate::testutil::assert_rel;
    use statrs::function::beta::ln_beta;

    fn d(a: &[f64]) -> Dirichlet {
        Dirichlet::new(a.to_vec()).unwrap()
    }

    #[test]
    fn beta_case_matches_closed_form_and_quadrature() {
        for (a1, b1, a2, b2) in [
            (51.0, 51.0, 52.0, 50.0),
            (2.0, 3.0, 7.0, 1.5),
            (301.0, 301.0, 300.0, 302.0),
            (1.0, 101.0, 101.0, 1.0),
        ] {
            let h = hellinger(&d(&[a1, b1]), &d(&[a2, b2]), HellingerVariant::Correct);
            // closed form for Betas: H² = 1 − B((a1+a2)/2, (b1+b2)/2) / √(B(a1,b1) B(a2,b2))
            let closed = (1.0
                - (ln_beta(0.5 * (a1 + a2), 0.5 * (b1 + b2))
                    - 0.5 * (ln_beta(a1, b1) + ln_beta(a2, b2)))
                .exp())
            .sqrt();
            assert_rel(h, closed, 1e-9);
            // numeric integration of √(p q) on the logit scale
            let (p, q) = (
                BetaDist::new(a1, b1).unwrap(),
                BetaDist::new(a2, b2).unwrap(),
            );
            let bc = GaussLegendre::new(30).integrate_composite(-60.0, 60.0, 1200, |z| {
                let x = 1.0 / (1.0 + (-z).exp());
                (0.5 * (p.ln_pdf(x) + q.ln_pdf(x)) + x.ln() + (-x).ln_1p()).exp()
            });
            assert_rel(h, (1.0 - bc).sqrt(), 1e-7);
        }
    }

    #[test]
    fn properties() {
        let a = d(&[3.0, 4.0, 5.0]);
        assert_eq!(hellinger(&a, &a, HellingerVariant::Correct), 0.0);
        let b = d(&[4.0, 3.0, 5.0]);
        let h = hellinger(&a, &b, HellingerVariant::Correct);
        assert!(h > 0.0 && h < 1.0);
        assert_rel(h, hellinger(&b, &a, HellingerVariant::Correct), 1e-14);
        // ln B matches the textbook sum
        assert_rel(
            a.ln_beta(),
            ln_gamma(3.0) + ln_gamma(4.0) + ln_gamma(5.0) - ln_gamma(12.0),
            1e-14,
        );
        assert!(Dirichlet::new(vec![1.0]).is_err());
        assert!(Dirichlet::new(vec![1.0, 0.0]).is_err());
    }

    #[test]
    fn as_published_scales_ln_bc_by_one_over_ln_total() {
        let (p, q) = (d(&[51.0, 51.0]), d(&[52.0, 50.0]));
        let correct = ln_bhattacharyya(&p, &q);
        let published = hellinger(&p, &q, HellingerVariant::AsPublished);
        assert_rel(published, hellinger_from_ln_bc(correct / 102f64.ln()), 1e-9);
        // "roughly halves every reported distance"
        let ratio = published / hellinger(&p, &q, HellingerVariant::Correct);
        assert!(ratio > 0.4 && ratio < 0.6, "{ratio}");
    }
}
