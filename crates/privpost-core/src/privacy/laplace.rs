//! The Laplace mechanism (Dwork et al. 2006; Foulds et al. 2016, eq. 3 and 16).

use rand::{Rng, RngExt};

/// Laplace(0, b) noise, sampled by inversion. Validated on construction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Laplace {
    sensitivity: f64,
    scale: f64,
}

impl Laplace {
    /// Noise for an ε-DP release of a statistic with L1 sensitivity `sensitivity`:
    /// scale b = Δ/ε (foulds2016, eq. 3).
    pub fn for_privacy(sensitivity: f64, epsilon: f64) -> Result<Self, super::PrivacyError> {
        super::check_positive("sensitivity", sensitivity)?;
        super::check_positive("epsilon", epsilon)?;
        Ok(Self {
            sensitivity,
            scale: sensitivity / epsilon,
        })
    }

    /// Noise of a given scale b on a statistic of L1 sensitivity (or a bound
    /// of it) Δ, whatever Δ′ the scale was computed with: its [`Self::event`]
    /// reports ε = Δ/b from the Δ given here.
    pub fn with_scale(sensitivity: f64, scale: f64) -> Result<Self, super::PrivacyError> {
        super::check_positive("sensitivity", sensitivity)?;
        super::check_positive("scale", scale)?;
        Ok(Self { sensitivity, scale })
    }

    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The privacy event of one release with this noise.
    pub fn event(&self) -> super::event::Event {
        super::event::Event::Laplace {
            l1_sensitivity: self.sensitivity,
            scale: self.scale,
        }
    }

    /// One draw: x = −b·sgn(u)·ln(1 − 2|u|), u ~ U(−½, ½).
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        self.noise_at(rng.random::<f64>())
    }

    /// The noise [`Self::sample`] returns when its uniform draw is `v` ∈ [0, 1)
    /// (a multiple of 2⁻⁵³): the floating-point arithmetic the float-attack
    /// audit ([`super::float_attack`]) inverts.
    pub fn noise_at(&self, v: f64) -> f64 {
        let u = v - 0.5;
        -self.scale * u.signum() * (-2.0 * u.abs()).ln_1p()
    }

    /// P(X ≤ x).
    pub fn cdf(&self, x: f64) -> f64 {
        if x < 0.0 {
            0.5 * (x / self.scale).exp()
        } else {
            1.0 - 0.5 * (-x / self.scale).exp()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::ks_statistic;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn samples_follow_the_laplace_cdf() {
        let lap = Laplace::for_privacy(2.0, 0.5).unwrap();
        assert_eq!(lap.scale(), 4.0);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let draws: Vec<f64> = (0..20_000).map(|_| lap.sample(&mut rng)).collect();
        let d = ks_statistic(&draws, |x| lap.cdf(x));
        // 1.63/√n is the 1% critical value of the KS statistic.
        assert!(d < 1.63 / (20_000f64).sqrt(), "KS D = {d}");
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(Laplace::for_privacy(2.0, 0.0).is_err());
        assert!(Laplace::for_privacy(-1.0, 1.0).is_err());
        assert!(Laplace::for_privacy(1.0, f64::NAN).is_err());
    }
}
