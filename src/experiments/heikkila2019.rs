//! heikkila2019-dp-mcmc Figure 1: (a) total ε vs q and (b) vs T from the
//! accountant of Theorem 2 / Corollary 2; (c) the fraction of clipped
//! log-likelihood ratios vs the proposal variance, from private chains on the GMM
//! problem. The chains start at `start`: "dpvi" (our DPVI fit, as the authors ran
//! it, its cost composed into the ledger) or a fixed point.

use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

use crate::dpmcmc::barker::{
    nonprivate_step, private_step, Gmm, PrivateTest, Stats, SubsetSampler,
};
use crate::dpmcmc::gmm::generate;
use crate::dpmcmc::vcor::VCor;
use crate::results::table::Cell;
use crate::rng::{setup_rng, Purpose};

use super::{Deferred, Figure, Plan};
use crate::config::{check, deserialize, ParamError};
use crate::privacy::ledger::{Entry, Event, Guarantee, Ledger};
use crate::privacy::rdp::{BarkerAccount, Conversion, SgldAccount};
use crate::results::manifest::DatasetRecord;
use crate::results::table::{Row, Table};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig1Config {
    panels: Vec<String>,
    conversions: Vec<Conversion>,
    alpha_max: u32,
    // (a)
    n_data_a: Vec<u64>,
    q_min: f64,
    q_max: f64,
    q_points: u64,
    iterations_a: u64,
    // (b)
    q_b: f64,
    batches_b: Vec<u64>,
    t_min: u64,
    t_max: u64,
    t_step: u64,
    // (c)
    proposal_variances: Vec<f64>,
    chain_iterations: u64,
    start: StartSpec,
    n_data_c: u64,
    batch_c: u64,
    n0: f64,
    clip_factor: f64,
}

/// Panel (c): private chains on the GMM data, one per proposal variance.
struct Clipping {
    /// the chains' accounting (δ = 1/N, as panel (a))
    account: BarkerAccount,
    data: Vec<f64>,
    variances: Vec<f64>,
    iterations: u64,
    start: Start,
    test: PrivateTest,
    vcor: VCor,
}

/// One curve: its accounts (one per x value) and the x values' iteration counts.
struct Curve {
    panel: &'static str,
    accounts: Vec<BarkerAccount>,
    iterations: Vec<u64>,
}

pub struct Fig1 {
    conversions: Vec<Conversion>,
    curves: Vec<Curve>,
    clipping: Option<Clipping>,
}

pub fn validate_fig1(params: &toml::Table, seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let c: Fig1Config = deserialize(params)?;
    let mut clipping = None;
    check::non_empty("panels", &c.panels)?;
    check::non_empty("conversions", &c.conversions)?;
    check::at_least("alpha_max", c.alpha_max as u64, 4)?;
    let mut curves = Vec::new();
    for p in &c.panels {
        match p.as_str() {
            "a" => {
                check::non_empty("n_data_a", &c.n_data_a)?;
                check::at_least("q_points", c.q_points, 2)?;
                check::at_least("iterations_a", c.iterations_a, 1)?;
                if !(c.q_min > 0.0 && c.q_min < c.q_max && c.q_max <= 1.0) {
                    return Err(ParamError::new(
                        "q_min",
                        format!("q range [{}, {}]", c.q_min, c.q_max),
                        "0 < q_min < q_max ≤ 1",
                    ));
                }
                for &n in &c.n_data_a {
                    let accounts = (0..c.q_points)
                        .map(|i| {
                            let q =
                                c.q_min + (c.q_max - c.q_min) * i as f64 / (c.q_points - 1) as f64;
                            let acc = BarkerAccount {
                                n_data: n,
                                batch: (q * n as f64 + 1e-9).floor() as u64,
                                iterations: c.iterations_a,
                                delta: 1.0 / n as f64,
                                alpha_max: c.alpha_max,
                            };
                            acc.validate().map(|_| acc).map_err(|e| {
                                ParamError::new(
                                    "n_data_a",
                                    e.to_string(),
                                    "N with b = ⌊qN⌋ ≥ 21 over the q range",
                                )
                            })
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    curves.push(Curve {
                        panel: "a",
                        iterations: vec![c.iterations_a; accounts.len()],
                        accounts,
                    });
                }
            }
            "b" => {
                check::non_empty("batches_b", &c.batches_b)?;
                check::at_least("t_min", c.t_min, 1)?;
                check::at_least("t_step", c.t_step, 1)?;
                if c.t_max < c.t_min {
                    return Err(ParamError::new(
                        "t_max",
                        format!("{} < t_min", c.t_max),
                        "t_max ≥ t_min",
                    ));
                }
                if !(c.q_b > 0.0 && c.q_b <= 1.0) {
                    return Err(ParamError::new("q_b", format!("{}", c.q_b), "0 < q ≤ 1"));
                }
                let iterations: Vec<u64> = (c.t_min..=c.t_max).step_by(c.t_step as usize).collect();
                for &b in &c.batches_b {
                    let n = (b as f64 / c.q_b).round() as u64;
                    let acc = BarkerAccount {
                        n_data: n,
                        batch: b,
                        iterations: 0,
                        delta: 1.0 / n as f64,
                        alpha_max: c.alpha_max,
                    };
                    acc.validate().map_err(|e| {
                        ParamError::new("batches_b", e.to_string(), "batches ≥ 21 (Theorem 2)")
                    })?;
                    curves.push(Curve {
                        panel: "b",
                        accounts: vec![acc],
                        iterations: iterations.clone(),
                    });
                }
            }
            "c" => {
                check::non_empty("proposal_variances", &c.proposal_variances)?;
                for &v in &c.proposal_variances {
                    check::positive("proposal_variances", v)?;
                }
                check::at_least("chain_iterations", c.chain_iterations, 1)?;
                let test = private_test("batch_c", c.n_data_c, c.batch_c, c.n0, c.clip_factor)?;
                let vcor = VCor::stored(2.0).ok_or_else(|| {
                    ParamError::new(
                        "panels",
                        "no V_cor table for C = 2",
                        "run `privpost vcor --write`",
                    )
                })?;
                check_start(&c.start)?;
                clipping = Some(ClippingPlan {
                    account: BarkerAccount {
                        n_data: c.n_data_c,
                        batch: c.batch_c,
                        iterations: c.chain_iterations,
                        delta: 1.0 / c.n_data_c as f64,
                        alpha_max: c.alpha_max,
                    },
                    n_data: c.n_data_c,
                    start: c.start.clone(),
                    variances: c.proposal_variances.clone(),
                    iterations: c.chain_iterations,
                    test,
                    vcor,
                });
            }
            other => {
                return Err(ParamError::new(
                    "panels",
                    format!("unknown panel \"{other}\""),
                    "[\"a\", \"b\", \"c\"]",
                ))
            }
        }
    }
    let points: usize = curves.iter().map(|c| c.iterations.len()).sum();
    let description = format!(
        "{} budget points × {} conversions{}",
        points,
        c.conversions.len(),
        clipping.as_ref().map_or(String::new(), |p| format!(
            "; (c) {} private chains of {} iterations (data and start made at run time)",
            p.variances.len(),
            p.iterations
        ))
    );
    let (conversions, seed) = (c.conversions, seed);
    Ok(Box::new(Deferred {
        description,
        config: (conversions, curves, clipping, seed),
        prepare: |(conversions, curves, clipping, seed)| {
            let clipping = match clipping {
                Some(p) => {
                    let data =
                        generate(p.n_data as usize, &mut setup_rng(seed, Purpose::SharedData));
                    let start = resolve_start(&p.start, &data, seed)?;
                    Some(Clipping {
                        account: p.account,
                        data,
                        variances: p.variances,
                        iterations: p.iterations,
                        start,
                        test: p.test,
                        vcor: p.vcor,
                    })
                }
                None => None,
            };
            Ok(Box::new(Fig1 {
                conversions,
                curves,
                clipping,
            }))
        },
    }))
}

/// Panel (c) before its data are generated and its start fitted.
struct ClippingPlan {
    account: BarkerAccount,
    n_data: u64,
    start: StartSpec,
    variances: Vec<f64>,
    iterations: u64,
    test: PrivateTest,
    vcor: VCor,
}

/// The private test of the paper's set-up (C = 2) from validated config values;
/// `key` names the batch key in error messages.
fn private_test(
    key: &str,
    n_data: u64,
    batch: u64,
    n0: f64,
    clip_factor: f64,
) -> Result<PrivateTest, ParamError> {
    check::positive("n0", n0)?;
    if !(clip_factor > 0.0 && clip_factor <= 1.0) {
        return Err(ParamError::new(
            "clip_factor",
            format!("{clip_factor}"),
            "0 < clip_factor ≤ 1 (clip = clip_factor·√b/N₀, eq. 23)",
        ));
    }
    if batch < 21 || batch > n_data || n_data > 100_000_000 {
        return Err(ParamError::new(
            key,
            format!("b = {batch}, N = {n_data}"),
            "21 ≤ b ≤ N ≤ 10⁸",
        ));
    }
    Ok(PrivateTest {
        batch: batch as usize,
        n0,
        clip: clip_factor * (batch as f64).sqrt() / n0,
        c: 2.0,
    })
}

/// The manifest record of the synthetic GMM data.
fn gmm_record(data: &[f64]) -> DatasetRecord {
    DatasetRecord {
        name: "gmm".into(),
        files: Vec::new(),
        sha256: Vec::new(),
        rows: data.len(),
        source: serde_json::json!({
            "generator": "xᵢ ~ ½N(θ₁, 2) + ½N(θ₁ + θ₂, 2) at θ = (0, 1) (Welling & Teh 2011)",
            "rng": "set-up stream SharedData of the config seed",
        }),
    }
}

/// `start = "dpvi"` or `start = [θ₁, θ₂]` in a config.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum StartSpec {
    Point(Vec<f64>),
    Method(String),
}

/// Where the chains start, and what DPVI cost if it chose the point.
#[derive(Debug, Clone, Copy)]
struct Start {
    theta: [f64; 2],
    /// The accounting of the DPVI initialisation, composed with the chain's budget
    dpvi: Option<SgldAccount>,
}

/// δ of the DPVI initialisation (as the authors).
const DPVI_DELTA: f64 = 1e-6;

/// Checks a `start` setting without fitting anything (validation).
fn check_start(spec: &StartSpec) -> Result<(), ParamError> {
    match spec {
        StartSpec::Point(v) if matches!(v.as_slice(), [a, b] if a.is_finite() && b.is_finite()) => {
            Ok(())
        }
        StartSpec::Method(m) if m == "dpvi" => Ok(()),
        StartSpec::Point(v) => Err(ParamError::new(
            "start",
            format!("{v:?}"),
            "\"dpvi\" or [θ₁, θ₂]",
        )),
        StartSpec::Method(m) => Err(ParamError::new(
            "start",
            format!("\"{m}\""),
            "\"dpvi\" or [θ₁, θ₂]",
        )),
    }
}

/// Where the chains start: the configured point, or a DPVI fit (preparation).
fn resolve_start(spec: &StartSpec, data: &[f64], seed: u64) -> Result<Start, ParamError> {
    use crate::dpmcmc::dpvi::Dpvi;
    match spec {
        StartSpec::Point(v) => match v.as_slice() {
            [a, b] if a.is_finite() && b.is_finite() => Ok(Start {
                theta: [*a, *b],
                dpvi: None,
            }),
            _ => Err(ParamError::new(
                "start",
                format!("{v:?}"),
                "\"dpvi\" or [θ₁, θ₂]",
            )),
        },
        StartSpec::Method(m) if m == "dpvi" => {
            let dpvi = Dpvi::paper();
            let mut rng = setup_rng(seed, Purpose::DpviInit);
            let init = Dpvi::initial(&mut rng);
            let fit = dpvi.fit(&Gmm, data, init, &mut rng);
            // the authors' moments accountant stops at moment 64 (order 65)
            let account = SgldAccount {
                q: dpvi.batch as f64 / data.len() as f64,
                sigma: dpvi.noise_multiplier,
                iterations: dpvi.iterations as u64,
                delta: DPVI_DELTA,
                alpha_max: 65,
            };
            account
                .spent(Conversion::Classic)
                .map_err(|e| ParamError::new("start", e.to_string(), "\"dpvi\" or [θ₁, θ₂]"))?;
            Ok(Start {
                theta: [fit[0], fit[1]],
                dpvi: Some(account),
            })
        }
        StartSpec::Method(m) => Err(ParamError::new(
            "start",
            format!("\"{m}\""),
            "\"dpvi\" or [θ₁, θ₂]",
        )),
    }
}

fn start_json(s: &Start) -> serde_json::Value {
    match s.dpvi {
        Some(_) => {
            serde_json::json!({ "theta": s.theta, "source": "DPVI (mean-field Gaussian, b = 100, C = 1, σ = 10, T = 1000, Adam 1e-3; its cost is in the privacy ledger)" })
        }
        None => serde_json::json!({ "theta": s.theta, "source": "config" }),
    }
}

impl Start {
    /// ε of the DPVI initialisation (classic conversion, as the authors), 0 without one.
    fn dpvi_epsilon(&self) -> f64 {
        self.dpvi
            .and_then(|a| a.spent(Conversion::Classic).ok())
            .map_or(0.0, |s| s.epsilon)
    }

    /// A chain's ledger entry, composed with the DPVI initialisation's when there is one.
    fn compose(&self, series: String, chain: Entry) -> anyhow::Result<Entry> {
        Ok(match self.dpvi {
            Some(dpvi) => Entry::basic_composition(
                series,
                vec![
                    chain,
                    dpvi.entry("DPVI initialisation", Conversion::Classic)?,
                ],
            ),
            None => chain,
        })
    }
}

pub const FIG1_COLUMNS: [&str; 12] = [
    "panel",
    "n_data",
    "batch",
    "q",
    "iterations",
    "delta",
    "epsilon",
    "best_alpha",
    "conversion",
    "proposal_variance",
    "clipped_fraction",
    "acceptance",
];

impl Figure for Fig1 {
    fn task_count(&self) -> usize {
        self.curves.len() * self.conversions.len()
            + self.clipping.as_ref().map_or(0, |c| c.variances.len())
    }

    fn grid_description(&self) -> String {
        let points: usize = self.curves.iter().map(|c| c.iterations.len()).sum();
        let chains = self.clipping.as_ref().map_or(String::new(), |c| {
            format!(
                "; (c) {} private chains of {} iterations",
                c.variances.len(),
                c.iterations
            )
        });
        format!(
            "{} budget curves, {points} points for {} conversion(s){chains}",
            self.curves.len(),
            self.conversions.len()
        )
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let budget_tasks = self.curves.len() * self.conversions.len();
        if index >= budget_tasks {
            let c = self
                .clipping
                .as_ref()
                .ok_or("no panel c")
                .map_err(anyhow::Error::msg)?;
            let variance = c.variances[index - budget_tasks];
            let mut subsets = SubsetSampler::new(c.data.len());
            let (mut theta, mut stats) = (c.start.theta, Stats::default());
            for _ in 0..c.iterations {
                private_step(
                    &Gmm,
                    &c.data,
                    &mut subsets,
                    &mut theta,
                    variance.sqrt(),
                    &c.test,
                    &c.vcor,
                    &mut stats,
                    rng,
                )?;
            }
            let e = || Cell::Empty;
            return Ok(vec![vec![
                "c".into(),
                (c.data.len() as u64).into(),
                (c.test.batch as u64).into(),
                (c.test.batch as f64 / c.data.len() as f64).into(),
                c.iterations.into(),
                e(),
                e(),
                e(),
                e(),
                variance.into(),
                (stats.clipped as f64 / stats.ratios as f64).into(),
                (stats.accepted as f64 / stats.steps as f64).into(),
            ]]);
        }
        let curve = &self.curves[index / self.conversions.len()];
        let conversion = self.conversions[index % self.conversions.len()];
        let spent = if curve.accounts.len() == 1 {
            curve.accounts[0].curve(&curve.iterations, conversion)?
        } else {
            curve
                .accounts
                .iter()
                .map(|a| a.spent(conversion))
                .collect::<Result<Vec<_>, _>>()?
        };
        Ok(spent
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let a = &curve.accounts[i.min(curve.accounts.len() - 1)];
                vec![
                    curve.panel.into(),
                    a.n_data.into(),
                    a.batch.into(),
                    a.q().into(),
                    curve.iterations[i].into(),
                    a.delta.into(),
                    s.epsilon.into(),
                    (s.best_alpha as u64).into(),
                    conversion.as_str().into(),
                    Cell::Empty,
                    Cell::Empty,
                    Cell::Empty,
                ]
            })
            .collect())
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        Ok(data.clone())
    }

    fn datasets(&self) -> Vec<DatasetRecord> {
        self.clipping.iter().map(|c| gmm_record(&c.data)).collect()
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        let mut out = Vec::new();
        for curve in &self.curves {
            for (i, &t) in curve.iterations.iter().enumerate() {
                let a = BarkerAccount {
                    iterations: t,
                    ..curve.accounts[i.min(curve.accounts.len() - 1)]
                };
                for &conversion in &self.conversions {
                    let series = format!(
                        "panel={}, n_data={}, batch={}, iterations={t}, conversion={}",
                        curve.panel,
                        a.n_data,
                        a.batch,
                        conversion.as_str()
                    );
                    out.push(a.entry(series, conversion)?.when("a budget curve: the accountant's answer for this setting; nothing is released"));
                }
            }
        }
        if let Some(c) = &self.clipping {
            for &v in &c.variances {
                let series = format!("panel=c, proposal_variance={v}");
                let chain = c.account.entry("DP-MCMC chain", Conversion::Classic)?;
                out.push(c.start.compose(series, chain)?);
            }
        }
        Ok(out)
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "bound": "Theorem 2 eq. (21) per iteration; subsampling without replacement, Corollary 2 eq. (22) in log space; T-fold composition",
            "orders": "integers 3 ≤ α < min(alpha_max, b/5 − 1), as the authors",
            "conversions": self.conversions.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
            "conversion_meaning": {
                "classic": "ε = T ε′(α) + ln(1/δ)/(α − 1) (Mironov 2017, Prop. 3), as the authors",
                "improved": "ε = T ε′(α) + ln((α−1)/α) − (ln δ + ln α)/(α − 1) (Canonne, Kamath, Steinke 2020)"
            },
            "delta": "1/N",
            "panel_c": self.clipping.as_ref().map(|c| serde_json::json!({
                "start": start_json(&c.start),
                "n_data": c.data.len(), "batch": c.test.batch, "n0": c.test.n0, "clip": c.test.clip, "C": c.test.c,
                "iterations": c.iterations, "vcor": "committed EM table, C = 2",
            })),
        })
    }
}

// ---------------------------------------------------------------- Figure 2

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig2Config {
    n_data: u64,
    batch: u64,
    n0: f64,
    clip_factor: f64,
    proposal_variance: f64,
    private_iterations: u64,
    nonprivate_iterations: u64,
    burn_in: u64,
    start: StartSpec,
    delta: f64,
    alpha_max: u32,
}

/// A private chain (C = 2) beside the non-private reference chain (C = 1) on the
/// GMM problem (Figure 2).
pub struct Fig2 {
    data: Vec<f64>,
    test: PrivateTest,
    proposal_sd: f64,
    iterations: [u64; 2],
    burn_in: u64,
    start: Start,
    account: BarkerAccount,
}

pub fn validate_fig2(params: &toml::Table, seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let c: Fig2Config = deserialize(params)?;
    check::positive("n0", c.n0)?;
    check::positive("proposal_variance", c.proposal_variance)?;
    check::at_least("private_iterations", c.private_iterations, 1)?;
    check::at_least("nonprivate_iterations", c.nonprivate_iterations, 1)?;
    if c.burn_in >= c.private_iterations.min(c.nonprivate_iterations) {
        return Err(ParamError::new(
            "burn_in",
            format!("{}", c.burn_in),
            "fewer than the iterations of either chain",
        ));
    }
    let test = private_test("batch", c.n_data, c.batch, c.n0, c.clip_factor)?;
    let account = BarkerAccount {
        n_data: c.n_data,
        batch: c.batch,
        iterations: c.private_iterations,
        delta: c.delta,
        alpha_max: c.alpha_max,
    };
    account.spent(Conversion::Classic).map_err(|e| {
        ParamError::new(
            "delta",
            e.to_string(),
            "a valid accounting question (0 < δ < 1, alpha_max ≥ 4)",
        )
    })?;
    check_start(&c.start)?;
    let description = format!(
        "a private chain of {} and a non-private chain of {} iterations on N = {} GMM data (start {}; data and start made at run time); 2 tasks",
        c.private_iterations,
        c.nonprivate_iterations,
        c.n_data,
        match &c.start {
            StartSpec::Method(m) => m.clone(),
            StartSpec::Point(p) => format!("{p:?}"),
        }
    );
    Ok(Box::new(Deferred {
        description,
        config: (c, seed, test, account),
        prepare: |(c, seed, test, account)| {
            let data = generate(c.n_data as usize, &mut setup_rng(seed, Purpose::SharedData));
            let start = resolve_start(&c.start, &data, seed)?;
            Ok(Box::new(Fig2 {
                data,
                test,
                proposal_sd: c.proposal_variance.sqrt(),
                iterations: [c.nonprivate_iterations, c.private_iterations],
                burn_in: c.burn_in,
                start,
                account,
            }))
        },
    }))
}

pub const FIG2_COLUMNS: [&str; 4] = ["chain", "iteration", "theta1", "theta2"];
const CHAINS: [&str; 2] = ["nonprivate", "private"];

impl Figure for Fig2 {
    fn task_count(&self) -> usize {
        2
    }

    fn grid_description(&self) -> String {
        format!(
            "non-private chain ({} iterations, C = 1) and private chain ({} iterations, C = 2), burn-in {}",
            self.iterations[0], self.iterations[1], self.burn_in
        )
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let c = if index == 0 { 1.0 } else { 2.0 };
        let vcor = VCor::stored(c)
            .ok_or("no V_cor table")
            .map_err(anyhow::Error::msg)?;
        let mut subsets = SubsetSampler::new(self.data.len());
        let (mut theta, mut stats) = (self.start.theta, Stats::default());
        let mut rows = Vec::new();
        for t in 0..self.iterations[index] {
            if index == 0 {
                nonprivate_step(
                    &Gmm,
                    &self.data,
                    &mut subsets,
                    &mut theta,
                    self.proposal_sd,
                    self.test.batch,
                    self.test.n0,
                    &vcor,
                    &mut stats,
                    rng,
                )
            } else {
                private_step(
                    &Gmm,
                    &self.data,
                    &mut subsets,
                    &mut theta,
                    self.proposal_sd,
                    &self.test,
                    &vcor,
                    &mut stats,
                    rng,
                )
            }?;
            if t >= self.burn_in {
                rows.push(vec![
                    CHAINS[index].into(),
                    t.into(),
                    theta[0].into(),
                    theta[1].into(),
                ]);
            }
        }
        Ok(rows)
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        Ok(data.clone())
    }

    fn datasets(&self) -> Vec<DatasetRecord> {
        vec![gmm_record(&self.data)]
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        let mut out = Vec::new();
        for conversion in [Conversion::Classic, Conversion::Improved] {
            let chain = self.account.entry("DP-MCMC chain", conversion)?;
            let series = format!("chain=private, conversion={}", conversion.as_str());
            out.push(self.start.compose(series, chain)?);
        }
        out.push(Entry::new(
            "chain=non_private",
            Event::NonPrivate,
            Guarantee::None,
        ));
        Ok(out)
    }

    fn manifest_details(&self) -> serde_json::Value {
        let spent = |conv| {
            self.account
                .spent(conv)
                .ok()
                .map(|s| serde_json::json!({ "epsilon": s.epsilon, "best_alpha": s.best_alpha }))
        };
        let exact = crate::dpmcmc::gmm::exact_posterior(&self.data, self.test.n0, 0.01, 161);
        serde_json::json!({
            "private_chain": {
                "batch": self.test.batch, "n0": self.test.n0, "clip": self.test.clip, "C": 2.0,
                "delta": self.account.delta,
                "epsilon_classic": spent(Conversion::Classic),
                "epsilon_improved": spent(Conversion::Improved),
                "note": "chain only; the ledger composes it with the DPVI initialisation",
            },
            "nonprivate_chain": { "C": 1.0, "clip": "none", "batch": "grown by 100 while s² ≥ C" },
            "start": start_json(&self.start),
            "exact_tempered_posterior": { "mean": exact.mean, "var": exact.var, "corr": exact.corr },
        })
    }
}

// ---------------------------------------------------------------- Figure 3

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
}

/// Error of the running posterior mean and variance vs ε spent (Figure 3).
pub struct Fig3 {
    data: Vec<f64>,
    test: PrivateTest,
    proposal_sd: f64,
    start: Start,
    c: Fig3Config,
    tasks: Vec<Fig3Task>,
    exact: crate::dpmcmc::gmm::Moments2,
    mcmc_eps: Vec<f64>,
    sgld_eps: Vec<f64>,
}

fn sgld_name(noise: crate::dpmcmc::sgld::Noise) -> &'static str {
    match noise {
        crate::dpmcmc::sgld::Noise::Published => "dp_sgld",
        crate::dpmcmc::sgld::Noise::Corrected => "dp_sgld_corrected",
    }
}

pub fn validate_fig3(params: &toml::Table, seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let c: Fig3Config = deserialize(params)?;
    check::positive("n0", c.n0)?;
    check::positive("proposal_variance", c.proposal_variance)?;
    check::at_least("runs", c.runs, 1)?;
    check::at_least("mcmc_every", c.mcmc_every, 1)?;
    check::at_least("sgld_every", c.sgld_every, 1)?;
    check::at_least("reference_iterations", c.reference_iterations, 2)?;
    if c.mcmc_burn_in >= c.mcmc_iterations || c.sgld_burn_in >= c.sgld_iterations {
        return Err(ParamError::new(
            "mcmc_burn_in",
            "burn-in not shorter than the chain",
            "burn-in < iterations (DP-MCMC and DP-SGLD)",
        ));
    }
    let test = private_test("batch", c.n_data, c.batch, c.n0, c.clip_factor)?;
    check_start(&c.start)?;
    let description = format!(
        "reference chain + {} runs × (DP-MCMC of {} iterations + {} DP-SGLD variants of {} steps) = {} tasks (data and start made at run time)",
        c.runs,
        c.mcmc_iterations,
        c.sgld_variants.len(),
        c.sgld_iterations,
        1 + c.runs * (1 + c.sgld_variants.len() as u64)
    );
    Ok(Box::new(Deferred {
        description,
        config: (c, seed, test),
        prepare: |(c, seed, test)| prepare_fig3(c, seed, test),
    }))
}

/// Generates the data, fits the start and accounts every checkpoint.
fn prepare_fig3(
    c: Fig3Config,
    seed: u64,
    test: PrivateTest,
) -> Result<Box<dyn Figure>, ParamError> {
    let data = generate(c.n_data as usize, &mut setup_rng(seed, Purpose::SharedData));
    let start = resolve_start(&c.start, &data, seed)?;
    // ε after the burn-in plus t recorded iterations, at every checkpoint (plus DPVI's, composed)
    let mcmc_t: Vec<u64> = (1..=(c.mcmc_iterations - c.mcmc_burn_in) / c.mcmc_every)
        .map(|k| c.mcmc_burn_in + k * c.mcmc_every)
        .collect();
    let account = BarkerAccount {
        n_data: c.n_data,
        batch: c.batch,
        iterations: 0,
        delta: c.delta_mcmc,
        alpha_max: c.alpha_max_mcmc,
    };
    let mcmc_eps = account
        .curve(&mcmc_t, Conversion::Classic)
        .map_err(|e| ParamError::new("delta_mcmc", e.to_string(), "a valid accounting question"))?
        .iter()
        .map(|s| s.epsilon + start.dpvi_epsilon())
        .collect();
    let sgld = crate::dpmcmc::sgld::Sgld::paper(crate::dpmcmc::sgld::Noise::Published);
    let sgld_t: Vec<u64> = (1..=(c.sgld_iterations - c.sgld_burn_in) / c.sgld_every)
        .map(|k| c.sgld_burn_in + k * c.sgld_every)
        .collect();
    let sgld_eps = sgld_t
        .iter()
        .map(|&t| {
            SgldAccount {
                q: sgld.batch as f64 / c.n_data as f64,
                sigma: sgld.noise_multiplier(c.n_data as usize),
                iterations: t,
                delta: c.delta_sgld,
                alpha_max: c.alpha_max_sgld,
            }
            .spent(Conversion::Classic)
            .map(|s| s.epsilon)
            .map_err(|e| {
                ParamError::new("delta_sgld", e.to_string(), "a valid accounting question")
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut tasks = vec![Fig3Task::Reference];
    tasks.extend((0..c.runs).map(|run| Fig3Task::Mcmc { run }));
    for &noise in &c.sgld_variants {
        tasks.extend((0..c.runs).map(|run| Fig3Task::Sgld { noise, run }));
    }
    let exact = crate::dpmcmc::gmm::exact_posterior(&data, c.n0, 0.01, 161);
    Ok(Box::new(Fig3 {
        test,
        proposal_sd: c.proposal_variance.sqrt(),
        start,
        data,
        tasks,
        exact,
        mcmc_eps,
        sgld_eps,
        c,
    }))
}

pub const FIG3_DATA: [&str; 8] = [
    "method",
    "run",
    "iteration",
    "epsilon",
    "mean1",
    "mean2",
    "var1",
    "var2",
];
pub const FIG3_SUMMARY: [&str; 10] = [
    "method",
    "reference",
    "iteration",
    "epsilon",
    "parameter",
    "mean_error",
    "mean_error_se",
    "var_error",
    "var_error_se",
    "runs",
];

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
    fn task_count(&self) -> usize {
        self.tasks.len()
    }

    fn grid_description(&self) -> String {
        format!(
            "reference chain ({} it.), {} DP-MCMC runs × {} it., {} DP-SGLD variant(s) × {} runs × {} it.",
            self.c.reference_iterations, self.c.runs, self.c.mcmc_iterations, self.c.sgld_variants.len(), self.c.runs, self.c.sgld_iterations
        )
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        use rand_distr::{Distribution, StandardNormal};
        let mut rows = Vec::new();
        let mut record = |method: &str, run: u64, t: u64, eps: f64, r: &Running| {
            let (m, v) = r.moments();
            rows.push(vec![
                method.into(),
                run.into(),
                t.into(),
                eps.into(),
                m[0].into(),
                m[1].into(),
                v[0].into(),
                v[1].into(),
            ]);
        };
        match self.tasks[index] {
            Fig3Task::Reference => {
                let vcor = VCor::stored(1.0)
                    .ok_or("no V_cor table for C = 1")
                    .map_err(anyhow::Error::msg)?;
                let mut subsets = SubsetSampler::new(self.data.len());
                let (mut theta, mut stats, mut acc) =
                    (self.start.theta, Stats::default(), Running::default());
                for t in 0..self.c.reference_iterations {
                    nonprivate_step(
                        &Gmm,
                        &self.data,
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
                let (mut theta, mut stats, mut acc) =
                    (self.start.theta, Stats::default(), Running::default());
                let mut k = 0;
                for t in 1..=self.c.mcmc_iterations {
                    private_step(
                        &Gmm,
                        &self.data,
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
                for t in 1..=self.c.sgld_iterations {
                    sgld.step(&Gmm, &self.data, &mut theta, rng);
                    if t > self.c.sgld_burn_in {
                        acc.push(theta);
                        if (t - self.c.sgld_burn_in).is_multiple_of(self.c.sgld_every) {
                            record(sgld_name(noise), run, t, self.sgld_eps[k], &acc);
                            k += 1;
                        }
                    }
                }
            }
        }
        Ok(rows)
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let col = |n: &str| data.col(n);
        let (method, iteration, epsilon) = (col("method")?, col("iteration")?, col("epsilon")?);
        let cols = [col("mean1")?, col("mean2")?, col("var1")?, col("var2")?];
        let chain_ref = (0..data.rows.len())
            .find(|&i| data.s(i, method) == "nonprivate_chain")
            .map(|i| cols.map(|c| data.f(i, c)));
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
        let mut keys: Vec<(String, String)> = Vec::new();
        let mut groups: std::collections::HashMap<(String, String), Vec<usize>> =
            Default::default();
        for i in 0..data.rows.len() {
            let m = data.s(i, method);
            if m == "nonprivate_chain" {
                continue;
            }
            let key = (m, data.s(i, iteration));
            groups
                .entry(key.clone())
                .or_insert_with(|| {
                    keys.push(key.clone());
                    Vec::new()
                })
                .push(i);
        }
        let mut rows = Vec::new();
        for (name, reference) in &references {
            for key in &keys {
                let idx = &groups[key];
                for (p, param) in ["theta1", "theta2"].iter().enumerate() {
                    let mut me = crate::stats::Moments::default();
                    let mut ve = crate::stats::Moments::default();
                    for &i in idx {
                        me.push((data.f(i, cols[p]) - reference[p]).abs());
                        ve.push((data.f(i, cols[2 + p]) - reference[2 + p]).abs());
                    }
                    rows.push(vec![
                        key.0.clone().into(),
                        (*name).into(),
                        data.rows[idx[0]][iteration].clone(),
                        data.rows[idx[0]][epsilon].clone(),
                        (*param).into(),
                        me.mean.into(),
                        me.se().into(),
                        ve.mean.into(),
                        ve.se().into(),
                        me.count.into(),
                    ]);
                }
            }
        }
        Ok(Table::new(&FIG3_SUMMARY, rows))
    }

    fn datasets(&self) -> Vec<DatasetRecord> {
        vec![gmm_record(&self.data)]
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        let c = &self.c;
        let mut out = vec![Entry::new(
            "method=reference",
            Event::NonPrivate,
            Guarantee::None,
        )];
        for k in 1..=(c.mcmc_iterations - c.mcmc_burn_in) / c.mcmc_every {
            let t = c.mcmc_burn_in + k * c.mcmc_every;
            let chain = BarkerAccount {
                n_data: c.n_data,
                batch: c.batch,
                iterations: t,
                delta: c.delta_mcmc,
                alpha_max: c.alpha_max_mcmc,
            }
            .entry("DP-MCMC chain", Conversion::Classic)?;
            out.push(
                self.start
                    .compose(format!("method=dp_mcmc, iteration={t}"), chain)?,
            );
        }
        for &noise in &c.sgld_variants {
            let sgld = crate::dpmcmc::sgld::Sgld::paper(crate::dpmcmc::sgld::Noise::Published);
            for k in 1..=(c.sgld_iterations - c.sgld_burn_in) / c.sgld_every {
                let t = c.sgld_burn_in + k * c.sgld_every;
                let entry = SgldAccount {
                    q: sgld.batch as f64 / c.n_data as f64,
                    sigma: sgld.noise_multiplier(c.n_data as usize),
                    iterations: t,
                    delta: c.delta_sgld,
                    alpha_max: c.alpha_max_sgld,
                }
                .entry(format!("method={}, iteration={t}", sgld_name(noise)), Conversion::Classic)?
                .when("minibatches are drawn with replacement and accounted as Poisson subsampling, as the authors");
                out.push(match noise {
                    crate::dpmcmc::sgld::Noise::Published => entry,
                    crate::dpmcmc::sgld::Noise::Corrected => entry.when("this variant adds noise of variance 2h, √2 times the accounted σ: the claim is conservative"),
                });
            }
        }
        Ok(out)
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "exact_tempered_posterior": { "mean": self.exact.mean, "var": self.exact.var, "corr": self.exact.corr },
            "dp_mcmc": { "epsilon": "classic conversion after (burn-in + t) iterations, composed with the DPVI initialisation (see the ledger)", "delta": self.c.delta_mcmc, "start": start_json(&self.start) },
            "dp_sgld": { "epsilon": "Poisson-subsampled Gaussian, classic conversion, after (burn-in + t) steps", "delta": self.c.delta_sgld, "start": "θ₀ ~ N(0, I)", "variants": self.c.sgld_variants.iter().map(|v| sgld_name(*v)).collect::<Vec<_>>() },
            "errors": "|running moment − reference| per coordinate; mean and standard error over runs",
        })
    }
}
