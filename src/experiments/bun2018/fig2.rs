//! Bun et al. Figure 2: mean Hellinger distance of the released posterior to the
//! true posterior vs n, for k = 2, 3, 4.

use super::{
    check_common, check_dimensions, check_size, describe, draw_distances, ledger_of,
    standard_error, Common, MECHANISMS,
};
use crate::config::{check, deserialize, ParamError};
use crate::experiments::bun2018::PRIOR_RANGE;
use crate::experiments::Figure;
use crate::expfam::dirichlet::HellingerVariant;
use crate::hellinger::laplace::Rounding;
use crate::hellinger::{balanced_counts, candidate_count, Space};
use crate::privacy::ledger::Ledger;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig2Config {
    epsilon: f64,
    delta: f64,
    hellinger: HellingerVariant,
    laplace_rounding: Rounding,
    /// how the Laplace baselines draw their noise (the exponential mechanism is float-only)
    #[serde(default)]
    noise: crate::privacy::event::NoiseMode,
    dimensions: Vec<u64>,
    n_min: u64,
    n_max: Vec<u64>,
    n_step: u64,
    draws: u64,
    prior: f64,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const FIG2_SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Fig2Config>;

/// Mean and quartiles of H(released, true posterior) vs n, per k (Figure 2).
pub struct Fig2 {
    common: Common,
    prior: f64,
    draws: usize,
    /// (k, n, mechanism index)
    tasks: Vec<(usize, u32, usize)>,
}

pub fn build_fig2(params: &toml::Table, _seed: u64) -> Result<Box<dyn Figure>, ParamError> {
    let c: Fig2Config = deserialize(params)?;
    let common = Common {
        epsilon: c.epsilon,
        delta: c.delta,
        hellinger: c.hellinger,
        laplace_rounding: c.laplace_rounding,
        noise: c.noise,
    };
    check_common(&common)?;
    check_dimensions("dimensions", &c.dimensions)?;
    if c.n_max.len() != c.dimensions.len() {
        return Err(ParamError::new(
            "n_max",
            format!(
                "{} values for {} dimensions",
                c.n_max.len(),
                c.dimensions.len()
            ),
            "one n_max per entry of `dimensions`",
        ));
    }
    check::at_least("n_step", c.n_step, 1)?;
    check::at_least("draws", c.draws, 1)?;
    check::within("prior", c.prior, 1e-6, 1e6, PRIOR_RANGE)?;
    let mut tasks = Vec::new();
    for (&k, &n_max) in c.dimensions.iter().zip(&c.n_max) {
        let count = check::range_points(
            ["n_min", "n_max", "n_step"],
            c.n_min as f64,
            n_max as f64,
            c.n_step as f64,
        )?;
        check_size("n_max", n_max, k)?;
        for i in 0..count as u64 {
            let n32 = check_size("n_min", c.n_min + i * c.n_step, k)?;
            for m in 0..MECHANISMS.len() {
                tasks.push((k as usize, n32, m));
            }
        }
    }
    Ok(Box::new(Fig2 {
        common,
        prior: c.prior,
        draws: c.draws as usize,
        tasks,
    }))
}

/// A row of Fig. 2's `data.csv`: the distances of one mechanism's draws at
/// (k, n) — mean, standard error and quartiles.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fig2Row {
    pub k: u64,
    pub n: u64,
    pub mechanism: String,
    pub mean: f64,
    /// empty for a single draw (nothing to estimate it from)
    pub se: Option<f64>,
    pub q25: f64,
    pub q50: f64,
    pub q75: f64,
    pub draws: u64,
    pub scale: f64,
    pub candidates: u64,
    pub hellinger: String,
}

/// A row of `summary.csv`: a data row and, for a Laplace baseline, the smallest
/// n of the grid from which the exponential mechanism's mean distance stays
/// below the baseline's.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fig2Summary {
    pub k: u64,
    pub n: u64,
    pub mechanism: String,
    pub mean: f64,
    /// empty for a single draw (nothing to estimate it from)
    pub se: Option<f64>,
    pub q25: f64,
    pub q50: f64,
    pub q75: f64,
    pub draws: u64,
    pub scale: f64,
    pub candidates: u64,
    pub hellinger: String,
    pub crossover_n: Option<u64>,
}

impl Fig2Summary {
    fn of(r: &Fig2Row, crossover_n: Option<u64>) -> Self {
        let r = r.clone();
        Self {
            k: r.k,
            n: r.n,
            mechanism: r.mechanism,
            mean: r.mean,
            se: r.se,
            q25: r.q25,
            q50: r.q50,
            q75: r.q75,
            draws: r.draws,
            scale: r.scale,
            candidates: r.candidates,
            hellinger: r.hellinger,
            crossover_n,
        }
    }
}

impl Figure for Fig2 {
    fn parameters(&self) -> Vec<(String, String)> {
        let mut p = self.common.parameters();
        p.push(crate::experiments::parameter(
            "prior",
            format!("Dirichlet({}, …, {})", self.prior, self.prior),
        ));
        p.push(crate::experiments::parameter("draws", self.draws));
        p
    }

    fn task_count(&self) -> usize {
        self.tasks.len()
    }

    fn grid_description(&self) -> String {
        let largest = self
            .tasks
            .iter()
            .map(|&(k, n, _)| candidate_count(n, k))
            .max()
            .unwrap_or(0);
        format!(
            "{} (k, n) points × 3 mechanisms, {} draws each; up to {largest} candidate posteriors",
            self.tasks.len() / 3,
            self.draws
        )
    }

    fn task_cost(&self, index: usize) -> f64 {
        let (k, n, m) = self.tasks[index];
        super::task_cost(MECHANISMS[m], n, k, self.draws)
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let (k, n, m) = self.tasks[index];
        let space = Space::new(vec![self.prior; k], n, self.common.hellinger)?;
        let data = balanced_counts(n, k);
        let c = &self.common;
        let (d, scale) = draw_distances(&space, &data, MECHANISMS[m], c, self.draws, rng)?;
        let se = standard_error(&d);
        let (mean, q25, q50, q75) = describe(d);
        Ok(vec![to_row(&Fig2Row {
            k: k as u64,
            n: n as u64,
            mechanism: MECHANISMS[m].into(),
            mean,
            se: (!se.is_nan()).then_some(se),
            q25,
            q50,
            q75,
            draws: self.draws as u64,
            scale,
            candidates: space.count(),
            hellinger: c.hellinger.as_str().into(),
        })])
    }

    /// The data rows plus `crossover_n`: for each Laplace baseline and k, the
    /// smallest n of the grid from which the exponential mechanism's mean distance
    /// stays below the baseline's (empty if it never does).
    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let rows: Vec<Fig2Row> = data.records()?;
        let mean_of = |k: u64, n: u64, m: &str| {
            rows.iter()
                .find(|r| r.k == k && r.n == n && r.mechanism == m)
                .map(|r| r.mean)
        };
        let mut out = Vec::new();
        for r in &rows {
            let crossover = if r.mechanism == "hellinger_em" {
                None
            } else {
                let mut ns: Vec<u64> = rows
                    .iter()
                    .filter(|s| s.k == r.k && s.mechanism == r.mechanism)
                    .map(|s| s.n)
                    .collect();
                ns.dedup();
                let mut first: Option<u64> = None;
                for &n in ns.iter().rev() {
                    match (
                        mean_of(r.k, n, "hellinger_em"),
                        mean_of(r.k, n, &r.mechanism),
                    ) {
                        (Some(em), Some(lap)) if em < lap => first = Some(n),
                        _ => break,
                    }
                }
                first
            };
            out.push(Fig2Summary::of(r, crossover));
        }
        Ok(Table::of_records(&out))
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        ledger_of(&self.common, self.tasks.iter().map(|&(k, _, m)| (k, m)))
    }

    fn manifest_details(&self) -> serde_json::Value {
        let c = &self.common;
        serde_json::json!({
            "epsilon": c.epsilon, "delta": c.delta, "prior_concentration": self.prior,
            "hellinger": c.hellinger.as_str(),
            "hellinger_meaning": match c.hellinger {
                HellingerVariant::Correct => "ln B(a) = Σ ln Γ(aᵢ) − ln Γ(Σ aᵢ)",
                HellingerVariant::AsPublished => "AS PUBLISHED (authors' code): ln B(a) = Σ ln Γ(aᵢ) / ln Σ aᵢ — distances are not Hellinger distances",
            },
            "laplace_rounding": c.laplace_rounding.as_str(),
            "data": "balanced: each bin ⌊n/k⌋, remainder to the last",
            "laplace": "noise Lap(s/ε) on the first k−1 counts; sequential clamping to [0, remaining]; last count = remainder",
            "quantiles": "type 7 (linear interpolation)",
        })
    }
}
