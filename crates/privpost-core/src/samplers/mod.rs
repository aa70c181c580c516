//! Samplers for the logistic-regression posteriors of [`crate::glm`].
//!
//! Both samplers work on a [`LinearTarget`]: the posterior written in coordinates u
//! with w = w₀ + M u, margins t = t₀ + A u (A = diag(y) X M) and a quadratic prior
//! term, so that a change of variables costs nothing per step.
//!
//! - [`hmc`] (default): Hamiltonian Monte Carlo in the coordinates whitened by the
//!   Hessian at the mode (M = L⁻ᵀ, H = LLᵀ), many independent chains advanced
//!   together so that each gradient is two matrix–matrix products.
//! - [`slice`](mod@slice) (fidelity option, as Geumlek et al. §5.2): coordinate-wise slice
//!   sampling (Neal 2003, stepping out and shrinkage) in the original coordinates.
//!
//! Split-R̂, effective sample size and the two-sample KS test live in [`crate::stats::diagnostics`].

pub mod hmc;
pub mod imh;
pub mod slice;

use nalgebra::{DMatrix, DVector};

use crate::glm::{sigmoid, Posterior};
use crate::numeric::{cholesky, gemm, vmath};

/// Why a posterior cannot be whitened for sampling.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SamplerError {
    #[error(transparent)]
    Mode(#[from] crate::glm::NewtonError),
    #[error("singular Cholesky factor")]
    Singular,
    #[error("no proposal of an independence chain fell inside the support")]
    NoProposalInside,
}

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
    /// How HMC's gradient and density evaluate the prior term Pu (the slice sampler
    /// reads the columns of P)
    prior: Prior,
    /// u of w = 0 (inside every support ball)
    pub origin: DVector<f64>,
}

/// The prior term −½uᵀPu of a [`LinearTarget`] as HMC evaluates it.
#[derive(Debug, Clone)]
enum Prior {
    /// P = nβ·I (the original coordinates): Pu is a scaling.
    Isotropic,
    /// The whitened coordinates at the mode (Laplace): with H = ρXᵀVX + nβI = LLᵀ
    /// (V = diag σ(t₀ᵢ)σ(−t₀ᵢ), the Hessian's weights at the mode) and M = L⁻ᵀ,
    /// MᵀHM = I gives P = nβMᵀM = I − ρAᵀVA. So Pu = u − ρAᵀ(V·Au) reuses the margins
    /// Au and folds into the likelihood's product: ∇ = ρAᵀ(σ(−m) + V·Au) − u − c, and
    /// uᵀPu = uᵀu − ρΣᵢVᵢ(Au)ᵢ² — no d × d product per gradient (for MNIST, where
    /// d = 784 exceeds n = 666, it was the largest of the three). Holds to rounding (a
    /// test compares it with the dense P).
    Laplace(Vec<f64>),
    /// Any linear map w = M u ([`LinearTarget::mapped`]): P = nβMᵀM, held dense.
    Dense,
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
            prior: Prior::Isotropic,
            origin: DVector::zeros(d),
        }
    }

    /// The posterior in the coordinates u of w = M u for an invertible `m` (d × d),
    /// e.g. standardised covariates: A = diag(y) X M and P = nβMᵀM. Untruncated
    /// posteriors only (`post.radius` must be `None`).
    pub fn mapped(post: &Posterior, m: DMatrix<f64>) -> Self {
        assert!(post.radius.is_none(), "mapped: a truncated posterior");
        let d = post.dim();
        let mut a = post.x * &m;
        for (i, mut row) in a.row_iter_mut().enumerate() {
            row *= post.y[i];
        }
        Self {
            at: a.transpose(),
            a,
            t0: DVector::zeros(post.n()),
            p: gemm::product_tn(&m, &m, post.precision),
            c: DVector::zeros(d),
            rho: post.rho,
            precision: post.precision,
            radius: None,
            w0_sq: 0.0,
            shift: DVector::zeros(d),
            map: Some(m),
            prior: Prior::Dense,
            origin: DVector::zeros(d),
        }
    }

    /// The posterior whitened at its mode: w = ŵ + L⁻ᵀu with H(ŵ) = LLᵀ, so that u is
    /// approximately N(0, I) (exactly so for a Gaussian posterior).
    pub fn whitened(post: &Posterior) -> Result<Self, SamplerError> {
        let (mode, chol) = post.mode()?;
        let l_inv = cholesky::lower_inverse(&chol.l()).ok_or(SamplerError::Singular)?;
        let m = l_inv.transpose();
        let mut a = post.x * &m;
        for (i, mut row) in a.row_iter_mut().enumerate() {
            row *= post.y[i];
        }
        let t0 = post.margins(&mode);
        let weights = t0.iter().map(|&t| sigmoid(t) * sigmoid(-t)).collect();
        let p = gemm::product_tn(&m, &m, post.precision);
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
            origin: -chol.l().tr_mul(&mode),
            shift: mode,
            map: Some(m),
            prior: Prior::Laplace(weights),
        })
    }

    pub fn dim(&self) -> usize {
        self.a.ncols()
    }

    /// Whether a support ball comes within 10 Laplace standard deviations (√tr H⁻¹ =
    /// ‖M‖_F) of the mode.
    pub fn boundary_matters(&self) -> bool {
        let spread = self.map.as_ref().map_or(f64::INFINITY, |m| m.norm());
        self.radius
            .is_some_and(|r| self.w0_sq.sqrt() + 10.0 * spread > r)
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

    /// Log density (up to the constant of [`LinearTarget::eval`]) of every column of
    /// `u`, without the gradient: one product A·u instead of two.
    pub fn log_density(&self, u: &DMatrix<f64>) -> Vec<f64> {
        let t = gemm::product(&self.a, u, 1.0);
        let t0 = self.t0.as_slice();
        (0..u.ncols())
            .map(|j| {
                let uj = u.column(j);
                let tj = t.column(j);
                let ll = vmath::log_sigmoid_line(t0, tj.as_slice(), 1.0);
                let upu = match &self.prior {
                    Prior::Laplace(v) => {
                        let curved: f64 = v.iter().zip(tj.iter()).map(|(v, t)| v * t * t).sum();
                        uj.norm_squared() - self.rho * curved
                    }
                    Prior::Isotropic => uj.dot(&(uj * self.precision)),
                    Prior::Dense => uj.dot(&(&self.p * uj)),
                };
                let cu = self.c.dot(&uj);
                if self.outside(cu, upu) {
                    f64::NEG_INFINITY
                } else {
                    self.rho * ll - cu - 0.5 * upu
                }
            })
            .collect()
    }

    fn evaluate(&self, u: &DMatrix<f64>, with_logp: bool) -> Batch {
        let k = u.ncols();
        let mut t = gemm::product(&self.a, u, 1.0);
        let t0 = self.t0.as_slice();
        let curvature = match &self.prior {
            Prior::Laplace(v) => Some(v.as_slice()),
            Prior::Isotropic | Prior::Dense => None,
        };
        // ln σ(m) summed (when asked) and σ(−m) (+ V·t with curvature) in place, m = t + t₀
        let sums: Vec<(f64, f64)> = t
            .column_iter_mut()
            .map(|mut col| vmath::logistic(col.as_mut_slice(), t0, curvature, with_logp))
            .collect();
        let mut grad = gemm::product(&self.at, &t, self.rho);
        let mut logp = vec![0.0; k];
        for j in 0..k {
            let uj = u.column(j);
            let mut g = grad.column_mut(j);
            let uu = match self.prior {
                Prior::Laplace(_) => {
                    g -= &uj;
                    with_logp.then(|| uj.norm_squared() - self.rho * sums[j].1)
                }
                Prior::Isotropic => {
                    g.axpy(-self.precision, &uj, 1.0);
                    // as u·(Pu) with P = nβI, to the bit
                    with_logp.then(|| uj.dot(&(uj * self.precision)))
                }
                Prior::Dense => {
                    let pu = &self.p * uj;
                    g -= &pu;
                    with_logp.then(|| uj.dot(&pu))
                }
            };
            g -= &self.c;
            if let Some(upu) = uu {
                let cu = self.c.dot(&uj);
                logp[j] = if self.outside(cu, upu) {
                    f64::NEG_INFINITY
                } else {
                    self.rho * sums[j].0 - cu - 0.5 * upu
                };
            }
        }
        Batch { logp, grad }
    }
}

/// K independent draws (d × K, one chain each) of `post`: HMC in the whitened
/// coordinates (step size tuned on 8 separate pilot chains, `tune` iterations; then
/// `burn_in` iterations per chain from a Laplace-approximation draw). When a truncation
/// ball cuts into the bulk of the posterior (‖ŵ‖ + 10·√tr H⁻¹ > R), HMC's trajectories
/// would mostly leave the support and be rejected, so the chains instead run `burn_in`
/// sweeps of coordinate-wise slice sampling in the same coordinates. Both are exact
/// MCMC for the truncated target; the switch only concerns mixing. (In the figures'
/// OPS runs, R = c/β₀ = 1000 is never near the posterior, so HMC is used.)
pub fn whitened_draws(
    post: &Posterior,
    k: usize,
    burn_in: usize,
    tune: usize,
    path_length: f64,
    rng: &mut impl rand::Rng,
) -> Result<DMatrix<f64>, SamplerError> {
    let target = LinearTarget::whitened(post)?;
    if target.boundary_matters() {
        return Ok(slice_fallback(&target, k, burn_in, rng));
    }
    let s = hmc::tune(&target, 8, tune, path_length, rng);
    Ok(hmc::sample(&target, k, burn_in, 0, s, rng).remove(0))
}

/// K independent draws of `post` by independence MH ([`imh`]) in the whitened
/// coordinates, with its diagnostics; or, when a truncation ball cuts into the
/// posterior's bulk (as in [`whitened_draws`]), `fallback_sweeps` sweeps of slice
/// sampling per chain from a Laplace draw, and no diagnostics.
pub fn independence_draws(
    post: &Posterior,
    k: usize,
    s: imh::Settings,
    fallback_sweeps: usize,
    rng: &mut impl rand::Rng,
) -> Result<(DMatrix<f64>, Option<imh::Diagnostics>), SamplerError> {
    let target = LinearTarget::whitened(post)?;
    if target.boundary_matters() {
        return Ok((slice_fallback(&target, k, fallback_sweeps, rng), None));
    }
    let d = imh::draws(&target, k, s, rng)?;
    Ok((d.w, Some(d.diagnostics)))
}

/// K chains of `sweeps` coordinate-wise slice sweeps in the whitened coordinates, each
/// from a Laplace draw (moved to w = 0 when outside the support): parameters w, d × K.
fn slice_fallback(
    target: &LinearTarget,
    k: usize,
    sweeps: usize,
    rng: &mut impl rand::Rng,
) -> DMatrix<f64> {
    let starts = hmc::start(target, k, rng);
    let cols: Vec<DVector<f64>> = (0..k)
        .map(|j| {
            let mut ch = slice::start(target, starts.u.column(j).into_owned());
            for _ in 0..sweeps {
                slice::sweep(target, &mut ch, rng);
            }
            ch.u
        })
        .collect();
    target.to_w(&DMatrix::from_columns(&cols))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glm::tests::synthetic;

    /// Posterior mean and variance of each coordinate of a 2-d logistic posterior by
    /// Gauss–Legendre quadrature (20 points on each of 24 × 24 cells) over a box holding
    /// ±9 sd of its Laplace approximation around the mode and, when truncated, the
    /// whole ball.
    pub(crate) fn quadrature_moments(post: &Posterior) -> ([f64; 2], [f64; 2]) {
        use crate::numeric::quadrature::GaussLegendre;
        let (mode, chol) = post.mode().unwrap();
        let cov = chol.inverse();
        let gl = GaussLegendre::new(20);
        let (mut z, mut m1, mut m2) = (0.0, [0.0; 2], [0.0; 2]);
        let bounds: Vec<(f64, f64)> = (0..2)
            .map(|j| {
                let h = 9.0 * cov[(j, j)].sqrt();
                let (lo, hi) = (mode[j] - h, mode[j] + h);
                match post.radius {
                    Some(r) => (lo.max(-r), hi.min(r)),
                    None => (lo, hi),
                }
            })
            .collect();
        let shift = Posterior {
            radius: None,
            ..*post
        }
        .log_density(&mode);
        let cells = 24;
        let width = |j: usize| (bounds[j].1 - bounds[j].0) / cells as f64;
        for k0 in 0..cells {
            for k1 in 0..cells {
                let a0 = bounds[0].0 + width(0) * k0 as f64;
                let a1 = bounds[1].0 + width(1) * k1 as f64;
                for (u0, v0) in gl.mapped(a0, a0 + width(0)) {
                    for (u1, v1) in gl.mapped(a1, a1 + width(1)) {
                        let w = DVector::from_vec(vec![u0, u1]);
                        let p = v0 * v1 * (post.log_density(&w) - shift).exp();
                        z += p;
                        m1[0] += p * u0;
                        m1[1] += p * u1;
                        m2[0] += p * u0 * u0;
                        m2[1] += p * u1 * u1;
                    }
                }
            }
        }
        let mean = [m1[0] / z, m1[1] / z];
        (
            mean,
            [m2[0] / z - mean[0] * mean[0], m2[1] / z - mean[1] * mean[1]],
        )
    }

    /// Reference values by quadrature: the posterior mean and variance of a 2-d
    /// logistic posterior (plain and truncated to a ball that cuts through its bulk),
    /// against (a) 4000 independent HMC chains as the figures use them and (b) one long
    /// slice-sampling chain as the paper's sampler. Tolerance: 5 Monte Carlo standard errors.
    #[test]
    fn both_samplers_match_quadrature_on_a_2d_posterior() {
        use crate::samplers::slice;
        use crate::stats::diagnostics;
        use rand::SeedableRng;
        let (x, y) = synthetic(30, 2, 11);
        for radius in [None, Some(1.2)] {
            let post = Posterior {
                x: &x,
                y: &y,
                rho: 1.0,
                precision: 1.0,
                radius,
            };
            let (mean, var) = quadrature_moments(&post);
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
            let w = whitened_draws(&post, 4000, 30, 40, 1.5, &mut rng).unwrap();
            let orig = LinearTarget::original(&post);
            let mut ch = slice::start(&orig, DVector::zeros(2));
            let mut trace = [Vec::new(), Vec::new()];
            for _ in 0..40_000 {
                slice::sweep(&orig, &mut ch, &mut rng);
                trace[0].push(ch.u[0]);
                trace[1].push(ch.u[1]);
            }
            for j in 0..2 {
                let xs: Vec<f64> = w.row(j).iter().copied().collect();
                if let Some(r) = radius {
                    assert!(w.column_iter().all(|c| c.norm() <= r));
                }
                let (m, v) = diagnostics::mean_var(&xs);
                let se_m = (var[j] / 4000.0).sqrt();
                let se_v = var[j] * (2.0f64 / 3999.0).sqrt();
                assert!(
                    (m - mean[j]).abs() < 5.0 * se_m,
                    "{radius:?}: HMC mean {m} vs {}",
                    mean[j]
                );
                assert!((v - var[j]).abs() < 5.0 * se_v, "HMC var {v} vs {}", var[j]);
                let ess = diagnostics::ess(&[trace[j].clone()]);
                let (m, v) = diagnostics::mean_var(&trace[j]);
                assert!(
                    (m - mean[j]).abs() < 5.0 * (var[j] / ess).sqrt(),
                    "slice mean {m} vs {}",
                    mean[j]
                );
                assert!(
                    (v / var[j] - 1.0).abs() < 5.0 * (2.0 / ess).sqrt(),
                    "slice var {v} vs {}",
                    var[j]
                );
            }
        }
    }

    /// The Laplace identity behind the whitened prior term: nβMᵀM = I − ρAᵀVA, to
    /// rounding, on posteriors where the prior is weak (MNIST-like: d > n) and strong.
    #[test]
    fn whitened_prior_identity_matches_the_dense_prior() {
        for (n, d, rho, precision) in [(40, 60, 0.8, 0.05), (300, 5, 1.0, 3.0)] {
            let (x, y) = synthetic(n, d, 9);
            let post = Posterior {
                x: &x,
                y: &y,
                rho,
                precision,
                radius: None,
            };
            let white = LinearTarget::whitened(&post).unwrap();
            let Prior::Laplace(v) = &white.prior else {
                panic!("whitened targets use the Laplace prior term")
            };
            let va = DMatrix::from_fn(n, d, |i, j| v[i] * white.a[(i, j)]);
            let p = DMatrix::identity(d, d) - white.a.tr_mul(&va) * rho;
            let err = (&p - &white.p).abs().max();
            assert!(err < 1e-12, "n = {n}, d = {d}: {err:e}");
        }
    }

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

    /// A mapped target (w = M u) has the posterior's own log density at w, its
    /// gradient by the chain rule, and `log_density` agrees with `eval`.
    #[test]
    fn mapped_targets_are_the_posterior_in_new_coordinates() {
        let (x, y) = synthetic(50, 3, 7);
        let post = Posterior {
            x: &x,
            y: &y,
            rho: 1.0,
            precision: 0.25,
            radius: None,
        };
        let m = DMatrix::from_row_slice(3, 3, &[1.0, -0.4, 2.0, 0.0, 0.5, 0.0, 0.0, 0.0, 3.0]);
        let target = LinearTarget::mapped(&post, m.clone());
        let u = DMatrix::from_column_slice(3, 2, &[0.1, -0.5, 0.3, 1.0, 2.0, -1.0]);
        let w = target.to_w(&u);
        assert!((&w - &m * &u).norm() < 1e-15);
        let b = target.eval(&u);
        let only = target.log_density(&u);
        for (j, only) in only.iter().enumerate() {
            let wj = w.column(j).into_owned();
            assert!((b.logp[j] - post.log_density(&wj)).abs() < 1e-10);
            assert!((only - b.logp[j]).abs() < 1e-10);
            assert!((b.grad.column(j) - m.tr_mul(&post.gradient(&wj))).norm() < 1e-9);
        }
    }
}
