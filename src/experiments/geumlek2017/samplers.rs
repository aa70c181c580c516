//! geumlek2017/samplers: shows that the default sampler of the logistic-regression
//! figures (whitened multi-chain HMC, one independent chain per draw) samples the
//! same posterior as a long reference chain of a different algorithm (coordinate-wise
//! slice sampling in the whitened coordinates, which uses only log densities), and
//! compares the paper's sampler (coordinate-wise slice sampling from w = 0 with 1000
//! sweeps) where it is affordable. Reports R-hat and effective sample size.

use std::sync::Arc;

use nalgebra::DVector;
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

use crate::config::{deserialize, ParamError};
use crate::data::Task;
use crate::experiments::logreg::{self, Sampler};
use crate::experiments::{Deferred, Figure, Plan};
use crate::glm::calibrate::Setting;
use crate::privacy::event::{Event, Guarantee};
use crate::privacy::ledger::{Entry, Ledger};
use crate::results::manifest::DatasetRecord;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use crate::samplers::{hmc, imh, slice, LinearTarget};
use crate::stats::diagnostics;

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
    /// independent HMC draws (one chain each) compared with the reference
    chains: usize,
    burn_in: usize,
    tune_iterations: usize,
    path_length: f64,
    /// the R-hat / ESS run: chains × recorded iterations after burn_in
    diagnostic_chains: usize,
    diagnostic_draws: usize,
    /// reference: whitened slice chains × sweeps (after reference_burn_in), every thin-th kept for test errors
    reference_chains: usize,
    reference_sweeps: usize,
    reference_burn_in: usize,
    reference_thin: usize,
    /// the paper's sampler on these datasets: draws × sweeps from w = 0
    paper_slice_datasets: Vec<String>,
    paper_slice_draws: usize,
    paper_slice_sweeps: usize,
    /// the independence sampler (`sampler = "imh"` of the figures), checked like HMC:
    /// `chains` independent draws and a `diagnostic_chains` × `diagnostic_draws` run
    #[serde(default)]
    imh: logreg::ImhConfig,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Config>;

#[derive(Debug, Clone, Copy)]
enum Job {
    Hmc(usize),
    Imh(usize),
    Reference(usize, usize),
    PaperSlice(usize),
}

pub struct Samplers {
    /// the datasets as read, for the manifest
    records: Vec<DatasetRecord>,
    tasks: Vec<Arc<Task>>,
    settings: Vec<Setting>,
    jobs: Vec<Job>,
    c: Config,
    hmc: Sampler,
    imh: Sampler,
}

pub fn validate(params: &toml::Table, _seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let c: Config = deserialize(params)?;
    let beta0 = logreg::positive_beta0(c.beta0)?;
    let hmc = logreg::SamplerConfig {
        sampler: logreg::SamplerName::Hmc,
        burn_in: c.burn_in,
        tune_iterations: c.tune_iterations,
        path_length: c.path_length,
        imh: Default::default(),
    }
    .validate()?;
    let imh = logreg::SamplerConfig {
        sampler: logreg::SamplerName::Imh,
        burn_in: c.burn_in,
        tune_iterations: c.tune_iterations,
        path_length: c.path_length,
        imh: c.imh,
    }
    .validate()?;
    for (key, v, min) in [
        ("chains", c.chains, 2),
        ("diagnostic_chains", c.diagnostic_chains, 2),
        ("diagnostic_draws", c.diagnostic_draws, 4),
        ("reference_chains", c.reference_chains, 2),
        ("reference_sweeps", c.reference_sweeps, 8),
        ("reference_thin", c.reference_thin, 1),
        ("paper_slice_sweeps", c.paper_slice_sweeps, 1),
    ] {
        if v < min || v > 10_000_000 {
            return Err(ParamError::new(
                key,
                format!("{v}"),
                format!("{min} ≤ {key} ≤ 10,000,000"),
            ));
        }
    }
    for d in &c.paper_slice_datasets {
        if !c.datasets.contains(d) {
            return Err(ParamError::new(
                "paper_slice_datasets",
                format!("\"{d}\" is not in datasets"),
                format!("a subset of {:?}", c.datasets),
            ));
        }
    }
    if !c.paper_slice_datasets.is_empty() && c.paper_slice_draws < 2 {
        return Err(ParamError::new(
            "paper_slice_draws",
            format!("{}", c.paper_slice_draws),
            "paper_slice_draws ≥ 2",
        ));
    }
    logreg::check_datasets(&c.datasets, c.csv_datasets.as_ref())?;
    logreg::check_data_dir(c.data_dir.as_deref())?;
    let description = format!(
        "{} datasets: HMC and independence MH ({} chains each) vs {} reference chains of {} sweeps each{} (datasets loaded at run time)",
        c.datasets.len(),
        c.chains,
        c.reference_chains,
        c.reference_sweeps,
        if c.paper_slice_datasets.is_empty() {
            String::new()
        } else {
            format!(", the paper's slice sampler on {:?}", c.paper_slice_datasets)
        }
    );
    Ok(Box::new(Deferred {
        description,
        config: (c, beta0, hmc, imh),
        prepare: |(c, beta0, hmc, imh)| prepare(c, beta0, hmc, imh),
    }))
}

/// Loads the datasets (fetching missing ones) and lists the jobs.
fn prepare(
    c: Config,
    beta0: f64,
    hmc: Sampler,
    imh: Sampler,
) -> Result<Box<dyn Figure>, ParamError> {
    let (tasks, records, settings) = logreg::prepare(
        &c.datasets,
        c.csv_datasets.as_ref(),
        c.data_dir.as_deref(),
        c.split_seed,
        beta0,
    )?;
    let mut jobs = Vec::new();
    for (d, name) in c.datasets.iter().enumerate() {
        jobs.push(Job::Hmc(d));
        jobs.extend((0..c.reference_chains).map(|k| Job::Reference(d, k)));
        if c.paper_slice_datasets.contains(name) {
            jobs.push(Job::PaperSlice(d));
        }
    }
    // after every earlier job, so that those keep their task streams and rows
    jobs.extend((0..c.datasets.len()).map(Job::Imh));
    Ok(Box::new(Samplers {
        records,
        tasks,
        settings,
        jobs,
        c,
        hmc,
        imh,
    }))
}

/// A row of `data.csv`: a coordinate's moments under one chain (`record =
/// "coordinate"`), one draw's test scores (`"draw"`: `mean` holds the test error,
/// `var` the test log-likelihood) or the diagnostic run (`"diagnostic"`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SamplerRow {
    pub dataset: String,
    pub sampler: String,
    pub record: String,
    pub chain: u64,
    pub index: u64,
    pub n: u64,
    pub mean: Option<f64>,
    pub var: Option<f64>,
    pub ess: Option<f64>,
    pub rhat: Option<f64>,
    pub gradients: Option<f64>,
}

impl SamplerRow {
    fn new(
        dataset: &str,
        sampler: &str,
        record: &str,
        chain: usize,
        index: usize,
        n: usize,
    ) -> Self {
        Self {
            dataset: dataset.into(),
            sampler: sampler.into(),
            record: record.into(),
            chain: chain as u64,
            index: index as u64,
            n: n as u64,
            mean: None,
            var: None,
            ess: None,
            rhat: None,
            gradients: None,
        }
    }
}

/// Per-coordinate rows of a set of draws (columns of `w`).
fn coordinate_rows(
    name: &str,
    sampler: &str,
    chain: usize,
    draws: &[DVector<f64>],
    ess: Option<&[f64]>,
) -> Vec<Row> {
    let d = draws[0].len();
    (0..d)
        .map(|j| {
            let xs: Vec<f64> = draws.iter().map(|w| w[j]).collect();
            let (m, v) = diagnostics::mean_var(&xs);
            to_row(&SamplerRow {
                mean: Some(m),
                var: Some(v),
                ess: ess.map(|e| e[j]),
                ..SamplerRow::new(name, sampler, "coordinate", chain, j, draws.len())
            })
        })
        .collect()
}

fn draw_rows(task: &Task, sampler: &str, chain: usize, draws: &[DVector<f64>]) -> Vec<Row> {
    draws
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let (err, ll) = logreg::score(task, w);
            to_row(&SamplerRow {
                mean: Some(err),
                var: Some(ll),
                ..SamplerRow::new(&task.name, sampler, "draw", chain, i, 1)
            })
        })
        .collect()
}

/// A row of `summary.csv`: a sampler on a dataset against the pooled reference
/// chains (the reference's own row leaves the comparisons empty).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SamplerSummary {
    pub dataset: String,
    pub sampler: String,
    pub draws: f64,
    pub mean_z_max: Option<f64>,
    pub var_ratio_min: Option<f64>,
    pub var_ratio_median: Option<f64>,
    pub var_ratio_max: Option<f64>,
    pub test_error_mean: f64,
    pub test_error_sd: f64,
    pub ks_statistic: Option<f64>,
    pub ks_pvalue: Option<f64>,
    pub rhat_max: Option<f64>,
    pub ess_min: Option<f64>,
    pub ess_min_per_1000_gradients: Option<f64>,
}

/// The pooled reference chains of a dataset, per coordinate: mean, the
/// between-and-within variance estimate, summed ESS; and the largest R-hat.
struct Reference {
    mean: Vec<f64>,
    var: Vec<f64>,
    ess: Vec<f64>,
    rhat: f64,
}

impl Reference {
    fn pool(coords: &[&SamplerRow], dim: usize) -> Self {
        let (mut mean, mut var, mut ess) = (vec![0.0; dim], vec![0.0; dim], vec![0.0; dim]);
        let mut rhat: f64 = 0.0;
        for j in 0..dim {
            let rs: Vec<&&SamplerRow> = coords.iter().filter(|r| r.index as usize == j).collect();
            let m = rs.len() as f64;
            let len = rs[0].n as f64;
            let means: Vec<f64> = rs.iter().map(|r| value(r.mean)).collect();
            let w = rs.iter().map(|r| value(r.var)).sum::<f64>() / m;
            let (grand, b_over_n) = diagnostics::mean_var(&means);
            let var_plus = (len - 1.0) / len * w + b_over_n;
            mean[j] = grand;
            var[j] = var_plus;
            ess[j] = rs.iter().map(|r| value(r.ess)).sum();
            rhat = rhat.max((var_plus / w).sqrt());
        }
        Self {
            mean,
            var,
            ess,
            rhat,
        }
    }

    /// A sampler's coordinates against the reference: the largest |z| of a mean
    /// and the sorted variance ratios.
    fn compare(&self, coords: &[&SamplerRow]) -> (f64, Vec<f64>) {
        let (mut z_max, mut ratios) = (0.0f64, Vec::new());
        for r in coords {
            let j = r.index as usize;
            let k = r.n as f64;
            let se = (value(r.var) / k + self.var[j] / self.ess[j]).sqrt();
            z_max = z_max.max((value(r.mean) - self.mean[j]).abs() / se);
            ratios.push(value(r.var) / self.var[j]);
        }
        ratios.sort_by(f64::total_cmp);
        (z_max, ratios)
    }
}

/// A cell's value, NaN when empty (as the table's numeric reader gives it).
fn value(x: Option<f64>) -> f64 {
    x.unwrap_or(f64::NAN)
}

impl Figure for Samplers {
    fn task_count(&self) -> usize {
        self.jobs.len()
    }

    fn grid_description(&self) -> String {
        format!(
            "{} datasets: {} independent HMC and IMH draws, {}×{} diagnostic runs, {}×{} reference slice sweeps; paper slice on {:?}",
            self.tasks.len(),
            self.c.chains,
            self.c.diagnostic_chains,
            self.c.diagnostic_draws,
            self.c.reference_chains,
            self.c.reference_sweeps,
            self.c.paper_slice_datasets
        )
    }

    fn task_cost(&self, index: usize) -> f64 {
        let c = &self.c;
        match self.jobs[index] {
            Job::Hmc(d) => {
                let task = &self.tasks[d];
                logreg::draws_cost(task, &self.hmc, c.chains)
                    + logreg::setup_cost(task)
                    + logreg::hmc_cost(
                        task,
                        8.0 * c.tune_iterations as f64
                            + c.diagnostic_chains as f64
                                * (c.burn_in as f64 + c.diagnostic_draws as f64),
                    )
            }
            Job::Imh(d) => {
                let task = &self.tasks[d];
                let (n, dim) = (task.train_x.nrows() as f64, task.dim() as f64);
                let traces = (c.diagnostic_chains * (c.diagnostic_draws + 1)) as f64;
                logreg::draws_cost(task, &self.imh, c.chains)
                    + logreg::setup_cost(task)
                    + traces * (2.0 * n * dim + 20.0 * n)
            }
            Job::Reference(d, _) => {
                logreg::setup_cost(&self.tasks[d])
                    + logreg::slice_cost(
                        &self.tasks[d],
                        c.reference_burn_in as f64 + c.reference_sweeps as f64,
                    )
            }
            Job::PaperSlice(d) => logreg::slice_cost(
                &self.tasks[d],
                c.paper_slice_draws as f64 * c.paper_slice_sweeps as f64,
            ),
        }
    }

    /// The posterior's matrices, and for the HMC job its draws and the diagnostic
    /// run's record: `diagnostic_draws` matrices of d × `diagnostic_chains` (a
    /// `diagnostic_chains` of 9,999,999 had asked for 222 GB and aborted), plus the
    /// chains' state (position, momentum, gradient and proposals, about 8 d × chains).
    fn task_memory(&self, index: usize) -> f64 {
        let c = &self.c;
        let (d, job) = match self.jobs[index] {
            Job::Hmc(d) | Job::Imh(d) => (d, true),
            Job::Reference(d, _) | Job::PaperSlice(d) => (d, false),
        };
        let task = &self.tasks[d];
        let dim = task.dim() as f64;
        let base = logreg::task_memory(task);
        if !job {
            return base + 8.0 * dim * c.paper_slice_draws.max(1) as f64;
        }
        let draws = 8.0 * dim * c.chains as f64 * 2.0;
        let record = 8.0 * dim * c.diagnostic_chains as f64 * (c.diagnostic_draws as f64 + 8.0);
        base + draws + record
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let job = self.jobs[index];
        let d = match job {
            Job::Hmc(d) | Job::Imh(d) | Job::Reference(d, _) | Job::PaperSlice(d) => d,
        };
        let task = &self.tasks[d];
        let cal = self.settings[d].true_posterior();
        let post = logreg::posterior(task, &cal);
        let mut rows = Vec::new();
        match job {
            Job::Hmc(_) => {
                let draws = self.hmc.draws(&post, self.c.chains, rng)?.0;
                rows.extend(coordinate_rows(&task.name, "hmc", 0, &draws, None));
                rows.extend(draw_rows(task, "hmc", 0, &draws));
                // the R-hat / ESS run; its cost in batched gradient evaluations (burn-in and
                // draws; tuning excluded) is deterministic, unlike seconds (benches/glm_sampler.rs)
                let target = LinearTarget::whitened(&post).map_err(anyhow::Error::msg)?;
                let s = hmc::tune(&target, 8, self.c.tune_iterations, self.c.path_length, rng);
                let mut chains = hmc::start(&target, self.c.diagnostic_chains, rng);
                for _ in 0..self.c.burn_in {
                    hmc::step(&target, &mut chains, s, rng);
                }
                let rec: Vec<nalgebra::DMatrix<f64>> = (0..self.c.diagnostic_draws)
                    .map(|_| {
                        hmc::step(&target, &mut chains, s, rng);
                        target.to_w(&chains.u)
                    })
                    .collect();
                let gradients = chains.gradients;
                let conv = diagnostics::convergence(&rec);
                rows.push(to_row(&SamplerRow {
                    ess: Some(conv.ess_min),
                    rhat: Some(conv.rhat_max),
                    gradients: Some(gradients as f64),
                    ..SamplerRow::new(
                        &task.name,
                        "hmc",
                        "diagnostic",
                        0,
                        0,
                        self.c.diagnostic_chains * self.c.diagnostic_draws,
                    )
                }));
            }
            Job::Imh(_) => {
                let draws = self.imh.draws(&post, self.c.chains, rng)?.0;
                rows.extend(coordinate_rows(&task.name, "imh", 0, &draws, None));
                rows.extend(draw_rows(task, "imh", 0, &draws));
                // the R-hat / ESS run: chains recording every step (no gradients: its
                // cost is likelihood evaluations, timed by benches/glm_sampler.rs)
                let Sampler::Imh { settings, .. } = self.imh else {
                    unreachable!("validated as imh")
                };
                let target = LinearTarget::whitened(&post).map_err(anyhow::Error::msg)?;
                let (rec, _) = imh::traces(
                    &target,
                    self.c.diagnostic_chains,
                    self.c.diagnostic_draws,
                    settings,
                    rng,
                )
                .map_err(anyhow::Error::msg)?;
                let conv = diagnostics::convergence(&rec);
                rows.push(to_row(&SamplerRow {
                    ess: Some(conv.ess_min),
                    rhat: Some(conv.rhat_max),
                    ..SamplerRow::new(
                        &task.name,
                        "imh",
                        "diagnostic",
                        0,
                        0,
                        self.c.diagnostic_chains * self.c.diagnostic_draws,
                    )
                }));
            }
            Job::Reference(_, k) => {
                let target = LinearTarget::whitened(&post).map_err(anyhow::Error::msg)?;
                let mut ch = slice::start(&target, DVector::zeros(target.dim()));
                for _ in 0..self.c.reference_burn_in {
                    slice::sweep(&target, &mut ch, rng);
                }
                let mut kept = Vec::with_capacity(self.c.reference_sweeps);
                for _ in 0..self.c.reference_sweeps {
                    slice::sweep(&target, &mut ch, rng);
                    kept.push(ch.u.clone());
                }
                let u = nalgebra::DMatrix::from_columns(&kept);
                let w = target.to_w(&u);
                let draws: Vec<DVector<f64>> = w.column_iter().map(|c| c.into_owned()).collect();
                let ess: Vec<f64> = (0..w.nrows())
                    .map(|j| diagnostics::ess(&[w.row(j).iter().copied().collect()]))
                    .collect();
                rows.extend(coordinate_rows(
                    &task.name,
                    "reference",
                    k,
                    &draws,
                    Some(&ess),
                ));
                let thinned: Vec<DVector<f64>> = draws
                    .iter()
                    .step_by(self.c.reference_thin)
                    .cloned()
                    .collect();
                rows.extend(draw_rows(task, "reference", k, &thinned));
            }
            Job::PaperSlice(_) => {
                let paper = Sampler::Slice {
                    sweeps: self.c.paper_slice_sweeps,
                };
                let draws = paper.draws(&post, self.c.paper_slice_draws, rng)?.0;
                rows.extend(coordinate_rows(&task.name, "paper_slice", 0, &draws, None));
                rows.extend(draw_rows(task, "paper_slice", 0, &draws));
            }
        }
        Ok(rows)
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let data: Vec<SamplerRow> = data.records()?;
        let rows_of = |d: &str, s: &str, r: &str| -> Vec<&SamplerRow> {
            data.iter()
                .filter(|x| x.dataset == d && x.sampler == s && x.record == r)
                .collect()
        };
        let errors_of = |d: &str, s: &str| -> Vec<f64> {
            rows_of(d, s, "draw")
                .iter()
                .map(|r| value(r.mean))
                .collect()
        };
        let mut out = Vec::new();
        for task in &self.tasks {
            let name = task.name.as_str();
            let refs = rows_of(name, "reference", "coordinate");
            let reference = Reference::pool(&refs, task.dim());
            let ref_errors = errors_of(name, "reference");
            let (re_m, re_v) = diagnostics::mean_var(&ref_errors);
            out.push(SamplerSummary {
                dataset: name.into(),
                sampler: "reference".into(),
                draws: refs
                    .iter()
                    .filter(|r| r.index == 0)
                    .map(|r| r.n as f64)
                    .sum(),
                mean_z_max: None,
                var_ratio_min: None,
                var_ratio_median: None,
                var_ratio_max: None,
                test_error_mean: re_m,
                test_error_sd: re_v.sqrt(),
                ks_statistic: None,
                ks_pvalue: None,
                rhat_max: Some(reference.rhat),
                ess_min: Some(reference.ess.iter().copied().fold(f64::INFINITY, f64::min)),
                ess_min_per_1000_gradients: None,
            });
            for sampler in ["hmc", "paper_slice", "imh"] {
                let coords = rows_of(name, sampler, "coordinate");
                if coords.is_empty() {
                    continue;
                }
                let (z_max, ratios) = reference.compare(&coords);
                let errors = errors_of(name, sampler);
                let (e_m, e_v) = diagnostics::mean_var(&errors);
                let (ks_d, ks_p) = diagnostics::ks_two_sample(&errors, &ref_errors);
                let diag = rows_of(name, sampler, "diagnostic");
                let (rh, es, per_g) = match diag.first() {
                    Some(r) => (
                        Some(value(r.rhat)),
                        Some(value(r.ess)),
                        r.gradients.map(|g| 1000.0 * value(r.ess) / g),
                    ),
                    None => (None, None, None),
                };
                out.push(SamplerSummary {
                    dataset: name.into(),
                    sampler: sampler.into(),
                    draws: coords[0].n as f64,
                    mean_z_max: Some(z_max),
                    var_ratio_min: Some(ratios[0]),
                    var_ratio_median: Some(ratios[ratios.len() / 2]),
                    var_ratio_max: Some(ratios[ratios.len() - 1]),
                    test_error_mean: e_m,
                    test_error_sd: e_v.sqrt(),
                    ks_statistic: Some(ks_d),
                    ks_pvalue: Some(ks_p),
                    rhat_max: rh,
                    ess_min: es,
                    ess_min_per_1000_gradients: per_g,
                });
            }
        }
        Ok(Table::of_records(&out))
    }

    fn datasets(&self) -> Vec<DatasetRecord> {
        self.records.clone()
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        Ok(vec![Entry::new(
            "posterior=true (sampler validation)",
            Event::NonPrivate,
            Guarantee::None,
        )
        .when(
            "validates the samplers on the non-private posterior; no data are released",
        )])
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "posterior": "true posterior, prior N(0, (nβ₀)⁻¹I)",
            "hmc": serde_json::to_value(self.hmc).unwrap_or_default(),
            "imh": serde_json::to_value(self.imh).unwrap_or_default(),
            "reference": "coordinate-wise slice sampling in the whitened coordinates",
            "comparison": "mean_z_max = max over coordinates |mean − reference mean| / √(var/draws + ref var/ref ESS); var ratios = var/ref var; KS on test errors against the thinned reference",
        })
    }
}
