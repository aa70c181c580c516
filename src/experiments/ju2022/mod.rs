//! Ju, Awan, Gong & Rao, "Data Augmentation MCMC for Bayesian Inference from
//! Privatized Data" (NeurIPS 2022, arXiv 2206.00710): its two examples, run
//! with privpost's engine ([`crate::damcmc`]) on the settings of the authors'
//! scripts (`nianqiaoju/dataaugmentation-mcmc-differentialprivacy`).
//!
//! - `ju2022/loglinear` ([`loglinear`]): the naive-Bayes log-linear model, every
//!   table released with Laplace noise of scale 2K/ε; the record-wise kernel as
//!   their `loglinear_gibbs.R` computes its ratio (`published`) beside the
//!   ratio of the formula, and SOMA.
//! - `ju2022/regression` ([`regression`]): linear regression from noisy
//!   sufficient statistics (their `linearregression_gibbs.R`), Laplace noise of
//!   scale Δ/ε with their Δ = 13.
//!
//! Each figure draws one confidential dataset from the scripts' generating
//! parameters (stream [`crate::rng::Purpose::SharedData`]), then per ε and
//! repeat one release (keyed stream: the same release for every kernel), and
//! runs each kernel's chain on it. Rows hold each parameter's posterior
//! summary; the non-private posterior (the model's posterior given the
//! confidential data, in closed form) is the reference each ε is drawn beside.

pub mod loglinear;
pub mod plot;
mod published;
pub mod regression;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::config::{check, ParamError};
use crate::damcmc::{Draws, ParameterSummary};
use crate::privacy::event::{Event, Guarantee};
use crate::privacy::ledger::{Entry, Ledger};
use crate::results::table::Table;

/// The kernel of a run: how the records are updated (θ | x is the same).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Run {
    /// the posterior given the confidential data (closed form): the reference
    NonPrivate,
    /// the record-wise kernel with the ratio as `loglinear_gibbs.R` computes it
    Published,
    /// Ju et al.'s record-wise kernel, the ratio of the formula
    RecordWise,
    /// Xiong & Ju's single offer, multiple attempts
    Soma,
}

privpost_core::names::name_table!(Run {
    NonPrivate => "non_private",
    Published => "published",
    RecordWise => "record_wise",
    Soma => "soma",
});

/// A row of `data.csv`: one parameter's posterior from one run (one chain on
/// one release, or the non-private posterior).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PosteriorRow {
    pub epsilon: f64,
    pub repeat: u64,
    pub run: Run,
    pub parameter: String,
    /// the data-generating value
    pub truth: f64,
    pub mean: f64,
    pub sd: f64,
    pub q05: f64,
    pub q95: f64,
    /// whether [q05, q95] holds the data-generating value
    pub covered: bool,
    /// the records' acceptance rate after warm-up (empty: non-private)
    pub acceptance: Option<f64>,
    /// its lower bound e^{−Δ₁/b} for the record-wise kernel (empty otherwise)
    pub bound: Option<f64>,
    pub rhat: Option<f64>,
    pub ess_bulk: Option<f64>,
}

/// A row of `summary.csv`: one parameter at one ε for one kernel, over repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    pub epsilon: f64,
    pub run: Run,
    pub parameter: String,
    pub truth: f64,
    pub runs: u64,
    /// the posterior means' mean over repeats, and its s.e.
    pub mean: f64,
    pub mean_se: f64,
    /// the posterior sd's mean over repeats
    pub sd: f64,
    /// the share of repeats whose 90 % interval holds the data-generating value
    pub covered: f64,
    /// the acceptance rate's mean and smallest value over repeats, and its bound
    pub acceptance: Option<f64>,
    pub acceptance_min: Option<f64>,
    pub bound: Option<f64>,
    /// the bulk ESS's mean over repeats
    pub ess_bulk: Option<f64>,
}

/// The settings both figures share: ε, kernels, repeats and chain length.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridConfig {
    pub epsilons: Vec<f64>,
    pub runs: Vec<Run>,
    pub repeats: u64,
    /// iterations per chain, warm-up included (their scripts: 10,000)
    pub iterations: u64,
    /// the first iterations dropped
    pub warmup: u64,
}

impl GridConfig {
    /// The figure's ledger: per ε, one entry per kernel run on that ε's release
    /// (`epsilon=E, run=R`, the claim `release(ε)` gives), and the non-private
    /// reference's rows (`run=non_private`: computed from no release, no claim).
    /// Labelled by run, so `privpost show` gives the release's claim to the rows
    /// computed from it and none to the reference (matched by ε alone, the
    /// non-private rows once showed the release's ε).
    pub fn ledger(&self, release: impl Fn(f64) -> Entry) -> Ledger {
        let mut out = Vec::new();
        for &epsilon in &self.epsilons {
            for run in self.runs.iter().filter(|r| **r != Run::NonPrivate) {
                let mut e = release(epsilon);
                e.series = format!("epsilon={epsilon}, run={}", run.as_str());
                out.push(e);
            }
        }
        if self.runs.contains(&Run::NonPrivate) {
            out.push(
                Entry::new(
                    format!("run={}", Run::NonPrivate.as_str()),
                    Event::NonPrivate,
                    Guarantee::None,
                )
                .when("the posterior given the confidential data: the reference, never released"),
            );
        }
        out
    }
}

/// Most iterations of one chain, and most tasks.
const MAX_ITERATIONS: u64 = 10_000_000;
const MAX_REPEATS: u64 = 10_000;

/// One task: a kernel on the release of (ε, repeat), or the non-private
/// posterior (at every ε, repeat 0, so it is drawn across the axis).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub eps_index: usize,
    pub epsilon: f64,
    pub repeat: u64,
    pub run: Run,
}

/// A checked grid: its points in task order (ε, then kernel, then repeat).
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub points: Vec<Point>,
    pub warmup: usize,
    pub draws: usize,
}

impl GridConfig {
    /// Checks the keys; `published` says whether the figure has an as-published
    /// kernel.
    pub fn check(&self, published: bool) -> Result<Grid, ParamError> {
        check::non_empty("epsilons", &self.epsilons)?;
        for &e in &self.epsilons {
            check::within("epsilons", e, 1e-3, 1e3, "each ε in [0.001, 1000]")?;
        }
        check::non_empty("runs", &self.runs)?;
        for (i, r) in self.runs.iter().enumerate() {
            if self.runs[..i].contains(r) {
                return Err(ParamError::new(
                    "runs",
                    format!("{} twice", r.as_str()),
                    "each run once",
                ));
            }
            if *r == Run::Published && !published {
                return Err(ParamError::new(
                    "runs",
                    "\"published\"",
                    "non_private, record_wise, soma (this figure's script has no separate published ratio)",
                ));
            }
        }
        check::at_least("repeats", self.repeats, 1)?;
        if self.repeats > MAX_REPEATS {
            return Err(ParamError::new(
                "repeats",
                self.repeats.to_string(),
                format!("1 to {MAX_REPEATS}"),
            ));
        }
        if !(1..=MAX_ITERATIONS).contains(&self.iterations) {
            return Err(ParamError::new(
                "iterations",
                self.iterations.to_string(),
                format!("1 to {MAX_ITERATIONS}"),
            ));
        }
        if self.warmup >= self.iterations {
            return Err(ParamError::new(
                "warmup",
                self.warmup.to_string(),
                format!(
                    "fewer than iterations ({}), so draws are kept",
                    self.iterations
                ),
            ));
        }
        let mut points = Vec::new();
        for (eps_index, &epsilon) in self.epsilons.iter().enumerate() {
            for &run in &self.runs {
                let repeats = if run == Run::NonPrivate {
                    1
                } else {
                    self.repeats
                };
                for repeat in 0..repeats {
                    points.push(Point {
                        eps_index,
                        epsilon,
                        repeat,
                        run,
                    });
                }
            }
        }
        Ok(Grid {
            points,
            warmup: self.warmup as usize,
            draws: (self.iterations - self.warmup) as usize,
        })
    }
}

/// The stream of the release of (ε, repeat): keyed by the figure, ε and the
/// repeat, so every kernel sees the same release.
pub fn release_rng(figure: &str, seed: u64, epsilon: f64, repeat: u64) -> rand_chacha::ChaCha8Rng {
    let key = format!("{figure}/release/{:016x}/{repeat}", epsilon.to_bits());
    crate::rng::keyed_rng(seed, key.as_bytes())
}

/// A chain's rows: each named parameter's summary (the first `shown` of the
/// model's parameters), against the data-generating values `truth`.
pub fn chain_rows(
    point: &Point,
    draws: &Draws,
    shown: usize,
    truth: &[f64],
    bound: Option<f64>,
) -> Vec<PosteriorRow> {
    let summaries = draws.summary();
    let acceptance = draws.acceptance();
    summaries
        .into_iter()
        .take(shown)
        .zip(truth)
        .map(|(s, &t)| {
            let mut row = posterior_row(point, &s, t);
            row.acceptance = Some(acceptance);
            row.bound = if point.run == Run::RecordWise || point.run == Run::Published {
                bound
            } else {
                None
            };
            row
        })
        .collect()
}

/// A row from a parameter's summary, without the chain's acceptance.
pub fn posterior_row(point: &Point, s: &ParameterSummary, truth: f64) -> PosteriorRow {
    PosteriorRow {
        epsilon: point.epsilon,
        repeat: point.repeat,
        run: point.run,
        parameter: s.parameter.clone(),
        truth,
        mean: s.mean,
        sd: s.sd,
        q05: s.q05,
        q95: s.q95,
        covered: s.q05 <= truth && truth <= s.q95,
        acceptance: None,
        bound: None,
        rhat: s.rhat,
        ess_bulk: s.ess_bulk,
    }
}

/// The summary: per (ε, kernel, parameter) in the order of first appearance.
pub fn summarize(data: &Table) -> anyhow::Result<Table> {
    let rows: Vec<PosteriorRow> = data.records()?;
    let mut groups: BTreeMap<(u64, Run, &str), Vec<&PosteriorRow>> = BTreeMap::new();
    let mut order = Vec::new();
    for r in &rows {
        let key = (r.epsilon.to_bits(), r.run, r.parameter.as_str());
        let members = groups.entry(key).or_default();
        if members.is_empty() {
            order.push(key);
        }
        members.push(r);
    }
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
    let optional = |xs: Vec<Option<f64>>| -> Option<f64> {
        let xs: Option<Vec<f64>> = xs.into_iter().collect();
        xs.map(|v| mean(&v))
    };
    let out: Vec<SummaryRow> = order
        .iter()
        .map(|key| {
            let g = &groups[key];
            let first = g[0];
            let means: Vec<f64> = g.iter().map(|r| r.mean).collect();
            let (m, se) = crate::stats::mean_se(&means);
            let acceptance: Option<Vec<f64>> = g.iter().map(|r| r.acceptance).collect();
            SummaryRow {
                epsilon: first.epsilon,
                run: first.run,
                parameter: first.parameter.clone(),
                truth: first.truth,
                runs: g.len() as u64,
                mean: m,
                mean_se: if g.len() > 1 { se } else { 0.0 },
                sd: mean(&g.iter().map(|r| r.sd).collect::<Vec<_>>()),
                covered: g.iter().filter(|r| r.covered).count() as f64 / g.len() as f64,
                acceptance: acceptance.as_deref().map(mean),
                acceptance_min: acceptance
                    .as_deref()
                    .map(|a| a.iter().copied().fold(f64::INFINITY, f64::min)),
                bound: first.bound,
                ess_bulk: optional(g.iter().map(|r| r.ess_bulk).collect()),
            }
        })
        .collect();
    Ok(Table::of_records(&out))
}

/// One chain of the engine's record-wise kernel or SOMA (by `run`) on a
/// Laplace release of scale `scale`, its seed from the task's stream; a chain
/// that cannot mix is an error.
pub fn engine_chain<M: crate::damcmc::AugmentedModel>(
    model: &M,
    release: (Vec<f64>, f64),
    run: Run,
    iterations: (usize, usize),
    rng: &mut rand_chacha::ChaCha8Rng,
) -> anyhow::Result<Draws> {
    use crate::damcmc::Kernel;
    use rand::RngExt;
    let kernel = if run == Run::Soma {
        Kernel::Soma
    } else {
        Kernel::RecordWise
    };
    Ok(crate::damcmc::laplace_chain(
        model,
        release,
        kernel,
        iterations,
        rng.random(),
    )?)
}

/// The releases of a grid's (ε, repeat) pairs as `infer` reads them from the
/// manifest (`details.releases`): `spec_of` gives the release file of a point.
pub fn recorded_releases(
    points: &[Point],
    spec_of: impl Fn(&Point) -> crate::config::release::InferSpec,
) -> serde_json::Value {
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for q in points.iter().filter(|q| q.run != Run::NonPrivate) {
        if seen.insert((q.epsilon.to_bits(), q.repeat)) {
            out.push(crate::config::release::RecordedRelease {
                name: format!("epsilon={}/repeat={}", q.epsilon, q.repeat),
                spec: spec_of(q),
            });
        }
    }
    serde_json::to_value(out).unwrap_or_default()
}

/// A row of `paired.csv`: run `a` against run `b` on the same releases, one
/// parameter at one ε.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedRow {
    pub epsilon: f64,
    pub a: Run,
    pub b: Run,
    pub parameter: String,
    pub pairs: u64,
    /// the mean over releases of a's posterior mean minus b's, and its s.e.
    pub difference: f64,
    pub difference_se: f64,
    /// the largest |difference| over releases in Monte Carlo standard errors
    /// (√(sd_a²/ESS_a + sd_b²/ESS_b))
    pub largest_z: f64,
}

/// Runs `a` and `b` compared release by release (same ε and repeat).
pub fn paired(data: &Table, a: Run, b: Run) -> anyhow::Result<Vec<PairedRow>> {
    let rows: Vec<PosteriorRow> = data.records()?;
    let key = |r: &PosteriorRow| (r.epsilon.to_bits(), r.repeat, r.parameter.clone());
    let of_b: BTreeMap<_, &PosteriorRow> = rows
        .iter()
        .filter(|r| r.run == b)
        .map(|r| (key(r), r))
        .collect();
    let mut groups: BTreeMap<(u64, String), Vec<(f64, f64)>> = BTreeMap::new();
    let mut order = Vec::new();
    for ra in rows.iter().filter(|r| r.run == a) {
        let Some(rb) = of_b.get(&key(ra)) else {
            continue;
        };
        let mc = |r: &PosteriorRow| r.ess_bulk.map_or(f64::NAN, |e| r.sd * r.sd / e);
        let d = ra.mean - rb.mean;
        let g = groups
            .entry((ra.epsilon.to_bits(), ra.parameter.clone()))
            .or_default();
        if g.is_empty() {
            order.push((ra.epsilon.to_bits(), ra.parameter.clone()));
        }
        g.push((d, d / (mc(ra) + mc(rb)).sqrt()));
    }
    Ok(order
        .into_iter()
        .map(|k| {
            let g = &groups[&k];
            let ds: Vec<f64> = g.iter().map(|x| x.0).collect();
            let (m, se) = crate::stats::mean_se(&ds);
            PairedRow {
                epsilon: f64::from_bits(k.0),
                a,
                b,
                parameter: k.1.clone(),
                pairs: g.len() as u64,
                difference: m,
                difference_se: if g.len() > 1 { se } else { 0.0 },
                largest_z: g.iter().map(|x| x.1.abs()).fold(0.0, f64::max),
            }
        })
        .collect())
}

/// A normal or beta marginal's summary row for the non-private posterior.
pub fn closed_form_row(
    point: &Point,
    parameter: String,
    truth: f64,
    law: &dyn statrs::distribution::ContinuousCDF<f64, f64>,
    (mean, sd): (f64, f64),
) -> PosteriorRow {
    let s = ParameterSummary {
        parameter,
        mean,
        sd,
        q05: law.inverse_cdf(0.05),
        q50: law.inverse_cdf(0.5),
        q95: law.inverse_cdf(0.95),
        rhat: None,
        ess_bulk: None,
        ess_tail: None,
    };
    posterior_row(point, &s, truth)
}

/// The figure's kernels and ε, for the manifest.
pub fn grid_details(c: &GridConfig) -> serde_json::Value {
    serde_json::json!({
        "epsilons": c.epsilons,
        "runs": c.runs.iter().map(|r| r.as_str()).collect::<Vec<_>>(),
        "repeats": c.repeats,
        "iterations": c.iterations,
        "warmup": c.warmup,
        "chains_per_run": 1,
    })
}
