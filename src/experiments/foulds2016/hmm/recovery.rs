//! foulds2016/recovery (beyond the paper): with the generator's planted model
//! known, how well does each mechanism recover the true states (adjusted Rand index of
//! the modal and of the last-sample assignments) and the emission distributions (total
//! variation, after matching estimated to true states) as ε varies?

use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

use super::sweep::{check_common, describe, record, row_epsilons, sweep_ledger, tasks, Mech, Task};
use crate::config::{check, deserialize, ParamError};
use crate::data::warlog::DataSpec;
use crate::experiments::{Deferred, Figure};
use crate::hmm::generate::Truth;
use crate::hmm::gibbs::{modal, posterior_mean_phi, Gibbs};
use crate::hmm::metrics::{adjusted_rand_index, best_matching, confusion, total_variation};
use crate::hmm::Histograms;
use crate::privacy::ledger::Ledger;
use crate::results::manifest::DatasetRecord;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use crate::rng::{setup_rng, Purpose, MAX_PANELS};
use crate::stats::mean_se;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    /// how the Laplace series draw their noise (the OPS series are float-only)
    #[serde(default)]
    noise: crate::privacy::event::NoiseMode,
    /// one panel column per dataset: names of `[datasets.NAME]` tables (generator
    /// presets with overrides) or presets
    panels: Vec<String>,
    /// optional data sources by name; they must use the generator (truth needed)
    datasets: Option<toml::Table>,
    mechanisms: Vec<Mech>,
    epsilons: Vec<f64>,
    /// model states; default: the planted number of each dataset
    states: Option<usize>,
    repeats: usize,
    alpha: f64,
    beta: f64,
    sweeps: usize,
    burn_in: usize,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Config>;

struct Data {
    name: String,
    states: usize,
    data: Histograms,
    truth: Truth,
    /// true state of every kept cell, in region/cell order
    labels: Vec<usize>,
    provenance: serde_json::Value,
}

/// A row of `data.csv`: one repeat's recovery scores for a data set, mechanism
/// and ε (`tv` the mean emission TV over the five fields, `tv_casualty` over the
/// three casualty fields).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RecoveryRow {
    pub dataset: String,
    pub mechanism: String,
    pub epsilon: f64,
    pub repeat: u64,
    pub states: u64,
    pub ari_modal: f64,
    pub ari_last: f64,
    pub tv: f64,
    pub tv_type: f64,
    pub tv_category: f64,
    pub tv_casualty: f64,
    pub states_used: u64,
}

impl RecoveryRow {
    /// The scores, in the order of the summary's mean/s.e. pairs.
    fn metrics(&self) -> [f64; 6] {
        [
            self.ari_modal,
            self.ari_last,
            self.tv,
            self.tv_type,
            self.tv_category,
            self.tv_casualty,
        ]
    }
}

/// A row of `summary.csv`: each score's mean and s.e. over the repeats.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RecoverySummary {
    pub dataset: String,
    pub mechanism: String,
    pub epsilon: f64,
    pub ari_modal_mean: f64,
    pub ari_modal_se: f64,
    pub ari_last_mean: f64,
    pub ari_last_se: f64,
    pub tv_mean: f64,
    pub tv_se: f64,
    pub tv_type_mean: f64,
    pub tv_type_se: f64,
    pub tv_category_mean: f64,
    pub tv_category_se: f64,
    pub tv_casualty_mean: f64,
    pub tv_casualty_se: f64,
    pub repeats: u64,
}

pub struct Recovery {
    c: Config,
    sets: Vec<Data>,
    mechs: Vec<Mech>,
    /// (dataset, repeat, mechanism, ε index or None for non-private)
    tasks: Vec<Task>,
}

pub fn validate(
    params: &toml::Table,
    seed: u64,
) -> Result<Box<dyn crate::experiments::Plan>, ParamError> {
    let c: Config = deserialize(params)?;
    check::non_empty("panels", &c.panels)?;
    check_common(&c.epsilons, c.alpha, c.beta, c.sweeps, c.burn_in)?;
    check::non_empty("mechanisms", &c.mechanisms)?;
    super::sweep::check_noise(c.noise, &c.mechanisms, &c.epsilons)?;
    let mechs = c.mechanisms.clone();
    if let Some(k) = c.states {
        if !(1..=12).contains(&k) {
            return Err(ParamError::new(
                "states",
                format!("{k}"),
                "1 ≤ states ≤ 12 (or leave it out for the planted number)",
            ));
        }
    }
    if c.repeats == 0 || c.repeats > 1000 {
        return Err(ParamError::new(
            "repeats",
            format!("{}", c.repeats),
            "1 ≤ repeats ≤ 1000",
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
    let mut specs = Vec::new();
    for name in &c.panels {
        let key = format!("datasets.{name}");
        let spec = DataSpec::named(c.datasets.as_ref(), name)?.ok_or_else(|| {
            ParamError::new(
                "panels",
                format!("\"{name}\" is neither a [datasets.{name}] table nor a preset"),
                "preset names (iraq, afghanistan) or names of [datasets.NAME] tables",
            )
        })?;
        spec.validate(&key)?;
        if spec.source == Some(crate::data::warlog::Source::Csv) {
            return Err(ParamError::new(
                format!("{key}.source"),
                "recovery is scored against the generator's planted model; CSV records have none",
                "source = \"preset\"",
            ));
        }
        specs.push((name.clone(), spec));
    }
    let tasks = tasks(specs.len(), c.repeats, &mechs, c.epsilons.len());
    let description = format!(
        "{} (data generated at run time)",
        describe(
            (specs.len(), "datasets"),
            (c.repeats, "repeats"),
            c.epsilons.len(),
            &mechs,
            tasks.len(),
            c.sweeps
        )
    );
    Ok(Box::new(Deferred {
        description,
        config: Plan {
            c,
            specs,
            mechs,
            tasks,
            seed,
        },
        prepare,
    }))
}

/// The recovery figure, validated: its datasets not yet generated.
struct Plan {
    c: Config,
    specs: Vec<(String, DataSpec)>,
    mechs: Vec<Mech>,
    tasks: Vec<Task>,
    seed: u64,
}

/// Generates each dataset with its planted truth.
fn prepare(plan: Plan) -> Result<Box<dyn Figure>, ParamError> {
    let mut sets = Vec::new();
    for (i, (name, spec)) in plan.specs.into_iter().enumerate() {
        let key = format!("datasets.{name}");
        let ds = spec.load(&key, &mut setup_rng(plan.seed, Purpose::RecoveryPanel(i)))?;
        let Some(truth) = ds.truth else {
            return Err(ParamError::new(
                format!("{key}.source"),
                "recovery is scored against the generator's planted model; CSV records have none",
                "source = \"preset\"",
            ));
        };
        let planted = truth.phi.len();
        let labels = ds
            .data
            .regions
            .iter()
            .flat_map(|(r, cells)| cells.iter().map(|cell| truth.states[*r][cell.month]))
            .collect();
        sets.push(Data {
            name,
            states: plan.c.states.unwrap_or(planted),
            data: ds.data,
            truth,
            labels,
            provenance: ds.provenance,
        });
    }
    Ok(Box::new(Recovery {
        c: plan.c,
        sets,
        mechs: plan.mechs,
        tasks: plan.tasks,
    }))
}

/// Scores of one run against the truth.
struct Scores {
    ari_modal: f64,
    ari_last: f64,
    /// mean TV per feature, averaged over the true states
    tv: [f64; 5],
    states_used: usize,
}

fn score(
    d: &Data,
    modal_z: &[usize],
    last_z: &[usize],
    phi_hat: &[Vec<Vec<f64>>],
    k: usize,
) -> Scores {
    let kt = d.truth.phi.len();
    let matching = best_matching(&confusion(&d.labels, modal_z, kt, k));
    let mut tv = [0.0; 5];
    for (t, m) in matching.iter().enumerate() {
        // a true state left unmatched (fewer model states) is scored against the
        // closest estimated state
        let e = m.unwrap_or_else(|| {
            (0..k)
                .min_by(|&a, &b| {
                    let f = |e: usize| -> f64 {
                        (0..5)
                            .map(|f| total_variation(&phi_hat[e][f], &d.truth.phi[t][f]))
                            .sum()
                    };
                    f(a).total_cmp(&f(b))
                })
                .unwrap_or(0)
        });
        for (f, x) in tv.iter_mut().enumerate() {
            *x += total_variation(&phi_hat[e][f], &d.truth.phi[t][f]) / kt as f64;
        }
    }
    let mut used = modal_z.to_vec();
    used.sort_unstable();
    used.dedup();
    Scores {
        ari_modal: adjusted_rand_index(&d.labels, modal_z),
        ari_last: adjusted_rand_index(&d.labels, last_z),
        tv,
        states_used: used.len(),
    }
}

impl Figure for Recovery {
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
            (self.sets.len(), "datasets"),
            (self.c.repeats, "repeats"),
            self.c.epsilons.len(),
            &self.mechs,
            self.tasks.len(),
            self.c.sweeps,
        )
    }

    fn task_cost(&self, index: usize) -> f64 {
        let d = &self.sets[self.tasks[index].0];
        super::sweep::gibbs_cost(d.data.cells(), d.states, self.c.sweeps)
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let (di, rep, mech, e) = self.tasks[index];
        let d = &self.sets[di];
        let eps = e.map(|i| self.c.epsilons[i]);
        let (seen, model) = mech.prepare(
            &d.data,
            eps,
            super::sweep::ModelSettings {
                states: d.states,
                alpha: self.c.alpha,
                beta: self.c.beta,
            },
            self.c.noise,
            rng,
        )?;
        let gibbs = Gibbs::new(&seen, model);
        let (tallies, last) = gibbs.run(self.c.sweeps, self.c.burn_in, rng);
        let modal_z: Vec<usize> = tallies.iter().flatten().map(|t| modal(t)).collect();
        let last_z: Vec<usize> = last.z.iter().flatten().copied().collect();
        // the released emission estimate, as in foulds2016/fig4_5
        let phi_hat = if matches!(mech, Mech::Ops(_)) {
            last.phi.clone()
        } else {
            posterior_mean_phi(&seen, &last.z, d.states, self.c.beta)
        };
        let s = score(d, &modal_z, &last_z, &phi_hat, d.states);
        let tv_mean = s.tv.iter().sum::<f64>() / 5.0;
        let casualty = (s.tv[2] + s.tv[3] + s.tv[4]) / 3.0;
        Ok(row_epsilons(eps, &self.c.epsilons)
            .into_iter()
            .map(|x| {
                to_row(&RecoveryRow {
                    dataset: d.name.clone(),
                    mechanism: mech.name(),
                    epsilon: x,
                    repeat: rep as u64,
                    states: d.states as u64,
                    ari_modal: s.ari_modal,
                    ari_last: s.ari_last,
                    tv: tv_mean,
                    tv_type: s.tv[0],
                    tv_category: s.tv[1],
                    tv_casualty: casualty,
                    states_used: s.states_used as u64,
                })
            })
            .collect())
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let data: Vec<RecoveryRow> = data.records()?;
        let mut rows = Vec::new();
        for d in &self.sets {
            for m in &self.mechs {
                for &e in &self.c.epsilons {
                    let of: Vec<[f64; 6]> = data
                        .iter()
                        .filter(|r| {
                            r.dataset == d.name && r.mechanism == m.name() && r.epsilon == e
                        })
                        .map(RecoveryRow::metrics)
                        .collect();
                    if of.is_empty() {
                        continue;
                    }
                    let ms: [(f64, f64); 6] = std::array::from_fn(|k| {
                        mean_se(&of.iter().map(|x| x[k]).collect::<Vec<_>>())
                    });
                    rows.push(RecoverySummary {
                        dataset: d.name.clone(),
                        mechanism: m.name(),
                        epsilon: e,
                        ari_modal_mean: ms[0].0,
                        ari_modal_se: ms[0].1,
                        ari_last_mean: ms[1].0,
                        ari_last_se: ms[1].1,
                        tv_mean: ms[2].0,
                        tv_se: ms[2].1,
                        tv_type_mean: ms[3].0,
                        tv_type_se: ms[3].1,
                        tv_category_mean: ms[4].0,
                        tv_category_se: ms[4].1,
                        tv_casualty_mean: ms[5].0,
                        tv_casualty_se: ms[5].1,
                        repeats: of.len() as u64,
                    });
                }
            }
        }
        Ok(Table::of_records(&rows))
    }

    fn datasets(&self) -> Vec<DatasetRecord> {
        self.sets
            .iter()
            .map(|d| record(&d.name, &d.data, &d.provenance))
            .collect()
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        sweep_ledger(
            self.sets
                .iter()
                .map(|d| (format!("dataset={}", d.name), d.data.cards.as_slice())),
            &self.mechs,
            &self.c.epsilons,
            self.c.sweeps,
            self.c.noise,
        )
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "ari": "adjusted Rand index between the true states of the kept cells and the modal state over the post-burn-in sweeps (ari_modal) or the last sample (ari_last)",
            "tv": "total variation between true and estimated emission distributions, per feature, averaged over true states after matching estimated to true states (maximum agreement of modal states); tv = mean over the 5 features, tv_casualty = mean over the 3 casualty features",
            "estimate": "Laplace and non-private: posterior mean of φ given the last states, on the statistics the sampler saw; OPS: the last sample of φ (what OPS releases)",
            "ari_modal_of_ops": "uses all post-burn-in samples, so it is covered only by the ledger's worst case",
            "datasets": self.sets.iter().map(|d| serde_json::json!({
                "name": d.name, "states": d.states, "planted_states": d.truth.phi.len(),
                "cells": d.data.cells(), "events": d.data.events(), "median_events": d.data.median_events(),
            })).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Perfect estimates score ARI 1 and TV 0 under any relabelling.
    #[test]
    fn a_relabelled_truth_scores_perfectly() {
        let spec = DataSpec {
            base_events: Some(5.0),
            min_region_events: Some(10),
            ..DataSpec::preset("afghanistan")
        };
        let ds = spec
            .load("data", &mut setup_rng(1, Purpose::RecoveryPanel(0)))
            .unwrap_or_else(|e| panic!("{e:?}"));
        let truth = ds.truth.unwrap();
        let labels: Vec<usize> = ds
            .data
            .regions
            .iter()
            .flat_map(|(r, cells)| cells.iter().map(|c| truth.states[*r][c.month]))
            .collect();
        let d = Data {
            name: "afghanistan".into(),
            states: 3,
            data: ds.data,
            truth: truth.clone(),
            labels: labels.clone(),
            provenance: ds.provenance.clone(),
        };
        let perm = [2usize, 0, 1];
        let z: Vec<usize> = labels.iter().map(|&t| perm[t]).collect();
        let mut phi_hat = vec![Vec::new(); 3];
        for t in 0..3 {
            phi_hat[perm[t]] = truth.phi[t].clone();
        }
        let s = score(&d, &z, &z, &phi_hat, 3);
        assert_eq!((s.ari_modal, s.ari_last, s.states_used), (1.0, 1.0, 3));
        assert!(s.tv.iter().all(|&x| x.abs() < 1e-15), "{:?}", s.tv);
        // swapping two estimated emission rows costs exactly their TV distance
        phi_hat.swap(0, 1);
        let s2 = score(&d, &z, &z, &phi_hat, 3);
        let expected: f64 = (0..3)
            .map(|t| total_variation(&phi_hat[perm[t]][0], &truth.phi[t][0]) / 3.0)
            .sum();
        assert!((s2.tv[0] - expected).abs() < 1e-12 && expected > 0.0);
    }
}
