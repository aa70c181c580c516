//! Xiong & Ju 2025's benchmark regression (SOMA, arXiv 2505.00635; their
//! `regression.py`): linear regression with a normal-inverse-gamma prior whose
//! clamped, rescaled sufficient statistics are released with Laplace noise.

use nalgebra::{DMatrix, DVector};
use rand::{Rng, RngExt};
use rand_distr::{Distribution, Gamma, StandardNormal};
use statrs::function::gamma::ln_gamma;

use super::error::ModelError;
use crate::damcmc::coupling::{maximal, maximal_giving_up, CoupledModel};
use crate::damcmc::AugmentedModel;

/// n records (x, y): x ∈ ℝᵖ ~ N(m, I), y = (1, x)ᵀβ + N(0, σ²), with
/// σ² ~ InvGamma(a₀, b₀) and β | σ² ~ N(μ₀, σ²Λ⁻¹) (theirs: p = 2,
/// m = (0.90, −1.17), a₀ = b₀ = 10, μ₀ = 0, Λ = I/2). Each covariate and the
/// response are clamped to [lo, hi] and mapped to [−1, 1]; with x̃ = (1, x̃₁ … x̃ₚ)
/// the statistic is, divided by n, x̃ỹ (p + 1 values), ỹ² (1) and the upper
/// triangle of x̃x̃ᵀ row by row without its constant corner ((p + 1)(p + 2)/2 − 1
/// values): their `gen_s`, whose 9 values at p = 2 are (ỹ, x̃₁ỹ, x̃₂ỹ, ỹ², x̃₁, x̃₂,
/// x̃₁², x̃₁x̃₂, x̃₂²)/n. θ | x is the conjugate posterior on the records as drawn (not
/// clamped), as in their `conjugate_update_theta`. θ = (β₀ … βₚ, σ²).
#[derive(Debug, Clone, PartialEq)]
pub struct NigRegression {
    n: usize,
    m: Vec<f64>,
    a0: f64,
    b0: f64,
    mu0: DVector<f64>,
    lambda: DMatrix<f64>,
    bounds: (f64, f64),
    /// redraws after which the record proposals' coupling copies chain 1's
    /// (None: a maximal coupling; see [`Self::giving_up_after`])
    give_up: Option<u32>,
}

/// The conjugate posterior of θ given complete records: σ⁻² ~ Gamma(a, rate b),
/// β | σ² ~ N(mean, σ² Λₙ⁻¹), Λₙ = `chol` `chol`ᵀ.
#[derive(Debug, Clone)]
pub struct NigPosterior {
    pub a: f64,
    pub b: f64,
    pub mean: DVector<f64>,
    pub chol: DMatrix<f64>,
}

impl NigPosterior {
    /// A draw of σ⁻² (the precision).
    pub fn draw_precision<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        Gamma::new(self.a, 1.0 / self.b)
            .expect("a > 0 and b > 0")
            .sample(rng)
    }

    /// ln p(σ⁻² = t).
    pub fn ln_precision(&self, t: f64) -> f64 {
        if t <= 0.0 {
            return f64::NEG_INFINITY;
        }
        self.a * self.b.ln() - ln_gamma(self.a) + (self.a - 1.0) * t.ln() - self.b * t
    }

    /// A draw of β given σ².
    pub fn draw_beta<R: Rng + ?Sized>(&self, sigma2: f64, rng: &mut R) -> DVector<f64> {
        let q = self.mean.len();
        let z = DVector::<f64>::from_fn(q, |_, _| rng.sample(StandardNormal));
        // β = mean + σ L⁻ᵀ z, Λₙ = L Lᵀ
        let shift = self
            .chol
            .transpose()
            .solve_upper_triangular(&z)
            .expect("a Cholesky factor is invertible");
        &self.mean + shift * sigma2.sqrt()
    }

    /// ln N(β; mean, σ² Λₙ⁻¹).
    pub fn ln_beta(&self, beta: &DVector<f64>, sigma2: f64) -> f64 {
        let q = self.mean.len() as f64;
        let d = beta - &self.mean;
        // (β − mean)ᵀ Λₙ (β − mean) = |Lᵀ(β − mean)|²
        let r = self.chol.transpose() * d;
        let ln_det: f64 = self.chol.diagonal().iter().map(|v| v.ln()).sum();
        -0.5 * q * (2.0 * std::f64::consts::PI * sigma2).ln() + ln_det
            - r.norm_squared() / (2.0 * sigma2)
    }
}

impl NigRegression {
    /// `m` (p ≥ 1 covariate means), a₀, b₀ > 0, μ₀ (p + 1 values), Λ ((p + 1)²,
    /// row by row, symmetric positive definite), n ≥ 1, clamp lo < hi.
    pub fn new(
        m: Vec<f64>,
        (a0, b0): (f64, f64),
        mu0: Vec<f64>,
        lambda: Vec<Vec<f64>>,
        bounds: (f64, f64),
        n: usize,
    ) -> Result<Self, ModelError> {
        let err = ModelError::new;
        let q = m.len() + 1;
        if m.is_empty() || m.iter().any(|v| !v.is_finite()) {
            return Err(err("m", format!("{m:?}"), "p ≥ 1 finite covariate means"));
        }
        for (key, v) in [("a0", a0), ("b0", b0)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(err(key, v.to_string(), "a finite number > 0"));
            }
        }
        if mu0.len() != q || mu0.iter().any(|v| !v.is_finite()) {
            return Err(err("mu0", format!("{mu0:?}"), "p + 1 finite values"));
        }
        let lam = DMatrix::from_fn(q, q, |i, j| {
            lambda
                .get(i)
                .and_then(|r| r.get(j))
                .copied()
                .unwrap_or(f64::NAN)
        });
        if lambda.len() != q
            || lambda.iter().any(|r| r.len() != q)
            || lam.iter().any(|v| !v.is_finite())
            || lam != lam.transpose()
            || nalgebra::Cholesky::new(lam.clone()).is_none()
        {
            return Err(err(
                "lambda",
                format!("{lambda:?}"),
                "a (p + 1) × (p + 1) symmetric positive definite matrix",
            ));
        }
        if !(bounds.0.is_finite() && bounds.1.is_finite() && bounds.0 < bounds.1) {
            return Err(err("bounds", format!("{bounds:?}"), "finite lo < hi"));
        }
        if n == 0 {
            return Err(err("n", "0".into(), "at least 1 record"));
        }
        Ok(Self {
            n,
            m,
            a0,
            b0,
            mu0: DVector::from_vec(mu0),
            lambda: lam,
            give_up: None,
            bounds,
        })
    }

    /// Their `regression.py` settings: p = 2, m = (0.90, −1.17), a₀ = b₀ = 10,
    /// μ₀ = 0, Λ = I/2, clamp [−6, 6], n records.
    pub fn xiong_ju(n: usize) -> Result<Self, ModelError> {
        let half = |i: usize| (0..3).map(|j| if i == j { 0.5 } else { 0.0 }).collect();
        Self::new(
            vec![0.90, -1.17],
            (10.0, 10.0),
            vec![0.0; 3],
            (0..3).map(half).collect(),
            (-6.0, 6.0),
            n,
        )
    }

    /// The record proposals coupled as in Xiong & Ju's `update_data_coupling`:
    /// after `rounds` failed redraws chain 2 takes chain 1's response
    /// ([`maximal_giving_up`]; they stop after 100). Each chain alone is then no
    /// longer exactly its kernel's chain; this is for comparing with their numbers.
    pub fn giving_up_after(mut self, rounds: Option<u32>) -> Self {
        self.give_up = rounds;
        self
    }

    fn p(&self) -> usize {
        self.m.len()
    }

    /// Their rescaling: clamp to [lo, hi], then map to [−1, 1].
    fn normalize(&self, v: f64) -> f64 {
        let (lo, hi) = self.bounds;
        (v.clamp(lo, hi) - lo) * (2.0 / (hi - lo)) - 1.0
    }

    /// θ | x: the conjugate posterior on the records as drawn.
    pub fn posterior(&self, records: &[Vec<f64>]) -> NigPosterior {
        let q = self.p() + 1;
        let mut prec = self.lambda.clone();
        let mut xty = &self.lambda * &self.mu0;
        let mut yty = 0.0;
        let mut x = vec![1.0; q];
        for r in records {
            x[1..].copy_from_slice(&r[..q - 1]);
            let y = r[q - 1];
            yty += y * y;
            for j in 0..q {
                xty[j] += x[j] * y;
                for l in 0..q {
                    prec[(j, l)] += x[j] * x[l];
                }
            }
        }
        let chol = nalgebra::Cholesky::new(prec.clone())
            .expect("XᵀX + Λ is positive definite")
            .l();
        let mean = nalgebra::Cholesky::new(prec.clone())
            .expect("XᵀX + Λ is positive definite")
            .solve(&xty);
        let prior_quad = (self.mu0.transpose() * &self.lambda * &self.mu0)[(0, 0)];
        let post_quad = (mean.transpose() * &prec * &mean)[(0, 0)];
        NigPosterior {
            a: self.a0 + records.len() as f64 / 2.0,
            b: self.b0 + 0.5 * (yty + prior_quad - post_quad),
            mean,
            chol,
        }
    }

    /// θ from (β, σ²).
    pub fn theta(beta: &DVector<f64>, sigma2: f64) -> Vec<f64> {
        beta.iter().copied().chain([sigma2]).collect()
    }

    /// The covariates of a record from N(m, I).
    pub fn draw_covariates<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<f64> {
        self.m
            .iter()
            .map(|&mean| mean + rng.sample::<f64, _>(StandardNormal))
            .collect()
    }

    /// The mean of y given θ and the covariates x: (1, x)ᵀβ.
    pub fn mean_response(theta: &[f64], x: &[f64]) -> f64 {
        theta[0] + x.iter().zip(&theta[1..]).map(|(a, b)| a * b).sum::<f64>()
    }
}

impl AugmentedModel for NigRegression {
    /// The p covariates, then the response.
    type Record = Vec<f64>;
    /// β₀ … βₚ, then σ².
    type Theta = Vec<f64>;

    fn n(&self) -> usize {
        self.n
    }

    fn statistic_len(&self) -> usize {
        let q = self.p() + 1;
        q + 1 + q * (q + 1) / 2 - 1
    }

    fn contribution(&self, r: &Vec<f64>, out: &mut Vec<(usize, f64)>) {
        let p = self.p();
        let scale = 1.0 / self.n as f64;
        let mut x = Vec::with_capacity(p + 1);
        x.push(1.0);
        x.extend(r[..p].iter().map(|&v| self.normalize(v)));
        let y = self.normalize(r[p]);
        for (j, xj) in x.iter().enumerate() {
            out.push((j, xj * y * scale));
        }
        out.push((p + 1, y * y * scale));
        let mut at = p + 2;
        for j in 0..=p {
            for l in j..=p {
                if j == 0 && l == 0 {
                    continue;
                }
                out.push((at, x[j] * x[l] * scale));
                at += 1;
            }
        }
    }

    /// The record's bits, hashed (continuous records: equal keys only for equal
    /// records, up to a 2⁻⁶⁴ collision).
    fn group(&self, r: &Vec<f64>) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for v in r {
            v.to_bits().hash(&mut h);
        }
        h.finish()
    }

    fn draw_prior<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<f64> {
        let prior = NigPosterior {
            a: self.a0,
            b: self.b0,
            mean: self.mu0.clone(),
            chol: nalgebra::Cholesky::new(self.lambda.clone())
                .expect("checked")
                .l(),
        };
        let sigma2 = 1.0 / prior.draw_precision(rng);
        Self::theta(&prior.draw_beta(sigma2, rng), sigma2)
    }

    fn draw_record<R: Rng + ?Sized>(&self, theta: &Vec<f64>, rng: &mut R) -> Vec<f64> {
        let mut r = self.draw_covariates(rng);
        let sigma = theta[self.p() + 1].sqrt();
        let e: f64 = rng.sample(StandardNormal);
        r.push(Self::mean_response(theta, &r) + sigma * e);
        r
    }

    fn draw_theta<R: Rng + ?Sized>(&self, records: &[Vec<f64>], rng: &mut R) -> Vec<f64> {
        let post = self.posterior(records);
        let sigma2 = 1.0 / post.draw_precision(rng);
        Self::theta(&post.draw_beta(sigma2, rng), sigma2)
    }

    fn parameter_names(&self) -> Vec<String> {
        (0..=self.p())
            .map(|j| format!("beta{j}"))
            .chain(["sigma2".to_string()])
            .collect()
    }

    fn parameters(&self, theta: &Vec<f64>) -> Vec<f64> {
        theta.clone()
    }

    /// ((p + 3)p + 3)/n, their Δ: each of the p + 1 entries of x̃ỹ and each
    /// intercept entry x̃ⱼ moves by at most 2/n, ỹ² and each x̃ⱼ² by 1/n, each
    /// x̃ⱼx̃ₗ (j < l, both covariates) by 2/n.
    fn l1_sensitivity(&self) -> f64 {
        let p = self.p() as f64;
        ((p + 3.0) * p + 3.0) / self.n as f64
    }
}

impl CoupledModel for NigRegression {
    /// Their coupling: the covariates shared, the responses from a maximal
    /// coupling of N((1, x)ᵀβ₁, σ₁²) and N((1, x)ᵀβ₂, σ₂²). (Their code gives up
    /// after 100 redraws and copies chain 1's response; this redraws until done.)
    fn draw_record_pair<R: Rng + ?Sized>(
        &self,
        t1: &Vec<f64>,
        t2: &Vec<f64>,
        rng: &mut R,
    ) -> (Vec<f64>, Vec<f64>) {
        let x = self.draw_covariates(rng);
        let p = self.p();
        let law = |t: &Vec<f64>| (Self::mean_response(t, &x), t[p + 1].sqrt());
        let (l1, l2) = (law(t1), law(t2));
        let ln = |(mu, sd): (f64, f64)| move |y: &f64| -0.5 * ((y - mu) / sd).powi(2) - sd.ln();
        let draw =
            |(mu, sd): (f64, f64)| move |r: &mut R| mu + sd * r.sample::<f64, _>(StandardNormal);
        let (y1, y2) = maximal_giving_up(rng, draw(l1), ln(l1), draw(l2), ln(l2), self.give_up);
        let record = |y: f64| x.iter().copied().chain([y]).collect::<Vec<f64>>();
        (record(y1), record(y2))
    }

    /// Their coupling: the precision σ⁻² from a maximal coupling of the two
    /// Gamma conditionals, then β from a maximal coupling of the two normals.
    fn draw_theta_pair<R: Rng + ?Sized>(
        &self,
        x1: &[Vec<f64>],
        x2: &[Vec<f64>],
        rng: &mut R,
    ) -> (Vec<f64>, Vec<f64>) {
        let (p1, p2) = (self.posterior(x1), self.posterior(x2));
        let (t1, t2) = maximal(
            rng,
            |r: &mut R| p1.draw_precision(r),
            |t: &f64| p1.ln_precision(*t),
            |r: &mut R| p2.draw_precision(r),
            |t: &f64| p2.ln_precision(*t),
        );
        let (s1, s2) = (1.0 / t1, 1.0 / t2);
        let (b1, b2) = maximal(
            rng,
            |r: &mut R| p1.draw_beta(s1, r),
            |b: &DVector<f64>| p1.ln_beta(b, s1),
            |r: &mut R| p2.draw_beta(s2, r),
            |b: &DVector<f64>| p2.ln_beta(b, s2),
        );
        (Self::theta(&b1, s1), Self::theta(&b2, s2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn theirs(n: usize) -> NigRegression {
        NigRegression::xiong_ju(n).unwrap()
    }

    /// The statistic is their `gen_s` order, and Δ bounds its L1 change.
    #[test]
    fn the_statistic_is_theirs_and_delta_bounds_it() {
        let m = theirs(4);
        let mut out = Vec::new();
        // x = (3, −9 → clamped −6), y = 6: x̃ = (1, 0.5, −1), ỹ = 1
        m.contribution(&vec![3.0, -9.0, 6.0], &mut out);
        let got: Vec<f64> = out.iter().map(|&(_, v)| v * 4.0).collect();
        assert_eq!(got, vec![1.0, 0.5, -1.0, 1.0, 0.5, -1.0, 0.25, -0.5, 1.0]);
        assert_eq!(
            out.iter().map(|&(k, _)| k).collect::<Vec<_>>(),
            (0..9).collect::<Vec<_>>()
        );
        assert_eq!(m.statistic_len(), 9);
        assert!((m.l1_sensitivity() - 13.0 / 4.0).abs() < 1e-15);
        // the corners of [−1, 1]³ reach Δ: brute force over them
        let corners: Vec<Vec<f64>> = (0..8)
            .map(|b| {
                (0..3)
                    .map(|i| if b >> i & 1 == 1 { 6.0 } else { -6.0 })
                    .collect()
            })
            .collect();
        let c = |r: &Vec<f64>| {
            let mut o = Vec::new();
            m.contribution(r, &mut o);
            o.into_iter().map(|(_, v)| v).collect::<Vec<f64>>()
        };
        let worst = corners
            .iter()
            .flat_map(|a| corners.iter().map(move |b| (a, b)))
            .map(|(a, b)| {
                c(a).iter()
                    .zip(c(b))
                    .map(|(u, v)| (u - v).abs())
                    .sum::<f64>()
            })
            .fold(0.0, f64::max);
        assert!(worst <= m.l1_sensitivity() + 1e-12, "{worst}");
    }

    /// θ | x: the draws' moments against the closed form (E σ² = b/(a − 1),
    /// E β = mean).
    #[test]
    fn the_conjugate_step_has_the_closed_form_moments() {
        let m = theirs(30);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        let truth = vec![-1.79, -2.89, -0.66, 1.13];
        let records: Vec<Vec<f64>> = (0..30).map(|_| m.draw_record(&truth, &mut rng)).collect();
        let post = m.posterior(&records);
        let draws: Vec<Vec<f64>> = (0..40_000)
            .map(|_| m.draw_theta(&records, &mut rng))
            .collect();
        let mean = |k: usize| draws.iter().map(|d| d[k]).sum::<f64>() / draws.len() as f64;
        let sd = |k: usize| {
            let mu = mean(k);
            (draws.iter().map(|d| (d[k] - mu).powi(2)).sum::<f64>() / draws.len() as f64).sqrt()
        };
        for k in 0..3 {
            assert!((mean(k) - post.mean[k]).abs() < 4.0 * sd(k) / 200.0, "β{k}");
        }
        let e_s2 = post.b / (post.a - 1.0);
        assert!(
            (mean(3) - e_s2).abs() < 4.0 * sd(3) / 200.0,
            "{} vs {e_s2}",
            mean(3)
        );
        // the densities integrate to 1 (precision by quadrature, β at its mean
        // against the normal's constant)
        let quad = crate::numeric::quadrature::GaussLegendre::new(200);
        let hi = 10.0 * post.a / post.b;
        let total = quad.integrate_composite(0.0, hi, 50, |t| post.ln_precision(t).exp());
        assert!((total - 1.0).abs() < 1e-9, "{total}");
    }
}
