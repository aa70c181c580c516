//! One module per paper: each figure maps a validated config to a flat plan of
//! tasks, runs a task as a pure function of (parameters, RNG), and aggregates
//! the task rows into the figure's summary.

pub mod bun2018;
pub mod foulds2016;
pub mod foulds2016_hmm;
pub mod foulds2016_recovery;
pub mod foulds2016_sweep;
pub mod geumlek2017;
pub mod heikkila2019;
pub mod logreg;
pub mod minami2016;
pub mod samplers;

use crate::config::ParamError;
use crate::runner::table::{Row, Table};
use rand_chacha::ChaCha8Rng;

/// A validated experiment ready to run. Implementations are immutable and
/// shared across worker threads.
pub trait Figure: Send + Sync {
    /// Number of tasks in the plan; tasks are indexed 0..task_count().
    fn task_count(&self) -> usize;
    /// One line describing the grid, for `privpost check`.
    fn grid_description(&self) -> String;
    /// Column names of `data.csv`.
    fn data_columns(&self) -> Vec<&'static str>;
    /// Rows of task `index`, using only `rng` for randomness.
    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> Result<Vec<Row>, String>;
    /// `summary.csv` from the data rows (in task order).
    fn summarize(&self, data: &Table) -> Result<Table, String>;
    /// Facts for the manifest: calibrations used, privacy levels, accuracies.
    fn manifest_details(&self) -> serde_json::Value;
}

/// Validates parameters and builds a figure; the seed feeds set-up streams.
pub type Builder = fn(&toml::Table, u64) -> Result<Box<dyn Figure>, ParamError>;

/// A figure this build can reproduce.
pub struct Spec {
    pub id: &'static str,
    pub title: &'static str,
    /// Default config, relative to the repository root.
    pub config: &'static str,
    /// Validates parameters and builds the figure. `seed` feeds setup streams.
    pub build: Builder,
}

pub const REGISTRY: &[Spec] = &[
    Spec {
        id: "geumlek2017/fig1",
        title: "Achievable (λ, ε)-RDP curves of the diffused and concentrated posteriors",
        config: "configs/geumlek2017/fig1.toml",
        build: geumlek2017::build_fig1,
    },
    Spec {
        id: "geumlek2017/fig2",
        title: "KL to the true posterior and held-out −ln p vs ln ε, Beta-Bernoulli",
        config: "configs/geumlek2017/fig2.toml",
        build: geumlek2017::build_fig2,
    },
    Spec {
        id: "geumlek2017/fig3",
        title: "Test error and log-likelihood of (λ, ε)-RDP logistic-regression posteriors",
        config: "configs/geumlek2017/fig3.toml",
        build: geumlek2017::build_fig3,
    },
    Spec {
        id: "geumlek2017/samplers",
        title: "Sampler validation: HMC and the paper's slice sampler vs a reference chain",
        config: "configs/geumlek2017/samplers.toml",
        build: samplers::build,
    },
    Spec {
        id: "foulds2016/fig1",
        title: "True, OPS and Laplace-mechanism posteriors (ε = 1, N = 20)",
        config: "configs/foulds2016/fig1.toml",
        build: foulds2016::build_fig1,
    },
    Spec {
        id: "foulds2016/fig2",
        title: "L1 error of one private posterior sample vs N",
        config: "configs/foulds2016/fig2.toml",
        build: foulds2016::build_fig2,
    },
    Spec {
        id: "minami2016/logreg",
        title:
            "Logistic regression at (ε, δ = 1e-5): Gibbs posterior vs OPS, Concentrated, Diffuse",
        config: "configs/minami2016/logreg.toml",
        build: minami2016::build,
    },
    Spec {
        id: "foulds2016/fig3",
        title: "HMM state assignments per region over time (Laplace, ε = 5, synthetic Iraq)",
        config: "configs/foulds2016/fig3.toml",
        build: foulds2016_hmm::build_fig3,
    },
    Spec {
        id: "foulds2016/fig4_5",
        title: "HMM per-state emission distributions (same run as foulds2016/fig3)",
        config: "configs/foulds2016/fig4_5.toml",
        build: foulds2016_hmm::build_fig4_5,
    },
    Spec {
        id: "foulds2016/fig6",
        title: "HMM test log-likelihood vs ε: non-private, Laplace, OPS (M = 10, 100)",
        config: "configs/foulds2016/fig6.toml",
        build: foulds2016_hmm::build_fig6,
    },
    Spec {
        id: "foulds2016/fig7",
        title: "HMM state assignments under OPS (ε = 5, M = 100, synthetic Afghanistan): last 100 samples vs last sample",
        config: "configs/foulds2016/fig7.toml",
        build: foulds2016_hmm::build_fig7,
    },
    Spec {
        id: "foulds2016/recovery",
        title: "HMM recovery of the planted states (ARI) and emissions (TV) vs ε, per mechanism (beyond the paper)",
        config: "configs/foulds2016/recovery.toml",
        build: foulds2016_recovery::build,
    },
    Spec {
        id: "bun2018/fig2",
        title: "Mean Hellinger distance to the true posterior vs n (k = 2, 3, 4)",
        config: "configs/bun2018/fig2.toml",
        build: bun2018::build_fig2,
    },
    Spec {
        id: "bun2018/fig3",
        title: "Distance quartiles vs prior strength; exact output distributions",
        config: "configs/bun2018/fig3.toml",
        build: bun2018::build_fig3,
    },
    Spec {
        id: "heikkila2019/fig1",
        title: "DP-MCMC privacy budget vs q and T; clipped ratios vs proposal variance",
        config: "configs/heikkila2019/fig1.toml",
        build: heikkila2019::build_fig1,
    },
    Spec {
        id: "heikkila2019/fig2",
        title: "Non-private vs private (DP-MCMC) tempered posterior samples, GMM",
        config: "configs/heikkila2019/fig2.toml",
        build: heikkila2019::build_fig2,
    },
    Spec {
        id: "heikkila2019/fig3",
        title: "Running posterior mean/variance error vs ε: DP-MCMC vs DP-SGLD",
        config: "configs/heikkila2019/fig3.toml",
        build: heikkila2019::build_fig3,
    },
];

pub fn find(id: &str) -> Option<&'static Spec> {
    REGISTRY.iter().find(|s| s.id == id)
}

pub fn known_ids() -> String {
    REGISTRY.iter().map(|s| s.id).collect::<Vec<_>>().join(", ")
}

/// Mean and M2 (sum of squared deviations) accumulated with Welford's method,
/// merged across chunks with Chan et al.'s formula.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Moments {
    pub count: u64,
    pub mean: f64,
    pub m2: f64,
}

impl Moments {
    pub fn push(&mut self, x: f64) {
        self.count += 1;
        let d = x - self.mean;
        self.mean += d / self.count as f64;
        self.m2 += d * (x - self.mean);
    }

    pub fn merge(&mut self, other: &Moments) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = *other;
            return;
        }
        let n = (self.count + other.count) as f64;
        let d = other.mean - self.mean;
        self.mean += d * other.count as f64 / n;
        self.m2 += other.m2 + d * d * self.count as f64 * other.count as f64 / n;
        self.count += other.count;
    }

    /// Sample standard deviation (n − 1); NaN for fewer than two values.
    pub fn sd(&self) -> f64 {
        if self.count < 2 {
            f64::NAN
        } else {
            (self.m2 / (self.count - 1) as f64).sqrt()
        }
    }

    pub fn se(&self) -> f64 {
        self.sd() / (self.count as f64).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_merge_equals_one_pass() {
        let xs: Vec<f64> = (0..1000).map(|i| ((i * 37) % 101) as f64 * 0.25).collect();
        let mut all = Moments::default();
        xs.iter().for_each(|&x| all.push(x));
        let mut merged = Moments::default();
        for chunk in xs.chunks(128) {
            let mut m = Moments::default();
            chunk.iter().for_each(|&x| m.push(x));
            merged.merge(&m);
        }
        assert_eq!(merged.count, all.count);
        assert!((merged.mean - all.mean).abs() < 1e-12);
        assert!((merged.sd() - all.sd()).abs() < 1e-12);
    }
}
