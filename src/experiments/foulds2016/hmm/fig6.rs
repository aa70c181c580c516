//! foulds2016 Figure 6: held-out test log-likelihood vs ε for naive Bayes and HMM
//! panels, non-private, Laplace and OPS (M = 10, 100).

use crate::config::{check, deserialize, ParamError};
use crate::data::warlog::DataSpec;
use crate::experiments::foulds2016::hmm::sweep::{
    check_common, describe, record, row_epsilons, sweep_ledger, tasks, Mech, Task,
};
use crate::experiments::{Deferred, Figure, Plan};
use crate::expfam::noise_aware::GibbsSettings;
use crate::expfam::noise_aware_dirichlet::gibbs_clamped_histogram;
use crate::hmm::gibbs::{Gibbs, State};
use crate::hmm::Histograms;
use crate::privacy::event::NoiseMode;
use crate::privacy::ledger::Ledger;
use crate::results::manifest::DatasetRecord;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use crate::rng::{setup_rng, Purpose, MAX_PANELS, MAX_SPLITS};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

mod noise_aware;
pub use noise_aware::NOISE_AWARE_DA;
use noise_aware::{
    any_reader, check_noise_aware, held_events, mean_predictive, noise_aware_loglik,
    per_cell_loglik, pooled_naive_bayes, push_predictive, reader, DaKernel, NaiveBayesLaplace,
    Reader,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig6Config {
    /// "model:NAME" with model naive_bayes (1 state) or hmm (`states` states); NAME is a
    /// `[datasets.NAME]` table or, without one, a generator preset
    panels: Vec<String>,
    /// optional data sources by name (each like a `[data]` table)
    datasets: Option<toml::Table>,
    epsilons: Vec<f64>,
    mechanisms: Vec<Mech>,
    states: usize,
    splits: usize,
    held_out_fraction: f64,
    alpha: f64,
    beta: f64,
    sweeps: usize,
    burn_in: usize,
    /// Laplace on the naive-Bayes panels: "pooled" (one noisy histogram per feature of
    /// the corpus-wide training counts, the paper's argument for Laplace on naive
    /// Bayes) or "per_cell" (every region-month histogram noised, as for the HMM)
    #[serde(default)]
    naive_bayes_laplace: NaiveBayesLaplace,
    /// how the Laplace series draw their noise (the OPS series are float-only)
    #[serde(default)]
    noise: NoiseMode,
    /// add the series `laplace_noise_aware_gibbs` on naive-Bayes panels: the same pooled
    /// Laplace release, read by a noise-aware Gibbs sampler
    #[serde(default)]
    noise_aware: bool,
    /// how the data-augmentation series moves the records: "counts" (exact draws
    /// of paired counts) or "record_wise" (Ju et al.'s kernel)
    #[serde(default)]
    da_kernel: DaKernel,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const FIG6_SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Fig6Config>;

/// The series name of the noise-aware posterior of the pooled naive-Bayes release.
pub const NOISE_AWARE: &str = "laplace_noise_aware_gibbs";

/// Cost-model units of one record-wise proposal (an event's feature in a sweep)
/// of the data-augmentation series, in [`super::sweep::gibbs_cost`]'s units:
/// measured 2026-11-28 (PRIVPOST_TASK_TIMES, one split, 2 jobs on 2 cores) at
/// 6.3–7.1 s per Iraq task (392,310 events, 200 sweeps) against 0.05–0.07 s for
/// an HMM Gibbs task, the ratio 150 units gives.
const DA_PROPOSAL_COST: f64 = 150.0;

/// Cost-model units of one pair draw of the count kernel (a cell's pair of
/// values in a sweep), in the same units (150 units ≈ 17 ns): about 280 ns a
/// pair draw (`benches/hmm_da.rs`, 2026-12-03: 6.2 ms an Iraq iteration, of
/// which about 5.3 ms are its 18,800 pair draws).
const DA_PAIR_COST: f64 = 2400.0;

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
    check::non_empty("mechanisms", &c.mechanisms)?;
    super::sweep::check_noise(c.noise, &c.mechanisms, &c.epsilons)?;
    let mechs = c.mechanisms.clone();
    if !(2..=50).contains(&c.states) {
        return Err(ParamError::new(
            "states",
            format!("{}", c.states),
            "2 ≤ states ≤ 50",
        ));
    }
    // the held-out likelihood reads ln φ of every held-out value: a Gamma(β) draw
    // (U^{1/β} times a Gamma(β + 1)) underflows to 0 with probability e^{−709β}
    check::within(
        "beta",
        c.beta,
        0.05,
        1e6,
        "below 0.05 an unseen value's sampled emission probability can underflow to 0 (probability e^{−709β} per draw) and the held-out log-likelihood is −∞",
    )?;
    if !(0.01..0.5).contains(&c.held_out_fraction) {
        return Err(ParamError::new(
            "held_out_fraction",
            check::short(c.held_out_fraction),
            "0.01 ≤ fraction < 0.5 (a smaller fraction can leave no held-out region-month)",
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
    DataSpec::check_all(c.datasets.as_ref())?;
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
    check_noise_aware(&c, &panels.iter().map(|p| p.model).collect::<Vec<_>>())?;
    let tasks = tasks(panels.len(), c.splits, &mechs, c.epsilons.len());
    let description = format!(
        "{} (data made at run time)",
        describe(
            (panels.len(), "panels"),
            (c.splits, "splits"),
            c.epsilons.len(),
            &mechs,
            tasks.len(),
            c.sweeps
        )
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
    /// Whether `mech` on panel `p` is the pooled naive-Bayes Laplace release.
    fn pooled(&self, p: usize, mech: Mech) -> bool {
        mech == Mech::Laplace
            && self.panels[p].model == "naive_bayes"
            && self.c.naive_bayes_laplace == NaiveBayesLaplace::Pooled
    }

    /// The mechanism column: `laplace_per_cell` for the per-cell naive-Bayes variant.
    fn mechanism_name(&self, p: usize, mech: Mech) -> String {
        if mech == Mech::Laplace
            && self.panels[p].model == "naive_bayes"
            && self.c.naive_bayes_laplace == NaiveBayesLaplace::PerCell
        {
            "laplace_per_cell".into()
        } else {
            mech.name()
        }
    }

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

/// A row of `data.csv`: one split's held-out log-likelihood per event for a
/// panel, mechanism and ε.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fig6Row {
    pub dataset: String,
    pub model: String,
    pub mechanism: String,
    pub epsilon: f64,
    pub split: u64,
    pub held_out_events: u64,
    pub loglik_per_event: f64,
}

/// A row of `summary.csv`: mean ± s.e. over the splits.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fig6Summary {
    pub dataset: String,
    pub model: String,
    pub mechanism: String,
    pub epsilon: f64,
    pub mean: f64,
    pub se: f64,
    pub splits: u64,
}

impl Figure for Fig6 {
    fn parameters(&self) -> Vec<(String, String)> {
        crate::experiments::noise_parameter(self.c.noise)
            .into_iter()
            .collect()
    }

    fn task_count(&self) -> usize {
        self.tasks.len()
    }

    fn grid_description(&self) -> String {
        describe(
            (self.panels.len(), "panels"),
            (self.c.splits, "splits"),
            self.c.epsilons.len(),
            &self.mechs,
            self.tasks.len(),
            self.c.sweeps,
        )
    }

    /// The data-augmentation series holds every training event's value of each
    /// feature of more than two values (4 bytes each) beside the histograms.
    fn task_memory(&self, index: usize) -> f64 {
        let (p, _, mech, e) = self.tasks[index];
        let panel = &self.panels[p];
        match (reader(&self.c, panel.model, mech), e) {
            (Some(Reader::PerCell), Some(_)) if self.c.da_kernel == DaKernel::RecordWise => {
                let wide = panel.data.cards.iter().filter(|&&k| k > 2).count();
                4.0 * panel.data.events() as f64 * wide as f64
            }
            _ => 0.0,
        }
    }

    fn task_cost(&self, index: usize) -> f64 {
        let (p, _, mech, e) = self.tasks[index];
        let panel = &self.panels[p];
        let gibbs = super::sweep::gibbs_cost(panel.data.cells(), panel.states, self.c.sweeps);
        match (reader(&self.c, panel.model, mech), e) {
            (Some(Reader::PerCell), Some(_)) => {
                // a second Gibbs chain, and per sweep a record-wise proposal per
                // event and feature, or a pair draw per cell and pair of values
                let sweeps = self.c.sweeps as f64;
                let moves = match self.c.da_kernel {
                    DaKernel::RecordWise => {
                        DA_PROPOSAL_COST
                            * panel.data.events() as f64
                            * panel.data.cards.len() as f64
                    }
                    DaKernel::Counts => {
                        let pairs: usize = panel.data.cards.iter().map(|k| k / 2).sum();
                        DA_PAIR_COST * panel.data.cells() as f64 * pairs as f64
                    }
                };
                2.0 * gibbs + sweeps * moves
            }
            _ => gibbs,
        }
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let (p, s, mech, e) = self.tasks[index];
        let panel = &self.panels[p];
        let eps = e.map(|i| self.c.epsilons[i]);
        let held_out = self.mask(p, s);
        let pooled = self.pooled(p, mech);
        let (seen, model) = mech.prepare(
            &panel.data,
            if pooled { None } else { eps },
            super::sweep::ModelSettings {
                states: panel.states,
                alpha: self.c.alpha,
                beta: self.c.beta,
            },
            self.c.noise,
            rng,
        )?;
        let (seen, release) = match (pooled, eps) {
            (true, Some(eps)) => {
                let (h, r) = pooled_naive_bayes(&panel.data, &held_out, eps, self.c.noise, rng)?;
                (h, Some(r))
            }
            _ => (seen, None),
        };
        let mut gibbs = Gibbs::new(&seen, model);
        gibbs.held_out = held_out;
        let held_events = held_events(&panel.data, &gibbs.held_out);
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
                push_predictive(&mut acc, gibbs.held_out_loglik(&state, &panel.data));
            }
        }
        let per_event = mean_predictive(&acc, held_events);
        let row = |mechanism: String, x: f64, value: f64| -> Row {
            to_row(&Fig6Row {
                dataset: panel.name.clone(),
                model: panel.model.to_string(),
                mechanism,
                epsilon: x,
                split: s as u64,
                held_out_events: held_events as u64,
                loglik_per_event: value,
            })
        };
        let mut rows: Vec<Row> = row_epsilons(eps, &self.c.epsilons)
            .into_iter()
            .map(|x| row(self.mechanism_name(p, mech), x, per_event))
            .collect();
        let reader = reader(&self.c, panel.model, mech);
        if let (Some(reader), Some(x)) = (reader, eps) {
            // the same release, read by the noise-aware sampler on its own stream
            use rand::{RngExt, SeedableRng};
            let mut own = ChaCha8Rng::seed_from_u64(rng.random());
            let value = match (reader, release) {
                (Reader::Pooled, Some(release)) => {
                    let settings = GibbsSettings {
                        burn_in: self.c.burn_in,
                        draws: self.c.sweeps - self.c.burn_in,
                    };
                    noise_aware_loglik(
                        &panel.data,
                        &gibbs.held_out,
                        &release,
                        (self.c.beta, settings),
                        &mut own,
                    )
                }
                (Reader::PerCell, _) => per_cell_loglik(
                    &panel.data,
                    (&seen, &gibbs.held_out),
                    (x, self.c.noise),
                    (gibbs.model.clone(), self.c.da_kernel),
                    (self.c.sweeps, self.c.burn_in),
                    &mut own,
                )?,
                (Reader::Pooled, None) => {
                    anyhow::bail!("the pooled noise-aware series found no pooled release (a defect of privpost's foulds2016/fig6)")
                }
            };
            rows.push(row(reader.series().into(), x, value));
        }
        Ok(rows)
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let data: Vec<Fig6Row> = data.records()?;
        type Key<'a> = (&'a str, &'a str, &'a str, u64);
        let mut order: Vec<(Key, f64)> = Vec::new();
        let mut groups: std::collections::HashMap<Key, Vec<f64>> = Default::default();
        for r in &data {
            let key = (
                r.dataset.as_str(),
                r.model.as_str(),
                r.mechanism.as_str(),
                r.epsilon.to_bits(),
            );
            if !groups.contains_key(&key) {
                order.push((key, r.epsilon));
            }
            groups.entry(key).or_default().push(r.loglik_per_event);
        }
        // panels in config order, then mechanisms in config order, then ε ascending
        let rank = |k: &Key| {
            let p = self
                .panels
                .iter()
                .position(|p| p.name == k.0 && p.model == k.1)
                .unwrap_or(usize::MAX);
            let m = match k.2 {
                "laplace_per_cell" => self.mechs.iter().position(|m| *m == Mech::Laplace),
                NOISE_AWARE => Some(self.mechs.len()),
                NOISE_AWARE_DA => Some(self.mechs.len() + 1),
                name => self.mechs.iter().position(|m| m.name() == name),
            }
            .unwrap_or(usize::MAX);
            (p, m)
        };
        order.sort_by(|a, b| rank(&a.0).cmp(&rank(&b.0)).then(a.1.total_cmp(&b.1)));
        let rows: Vec<Fig6Summary> = order
            .into_iter()
            .map(|(k, epsilon)| {
                let v = &groups[&k];
                let (mean, se) = crate::stats::mean_se(v);
                Fig6Summary {
                    dataset: k.0.into(),
                    model: k.1.into(),
                    mechanism: k.2.into(),
                    epsilon,
                    mean,
                    se,
                    splits: v.len() as u64,
                }
            })
            .collect();
        Ok(Table::of_records(&rows))
    }

    fn datasets(&self) -> Vec<DatasetRecord> {
        self.panels
            .iter()
            .map(|p| record(&p.name, &p.data, &p.provenance))
            .collect()
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        let mut ledger = sweep_ledger(
            self.panels.iter().map(|p| {
                (
                    format!("panel={}:{}", p.model, p.name),
                    p.data.cards.as_slice(),
                )
            }),
            &self.mechs,
            &self.c.epsilons,
            self.c.sweeps,
            self.c.noise,
        )?;
        // a noise-aware series reads its panel's Laplace release: the same event
        // and claim, no cost beyond it
        let extra: Vec<_> = ledger
            .iter()
            .filter_map(|e| {
                let panel = self.panels.iter().find(|p| {
                    e.series
                        .starts_with(&format!("panel={}:{}, ", p.model, p.name))
                })?;
                if !e.series.contains(", mechanism=laplace, ") {
                    return None;
                }
                let reader = reader(&self.c, panel.model, Mech::Laplace)?;
                let mut n = e.clone();
                n.series = e.series.replace(
                    ", mechanism=laplace, ",
                    &format!(", mechanism={}, ", reader.series()),
                );
                Some(n.when(match reader {
                    Reader::Pooled => "post-processing of the same pooled release by a noise-aware Gibbs sampler: no cost beyond it",
                    Reader::PerCell => "post-processing of the same per-cell release by data-augmentation MCMC: no cost beyond it",
                }))
            })
            .collect();
        ledger.extend(extra);
        Ok(ledger)
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "noise_aware": if self.c.noise_aware {
                let models = || self.panels.iter().map(|p| p.model);
                let has = |w| any_reader(&self.c, &self.mechs, models(), w);
                let panels = |w| self.panels.iter().filter(|p| reader(&self.c, p.model, Mech::Laplace) == Some(w)).map(|p| format!("{}:{}", p.model, p.name)).collect::<Vec<_>>();
                serde_json::json!({
                    "series": [NOISE_AWARE, NOISE_AWARE_DA],
                    NOISE_AWARE: if has(Reader::Pooled) { serde_json::json!({
                        "panels": panels(Reader::Pooled),
                        "reads": "the pooled Laplace release of each naive-Bayes panel",
                        "sampler": "gibbs_clamped_histogram per feature (CLT counts, Laplace scale mixture, clamped zeros as latent readings), the figure's burn-in and kept samples",
                    }) } else { serde_json::json!({"reads": "nothing: the series needs the Laplace mechanism and a naive-Bayes panel with naive_bayes_laplace = \"pooled\" drawn with noise = \"float\" (its sampler models the continuous Laplace law)"}) },
                    NOISE_AWARE_DA: if has(Reader::PerCell) { serde_json::json!({
                        "panels": panels(Reader::PerCell),
                        "reads": "the per-cell Laplace release of each panel's training cells (every histogram count, clamped at 0; the cells' event counts public)",
                        "sampler": self.c.da_kernel.describe(),
                        "acceptance_bound": match self.c.da_kernel {
                            DaKernel::RecordWise => "each record-wise move is accepted with probability ≥ e^(−ε/5) (Ju et al.'s bound per feature)",
                            DaKernel::Counts => "none needed: every pair draw is an exact Gibbs step",
                        },
                    }) } else { serde_json::json!({"reads": "nothing: the series needs the Laplace mechanism and an HMM panel or naive_bayes_laplace = \"per_cell\""}) },
                })
            } else {
                serde_json::Value::Bool(false)
            },
            "naive_bayes_laplace": match self.c.naive_bayes_laplace { NaiveBayesLaplace::Pooled => "pooled: one Laplace release per feature of the corpus-wide training counts (the naive-Bayes statistics)", NaiveBayesLaplace::PerCell => "per_cell: every region-month histogram noised (mechanism laplace_per_cell)" },
            "test_likelihood": "held-out cells are missing in training; per kept sample Σ_k p(z = k | neighbours) Π φ on the true events; likelihoods averaged over post-burn-in samples (Laplace, non-private) or the last sample (OPS); log per held-out event",
            "panels": self.panels.iter().map(|p| serde_json::json!({
                "model": p.model, "dataset": p.name, "data": p.provenance, "states": p.states,
                "cells": p.data.cells(), "events": p.data.events(), "median_events": p.data.median_events(),
            })).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smoke profile of configs/foulds2016/fig6.toml, with overrides.
    fn params(extra: &str) -> toml::Table {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/foulds2016/fig6.toml"),
        )
        .unwrap();
        let mut t: toml::Table = toml::from_str(&text).unwrap();
        let smoke = t["profile"]["smoke"].as_table().unwrap().clone();
        for k in ["experiment", "description", "seed", "profile"] {
            t.remove(k);
        }
        t.extend(smoke);
        t.extend(toml::from_str::<toml::Table>(extra).unwrap());
        t
    }

    /// The noise-aware series read their panels' Laplace releases: the ledger
    /// claims the same (event, guarantee) pairs with and without them, and has one
    /// entry more per Laplace entry of a panel they read (the pooled one on
    /// naive Bayes, the data-augmentation one on the HMM panels).
    #[test]
    fn noise_aware_series_adds_no_privacy_claim() {
        let ledger = |on: bool| {
            let plan = validate_fig6(&params(&format!("noise_aware = {on}")), 1).unwrap();
            plan.prepare().unwrap().ledger().unwrap()
        };
        let claims = |l: &Ledger| {
            let mut c: Vec<String> = l
                .iter()
                .map(|e| format!("{:?} {:?}", e.event, e.guarantee))
                .collect();
            c.sort();
            c.dedup();
            c
        };
        let (with, without) = (ledger(true), ledger(false));
        assert_eq!(claims(&with), claims(&without));
        let count = |l: &Ledger, prefix: &str, mech: &str| {
            l.iter()
                .filter(|e| e.series.starts_with(prefix) && e.series.contains(mech))
                .count()
        };
        let pooled = count(&with, "", &format!("mechanism={NOISE_AWARE},"));
        let da = count(&with, "", &format!("mechanism={NOISE_AWARE_DA},"));
        assert!(pooled > 0 && da > 0);
        assert_eq!(
            pooled,
            count(&without, "panel=naive_bayes:", "mechanism=laplace,")
        );
        assert_eq!(da, count(&without, "panel=hmm:", "mechanism=laplace,"));
        assert_eq!(with.len(), without.len() + pooled + da);
    }

    /// Where no series can read the release it is absent, not an error; the
    /// per-cell naive-Bayes release is read by data augmentation; where a series
    /// runs, ε beyond its sampler's range is refused on `epsilons`.
    #[test]
    fn noise_aware_runs_only_where_it_applies() {
        let ledger = |extra: &str| {
            let plan = validate_fig6(&params(extra), 1).unwrap();
            plan.prepare().unwrap().ledger().unwrap()
        };
        let nb = "panels = [\"naive_bayes:afghanistan\"]";
        for extra in [
            format!("{nb}\nnoise = \"exact\""),
            "mechanisms = [\"non_private\", \"ops_m10\"]".to_string(),
        ] {
            // the same ledger as without the series: it reads nothing here
            assert_eq!(
                ledger(&extra).len(),
                ledger(&format!("{extra}\nnoise_aware = false")).len(),
                "{extra}"
            );
        }
        for noise in ["float", "exact"] {
            let per_cell = ledger(&format!(
                "{nb}\nnaive_bayes_laplace = \"per_cell\"\nnoise = \"{noise}\""
            ));
            let da = per_cell
                .iter()
                .filter(|e| e.series.contains(&format!("mechanism={NOISE_AWARE_DA},")))
                .count();
            let laplace = per_cell
                .iter()
                .filter(|e| e.series.contains("mechanism=laplace,"))
                .count();
            assert!(da > 0 && da == laplace, "{noise}: {da} vs {laplace}");
        }
        // 2e-6: inside the range every figure takes (ε ≥ 1e-6), outside the
        // noise-aware samplers' (ε ≥ 1e-5)
        let e = validate_fig6(&params("epsilons = [2e-6]"), 1)
            .err()
            .expect("ε = 2e-6 accepted with noise_aware");
        assert_eq!(e.key, "epsilons");
        assert!(validate_fig6(&params("epsilons = [2e-6]\nnoise_aware = false"), 1).is_ok());
        assert!(validate_fig6(&params("epsilons = [1e-300]\nnoise_aware = false"), 1).is_err());
        // above ε = 50 only where a per-cell release is read record-wise
        assert!(validate_fig6(&params("epsilons = [60.0]"), 1).is_ok());
        let e = validate_fig6(&params("epsilons = [60.0]\nda_kernel = \"record_wise\""), 1)
            .err()
            .expect("ε = 60 accepted with an HMM panel's record-wise series");
        assert_eq!(e.key, "epsilons");
        assert!(
            e.allowed.as_deref().unwrap_or("").contains("per-cell"),
            "{e:?}"
        );
        assert!(validate_fig6(&params("epsilons = [60.0]\nnoise_aware = false"), 1).is_ok());
        let e = validate_fig6(&params("da_kernel = \"soma\""), 1)
            .err()
            .expect("da_kernel = soma accepted");
        assert_eq!(e.key, "da_kernel");
        assert!(
            e.allowed.as_deref().unwrap_or("").contains("record_wise"),
            "{e:?}"
        );
        assert!(validate_fig6(&params(&format!("epsilons = [60.0]\n{nb}")), 1).is_ok());
    }
}
