//! foulds2016 §5, the war-logs case study on synthetic data: Figure 3 (state
//! assignments per region and month) and Figures 4–5 (per-state emission distributions),
//! from one private Gibbs run. Both figures run the same seeded chain, so the two
//! configs with the same settings describe the same run.
//!
//! Figures 3–7 (one file each; Figure 7 is Figure 3's table drawn as strips), the
//! recovery figure, the ε sweeps they share (`sweep.rs`) and their plots (`plot.rs`).
//! This module: one case-study Gibbs run (Figures 3, 4–5, 7).

mod fig3;
mod fig4_5;
mod fig6;
pub mod plot;
pub mod recovery;
pub mod sweep;

pub use fig3::{validate_fig3, Fig3, StateRow};
pub use fig4_5::{validate_fig4_5, Fig45, Fig45Row};
pub use fig6::{validate_fig6, Fig6, Fig6Row, Fig6Summary, FIG6_SCHEMA};

use crate::config::{check, deserialize, ParamError};
use crate::data::warlog::{parse_spec, DataSpec, Dataset};
use crate::hmm::gibbs::{posterior_mean_phi, Gibbs, Model, Ops, State};
use crate::hmm::laplace::LaplaceRelease;
use crate::hmm::FEATURES;
use crate::privacy::ledger::Ledger;
use crate::rng::{setup_rng, Purpose};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use sweep::{ledger_entries, Mech, DIRICHLET_RANGE};

#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct RunConfig {
    /// the `[data]` table (see `data::warlog::DataSpec`)
    data: Option<toml::Value>,
    states: usize,
    alpha: f64,
    beta: f64,
    mechanism: Mechanism,
    epsilon: f64,
    ops_m: f64,
    sweeps: usize,
    burn_in: usize,
    /// how the Laplace mechanism draws its noise (OPS is float-only)
    #[serde(default)]
    noise: crate::privacy::event::NoiseMode,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const RUN_SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<RunConfig>;

/// The mechanism of a case-study run (`non_private`, `laplace` or `ops` in a config).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Mechanism {
    NonPrivate,
    Laplace,
    Ops,
}

privpost_core::names::name_table!(Mechanism {
    NonPrivate => "non_private",
    Laplace => "laplace",
    Ops => "ops",
});

impl Mechanism {
    /// The sweep's name for it (OPS with its M).
    fn as_mech(self, ops_m: f64) -> Mech {
        match self {
            Mechanism::NonPrivate => Mech::NonPrivate,
            Mechanism::Laplace => Mech::Laplace,
            Mechanism::Ops => Mech::Ops(ops_m),
        }
    }
}

/// A validated case-study run, its data loaded.
struct Run {
    dataset: Dataset,
    min_region_events: usize,
    c: RunConfig,
    mechanism: Mechanism,
    seed: u64,
}

impl Run {
    /// The data, model and mechanism of the run, for [`Figure::parameters`].
    fn parameters(&self) -> Vec<(String, String)> {
        use crate::experiments::parameter;
        let data = if self.dataset.truth.is_some() {
            format!(
                "synthetic war logs (preset {}, planted states)",
                self.dataset.name
            )
        } else {
            format!("war logs from {}", self.dataset.name)
        };
        let mechanism = match self.c.mechanism {
            Mechanism::NonPrivate => "non-private".to_string(),
            Mechanism::Laplace => format!(
                "Laplace on the histograms, ε = {} split over the features",
                self.c.epsilon
            ),
            Mechanism::Ops => format!(
                "OPS, ε = {} per update, M = {}",
                self.c.epsilon, self.c.ops_m
            ),
        };
        vec![
            parameter(&data, ""),
            parameter(&mechanism, ""),
            parameter("states K", self.c.states),
            parameter(
                "sweeps",
                format!("{} ({} burn-in)", self.c.sweeps, self.c.burn_in),
            ),
        ]
        .into_iter()
        .chain(crate::experiments::noise_parameter(self.c.noise))
        .collect()
    }
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
            self.mechanism.as_str()
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
    let mechanism = c.mechanism;
    check::epsilon("epsilon", c.epsilon)?;
    sweep::check_noise(c.noise, &[mechanism.as_mech(c.ops_m)], &[c.epsilon]).map_err(|e| {
        if e.key == "epsilons" {
            ParamError::new("epsilon", e.message, e.allowed.unwrap_or_default())
        } else {
            e
        }
    })?;
    if !(2..=50).contains(&c.states) {
        return Err(ParamError::new(
            "states",
            format!("{}", c.states),
            "2 ≤ states ≤ 50",
        ));
    }
    check::within("alpha", c.alpha, 1e-6, 1e6, DIRICHLET_RANGE)?;
    check::within("beta", c.beta, 1e-6, 1e6, DIRICHLET_RANGE)?;
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
            LaplaceRelease::even_split(self.c.epsilon, FEATURES.len(), self.c.noise)?
                .apply(data, &mut setup_rng(self.seed, Purpose::HmmPrivatize))?
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
        let mech = self.mechanism.as_mech(self.c.ops_m);
        let eps = (mech != Mech::NonPrivate).then_some(self.c.epsilon);
        ledger_entries(
            &format!(
                "dataset={}, mechanism={}",
                self.dataset.name,
                self.mechanism.as_str()
            ),
            mech,
            eps,
            &self.dataset.data.cards,
            self.c.sweeps,
            self.c.noise,
        )
    }
}

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

#[cfg(test)]
mod tests {
    use super::Mechanism;

    /// The config's names of the case study's mechanisms are the name table's.
    #[test]
    fn config_names_are_the_name_table() {
        for &m in Mechanism::ALL {
            let read: Mechanism = serde_json::from_value(serde_json::json!(m.as_str())).unwrap();
            assert_eq!(read, m);
        }
    }
}
