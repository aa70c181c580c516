//! Models for data-augmentation MCMC ([`super::AugmentedModel`]).
//!
//! - [`Categorical`]: n records in K categories, θ ~ Dirichlet(α), the released
//!   statistic their counts — all K (Foulds et al. 2016 eq. 16, usually clamped
//!   at 0) or the first K − 1 (Bernstein & Sheldon 2018's free counts).
//!   Beta-Bernoulli is K = 2 with the positives first: θ is P(x = 1).

use rand::{Rng, RngExt};

use super::AugmentedModel;
use crate::expfam::noise_aware_dirichlet::sample_dirichlet;

/// Which counts are released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counts {
    /// All K counts.
    All,
    /// The first K − 1 counts (the last is n minus their sum).
    Free,
}

/// n categorical records, a Dirichlet prior, a release of their counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Categorical {
    alpha: Vec<f64>,
    n: usize,
    counts: Counts,
    /// the reported parameters: "theta" (K = 2, θ₁ only) or theta1..thetaK
    names: Vec<String>,
}

/// A prior or size the model cannot take.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{key}: {found} — allowed: {allowed}")]
pub struct ModelError {
    pub key: &'static str,
    pub found: String,
    pub allowed: &'static str,
}

impl Categorical {
    /// Dirichlet-Categorical with prior Dirichlet(`alpha`) (K ≥ 2, each α_k > 0
    /// and finite) and n ≥ 1 records.
    pub fn dirichlet(alpha: Vec<f64>, n: usize, counts: Counts) -> Result<Self, ModelError> {
        if alpha.len() < 2 || alpha.iter().any(|a| !(a.is_finite() && *a > 0.0)) {
            return Err(ModelError {
                key: "prior",
                found: format!("{alpha:?}"),
                allowed: "at least 2 finite values > 0",
            });
        }
        if n == 0 {
            return Err(ModelError {
                key: "n",
                found: "0".into(),
                allowed: "at least 1 record",
            });
        }
        let names = (1..=alpha.len()).map(|k| format!("theta{k}")).collect();
        Ok(Self {
            alpha,
            n,
            counts,
            names,
        })
    }

    /// Beta-Bernoulli: prior Beta(a, b) on θ = P(x = 1); the statistic is
    /// (positives, negatives), or the positives alone for [`Counts::Free`].
    pub fn beta_bernoulli(a: f64, b: f64, n: usize, counts: Counts) -> Result<Self, ModelError> {
        let mut m = Self::dirichlet(vec![a, b], n, counts)?;
        m.names = vec!["theta".into()];
        Ok(m)
    }

    pub fn k(&self) -> usize {
        self.alpha.len()
    }
}

impl AugmentedModel for Categorical {
    /// The record's category.
    type Record = u32;
    type Theta = Vec<f64>;

    fn n(&self) -> usize {
        self.n
    }

    fn statistic_len(&self) -> usize {
        match self.counts {
            Counts::All => self.k(),
            Counts::Free => self.k() - 1,
        }
    }

    fn contribution(&self, x: &u32, out: &mut Vec<(usize, f64)>) {
        let k = *x as usize;
        if k < self.statistic_len() {
            out.push((k, 1.0));
        }
    }

    fn group(&self, x: &u32) -> u64 {
        u64::from(*x)
    }

    fn draw_prior<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<f64> {
        sample_dirichlet(&self.alpha, rng)
    }

    fn draw_record<R: Rng + ?Sized>(&self, theta: &Vec<f64>, rng: &mut R) -> u32 {
        let mut u = rng.random::<f64>();
        for (k, &p) in theta.iter().enumerate() {
            if u < p {
                return k as u32;
            }
            u -= p;
        }
        (theta.len() - 1) as u32
    }

    fn draw_theta<R: Rng + ?Sized>(&self, records: &[u32], rng: &mut R) -> Vec<f64> {
        let mut post = self.alpha.clone();
        for &x in records {
            post[x as usize] += 1.0;
        }
        sample_dirichlet(&post, rng)
    }

    fn parameter_names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn parameters(&self, theta: &Vec<f64>) -> Vec<f64> {
        theta[..self.names.len()].to_vec()
    }

    /// Replacing one record moves one unit between two counts: 2, or 1 when
    /// only one of them is released (free counts with K = 2).
    fn l1_sensitivity(&self) -> f64 {
        if self.statistic_len() >= 2 {
            2.0
        } else {
            1.0
        }
    }
}

/// Draws of θ (every coordinate, K per draw) from one record-wise chain on a
/// count release: what the calibration figures' `da_mcmc` arm checks. `seed`
/// names the chain's stream.
pub fn count_posterior(
    model: &Categorical,
    release: &super::Release,
    (warmup, draws): (usize, usize),
    seed: u64,
) -> Result<Vec<Vec<f64>>, super::DaError> {
    let full = Categorical {
        names: (1..=model.k()).map(|k| format!("theta{k}")).collect(),
        ..model.clone()
    };
    let settings = super::Settings {
        warmup,
        draws,
        chains: 1,
        kernel: super::Kernel::RecordWise,
        seed,
    };
    let mut out = super::sample(&full, release, &settings)?;
    Ok(out.chains.pop().unwrap_or_default())
}

/// Ju et al. 2022 §5.1's naive-Bayes log-linear model: each of n records has a
/// class i ∈ {1..I} and K categorical answers, answer k ∈ {1..J_k};
/// p ~ Dirichlet(α) on the classes, and for each feature k and class i the
/// answer law p_{·ik} ~ Dirichlet(β_{ki}). The released statistic is every
/// table n_{jik} (answer j of feature k among records of class i), K tables in
/// all, each record adding 1 to one cell of each; replacing one record moves
/// up to 2K counts (L1 sensitivity 2K, so their Laplace scale is 2K/ε).
#[derive(Debug, Clone, PartialEq)]
pub struct NaiveBayes {
    /// α: I values
    class_prior: Vec<f64>,
    /// β_{ki}: per feature k, per class i, J_k values
    answer_prior: Vec<Vec<Vec<f64>>>,
    n: usize,
    /// the first statistic coordinate of each feature's table (cell (j, i) at
    /// offset + i·J_k + j)
    offsets: Vec<usize>,
    names: Vec<String>,
}

/// A naive-Bayes record: the class, then the K answers (0-based).
pub type NbRecord = Vec<u16>;

/// The naive-Bayes parameters: class probabilities, and per feature and class
/// the answer probabilities.
#[derive(Debug, Clone, PartialEq)]
pub struct NbTheta {
    pub p: Vec<f64>,
    pub answers: Vec<Vec<Vec<f64>>>,
}

impl NaiveBayes {
    /// `class_prior` has I ≥ 2 values, `answer_prior[k][i]` J_k ≥ 2 values (the
    /// same J_k for every class); every value finite and > 0; n ≥ 1.
    pub fn new(
        class_prior: Vec<f64>,
        answer_prior: Vec<Vec<Vec<f64>>>,
        n: usize,
    ) -> Result<Self, ModelError> {
        let positive = |v: &[f64]| v.iter().all(|a| a.is_finite() && *a > 0.0);
        let classes = class_prior.len();
        if classes < 2 || classes > u16::MAX as usize || !positive(&class_prior) {
            return Err(ModelError {
                key: "prior.classes",
                found: format!("{class_prior:?}"),
                allowed: "at least 2 finite values > 0",
            });
        }
        if answer_prior.is_empty() {
            return Err(ModelError {
                key: "prior.answers",
                found: "no features".into(),
                allowed: "one table per feature: per class, J ≥ 2 finite values > 0",
            });
        }
        for per_class in &answer_prior {
            let j = per_class.first().map_or(0, Vec::len);
            if per_class.len() != classes
                || j < 2
                || j > u16::MAX as usize
                || per_class.iter().any(|v| v.len() != j || !positive(v))
            {
                return Err(ModelError {
                    key: "prior.answers",
                    found: format!("{per_class:?}"),
                    allowed: "per feature, one row per class, each J ≥ 2 finite values > 0 (the same J for every class)",
                });
            }
        }
        if n == 0 {
            return Err(ModelError {
                key: "n",
                found: "0".into(),
                allowed: "at least 1 record",
            });
        }
        // SOMA keys a record by its class and answers in mixed radix: they must fit
        let types = answer_prior
            .iter()
            .try_fold(classes as u64, |acc, t| acc.checked_mul(t[0].len() as u64));
        if types.is_none_or(|t| t > 1 << 62) {
            return Err(ModelError {
                key: "prior.answers",
                found: "more than 2⁶² kinds of record".into(),
                allowed: "classes × Π J_k ≤ 2⁶²",
            });
        }
        let mut offsets = Vec::with_capacity(answer_prior.len());
        let mut at = 0;
        for per_class in &answer_prior {
            offsets.push(at);
            at += classes * per_class[0].len();
        }
        let mut names: Vec<String> = (1..=classes).map(|i| format!("p{i}")).collect();
        for (k, per_class) in answer_prior.iter().enumerate() {
            for i in 0..classes {
                for j in 0..per_class[0].len() {
                    names.push(format!("p_f{}_c{}_a{}", k + 1, i + 1, j + 1));
                }
            }
        }
        Ok(Self {
            class_prior,
            answer_prior,
            n,
            offsets,
            names,
        })
    }

    pub fn classes(&self) -> usize {
        self.class_prior.len()
    }

    /// J_k of each feature.
    pub fn levels(&self) -> Vec<usize> {
        self.answer_prior.iter().map(|t| t[0].len()).collect()
    }

    /// The statistic coordinate of answer `j` of feature `k` in class `i`.
    pub fn cell(&self, k: usize, i: usize, j: usize) -> usize {
        self.offsets[k] + i * self.answer_prior[k][0].len() + j
    }
}

impl AugmentedModel for NaiveBayes {
    type Record = NbRecord;
    type Theta = NbTheta;

    fn n(&self) -> usize {
        self.n
    }

    fn statistic_len(&self) -> usize {
        self.levels().iter().map(|j| j * self.classes()).sum()
    }

    fn contribution(&self, x: &NbRecord, out: &mut Vec<(usize, f64)>) {
        let i = x[0] as usize;
        for (k, &a) in x[1..].iter().enumerate() {
            out.push((self.cell(k, i, a as usize), 1.0));
        }
    }

    /// The class and answers in mixed radix.
    fn group(&self, x: &NbRecord) -> u64 {
        let mut key = u64::from(x[0]);
        for (k, &a) in x[1..].iter().enumerate() {
            key = key
                .wrapping_mul(self.answer_prior[k][0].len() as u64)
                .wrapping_add(u64::from(a));
        }
        key
    }

    fn draw_prior<R: Rng + ?Sized>(&self, rng: &mut R) -> NbTheta {
        NbTheta {
            p: sample_dirichlet(&self.class_prior, rng),
            answers: self
                .answer_prior
                .iter()
                .map(|per_class| per_class.iter().map(|b| sample_dirichlet(b, rng)).collect())
                .collect(),
        }
    }

    fn draw_record<R: Rng + ?Sized>(&self, theta: &NbTheta, rng: &mut R) -> NbRecord {
        let categorical = |p: &[f64], rng: &mut R| -> u16 {
            let mut u = rng.random::<f64>();
            for (k, &q) in p.iter().enumerate() {
                if u < q {
                    return k as u16;
                }
                u -= q;
            }
            (p.len() - 1) as u16
        };
        let i = categorical(&theta.p, rng);
        let mut x = Vec::with_capacity(1 + self.answer_prior.len());
        x.push(i);
        for per_class in &theta.answers {
            x.push(categorical(&per_class[i as usize], rng));
        }
        x
    }

    fn draw_theta<R: Rng + ?Sized>(&self, records: &[NbRecord], rng: &mut R) -> NbTheta {
        let mut class = self.class_prior.clone();
        let mut answers = self.answer_prior.clone();
        for x in records {
            let i = x[0] as usize;
            class[i] += 1.0;
            for (k, &a) in x[1..].iter().enumerate() {
                answers[k][i][a as usize] += 1.0;
            }
        }
        NbTheta {
            p: sample_dirichlet(&class, rng),
            answers: answers
                .iter()
                .map(|per_class| per_class.iter().map(|b| sample_dirichlet(b, rng)).collect())
                .collect(),
        }
    }

    fn parameter_names(&self) -> Vec<String> {
        self.names.clone()
    }

    fn parameters(&self, theta: &NbTheta) -> Vec<f64> {
        let mut v = theta.p.clone();
        for per_class in &theta.answers {
            for a in per_class {
                v.extend_from_slice(a);
            }
        }
        v
    }

    /// Replacing a record moves one count in each of the K tables: 2K.
    fn l1_sensitivity(&self) -> f64 {
        2.0 * self.answer_prior.len() as f64
    }
}

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
        let err = |key: &'static str, found: String, allowed: &'static str| ModelError {
            key,
            found,
            allowed,
        };
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
        let chol = nalgebra::Cholesky::new(prec).expect("XᵀX/σ² + I/τ² is positive definite");
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

    /// With every value in [−1, 1] and the intercept 1: each entry of XᵀY and each
    /// off-diagonal entry of XᵀX moves by at most 2, YᵀY and each diagonal
    /// covariate entry by at most 1, the intercept's diagonal not at all.
    fn l1_sensitivity(&self) -> f64 {
        let p = self.p() as f64;
        2.0 * (p + 1.0) + 1.0 + p + 2.0 * p * (p + 1.0) / 2.0
    }
}
