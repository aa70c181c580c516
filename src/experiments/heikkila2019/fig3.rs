//! heikkila2019 Figure 3: error of the running posterior mean and variance vs ε
//! spent, DP-MCMC against DP-SGLD (published and corrected noise).

use super::*;
use crate::config::{check, deserialize, ParamError};
use crate::dpmcmc::barker::{nonprivate_step, private_step, PrivateTest, Stats, SubsetSampler};
use crate::dpmcmc::gmm::generate;
use crate::dpmcmc::gmm::Gmm;
use crate::dpmcmc::vcor::VCor;
use crate::experiments::{Deferred, Figure, Plan};
use crate::privacy::accountant::{BarkerAccount, SgldAccount};
use crate::privacy::event::Conversion;
use crate::privacy::event::{Derivation, Event, Guarantee};
use crate::privacy::ledger::{Entry, Ledger};
use crate::results::manifest::DatasetRecord;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use crate::rng::{setup_rng, Purpose};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig3Config {
    n_data: u64,
    batch: u64,
    n0: f64,
    clip_factor: f64,
    proposal_variance: f64,
    runs: u64,
    mcmc_iterations: u64,
    mcmc_burn_in: u64,
    mcmc_every: u64,
    start: StartSpec,
    reference_iterations: u64,
    sgld_iterations: u64,
    sgld_burn_in: u64,
    sgld_every: u64,
    sgld_variants: Vec<crate::dpmcmc::sgld::Noise>,
    delta_mcmc: f64,
    delta_sgld: f64,
    alpha_max_mcmc: u32,
    alpha_max_sgld: u32,
    /// Checkpoints (at most this many, evenly spaced, ending at the last) where the
    /// published DP-SGLD's ε is also computed by the tight PLD accountant: a labelled
    /// extra curve `dp_sgld_tight` in the summary (0: none; the paper's curve is unchanged).
    #[serde(default)]
    sgld_tight_points: u64,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const FIG3_SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Fig3Config>;

/// Chains another figure runs beside Fig. 3's, on the same data and from
/// DP-MCMC's start, recorded and scored like Fig. 3's own (raisa2021/gmm adds
/// the penalty algorithm, DP-HMC and DP-SGNHT through [`validate_with`]). Chain
/// kind `k` indexes [`ExtraChains::names`].
pub trait ExtraChains: Send + Sync {
    /// The chain kinds, in task order (each the `method` of its rows).
    fn names(&self) -> Vec<&'static str>;
    /// The plot's label of the δ the chains are stated at (DP-MCMC's).
    fn delta_label(&self) -> &'static str;
    /// Checks the chains' settings against the data size and δ.
    fn validate(&self, n_data: u64, delta: f64) -> Result<(), ParamError>;
    /// (burn-in, every): the checkpoints are burn-in + k·every.
    fn schedule(&self, k: usize) -> (u64, u64);
    /// ε of chain kind `k` at each checkpoint (the DPVI start not included).
    fn epsilons(&self, k: usize, n_data: u64, delta: f64) -> Result<Vec<f64>, ParamError>;
    /// Estimated flops of one chain on `n_data` records.
    fn cost(&self, k: usize, n_data: u64) -> f64;
    /// Runs one chain from `theta`, calling `after(t, θ)` after each iteration t.
    fn run(
        &self,
        k: usize,
        model: &crate::dpmcmc::gmm::Gmm,
        theta: &mut [f64; 2],
        rng: &mut ChaCha8Rng,
        after: &mut dyn FnMut(u64, &[f64; 2]),
    ) -> anyhow::Result<()>;
    /// The ledger entries of chain kind `k`, one per checkpoint (the DPVI start is
    /// composed in by Fig. 3).
    fn entries(&self, k: usize, n_data: u64, delta: f64) -> anyhow::Result<Vec<Entry>>;
    /// The manifest's `added_chains` details.
    fn manifest(&self) -> serde_json::Value;
}

/// Fig. 3 as the paper has it: no added chains.
struct NoExtraChains;

impl ExtraChains for NoExtraChains {
    fn names(&self) -> Vec<&'static str> {
        Vec::new()
    }
    fn delta_label(&self) -> &'static str {
        ""
    }
    fn validate(&self, _: u64, _: f64) -> Result<(), ParamError> {
        Ok(())
    }
    fn schedule(&self, _: usize) -> (u64, u64) {
        (0, 1)
    }
    fn epsilons(&self, _: usize, _: u64, _: f64) -> Result<Vec<f64>, ParamError> {
        Ok(Vec::new())
    }
    fn cost(&self, _: usize, _: u64) -> f64 {
        0.0
    }
    fn run(
        &self,
        _: usize,
        _: &crate::dpmcmc::gmm::Gmm,
        _: &mut [f64; 2],
        _: &mut ChaCha8Rng,
        _: &mut dyn FnMut(u64, &[f64; 2]),
    ) -> anyhow::Result<()> {
        Ok(())
    }
    fn entries(&self, _: usize, _: u64, _: f64) -> anyhow::Result<Vec<Entry>> {
        Ok(Vec::new())
    }
    fn manifest(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
}

#[derive(Debug, Clone, Copy)]
enum Fig3Task {
    /// the non-private reference chain
    Reference,
    Mcmc {
        run: u64,
    },
    Sgld {
        noise: crate::dpmcmc::sgld::Noise,
        run: u64,
    },
    /// an added chain of kind `k` ([`ExtraChains`])
    Extra {
        k: usize,
        run: u64,
    },
}

/// Error of the running posterior mean and variance vs ε spent (Figure 3).
pub struct Fig3 {
    data: crate::numeric::pages::HugePageSlice,
    test: PrivateTest,
    proposal_sd: f64,
    start: Start,
    c: Fig3Config,
    tasks: Vec<Fig3Task>,
    exact: crate::dpmcmc::gmm::Moments2,
    mcmc_eps: Vec<f64>,
    sgld_eps: Vec<f64>,
    /// (iteration, tight ε) of the published DP-SGLD at the tight checkpoints.
    sgld_tight: Vec<(u64, f64)>,
    /// added chains ([`ExtraChains`]) and their ε (DPVI's included) per checkpoint,
    /// one list per chain kind
    extra: Box<dyn ExtraChains>,
    extra_eps: Vec<Vec<f64>>,
}

impl Fig3Config {
    /// The DP-MCMC checkpoints: the burn-in plus every `mcmc_every` iterations.
    fn mcmc_checkpoints(&self) -> Vec<u64> {
        (1..=(self.mcmc_iterations - self.mcmc_burn_in) / self.mcmc_every)
            .map(|k| self.mcmc_burn_in + k * self.mcmc_every)
            .collect()
    }

    /// The DP-SGLD checkpoints: the burn-in plus every `sgld_every` steps.
    fn sgld_checkpoints(&self) -> Vec<u64> {
        (1..=(self.sgld_iterations - self.sgld_burn_in) / self.sgld_every)
            .map(|k| self.sgld_burn_in + k * self.sgld_every)
            .collect()
    }

    /// The DP-MCMC chain's accounting question (T given per call).
    fn mcmc_account(&self) -> BarkerAccount {
        BarkerAccount {
            n_data: self.n_data,
            batch: self.batch,
            iterations: 0,
            delta: self.delta_mcmc,
            alpha_max: self.alpha_max_mcmc,
        }
    }

    /// The published DP-SGLD's accounting question (T given per call).
    fn sgld_account(&self) -> SgldAccount {
        let sgld = crate::dpmcmc::sgld::Sgld::paper(crate::dpmcmc::sgld::Noise::Published);
        SgldAccount {
            q: sgld.batch as f64 / self.n_data as f64,
            sigma: sgld.noise_multiplier(self.n_data as usize),
            iterations: 0,
            delta: self.delta_sgld,
            alpha_max: self.alpha_max_sgld,
        }
    }
}

fn sgld_name(noise: crate::dpmcmc::sgld::Noise) -> &'static str {
    match noise {
        crate::dpmcmc::sgld::Noise::Published => "dp_sgld",
        crate::dpmcmc::sgld::Noise::Corrected => "dp_sgld_corrected",
    }
}

pub fn validate_fig3(params: &toml::Table, seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    validate_with(params, seed, Box::new(NoExtraChains))
}

/// Fig. 3 with chains another figure adds ([`ExtraChains`]).
pub fn validate_with(
    params: &toml::Table,
    seed: u64,
    extra: Box<dyn ExtraChains>,
) -> Result<Box<dyn Plan>, ParamError> {
    let c: Fig3Config = deserialize(params)?;
    check::positive("n0", c.n0)?;
    check_proposal("proposal_variance", c.proposal_variance)?;
    check::at_least("runs", c.runs, 1)?;
    check::at_least("mcmc_every", c.mcmc_every, 1)?;
    check::at_least("sgld_every", c.sgld_every, 1)?;
    check::at_least("reference_iterations", c.reference_iterations, 2)?;
    for (method, burn_in, iterations) in [
        ("mcmc", c.mcmc_burn_in, c.mcmc_iterations),
        ("sgld", c.sgld_burn_in, c.sgld_iterations),
    ] {
        if burn_in >= iterations {
            return Err(ParamError::new(
                format!("{method}_burn_in"),
                format!(
                    "{method}_burn_in = {burn_in} is not below {method}_iterations = {iterations}"
                ),
                format!("{method}_burn_in < {method}_iterations"),
            ));
        }
    }
    let test = private_test(["batch", "n_data"], c.n_data, c.batch, c.n0, c.clip_factor)?;
    check_start(&c.start)?;
    // each tight checkpoint costs a privacy-loss-distribution evaluation (seconds)
    if c.sgld_tight_points > MAX_TIGHT_POINTS {
        return Err(ParamError::new(
            "sgld_tight_points",
            format!("{}", c.sgld_tight_points),
            format!("0 to {MAX_TIGHT_POINTS} checkpoints (each a tight-accountant evaluation of about a second)"),
        ));
    }
    // δ below 1e-20 is beyond what the tight accountant resolves (it fails, after
    // seconds of work at 1e-300); both chains' δ share the floor
    for (key, delta) in [("delta_mcmc", c.delta_mcmc), ("delta_sgld", c.delta_sgld)] {
        check::within(
            key,
            delta,
            1e-20,
            0.5,
            "no accountant here resolves a smaller δ; a larger one guarantees nothing",
        )?;
    }
    // the accounting questions, before any data is made (cheap: one count each)
    check_alpha_max("alpha_max_mcmc", c.alpha_max_mcmc, 4)?;
    check_alpha_max("alpha_max_sgld", c.alpha_max_sgld, 2)?;
    c.mcmc_account()
        .curve(&[c.mcmc_iterations], Conversion::Classic)
        .map_err(|e| account_error(e, "_mcmc"))?;
    c.sgld_account()
        .curve(&[c.sgld_iterations], Conversion::Classic)
        .map_err(|e| account_error(e, "_sgld"))?;
    // the tight accountant at the last checkpoint (the largest T, where it fails first)
    if c.sgld_tight_points > 0 {
        let last =
            c.sgld_burn_in + (c.sgld_iterations - c.sgld_burn_in) / c.sgld_every * c.sgld_every;
        tight_sgld_curve(&c, &[last])?;
    }
    extra.validate(c.n_data, c.delta_mcmc)?;
    let added_names: String = extra.names().iter().map(|m| format!(" + {m}")).collect();
    let description = format!(
        "reference chain + {} runs × (DP-MCMC of {} iterations + {} DP-SGLD variants of {} steps{added_names}) = {} tasks (data and start made at run time)",
        c.runs,
        c.mcmc_iterations,
        c.sgld_variants.len(),
        c.sgld_iterations,
        1 + c.runs * (1 + c.sgld_variants.len() as u64 + extra.names().len() as u64)
    );
    Ok(Box::new(Deferred {
        description,
        config: (c, seed, test, extra),
        prepare: |(c, seed, test, extra)| prepare_fig3(c, seed, test, extra),
    }))
}

/// Generates the data, fits the start and accounts every checkpoint.
fn prepare_fig3(
    c: Fig3Config,
    seed: u64,
    test: PrivateTest,
    extra: Box<dyn ExtraChains>,
) -> Result<Box<dyn Figure>, ParamError> {
    let data = crate::numeric::pages::HugePageSlice::new(&generate(
        c.n_data as usize,
        &mut setup_rng(seed, Purpose::SharedData),
    ));
    let start = resolve_start(&c.start, &data, seed)?;
    // ε after the burn-in plus t recorded iterations, at every checkpoint (plus DPVI's, composed)
    let mcmc_eps = c
        .mcmc_account()
        .curve(&c.mcmc_checkpoints(), Conversion::Classic)
        .map_err(|e| account_error(e, "_mcmc"))?
        .iter()
        .map(|s| s.epsilon + start.dpvi_epsilon())
        .collect();
    let sgld_t = c.sgld_checkpoints();
    let sgld_eps = c
        .sgld_account()
        .curve(&sgld_t, Conversion::Classic)
        .map_err(|e| account_error(e, "_sgld"))?
        .iter()
        .map(|s| s.epsilon)
        .collect();
    let sgld_tight = tight_sgld_curve(&c, &sgld_t)?;
    let mut tasks = vec![Fig3Task::Reference];
    tasks.extend((0..c.runs).map(|run| Fig3Task::Mcmc { run }));
    for &noise in &c.sgld_variants {
        tasks.extend((0..c.runs).map(|run| Fig3Task::Sgld { noise, run }));
    }
    let mut extra_eps = Vec::new();
    for k in 0..extra.names().len() {
        tasks.extend((0..c.runs).map(|run| Fig3Task::Extra { k, run }));
        let eps = extra.epsilons(k, c.n_data, c.delta_mcmc)?;
        extra_eps.push(eps.iter().map(|e| e + start.dpvi_epsilon()).collect());
    }
    let exact = crate::dpmcmc::gmm::exact_posterior(&data, c.n0, 0.01, 161);
    Ok(Box::new(Fig3 {
        extra,
        extra_eps,
        test,
        proposal_sd: c.proposal_variance.sqrt(),
        start,
        data,
        tasks,
        exact,
        mcmc_eps,
        sgld_eps,
        sgld_tight,
        c,
    }))
}

/// Most checkpoints of the tight DP-SGLD curve.
const MAX_TIGHT_POINTS: u64 = 1000;

/// The tight checkpoints: at most `sgld_tight_points` of `sgld_t`, evenly spaced and
/// ending at the last.
fn tight_checkpoints(c: &Fig3Config, sgld_t: &[u64]) -> Vec<u64> {
    let k = (c.sgld_tight_points as usize).min(sgld_t.len());
    if k == 0 {
        return Vec::new();
    }
    let stride = sgld_t.len().div_ceil(k);
    let mut out: Vec<u64> = sgld_t.iter().rev().step_by(stride).copied().collect();
    out.reverse();
    out
}

/// ε of the published DP-SGLD by the tight PLD accountant (privacy::pld, default
/// slack) at the tight checkpoints, computed in parallel (each value is independent).
fn tight_sgld_curve(c: &Fig3Config, sgld_t: &[u64]) -> Result<Vec<(u64, f64)>, ParamError> {
    use rayon::prelude::*;
    let sgld = crate::dpmcmc::sgld::Sgld::paper(crate::dpmcmc::sgld::Noise::Published);
    let q = sgld.batch as f64 / c.n_data as f64;
    let sigma = sgld.noise_multiplier(c.n_data as usize);
    tight_checkpoints(c, sgld_t)
        .par_iter()
        .map(|&t| {
            crate::privacy::pld::poisson_gaussian_epsilon(
                q,
                sigma,
                t,
                c.delta_sgld,
                &crate::privacy::pld::PldOptions::default(),
            )
            .map(|e| (t, e.epsilon))
            .map_err(|e| {
                ParamError::new(
                    "delta_sgld",
                    format!("the tight (PLD) accountant at T = {t}: {e}"),
                    "a δ the tight accountant resolves (e.g. 1e-6), or sgld_tight_points = 0 for no tight curve",
                )
            })
        })
        .collect()
}

/// A row of `data.csv`: one chain's running posterior moments at a checkpoint
/// (empty where a diverged chain has none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fig3Row {
    pub method: String,
    pub run: u64,
    pub iteration: u64,
    /// ε spent after the burn-in plus `iteration` recorded iterations
    pub epsilon: f64,
    pub mean1: Option<f64>,
    pub mean2: Option<f64>,
    pub var1: Option<f64>,
    pub var2: Option<f64>,
}

/// A row of `summary.csv`: per (method, checkpoint, parameter, reference) the
/// mean ± s.e. over runs of |running moment − reference|.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fig3Summary {
    pub method: String,
    /// `exact` (the tempered posterior by quadrature) or `nonprivate_chain`
    pub reference: String,
    pub iteration: u64,
    pub epsilon: f64,
    /// `theta1` or `theta2`
    pub parameter: String,
    pub mean_error: Option<f64>,
    pub mean_error_se: Option<f64>,
    pub var_error: Option<f64>,
    pub var_error_se: Option<f64>,
    /// runs with finite moments
    pub runs: u64,
}

/// Running mean and variance of a 2-d sample stream.
#[derive(Default)]
struct Running {
    n: f64,
    s: [f64; 2],
    ss: [f64; 2],
}

impl Running {
    fn push(&mut self, t: [f64; 2]) {
        self.n += 1.0;
        for ((s, ss), x) in self.s.iter_mut().zip(self.ss.iter_mut()).zip(t) {
            *s += x;
            *ss += x * x;
        }
    }
    fn moments(&self) -> ([f64; 2], [f64; 2]) {
        let m = [self.s[0] / self.n, self.s[1] / self.n];
        (
            [m[0], m[1]],
            [
                self.ss[0] / self.n - m[0] * m[0],
                self.ss[1] / self.n - m[1] * m[1],
            ],
        )
    }
}

impl Figure for Fig3 {
    fn parameters(&self) -> Vec<(String, String)> {
        use crate::experiments::parameter;
        // the δ each plotted ε is at, as the ledger states it: DP-MCMC's ε is the
        // chain composed with its DPVI start, so their δs add up
        let mcmc_delta = match self.start.dpvi_entry() {
            Ok(Some(start)) => {
                let start_delta = start.guarantee.epsilon_delta().1;
                format!(
                    "{:e} (chain {:e} + DPVI start {:e})",
                    self.c.delta_mcmc + start_delta,
                    self.c.delta_mcmc,
                    start_delta
                )
            }
            _ => format!("{:e}", self.c.delta_mcmc),
        };
        let mut out = vec![
            parameter("synthetic GMM data, N", self.c.n_data),
            parameter("batch b", self.test.batch),
            parameter("DP-MCMC δ", mcmc_delta.clone()),
            parameter("DP-SGLD δ", format!("{:e}", self.c.delta_sgld)),
            parameter("runs", self.c.runs),
        ];
        if !self.extra.names().is_empty() {
            // the added chains start where DP-MCMC does and are stated at its δ
            out.insert(4, parameter(self.extra.delta_label(), mcmc_delta));
        }
        out
    }

    fn task_count(&self) -> usize {
        self.tasks.len()
    }

    fn grid_description(&self) -> String {
        format!(
            "reference chain ({} it.), {} DP-MCMC runs × {} it., {} DP-SGLD variant(s) × {} runs × {} it.",
            self.c.reference_iterations, self.c.runs, self.c.mcmc_iterations, self.c.sgld_variants.len(), self.c.runs, self.c.sgld_iterations
        )
    }

    /// Per iteration a minibatch of log-likelihood terms (≈ 80 flops a point;
    /// the non-private chain's sequential test can grow its batch, counted at
    /// twice the batch); DP-SGLD: a clipped gradient per point (≈ 40 flops).
    fn task_cost(&self, index: usize) -> f64 {
        let batch = self.test.batch as f64;
        match self.tasks[index] {
            Fig3Task::Reference => self.c.reference_iterations as f64 * 2.0 * batch * 80.0,
            Fig3Task::Mcmc { .. } => self.c.mcmc_iterations as f64 * batch * 80.0,
            Fig3Task::Sgld { noise, .. } => {
                self.c.sgld_iterations as f64
                    * crate::dpmcmc::sgld::Sgld::paper(noise).batch as f64
                    * 40.0
            }
            Fig3Task::Extra { k, .. } => self.extra.cost(k, self.c.n_data),
        }
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        use rand_distr::{Distribution, StandardNormal};
        let mut rows = Vec::new();
        // a diverged chain (an added chain's step too large) has no finite moment:
        // its cells are empty, and the summary counts the runs that have one
        let finite = |x: f64| x.is_finite().then_some(x);
        let mut record = |method: &str, run: u64, t: u64, eps: f64, r: &Running| {
            let (m, v) = r.moments();
            rows.push(to_row(&Fig3Row {
                method: method.into(),
                run,
                iteration: t,
                epsilon: eps,
                mean1: finite(m[0]),
                mean2: finite(m[1]),
                var1: finite(v[0]),
                var2: finite(v[1]),
            }));
        };
        match self.tasks[index] {
            Fig3Task::Reference => {
                let vcor = VCor::stored(1.0)
                    .ok_or("no V_cor table for C = 1")
                    .map_err(anyhow::Error::msg)?;
                let mut subsets = SubsetSampler::new(self.data.len());
                let model = Gmm::untempered(&self.data);
                let (mut theta, mut stats, mut acc) =
                    (self.start.theta, Stats::default(), Running::default());
                for t in 0..self.c.reference_iterations {
                    nonprivate_step(
                        &model,
                        &mut subsets,
                        &mut theta,
                        self.proposal_sd,
                        self.test.batch,
                        self.test.n0,
                        &vcor,
                        &mut stats,
                        rng,
                    )?;
                    if t >= self.c.mcmc_burn_in {
                        acc.push(theta);
                    }
                }
                record(
                    "nonprivate_chain",
                    0,
                    self.c.reference_iterations,
                    f64::INFINITY,
                    &acc,
                );
            }
            Fig3Task::Mcmc { run } => {
                let vcor = VCor::stored(2.0)
                    .ok_or("no V_cor table for C = 2")
                    .map_err(anyhow::Error::msg)?;
                let mut subsets = SubsetSampler::new(self.data.len());
                let model = Gmm::untempered(&self.data);
                let (mut theta, mut stats, mut acc) =
                    (self.start.theta, Stats::default(), Running::default());
                let mut k = 0;
                for t in 1..=self.c.mcmc_iterations {
                    private_step(
                        &model,
                        &mut subsets,
                        &mut theta,
                        self.proposal_sd,
                        &self.test,
                        &vcor,
                        &mut stats,
                        rng,
                    )?;
                    if t > self.c.mcmc_burn_in {
                        acc.push(theta);
                        if (t - self.c.mcmc_burn_in).is_multiple_of(self.c.mcmc_every) {
                            record("dp_mcmc", run, t, self.mcmc_eps[k], &acc);
                            k += 1;
                        }
                    }
                }
            }
            Fig3Task::Sgld { noise, run } => {
                let sgld = crate::dpmcmc::sgld::Sgld {
                    n0: self.c.n0,
                    ..crate::dpmcmc::sgld::Sgld::paper(noise)
                };
                let mut theta = [StandardNormal.sample(rng), StandardNormal.sample(rng)];
                let mut acc = Running::default();
                let mut k = 0;
                let (burn_in, every) = (self.c.sgld_burn_in, self.c.sgld_every);
                sgld.run(
                    &Gmm::new(&self.data, sgld.n0),
                    &mut theta,
                    self.c.sgld_iterations,
                    rng,
                    |t, theta, _| {
                        if t > burn_in {
                            acc.push(*theta);
                            if (t - burn_in).is_multiple_of(every) {
                                record(sgld_name(noise), run, t, self.sgld_eps[k], &acc);
                                k += 1;
                            }
                        }
                    },
                );
            }
            Fig3Task::Extra { k: kind, run } => {
                let name = self.extra.names()[kind];
                let (burn_in, every) = self.extra.schedule(kind);
                let eps = &self.extra_eps[kind];
                let model = Gmm::new(&self.data, self.c.n0);
                let (mut theta, mut acc, mut k) = (self.start.theta, Running::default(), 0);
                self.extra
                    .run(kind, &model, &mut theta, rng, &mut |t, theta| {
                        if t > burn_in {
                            acc.push(*theta);
                            if (t - burn_in).is_multiple_of(every) {
                                record(name, run, t, eps[k], &acc);
                                k += 1;
                            }
                        }
                    })?;
            }
        }
        Ok(rows)
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let rows: Vec<Fig3Row> = data.records()?;
        let moments =
            |r: &Fig3Row| [r.mean1, r.mean2, r.var1, r.var2].map(|x| x.unwrap_or(f64::NAN));
        let chain_ref = rows
            .iter()
            .find(|r| r.method == "nonprivate_chain")
            .map(moments);
        let exact = [
            self.exact.mean[0],
            self.exact.mean[1],
            self.exact.var[0],
            self.exact.var[1],
        ];
        let mut references = vec![("exact", exact)];
        if let Some(r) = chain_ref {
            references.push(("nonprivate_chain", r));
        }
        // group rows by (method, iteration) in first-seen order
        let mut keys: Vec<(&str, u64)> = Vec::new();
        let mut groups: std::collections::HashMap<(&str, u64), Vec<&Fig3Row>> = Default::default();
        for r in rows.iter().filter(|r| r.method != "nonprivate_chain") {
            let key = (r.method.as_str(), r.iteration);
            groups
                .entry(key)
                .or_insert_with(|| {
                    keys.push(key);
                    Vec::new()
                })
                .push(r);
        }
        let mut out = Vec::new();
        for (name, reference) in &references {
            for key in &keys {
                let group = &groups[key];
                for (p, param) in ["theta1", "theta2"].iter().enumerate() {
                    let mut me = crate::stats::Moments::default();
                    let mut ve = crate::stats::Moments::default();
                    for r in group {
                        let x = moments(r);
                        let (m, v) = (x[p], x[2 + p]);
                        if m.is_finite() && v.is_finite() {
                            me.push((m - reference[p]).abs());
                            ve.push((v - reference[2 + p]).abs());
                        }
                    }
                    let stat = |x: f64| (me.count > 0 && x.is_finite()).then_some(x);
                    out.push(Fig3Summary {
                        method: key.0.to_string(),
                        reference: name.to_string(),
                        iteration: key.1,
                        epsilon: group[0].epsilon,
                        parameter: param.to_string(),
                        mean_error: stat(me.mean),
                        mean_error_se: stat(me.se()),
                        var_error: stat(ve.mean),
                        var_error_se: stat(ve.se()),
                        runs: me.count,
                    });
                }
            }
        }
        // the labelled tight-accounting variant: the published DP-SGLD's rows at the
        // tight checkpoints, with the PLD ε
        let tight: std::collections::HashMap<u64, f64> = self.sgld_tight.iter().copied().collect();
        let extra: Vec<Fig3Summary> = out
            .iter()
            .filter(|r| r.method == "dp_sgld")
            .filter_map(|r| {
                let e = tight.get(&r.iteration)?;
                Some(Fig3Summary {
                    method: "dp_sgld_tight".into(),
                    epsilon: *e,
                    ..r.clone()
                })
            })
            .collect();
        out.extend(extra);
        Ok(Table::of_records(&out))
    }

    fn datasets(&self) -> Vec<DatasetRecord> {
        vec![gmm_record(&self.data)]
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        let c = &self.c;
        let mut out = vec![Entry::new(
            "method=nonprivate_chain",
            Event::NonPrivate,
            Guarantee::None,
        )];
        let dpvi = self.start.dpvi_entry()?;
        let mcmc_t = c.mcmc_checkpoints();
        let chains = c
            .mcmc_account()
            .entries(&mcmc_t, Conversion::Classic, |_| "DP-MCMC chain".into())?;
        for (t, chain) in mcmc_t.iter().zip(chains) {
            out.push(compose(
                format!("method=dp_mcmc, iteration={t}"),
                chain,
                &dpvi,
            ));
        }
        let sgld_t = c.sgld_checkpoints();
        let account = c.sgld_account();
        for &noise in &c.sgld_variants {
            let name = sgld_name(noise);
            for entry in account.entries(&sgld_t, Conversion::Classic, |t| {
                format!("method={name}, iteration={t}")
            })? {
                let entry = entry.when("minibatches are drawn with replacement and accounted as Poisson subsampling, as the authors");
                out.push(match noise {
                    crate::dpmcmc::sgld::Noise::Published => entry,
                    crate::dpmcmc::sgld::Noise::Corrected => entry.when("this variant adds noise of variance 2h, √2 times the accounted σ: the claim is conservative"),
                });
            }
        }
        for k in 0..self.extra.names().len() {
            for chain in self.extra.entries(k, c.n_data, c.delta_mcmc)? {
                let series = chain.series.clone();
                out.push(compose(series, chain, &dpvi));
            }
        }
        if c.sgld_variants
            .contains(&crate::dpmcmc::sgld::Noise::Published)
        {
            for &(t, epsilon) in &self.sgld_tight {
                out.push(
                    Entry::new(
                        format!("method=dp_sgld_tight, iteration={t}"),
                        Event::repeat(
                            t,
                            Event::PoissonSubsampledGaussian {
                                q: account.q,
                                sigma: account.sigma,
                            },
                        ),
                        Guarantee::ApproxDp {
                            epsilon,
                            delta: c.delta_sgld,
                            conversion: Derivation::Pld,
                            order: None,
                        },
                    )
                    .when("minibatches are drawn with replacement and accounted as Poisson subsampling, as the authors"),
                );
            }
        }
        Ok(out)
    }

    fn manifest_details(&self) -> serde_json::Value {
        let mut details = serde_json::json!({
            "exact_tempered_posterior": { "mean": self.exact.mean, "var": self.exact.var, "corr": self.exact.corr },
            "dp_mcmc": { "epsilon": "classic conversion after (burn-in + t) iterations, composed with the DPVI initialisation (see the ledger)", "delta": self.c.delta_mcmc, "start": start_json(&self.start) },
            "dp_sgld": { "epsilon": "Poisson-subsampled Gaussian, classic conversion, after (burn-in + t) steps", "delta": self.c.delta_sgld, "start": "θ₀ ~ N(0, I)", "variants": self.c.sgld_variants.iter().map(|v| sgld_name(*v)).collect::<Vec<_>>() },
            "dp_sgld_tight": { "epsilon": "the published DP-SGLD's rows re-plotted at its tight ε (privacy-loss distribution, an upper bound with slack 0.005; privpost account --mechanism sgld)", "checkpoints": self.sgld_tight },
            "errors": "|running moment − reference| per coordinate; mean and standard error over runs",
        });
        if let (false, Some(map)) = (self.extra.names().is_empty(), details.as_object_mut()) {
            map.insert("added_chains".into(), self.extra.manifest());
        }
        details
    }
}
