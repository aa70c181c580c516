//! Ju et al. 2022 §5.2's linear regression from noisy sufficient statistics, for
//! data-augmentation MCMC.

use rand::{Rng, RngExt};

use super::error::ModelError;
use crate::damcmc::AugmentedModel;

/// Ju et al. 2022 §5.2's linear regression from noisy sufficient statistics: n
/// records (x, y), x ∈ ℝᵖ ~ N(m, Σ) and y = (1, x)ᵀβ + N(0, σ²), with m, Σ, σ²
/// known and β ~ N(0, τ²I) (as their `linearregression_gibbs.R` treats them).
/// Each covariate and the response are clamped to their bounds and mapped to
/// [−1, 1] before the release; with x̃ = (1, x̃₁ … x̃ₚ) the statistic is XᵀY
/// (p + 1 values), YᵀY (1) and the lower triangle of XᵀX with its diagonal, row by
/// row ((p + 1)(p + 2)/2 values). θ | x is β's conjugate normal posterior on the
/// records as drawn (not clamped), as in their script.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearRegression {
    n: usize,
    m: Vec<f64>,
    /// the lower Cholesky factor of Σ
    chol: nalgebra::DMatrix<f64>,
    sigma2: f64,
    tau: f64,
    /// (lower, upper) clamp of the covariates and of the response
    x_bounds: (f64, f64),
    y_bounds: (f64, f64),
}

/// A regression record: the p covariates, then the response.
pub type RegressionRecord = Vec<f64>;

impl LinearRegression {
    /// `m` (p ≥ 1 means), `sigma` (p × p covariance, row by row, positive
    /// definite), σ² > 0, τ > 0, n ≥ 1, and bounds lower < upper.
    pub fn new(
        m: Vec<f64>,
        sigma: Vec<Vec<f64>>,
        (sigma2, tau): (f64, f64),
        (x_bounds, y_bounds): ((f64, f64), (f64, f64)),
        n: usize,
    ) -> Result<Self, ModelError> {
        let err = ModelError::new;
        let p = m.len();
        if p == 0 || m.iter().any(|v| !v.is_finite()) {
            return Err(err("m", format!("{m:?}"), "p ≥ 1 finite covariate means"));
        }
        if sigma.len() != p
            || sigma
                .iter()
                .any(|r| r.len() != p || r.iter().any(|v| !v.is_finite()))
        {
            return Err(err(
                "sigma",
                format!("{sigma:?}"),
                "a p × p matrix of finite values",
            ));
        }
        let s = nalgebra::DMatrix::from_fn(p, p, |i, j| sigma[i][j]);
        if (0..p).any(|i| (0..p).any(|j| s[(i, j)] != s[(j, i)])) {
            return Err(err("sigma", format!("{sigma:?}"), "a symmetric matrix"));
        }
        let chol = nalgebra::Cholesky::new(s)
            .ok_or_else(|| {
                err(
                    "sigma",
                    format!("{sigma:?}"),
                    "a positive definite covariance",
                )
            })?
            .l();
        for (key, v) in [("sigma2", sigma2), ("tau", tau)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(err(key, v.to_string(), "a finite number > 0"));
            }
        }
        for (key, (lo, hi)) in [("x_bounds", x_bounds), ("y_bounds", y_bounds)] {
            if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                return Err(err(key, format!("[{lo}, {hi}]"), "finite lower < upper"));
            }
        }
        if n == 0 {
            return Err(err("n", "0".into(), "at least 1 record"));
        }
        Ok(Self {
            n,
            m,
            chol,
            sigma2,
            tau,
            x_bounds,
            y_bounds,
        })
    }

    fn p(&self) -> usize {
        self.m.len()
    }

    /// Clamped and mapped to [−1, 1] (their `normalize`).
    fn normalize(v: f64, (lo, hi): (f64, f64)) -> f64 {
        2.0 * (v.clamp(lo, hi) - lo) / (hi - lo) - 1.0
    }
}

/// The Cholesky factor of `prec` + δI for the smallest δ = 10⁻¹⁴·2ᵏ·max diag
/// (k = 0, 1, …) that has one. For a finite positive semi-definite `prec` one
/// exists by δ = q·max diag (every |entry| ≤ max diag, so the sum is strictly
/// diagonally dominant); the spec's checks keep every entry finite.
fn ridged_cholesky(prec: nalgebra::DMatrix<f64>) -> nalgebra::Cholesky<f64, nalgebra::Dyn> {
    let q = prec.nrows();
    let top = prec
        .diagonal()
        .iter()
        .copied()
        .fold(f64::MIN_POSITIVE, f64::max);
    let mut delta = 1e-14 * top;
    loop {
        let ridged = &prec + nalgebra::DMatrix::<f64>::identity(q, q) * delta;
        if let Some(c) = nalgebra::Cholesky::new(ridged) {
            return c;
        }
        assert!(
            delta.is_finite() && delta <= 4.0 * q as f64 * top,
            "XᵀX/σ² + I/τ² has a non-finite entry: the spec's bounds on τ, σ², m and Σ exclude it"
        );
        delta *= 2.0;
    }
}

impl AugmentedModel for LinearRegression {
    type Record = RegressionRecord;
    /// β: the intercept, then p slopes.
    type Theta = Vec<f64>;

    fn n(&self) -> usize {
        self.n
    }

    fn statistic_len(&self) -> usize {
        let q = self.p() + 1;
        q + 1 + q * (q + 1) / 2
    }

    fn contribution(&self, r: &RegressionRecord, out: &mut Vec<(usize, f64)>) {
        let p = self.p();
        let mut x = Vec::with_capacity(p + 1);
        x.push(1.0);
        x.extend(r[..p].iter().map(|&v| Self::normalize(v, self.x_bounds)));
        let y = Self::normalize(r[p], self.y_bounds);
        let q = p + 1;
        for (j, xj) in x.iter().enumerate() {
            out.push((j, xj * y));
        }
        out.push((q, y * y));
        let mut at = q + 1;
        for j in 0..q {
            for l in 0..=j {
                out.push((at, x[j] * x[l]));
                at += 1;
            }
        }
    }

    /// The record's bits, hashed (records are continuous: equal keys only for
    /// equal records, up to a 2⁻⁶⁴ collision).
    fn group(&self, r: &RegressionRecord) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for v in r {
            v.to_bits().hash(&mut h);
        }
        h.finish()
    }

    fn draw_prior<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<f64> {
        (0..=self.p())
            .map(|_| self.tau * rng.sample::<f64, _>(rand_distr::StandardNormal))
            .collect()
    }

    fn draw_record<R: Rng + ?Sized>(&self, beta: &Vec<f64>, rng: &mut R) -> RegressionRecord {
        let p = self.p();
        let z: Vec<f64> = (0..p)
            .map(|_| rng.sample(rand_distr::StandardNormal))
            .collect();
        let mut r: Vec<f64> = (0..p)
            .map(|i| self.m[i] + (0..=i).map(|j| self.chol[(i, j)] * z[j]).sum::<f64>())
            .collect();
        let mean = beta[0] + (0..p).map(|i| beta[i + 1] * r[i]).sum::<f64>();
        let e: f64 = rng.sample(rand_distr::StandardNormal);
        r.push(mean + self.sigma2.sqrt() * e);
        r
    }

    /// β | x, y ~ N(V Xᵀy/σ², V), V = (XᵀX/σ² + I/τ²)⁻¹.
    fn draw_theta<R: Rng + ?Sized>(&self, records: &[RegressionRecord], rng: &mut R) -> Vec<f64> {
        let q = self.p() + 1;
        let mut prec = nalgebra::DMatrix::<f64>::identity(q, q) / (self.tau * self.tau);
        let mut xty = nalgebra::DVector::<f64>::zeros(q);
        let mut x = vec![1.0; q];
        for r in records {
            x[1..].copy_from_slice(&r[..q - 1]);
            let y = r[q - 1];
            for j in 0..q {
                xty[j] += x[j] * y / self.sigma2;
                for l in 0..q {
                    prec[(j, l)] += x[j] * x[l] / self.sigma2;
                }
            }
        }
        // positive definite in exact arithmetic; in floating point, a nearly rank-
        // deficient XᵀX/σ² (records all alike) swamping I/τ² can lose a pivot to
        // rounding: then the diagonal gains the smallest ridge, from 10⁻¹⁴ of its
        // largest entry up, that restores it (never reached when I/τ² is not
        // swamped, so ordinary runs are unchanged)
        let chol = match nalgebra::Cholesky::new(prec.clone()) {
            Some(c) => c,
            None => ridged_cholesky(prec),
        };
        let mean = chol.solve(&xty);
        // β = mean + L⁻ᵀ z, with prec = L Lᵀ
        let z = nalgebra::DVector::<f64>::from_fn(q, |_, _| rng.sample(rand_distr::StandardNormal));
        let shift = chol
            .l()
            .transpose()
            .solve_upper_triangular(&z)
            .expect("a Cholesky factor is invertible");
        (mean + shift).iter().copied().collect()
    }

    fn parameter_names(&self) -> Vec<String> {
        (0..=self.p()).map(|j| format!("beta{j}")).collect()
    }

    fn parameters(&self, beta: &Vec<f64>) -> Vec<f64> {
        beta.clone()
    }

    /// A bound, the sum of the coordinates' own sensitivities: with every value
    /// in [−1, 1] and the intercept 1, each entry of XᵀY and each off-diagonal
    /// entry of XᵀX moves by at most 2, YᵀY and each diagonal covariate entry by
    /// at most 1, the intercept's diagonal not at all. The coordinates cannot
    /// all move that far at once, so the true sensitivity is smaller (for p = 2
    /// a grid search finds 9.375 against this 15; `tests::regression_sensitivity_bounds`).
    fn l1_sensitivity(&self) -> f64 {
        let p = self.p() as f64;
        2.0 * (p + 1.0) + 1.0 + p + 2.0 * p * (p + 1.0) / 2.0
    }
}
