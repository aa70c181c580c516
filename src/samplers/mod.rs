//! Samplers for the logistic-regression posteriors of [`crate::glm`].
//!
//! Both samplers work on a [`LinearTarget`]: the posterior written in coordinates u
//! with w = w₀ + M u, margins t = t₀ + A u (A = diag(y) X M) and a quadratic prior
//! term, so that a change of variables costs nothing per step.
//!
//! - [`hmc`] (default): Hamiltonian Monte Carlo in the coordinates whitened by the
//!   Hessian at the mode (M = L⁻ᵀ, H = LLᵀ), many independent chains advanced
//!   together so that each gradient is two matrix–matrix products.
//! - [`slice`] (fidelity option, as Geumlek et al. §5.2): coordinate-wise slice
//!   sampling (Neal 2003, stepping out and shrinkage) in the original coordinates.
//!
//! [`diagnostics`] has split-R̂, effective sample size and the two-sample KS test.

pub mod diagnostics;
pub mod hmc;
pub mod slice;

use nalgebra::{DMatrix, DVector};

use crate::glm::Posterior;

/// A logistic posterior in linear coordinates u:
/// ln p(u) = ρ Σᵢ ln σ(tᵢ) − c·u − ½ uᵀPu + const, t = t₀ + A u, and the support
/// ‖w‖² = ‖w₀‖² + (2c·u + uᵀPu)/(nβ) ≤ R².
#[derive(Debug, Clone)]
pub struct LinearTarget {
    a: DMatrix<f64>,
    /// Aᵀ, stored so that Aᵀ·S runs as a plain (fast) matrix product
    at: DMatrix<f64>,
    t0: DVector<f64>,
    p: DMatrix<f64>,
    c: DVector<f64>,
    rho: f64,
    precision: f64,
    radius: Option<f64>,
    w0_sq: f64,
    shift: DVector<f64>,
    /// M, or None for the identity
    map: Option<DMatrix<f64>>,
}

/// Log densities and gradients of a batch of points (one per column).
#[derive(Debug, Clone)]
pub struct Batch {
    pub logp: Vec<f64>,
    pub grad: DMatrix<f64>,
}

impl LinearTarget {
    /// The posterior in its own coordinates (u = w).
    pub fn original(post: &Posterior) -> Self {
        let d = post.dim();
        let mut a = post.x.clone();
        for (i, mut row) in a.row_iter_mut().enumerate() {
            row *= post.y[i];
        }
        Self {
            at: a.transpose(),
            a,
            t0: DVector::zeros(post.n()),
            p: DMatrix::identity(d, d) * post.precision,
            c: DVector::zeros(d),
            rho: post.rho,
            precision: post.precision,
            radius: post.radius,
            w0_sq: 0.0,
            shift: DVector::zeros(d),
            map: None,
        }
    }

    /// The posterior whitened at its mode: w = ŵ + L⁻ᵀu with H(ŵ) = LLᵀ, so that u is
    /// approximately N(0, I) (exactly so for a Gaussian posterior).
    pub fn whitened(post: &Posterior) -> Result<Self, String> {
        let (mode, chol) = post.mode()?;
        let d = post.dim();
        let l_inv = chol
            .l()
            .solve_lower_triangular(&DMatrix::identity(d, d))
            .ok_or("singular Cholesky factor")?;
        let m = l_inv.transpose();
        let mut a = post.x * &m;
        for (i, mut row) in a.row_iter_mut().enumerate() {
            row *= post.y[i];
        }
        let t0 = post.margins(&mode);
        let p = m.tr_mul(&m) * post.precision;
        let c = m.tr_mul(&mode) * post.precision;
        Ok(Self {
            at: a.transpose(),
            a,
            t0,
            p,
            c,
            rho: post.rho,
            precision: post.precision,
            radius: post.radius,
            w0_sq: mode.norm_squared(),
            shift: mode,
            map: Some(m),
        })
    }

    pub fn dim(&self) -> usize {
        self.a.ncols()
    }

    /// Parameters w of each column of u.
    pub fn to_w(&self, u: &DMatrix<f64>) -> DMatrix<f64> {
        let mut w = match &self.map {
            Some(m) => m * u,
            None => u.clone(),
        };
        for mut col in w.column_iter_mut() {
            col += &self.shift;
        }
        w
    }

    fn outside(&self, cu: f64, upu: f64) -> bool {
        self.radius
            .is_some_and(|r| self.w0_sq + (2.0 * cu + upu) / self.precision > r * r)
    }

    /// Log density (up to a constant) and gradient of every column of `u`.
    pub fn eval(&self, u: &DMatrix<f64>) -> Batch {
        self.evaluate(u, true)
    }

    /// Gradient only (the log densities are left at 0): what the inner leapfrog
    /// steps need, without the ln_1p of every margin.
    pub fn gradient(&self, u: &DMatrix<f64>) -> Batch {
        self.evaluate(u, false)
    }

    fn evaluate(&self, u: &DMatrix<f64>, with_logp: bool) -> Batch {
        let k = u.ncols();
        let mut t = &self.a * u;
        let mut loglik = vec![0.0; k];
        for (j, mut col) in t.column_iter_mut().enumerate() {
            let mut s = 0.0;
            for (v, &t0) in col.iter_mut().zip(self.t0.iter()) {
                let m = *v + t0;
                // ln σ(m) = min(m, 0) − ln(1 + e) and σ(−m) from e = e^{−|m|}
                let e = (-m.abs()).exp();
                if with_logp {
                    s += m.min(0.0) - e.ln_1p();
                }
                *v = if m >= 0.0 {
                    e / (1.0 + e)
                } else {
                    1.0 / (1.0 + e)
                };
            }
            loglik[j] = s;
        }
        let pu = &self.p * u;
        let mut grad = &self.at * &t * self.rho - &pu;
        let mut logp = vec![0.0; k];
        for j in 0..k {
            let mut g = grad.column_mut(j);
            g -= &self.c;
            if with_logp {
                let cu = self.c.dot(&u.column(j));
                let upu = u.column(j).dot(&pu.column(j));
                logp[j] = if self.outside(cu, upu) {
                    f64::NEG_INFINITY
                } else {
                    self.rho * loglik[j] - cu - 0.5 * upu
                };
            }
        }
        Batch { logp, grad }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glm::tests::synthetic;

    #[test]
    fn whitened_and_original_targets_agree_up_to_a_constant() {
        let (x, y) = synthetic(60, 3, 4);
        let post = Posterior {
            x: &x,
            y: &y,
            rho: 0.6,
            precision: 1.5,
            radius: Some(3.0),
        };
        let orig = LinearTarget::original(&post);
        let white = LinearTarget::whitened(&post).unwrap();
        let u = DMatrix::from_column_slice(3, 3, &[0.1, -0.5, 0.3, 1.0, 2.0, -1.0, 0.0, 0.0, 0.0]);
        let w = white.to_w(&u);
        let bw = white.eval(&u);
        let bo = orig.eval(&w);
        let shift = bw.logp[2] - post.log_density(&w.column(2).into_owned());
        for j in 0..3 {
            let wj = w.column(j).into_owned();
            let direct = post.log_density(&wj);
            assert!(
                (bo.logp[j] - direct).abs() < 1e-10,
                "{} {direct}",
                bo.logp[j]
            );
            if direct.is_finite() {
                assert!((bw.logp[j] - shift - direct).abs() < 1e-9);
                // chain rule: ∇_u = Mᵀ ∇_w
                let gw = post.gradient(&wj);
                let gu = white.map.as_ref().unwrap().tr_mul(&gw);
                assert!((bw.grad.column(j) - gu).norm() < 1e-9);
                assert!((bo.grad.column(j) - gw).norm() < 1e-9);
            } else {
                assert_eq!(bw.logp[j], f64::NEG_INFINITY);
            }
        }
    }
}
