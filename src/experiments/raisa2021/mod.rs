//! Räisä, Koskela, Honkela 2021, "Differentially private Hamiltonian Monte Carlo":
//! their comparison of DP-HMC with the penalty algorithm (Yildirim & Ermis 2019),
//! DP-SGLD and DP-SGNHT on a 2-d banana and an ill-conditioned 10-d Gaussian
//! (arXiv 2106.09376; the settings of their experiment code, DPBayes/DP-HMC-experiments).
//!
//! Per (method, ε, repeat): `chains` chains share one (ε, δ) budget (the total
//! iteration count is split evenly), start at θ_true + N(0, I)·(mean posterior sd)
//! (the same starts for every method and ε, from a keyed stream per repeat), drop
//! the first half, and are scored against the exact posterior: MMD to i.i.d. exact
//! reference draws, the error of the mean and of the variances (closed forms), and
//! split-R̂. Budgets: the penalty algorithm and DP-HMC by the tight PLD of Gaussian
//! compositions (`privacy::gaussian_pld`, exactly the authors' `adp_iters`);
//! DP-SGLD/SGNHT "as published" run the authors' iteration counts (config; their
//! fourier-accountant's output, reproduced in the tests) with their noise, and their
//! privacy is stated by the dominating pair (`privacy::sg_mcmc`); the corrected
//! DP-SGLD draws noise 2h and runs the largest count RDP allows for the same pair.

pub mod gmm;
pub mod plot;

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use crate::config::{check, deserialize, ParamError};
use crate::dpmcmc::exact_mh::{DpHmc, Penalty, VanDerCorput};
use crate::dpmcmc::model::RecordModel;
use crate::dpmcmc::raisa_models::{Banana, Gauss, GAUSS_D};
use crate::dpmcmc::sg_mcmc::{SgKind, SgMcmc};
use crate::experiments::{parameter, Figure};
use crate::privacy::accountant::SgldAccount;
use crate::privacy::event::Conversion;
use crate::privacy::event::{Derivation, Event, Guarantee};
use crate::privacy::gaussian_pld::Accountant;
use crate::privacy::ledger::{Entry, Ledger};
use crate::results::draws::KeptDraws;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};

mod config;
use config::{validate, Config};
pub use config::{Inputs, SCHEMA};

mod summary;
use summary::{ledger, summarize};
pub use summary::{RunRow, SummaryRow};

/// The two targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Banana,
    Gauss,
}

/// The compared samplers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    Penalty,
    DpHmc,
    DpSgldPublished,
    DpSgldCorrected,
    DpSgnht,
}

privpost_core::names::name_table!(Method {
    Penalty => "penalty",
    DpHmc => "dp_hmc",
    DpSgldPublished => "dp_sgld_published",
    DpSgldCorrected => "dp_sgld_corrected",
    DpSgnht => "dp_sgnht",
});

/// The model with its data and exact posterior facts.
enum Problem {
    Banana(Banana),
    Gauss(Box<Gauss>),
}

/// Exact posterior moments and reference draws.
struct Exact {
    theta_true: Vec<f64>,
    mean: Vec<f64>,
    var: Vec<f64>,
    reference: Vec<Vec<f64>>,
}

/// The comparison figure of one target.
pub struct Comparison {
    target: Target,
    c: Config,
    problem: Problem,
    exact: Exact,
    /// total iterations (all chains) per method and ε
    iterations: Vec<Vec<u64>>,
    /// chain starts per repeat
    starts: Vec<Vec<Vec<f64>>>,
}

/// Draws from N(0, 1).
fn normal<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    StandardNormal.sample(rng)
}

fn build(target: Target, params: &toml::Table, seed: u64) -> Result<Box<dyn Figure>, ParamError> {
    Ok(Box::new(comparison(target, params, seed)?))
}

fn comparison(target: Target, params: &toml::Table, seed: u64) -> Result<Comparison, ParamError> {
    let c: Config = deserialize(params)?;
    validate(&c)?;
    let iterations = c
        .methods
        .iter()
        .map(|&m| (0..c.epsilons.len()).map(|e| c.iterations(m, e)).collect())
        .collect::<Result<Vec<Vec<u64>>, _>>()?;
    let mut data_rng = crate::rng::setup_rng(seed, crate::rng::Purpose::SharedData);
    let mut ref_rng =
        crate::rng::keyed_rng(seed, format!("raisa2021/{target:?} reference").as_bytes());
    let n = c.n_data as usize;
    let authors = c.inputs == Inputs::Authors;
    if authors && target != Target::Banana {
        return Err(ParamError::new(
            "inputs",
            "\"authors\"",
            "\"privpost\" (the authors' inputs are reproduced for raisa2021/banana only)",
        ));
    }
    let (problem, exact) = match target {
        Target::Banana => {
            let m = if authors {
                Banana::authors(n)
            } else {
                Banana::paper(n, &mut data_rng)
            };
            let (pm, pv) = m.posterior_phi();
            // θ₂ = φ₂ − aφ₁²: E = m₂ − a(m₁² + v₁), Var = v₂ + a²(2v₁² + 4m₁²v₁)
            let mean = vec![pm[0], pm[1] - m.a * (pm[0] * pm[0] + pv[0])];
            let var = vec![
                pv[0],
                pv[1] + m.a * m.a * (2.0 * pv[0] * pv[0] + 4.0 * pm[0] * pm[0] * pv[0]),
            ];
            let reference = if authors {
                m.authors_reference(c.reference_draws as usize)
                    .into_iter()
                    .map(|d| d.to_vec())
                    .collect()
            } else {
                (0..c.reference_draws)
                    .map(|_| m.posterior_draw(&mut ref_rng).to_vec())
                    .collect()
            };
            let exact = Exact {
                theta_true: vec![0.0, 3.0],
                mean,
                var,
                reference,
            };
            (Problem::Banana(m), exact)
        }
        Target::Gauss => {
            let m = Gauss::paper(n, &mut data_rng)
                .map_err(|e| ParamError::new("seed", seed.to_string(), e.to_string()))?;
            let (mean, cov) = m.posterior();
            let reference = m
                .posterior_draws(c.reference_draws as usize, &mut ref_rng)
                .into_iter()
                .map(|d| d.to_vec())
                .collect();
            let mut theta_true = vec![0.0; GAUSS_D];
            theta_true[1] = 3.0;
            let exact = Exact {
                theta_true,
                mean: mean.iter().copied().collect(),
                var: (0..GAUSS_D).map(|i| cov[(i, i)]).collect(),
                reference,
            };
            (Problem::Gauss(Box::new(m)), exact)
        }
    };
    let starts = if authors {
        authors_starts(&exact, c.repeats, c.chains)
    } else {
        own_starts(&exact, &c, target, seed)
    };
    Ok(Comparison {
        target,
        c,
        problem,
        exact,
        iterations,
        starts,
    })
}

/// The authors' chain starts (their `get_start_point(i)`, i = repeat·chains +
/// chain): θ_true + N(0, I)·s from key 4236482 + i, s the mean over coordinates
/// of the reference draws' standard deviation (divisor n, as numpy's).
fn authors_starts(exact: &Exact, repeats: u64, chains: u64) -> Vec<Vec<Vec<f64>>> {
    let d = exact.theta_true.len();
    let count = exact.reference.len() as f64;
    let s = (0..d)
        .map(|k| {
            let mean = exact.reference.iter().map(|x| x[k]).sum::<f64>() / count;
            (exact
                .reference
                .iter()
                .map(|x| (x[k] - mean).powi(2))
                .sum::<f64>()
                / count)
                .sqrt()
        })
        .sum::<f64>()
        / d as f64;
    (0..repeats)
        .map(|r| {
            (0..chains)
                .map(|c| {
                    let key = crate::jax_random::Key::from_seed(4_236_482 + r * chains + c);
                    let z = key.normal(d);
                    exact
                        .theta_true
                        .iter()
                        .zip(&z)
                        .map(|(t, z)| t + z * s)
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// privpost's chain starts: θ_true + N(0, I)·(mean exact posterior sd), one keyed
/// stream per repeat.
fn own_starts(exact: &Exact, c: &Config, target: Target, seed: u64) -> Vec<Vec<Vec<f64>>> {
    let sd = exact.var.iter().map(|v| v.sqrt()).sum::<f64>() / exact.var.len() as f64;
    (0..c.repeats)
        .map(|r| {
            let mut rng = crate::rng::keyed_rng(
                seed,
                format!("raisa2021/{target:?} starts repeat={r}").as_bytes(),
            );
            (0..c.chains)
                .map(|_| {
                    exact
                        .theta_true
                        .iter()
                        .map(|t| t + sd * normal(&mut rng))
                        .collect()
                })
                .collect()
        })
        .collect()
}

pub fn build_banana(params: &toml::Table, seed: u64) -> Result<Box<dyn Figure>, ParamError> {
    build(Target::Banana, params, seed)
}

pub fn build_gauss(params: &toml::Table, seed: u64) -> Result<Box<dyn Figure>, ParamError> {
    build(Target::Gauss, params, seed)
}

/// What the chains of one run produced.
struct Chains {
    /// kept draws per chain (second half, thinned)
    kept: Vec<Vec<Vec<f64>>>,
    accepted: u64,
    proposals: u64,
    clipped_ratios: u64,
    clipped_grads: u64,
    /// per-record gradient evaluations (denominator of the clipped fraction)
    grad_evals: u64,
}

/// The run columns of `draws.csv` (as in `data.csv`).
const RUN_COLUMNS: [&str; 3] = ["method", "epsilon", "repeat"];

impl Comparison {
    /// θ₁, θ₂, … as `draws.csv` names them.
    fn parameter_names(&self) -> Vec<String> {
        (1..=self.exact.mean.len())
            .map(|k| format!("theta{k}"))
            .collect()
    }

    fn task(&self, index: usize) -> (usize, usize, usize) {
        let (e, r) = (self.c.epsilons.len(), self.c.repeats as usize);
        (index / (e * r), (index / r) % e, index % r)
    }

    fn run_chains<const D: usize, M: RecordModel<D>>(
        &self,
        model: &M,
        method: Method,
        per_chain: u64,
        starts: &[Vec<f64>],
        rng: &mut ChaCha8Rng,
    ) -> Chains {
        let n = model.n() as u64;
        let thin = (per_chain / 5000).max(1);
        let burn = per_chain / 2;
        let mut out = Chains {
            kept: Vec::new(),
            accepted: 0,
            proposals: 0,
            clipped_ratios: 0,
            clipped_grads: 0,
            grad_evals: 0,
        };
        let keep = |t: u64| t > burn && (t - burn).is_multiple_of(thin);
        for start in starts {
            let mut theta: [f64; D] = std::array::from_fn(|i| start[i]);
            let mut kept = Vec::new();
            match (method, self.c.sg(method)) {
                (_, Some(sg)) => {
                    out.clipped_grads += sg.run(model, &mut theta, per_chain, rng, |t, th| {
                        if keep(t) {
                            kept.push(th.to_vec());
                        }
                    });
                    out.grad_evals += per_chain * sg.batch as u64;
                }
                (Method::Penalty, None) => {
                    let p = self.c.penalty();
                    let mut scratch = Vec::new();
                    for t in 1..=per_chain {
                        let s = p.step(model, &mut theta, &mut scratch, rng);
                        out.accepted += u64::from(s.accepted);
                        out.clipped_ratios += s.clipped_ratios;
                        if keep(t) {
                            kept.push(theta.to_vec());
                        }
                    }
                    out.proposals += per_chain;
                }
                (_, None) => {
                    let h = self.c.hmc();
                    let mut scratch = Vec::new();
                    let mut jitter = VanDerCorput::new(rng);
                    for t in 1..=per_chain {
                        let s = h.step(model, &mut theta, jitter.next_value(), &mut scratch, rng);
                        out.accepted += u64::from(s.accepted);
                        out.clipped_ratios += s.clipped_ratios;
                        out.clipped_grads += s.clipped_grads;
                        if keep(t) {
                            kept.push(theta.to_vec());
                        }
                    }
                    out.proposals += per_chain;
                    out.grad_evals += per_chain * (h.leapfrog as u64 + 1) * n;
                }
            }
            out.kept.push(kept);
        }
        out
    }

    /// The row of one run from its chains.
    fn score(
        &self,
        method: Method,
        e: usize,
        repeat: usize,
        per_chain: u64,
        ch: &Chains,
        rng: &mut ChaCha8Rng,
    ) -> Row {
        let d = self.exact.mean.len();
        let pooled: Vec<Vec<f64>> = ch.kept.iter().flatten().cloned().collect();
        let count = pooled.len() as f64;
        let mean: Vec<f64> = (0..d)
            .map(|k| pooled.iter().map(|x| x[k]).sum::<f64>() / count)
            .collect();
        let var: Vec<f64> = (0..d)
            .map(|k| pooled.iter().map(|x| (x[k] - mean[k]).powi(2)).sum::<f64>() / (count - 1.0))
            .collect();
        let mean_error = mean
            .iter()
            .zip(&self.exact.mean)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt();
        let var_error = var
            .iter()
            .zip(&self.exact.var)
            .map(|(a, b)| ((a - b) / b).abs())
            // NaN (a diverged chain's variance) stays NaN: f64::max would drop it
            // and report 0.0, a perfect score
            .fold(0.0, |m: f64, x: f64| {
                if m.is_nan() || x.is_nan() {
                    f64::NAN
                } else {
                    m.max(x)
                }
            });
        let step = (pooled.len() / self.c.mmd_draws as usize).max(1);
        let thinned: Vec<Vec<f64>> = pooled.iter().step_by(step).cloned().collect();
        let mmd = crate::stats::mmd::mmd(&thinned, &self.exact.reference, rng);
        let rhat = (0..d)
            .map(|k| {
                let chains: Vec<Vec<f64>> = ch
                    .kept
                    .iter()
                    .map(|c| c.iter().map(|x| x[k]).collect())
                    .collect();
                crate::stats::diagnostics::split_rhat(&chains)
            })
            .fold(f64::NEG_INFINITY, f64::max);
        let n = self.c.n_data as f64;
        let fraction = |x: u64, of: f64| (of > 0.0).then(|| x as f64 / of);
        let finite = |x: f64| x.is_finite().then_some(x);
        to_row(&RunRow {
            method,
            epsilon: self.c.epsilons[e],
            repeat,
            iterations_per_chain: per_chain,
            kept_draws: pooled.len(),
            mmd: finite(mmd),
            mean_error: finite(mean_error),
            var_error: finite(var_error),
            rhat: finite(rhat),
            acceptance: fraction(ch.accepted, ch.proposals as f64),
            clipped_ratio_fraction: fraction(ch.clipped_ratios, ch.proposals as f64 * n),
            clipped_grad_fraction: fraction(ch.clipped_grads, ch.grad_evals as f64),
        })
    }
}

impl Figure for Comparison {
    fn task_count(&self) -> usize {
        self.c.methods.len() * self.c.epsilons.len() * self.c.repeats as usize
    }

    fn grid_description(&self) -> String {
        format!(
            "{:?}: {} methods × {} ε × {} repeats, {} chains sharing each budget, n = {}",
            self.target,
            self.c.methods.len(),
            self.c.epsilons.len(),
            self.c.repeats,
            self.c.chains,
            self.c.n_data
        )
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let (mi, e, r) = self.task(index);
        let method = self.c.methods[mi];
        let per_chain = self.iterations[mi][e] / self.c.chains;
        let starts = &self.starts[r];
        let chains = match &self.problem {
            Problem::Banana(m) => self.run_chains(m, method, per_chain, starts, rng),
            Problem::Gauss(m) => self.run_chains(m.as_ref(), method, per_chain, starts, rng),
        };
        let mut rows = vec![self.score(method, e, r, per_chain, &chains, rng)];
        if self.c.keep_draws {
            let run = [method.as_str().into(), self.c.epsilons[e].into(), r.into()];
            let mut kept = KeptDraws::new(&RUN_COLUMNS, self.parameter_names());
            for (c, chain) in chains.kept.iter().enumerate() {
                kept.push_chain(&run, c + 1, chain.iter().map(Vec::as_slice));
            }
            rows.extend(kept.into_table().rows);
        }
        Ok(rows)
    }

    /// With `keep_draws`: a task's first row is its run's row, the rest its draws.
    fn split_task_rows(&self, mut rows: Vec<Row>) -> (Vec<Row>, Vec<Row>) {
        if !self.c.keep_draws || rows.is_empty() {
            return (rows, Vec::new());
        }
        let draws = rows.split_off(1);
        (rows, draws)
    }

    fn kept_draws(&self, _data: &Table, draw_rows: Vec<Row>) -> anyhow::Result<Option<KeptDraws>> {
        if !self.c.keep_draws {
            return Ok(None);
        }
        let mut kept = KeptDraws::new(&RUN_COLUMNS, self.parameter_names());
        kept.extend(draw_rows)?;
        Ok(Some(kept))
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        summarize(data, &self.c.methods, &self.c.epsilons)
    }

    fn manifest_details(&self) -> serde_json::Value {
        let n = self.c.n_data as usize;
        let sg: serde_json::Map<String, serde_json::Value> = self
            .c
            .methods
            .iter()
            .filter_map(|&m| self.c.sg(m).map(|s| (m, s.privacy(n))))
            .map(|(m, p)| {
                (
                    m.as_str().to_string(),
                    serde_json::json!({
                        "q": p.q(),
                        "noise_sd_on_clipped_sum": p.sum_noise_sd(),
                        "dominating_sigma": p.dominating_sigma(),
                    }),
                )
            })
            .collect();
        serde_json::json!({
            "target": format!("{:?}", self.target),
            "exact_mean": self.exact.mean,
            "exact_var": self.exact.var,
            "iterations_total": self.c.methods.iter().zip(&self.iterations).map(|(m, t)| (m.as_str(), t.clone())).collect::<std::collections::BTreeMap<_, _>>(),
            "stochastic_gradient_steps": sg,
            "inputs": match self.c.inputs {
                Inputs::Privpost => "privpost's keyed streams of the seed",
                Inputs::Authors => "the authors' (their banana_model.py on JAX's pre-0.5 stream: data key 43247, reference key 56437, starts key 4236482 + repeat·chains + chain)",
            },
            "starts": match self.c.inputs {
                Inputs::Privpost => "θ_true + N(0, I)·(mean exact posterior sd), one keyed stream per repeat, the same for every method and ε (non-private, as the authors)",
                Inputs::Authors => "θ_true + N(0, I)·(mean sd of the reference draws), the authors' get_start_point, the same for every method and ε",
            },
            "burn_in": "the first half of each chain; chains longer than 10 000 thinned to about 5000 kept draws, as the authors",
            "mmd": "Gaussian-kernel MMD (median bandwidth of 500 cross pairs), unbiased, √|MMD²|, of at most mmd_draws evenly spaced pooled draws against reference_draws exact draws",
            "mean_error": "‖pooled mean − exact posterior mean‖₂ (closed form)",
            "var_error": "max over coordinates of |pooled variance / exact variance − 1|",
            "rhat": "split-R̂ over the kept halves, largest over coordinates",
        })
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        ledger(self)
    }

    fn parameters(&self) -> Vec<(String, String)> {
        vec![
            parameter("n", self.c.n_data),
            parameter("δ", self.c.delta),
            parameter("repeats", self.c.repeats),
            parameter("chains per run", self.c.chains),
            parameter(
                "reference",
                format!("{} exact draws", self.c.reference_draws),
            ),
            match self.c.inputs {
                Inputs::Privpost => parameter("synthetic data", ""),
                Inputs::Authors => parameter("the authors' synthetic data", "JAX key 43247"),
            },
        ]
    }

    fn task_cost(&self, index: usize) -> f64 {
        let (mi, e, _) = self.task(index);
        let t = self.iterations[mi][e] as f64;
        let n = self.c.n_data as f64;
        let d = self.exact.mean.len() as f64;
        let per = match self.c.methods[mi] {
            Method::Penalty => 2.0 * n * d,
            Method::DpHmc => (self.c.dp_hmc.leapfrog as f64 + 2.0) * n * d,
            m => self.c.sg(m).map_or(1.0, |s| s.batch as f64 * d * 2.0),
        };
        // the unbiased MMD of at most mmd_draws pooled draws against reference_draws
        // exact ones: m²/2 + m·r + r²/2 kernel evaluations of d coordinates (the
        // reference's own term had been left out: reference_draws = 62,689 ran for
        // minutes on an 8 s estimate)
        let (m, r) = (self.c.mmd_draws as f64, self.c.reference_draws as f64);
        t * per + (m * m / 2.0 + m * r + r * r / 2.0) * d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With `inputs = "authors"` the banana's data, reference draws and starts are
    /// the ones the authors' banana_model.py and get_start_point drew (values
    /// printed by tests/reference/jax_threefry.py from their code on JAX 0.4.30).
    #[test]
    fn the_authors_inputs_are_theirs() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/reference/jax-threefry.json"
        );
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let floats = |v: &serde_json::Value| -> Vec<f64> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        };
        let close = |got: &[f64], want: &[f64], what: &str| {
            for (g, w) in got.iter().zip(want) {
                assert!(
                    (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                    "{what}: {g} vs {w}"
                );
            }
        };
        let text = include_str!("../../../configs/raisa2021/banana.toml");
        let mut params: toml::Table = toml::from_str(text).unwrap();
        for key in ["experiment", "description", "seed", "profile"] {
            params.remove(key);
        }
        params.insert("inputs".into(), "authors".into());
        let figure = comparison(Target::Banana, &params, 2021).unwrap();
        let Problem::Banana(m) = &figure.problem else {
            panic!("not the banana")
        };
        for (i, want) in r["banana_data_rows"].as_object().unwrap() {
            close(&m.xs[i.parse::<usize>().unwrap()], &floats(want), "data");
        }
        let n = m.xs.len() as f64;
        let mean: Vec<f64> = (0..2)
            .map(|k| m.xs.iter().map(|x| x[k]).sum::<f64>() / n)
            .collect();
        close(&mean, &floats(&r["banana_data_mean"]), "data mean");
        for (i, want) in r["banana_reference_rows"].as_object().unwrap() {
            close(
                &figure.exact.reference[i.parse::<usize>().unwrap()],
                &floats(want),
                "reference",
            );
        }
        for (i, want) in r["banana_starts"].as_object().unwrap() {
            let i: usize = i.parse().unwrap();
            let chains = figure.c.chains as usize;
            close(
                &figure.starts[i / chains][i % chains],
                &floats(want),
                "start",
            );
        }
        // privpost's own stream is another banana: m₁ of the opposite sign
        params.insert("inputs".into(), "privpost".into());
        let own = comparison(Target::Banana, &params, 2021).unwrap();
        assert!(own.exact.mean[0] < 0.0 && figure.exact.mean[0] > 0.0);
        // the numbers the banana's notes quote: the exact Var θ₂ and the posterior
        // mean of θ₁ on our data and on theirs
        let notes = include_str!("../../../docs/figures/raisa2021/banana.toml");
        for quoted in [
            format!(
                "{:.3} on these data, {:.3} on the authors'",
                own.exact.var[1], figure.exact.var[1]
            ),
            format!(
                "θ₁ {:.3} against +{:.3}",
                own.exact.mean[0], figure.exact.mean[0]
            )
            .replace('-', "−"),
        ] {
            assert!(notes.contains(&quoted), "the notes do not say {quoted:?}");
        }
        params.insert("inputs".into(), "authors".into());
        assert!(build(Target::Gauss, &params, 2021).is_err());
    }
}
