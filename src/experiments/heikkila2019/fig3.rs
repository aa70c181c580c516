//! heikkila2019 Figure 3: error of the running posterior mean and variance vs ε
//! spent, DP-MCMC against DP-SGLD (published and corrected noise).

use super::{compose, gmm_record, start_json, Start};
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
use crate::results::draws::KeptDraws;
use crate::results::manifest::DatasetRecord;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use crate::rng::{setup_rng, Purpose};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

mod budgets;

mod config;
mod draws;
mod params;
pub use config::{validate_fig3, validate_with, FIG3_SCHEMA};
use params::Fig3Config;

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

fn sgld_name(noise: crate::dpmcmc::sgld::Noise) -> &'static str {
    match noise {
        crate::dpmcmc::sgld::Noise::Published => "dp_sgld",
        crate::dpmcmc::sgld::Noise::Corrected => "dp_sgld_corrected",
    }
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

impl Fig3 {
    /// The authors' non-private reference chain (C = 1, no clipping): its
    /// post-burn-in draws' running moments.
    /// `kept` sees θ at the same checkpoints as DP-MCMC's (burn-in + k·every).
    fn reference_chain(
        &self,
        rng: &mut ChaCha8Rng,
        kept: &mut dyn FnMut([f64; 2]),
    ) -> anyhow::Result<Running> {
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
                if (t + 1 - self.c.mcmc_burn_in).is_multiple_of(self.c.mcmc_every) {
                    kept(theta);
                }
            }
        }
        Ok(acc)
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
        if self.c.sgld_runs() != self.c.runs {
            out.push(parameter("DP-SGLD runs", self.c.sgld_runs()));
        }
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
            self.c.reference_iterations, self.c.runs, self.c.mcmc_iterations, self.c.sgld_variants.len(), self.c.sgld_runs(), self.c.sgld_iterations
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
        // with keep_draws, θ at each checkpoint (one chain per task), after the rows
        let kept = draws::Trail::new(self.c.keep_draws);
        let mut record = |method: &str, run: u64, t: u64, eps: f64, r: &Running, theta| {
            kept.keep(method, run, theta);
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
                let acc = self.reference_chain(rng, &mut |theta| {
                    kept.keep("nonprivate_chain", 0, Some(theta))
                })?;
                let t = self.c.reference_iterations;
                record("nonprivate_chain", 0, t, f64::INFINITY, &acc, None);
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
                            record("dp_mcmc", run, t, self.mcmc_eps[k], &acc, Some(theta));
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
                                record(
                                    sgld_name(noise),
                                    run,
                                    t,
                                    self.sgld_eps[k],
                                    &acc,
                                    Some(*theta),
                                );
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
                                record(name, run, t, eps[k], &acc, Some(*theta));
                                k += 1;
                            }
                        }
                    })?;
            }
        }
        rows.extend(kept.into_rows());
        Ok(rows)
    }

    fn split_task_rows(&self, rows: Vec<Row>) -> (Vec<Row>, Vec<Row>) {
        draws::split(self.c.keep_draws, rows)
    }

    fn kept_draws(&self, _data: &Table, rows: Vec<Row>) -> anyhow::Result<Option<KeptDraws>> {
        draws::kept(self.c.keep_draws, rows)
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
                let entry = entry.when("minibatches are drawn with replacement and accounted as Poisson subsampling, as the authors; the Poisson pair does not bound a with-replacement batch (sampled_with_replacement_gaussian, docs/privacy.md)");
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
                                sample: None,
                            },
                        ),
                        Guarantee::ApproxDp {
                            epsilon,
                            delta: c.delta_sgld,
                            conversion: Derivation::Pld,
                            order: None,
                        },
                    )
                    .when("minibatches are drawn with replacement and accounted as Poisson subsampling, as the authors; the Poisson pair does not bound a with-replacement batch (sampled_with_replacement_gaussian, docs/privacy.md)"),
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
