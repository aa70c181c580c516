//! calibration/da_models (beyond the papers): are data-augmentation MCMC
//! posteriors (Ju et al. 2022, [`crate::damcmc`]) calibrated on the models that
//! have no exact noise-aware posterior here — Ju et al.'s naive-Bayes model and
//! linear regression from noisy sufficient statistics — and how overconfident is
//! the naive posterior that takes the noisy statistics as exact?
//!
//! Per replication: θ* from the prior, n records from the model, a Laplace
//! release of the statistic with scale Δ₁/ε (Δ₁ the model's proven L1
//! sensitivity bound, so the release is ε-DP), and a TARP reference θ_r from the
//! prior. Each method gives L draws: `da_mcmc` one record-wise chain thinned to L
//! (after warm-up), `naive` L independent draws of the conjugate posterior given
//! the noisy statistics read as exact (naive Bayes: counts clamped at 0, class
//! counts the mean over features of the tables' class sums; regression: the
//! normalisation undone, the noisy precision's eigenvalues floored at the
//! prior's). Per checked coordinate: the randomised PIT and SBC rank of θ*ₖ;
//! jointly: TARP's f. The cells and verdicts are [`super::cells`]'.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

use super::cells::{self, CellData, MultiKey};
use super::da_setup::{nb_model, nb_naive, reg_model, reg_naive, NbConfig, RegConfig};
use crate::config::{check, deserialize, ParamError};
use crate::damcmc::models::NaiveBayes;
use crate::damcmc::{self, AugmentedModel, Kernel};
use crate::experiments::{parameter, Figure};
use crate::privacy::event::Guarantee;
use crate::privacy::laplace::Laplace;
use crate::privacy::ledger::{Entry, Ledger};
use crate::results::table::{Row, Table};
use crate::stats::calibration::{randomized_pit, rank, tarp_rank};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    epsilons: Vec<f64>,
    replications: u64,
    replications_per_task: u64,
    methods: Vec<String>,
    levels: Vec<f64>,
    sbc_draws: u64,
    sbc_bins: u64,
    /// the record-wise chain's warm-up sweeps, and the sweeps per kept draw
    da_warmup: u64,
    da_thin: u64,
    naive_bayes: NbConfig,
    regression: RegConfig,
}

pub const SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Config>;

/// Largest n (a sweep visits every record).
const MAX_N: u64 = 100_000;
/// Most classes × answer cells of the naive-Bayes model.
const MAX_CELLS: u64 = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    DaMcmc,
    Naive,
}

privpost_core::names::name_table!(Method {
    DaMcmc => "da_mcmc",
    Naive => "naive",
});

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Model {
    NaiveBayes,
    Regression,
}

privpost_core::names::name_table!(Model {
    NaiveBayes => "naive_bayes",
    Regression => "regression",
});

/// A task: replications `first..first + count` of one (model, ε, n).
#[derive(Debug, Clone, Copy)]
struct Task {
    model: Model,
    epsilon: f64,
    n: u64,
    first: usize,
    count: usize,
}

pub struct DaModels {
    epsilons: Vec<f64>,
    methods: Vec<Method>,
    levels: Vec<f64>,
    replications: usize,
    sbc_draws: usize,
    sbc_bins: usize,
    da: (usize, usize),
    nb: NbConfig,
    reg: RegConfig,
    tasks: Vec<Task>,
}

/// The checked coordinates of the naive-Bayes model (indices into its
/// parameters): p₁, then the first answer's probability of feature 1 in class
/// 1 and of the last feature in the last class.
fn nb_checked(model: &NaiveBayes) -> Vec<usize> {
    let names = model.parameter_names();
    let last_feature = model.levels().len();
    let wanted = [
        "p1".to_string(),
        "p_f1_c1_a1".to_string(),
        format!("p_f{last_feature}_c{}_a1", model.classes()),
    ];
    wanted
        .iter()
        .filter_map(|w| names.iter().position(|n| n == w))
        .collect()
}

pub fn build(params: &toml::Table, _seed: u64) -> Result<Box<dyn Figure>, ParamError> {
    let c: Config = deserialize(params)?;
    check::non_empty("epsilons", &c.epsilons)?;
    for &e in &c.epsilons {
        check::within("epsilons", e, 1e-2, 1e2, "each ε in [0.01, 100]")?;
    }
    cells::distinct("epsilons", &c.epsilons)?;
    let replications = check::points("replications", c.replications, 1)?;
    let per_task = check::points("replications_per_task", c.replications_per_task, 1)?;
    let methods = super::checks::parse_methods(&c.methods, &["da_mcmc", "naive"], |m| match m {
        "da_mcmc" => Some(Method::DaMcmc),
        "naive" => Some(Method::Naive),
        _ => None,
    })?;
    super::checks::check_levels(&c.levels)?;
    let (sbc_draws, sbc_bins) = super::checks::check_sbc(c.sbc_draws, c.sbc_bins)?;
    check::at_least("da_thin", c.da_thin, 1)?;
    if c.da_warmup > 100_000 || c.da_thin > 1000 {
        return Err(ParamError::new(
            "da_warmup",
            format!("warm-up {} and thinning {}", c.da_warmup, c.da_thin),
            "da_warmup ≤ 100000 sweeps and da_thin ≤ 1000",
        ));
    }
    let n_values = |key: &str, v: &[u64]| -> Result<(), ParamError> {
        check::non_empty(key, v)?;
        for &n in v {
            if !(1..=MAX_N).contains(&n) {
                return Err(ParamError::new(key, n.to_string(), format!("1 to {MAX_N}")));
            }
        }
        Ok(())
    };
    n_values("naive_bayes.n_values", &c.naive_bayes.n_values)?;
    n_values("regression.n_values", &c.regression.n_values)?;
    check::non_empty("naive_bayes.levels", &c.naive_bayes.levels)?;
    let cells_total: u64 =
        c.naive_bayes.levels.iter().sum::<u64>() * c.naive_bayes.class_prior.len() as u64;
    if c.naive_bayes
        .levels
        .iter()
        .any(|&j| !(2..=100).contains(&j))
        || cells_total > MAX_CELLS
    {
        return Err(ParamError::new(
            "naive_bayes.levels",
            format!("{:?}", c.naive_bayes.levels),
            format!("each J_k from 2 to 100, classes × Σ J_k ≤ {MAX_CELLS}"),
        ));
    }
    check::positive("naive_bayes.answer_prior", c.naive_bayes.answer_prior)?;
    nb_model(&c.naive_bayes, 1).map_err(|e| {
        // the model's keys, as this config spells them
        let key = match e.key {
            "prior.classes" => "naive_bayes.class_prior",
            "prior.answers" => "naive_bayes.levels",
            _ => "naive_bayes.n_values",
        };
        ParamError::new(key, e.found, e.allowed)
    })?;
    let r = &c.regression;
    for (key, v) in [
        ("regression.x_variance", r.x_variance),
        ("regression.noise_variance", r.noise_variance),
        ("regression.tau", r.tau),
    ] {
        check::positive(key, v)?;
    }
    if !r.x_mean.is_finite() {
        return Err(ParamError::new(
            "regression.x_mean",
            r.x_mean.to_string(),
            "a finite number",
        ));
    }
    reg_model(r, 1).map_err(|e| {
        let key = match e.key {
            "m" => "regression.x_mean",
            "sigma" => "regression.x_variance",
            "sigma2" => "regression.noise_variance",
            "tau" => "regression.tau",
            "x_bounds" => "regression.x_bounds",
            "y_bounds" => "regression.y_bounds",
            _ => "regression.n_values",
        };
        ParamError::new(key, e.found, e.allowed)
    })?;
    let mut tasks = Vec::new();
    for (model, ns) in [
        (Model::NaiveBayes, &c.naive_bayes.n_values),
        (Model::Regression, &c.regression.n_values),
    ] {
        for &epsilon in &c.epsilons {
            for &n in ns.iter() {
                let mut first = 0;
                while first < replications {
                    let count = per_task.min(replications - first);
                    tasks.push(Task {
                        model,
                        epsilon,
                        n,
                        first,
                        count,
                    });
                    first += count;
                }
            }
        }
    }
    Ok(Box::new(DaModels {
        epsilons: c.epsilons,
        methods,
        levels: c.levels,
        replications,
        sbc_draws,
        sbc_bins,
        da: (c.da_warmup as usize, c.da_thin as usize),
        nb: c.naive_bayes,
        reg: c.regression,
        tasks,
    }))
}

/// The model's statistic of `records` plus Laplace noise of scale Δ₁/ε.
fn release<M: AugmentedModel>(
    model: &M,
    records: &[M::Record],
    epsilon: f64,
    rng: &mut ChaCha8Rng,
) -> (Vec<f64>, f64) {
    let stat = damcmc::statistic(model, records);
    let lap = Laplace::for_privacy(model.l1_sensitivity(), epsilon).expect("checked ε");
    let values = stat.iter().map(|s| s + lap.sample(rng)).collect();
    (values, lap.scale())
}

/// L draws (each the model's full parameter vector) of one record-wise chain,
/// thinned, after warm-up.
fn da_draws<M: AugmentedModel>(
    model: &M,
    values: Vec<f64>,
    scale: f64,
    (warmup, thin, l): (usize, usize, usize),
    rng: &mut ChaCha8Rng,
) -> anyhow::Result<Vec<Vec<f64>>> {
    let d = damcmc::laplace_chain(
        model,
        (values, scale),
        Kernel::RecordWise,
        (warmup, l * thin),
        rng.random(),
    )?;
    Ok(d.chains[0]
        .iter()
        .skip(thin - 1)
        .step_by(thin)
        .cloned()
        .collect())
}

/// Per checked coordinate (randomised PIT, rank) of θ*, then TARP's (f, rank)
/// around θ_r over the whole parameter vector.
fn check(
    truth: &[f64],
    reference: &[f64],
    checked: &[usize],
    draws: &[Vec<f64>],
    rng: &mut ChaCha8Rng,
) -> Vec<(f64, usize)> {
    let l = draws.len();
    let mut out: Vec<(f64, usize)> = checked
        .iter()
        .map(|&j| {
            let coordinate: Vec<f64> = draws.iter().map(|d| d[j]).collect();
            let r = rank(truth[j], &coordinate);
            (randomized_pit(r, l, rng.random()), r)
        })
        .collect();
    let r = tarp_rank(truth, draws, reference);
    out.push((randomized_pit(r, l, rng.random()), r));
    out
}

fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

impl DaModels {
    fn quantities(&self, model: Model) -> Vec<String> {
        match model {
            Model::NaiveBayes => {
                let m = nb_model(&self.nb, 1).expect("checked");
                let names = m.parameter_names();
                nb_checked(&m)
                    .iter()
                    .map(|&j| names[j].clone())
                    .chain(["tarp_naive_bayes".to_string()])
                    .collect()
            }
            Model::Regression => vec!["beta0".into(), "beta1".into(), "tarp_regression".into()],
        }
    }

    /// One replication of a model: θ*, θ_r, the release and each method's checks.
    fn replication<M: AugmentedModel>(
        &self,
        model: &M,
        t: &Task,
        replication: usize,
        (checked, quantities): (&[usize], &[String]),
        naive: impl Fn(&[f64], &mut ChaCha8Rng) -> Vec<Vec<f64>>,
        rng: &mut ChaCha8Rng,
    ) -> anyhow::Result<Vec<Row>> {
        let theta = model.draw_prior(rng);
        let truth = model.parameters(&theta);
        let records: Vec<M::Record> = (0..model.n())
            .map(|_| model.draw_record(&theta, rng))
            .collect();
        let reference = model.parameters(&model.draw_prior(rng));
        let (values, scale) = release(model, &records, t.epsilon, rng);
        let shown: Vec<f64> = checked.iter().map(|&j| truth[j]).collect();
        let rep = cells::Replication {
            epsilon: t.epsilon,
            n: t.n,
            replication,
            theta: &shown,
            distance: distance(&truth, &reference),
        };
        let seed: u64 = rng.random();
        let mut rows = Vec::new();
        for &method in &self.methods {
            let mut mrng = super::method_rng(seed, method as u64);
            let draws = match method {
                Method::DaMcmc => da_draws(
                    model,
                    values.clone(),
                    scale,
                    (self.da.0, self.da.1, self.sbc_draws),
                    &mut mrng,
                )?,
                Method::Naive => naive(&values, &mut mrng),
            };
            let checks = check(&truth, &reference, checked, &draws, &mut mrng);
            rows.extend(cells::check_rows(
                &rep,
                method.as_str(),
                quantities,
                &checks,
            ));
        }
        Ok(rows)
    }

    /// The rows grouped by (method, ε, n, quantity), in order of appearance.
    fn cells(&self, data: &Table) -> anyhow::Result<Vec<CellData<MultiKey>>> {
        let mut out: Vec<CellData<MultiKey>> = Vec::new();
        let mut index = std::collections::HashMap::new();
        for row in data.record_iter::<cells::CheckRow>()? {
            let row = row?;
            let key = (
                row.method.clone(),
                row.epsilon.to_bits(),
                row.n,
                row.quantity.clone(),
            );
            let at = *index.entry(key).or_insert_with(|| {
                out.push(CellData::new(MultiKey {
                    method: row.method.clone(),
                    epsilon: row.epsilon,
                    n: row.n,
                    quantity: row.quantity.clone(),
                }));
                out.len() - 1
            });
            out[at].credible.push(row.credible_level);
            out[at].ranks.push(row.rank);
        }
        Ok(out)
    }
}

impl Figure for DaModels {
    fn task_count(&self) -> usize {
        self.tasks.len()
    }

    fn grid_description(&self) -> String {
        format!(
            "naive Bayes (n ∈ {:?}) and regression (n ∈ {:?}) × {} ε × {} replications, methods {}",
            self.nb.n_values,
            self.reg.n_values,
            self.epsilons.len(),
            self.replications,
            self.methods
                .iter()
                .map(|m| m.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let t = self.tasks[index];
        let quantities = self.quantities(t.model);
        let mut rows = Vec::new();
        for replication in t.first..t.first + t.count {
            rows.extend(match t.model {
                Model::NaiveBayes => {
                    let model = nb_model(&self.nb, t.n)?;
                    let checked = nb_checked(&model);
                    self.replication(
                        &model,
                        &t,
                        replication,
                        (&checked, &quantities),
                        |v, r| nb_naive(&model, &self.nb, v, self.sbc_draws, r),
                        rng,
                    )?
                }
                Model::Regression => {
                    let model = reg_model(&self.reg, t.n)?;
                    self.replication(
                        &model,
                        &t,
                        replication,
                        (&[0, 1], &quantities),
                        |v, r| reg_naive(&self.reg, v, self.sbc_draws, r),
                        rng,
                    )?
                }
            });
        }
        Ok(rows)
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        Ok(cells::summary_table(
            self.cells(data)?,
            cells::multi_summary_columns(),
            (self.sbc_draws, self.sbc_bins),
            &self.levels,
        ))
    }

    fn side_tables(&self, data: &Table) -> anyhow::Result<Vec<(String, Table)>> {
        Ok(cells::coverage_table(
            self.cells(data)?,
            cells::multi_coverage_columns(),
            &self.levels,
        ))
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "methods": self.methods.iter().map(|m| m.as_str()).collect::<Vec<_>>(),
            "naive_bayes": { "n_values": self.nb.n_values, "class_prior": self.nb.class_prior, "levels": self.nb.levels, "answer_prior": self.nb.answer_prior, "quantities": self.quantities(Model::NaiveBayes) },
            "regression": { "n_values": self.reg.n_values, "x_mean": self.reg.x_mean, "x_variance": self.reg.x_variance, "noise_variance": self.reg.noise_variance, "tau": self.reg.tau, "x_bounds": self.reg.x_bounds, "y_bounds": self.reg.y_bounds },
            "da_mcmc": { "kernel": "record_wise (Ju et al. 2022)", "chains": 1, "warmup": self.da.0, "thin": self.da.1 },
            "draws": self.sbc_draws,
            "sbc_bins": self.sbc_bins,
            "verdict": "calibrated when the coverage curve stays inside the simultaneous 95 % DKW band at every level",
        })
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        let mut out = Vec::new();
        for (model, sensitivity) in [
            (Model::NaiveBayes, nb_model(&self.nb, 1)?.l1_sensitivity()),
            (Model::Regression, reg_model(&self.reg, 1)?.l1_sensitivity()),
        ] {
            for &epsilon in &self.epsilons {
                let lap = Laplace::for_privacy(sensitivity, epsilon)?;
                for method in &self.methods {
                    out.push(
                        Entry::new(
                            format!("model={}, method={}, epsilon={epsilon}", model.as_str(), method.as_str()),
                            lap.event(),
                            Guarantee::PureDp { epsilon },
                        )
                        .when("one Laplace release per replication of the model's statistic (scale = the L1 sensitivity bound / ε); each posterior is post-processing of it"),
                    );
                }
            }
        }
        Ok(out)
    }

    fn parameters(&self) -> Vec<(String, String)> {
        vec![
            parameter("R", self.replications),
            parameter("L", self.sbc_draws),
            parameter("warm-up", self.da.0),
            parameter("thinning", self.da.1),
            ("θ* from the prior".into(), String::new()),
        ]
    }

    /// A replication's chain: warm-up + L·thin sweeps of n records, each
    /// record touching K + 1 (naive Bayes) or 6 (regression) coordinates, and
    /// a draw of θ per sweep.
    fn task_cost(&self, index: usize) -> f64 {
        let t = &self.tasks[index];
        let sweeps = (self.da.0 + self.sbc_draws * self.da.1) as f64;
        let per_record = match t.model {
            Model::NaiveBayes => 60.0 * (self.nb.levels.len() + 1) as f64,
            Model::Regression => 60.0 * 10.0,
        };
        // plus θ | x, the naive draws and the checks: about 3000 units a sweep
        t.count as f64 * sweeps * (t.n as f64 * per_record + 3000.0)
    }
}
