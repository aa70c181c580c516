//! The two models of `calibration/da_models` (their config tables and the
//! engine's models built from them) and their naive posteriors: the conjugate
//! posterior with the noisy statistics read as exact.

use nalgebra::{DMatrix, DVector};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use serde::Deserialize;

use crate::damcmc::models::{LinearRegression, ModelError, NaiveBayes, NbTheta};
use crate::damcmc::AugmentedModel;
use crate::expfam::noise_aware_dirichlet::sample_dirichlet;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NbConfig {
    pub n_values: Vec<u64>,
    /// the Dirichlet prior of the I class probabilities
    pub class_prior: Vec<f64>,
    /// J_k per feature; every answer law has the prior Dirichlet(answer_prior, …)
    pub levels: Vec<u64>,
    pub answer_prior: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegConfig {
    pub n_values: Vec<u64>,
    /// one covariate x ~ N(x_mean, x_variance), y = β₀ + β₁x + N(0, noise_variance)
    pub x_mean: f64,
    pub x_variance: f64,
    pub noise_variance: f64,
    /// β ~ N(0, τ²I)
    pub tau: f64,
    pub x_bounds: [f64; 2],
    pub y_bounds: [f64; 2],
}

pub fn nb_model(c: &NbConfig, n: u64) -> Result<NaiveBayes, ModelError> {
    let answers = c
        .levels
        .iter()
        .map(|&j| vec![vec![c.answer_prior; j as usize]; c.class_prior.len()])
        .collect();
    NaiveBayes::new(c.class_prior.clone(), answers, n as usize)
}

pub fn reg_model(c: &RegConfig, n: u64) -> Result<LinearRegression, ModelError> {
    LinearRegression::new(
        vec![c.x_mean],
        vec![vec![c.x_variance]],
        (c.noise_variance, c.tau),
        (
            (c.x_bounds[0], c.x_bounds[1]),
            (c.y_bounds[0], c.y_bounds[1]),
        ),
        n as usize,
    )
}

/// The naive posterior of the naive-Bayes model: the noisy counts clamped at 0
/// read as exact; class counts the mean over features of the tables' class sums.
pub fn nb_naive(
    model: &NaiveBayes,
    c: &NbConfig,
    values: &[f64],
    l: usize,
    rng: &mut ChaCha8Rng,
) -> Vec<Vec<f64>> {
    let levels = model.levels();
    let classes = model.classes();
    let mut class_counts = vec![0.0; classes];
    for (k, &j) in levels.iter().enumerate() {
        for (i, count) in class_counts.iter_mut().enumerate() {
            let sum: f64 = (0..j).map(|a| values[model.cell(k, i, a)].max(0.0)).sum();
            *count += sum / levels.len() as f64;
        }
    }
    let class_post: Vec<f64> = c
        .class_prior
        .iter()
        .zip(&class_counts)
        .map(|(a, n)| a + n)
        .collect();
    (0..l)
        .map(|_| {
            let theta = NbTheta {
                p: sample_dirichlet(&class_post, rng),
                answers: levels
                    .iter()
                    .enumerate()
                    .map(|(k, &j)| {
                        (0..classes)
                            .map(|i| {
                                let post: Vec<f64> = (0..j)
                                    .map(|a| c.answer_prior + values[model.cell(k, i, a)].max(0.0))
                                    .collect();
                                sample_dirichlet(&post, rng)
                            })
                            .collect()
                    })
                    .collect(),
            };
            model.parameters(&theta)
        })
        .collect()
}

/// The naive posterior of the regression: the released X̃ᵀỸ and X̃ᵀX̃ of the
/// normalised data (x̃ = a·x + c, ỹ = a_y·y + c_y, the intercept kept at 1) mapped
/// back to XᵀY and XᵀX as if nothing was clamped, then β's conjugate normal
/// posterior, its precision XᵀX/σ² + I/τ² with eigenvalues floored at 1/τ² (the
/// noisy XᵀX need not be positive definite). One covariate.
pub fn reg_naive(c: &RegConfig, values: &[f64], l: usize, rng: &mut ChaCha8Rng) -> Vec<Vec<f64>> {
    let (mean, chol) = reg_naive_law(c, values);
    let l_t = chol.l().transpose();
    (0..l)
        .map(|_| {
            let z = DVector::<f64>::from_fn(2, |_, _| rng.sample(StandardNormal));
            let shift = l_t.solve_upper_triangular(&z).expect("invertible");
            (&mean + shift).iter().copied().collect()
        })
        .collect()
}

/// The naive regression posterior's mean and the Cholesky factor of its precision.
fn reg_naive_law(
    c: &RegConfig,
    values: &[f64],
) -> (DVector<f64>, nalgebra::Cholesky<f64, nalgebra::Dyn>) {
    let affine = |[lo, hi]: [f64; 2]| (2.0 / (hi - lo), -2.0 * lo / (hi - lo) - 1.0);
    let (ax, cx) = affine(c.x_bounds);
    let (ay, cy) = affine(c.y_bounds);
    // statistic: X̃ᵀỸ (2), ỸᵀỸ, then (0,0), (1,0), (1,1) of X̃ᵀX̃
    let s = DMatrix::from_row_slice(2, 2, &[values[3], values[4], values[4], values[5]]);
    let a = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, cx, ax]);
    let a_inv = a.try_inverse().expect("a > 0");
    let xtx = &a_inv * s * a_inv.transpose();
    let xty = (&a_inv * DVector::from_row_slice(&values[0..2]) - cy * xtx.column(0)) / ay;
    let prior = 1.0 / (c.tau * c.tau);
    let raw = &xtx / c.noise_variance + DMatrix::identity(2, 2) * prior;
    let eig = nalgebra::SymmetricEigen::new(raw);
    let floored = eig.eigenvalues.map(|v| v.max(prior));
    let prec = &eig.eigenvectors * DMatrix::from_diagonal(&floored) * eig.eigenvectors.transpose();
    let chol = nalgebra::Cholesky::new(prec).expect("floored eigenvalues are positive");
    let mean = chol.solve(&(xty / c.noise_variance));
    (mean, chol)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// With exact statistics of records the clamp does not touch, the naive
    /// regression posterior is the conjugate posterior on the records: the
    /// normalisation is undone exactly.
    #[test]
    fn the_naive_regression_law_undoes_the_normalisation() {
        let c = RegConfig {
            n_values: vec![5],
            x_mean: 0.3,
            x_variance: 0.5,
            noise_variance: 0.7,
            tau: 1.5,
            x_bounds: [-20.0, 25.0],
            y_bounds: [-30.0, 10.0],
        };
        let model = reg_model(&c, 5).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let beta = vec![0.4, -1.2];
        let records: Vec<Vec<f64>> = (0..5).map(|_| model.draw_record(&beta, &mut rng)).collect();
        let stat = crate::damcmc::statistic(&model, &records);
        let (mean, chol) = reg_naive_law(&c, &stat);
        let mut prec = DMatrix::<f64>::identity(2, 2) / (c.tau * c.tau);
        let mut xty = DVector::<f64>::zeros(2);
        for r in &records {
            let x = [1.0, r[0]];
            for j in 0..2 {
                xty[j] += x[j] * r[1] / c.noise_variance;
                for l in 0..2 {
                    prec[(j, l)] += x[j] * x[l] / c.noise_variance;
                }
            }
        }
        let exact = prec.clone().try_inverse().unwrap() * xty;
        let got_prec = chol.l() * chol.l().transpose();
        for j in 0..2 {
            assert!((mean[j] - exact[j]).abs() < 1e-9, "{mean} vs {exact}");
            for l in 0..2 {
                assert!(
                    (got_prec[(j, l)] - prec[(j, l)]).abs() < 1e-9,
                    "{got_prec} vs {prec}"
                );
            }
        }
    }
}
