//! foulds2016 Figure 2: L1 error of one private posterior sample vs N.

use super::{laplace_noise, ledger, ops, prior, prior_and_ops, CountNoise, NoiseMode};
use crate::config::{check, deserialize, ParamError};
use crate::experiments::{parameter, Figure};
use crate::expfam::beta::BetaDist;
use crate::expfam::mechanisms::{laplace_posterior, Ops};
use crate::privacy::ledger::Ledger;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use crate::stats::Moments;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Binomial, Distribution};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig2Config {
    #[serde(default)]
    noise: NoiseMode,
    p: f64,
    epsilon: f64,
    a0: f64,
    prior: Vec<f64>,
    n_values: Vec<u64>,
    repeats: u64,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const FIG2_SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Fig2Config>;

/// Expected |θ̂ − p| of one sample from each mechanism vs N (Figure 2).
pub struct Fig2 {
    laplace: CountNoise,
    p: f64,
    epsilon: f64,
    prior: BetaDist,
    ops: Ops,
    n_values: Vec<u64>,
    repeats: usize,
}

pub fn build_fig2(params: &toml::Table, _seed: u64) -> Result<Box<dyn Figure>, ParamError> {
    let c: Fig2Config = deserialize(params)?;
    check::probability("p", c.p)?;
    let prior = prior(&c.prior)?;
    let ops = ops(c.a0, c.epsilon)?;
    let laplace = laplace_noise(c.noise, c.epsilon)?;
    check::non_empty("n_values", &c.n_values)?;
    for (i, &n) in c.n_values.iter().enumerate() {
        check::at_least("n_values", n, 1)?;
        if c.n_values[..i].contains(&n) {
            return Err(ParamError::new(
                "n_values",
                format!("{n} appears twice"),
                "distinct data sizes",
            ));
        }
    }
    check::at_least("repeats", c.repeats, 1)?;
    Ok(Box::new(Fig2 {
        laplace,
        p: c.p,
        epsilon: c.epsilon,
        prior,
        ops,
        n_values: c.n_values,
        repeats: c.repeats as usize,
    }))
}

/// A row of Fig. 2's `data.csv`: one repeat's estimate by one mechanism.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fig2Row {
    pub n: u64,
    pub repeat: u64,
    pub successes: u64,
    pub mechanism: String,
    pub theta_hat: f64,
    pub abs_error: f64,
}

/// A row of `summary.csv`: a mechanism's mean absolute error at n.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fig2Summary {
    pub mechanism: String,
    pub n: u64,
    pub mean: f64,
    /// empty for a single run
    pub se: Option<f64>,
    pub runs: u64,
}

const MECHANISMS: [&str; 3] = ["posterior", "laplace", "ops"];

impl Figure for Fig2 {
    fn parameters(&self) -> Vec<(String, String)> {
        [
            parameter("ε", self.epsilon),
            parameter("true p", self.p),
            parameter("repeats", self.repeats),
        ]
        .into_iter()
        .chain(prior_and_ops(&self.prior, &self.ops))
        .chain(crate::experiments::noise_parameter(self.laplace.mode()))
        .collect()
    }

    fn task_count(&self) -> usize {
        self.n_values.len() * self.repeats
    }

    fn grid_description(&self) -> String {
        format!(
            "{} data sizes × {} repeats, 3 mechanisms each",
            self.n_values.len(),
            self.repeats
        )
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let n = self.n_values[index / self.repeats];
        let repeat = index % self.repeats;
        let s = Binomial::new(n, self.p)?.sample(rng);
        let (pos, neg) = (s as f64, (n - s) as f64);
        let posterior = BetaDist::new(self.prior.alpha() + pos, self.prior.beta() + neg)?;
        let thetas = [
            posterior.sample(rng),
            laplace_posterior(&self.prior, pos, neg, &self.laplace, rng)?.sample(rng),
            self.ops.distribution(&self.prior, pos, neg)?.sample(rng),
        ];
        Ok(MECHANISMS
            .iter()
            .zip(thetas)
            .map(|(m, t)| {
                to_row(&Fig2Row {
                    n,
                    repeat: repeat as u64,
                    successes: s,
                    mechanism: (*m).into(),
                    theta_hat: t,
                    abs_error: (t - self.p).abs(),
                })
            })
            .collect())
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let mut acc = vec![Moments::default(); MECHANISMS.len() * self.n_values.len()];
        for (i, r) in data.records::<Fig2Row>()?.iter().enumerate() {
            let (Some(mi), Some(ni)) = (
                MECHANISMS.iter().position(|x| *x == r.mechanism),
                self.n_values.iter().position(|&x| x == r.n),
            ) else {
                return Err(anyhow::anyhow!(
                    "data row {i}: unexpected mechanism {} or n {}",
                    r.mechanism,
                    r.n
                ));
            };
            acc[mi * self.n_values.len() + ni].push(r.abs_error);
        }
        let mut rows = Vec::new();
        for (mi, m) in MECHANISMS.iter().enumerate() {
            for (ni, &n) in self.n_values.iter().enumerate() {
                let a = acc[mi * self.n_values.len() + ni];
                let se = a.se();
                rows.push(Fig2Summary {
                    mechanism: (*m).into(),
                    n,
                    mean: a.mean,
                    se: (!se.is_nan()).then_some(se),
                    runs: a.count,
                });
            }
        }
        Ok(Table::of_records(&rows))
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "p": self.p,
            "epsilon": self.epsilon,
            "ops_sampler": "exact inverse CDF of the truncated tempered Beta",
            "laplace_projection": "max(0, count)",
            "posterior": "non-private, one sample",
        })
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        ledger(
            &self.ops,
            &self.laplace,
            self.epsilon,
            "one release per simulated dataset (each repeat draws fresh data)",
        )
    }
}
