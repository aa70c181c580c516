//! ju2022/loglinear: Ju et al. 2022's naive-Bayes log-linear example — N people,
//! I classes, K categorical features; every table n_{·ik} released with
//! Laplace noise of scale 2K/ε; the class probabilities' posterior from
//! the release by data-augmentation MCMC, with the authors' ratio as their
//! `loglinear_gibbs.R` computes it (`super::published`), the formula's
//! ratio, and SOMA, beside the non-private posterior.

use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use statrs::distribution::Beta;

use super::{GridConfig, Point, Run};
use crate::config::release::{InferSpec, ModelName, PriorSpec, ReleaseSpec};
use crate::config::{deserialize, ParamError};
use crate::damcmc::models::{NaiveBayes, NbRecord, NbTheta};
use crate::damcmc::{self, AugmentedModel, Noise};
use crate::experiments::{Figure, Plan, Ready};
use crate::privacy::event::Guarantee;
use crate::privacy::laplace::Laplace;
use crate::privacy::ledger::{Entry, Ledger};
use crate::results::record::to_row;
use crate::results::table::{Row, Table};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    /// records (their N = 100)
    n: u64,
    /// the Dirichlet prior of the class probabilities (their `alp`)
    class_prior: Vec<f64>,
    /// per feature, per class, the Dirichlet prior of the answers (their `alpha`)
    answer_prior: Vec<Vec<Vec<f64>>>,
    /// the data-generating class probabilities (their `p`)
    p: Vec<f64>,
    /// per feature, per class, the data-generating answer probabilities
    /// (their `pijk[[k]][, i]`)
    answer_probabilities: Vec<Vec<Vec<f64>>>,
    epsilons: Vec<f64>,
    runs: Vec<Run>,
    repeats: u64,
    iterations: u64,
    warmup: u64,
}

pub const SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Config>;

/// Most records.
const MAX_N: u64 = 1_000_000;

struct Loglinear {
    grid: GridConfig,
    points: Vec<Point>,
    warmup: usize,
    draws: usize,
    model: NaiveBayes,
    truth: NbTheta,
    /// the confidential tables (the model's statistic)
    counts: Vec<f64>,
    /// the class counts of the confidential data
    classes: Vec<f64>,
    class_prior: Vec<f64>,
    answer_prior: Vec<Vec<Vec<f64>>>,
    seed: u64,
}

/// A probability vector within 10⁻⁶ of summing to 1, renormalised.
fn probabilities(key: &str, v: &[f64], len: usize) -> Result<Vec<f64>, ParamError> {
    let sum: f64 = v.iter().sum();
    if v.len() != len || v.iter().any(|x| !(x.is_finite() && *x >= 0.0)) || (sum - 1.0).abs() > 1e-6
    {
        return Err(ParamError::new(
            key,
            format!("{v:?}"),
            format!("{len} probabilities ≥ 0 summing to 1 (within 10⁻⁶)"),
        ));
    }
    Ok(v.iter().map(|x| x / sum).collect())
}

pub fn validate(params: &toml::Table, seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let c: Config = deserialize(params)?;
    let grid = GridConfig {
        epsilons: c.epsilons,
        runs: c.runs,
        repeats: c.repeats,
        iterations: c.iterations,
        warmup: c.warmup,
    };
    let checked = grid.check(true)?;
    if !(1..=MAX_N).contains(&c.n) {
        return Err(ParamError::new(
            "n",
            c.n.to_string(),
            format!("1 to {MAX_N}"),
        ));
    }
    let model = NaiveBayes::new(c.class_prior.clone(), c.answer_prior.clone(), c.n as usize)
        .map_err(|e| {
            let key = match e.key {
                "prior.classes" => "class_prior",
                "prior.answers" => "answer_prior",
                other => other,
            };
            ParamError::new(key, e.found, e.allowed)
        })?;
    let p = probabilities("p", &c.p, model.classes())?;
    let levels = model.levels();
    if c.answer_probabilities.len() != levels.len()
        || c.answer_probabilities
            .iter()
            .any(|per_class| per_class.len() != model.classes())
    {
        return Err(ParamError::new(
            "answer_probabilities",
            format!("{} features", c.answer_probabilities.len()),
            format!(
                "{} features (as answer_prior), each with {} classes",
                levels.len(),
                model.classes()
            ),
        ));
    }
    let mut answers = Vec::new();
    for (per_class, &j) in c.answer_probabilities.iter().zip(&levels) {
        let rows: Result<Vec<Vec<f64>>, ParamError> = per_class
            .iter()
            .map(|v| probabilities("answer_probabilities", v, j))
            .collect();
        answers.push(rows?);
    }
    let most_levels = levels.iter().copied().max().unwrap_or(0) as u64;
    if checked.points.iter().any(|q| q.run == Run::Published) && c.n < most_levels {
        return Err(ParamError::new(
            "n",
            c.n.to_string(),
            format!("at least {most_levels} with the published run: its ratio reads the answer of person J_k"),
        ));
    }
    // their script reads feature 1's answer of person newans[k] as feature k's answer:
    // a feature with fewer answers than feature 1 can be given an answer it does not
    // have, where R stops ("subscript out of bounds") and a cell index would read
    // another table's count without a word
    if let Some(k) = levels.iter().position(|&j| j < levels[0]) {
        if checked.points.iter().any(|q| q.run == Run::Published) {
            return Err(ParamError::new(
                "runs",
                "[…, \"published\", …]".to_string(),
                format!(
                    "the published run only when no feature has fewer answers than feature 1 (feature {} has {}, feature 1 has {}): their script reads feature 1's answer as feature k's, which R refuses with \"subscript out of bounds\"; drop \"published\" from runs, or order the features so that feature 1 has the fewest answers",
                    k + 1,
                    levels[k],
                    levels[0]
                ),
            ));
        }
    }
    let truth = NbTheta { p, answers };
    let mut rng = crate::rng::setup_rng(seed, crate::rng::Purpose::SharedData);
    let records: Vec<NbRecord> = (0..model.n())
        .map(|_| model.draw_record(&truth, &mut rng))
        .collect();
    let counts = crate::damcmc::statistic(&model, &records);
    let mut classes = vec![0.0; model.classes()];
    for x in &records {
        classes[x[0] as usize] += 1.0;
    }
    Ok(Box::new(Ready(Box::new(Loglinear {
        grid,
        points: checked.points,
        warmup: checked.warmup,
        draws: checked.draws,
        model,
        truth,
        counts,
        classes,
        class_prior: c.class_prior,
        answer_prior: c.answer_prior,
        seed,
    }))))
}

impl Loglinear {
    fn features(&self) -> usize {
        self.model.levels().len()
    }

    /// The mechanism of ε: Laplace of scale 2K/ε on the K tables.
    fn mechanism(&self, epsilon: f64) -> Laplace {
        Laplace::for_privacy(self.model.l1_sensitivity(), epsilon).expect("ε and K were checked")
    }

    /// The release of (ε, repeat): the tables plus Laplace noise.
    fn release(&self, q: &Point) -> Vec<f64> {
        let lap = self.mechanism(q.epsilon);
        let mut rng = super::release_rng("ju2022/loglinear", self.seed, q.epsilon, q.repeat);
        self.counts
            .iter()
            .map(|c| c + lap.sample(&mut rng))
            .collect()
    }

    /// The release of (ε, repeat) as a release file of `privpost infer`.
    fn release_spec(&self, q: &Point) -> InferSpec {
        InferSpec {
            model: ModelName::NaiveBayes,
            prior: PriorSpec {
                alpha: None,
                classes: Some(self.class_prior.clone()),
                answers: Some(self.answer_prior.clone()),
                tau: None,
            },
            n: self.model.n() as u64,
            counts: Default::default(),
            regression: None,
            release: Some(ReleaseSpec {
                mechanism: "laplace".into(),
                scale: self.mechanism(q.epsilon).scale(),
                values: self.release(q),
                clamp: Default::default(),
            }),
            records: None,
            sampler: Default::default(),
        }
    }

    /// The non-private posterior's class probabilities: Beta marginals of
    /// Dirichlet(n_i + α_i).
    fn non_private(&self, q: &Point) -> Vec<super::PosteriorRow> {
        let a: Vec<f64> = self
            .classes
            .iter()
            .zip(&self.class_prior)
            .map(|(n, al)| n + al)
            .collect();
        let total: f64 = a.iter().sum();
        a.iter()
            .enumerate()
            .map(|(i, &ai)| {
                let law = Beta::new(ai, total - ai).expect("positive counts");
                let mean = ai / total;
                let sd = (ai * (total - ai) / (total * total * (total + 1.0))).sqrt();
                super::closed_form_row(q, format!("p{}", i + 1), self.truth.p[i], &law, (mean, sd))
            })
            .collect()
    }
}

impl Figure for Loglinear {
    fn task_count(&self) -> usize {
        self.points.len()
    }

    fn grid_description(&self) -> String {
        format!(
            "{} ε × {} runs × {} repeats of {} iterations, n = {}",
            self.grid.epsilons.len(),
            self.grid.runs.len(),
            self.grid.repeats,
            self.grid.iterations,
            self.model.n()
        )
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let q = self.points[index];
        let classes = self.model.classes();
        let rows = if q.run == Run::NonPrivate {
            self.non_private(&q)
        } else {
            let values = self.release(&q);
            let scale = self.mechanism(q.epsilon).scale();
            let draws = match q.run {
                Run::Published => super::published::sample(
                    &self.model,
                    &values,
                    scale,
                    (self.warmup, self.draws),
                    rng,
                ),
                _ => super::engine_chain(
                    &self.model,
                    (values, scale),
                    q.run,
                    (self.warmup, self.draws),
                    rng,
                )?,
            };
            let bound =
                damcmc::acceptance_bound(&Noise::Laplace { scale }, self.model.l1_sensitivity());
            super::chain_rows(&q, &draws, classes, &self.truth.p, bound)
        };
        Ok(rows.iter().map(to_row).collect())
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        super::summarize(data)
    }

    /// `paired.csv`: the published ratio against the formula's, release by
    /// release (when both ran).
    fn side_tables(&self, data: &Table) -> anyhow::Result<Vec<(String, Table)>> {
        let rows = super::paired(data, Run::Published, Run::RecordWise)?;
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        Ok(vec![("paired.csv".into(), Table::of_records(&rows))])
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "grid": super::grid_details(&self.grid),
            "model": "naive-Bayes log-linear (Ju et al. 2022)",
            "n": self.model.n(),
            "classes": self.model.classes(),
            "levels": self.model.levels(),
            "confidential_class_counts": self.classes,
            "release": "every table n_{·ik} plus Laplace noise of scale 2K/ε",
            "releases": super::recorded_releases(&self.points, |q| self.release_spec(q)),
        })
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        Ok(self.grid.ledger(|epsilon| {
                Entry::new(
                    format!("epsilon={epsilon}"),
                    self.mechanism(epsilon).event(),
                    Guarantee::PureDp { epsilon },
                )
                .when(format!(
                    "one release per repeat of the {} tables (L1 sensitivity 2K = {} under replacing one record); the chains are post-processing of it: no cost beyond the release",
                    self.features(),
                    self.model.l1_sensitivity()
                ))
        }))
    }

    fn parameters(&self) -> Vec<(String, String)> {
        vec![
            ("N".into(), self.model.n().to_string()),
            ("I".into(), self.model.classes().to_string()),
            ("K".into(), self.features().to_string()),
            ("iterations".into(), self.grid.iterations.to_string()),
            ("warm-up".into(), self.grid.warmup.to_string()),
            ("repeats".into(), self.grid.repeats.to_string()),
            ("synthetic data".into(), String::new()),
        ]
    }

    /// The draws kept: one value per parameter per kept iteration.
    fn task_memory(&self, _index: usize) -> f64 {
        8.0 * self.draws as f64 * self.model.parameter_names().len() as f64
    }

    /// θ | x draws I + Σ_k I·J_k gammas; each record proposal costs about K
    /// cells (the published ratio and the record-wise kernel) or one per
    /// group of equal records (SOMA: at most n groups of K + 1 cells).
    fn task_cost(&self, index: usize) -> f64 {
        let q = self.points[index];
        let n = self.model.n() as f64;
        let k = self.features() as f64;
        let per_record = match q.run {
            Run::NonPrivate => return 1e3,
            Run::Soma => 40.0 * n.min(self.model.statistic_len() as f64 * 10.0) * (k + 1.0),
            _ => 60.0 * (k + 1.0),
        };
        let theta = 100.0 * self.model.statistic_len() as f64;
        self.grid.iterations as f64 * (n * per_record + theta)
    }
}
