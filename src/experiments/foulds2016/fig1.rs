//! foulds2016 Figure 1: the true posterior, the OPS posterior and Laplace-mechanism
//! posteriors for one dataset.

use super::{laplace_noise, ledger, ops, prior, prior_and_ops, CountNoise, NoiseMode};
use crate::config::{check, deserialize, ParamError};
use crate::experiments::{parameter, Figure};
use crate::expfam::beta::BetaDist;
use crate::expfam::mechanisms::{laplace_posterior, Ops};
use crate::privacy::ledger::Ledger;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use crate::rng::{setup_rng, Purpose};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Binomial, Distribution};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig1Config {
    #[serde(default)]
    noise: NoiseMode,
    epsilon: f64,
    p: f64,
    n: u64,
    prior: Vec<f64>,
    a0: f64,
    laplace_draws: u64,
    grid_points: u64,
    /// Fixed success count; drawn from Binomial(n, p) with the seed when absent.
    successes: Option<u64>,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const FIG1_SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Fig1Config>;

/// Posterior, OPS and Laplace-privatised posteriors for one dataset (Figure 1).
pub struct Fig1 {
    laplace: CountNoise,
    prior: BetaDist,
    ops: Ops,
    epsilon: f64,
    p: f64,
    n: u64,
    successes: u64,
    drawn: bool,
    laplace_draws: usize,
    grid: Vec<f64>,
}

pub fn build_fig1(params: &toml::Table, seed: u64) -> Result<Box<dyn Figure>, ParamError> {
    let c: Fig1Config = deserialize(params)?;
    let prior = prior(&c.prior)?;
    let ops = ops(c.a0, c.epsilon)?;
    let laplace = laplace_noise(c.noise, c.epsilon)?;
    check::probability("p", c.p)?;
    check::points("grid_points", c.grid_points, 3)?;
    let (successes, drawn) = match c.successes {
        Some(s) if s > c.n => {
            return Err(ParamError::new(
                "successes",
                format!("{s} > n = {}", c.n),
                "0 ≤ successes ≤ n",
            ))
        }
        Some(s) => (s, false),
        None => {
            let d = Binomial::new(c.n, c.p)
                .map_err(|e| ParamError::new("p", e.to_string(), "0 ≤ p ≤ 1"))?;
            (d.sample(&mut setup_rng(seed, Purpose::SharedData)), true)
        }
    };
    // Open grid on (0, 1): densities can be infinite at the ends.
    let m = c.grid_points as usize;
    let grid = (0..m).map(|i| (i as f64 + 0.5) / m as f64).collect();
    Ok(Box::new(Fig1 {
        laplace,
        prior,
        ops,
        epsilon: c.epsilon,
        p: c.p,
        n: c.n,
        successes,
        drawn,
        laplace_draws: c.laplace_draws as usize,
        grid,
    }))
}

/// A row of Fig. 1's `data.csv`: one curve's Beta (or truncated, tempered
/// Beta for OPS) parameters, and for a Laplace draw its noisy counts.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fig1Row {
    /// `posterior`, `ops` or `laplace`
    pub curve: String,
    pub draw: u64,
    pub alpha: f64,
    pub beta: f64,
    pub lower: f64,
    pub upper: f64,
    pub temperature: f64,
    pub noisy_successes: Option<f64>,
    pub noisy_failures: Option<f64>,
}

/// A row of `summary.csv`: a curve's density at one θ of the grid.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fig1Summary {
    pub curve: String,
    pub draw: u64,
    pub theta: f64,
    pub density: f64,
}

impl Figure for Fig1 {
    fn parameters(&self) -> Vec<(String, String)> {
        [
            parameter("ε", self.epsilon),
            parameter("N", self.n),
            parameter(
                "successes",
                if self.drawn {
                    format!("{} (drawn with true p = {})", self.successes, self.p)
                } else {
                    self.successes.to_string()
                },
            ),
        ]
        .into_iter()
        .chain(prior_and_ops(&self.prior, &self.ops))
        .chain(crate::experiments::noise_parameter(self.laplace.mode()))
        .collect()
    }

    fn task_count(&self) -> usize {
        2 + self.laplace_draws
    }

    fn grid_description(&self) -> String {
        format!(
            "posterior + OPS + {} Laplace draws, densities on {} points",
            self.laplace_draws,
            self.grid.len()
        )
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let pos = self.successes as f64;
        let neg = (self.n - self.successes) as f64;
        Ok(vec![to_row(&match index {
            0 => Fig1Row {
                curve: "posterior".into(),
                draw: 0,
                alpha: self.prior.alpha() + pos,
                beta: self.prior.beta() + neg,
                lower: 0.0,
                upper: 1.0,
                temperature: 1.0,
                noisy_successes: None,
                noisy_failures: None,
            },
            1 => {
                let d = self.ops.distribution(&self.prior, pos, neg)?;
                let (a, b) = d.shape();
                let (lo, hi) = d.bounds();
                Fig1Row {
                    curve: "ops".into(),
                    draw: 0,
                    alpha: a,
                    beta: b,
                    lower: lo,
                    upper: hi,
                    temperature: self.ops.temperature(),
                    noisy_successes: None,
                    noisy_failures: None,
                }
            }
            k => {
                let post = laplace_posterior(&self.prior, pos, neg, &self.laplace, rng)?;
                Fig1Row {
                    curve: "laplace".into(),
                    draw: (k - 1) as u64,
                    alpha: post.alpha(),
                    beta: post.beta(),
                    lower: 0.0,
                    upper: 1.0,
                    temperature: 1.0,
                    noisy_successes: Some(post.alpha() - self.prior.alpha()),
                    noisy_failures: Some(post.beta() - self.prior.beta()),
                }
            }
        })])
    }

    /// Densities of every curve on the θ grid, from the parameters in data.csv.
    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let mut rows = Vec::new();
        for r in data.records::<Fig1Row>()? {
            let ln_pdf: Box<dyn Fn(f64) -> f64> = if r.curve == "ops" {
                let d = crate::expfam::truncated::TruncatedBeta::new(
                    r.alpha, r.beta, r.lower, r.upper,
                )?;
                Box::new(move |x| d.ln_pdf(x))
            } else {
                let d = BetaDist::new(r.alpha, r.beta)?;
                Box::new(move |x| d.ln_pdf(x))
            };
            for &theta in &self.grid {
                rows.push(Fig1Summary {
                    curve: r.curve.clone(),
                    draw: r.draw,
                    theta,
                    density: ln_pdf(theta).exp(),
                });
            }
        }
        Ok(Table::of_records(&rows))
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "epsilon": self.epsilon,
            "n": self.n,
            "successes": self.successes,
            "successes_source": if self.drawn { "Binomial(n, p) from setup stream 0 of the seed" } else { "config" },
            "laplace_projection": "max(0, count)",
        })
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        ledger(
            &self.ops,
            &self.laplace,
            self.epsilon,
            "each Laplace curve is one ε-DP release; the figure overlays independent releases to show their spread (together they would cost ε per curve)",
        )
    }
}
