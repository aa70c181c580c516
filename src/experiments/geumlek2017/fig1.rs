//! geumlek2017 Figure 1: achievable (λ, ε)-RDP curves of the diffused and
//! concentrated Beta-Bernoulli posteriors (Algorithms 2 and 3).

use super::{problem, problem_parameters};
use crate::config::{check, deserialize, ParamError};
use crate::experiments::Figure;
use crate::expfam::mechanisms::{Algorithm, BetaBernoulli};
use crate::privacy::event::{Event, Guarantee};
use crate::privacy::ledger::{Entry, Ledger};
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig1Config {
    prior: toml::Value,
    n: u64,
    coefficients: Vec<f64>,
    algorithms: Vec<Algorithm>,
    lambda_max: f64,
    lambda_step: f64,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const FIG1_SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Fig1Config>;

/// (λ, ε)-RDP curves of Algorithms 2 and 3 for fixed coefficients (Figure 1).
pub struct Fig1 {
    problem: BetaBernoulli,
    curves: Vec<(Algorithm, f64)>,
    lambdas: Vec<f64>,
}

pub fn build_fig1(params: &toml::Table, _seed: u64) -> Result<Box<dyn Figure>, ParamError> {
    let c: Fig1Config = deserialize(params)?;
    let problem = problem(&c.prior, c.n)?;
    check::at_least("n", c.n, 1)?;
    check::non_empty("coefficients", &c.coefficients)?;
    for &r in &c.coefficients {
        check::coefficient("coefficients", r)?;
    }
    check::non_empty("algorithms", &c.algorithms)?;
    let algorithms = c.algorithms.clone();
    check::order("lambda_max", c.lambda_max)?;
    // orders 1 + k·step, k = 1 … : the range from 1 counts k = 0 too
    let steps = check::range_points(
        ["λ_min", "lambda_max", "lambda_step"],
        1.0,
        c.lambda_max,
        c.lambda_step,
    )? - 1;
    if steps == 0 {
        return Err(ParamError::new(
            "lambda_step",
            format!("gives no order in (1, {}]", c.lambda_max),
            "a step ≤ lambda_max − 1",
        ));
    }
    let lambdas = (1..=steps)
        .map(|k| 1.0 + k as f64 * c.lambda_step)
        .collect();
    let curves = algorithms
        .iter()
        .flat_map(|&a| c.coefficients.iter().map(move |&r| (a, r)))
        .collect();
    Ok(Box::new(Fig1 {
        problem,
        curves,
        lambdas,
    }))
}

/// A row of Fig. 1's `data.csv` (= `summary.csv`): the RDP ε of one
/// algorithm and coefficient at order λ, and the order beyond which it is ∞.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fig1Row {
    pub algorithm: String,
    pub coefficient: f64,
    pub lambda: f64,
    pub epsilon: f64,
    pub critical_order: f64,
}

impl Figure for Fig1 {
    fn parameters(&self) -> Vec<(String, String)> {
        problem_parameters(&self.problem)
    }

    fn task_count(&self) -> usize {
        self.curves.len() * self.lambdas.len()
    }

    fn grid_description(&self) -> String {
        format!(
            "{} curves (algorithm × coefficient) × {} orders λ",
            self.curves.len(),
            self.lambdas.len()
        )
    }

    fn run_task(&self, index: usize, _rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let (algorithm, c) = self.curves[index / self.lambdas.len()];
        let lambda = self.lambdas[index % self.lambdas.len()];
        let eps = self.problem.rdp_epsilon(algorithm, c, lambda);
        Ok(vec![to_row(&Fig1Row {
            algorithm: algorithm.as_str().into(),
            coefficient: c,
            lambda,
            epsilon: eps,
            critical_order: self.problem.critical_order(algorithm, c),
        })])
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        Ok(data.clone())
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "prior": [self.problem.prior.alpha(), self.problem.prior.beta()],
            "n": self.problem.n,
            "method": "sup of eq. (5) over the pset corner pairs of Corollary 2 (both members in pset, both directions); checked against a brute-force supremum in the tests",
        })
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        Ok(self
            .curves
            .iter()
            .map(|&(algorithm, c)| {
                let event = self.problem.rdp_event(algorithm, c, &self.lambdas);
                let points = match &event {
                    Event::RdpCurve { points, .. } => points.clone(),
                    _ => Vec::new(),
                };
                Entry::new(
                    format!("algorithm={}, coefficient={c}", algorithm.as_str()),
                    event,
                    Guarantee::RdpCurve { points },
                )
            })
            .collect())
    }
}
