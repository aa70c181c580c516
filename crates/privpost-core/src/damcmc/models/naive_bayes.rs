//! Ju et al. 2022's naive-Bayes log-linear model for data-augmentation MCMC.

use rand::{Rng, RngExt};

use super::error::ModelError;
use crate::damcmc::AugmentedModel;
use crate::expfam::noise_aware_dirichlet::sample_dirichlet;

/// Ju et al. 2022's naive-Bayes log-linear model: each of n records has a
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
