//! foulds2016 §3: Laplace mechanism vs one-posterior-sample (Figures 1 and 2).

use rand_chacha::ChaCha8Rng;
use rand_distr::{Binomial, Distribution};
use serde::Deserialize;

use super::Figure;
use crate::config::{check, deserialize, ParamError};
use crate::expfam::beta::BetaDist;
use crate::expfam::mechanisms::{counts_laplace, laplace_posterior, Ops};
use crate::privacy::ledger::{Entry, Event, Guarantee, Ledger};
use crate::results::table::{Cell, Row, Table};
use crate::rng::{setup_rng, Purpose};
use crate::stats::Moments;

fn prior(v: &[f64]) -> Result<BetaDist, ParamError> {
    let (a, b) = check::prior("prior", v)?;
    BetaDist::new(a, b).map_err(|e| ParamError::new("prior", e.to_string(), "[alpha, beta] > 0"))
}

fn ops(a0: f64, epsilon: f64) -> Result<Ops, ParamError> {
    check::epsilon("epsilon", epsilon)?;
    Ops::new(a0, epsilon).map_err(|_| {
        ParamError::new(
            "a0",
            format!("invalid truncation a0 = {a0}"),
            "0 < a0 < 0.5",
        )
    })
}

// ---------------------------------------------------------------- Figure 1

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig1Config {
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

/// Posterior, OPS and Laplace-privatised posteriors for one dataset (Figure 1).
pub struct Fig1 {
    prior: BetaDist,
    ops: Ops,
    epsilon: f64,
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
    check::probability("p", c.p)?;
    check::at_least("grid_points", c.grid_points, 3)?;
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
        prior,
        ops,
        epsilon: c.epsilon,
        n: c.n,
        successes,
        drawn,
        laplace_draws: c.laplace_draws as usize,
        grid,
    }))
}

/// The ledger of the Beta-Bernoulli comparison: the non-private posterior, the
/// Laplace mechanism on (n₊, n₋) and OPS, each as one release of one dataset.
fn ledger(ops: &Ops, epsilon: f64, laplace_note: &str) -> anyhow::Result<Ledger> {
    Ok(vec![
        Entry::new("mechanism=posterior", Event::NonPrivate, Guarantee::None)
            .when("the non-private baseline"),
        Entry::new(
            "mechanism=laplace",
            counts_laplace(epsilon)?.event(),
            Guarantee::PureDp { epsilon },
        )
        .when(laplace_note),
        Entry::new(
            "mechanism=ops",
            ops.event(),
            Guarantee::PureDp {
                epsilon: ops.epsilon_spent(),
            },
        )
        .when("the sample is drawn exactly (inverse CDF of the truncated, tempered Beta)"),
    ])
}

pub const FIG1_DATA: [&str; 9] = [
    "curve",
    "draw",
    "alpha",
    "beta",
    "lower",
    "upper",
    "temperature",
    "noisy_successes",
    "noisy_failures",
];
pub const FIG1_SUMMARY: [&str; 4] = ["curve", "draw", "theta", "density"];

impl Figure for Fig1 {
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
        let e = || Cell::Empty;
        Ok(vec![match index {
            0 => vec![
                "posterior".into(),
                0usize.into(),
                (self.prior.alpha() + pos).into(),
                (self.prior.beta() + neg).into(),
                0.0.into(),
                1.0.into(),
                1.0.into(),
                e(),
                e(),
            ],
            1 => {
                let d = self.ops.distribution(&self.prior, pos, neg)?;
                let (a, b) = d.shape();
                let (lo, hi) = d.bounds();
                vec![
                    "ops".into(),
                    0usize.into(),
                    a.into(),
                    b.into(),
                    lo.into(),
                    hi.into(),
                    self.ops.temperature().into(),
                    e(),
                    e(),
                ]
            }
            k => {
                let post = laplace_posterior(&self.prior, pos, neg, self.epsilon, rng)?;
                vec![
                    "laplace".into(),
                    (k - 1).into(),
                    post.alpha().into(),
                    post.beta().into(),
                    0.0.into(),
                    1.0.into(),
                    1.0.into(),
                    (post.alpha() - self.prior.alpha()).into(),
                    (post.beta() - self.prior.beta()).into(),
                ]
            }
        }])
    }

    /// Densities of every curve on the θ grid, from the parameters in data.csv.
    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let col = |n: &str| data.col(n);
        let (curve, draw, a, b, lo, hi) = (
            col("curve")?,
            col("draw")?,
            col("alpha")?,
            col("beta")?,
            col("lower")?,
            col("upper")?,
        );
        let mut rows = Vec::new();
        for i in 0..data.rows.len() {
            let name = data.s(i, curve);
            let (lo, hi) = (data.f(i, lo), data.f(i, hi));
            let ln_pdf: Box<dyn Fn(f64) -> f64> = if name == "ops" {
                let d = crate::expfam::truncated::TruncatedBeta::new(
                    data.f(i, a),
                    data.f(i, b),
                    lo,
                    hi,
                )?;
                Box::new(move |x| d.ln_pdf(x))
            } else {
                let d = BetaDist::new(data.f(i, a), data.f(i, b))?;
                Box::new(move |x| d.ln_pdf(x))
            };
            for &theta in &self.grid {
                rows.push(vec![
                    name.clone().into(),
                    data.rows[i][draw].clone(),
                    theta.into(),
                    ln_pdf(theta).exp().into(),
                ]);
            }
        }
        Ok(Table::new(&FIG1_SUMMARY, rows))
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
            self.epsilon,
            "each Laplace curve is one ε-DP release; the figure overlays independent releases to show their spread (together they would cost ε per curve)",
        )
    }
}

// ---------------------------------------------------------------- Figure 2

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig2Config {
    p: f64,
    epsilon: f64,
    a0: f64,
    prior: Vec<f64>,
    n_values: Vec<u64>,
    repeats: u64,
}

/// Expected |θ̂ − p| of one sample from each mechanism vs N (Figure 2).
pub struct Fig2 {
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
        p: c.p,
        epsilon: c.epsilon,
        prior,
        ops,
        n_values: c.n_values,
        repeats: c.repeats as usize,
    }))
}

pub const FIG2_DATA: [&str; 6] = [
    "n",
    "repeat",
    "successes",
    "mechanism",
    "theta_hat",
    "abs_error",
];
pub const FIG2_SUMMARY: [&str; 5] = ["mechanism", "n", "mean", "se", "runs"];
const MECHANISMS: [&str; 3] = ["posterior", "laplace", "ops"];

impl Figure for Fig2 {
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
            laplace_posterior(&self.prior, pos, neg, self.epsilon, rng)?.sample(rng),
            self.ops.distribution(&self.prior, pos, neg)?.sample(rng),
        ];
        Ok(MECHANISMS
            .iter()
            .zip(thetas)
            .map(|(m, t)| {
                vec![
                    n.into(),
                    repeat.into(),
                    s.into(),
                    (*m).into(),
                    t.into(),
                    (t - self.p).abs().into(),
                ]
            })
            .collect())
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let col = |n: &str| data.col(n);
        let (n_col, mech, err) = (col("n")?, col("mechanism")?, col("abs_error")?);
        let mut acc = vec![Moments::default(); MECHANISMS.len() * self.n_values.len()];
        for i in 0..data.rows.len() {
            let m = data.s(i, mech);
            let n = data.f(i, n_col) as u64;
            let (Some(mi), Some(ni)) = (
                MECHANISMS.iter().position(|x| *x == m),
                self.n_values.iter().position(|&x| x == n),
            ) else {
                return Err(anyhow::anyhow!(
                    "data row {i}: unexpected mechanism {m} or n {n}"
                ));
            };
            acc[mi * self.n_values.len() + ni].push(data.f(i, err));
        }
        let mut rows = Vec::new();
        for (mi, m) in MECHANISMS.iter().enumerate() {
            for (ni, &n) in self.n_values.iter().enumerate() {
                let a = acc[mi * self.n_values.len() + ni];
                rows.push(vec![
                    (*m).into(),
                    n.into(),
                    a.mean.into(),
                    a.se().into(),
                    a.count.into(),
                ]);
            }
        }
        Ok(Table::new(&FIG2_SUMMARY, rows))
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
            self.epsilon,
            "one release per simulated dataset (each repeat draws fresh data)",
        )
    }
}
