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
use serde::Deserialize;

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
use crate::results::table::{Cell, Row, Table};

/// The two targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Banana,
    Gauss,
}

/// The compared samplers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    Penalty,
    DpHmc,
    DpSgldPublished,
    DpSgldCorrected,
    DpSgnht,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Penalty => "penalty",
            Method::DpHmc => "dp_hmc",
            Method::DpSgldPublished => "dp_sgld_published",
            Method::DpSgldCorrected => "dp_sgld_corrected",
            Method::DpSgnht => "dp_sgnht",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PenaltyConfig {
    tau: f64,
    proposal_sd: f64,
    clip: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HmcConfig {
    tau_l: f64,
    tau_g: f64,
    step: f64,
    leapfrog: u64,
    clip_ratio: f64,
    clip_grad: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SgConfig {
    batch: u64,
    clip: f64,
    eta: f64,
    /// SGNHT's diffusion A (absent for SGLD)
    #[serde(default)]
    diffusion: Option<f64>,
    /// the authors' total iteration count per ε (4 chains together)
    published_iterations: Vec<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    n_data: u64,
    epsilons: Vec<f64>,
    delta: f64,
    repeats: u64,
    chains: u64,
    reference_draws: u64,
    mmd_draws: u64,
    methods: Vec<Method>,
    penalty: PenaltyConfig,
    dp_hmc: HmcConfig,
    sgld: SgConfig,
    sgnht: SgConfig,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Config>;

/// Columns of `data.csv` (one row per method, ε and repeat).
pub const DATA: [&str; 12] = [
    "method",
    "epsilon",
    "repeat",
    "iterations_per_chain",
    "kept_draws",
    "mmd",
    "mean_error",
    "var_error",
    "rhat",
    "acceptance",
    "clipped_ratio_fraction",
    "clipped_grad_fraction",
];

/// Columns of `summary.csv` (one row per method and ε).
pub const SUMMARY: [&str; 16] = [
    "method",
    "epsilon",
    "iterations_per_chain",
    "runs",
    "mmd_mean",
    "mmd_se",
    "mmd_median",
    "mmd_q25",
    "mmd_q75",
    "mean_error_mean",
    "mean_error_se",
    "var_error_mean",
    "var_error_se",
    "rhat_mean",
    "rhat_se",
    "acceptance_mean",
];

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

fn positive(key: &str, v: f64) -> Result<f64, ParamError> {
    check::positive(key, v)
}

fn validate(c: &Config) -> Result<(), ParamError> {
    check::at_least("n_data", c.n_data, 100)?;
    if c.n_data > 10_000_000 {
        return Err(ParamError::new(
            "n_data",
            c.n_data.to_string(),
            "100 ..= 10⁷",
        ));
    }
    check::non_empty("epsilons", &c.epsilons)?;
    for (i, &e) in c.epsilons.iter().enumerate() {
        check::within("epsilons", e, 1e-3, 100.0, "ε in [0.001, 100]")?;
        if c.epsilons[..i].contains(&e) {
            return Err(ParamError::new(
                "epsilons",
                format!("{e} appears twice"),
                "distinct ε",
            ));
        }
    }
    check::within("delta", c.delta, 1e-30, 0.5, "10⁻³⁰ ≤ δ ≤ 0.5")?;
    check::at_least("repeats", c.repeats, 1)?;
    if c.repeats > 1000 {
        return Err(ParamError::new(
            "repeats",
            c.repeats.to_string(),
            "1 ..= 1000",
        ));
    }
    check::at_least("chains", c.chains, 2)?;
    if c.chains > 64 {
        return Err(ParamError::new("chains", c.chains.to_string(), "2 ..= 64"));
    }
    for (key, v) in [
        ("reference_draws", c.reference_draws),
        ("mmd_draws", c.mmd_draws),
    ] {
        check::at_least(key, v, 10)?;
        if v > 100_000 {
            return Err(ParamError::new(key, v.to_string(), "10 ..= 100000"));
        }
    }
    check::non_empty("methods", &c.methods)?;
    for (i, m) in c.methods.iter().enumerate() {
        if c.methods[..i].contains(m) {
            return Err(ParamError::new(
                "methods",
                format!("{} appears twice", m.as_str()),
                "distinct methods",
            ));
        }
    }
    positive("penalty.tau", c.penalty.tau)?;
    positive("penalty.proposal_sd", c.penalty.proposal_sd)?;
    positive("penalty.clip", c.penalty.clip)?;
    let h = &c.dp_hmc;
    positive("dp_hmc.tau_l", h.tau_l)?;
    positive("dp_hmc.tau_g", h.tau_g)?;
    positive("dp_hmc.step", h.step)?;
    positive("dp_hmc.clip_ratio", h.clip_ratio)?;
    positive("dp_hmc.clip_grad", h.clip_grad)?;
    if !(1..=1000).contains(&h.leapfrog) {
        return Err(ParamError::new(
            "dp_hmc.leapfrog",
            h.leapfrog.to_string(),
            "1 ..= 1000 leapfrog steps",
        ));
    }
    for (name, s) in [("sgld", &c.sgld), ("sgnht", &c.sgnht)] {
        if s.batch == 0 || s.batch > c.n_data {
            return Err(ParamError::new(
                format!("{name}.batch"),
                s.batch.to_string(),
                "1 ..= n_data",
            ));
        }
        positive(&format!("{name}.clip"), s.clip)?;
        positive(&format!("{name}.eta"), s.eta)?;
        // the noise multiplier b√v/(2C√(ηn)) must be a finite positive number
        let sigma = s.batch as f64 / (2.0 * s.clip * (s.eta * c.n_data as f64).sqrt());
        if !(sigma.is_finite() && sigma > 1e-6 && sigma < 1e6) {
            return Err(ParamError::new(
                format!("{name}.clip"),
                format!(
                    "{name}.batch = {}, {name}.clip = {}, {name}.eta = {} give the noise multiplier b/(2C√(ηn)) = {}",
                    s.batch,
                    check::short(s.clip),
                    check::short(s.eta),
                    check::short(sigma)
                ),
                "clip, eta and batch whose noise multiplier lies in [10⁻⁶, 10⁶]",
            ));
        }
        if s.published_iterations.len() != c.epsilons.len() {
            return Err(ParamError::new(
                format!("{name}.published_iterations"),
                format!(
                    "{} counts for {} ε",
                    s.published_iterations.len(),
                    c.epsilons.len()
                ),
                "one count per entry of epsilons, in the same order",
            ));
        }
        for &t in &s.published_iterations {
            if t < c.chains || t > 1_000_000_000 {
                return Err(ParamError::new(
                    format!("{name}.published_iterations"),
                    t.to_string(),
                    "chains ..= 10⁹ iterations (all chains together)",
                ));
            }
        }
    }
    match c.sgnht.diffusion {
        Some(a) => {
            positive("sgnht.diffusion", a)?;
        }
        None => {
            return Err(ParamError::new(
                "sgnht.diffusion",
                "missing",
                "the thermostat's diffusion A > 0",
            ))
        }
    }
    if c.sgld.diffusion.is_some() {
        return Err(ParamError::new(
            "sgld.diffusion",
            "given",
            "no diffusion for DP-SGLD (SGNHT only)",
        ));
    }
    Ok(())
}

impl Config {
    fn penalty(&self) -> Penalty {
        Penalty {
            tau: self.penalty.tau,
            n_exponent: 0.5,
            proposal_sd: self.penalty.proposal_sd,
            clip: self.penalty.clip,
            corrected: true,
        }
    }

    fn hmc(&self) -> DpHmc {
        let h = &self.dp_hmc;
        DpHmc {
            tau_l: h.tau_l,
            tau_g: h.tau_g,
            clip_ratio: h.clip_ratio,
            clip_grad: h.clip_grad,
            leapfrog: h.leapfrog as usize,
            step: h.step,
        }
    }

    /// The stochastic-gradient sampler of a method (None for the exact MH ones).
    fn sg(&self, m: Method) -> Option<SgMcmc> {
        let (s, kind) = match m {
            Method::DpSgldPublished => (
                &self.sgld,
                SgKind::Sgld {
                    variance_factor: 1.0,
                },
            ),
            Method::DpSgldCorrected => (
                &self.sgld,
                SgKind::Sgld {
                    variance_factor: 2.0,
                },
            ),
            Method::DpSgnht => (
                &self.sgnht,
                SgKind::Sgnht {
                    diffusion: self.sgnht.diffusion.unwrap_or(1.0),
                },
            ),
            Method::Penalty | Method::DpHmc => return None,
        };
        Some(SgMcmc {
            batch: s.batch as usize,
            clip: s.clip,
            eta: s.eta,
            kind,
        })
    }

    /// Total iterations of `m` at ε (index `e`): the budget its accounting allows.
    fn iterations(&self, m: Method, e: usize) -> Result<u64, ParamError> {
        let (eps, n) = (self.epsilons[e], self.n_data as usize);
        // a τ so small that σ underflows to 0 releases without noise: no budget at all
        let noise_free = |key: &str, mu: f64| {
            if mu.is_finite() {
                Ok(())
            } else {
                Err(ParamError::new(
                    key,
                    format!("its noise underflows to 0 (μ per iteration = {mu})"),
                    "τ large enough that τ√n is a positive number",
                ))
            }
        };
        match m {
            Method::Penalty => noise_free(
                "penalty.tau",
                crate::privacy::gaussian_pld::penalty_mu(self.penalty.tau, self.n_data, 0.5),
            )?,
            Method::DpHmc => {
                let h = &self.dp_hmc;
                // the release whose noise underflows: the ratio's or the gradients'
                let key = if h.tau_l * h.tau_l * self.n_data as f64 > 0.0 {
                    "dp_hmc.tau_g"
                } else {
                    "dp_hmc.tau_l"
                };
                noise_free(
                    key,
                    crate::privacy::gaussian_pld::hmc_mu(h.tau_l, h.tau_g, h.leapfrog, self.n_data),
                )?
            }
            _ => {}
        }
        let total = match m {
            Method::Penalty => Accountant::Pld.max_iterations(
                crate::privacy::gaussian_pld::penalty_mu(self.penalty.tau, self.n_data, 0.5),
                eps,
                self.delta,
            ),
            Method::DpHmc => {
                let h = &self.dp_hmc;
                Accountant::Pld.max_iterations(
                    crate::privacy::gaussian_pld::hmc_mu(h.tau_l, h.tau_g, h.leapfrog, self.n_data),
                    eps,
                    self.delta,
                )
            }
            Method::DpSgldPublished => self.sgld.published_iterations[e],
            Method::DpSgnht => self.sgnht.published_iterations[e],
            Method::DpSgldCorrected => {
                let p = self.sg(m).map(|s| s.privacy(n)).ok_or_else(|| {
                    ParamError::new("methods", m.as_str(), "a stochastic-gradient method")
                })?;
                self.sgld_account(p.q(), p.dominating_sigma(), 0)
                    .largest_iterations(eps, Conversion::Improved, Some(513))
                    .map_err(|err| ParamError::new("epsilons", eps.to_string(), err.to_string()))?
                    .0
            }
        };
        let per_chain = total / self.chains;
        if per_chain > 100_000_000 {
            let (key, with) = match m {
                Method::Penalty => ("penalty.tau", "penalty.tau".to_string()),
                Method::DpHmc => ("dp_hmc.tau_l", "dp_hmc.tau_l and dp_hmc.tau_g".to_string()),
                _ => (
                    "sgld.clip",
                    "sgld.clip, sgld.eta and sgld.batch".to_string(),
                ),
            };
            return Err(ParamError::new(
                key,
                format!(
                    "{with} at ε = {eps} allow {per_chain} iterations per chain for {}",
                    m.as_str()
                ),
                "noise small enough that the budget allows at most 10⁸ iterations per chain",
            ));
        }
        if total / self.chains < 2 {
            return Err(ParamError::new(
                "epsilons",
                eps.to_string(),
                format!(
                    "an ε whose budget gives {} at least 2 iterations per chain (it allows {total} for {} chains)",
                    m.as_str(),
                    self.chains
                ),
            ));
        }
        Ok(total)
    }

    fn sgld_account(&self, q: f64, sigma: f64, iterations: u64) -> SgldAccount {
        SgldAccount {
            q,
            sigma,
            iterations,
            delta: self.delta,
            // the best order for ε ≥ 0.001 at these δ lies far below (ln(1/δ)/ε + 1 ≲ 512 for ε ≥ 0.05)
            alpha_max: 512,
        }
    }
}

/// Draws from N(0, 1).
fn normal<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    StandardNormal.sample(rng)
}

fn build(target: Target, params: &toml::Table, seed: u64) -> Result<Box<dyn Figure>, ParamError> {
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
    let (problem, exact) = match target {
        Target::Banana => {
            let m = Banana::paper(n, &mut data_rng);
            let (pm, pv) = m.posterior_phi();
            // θ₂ = φ₂ − aφ₁²: E = m₂ − a(m₁² + v₁), Var = v₂ + a²(2v₁² + 4m₁²v₁)
            let mean = vec![pm[0], pm[1] - m.a * (pm[0] * pm[0] + pv[0])];
            let var = vec![
                pv[0],
                pv[1] + m.a * m.a * (2.0 * pv[0] * pv[0] + 4.0 * pm[0] * pm[0] * pv[0]),
            ];
            let reference = (0..c.reference_draws)
                .map(|_| m.posterior_draw(&mut ref_rng).to_vec())
                .collect();
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
    let sd = exact.var.iter().map(|v| v.sqrt()).sum::<f64>() / exact.var.len() as f64;
    let starts = (0..c.repeats)
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
        .collect();
    Ok(Box::new(Comparison {
        target,
        c,
        problem,
        exact,
        iterations,
        starts,
    }))
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

impl Comparison {
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
        let fraction = |x: u64, of: f64| {
            if of > 0.0 {
                Cell::from(x as f64 / of)
            } else {
                Cell::Empty
            }
        };
        let finite = |x: f64| {
            if x.is_finite() {
                Cell::from(x)
            } else {
                Cell::Empty
            }
        };
        vec![
            method.as_str().into(),
            self.c.epsilons[e].into(),
            repeat.into(),
            per_chain.into(),
            pooled.len().into(),
            finite(mmd),
            finite(mean_error),
            finite(var_error),
            finite(rhat),
            fraction(ch.accepted, ch.proposals as f64),
            fraction(ch.clipped_ratios, ch.proposals as f64 * n),
            fraction(ch.clipped_grads, ch.grad_evals as f64),
        ]
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
        Ok(vec![self.score(method, e, r, per_chain, &chains, rng)])
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
            "starts": "θ_true + N(0, I)·(mean exact posterior sd), one keyed stream per repeat, the same for every method and ε (non-private, as the authors)",
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
            parameter("synthetic data", ""),
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

fn ledger(f: &Comparison) -> anyhow::Result<Ledger> {
    let c = &f.c;
    let n = c.n_data as usize;
    let mut out = Vec::new();
    for (mi, &m) in c.methods.iter().enumerate() {
        for (e, &eps) in c.epsilons.iter().enumerate() {
            let total = (f.iterations[mi][e] / c.chains) * c.chains;
            let series = format!("method={}, epsilon={eps}", m.as_str());
            let entry = match (m, c.sg(m)) {
                (_, Some(sg)) => {
                    let p = sg.privacy(n);
                    let spent = c
                        .sgld_account(p.q(), p.dominating_sigma(), total)
                        .entry(series, Conversion::Improved)?;
                    spent.when("a fixed-size batch without replacement under substitution, stated by its dominating Poisson pair with σ = s/(2C) (privacy::sg_mcmc)")
                }
                (Method::Penalty, None) => {
                    gaussian_entry(series, total, c.penalty().event(n), c.delta)
                }
                (_, None) => gaussian_entry(series, total, c.hmc().event(n), c.delta),
            };
            out.push(entry);
        }
    }
    Ok(out)
}

/// T iterations of a Gaussian-composition event at its tight (ε, δ).
fn gaussian_entry(series: String, total: u64, step: Event, delta: f64) -> Entry {
    let event = Event::repeat(total, step);
    let epsilon = crate::privacy::gaussian_pld::event_mu(&event)
        .map(|mu| crate::privacy::gaussian_pld::epsilon(delta, mu))
        .unwrap_or(f64::INFINITY);
    Entry::new(
        series,
        event,
        Guarantee::ApproxDp {
            epsilon,
            delta,
            conversion: Derivation::Pld,
            order: None,
        },
    )
}

/// Per (method, ε): mean and s.e. of each score over repeats, the median and
/// quartiles of the MMD.
fn summarize(data: &Table, methods: &[Method], epsilons: &[f64]) -> anyhow::Result<Table> {
    let col = |n: &str| data.col(n);
    let (m, e, it) = (
        col("method")?,
        col("epsilon")?,
        col("iterations_per_chain")?,
    );
    let score_cols = ["mmd", "mean_error", "var_error", "rhat", "acceptance"]
        .map(col)
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let mut rows = Vec::new();
    for method in methods {
        for &eps in epsilons {
            let all: Vec<usize> = (0..data.rows.len())
                .filter(|&i| data.s(i, m) == method.as_str() && data.f(i, e) == eps)
                .collect();
            let Some(&first) = all.first() else {
                continue;
            };
            // the repeats whose chains produced every score (MMD, mean and variance
            // errors): a diverged chain's repeat is left out of every column, and
            // `runs` counts the repeats kept (a diverged DP-SGNHT chain had left
            // empty moments beside runs = 2)
            let here: Vec<usize> = all
                .iter()
                .copied()
                .filter(|&i| score_cols[..3].iter().all(|&c| data.f(i, c).is_finite()))
                .collect();
            let values = |c: usize| -> Vec<f64> {
                here.iter()
                    .map(|&i| data.f(i, c))
                    .filter(|x| x.is_finite())
                    .collect()
            };
            let moments = |c: usize| -> (Cell, Cell) {
                let mut acc = crate::stats::Moments::default();
                values(c).into_iter().for_each(|x| acc.push(x));
                let cell = |x: f64| {
                    if acc.count > 0 && x.is_finite() {
                        Cell::from(x)
                    } else {
                        Cell::Empty
                    }
                };
                (cell(acc.mean), cell(acc.se()))
            };
            let mut mmd = values(score_cols[0]);
            mmd.sort_by(f64::total_cmp);
            let q = |p: f64| {
                let v = crate::stats::quantile(&mmd, p);
                if v.is_finite() {
                    Cell::from(v)
                } else {
                    Cell::Empty
                }
            };
            let (mmd_mean, mmd_se) = moments(score_cols[0]);
            let (me, me_se) = moments(score_cols[1]);
            let (ve, ve_se) = moments(score_cols[2]);
            let (rh, rh_se) = moments(score_cols[3]);
            let (acc, _) = moments(score_cols[4]);
            rows.push(vec![
                method.as_str().into(),
                eps.into(),
                (data.f(first, it) as u64).into(),
                here.len().into(),
                mmd_mean,
                mmd_se,
                q(0.5),
                q(0.25),
                q(0.75),
                me,
                me_se,
                ve,
                ve_se,
                rh,
                rh_se,
                acc,
            ]);
        }
    }
    Ok(Table::new(&SUMMARY, rows))
}
