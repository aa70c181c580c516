//! geumlek2017 Figure 3 (and the appendix's log-likelihood figure): test error of
//! (λ, ε)-RDP logistic-regression posteriors on Abalone, Adult and MNIST.

use crate::config::{check, deserialize, ParamError};
use crate::data::Task as DataTask;
use crate::experiments::logreg::{self, Sampler};
use crate::experiments::{Deferred, Figure, Plan};
use crate::glm::calibrate::{Calibrated, Setting};
use crate::privacy::event::{Event, Guarantee};
use crate::privacy::ledger::{Entry, Ledger};
use crate::results::manifest::DatasetRecord;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use std::sync::Arc;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig3Config {
    datasets: Vec<String>,
    /// the user's CSV datasets, by name (`[csv_datasets.NAME]`, see `data::csv_dataset`)
    #[serde(default)]
    csv_datasets: Option<toml::Table>,
    /// The datasets folder, when the config names one (else `--data`,
    /// `$PRIVPOST_DATA` or the per-user data folder).
    #[serde(default)]
    data_dir: Option<String>,
    split_seed: u64,
    lambdas: Vec<f64>,
    ln_epsilons: Vec<f64>,
    mechanisms: Vec<GlmMechanism>,
    repeats: usize,
    beta0: f64,
    sampler: logreg::SamplerName,
    burn_in: usize,
    #[serde(default = "logreg::default_tune")]
    tune_iterations: usize,
    #[serde(default = "logreg::default_path")]
    path_length: f64,
    /// the independence sampler (`sampler = "imh"`)
    #[serde(default)]
    imh: logreg::ImhConfig,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const FIG3_SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Fig3Config>;

/// The (λ, ε)-RDP mechanisms of §5.2.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum GlmMechanism {
    Concentrated,
    Diffuse,
    Ops,
    TruePosterior,
}

impl GlmMechanism {
    fn name(self) -> &'static str {
        match self {
            Self::Concentrated => "concentrated",
            Self::Diffuse => "diffuse",
            Self::Ops => "ops",
            Self::TruePosterior => "true_posterior",
        }
    }
}

/// One grid point of Figure 3.
#[derive(Debug, Clone, Copy)]
struct Fig3Point {
    dataset: usize,
    lambda: f64,
    ln_epsilon: f64,
    mechanism: GlmMechanism,
    cal: Calibrated,
}

/// Test error and log-likelihood of (λ, ε)-RDP posterior samples on Abalone, Adult
/// and MNIST (Figure 3 and the appendix's test log-likelihood figure).
pub struct Fig3 {
    /// the datasets as read, for the manifest
    records: Vec<DatasetRecord>,
    tasks: Vec<Arc<DataTask>>,
    points: Vec<Fig3Point>,
    /// distinct posteriors (dataset, calibration), one task each
    unique: Vec<(usize, Calibrated)>,
    /// grid point → index in `unique`
    which: Vec<usize>,
    repeats: usize,
    sampler: Sampler,
    settings: Vec<Setting>,
    /// the seed of every posterior's keyed stream ([`logreg::shared_scores`])
    seed: u64,
}

pub fn validate_fig3(params: &toml::Table, seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let c: Fig3Config = deserialize(params)?;
    check::non_empty("lambdas", &c.lambdas)?;
    for &l in &c.lambdas {
        if !(1.0..=1e6).contains(&l) {
            return Err(ParamError::new(
                "lambdas",
                format!("invalid Rényi order λ = {l}"),
                "1 ≤ λ ≤ 1e6 (Theorem 16 holds for every λ ≥ 1)",
            ));
        }
    }
    logreg::ln_epsilons("ln_epsilons", &c.ln_epsilons)?;
    check::non_empty("mechanisms", &c.mechanisms)?;
    let mechanisms = c.mechanisms.clone();
    let repeats = logreg::repeats(c.repeats)?;
    let beta0 = logreg::positive_beta0(c.beta0)?;
    let sampler = logreg::SamplerConfig {
        sampler: c.sampler,
        burn_in: c.burn_in,
        tune_iterations: c.tune_iterations,
        path_length: c.path_length,
        imh: c.imh,
    }
    .validate()?;
    logreg::check_datasets(&c.datasets, c.csv_datasets.as_ref())?;
    logreg::check_data_dir(c.data_dir.as_deref())?;
    let description = format!(
        "{} grid points ({} datasets × {} λ × {} ln ε × {} mechanisms); distinct posteriors decided once the datasets are loaded, × {} draws ({} sampler)",
        c.datasets.len() * c.lambdas.len() * c.ln_epsilons.len() * mechanisms.len(),
        c.datasets.len(),
        c.lambdas.len(),
        c.ln_epsilons.len(),
        mechanisms.len(),
        repeats,
        sampler.name()
    );
    Ok(Box::new(Deferred {
        description,
        config: Fig3Plan {
            c,
            mechanisms,
            repeats,
            beta0,
            sampler,
            seed,
        },
        prepare: prepare_fig3,
    }))
}

/// Figure 3, validated; its datasets not yet loaded.
struct Fig3Plan {
    c: Fig3Config,
    mechanisms: Vec<GlmMechanism>,
    repeats: usize,
    beta0: f64,
    sampler: Sampler,
    seed: u64,
}

/// Loads the datasets (fetching missing ones) and calibrates every grid point.
fn prepare_fig3(plan: Fig3Plan) -> Result<Box<dyn Figure>, ParamError> {
    let Fig3Plan {
        c,
        mechanisms,
        repeats,
        beta0,
        sampler,
        seed,
    } = plan;
    let (tasks, records, settings) = logreg::prepare(
        &c.datasets,
        c.csv_datasets.as_ref(),
        c.data_dir.as_deref(),
        c.split_seed,
        beta0,
    )?;
    let mut points = Vec::new();
    for (dataset, s) in settings.iter().enumerate() {
        for &lambda in &c.lambdas {
            for &ln_epsilon in &c.ln_epsilons {
                let eps = ln_epsilon.exp();
                for &mechanism in &mechanisms {
                    let cal = match mechanism {
                        GlmMechanism::Concentrated => s.concentrated(lambda, eps),
                        GlmMechanism::Diffuse => s.diffuse(lambda, eps),
                        GlmMechanism::Ops => s.ops(eps),
                        GlmMechanism::TruePosterior => s.true_posterior(),
                    };
                    points.push(Fig3Point {
                        dataset,
                        lambda,
                        ln_epsilon,
                        mechanism,
                        cal,
                    });
                }
            }
        }
    }
    let keyed: Vec<(usize, Calibrated)> = points.iter().map(|p| (p.dataset, p.cal)).collect();
    let (unique, which) = logreg::dedupe(&keyed);
    Ok(Box::new(Fig3 {
        records,
        tasks,
        points,
        unique,
        which,
        repeats,
        sampler,
        settings,
        seed,
    }))
}

/// A row of `data.csv`: one independent draw's test scores at a grid point.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fig3Row {
    pub dataset: String,
    pub lambda: f64,
    pub ln_epsilon: f64,
    pub mechanism: String,
    pub beta: f64,
    pub rho: f64,
    pub repeat: u64,
    pub test_error: f64,
    pub test_loglik: f64,
    /// the independence sampler's steps, acceptance and estimated TV bound for
    /// this posterior ([`logreg::ImhCells`]; empty for other samplers)
    pub imh_steps: Option<u64>,
    pub imh_acceptance: Option<f64>,
    pub imh_tv_estimate: Option<f64>,
}

/// A row of `summary.csv`: a grid point's mean ± s.e. over its draws.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fig3Summary {
    pub dataset: String,
    pub lambda: f64,
    pub ln_epsilon: f64,
    pub mechanism: String,
    pub beta: f64,
    pub rho: f64,
    pub test_error_mean: f64,
    pub test_error_se: f64,
    pub test_loglik_mean: f64,
    pub test_loglik_se: f64,
    pub runs: u64,
    /// as the draws' rows
    pub imh_steps: Option<u64>,
    pub imh_acceptance: Option<f64>,
    pub imh_tv_estimate: Option<f64>,
}

impl Figure for Fig3 {
    fn task_count(&self) -> usize {
        self.unique.len()
    }

    fn grid_description(&self) -> String {
        format!(
            "{} grid points ({} datasets) → {} distinct posteriors × {} independent draws ({} sampler)",
            self.points.len(),
            self.tasks.len(),
            self.unique.len(),
            self.repeats,
            self.sampler.name()
        )
    }

    fn task_cost(&self, index: usize) -> f64 {
        logreg::draws_cost(
            &self.tasks[self.unique[index].0],
            &self.sampler,
            self.repeats,
        )
    }

    fn task_memory(&self, index: usize) -> f64 {
        let task = &self.tasks[self.unique[index].0];
        logreg::task_memory(task) + 8.0 * task.dim() as f64 * self.repeats as f64 * 2.0
    }

    /// The draws come from the posterior's keyed stream (not the task stream): see
    /// [`logreg::shared_scores`].
    fn run_task(&self, index: usize, _rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let (dataset, cal) = self.unique[index];
        let task = &self.tasks[dataset];
        let scores = logreg::shared_scores(task, &cal, &self.sampler, self.repeats, self.seed)
            .map_err(|e| format!("{}: {e}", task.name))
            .map_err(anyhow::Error::msg)?;
        let imh = logreg::ImhCells::of(scores.imh.as_ref());
        Ok(logreg::expand_rows(
            &self.points,
            &self.which,
            index,
            &scores.pairs,
            |p, r, err, ll| {
                to_row(&Fig3Row {
                    dataset: task.name.to_string(),
                    lambda: p.lambda,
                    ln_epsilon: p.ln_epsilon,
                    mechanism: p.mechanism.name().into(),
                    beta: p.cal.beta,
                    rho: p.cal.rho,
                    repeat: r as u64,
                    test_error: err,
                    test_loglik: ll,
                    imh_steps: imh.steps,
                    imh_acceptance: imh.acceptance,
                    imh_tv_estimate: imh.tv_estimate,
                })
            },
        ))
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let data: Vec<Fig3Row> = data.records()?;
        let key = |dataset: &str, lambda: f64, ln_epsilon: f64, mechanism: &str| {
            (
                dataset.to_string(),
                lambda.to_bits(),
                ln_epsilon.to_bits(),
                mechanism.to_string(),
            )
        };
        let groups = logreg::metric_groups(data.iter().map(|r| {
            (
                key(&r.dataset, r.lambda, r.ln_epsilon, &r.mechanism),
                r.test_error,
                r.test_loglik,
            )
        }));
        let imh = logreg::ImhCells::by_key(data.iter().map(|r| {
            (
                key(&r.dataset, r.lambda, r.ln_epsilon, &r.mechanism),
                logreg::ImhCells {
                    steps: r.imh_steps,
                    acceptance: r.imh_acceptance,
                    tv_estimate: r.imh_tv_estimate,
                },
            )
        }));
        let mut rows = Vec::new();
        for p in &self.points {
            let name = &self.tasks[p.dataset].name;
            let k = key(name, p.lambda, p.ln_epsilon, p.mechanism.name());
            let Some(m) = groups.get(&k) else {
                continue;
            };
            let cells = imh.get(&k).copied().unwrap_or_default();
            rows.push(Fig3Summary {
                dataset: name.to_string(),
                lambda: p.lambda,
                ln_epsilon: p.ln_epsilon,
                mechanism: p.mechanism.name().into(),
                beta: p.cal.beta,
                rho: p.cal.rho,
                test_error_mean: m.error.0,
                test_error_se: m.error.1,
                test_loglik_mean: m.loglik.0,
                test_loglik_se: m.loglik.1,
                runs: m.runs as u64,
                imh_steps: cells.steps,
                imh_acceptance: cells.acceptance,
                imh_tv_estimate: cells.tv_estimate,
            });
        }
        Ok(Table::of_records(&rows))
    }

    fn datasets(&self) -> Vec<DatasetRecord> {
        self.records.clone()
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        Ok(self
            .points
            .iter()
            .map(|p| {
                let s = &self.settings[p.dataset];
                let series = format!(
                    "dataset={}, lambda={}, ln_epsilon={}, mechanism={}",
                    self.tasks[p.dataset].name,
                    p.lambda,
                    p.ln_epsilon,
                    p.mechanism.name()
                );
                let exact = logreg::exact_sampling_note(&self.sampler);
                let exact = exact.as_str();
                match p.mechanism {
                    GlmMechanism::TruePosterior => {
                        Entry::new(series, Event::NonPrivate, Guarantee::None)
                    }
                    GlmMechanism::Ops => {
                        let event = s.event(&p.cal, &[]);
                        let epsilon = event.pure_epsilon().unwrap_or(f64::INFINITY);
                        Entry::new(series, event, Guarantee::PureDp { epsilon }).when(exact)
                    }
                    _ => Entry::new(
                        series,
                        s.event(&p.cal, &[p.lambda]),
                        Guarantee::Rdp {
                            order: p.lambda,
                            epsilon: p.ln_epsilon.exp(),
                        },
                    )
                    .when(exact),
                }
            })
            .collect())
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "sampler": serde_json::to_value(self.sampler).unwrap_or_default(),
            "distinct_posteriors": self.unique.len(),
            "draws": logreg::DRAWS_NOTE,
            "datasets": self.tasks.iter().zip(&self.settings).map(|(t, s)| serde_json::json!({
                "name": t.name,
                "n_train": t.train_x.nrows(),
                "n_test": t.test_x.nrows(),
                "dim": t.dim(),
                "c": s.c,
                "B": s.b,
                "beta0": s.beta0,
            })).collect::<Vec<_>>(),
        })
    }
}
