//! minami2016/logreg (beyond the papers): private Bayesian logistic regression on a
//! common (ε, δ) footing — Minami et al.'s Gibbs posterior (Theorem 7, §3.3), OPS
//! (pure ε-DP, Wang et al. 2015 as run by Geumlek et al.), and Geumlek et al.'s
//! Concentrated and Diffuse posteriors with their RDP curves (Theorem 16: ε(α) = κα
//! for every α ≥ 1) converted to (ε, δ), optimised over the order.

use std::sync::Arc;

use nalgebra::DMatrix;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use serde::Deserialize;

use super::logreg::{self, Sampler};
use super::{Deferred, Figure, Plan};
use crate::config::{check, deserialize, ParamError};
use crate::data::Task;
use crate::glm::calibrate::{
    gibbs_beta_corollary, gibbs_tail_bound, langevin_schedule, Calibrated, Setting,
};
use crate::privacy::event::Conversion;
use crate::privacy::event::{Event, Guarantee};
use crate::privacy::ledger::{Entry, Ledger};
use crate::results::manifest::DatasetRecord;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use crate::samplers::{hmc, LinearTarget};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    datasets: Vec<String>,
    /// the user's CSV datasets, by name (`[csv_datasets.NAME]`, see `data::csv_dataset`)
    #[serde(default)]
    csv_datasets: Option<toml::Table>,
    /// The datasets folder, when the config names one (else `--data`,
    /// `$PRIVPOST_DATA` or the per-user data folder).
    #[serde(default)]
    data_dir: Option<String>,
    split_seed: u64,
    beta0: f64,
    ln_epsilons: Vec<f64>,
    delta: f64,
    conversion: Conversion,
    mechanisms: Vec<Mech>,
    repeats: usize,
    sampler: logreg::SamplerName,
    burn_in: usize,
    tune_iterations: usize,
    path_length: f64,
    /// the independence sampler (`sampler = "imh"`)
    #[serde(default)]
    imh: logreg::ImhConfig,
    /// "same" (the figure's sampler) or "langevin" (Proposition 13)
    gibbs_sampler: GibbsSampler,
    /// with "langevin": the share of δ given to the sampler's TV term (1 + e^ε)γ
    langevin_delta_share: f64,
    /// with "langevin": refuse schedules needing more iterations than this
    langevin_max_iterations: f64,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Config>;

/// How the Gibbs posterior is sampled.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum GibbsSampler {
    /// the figure's sampler (HMC or slice)
    Same,
    /// Proposition 13's unadjusted Langevin schedule
    Langevin,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Mech {
    Gibbs,
    Ops,
    Concentrated,
    Diffuse,
    TruePosterior,
}

impl Mech {
    fn name(self) -> &'static str {
        match self {
            Mech::Gibbs => "gibbs",
            Mech::Ops => "ops",
            Mech::Concentrated => "concentrated",
            Mech::Diffuse => "diffuse",
            Mech::TruePosterior => "true_posterior",
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Point {
    dataset: usize,
    ln_epsilon: f64,
    mech: Mech,
    cal: Calibrated,
    /// Langevin schedule (step, iterations) when the Gibbs posterior is sampled by LMC
    langevin: Option<(f64, u64)>,
}

pub struct Logreg {
    /// the datasets as read, for the manifest
    records: Vec<DatasetRecord>,
    tasks: Vec<Arc<Task>>,
    settings: Vec<Setting>,
    points: Vec<Point>,
    unique: Vec<(usize, Calibrated)>,
    which: Vec<usize>,
    repeats: usize,
    sampler: Sampler,
    delta: f64,
    conversion: Conversion,
    /// with the Langevin sampler: the share of δ given to its TV term
    langevin_delta_share: f64,
    /// the seed of the exactly sampled posteriors' keyed streams ([`logreg::shared_scores`])
    seed: u64,
}

pub fn validate(params: &toml::Table, seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let c: Config = deserialize(params)?;
    let beta0 = logreg::positive_beta0(c.beta0)?;
    logreg::ln_epsilons("ln_epsilons", &c.ln_epsilons)?;
    if !(c.delta > 0.0 && c.delta < 1.0) {
        return Err(ParamError::new(
            "delta",
            format!("invalid δ = {}", c.delta),
            "0 < δ < 1",
        ));
    }
    let conversion = c.conversion;
    check::non_empty("mechanisms", &c.mechanisms)?;
    let mechs = c.mechanisms.clone();
    let repeats = logreg::repeats(c.repeats)?;
    let sampler = logreg::SamplerConfig {
        sampler: c.sampler,
        burn_in: c.burn_in,
        tune_iterations: c.tune_iterations,
        path_length: c.path_length,
        imh: c.imh,
    }
    .validate()?;
    let use_langevin = c.gibbs_sampler == GibbsSampler::Langevin;
    if !(c.langevin_delta_share > 0.0 && c.langevin_delta_share < 1.0) {
        return Err(ParamError::new(
            "langevin_delta_share",
            format!("{}", c.langevin_delta_share),
            "0 < share < 1",
        ));
    }
    logreg::check_datasets(&c.datasets, c.csv_datasets.as_ref())?;
    logreg::check_data_dir(c.data_dir.as_deref())?;
    let description = format!(
        "{} grid points ({} datasets × {} ln ε × {} mechanisms, δ = {:e}); distinct posteriors decided once the datasets are loaded, × {} draws ({} sampler)",
        c.datasets.len() * c.ln_epsilons.len() * mechs.len(),
        c.datasets.len(),
        c.ln_epsilons.len(),
        mechs.len(),
        c.delta,
        repeats,
        sampler.name()
    );
    Ok(Box::new(Deferred {
        description,
        config: Validated {
            c,
            beta0,
            conversion,
            mechs,
            repeats,
            sampler,
            use_langevin,
            seed,
        },
        prepare,
    }))
}

/// The config, validated; its datasets not yet loaded.
struct Validated {
    c: Config,
    beta0: f64,
    conversion: Conversion,
    mechs: Vec<Mech>,
    repeats: usize,
    sampler: Sampler,
    use_langevin: bool,
    seed: u64,
}

/// Loads the datasets (fetching missing ones) and calibrates every grid point.
fn prepare(v: Validated) -> Result<Box<dyn Figure>, ParamError> {
    let Validated {
        c,
        beta0,
        conversion,
        mechs,
        repeats,
        sampler,
        use_langevin,
        seed,
    } = v;
    let (tasks, records, settings) = logreg::prepare(
        &c.datasets,
        c.csv_datasets.as_ref(),
        c.data_dir.as_deref(),
        c.split_seed,
        beta0,
    )?;
    let mut points = Vec::new();
    for (dataset, s) in settings.iter().enumerate() {
        for &ln_epsilon in &c.ln_epsilons {
            let eps = ln_epsilon.exp();
            for &mech in &mechs {
                let mut langevin = None;
                let cal = match mech {
                    Mech::Gibbs if use_langevin => {
                        // δ = δ_G + (1 + e^ε)γ (Proposition 12)
                        let delta_g = c.delta * (1.0 - c.langevin_delta_share);
                        let gamma = c.delta * c.langevin_delta_share / (1.0 + eps);
                        let cal = s.gibbs(eps, delta_g);
                        let m_pi = s.n as f64 * s.beta0;
                        let sched = langevin_schedule(
                            tasks[dataset].dim(),
                            s.n,
                            cal.rho,
                            s.c * s.c / 4.0,
                            m_pi,
                            m_pi,
                            gamma,
                        );
                        if sched.iterations.is_nan() || sched.iterations > c.langevin_max_iterations
                        {
                            return Err(ParamError::new(
                                "langevin_max_iterations",
                                format!(
                                    "Proposition 13 needs T = {:.3e} Langevin iterations (step h = {:.3e}) on {} at ln ε = {ln_epsilon}, γ = {gamma:.3e}",
                                    sched.iterations, sched.step, tasks[dataset].name
                                ),
                                "a larger limit, a larger langevin_delta_share, or gibbs_sampler = \"same\"",
                            ));
                        }
                        langevin = Some((sched.step, sched.iterations as u64));
                        cal
                    }
                    Mech::Gibbs => s.gibbs(eps, c.delta),
                    Mech::Ops => s.ops(eps),
                    Mech::Concentrated => s.concentrated_dp(eps, c.delta, conversion),
                    Mech::Diffuse => s.diffuse_dp(eps, c.delta, conversion),
                    Mech::TruePosterior => s.true_posterior(),
                };
                points.push(Point {
                    dataset,
                    ln_epsilon,
                    mech,
                    cal,
                    langevin,
                });
            }
        }
    }
    // Langevin-sampled points never share draws with exactly sampled ones
    let keyed: Vec<(usize, Calibrated)> = points
        .iter()
        .map(|p| {
            let mut cal = p.cal;
            if p.langevin.is_some() {
                cal.radius = Some(f64::from_bits(u64::MAX - p.ln_epsilon.to_bits()));
            }
            (p.dataset, cal)
        })
        .collect();
    let (unique, which) = logreg::dedupe(&keyed);
    Ok(Box::new(Logreg {
        records,
        tasks,
        settings,
        points,
        unique,
        which,
        repeats,
        sampler,
        delta: c.delta,
        conversion,
        langevin_delta_share: c.langevin_delta_share,
        seed,
    }))
}

/// A row of `data.csv`: one independent draw's test scores at a grid point.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LogregRow {
    pub dataset: String,
    pub ln_epsilon: f64,
    pub mechanism: String,
    pub beta: f64,
    pub rho: f64,
    pub sampler: String,
    pub repeat: u64,
    pub test_error: f64,
    pub test_loglik: f64,
    pub delta: f64,
    /// the independence sampler's steps, acceptance and estimated TV bound for
    /// this posterior ([`logreg::ImhCells`]; empty for other samplers)
    pub imh_steps: Option<u64>,
    pub imh_acceptance: Option<f64>,
    pub imh_tv_estimate: Option<f64>,
}

impl Logreg {
    fn first_point(&self, index: usize) -> &Point {
        let i = self.which.iter().position(|&w| w == index).unwrap_or(0);
        &self.points[i]
    }
}

/// A row of `summary.csv`: a grid point's mean ± s.e. over its draws, and for the
/// Gibbs posterior the β its corollary gives and whether Theorem 1 covers it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LogregSummary {
    pub dataset: String,
    pub ln_epsilon: f64,
    pub epsilon: f64,
    pub delta: f64,
    pub mechanism: String,
    pub beta: f64,
    pub rho: f64,
    /// empty but for the Gibbs posterior
    pub gibbs_beta_corollary: Option<f64>,
    /// "yes", "no", or empty but for the Gibbs posterior
    pub corollary_covered_by_theorem: String,
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

impl Figure for Logreg {
    fn task_count(&self) -> usize {
        self.unique.len()
    }

    fn grid_description(&self) -> String {
        format!(
            "{} grid points ({} datasets, δ = {}, {} conversion) → {} distinct posteriors × {} draws",
            self.points.len(),
            self.tasks.len(),
            self.delta,
            self.conversion.as_str(),
            self.unique.len(),
            self.repeats
        )
    }

    fn task_cost(&self, index: usize) -> f64 {
        let task = &self.tasks[self.unique[index].0];
        match self.first_point(index).langevin {
            None => logreg::draws_cost(task, &self.sampler, self.repeats),
            // one gradient per Langevin step and chain, no leapfrog path
            Some((_, iterations)) => {
                logreg::setup_cost(task)
                    + logreg::hmc_cost(task, iterations as f64 * self.repeats as f64) / 10.0
            }
        }
    }

    fn task_memory(&self, index: usize) -> f64 {
        let task = &self.tasks[self.unique[index].0];
        logreg::task_memory(task) + 8.0 * task.dim() as f64 * self.repeats as f64 * 2.0
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let (dataset, _) = self.unique[index];
        let p0 = *self.first_point(index);
        let task = &self.tasks[dataset];
        let (scores, sampler_name, imh) = match p0.langevin {
            // exactly sampled: the posterior's keyed stream, shared with any figure of
            // the same seed that samples it (Geumlek Fig. 3's OPS and true posterior)
            None => {
                let shared =
                    logreg::shared_scores(task, &p0.cal, &self.sampler, self.repeats, self.seed)
                        .map_err(|e| format!("{}: {e}", task.name))
                        .map_err(anyhow::Error::msg)?;
                (
                    shared.pairs.clone(),
                    self.sampler.name(),
                    logreg::ImhCells::of(shared.imh.as_ref()),
                )
            }
            Some((step, iterations)) => {
                let s = &self.settings[dataset];
                let post = logreg::posterior(task, &p0.cal);
                let target = LinearTarget::original(&post);
                let (mode, _) = post.mode().map_err(anyhow::Error::msg)?;
                let big_m = s.n as f64 * p0.cal.rho * s.c * s.c / 4.0 + post.precision;
                let start = DMatrix::from_fn(task.dim(), self.repeats, |j, _| {
                    let z: f64 = StandardNormal.sample(rng);
                    mode[j] + z / big_m.sqrt()
                });
                let w = hmc::langevin(&target, start, step, iterations, rng);
                let scores = w
                    .column_iter()
                    .map(|c| logreg::score(task, &c.into_owned()))
                    .collect();
                (scores, "langevin", logreg::ImhCells::default())
            }
        };
        Ok(logreg::expand_rows(
            &self.points,
            &self.which,
            index,
            &scores,
            |p, r, err, ll| {
                to_row(&LogregRow {
                    dataset: task.name.to_string(),
                    ln_epsilon: p.ln_epsilon,
                    mechanism: p.mech.name().into(),
                    beta: p.cal.beta,
                    rho: p.cal.rho,
                    sampler: sampler_name.into(),
                    repeat: r as u64,
                    test_error: err,
                    test_loglik: ll,
                    delta: self.delta,
                    imh_steps: imh.steps,
                    imh_acceptance: imh.acceptance,
                    imh_tv_estimate: imh.tv_estimate,
                })
            },
        ))
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let data: Vec<LogregRow> = data.records()?;
        let key = |dataset: &str, ln_epsilon: f64, mechanism: &str| {
            (
                dataset.to_string(),
                ln_epsilon.to_bits(),
                mechanism.to_string(),
            )
        };
        let groups = logreg::metric_groups(data.iter().map(|r| {
            (
                key(&r.dataset, r.ln_epsilon, &r.mechanism),
                r.test_error,
                r.test_loglik,
            )
        }));
        let imh = logreg::ImhCells::by_key(data.iter().map(|r| {
            (
                key(&r.dataset, r.ln_epsilon, &r.mechanism),
                logreg::ImhCells {
                    steps: r.imh_steps,
                    acceptance: r.imh_acceptance,
                    tv_estimate: r.imh_tv_estimate,
                },
            )
        }));
        let mut rows = Vec::new();
        for p in &self.points {
            let s = &self.settings[p.dataset];
            let name = &self.tasks[p.dataset].name;
            let k = key(name, p.ln_epsilon, p.mech.name());
            let Some(m) = groups.get(&k) else {
                continue;
            };
            let cells = imh.get(&k).copied().unwrap_or_default();
            let eps = p.ln_epsilon.exp();
            let m_pi = s.n as f64 * s.beta0;
            let (cor, covered) = if p.mech == Mech::Gibbs {
                let b = gibbs_beta_corollary(eps, self.delta, s.c, m_pi);
                let ok = gibbs_tail_bound(b.min(1.0), eps, s.c, m_pi) <= self.delta && b <= 1.0;
                (Some(b), if ok { "yes" } else { "no" })
            } else {
                (None, "")
            };
            rows.push(LogregSummary {
                dataset: name.to_string(),
                ln_epsilon: p.ln_epsilon,
                epsilon: eps,
                delta: self.delta,
                mechanism: p.mech.name().into(),
                beta: p.cal.beta,
                rho: p.cal.rho,
                gibbs_beta_corollary: cor,
                corollary_covered_by_theorem: covered.into(),
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
                let eps = p.ln_epsilon.exp();
                let series = format!(
                    "dataset={}, ln_epsilon={}, mechanism={}",
                    self.tasks[p.dataset].name,
                    p.ln_epsilon,
                    p.mech.name()
                );
                let exact = logreg::exact_sampling_note(&self.sampler);
                let exact = exact.as_str();
                match p.mech {
                    Mech::TruePosterior => Entry::new(series, Event::NonPrivate, Guarantee::None),
                    Mech::Ops => {
                        let (event, guarantee) = s.ops_claim(&p.cal);
                        Entry::new(series, event, guarantee).when(exact)
                    }
                    Mech::Gibbs => {
                        let (delta, when) = match p.langevin {
                            Some((step, iterations)) => (
                                self.delta * (1.0 - self.langevin_delta_share),
                                format!("sampled by unadjusted Langevin (h = {step:e}, T = {iterations}), Proposition 12–13: its TV error adds (1 + e^ε)γ = {:e} to this δ (total δ = {:e})", self.delta * self.langevin_delta_share, self.delta),
                            ),
                            None => (self.delta, exact.to_string()),
                        };
                        let (event, guarantee) = s.gibbs_claim(&p.cal, eps, delta);
                        Entry::new(series, event, guarantee).when(when)
                    }
                    Mech::Concentrated | Mech::Diffuse => {
                        let (event, guarantee) =
                            s.approx_dp_claim(&p.cal, self.delta, self.conversion);
                        Entry::new(series, event, guarantee).when(exact)
                    }
                }
            })
            .collect())
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "delta": self.delta,
            "conversion": self.conversion.as_str(),
            "sampler": serde_json::to_value(self.sampler).unwrap_or_default(),
            "draws": logreg::DRAWS_NOTE,
        })
    }
}
