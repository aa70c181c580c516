//! geumlek2017 Figure 2: KL to the true posterior and held-out −ln p(X_H | θ) vs
//! ln ε for the diffused, concentrated and Gaussian-mechanism posteriors.

use super::*;
use crate::config::{check, deserialize, ParamError};
use crate::experiments::Figure;
use crate::expfam::mechanisms::{kl_from_truth, Algorithm, BetaBernoulli, GaussianCount};
use crate::privacy::event::NoiseMode;
use crate::privacy::event::{Event, Guarantee};
use crate::privacy::gaussian::GaussianCalibration;
use crate::privacy::ledger::{Entry, Ledger};
use crate::privacy::search::Verified;
use crate::results::table::{Cell, Row, Table};
use crate::stats::Moments;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Binomial, Distribution};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig2Config {
    prior: toml::Value,
    n: u64,
    successes: u64,
    lambdas: Vec<f64>,
    /// left end of the ln ε axis per panel type, as in the paper's Fig. 2:
    /// KL panels (a, b) from −10, −ln p panels (c, d) from −15, at every λ
    ln_epsilon_min: PanelStarts,
    ln_epsilon_max: f64,
    ln_epsilon_step: f64,
    gaussian_calibration: GaussianCalibration,
    runs: u64,
    runs_per_task: u64,
    data_p: f64,
    holdout_n: u64,
    /// how the Gaussian baseline draws its noise (the posteriors are float-only)
    #[serde(default)]
    noise: NoiseMode,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const FIG2_SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Fig2Config>;

/// Where each panel type's ln ε axis starts (`ln_epsilon_min = { kl, loglik }`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PanelStarts {
    // optional to serde, so that a missing one is named with its full key
    kl: Option<f64>,
    loglik: Option<f64>,
}

/// A (λ, ε) grid point with the calibrated mechanisms.
struct Point {
    lambda: f64,
    ln_epsilon: f64,
    epsilon: f64,
    diffused: Verified,
    concentrated: Verified,
    gaussian: GaussianCount,
}

enum Task {
    Kl {
        point: usize,
    },
    Holdout {
        point: usize,
        chunk: usize,
        runs: u64,
    },
}

/// KL to the truth and held-out −ln p(X_H | θ) vs ln ε (Figure 2).
pub struct Fig2 {
    problem: BetaBernoulli,
    successes: u64,
    calibration: GaussianCalibration,
    data_p: f64,
    holdout_n: u64,
    noise: NoiseMode,
    points: Vec<Point>,
    tasks: Vec<Task>,
    runs: u64,
}

pub fn build_fig2(params: &toml::Table, _seed: u64) -> Result<Box<dyn Figure>, ParamError> {
    let c: Fig2Config = deserialize(params)?;
    check::at_least("n", c.n, 1)?;
    let problem = problem(&c.prior, c.n)?;
    if c.successes > c.n {
        return Err(ParamError::new(
            "successes",
            format!("{} > n = {}", c.successes, c.n),
            "0 ≤ successes ≤ n",
        ));
    }
    check::non_empty("lambdas", &c.lambdas)?;
    for &l in &c.lambdas {
        check::order("lambdas", l)?;
        // the order is a plotted and tabled number: keep it in the plottable range
        if l > 1e6 {
            return Err(ParamError::new(
                "lambdas",
                format!("λ = {l:e}"),
                "1 < λ ≤ 10⁶",
            ));
        }
    }
    check::positive("ln_epsilon_step", c.ln_epsilon_step)?;
    let start = |key: &'static str, v: Option<f64>| {
        v.map(|v| (key, v)).ok_or_else(|| {
            ParamError::new(
                key,
                "missing",
                "a number: ln_epsilon_min = { kl = -10.0, loglik = -15.0 } sets where each panel type's ln ε axis starts",
            )
        })
    };
    let starts = [
        start("ln_epsilon_min.kl", c.ln_epsilon_min.kl)?,
        start("ln_epsilon_min.loglik", c.ln_epsilon_min.loglik)?,
    ];
    for (key, lo) in starts {
        if lo > c.ln_epsilon_max || lo.is_nan() || !c.ln_epsilon_max.is_finite() {
            return Err(ParamError::new(
                "ln_epsilon_max",
                format!("{} < {key} = {lo}", c.ln_epsilon_max),
                "finite ln_epsilon_min.kl and .loglik ≤ ln_epsilon_max",
            ));
        }
        for (key, v) in [(key, lo), ("ln_epsilon_max", c.ln_epsilon_max)] {
            if !(-700.0..=700.0).contains(&v) {
                return Err(ParamError::new(
                    key,
                    format!("ln ε = {v} makes ε underflow or overflow"),
                    "−700 ≤ ln ε ≤ 700",
                ));
            }
        }
    }
    // one grid per λ from the lower of the two starts; each panel type uses
    // the points from its own start on
    let (lo_key, lo) = if starts[0].1 <= starts[1].1 {
        starts[0]
    } else {
        starts[1]
    };
    let steps = check::range_points(
        [lo_key, "ln_epsilon_max", "ln_epsilon_step"],
        lo,
        c.ln_epsilon_max,
        c.ln_epsilon_step,
    )? - 1;
    check::at_least("runs", c.runs, 1)?;
    check::at_least("runs_per_task", c.runs_per_task, 1)?;
    check::probability("data_p", c.data_p)?;
    check::at_least("holdout_n", c.holdout_n, 1)?;

    let mut points = Vec::new();
    for &lambda in &c.lambdas {
        for k in 0..=steps {
            let ln_epsilon = lo + k as f64 * c.ln_epsilon_step;
            let epsilon = ln_epsilon.exp();
            let calibrate = |a: Algorithm| {
                problem.calibrate(a, lambda, epsilon).map_err(|e| {
                    ParamError::new(
                        lo_key,
                        format!(
                            "no {} posterior reaches (λ = {lambda}, ε = {epsilon:e}): {e}",
                            a.as_str()
                        ),
                        "a reachable privacy target",
                    )
                })
            };
            let gaussian =
                GaussianCount::calibrated(problem, lambda, epsilon, c.gaussian_calibration)
                    .and_then(|g| g.with_noise(c.noise))
                    .map_err(|e| {
                        ParamError::new(
                    lo_key,
                    format!("{e} (noise = \"{}\")", c.noise.as_str()),
                    "ε > 0 whose Gaussian variance lies in [2^-20, 2^40] in the exact modes",
                )
                    })?;
            points.push(Point {
                lambda,
                ln_epsilon,
                epsilon,
                diffused: calibrate(Algorithm::Diffused)?,
                concentrated: calibrate(Algorithm::Concentrated)?,
                gaussian,
            });
        }
    }
    // a point belongs to a panel type from that type's start on (the grid's
    // points are lo + k·step, so compare with half a step's slack)
    let from = |start: f64| {
        let points = &points;
        (0..points.len()).filter(move |&i| points[i].ln_epsilon >= start - 0.5 * c.ln_epsilon_step)
    };
    let mut tasks: Vec<Task> = from(starts[0].1).map(|point| Task::Kl { point }).collect();
    let chunks = c.runs.div_ceil(c.runs_per_task);
    for point in from(starts[1].1) {
        for chunk in 0..chunks as usize {
            let runs = c.runs_per_task.min(c.runs - chunk as u64 * c.runs_per_task);
            tasks.push(Task::Holdout { point, chunk, runs });
        }
    }
    Ok(Box::new(Fig2 {
        problem,
        successes: c.successes,
        calibration: c.gaussian_calibration,
        data_p: c.data_p,
        holdout_n: c.holdout_n,
        noise: c.noise,
        points,
        tasks,
        runs: c.runs,
    }))
}

pub const FIG2_DATA: [&str; 14] = [
    "panel",
    "lambda",
    "ln_epsilon",
    "epsilon",
    "algorithm",
    "coefficient",
    "achieved_epsilon",
    "sigma",
    "chunk",
    "runs",
    "mean",
    "m2",
    "kl_abs_err",
    "calibration",
];

pub const FIG2_SUMMARY: [&str; 13] = [
    "panel",
    "lambda",
    "ln_epsilon",
    "algorithm",
    "coefficient",
    "mean",
    "sd",
    "runs",
    "epsilon",
    "achieved_epsilon",
    "sigma",
    "kl_abs_err",
    "calibration",
];

/// −ln p(X_H | θ) for a Bernoulli held-out set with `s` successes of `n`.
fn neg_log_lik(theta: f64, s: u64, n: u64) -> f64 {
    -(s as f64 * theta.ln() + (n - s) as f64 * (-theta).ln_1p())
}

impl Fig2 {
    fn algo_cells(&self, p: &Point, name: &str) -> (Cell, Cell, Cell) {
        match name {
            "diffused" => (
                p.diffused.coefficient.into(),
                p.diffused.epsilon.into(),
                Cell::Empty,
            ),
            "concentrated" => (
                p.concentrated.coefficient.into(),
                p.concentrated.epsilon.into(),
                Cell::Empty,
            ),
            "gaussian" => (
                Cell::Empty,
                match p.gaussian.discrete {
                    None => self
                        .calibration
                        .rdp_epsilon(p.lambda, p.gaussian.sigma, 1.0),
                    // the discrete Gaussian's exact RDP at λ
                    Some(_) => p
                        .gaussian
                        .event()
                        .rdp_epsilon(p.lambda)
                        .unwrap_or(f64::INFINITY),
                }
                .into(),
                p.gaussian.sigma.into(),
            ),
            _ => (Cell::Empty, Cell::Empty, Cell::Empty),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn row(
        &self,
        panel: &str,
        p: &Point,
        algorithm: &str,
        chunk: Cell,
        runs: Cell,
        mean: f64,
        m2: Cell,
        err: Cell,
    ) -> Row {
        let (coef, achieved, sigma) = self.algo_cells(p, algorithm);
        let calibration: Cell = if algorithm == "gaussian" {
            self.calibration.as_str().into()
        } else {
            Cell::Empty
        };
        vec![
            panel.into(),
            p.lambda.into(),
            p.ln_epsilon.into(),
            p.epsilon.into(),
            algorithm.into(),
            coef,
            achieved,
            sigma,
            chunk,
            runs,
            mean.into(),
            m2,
            err,
            calibration,
        ]
    }
}

const HOLDOUT_ALGOS: [&str; 4] = ["diffused", "concentrated", "gaussian", "true_posterior"];

impl Figure for Fig2 {
    fn parameters(&self) -> Vec<(String, String)> {
        let mut p = problem_parameters(&self.problem);
        p.push(parameter("(a, b) successes", self.successes));
        p.push(parameter(
            "(c, d) Bernoulli p of the data and Xʜ",
            self.data_p,
        ));
        p.push(parameter("|Xʜ|", self.holdout_n));
        p.extend(crate::experiments::noise_parameter(self.noise));
        p
    }

    fn task_count(&self) -> usize {
        self.tasks.len()
    }

    fn grid_description(&self) -> String {
        let kl = self
            .tasks
            .iter()
            .filter(|t| matches!(t, Task::Kl { .. }))
            .count();
        let holdout: std::collections::BTreeSet<usize> = self
            .tasks
            .iter()
            .filter_map(|t| match t {
                Task::Holdout { point, .. } => Some(*point),
                Task::Kl { .. } => None,
            })
            .collect();
        format!(
            "{kl} (λ, ln ε) points of KL (3 mechanisms) + {} of held-out −ln p over {} runs in {} chunks each",
            holdout.len(),
            self.runs,
            (self.tasks.len() - kl) / holdout.len().max(1)
        )
    }

    /// KL: closed forms and a one-dimensional quadrature (≈ 10^5 flops); a
    /// hold-out chunk: per run two binomial and four Beta/Gaussian draws and
    /// the held-out likelihoods (≈ 1.5·10^4 flops, measured: gamma draws and
    /// log-gamma terms dominate).
    fn task_cost(&self, index: usize) -> f64 {
        match self.tasks[index] {
            Task::Kl { .. } => 1e5,
            Task::Holdout { runs, .. } => runs as f64 * 1.5e4,
        }
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        match self.tasks[index] {
            Task::Kl { point } => {
                let p = &self.points[point];
                let s = self.successes as f64;
                let kl_d = kl_from_truth(
                    &self.problem,
                    Algorithm::Diffused,
                    p.diffused.coefficient,
                    s,
                );
                let kl_c = kl_from_truth(
                    &self.problem,
                    Algorithm::Concentrated,
                    p.concentrated.coefficient,
                    s,
                );
                let (kl_g, err) = p.gaussian.kl_from_truth(s);
                let e = || Cell::Empty;
                Ok(vec![
                    self.row("kl", p, "diffused", e(), e(), kl_d, e(), 0.0.into()),
                    self.row("kl", p, "concentrated", e(), e(), kl_c, e(), 0.0.into()),
                    self.row("kl", p, "gaussian", e(), e(), kl_g, e(), err.into()),
                ])
            }
            Task::Holdout { point, chunk, runs } => {
                let p = &self.points[point];
                let n = self.problem.n;
                let data = Binomial::new(n, self.data_p)?;
                let held = Binomial::new(self.holdout_n, self.data_p)?;
                let mut moments = [Moments::default(); 4];
                for _ in 0..runs {
                    let s = data.sample(rng) as f64;
                    let sh = held.sample(rng);
                    let thetas = [
                        self.problem
                            .posterior(Algorithm::Diffused, p.diffused.coefficient, s)
                            .sample(rng),
                        self.problem
                            .posterior(Algorithm::Concentrated, p.concentrated.coefficient, s)
                            .sample(rng),
                        p.gaussian
                            .posterior_for(p.gaussian.noisy_count(s, rng)?)
                            .sample(rng),
                        self.problem.direct_posterior(s).sample(rng),
                    ];
                    for (m, theta) in moments.iter_mut().zip(thetas) {
                        // A Beta draw can round to 0 or 1 in floating point; nudge inside.
                        let theta = theta.clamp(f64::MIN_POSITIVE, 1.0 - f64::EPSILON / 2.0);
                        m.push(neg_log_lik(theta, sh, self.holdout_n));
                    }
                }
                Ok(HOLDOUT_ALGOS
                    .iter()
                    .zip(moments)
                    .map(|(a, m)| {
                        self.row(
                            "neg_log_lik",
                            p,
                            a,
                            chunk.into(),
                            m.count.into(),
                            m.mean,
                            m.m2.into(),
                            Cell::Empty,
                        )
                    })
                    .collect())
            }
        }
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let col = |n: &str| data.col(n);
        let (panel, lambda, ln_eps, algo) = (
            col("panel")?,
            col("lambda")?,
            col("ln_epsilon")?,
            col("algorithm")?,
        );
        let (runs, mean, m2) = (col("runs")?, col("mean")?, col("m2")?);
        let copy = [
            col("coefficient")?,
            col("epsilon")?,
            col("achieved_epsilon")?,
            col("sigma")?,
            col("kl_abs_err")?,
            col("calibration")?,
        ];
        // Group consecutive keys in first-seen order (deterministic).
        let mut order: Vec<(String, String, String, String)> = Vec::new();
        let mut groups: std::collections::HashMap<
            (String, String, String, String),
            (usize, Moments),
        > = Default::default();
        for i in 0..data.rows.len() {
            let key = (
                data.s(i, panel),
                data.s(i, lambda),
                data.s(i, ln_eps),
                data.s(i, algo),
            );
            let entry = groups.entry(key.clone()).or_insert_with(|| {
                order.push(key);
                (i, Moments::default())
            });
            if data.s(i, panel) == "neg_log_lik" {
                entry.1.merge(&Moments {
                    count: data.f(i, runs) as u64,
                    mean: data.f(i, mean),
                    m2: data.f(i, m2),
                });
            }
        }
        let rows = order
            .iter()
            .map(|key| {
                let (first, m) = groups[key];
                let is_kl = key.0 == "kl";
                let c = |k: usize| data.rows[first][copy[k]].clone();
                vec![
                    key.0.clone().into(),
                    data.rows[first][lambda].clone(),
                    data.rows[first][ln_eps].clone(),
                    key.3.clone().into(),
                    c(0),
                    if is_kl {
                        data.rows[first][mean].clone()
                    } else {
                        m.mean.into()
                    },
                    // one run has no spread: an empty cell, as the other figures
                    // write (a NaN had stopped `runs = 1` after every task ran)
                    if is_kl || m.count < 2 {
                        Cell::Empty
                    } else {
                        m.sd().into()
                    },
                    if is_kl { Cell::Empty } else { m.count.into() },
                    c(1),
                    c(2),
                    c(3),
                    c(4),
                    c(5),
                ]
            })
            .collect();
        Ok(Table::new(&FIG2_SUMMARY, rows))
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        let mut out = Vec::new();
        for p in &self.points {
            let at = |name: &str| {
                format!(
                    "lambda={}, ln_epsilon={}, algorithm={name}",
                    p.lambda, p.ln_epsilon
                )
            };
            let claim = Guarantee::Rdp {
                order: p.lambda,
                epsilon: p.epsilon,
            };
            for (algorithm, v) in [
                (Algorithm::Diffused, &p.diffused),
                (Algorithm::Concentrated, &p.concentrated),
            ] {
                out.push(Entry::new(
                    at(algorithm.as_str()),
                    self.problem
                        .rdp_event(algorithm, v.coefficient, &[p.lambda]),
                    claim.clone(),
                ));
            }
            out.push(
                Entry::new(at("gaussian"), p.gaussian.event(), claim.clone()).when(match self.calibration {
                    GaussianCalibration::Paper => "σ² = λΔ²/ε from the paper's statement (λ, λΔ²/σ²)-RDP; the exact ε is half the claim",
                    GaussianCalibration::Tight => "σ² = λΔ²/(2ε), Mironov 2017 Proposition 7 (exact)",
                }),
            );
            out.push(Entry::new(
                at("true_posterior"),
                Event::NonPrivate,
                Guarantee::None,
            ));
        }
        Ok(out)
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "prior": [self.problem.prior.alpha(), self.problem.prior.beta()],
            "n": self.problem.n,
            "kl_successes": self.successes,
            "gaussian_calibration": self.calibration.as_str(),
            "coefficient_search": "largest r, m in (0,1] with ε(c) ≤ target, bisection to adjacent doubles; achieved_epsilon column is the verified ε",
            "gaussian_kl": match self.noise {
                NoiseMode::Float => "nested composite Gauss-Legendre in log space; kl_abs_err = |KL(refined 2×) − KL|",
                _ => "discrete Gaussian: exact sum over the integer noisy counts, Gauss-Legendre over θ; kl_abs_err = |KL(refined 2×) − KL|",
            },
            "noise": self.noise.as_str(),
            "holdout": { "runs": self.runs, "data_p": self.data_p, "n_train": self.problem.n, "n_holdout": self.holdout_n },
        })
    }
}
