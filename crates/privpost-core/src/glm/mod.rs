//! Bayesian logistic regression with a Gaussian prior (Geumlek et al. 2017 §4,
//! Minami et al. 2016 §3.3): the tempered posterior
//!
//! p(w | D) ∝ exp(−(nβ/2)‖w‖²) · Πᵢ σ(yᵢ xᵢᵀw)^ρ, restricted to ‖w‖ ≤ R when truncated,
//!
//! (Geumlek eq. 6 with the likelihood raised to ρ as in Alg. 5; Minami eq. 12 with
//! ρ = β_Minami; OPS with the prior truncated to the ball of radius R = c/β₀), its
//! mode and Hessian, and the privacy calibrations in [`calibrate`].

pub mod calibrate;

use nalgebra::{Cholesky, DMatrix, DVector, Dyn};

use crate::numeric::cholesky::cholesky;

/// ln σ(t) = −ln(1 + e^{−t}), accurate for all t.
pub fn log_sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        -(-t).exp().ln_1p()
    } else {
        t - t.exp().ln_1p()
    }
}

/// σ(t) = 1/(1 + e^{−t}) without overflow.
pub fn sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        1.0 / (1.0 + (-t).exp())
    } else {
        let e = t.exp();
        e / (1.0 + e)
    }
}

/// A tempered, possibly truncated logistic-regression posterior.
#[derive(Debug, Clone, Copy)]
pub struct Posterior<'a> {
    /// n × d design, rows ‖xᵢ‖ ≤ c
    pub x: &'a DMatrix<f64>,
    /// labels ±1
    pub y: &'a DVector<f64>,
    /// likelihood exponent ρ ∈ (0, 1]
    pub rho: f64,
    /// prior precision nβ
    pub precision: f64,
    /// support radius of the truncated prior (OPS), if any
    pub radius: Option<f64>,
}

/// Newton's method for the posterior mode did not converge (the message says how far it got).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct NewtonError(pub String);

impl Posterior<'_> {
    pub fn n(&self) -> usize {
        self.x.nrows()
    }

    pub fn dim(&self) -> usize {
        self.x.ncols()
    }

    /// Margins yᵢ xᵢᵀw.
    pub fn margins(&self, w: &DVector<f64>) -> DVector<f64> {
        (self.x * w).component_mul(self.y)
    }

    pub fn inside(&self, w: &DVector<f64>) -> bool {
        self.radius.is_none_or(|r| w.norm() <= r)
    }

    /// Unnormalised log density; −∞ outside the support.
    pub fn log_density(&self, w: &DVector<f64>) -> f64 {
        if !self.inside(w) {
            return f64::NEG_INFINITY;
        }
        let lik: f64 = self.margins(w).iter().map(|&t| log_sigmoid(t)).sum();
        self.rho * lik - 0.5 * self.precision * w.norm_squared()
    }

    /// ∇ log density (of the untruncated density).
    pub fn gradient(&self, w: &DVector<f64>) -> DVector<f64> {
        let g = self.margins(w).map(|t| sigmoid(-t)).component_mul(self.y);
        self.x.tr_mul(&g) * self.rho - w * self.precision
    }

    /// −∇² log density = ρ Σᵢ σ(tᵢ)σ(−tᵢ) xᵢxᵢᵀ + nβ I (positive definite).
    pub fn hessian(&self, w: &DVector<f64>) -> DMatrix<f64> {
        let t = self.margins(w);
        let mut scaled = self.x.clone();
        for (i, mut row) in scaled.row_iter_mut().enumerate() {
            row *= (self.rho * sigmoid(t[i]) * sigmoid(-t[i])).sqrt();
        }
        let mut h = crate::numeric::gemm::product_tn(&scaled, &scaled, 1.0);
        for j in 0..h.ncols() {
            h[(j, j)] += self.precision;
        }
        h
    }

    /// Mode of the untruncated density by damped Newton steps (the density is
    /// strongly log-concave, so the mode is unique), with its Hessian's Cholesky factor.
    pub fn mode(&self) -> Result<(DVector<f64>, Cholesky<f64, Dyn>), NewtonError> {
        self.newton().map(|(w, chol, _)| (w, chol))
    }

    /// [`Posterior::mode`] and the number of log-density evaluations it took.
    ///
    /// Stops when the Newton decrement λ² = gᵀH⁻¹g (twice the gain still to come,
    /// near the mode) falls below 10⁻²⁰(1 + |f|), or when the full Newton step fails
    /// the sufficient-increase test while λ² < 10⁻¹²(1 + |f|): the gain left is then
    /// below the rounding noise of f (a sum of n terms), so no step can be verified
    /// and w is the mode to within λ ≤ 10⁻⁶·√(1 + |f|) in the Hessian's norm. Without
    /// that second test such posteriors ran all 100 iterations, each with a Hessian
    /// and ~30 halvings of a step f could not tell from zero.
    fn newton(&self) -> Result<NewtonResult, NewtonError> {
        let mut w = DVector::zeros(self.dim());
        let untruncated = Posterior {
            radius: None,
            ..*self
        };
        let mut f = untruncated.log_density(&w);
        let mut evaluations = 1;
        for _ in 0..100 {
            let g = untruncated.gradient(&w);
            let chol = cholesky(untruncated.hessian(&w))
                .ok_or_else(|| NewtonError("Hessian is not positive definite".into()))?;
            let step = chol.solve(&g);
            let decrement = g.dot(&step);
            if decrement < 1e-20 * (1.0 + f.abs()) {
                return Ok((w, chol, evaluations));
            }
            let mut scale = 1.0;
            loop {
                let trial = &w + &step * scale;
                let ft = untruncated.log_density(&trial);
                evaluations += 1;
                let enough = ft >= f + 0.25 * scale * decrement;
                if scale == 1.0 && !enough && decrement < 1e-12 * (1.0 + f.abs()) {
                    return Ok((w, chol, evaluations));
                }
                if enough || scale < 1e-12 {
                    w = trial;
                    f = ft;
                    break;
                }
                scale *= 0.5;
            }
        }
        let chol = cholesky(untruncated.hessian(&w))
            .ok_or_else(|| NewtonError("Hessian is not positive definite".into()))?;
        Ok((w, chol, evaluations))
    }
}

/// The mode, its Hessian's Cholesky factor, and the log-density evaluations taken.
type NewtonResult = (DVector<f64>, Cholesky<f64, Dyn>, usize);

/// Fraction of examples whose label differs from sign(xᵢᵀw) (a tie counts as an error).
pub fn test_error(x: &DMatrix<f64>, y: &DVector<f64>, w: &DVector<f64>) -> f64 {
    test_scores(x, y, w).0
}

/// Mean held-out log-likelihood (1/m) Σ ln σ(yᵢ xᵢᵀw).
pub fn test_loglik(x: &DMatrix<f64>, y: &DVector<f64>, w: &DVector<f64>) -> f64 {
    test_scores(x, y, w).1
}

/// ([`test_error`], [`test_loglik`]) from one product Xw: the margins both read.
pub fn test_scores(x: &DMatrix<f64>, y: &DVector<f64>, w: &DVector<f64>) -> (f64, f64) {
    let m = (x * w).component_mul(y);
    let len = m.len() as f64;
    (
        m.iter().filter(|&&t| t <= 0.0).count() as f64 / len,
        m.iter().map(|&t| log_sigmoid(t)).sum::<f64>() / len,
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_distr::{Distribution, StandardNormal};

    /// A small synthetic task: rows on the unit sphere, labels from a fixed w*.
    pub fn synthetic(n: usize, d: usize, seed: u64) -> (DMatrix<f64>, DVector<f64>) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut x = DMatrix::from_fn(n, d, |_, _| StandardNormal.sample(&mut rng));
        for mut row in x.row_iter_mut() {
            let norm = row.norm();
            row /= norm;
        }
        let truth = DVector::from_fn(d, |j, _| 3.0 * (j as f64 + 1.0) / d as f64 - 1.0);
        let y = DVector::from_fn(n, |i, _| {
            let p = sigmoid(4.0 * x.row(i).dot(&truth.transpose()));
            let u: f64 = rand::RngExt::random(&mut rng);
            if u < p {
                1.0
            } else {
                -1.0
            }
        });
        (x, y)
    }

    #[test]
    fn log_sigmoid_is_accurate_in_both_tails() {
        assert!((log_sigmoid(0.0) + 2f64.ln()).abs() < 1e-16);
        assert_eq!(log_sigmoid(-800.0), -800.0);
        assert!((log_sigmoid(40.0) + (-40f64).exp()).abs() < 1e-30);
        for t in [-30.0, -1.0, 0.3, 5.0] {
            assert!((log_sigmoid(t) - sigmoid(t).ln()).abs() < 1e-14);
            assert!((sigmoid(t) + sigmoid(-t) - 1.0).abs() < 1e-15);
        }
    }

    #[test]
    fn gradient_and_hessian_match_finite_differences() {
        let (x, y) = synthetic(40, 3, 1);
        let p = Posterior {
            x: &x,
            y: &y,
            rho: 0.7,
            precision: 2.0,
            radius: None,
        };
        let w = DVector::from_vec(vec![0.3, -1.2, 0.8]);
        let g = p.gradient(&w);
        let h = p.hessian(&w);
        let e = 1e-5;
        for j in 0..3 {
            let mut a = w.clone();
            a[j] += e;
            let mut b = w.clone();
            b[j] -= e;
            let fd = (p.log_density(&a) - p.log_density(&b)) / (2.0 * e);
            assert!((fd - g[j]).abs() < 1e-7, "{fd} vs {}", g[j]);
            let hd = (p.gradient(&a) - p.gradient(&b)) / (2.0 * e);
            for i in 0..3 {
                assert!((-hd[i] - h[(i, j)]).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn mode_zeroes_the_gradient_and_truncation_excludes_the_outside() {
        let (x, y) = synthetic(200, 4, 2);
        let p = Posterior {
            x: &x,
            y: &y,
            rho: 1.0,
            precision: 0.2,
            radius: Some(1.0),
        };
        let (m, _) = p.mode().unwrap();
        assert!(p.gradient(&m).norm() < 1e-9);
        assert!(
            m.norm() > 1.0,
            "the untruncated mode lies outside R = 1 here"
        );
        assert_eq!(p.log_density(&m), f64::NEG_INFINITY);
        assert!(test_error(&x, &y, &m) < 0.4);
        assert!(test_loglik(&x, &y, &m) < 0.0);
    }

    /// Newton stops within a few steps at every tempering, including those whose last
    /// gain is below f's rounding noise (which used to run 100 iterations of ~30
    /// evaluations each), and stops at the mode: the Newton decrement there is at
    /// f's rounding level.
    #[test]
    fn newton_stops_at_the_rounding_floor() {
        for (n, d, seed) in [(3000, 30, 3), (800, 60, 4), (5000, 8, 5)] {
            let (x, y) = synthetic(n, d, seed);
            for rho in [3e-5, 7e-4, 0.0115, 0.0235, 0.0325, 0.25, 0.51, 1.0] {
                let p = Posterior {
                    x: &x,
                    y: &y,
                    rho,
                    precision: n as f64 * 1e-3,
                    radius: None,
                };
                let (w, chol, evaluations) = p.newton().unwrap();
                assert!(
                    evaluations <= 12,
                    "n {n}, ρ {rho}: {evaluations} evaluations"
                );
                let g = p.gradient(&w);
                let decrement = g.dot(&chol.solve(&g));
                let f = p.log_density(&w);
                assert!(
                    decrement <= 1e-12 * (1.0 + f.abs()),
                    "n {n}, ρ {rho}: λ² {decrement:e}"
                );
            }
        }
    }
}
