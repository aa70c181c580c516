//! The Gaussian mechanism under Rényi DP (Mironov 2017), used as the baseline of
//! geumlek2017 §5.1.

use serde::{Deserialize, Serialize};

/// Which RDP statement of the Gaussian mechanism calibrates σ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GaussianCalibration {
    /// As stated in geumlek2017 §5.1: (λ, λΔ²/σ²)-RDP. Twice the tight ε, so σ
    /// is larger than needed by a factor √2 (conservative, not wrong).
    Paper,
    /// Mironov 2017, Proposition 7: (λ, λΔ²/(2σ²))-RDP, which is exact.
    Tight,
}

crate::names::name_table!(GaussianCalibration {
    Paper => "paper",
    Tight => "tight",
});

impl GaussianCalibration {
    /// The factor f of the statement (λ, f·λΔ²/σ²): 1 as in the paper, ½ exact.
    pub fn rdp_factor(self) -> f64 {
        match self {
            Self::Paper => 1.0,
            Self::Tight => 0.5,
        }
    }

    /// The privacy event of Gaussian noise σ on a statistic of L2 sensitivity Δ,
    /// claimed under this statement.
    pub fn event(self, sigma: f64, sensitivity: f64) -> super::event::Event {
        super::event::Event::Gaussian {
            l2_sensitivity: sensitivity,
            sigma,
            rdp_scale: self.rdp_factor(),
        }
    }

    /// ε of order λ for noise σ on a statistic with L2 sensitivity Δ.
    pub fn rdp_epsilon(self, lambda: f64, sigma: f64, sensitivity: f64) -> f64 {
        let base = lambda * sensitivity * sensitivity / (sigma * sigma);
        match self {
            Self::Paper => base,
            Self::Tight => 0.5 * base,
        }
    }

    /// The σ at which the release is exactly (λ, ε)-RDP under this statement:
    /// paper σ² = λΔ²/ε, tight σ² = λΔ²/(2ε).
    pub fn sigma(
        self,
        lambda: f64,
        epsilon: f64,
        sensitivity: f64,
    ) -> Result<f64, super::PrivacyError> {
        super::check(
            "lambda",
            lambda,
            lambda > 1.0 && lambda.is_finite(),
            "a finite value > 1",
        )?;
        super::check_positive("epsilon", epsilon)?;
        super::check_positive("sensitivity", sensitivity)?;
        let var = lambda * sensitivity * sensitivity / epsilon;
        Ok(match self {
            Self::Paper => var.sqrt(),
            Self::Tight => (0.5 * var).sqrt(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::quadrature::GaussLegendre;

    #[test]
    fn sigma_and_epsilon_round_trip() {
        for cal in [GaussianCalibration::Paper, GaussianCalibration::Tight] {
            for &(lambda, eps) in &[(2.0, 0.1), (15.0, 3.0), (1.5, 1e-4)] {
                let sigma = cal.sigma(lambda, eps, 1.0).unwrap();
                let back = cal.rdp_epsilon(lambda, sigma, 1.0);
                assert!((back - eps).abs() < 1e-13 * eps);
            }
        }
        assert!(GaussianCalibration::Paper.sigma(1.0, 1.0, 1.0).is_err());
    }

    /// The tight statement equals the Rényi divergence of N(0,σ²) from N(Δ,σ²),
    /// computed here by quadrature of p^λ q^{1−λ}.
    #[test]
    fn tight_calibration_is_the_exact_gaussian_renyi_divergence() {
        let rule = GaussLegendre::new(40);
        for &(lambda, sigma) in &[(2.0, 1.0), (5.0, 2.5), (15.0, 4.0)] {
            let ln_pdf = |x: f64, mu: f64| {
                -0.5 * ((x - mu) / sigma).powi(2)
                    - (sigma * (2.0 * std::f64::consts::PI).sqrt()).ln()
            };
            let integral = rule.integrate_composite(-60.0 * sigma, 60.0 * sigma, 200, |x| {
                (lambda * ln_pdf(x, 0.0) + (1.0 - lambda) * ln_pdf(x, 1.0)).exp()
            });
            let numeric = integral.ln() / (lambda - 1.0);
            let closed = GaussianCalibration::Tight.rdp_epsilon(lambda, sigma, 1.0);
            assert!(
                (numeric - closed).abs() < 1e-10 * closed,
                "{numeric} vs {closed}"
            );
            assert_eq!(
                GaussianCalibration::Paper.rdp_epsilon(lambda, sigma, 1.0),
                2.0 * closed
            );
        }
    }
}
