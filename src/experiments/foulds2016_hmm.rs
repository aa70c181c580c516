//! foulds2016 §5, the war-logs case study on synthetic data (issue 5): Figure 3 (state
//! assignments per region and month) and Figures 4–5 (per-state emission distributions),
//! from one private Gibbs run. Both figures run the same seeded chain, so the two
//! configs with the same settings describe the same run.

use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

use super::foulds2016_sweep::{
    check_common, ledger_entries, record, row_epsilons, tasks, Mech, Task,
};
use super::{Deferred, Figure, Plan};
use crate::config::{check, deserialize, ParamError};
use crate::data::warlog::{parse_spec, DataSpec, Dataset};
use crate::hmm::gibbs::{modal, posterior_mean_phi, Gibbs, LaplaceRelease, Model, Ops, State};
use crate::hmm::{Histograms, FEATURES};
use crate::privacy::ledger::Ledger;
use crate::results::manifest::DatasetRecord;
use crate::results::table::{Cell as TableCell, Row, Table};
use crate::rng::{setup_rng, Purpose, MAX_PANELS, MAX_SPLITS};

#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct RunConfig {
    /// the `[data]` table (see `data::warlog::DataSpec`)
    data: Option<toml::Value>,
    states: usize,
    alpha: f64,
    beta: f64,
    mechanism: String,
    epsilon: f64,
    ops_m: f64,
    sweeps: usize,
    burn_in: usize,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Mechanism {
    NonPrivate,
    Laplace,
    Ops,
}

/// A validated case-study run, its data loaded.
struct Run {
    dataset: Dataset,
    min_region_events: usize,
    c: RunConfig,
    mechanism: Mechanism,
    seed: u64,
}

/// What one run produces.
struct Output {
    /// per kept region and cell: counts of each state over the post-burn-in sweeps
    tallies: Vec<Vec<Vec<usize>>>,
    last: State,
    /// the released emission estimate: for Laplace and non-private runs the posterior
    /// mean of φ given the last sweep's states, on the statistics the sampler saw (free
    /// post-processing); for OPS the last sample of φ (OPS releases one sample — a
    /// posterior mean on the true counts would not be covered by its guarantee)
    phi_hat: Vec<Vec<Vec<f64>>>,
}

/// A validated case-study run before its data are generated or read.
struct RunPlan {
    c: RunConfig,
    spec: DataSpec,
    mechanism: Mechanism,
    seed: u64,
}

impl RunPlan {
    fn describe(&self, what: &str) -> String {
        format!(
            "{what} of one {}-state Gibbs run ({} sweeps, {} burn-in) on {}, {}; 1 task (data made at run time)",
            self.c.states,
            self.c.sweeps,
            self.c.burn_in,
            self.spec.describe(),
            self.c.mechanism
        )
    }

    /// Generates or reads the data.
    fn prepare(self) -> Result<Run, ParamError> {
        let dataset = self
            .spec
            .load("data", &mut setup_rng(self.seed, Purpose::WarlogGenerate))?;
        Ok(Run {
            dataset,
            min_region_events: self.spec.min_region_events(),
            c: self.c,
            mechanism: self.mechanism,
            seed: self.seed,
        })
    }
}

fn validate_run(params: &toml::Table, seed: u64) -> Result<RunPlan, ParamError> {
    let c: RunConfig = deserialize(params)?;
    let spec = parse_spec(c.data.as_ref(), "data")?;
    let mechanism = check::choice(
        "mechanism",
        "mechanism",
        &c.mechanism,
        &[
            ("non_private", Mechanism::NonPrivate),
            ("laplace", Mechanism::Laplace),
            ("ops", Mechanism::Ops),
        ],
    )?;
    check::epsilon("epsilon", c.epsilon)?;
    if !(2..=50).contains(&c.states) {
        return Err(ParamError::new(
            "states",
            format!("{}", c.states),
            "2 ≤ states ≤ 50",
        ));
    }
    check::positive("alpha", c.alpha)?;
    check::positive("beta", c.beta)?;
    if !(c.ops_m > 1.0 && c.ops_m.is_finite()) {
        return Err(ParamError::new(
            "ops_m",
            format!("{}", c.ops_m),
            "M > 1 (a₀ = 1/(M·K_d))",
        ));
    }
    if c.sweeps == 0 || c.burn_in >= c.sweeps {
        return Err(ParamError::new(
            "burn_in",
            format!("burn_in = {} with sweeps = {}", c.burn_in, c.sweeps),
            "0 ≤ burn_in < sweeps",
        ));
    }
    spec.validate("data")?;
    Ok(RunPlan {
        c,
        spec,
        mechanism,
        seed,
    })
}

impl Run {
    fn model(&self, cards: &[usize]) -> Model {
        Model {
            states: self.c.states,
            alpha: self.c.alpha,
            beta: vec![self.c.beta; cards.len()],
            ops: (self.mechanism == Mechanism::Ops)
                .then(|| Ops::new(cards, self.c.ops_m, self.c.epsilon)),
        }
    }

    fn execute(&self, rng: &mut ChaCha8Rng) -> anyhow::Result<Output> {
        let data = &self.dataset.data;
        let seen = if self.mechanism == Mechanism::Laplace {
            LaplaceRelease::even_split(self.c.epsilon, FEATURES.len())?
                .apply(data, &mut setup_rng(self.seed, Purpose::HmmPrivatize))
        } else {
            data.clone()
        };
        let gibbs = Gibbs::new(&seen, self.model(&seen.cards));
        let (tallies, state) = gibbs.run(self.c.sweeps, self.c.burn_in, rng);
        let phi_hat = if self.mechanism == Mechanism::Ops {
            state.phi.clone()
        } else {
            posterior_mean_phi(&seen, &state.z, self.c.states, self.c.beta)
        };
        Ok(Output {
            tallies,
            last: state,
            phi_hat,
        })
    }

    /// The ledger of the run (see [`ledger_entries`]).
    fn ledger(&self) -> anyhow::Result<Ledger> {
        let (mech, eps) = match self.mechanism {
            Mechanism::NonPrivate => (Mech::NonPrivate, None),
            Mechanism::Laplace => (Mech::Laplace, Some(self.c.epsilon)),
            Mechanism::Ops => (Mech::Ops(self.c.ops_m), Some(self.c.epsilon)),
        };
        ledger_entries(
            &format!(
                "dataset={}, mechanism={}",
                self.dataset.name, self.c.mechanism
            ),
            mech,
            eps,
            &self.dataset.data.cards,
            self.c.sweeps,
        )
    }
}

// ---------------------------------------------------------------- Figure 3

/// State assignments over time for each region: modal over the post-burn-in sweeps,
/// the last sample, and the planted truth when known. Figure 3 (Laplace, iraq) and
/// Figure 7 (OPS, afghanistan: modal of the last 100 samples vs the last sample) are
/// this table from different configs.
pub struct Fig3 {
    run: Run,
}

/// Figures 3 and 7 (Figure 7 is the same table drawn as modal vs last-sample strips).
pub fn validate_fig3(params: &toml::Table, seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let plan = validate_run(params, seed)?;
    Ok(Box::new(Deferred {
        description: plan.describe("state assignments"),
        config: plan,
        prepare: |p| Ok(Box::new(Fig3 { run: p.prepare()? })),
    }))
}

pub const FIG3_COLUMNS: [&str; 9] = [
    "region",
    "region_name",
    "month",
    "date",
    "events",
    "modal_state",
    "modal_share",
    "last_state",
    "true_state",
];

impl Run {
    fn details(&self) -> serde_json::Value {
        serde_json::json!({
            "data": self.dataset.provenance,
            "kept": {
                "regions": self.dataset.data.regions.len(),
                "cells": self.dataset.data.cells(),
                "events": self.dataset.data.events(),
                "median_events_per_cell": self.dataset.data.median_events(),
                "min_region_events": self.min_region_events,
            },
            "modal_over_sweeps": self.c.sweeps - self.c.burn_in,
        })
    }
}

impl Figure for Fig3 {
    fn task_count(&self) -> usize {
        1
    }

    fn grid_description(&self) -> String {
        format!(
            "one {}-state Gibbs run ({} sweeps, {} burn-in) on {} ({} cells), {}",
            self.run.c.states,
            self.run.c.sweeps,
            self.run.c.burn_in,
            self.run.dataset.name,
            self.run.dataset.data.cells(),
            self.run.c.mechanism
        )
    }

    fn run_task(&self, _index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let out = self.run.execute(rng)?;
        let kept = self.run.c.sweeps - self.run.c.burn_in;
        let ds = &self.run.dataset;
        let mut rows = Vec::new();
        for (r, (region, cells)) in ds.data.regions.iter().enumerate() {
            for (i, cell) in cells.iter().enumerate() {
                let t = &out.tallies[r][i];
                let m = modal(t);
                rows.push(vec![
                    (*region).into(),
                    ds.region_names[*region].clone().into(),
                    cell.month.into(),
                    month_label(&ds.first_month, cell.month).into(),
                    cell.events.into(),
                    m.into(),
                    (t[m] as f64 / kept as f64).into(),
                    out.last.z[r][i].into(),
                    ds.truth
                        .as_ref()
                        .map_or(TableCell::Empty, |tr| tr.states[*region][cell.month].into()),
                ]);
            }
        }
        Ok(rows)
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        Ok(data.clone())
    }

    fn manifest_details(&self) -> serde_json::Value {
        self.run.details()
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        self.run.ledger()
    }

    fn datasets(&self) -> Vec<DatasetRecord> {
        let d = &self.run.dataset;
        vec![record(&d.name, &d.data, &d.provenance)]
    }
}

// ---------------------------------------------------------------- Figures 4–5

/// Per-state emission distributions (the released estimate, see [`Output::phi_hat`]).
pub struct Fig45 {
    run: Run,
}

pub fn validate_fig4_5(params: &toml::Table, seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let plan = validate_run(params, seed)?;
    Ok(Box::new(Deferred {
        description: plan.describe("emission distributions"),
        config: plan,
        prepare: |p| Ok(Box::new(Fig45 { run: p.prepare()? })),
    }))
}

impl Figure for Fig45 {
    fn task_count(&self) -> usize {
        1
    }

    fn grid_description(&self) -> String {
        format!(
            "emission distributions of one {}-state run on {}, {}",
            self.run.c.states, self.run.dataset.name, self.run.c.mechanism
        )
    }

    fn run_task(&self, _index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let out = self.run.execute(rng)?;
        let labels = &self.run.dataset.value_labels;
        let mut rows = Vec::new();
        for (k, pk) in out.phi_hat.iter().enumerate() {
            let cells: usize = out.last.z.iter().flatten().filter(|&&z| z == k).count();
            for (d, p) in pk.iter().enumerate() {
                for (v, &x) in p.iter().enumerate() {
                    rows.push(vec![
                        k.into(),
                        FEATURES[d].into(),
                        v.into(),
                        labels[d][v].clone().into(),
                        x.into(),
                        cells.into(),
                    ]);
                }
            }
        }
        Ok(rows)
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        Ok(data.clone())
    }

    fn manifest_details(&self) -> serde_json::Value {
        self.run.details()
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        self.run.ledger()
    }

    fn datasets(&self) -> Vec<DatasetRecord> {
        let d = &self.run.dataset;
        vec![record(&d.name, &d.data, &d.provenance)]
    }
}

/// The label of month `i` counted from `first` ("2004-01" → "2004-03" for i = 2; an
/// index label stays an index).
fn month_label(first: &str, i: usize) -> String {
    match first.split_once('-') {
        Some((y, m)) => match (y.parse::<i64>(), m.parse::<i64>()) {
            (Ok(y), Ok(m)) => {
                let t = y * 12 + m - 1 + i as i64;
                format!("{:04}-{:02}", t / 12, t % 12 + 1)
            }
            _ => i.to_string(),
        },
        None => (first.parse::<usize>().unwrap_or(0) + i).to_string(),
    }
}

// ---------------------------------------------------------------- Figure 6

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig6Config {
    /// "model:NAME" with model naive_bayes (1 state) or hmm (`states` states); NAME is a
    /// `[datasets.NAME]` table or, without one, a generator preset
    panels: Vec<String>,
    /// optional data sources by name (each like a `[data]` table)
    datasets: Option<toml::Table>,
    epsilons: Vec<f64>,
    mechanisms: Vec<String>,
    states: usize,
    splits: usize,
    held_out_fraction: f64,
    alpha: f64,
    beta: f64,
    sweeps: usize,
    burn_in: usize,
}

struct Panel {
    model: &'static str,
    /// the dataset's name in the config (a preset or a `[datasets.NAME]` table)
    name: String,
    states: usize,
    data: Histograms,
    provenance: serde_json::Value,
}

/// Test log-likelihood per held-out event vs ε (Figure 6).
pub struct Fig6 {
    c: Fig6Config,
    panels: Vec<Panel>,
    mechs: Vec<Mech>,
    /// (panel, split, mechanism, ε index or None for the ε-free non-private run)
    tasks: Vec<Task>,
    seed: u64,
}

pub fn validate_fig6(params: &toml::Table, seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let c: Fig6Config = deserialize(params)?;
    check::non_empty("panels", &c.panels)?;
    check_common(&c.epsilons, c.alpha, c.beta, c.sweeps, c.burn_in)?;
    let mechs = Mech::parse_all(&c.mechanisms)?;
    if !(2..=50).contains(&c.states) {
        return Err(ParamError::new(
            "states",
            format!("{}", c.states),
            "2 ≤ states ≤ 50",
        ));
    }
    if c.splits == 0 || c.splits > MAX_SPLITS {
        return Err(ParamError::new(
            "splits",
            format!("{}", c.splits),
            format!("1 ≤ splits ≤ {MAX_SPLITS}"),
        ));
    }
    if c.panels.len() > MAX_PANELS {
        return Err(ParamError::new(
            "panels",
            format!("{} panels", c.panels.len()),
            format!("at most {MAX_PANELS} panels"),
        ));
    }
    if !(c.held_out_fraction > 0.0 && c.held_out_fraction < 0.5) {
        return Err(ParamError::new(
            "held_out_fraction",
            format!("{}", c.held_out_fraction),
            "0 < fraction < 0.5",
        ));
    }
    let mut panels = Vec::new();
    for spec in &c.panels {
        let bad = || {
            ParamError::new(
                "panels",
                format!("invalid panel \"{spec}\""),
                "\"naive_bayes:NAME\" or \"hmm:NAME\", NAME a [datasets.NAME] table or a preset (iraq, afghanistan)",
            )
        };
        let (model, name) = spec.split_once(':').ok_or_else(bad)?;
        let (model, states) = match model {
            "naive_bayes" => ("naive_bayes", 1),
            "hmm" => ("hmm", c.states),
            _ => return Err(bad()),
        };
        let data_spec = DataSpec::named(c.datasets.as_ref(), name)?.ok_or_else(bad)?;
        data_spec.validate(&format!("datasets.{name}"))?;
        panels.push(PanelPlan {
            panel: spec.clone(),
            model,
            name: name.to_string(),
            states,
            spec: data_spec,
        });
    }
    let tasks = tasks(panels.len(), c.splits, &mechs, c.epsilons.len());
    let description = format!(
        "{} panels × {} splits × ({} ε × {} private mechanisms + non-private) = {} Gibbs runs of {} sweeps (data made at run time)",
        panels.len(),
        c.splits,
        c.epsilons.len(),
        mechs.iter().filter(|m| **m != Mech::NonPrivate).count(),
        tasks.len(),
        c.sweeps
    );
    Ok(Box::new(Deferred {
        description,
        config: Fig6Plan {
            c,
            panels,
            mechs,
            tasks,
            seed,
        },
        prepare: prepare_fig6,
    }))
}

/// A panel of Figure 6 before its data are made.
struct PanelPlan {
    panel: String,
    model: &'static str,
    name: String,
    states: usize,
    spec: DataSpec,
}

/// Figure 6, validated.
struct Fig6Plan {
    c: Fig6Config,
    panels: Vec<PanelPlan>,
    mechs: Vec<Mech>,
    tasks: Vec<Task>,
    seed: u64,
}

/// Generates or reads each panel's data.
fn prepare_fig6(plan: Fig6Plan) -> Result<Box<dyn Figure>, ParamError> {
    let mut panels = Vec::new();
    for (pi, p) in plan.panels.into_iter().enumerate() {
        let key = format!("datasets.{}", p.name);
        let ds = p
            .spec
            .load(&key, &mut setup_rng(plan.seed, Purpose::Fig6Panel(pi)))?;
        if ds.data.cells() < 10 {
            return Err(ParamError::new(
                format!("{key}.min_region_events"),
                format!("panel \"{}\" keeps only {} cells", p.panel, ds.data.cells()),
                "a threshold that keeps at least 10 region-months",
            ));
        }
        panels.push(Panel {
            model: p.model,
            name: p.name,
            states: p.states,
            data: ds.data,
            provenance: ds.provenance,
        });
    }
    Ok(Box::new(Fig6 {
        c: plan.c,
        panels,
        mechs: plan.mechs,
        tasks: plan.tasks,
        seed: plan.seed,
    }))
}

impl Fig6 {
    /// The held-out mask of split `s` of panel `p` (same for every mechanism and ε).
    fn mask(&self, p: usize, s: usize) -> Vec<Vec<bool>> {
        use rand::RngExt;
        let mut rng = setup_rng(self.seed, Purpose::Fig6Split { panel: p, split: s });
        self.panels[p]
            .data
            .regions
            .iter()
            .map(|(_, cells)| {
                cells
                    .iter()
                    .map(|_| rng.random::<f64>() < self.c.held_out_fraction)
                    .collect()
            })
            .collect()
    }
}

pub const FIG4_5_COLUMNS: [&str; 6] = [
    "state",
    "feature",
    "value",
    "label",
    "probability",
    "cells_in_state",
];

pub const FIG6_DATA: [&str; 7] = [
    "dataset",
    "model",
    "mechanism",
    "epsilon",
    "split",
    "held_out_events",
    "loglik_per_event",
];

pub const FIG6_SUMMARY: [&str; 7] = [
    "dataset",
    "model",
    "mechanism",
    "epsilon",
    "mean",
    "se",
    "splits",
];

impl Figure for Fig6 {
    fn task_count(&self) -> usize {
        self.tasks.len()
    }

    fn grid_description(&self) -> String {
        format!(
            "{} panels × {} splits × ({} ε × {} private mechanisms + non-private) = {} Gibbs runs of {} sweeps",
            self.panels.len(),
            self.c.splits,
            self.c.epsilons.len(),
            self.mechs.iter().filter(|m| **m != Mech::NonPrivate).count(),
            self.tasks.len(),
            self.c.sweeps
        )
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let (p, s, mech, e) = self.tasks[index];
        let panel = &self.panels[p];
        let eps = e.map(|i| self.c.epsilons[i]);
        let (seen, model) = mech.prepare(
            &panel.data,
            eps,
            panel.states,
            self.c.alpha,
            self.c.beta,
            rng,
        )?;
        let mut gibbs = Gibbs::new(&seen, model);
        gibbs.held_out = self.mask(p, s);
        let held_events: usize = panel
            .data
            .regions
            .iter()
            .enumerate()
            .flat_map(|(r, (_, cells))| {
                let mask = &gibbs.held_out[r];
                cells
                    .iter()
                    .enumerate()
                    .filter(move |(i, _)| mask[*i])
                    .map(|(_, c)| c.events)
            })
            .sum();
        let mut state = State::random(&seen, panel.states, rng);
        // per held-out cell: ln Σ over kept samples of the likelihood, and the count
        let mut acc: Vec<Vec<f64>> = Vec::new();
        let last_only = matches!(mech, Mech::Ops(_));
        for sweep in 0..self.c.sweeps {
            gibbs.sweep(&mut state, rng);
            let keep = if last_only {
                sweep + 1 == self.c.sweeps
            } else {
                sweep >= self.c.burn_in
            };
            if keep {
                let ll = gibbs.held_out_loglik(&state, &panel.data);
                if acc.is_empty() {
                    acc = ll.into_iter().map(|x| vec![x]).collect();
                } else {
                    acc.iter_mut().zip(ll).for_each(|(a, x)| a.push(x));
                }
            }
        }
        let total: f64 = acc
            .iter()
            .map(|v| crate::numeric::log_sum_exp(v) - (v.len() as f64).ln())
            .sum();
        let per_event = if held_events > 0 {
            total / held_events as f64
        } else {
            f64::NAN
        };
        Ok(row_epsilons(eps, &self.c.epsilons)
            .into_iter()
            .map(|x| {
                vec![
                    panel.name.clone().into(),
                    panel.model.into(),
                    mech.name().into(),
                    x.into(),
                    s.into(),
                    held_events.into(),
                    per_event.into(),
                ]
            })
            .collect())
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let col = |n: &str| data.col(n);
        let (ds, model, mech, eps, ll) = (
            col("dataset")?,
            col("model")?,
            col("mechanism")?,
            col("epsilon")?,
            col("loglik_per_event")?,
        );
        let mut order: Vec<Vec<String>> = Vec::new();
        let mut groups: std::collections::HashMap<Vec<String>, Vec<f64>> = Default::default();
        for i in 0..data.rows.len() {
            let key = vec![
                data.s(i, ds),
                data.s(i, model),
                data.s(i, mech),
                data.s(i, eps),
            ];
            if !groups.contains_key(&key) {
                order.push(key.clone());
            }
            groups.entry(key).or_default().push(data.f(i, ll));
        }
        // panels in config order, then mechanisms in config order, then ε ascending
        let rank = |k: &[String]| {
            let p = self
                .panels
                .iter()
                .position(|p| p.name == k[0] && p.model == k[1])
                .unwrap_or(usize::MAX);
            let m = self
                .mechs
                .iter()
                .position(|m| m.name() == k[2])
                .unwrap_or(usize::MAX);
            (p, m)
        };
        order.sort_by(|a, b| {
            rank(a).cmp(&rank(b)).then(
                a[3].parse::<f64>()
                    .unwrap_or(0.0)
                    .total_cmp(&b[3].parse::<f64>().unwrap_or(0.0)),
            )
        });
        let rows = order
            .into_iter()
            .map(|k| {
                let v = &groups[&k];
                let (m, se) = crate::stats::mean_se(v);
                vec![
                    k[0].clone().into(),
                    k[1].clone().into(),
                    k[2].clone().into(),
                    k[3].parse::<f64>().unwrap_or(f64::NAN).into(),
                    m.into(),
                    se.into(),
                    v.len().into(),
                ]
            })
            .collect();
        Ok(Table::new(&FIG6_SUMMARY, rows))
    }

    fn datasets(&self) -> Vec<DatasetRecord> {
        self.panels
            .iter()
            .map(|p| record(&p.name, &p.data, &p.provenance))
            .collect()
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        let mut out = Vec::new();
        for p in &self.panels {
            for &m in &self.mechs {
                let eps: Vec<Option<f64>> = if m == Mech::NonPrivate {
                    vec![None]
                } else {
                    self.c.epsilons.iter().map(|&e| Some(e)).collect()
                };
                for e in eps {
                    let series = match e {
                        Some(e) => format!(
                            "panel={}:{}, mechanism={}, epsilon={e}",
                            p.model,
                            p.name,
                            m.name()
                        ),
                        None => format!("panel={}:{}, mechanism={}", p.model, p.name, m.name()),
                    };
                    out.extend(ledger_entries(&series, m, e, &p.data.cards, self.c.sweeps)?);
                }
            }
        }
        Ok(out)
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "test_likelihood": "held-out cells are missing in training; per kept sample Σ_k p(z = k | neighbours) Π φ on the true events; likelihoods averaged over post-burn-in samples (Laplace, non-private) or the last sample (OPS); log per held-out event",
            "panels": self.panels.iter().map(|p| serde_json::json!({
                "model": p.model, "dataset": p.name, "data": p.provenance, "states": p.states,
                "cells": p.data.cells(), "events": p.data.events(), "median_events": p.data.median_events(),
            })).collect::<Vec<_>>(),
        })
    }
}
