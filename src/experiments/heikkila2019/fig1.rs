//! heikkila2019 Figure 1: (a) total ε vs q and (b) vs T from the accountant of
//! Theorem 2 / Corollary 2; (c) the fraction of clipped log-likelihood ratios vs the
//! proposal variance, from private chains on the GMM problem.

use super::{
    check_alpha_max, check_proposal, check_start, gmm_record, private_test, resolve_start,
    start_json, Start, StartSpec,
};
use crate::config::{check, deserialize, ParamError};
use crate::dpmcmc::barker::{private_step, PrivateTest, Stats, SubsetSampler};
use crate::dpmcmc::gmm::generate;
use crate::dpmcmc::gmm::Gmm;
use crate::dpmcmc::vcor::VCor;
use crate::experiments::{Deferred, Figure, Plan};
use crate::privacy::accountant::BarkerAccount;
use crate::privacy::event::Conversion;
use crate::privacy::ledger::Ledger;
use crate::results::manifest::DatasetRecord;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use crate::rng::{setup_rng, Purpose};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

/// The panels of Figure 1 a config may ask for: `"a"`, `"b"`, `"c"`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Panel {
    A,
    B,
    C,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig1Config {
    panels: Vec<Panel>,
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

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const FIG1_SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Fig1Config>;

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

impl Fig1Config {
    /// Panel (a)'s curves: ε against q for each N, every point a valid account.
    fn panel_a(&self) -> Result<Vec<Curve>, ParamError> {
        let mut curves = Vec::new();
        check::non_empty("n_data_a", &self.n_data_a)?;
        check::points("q_points", self.q_points, 2)?;
        check::at_least("iterations_a", self.iterations_a, 1)?;
        if !(self.q_min > 0.0 && self.q_min < self.q_max && self.q_max <= 1.0) {
            return Err(ParamError::new(
                "q_min",
                format!("q range [{}, {}]", self.q_min, self.q_max),
                "0 < q_min < q_max ≤ 1",
            ));
        }
        for &n in &self.n_data_a {
            let accounts = (0..self.q_points)
                .map(|i| {
                    let q = self.q_min
                        + (self.q_max - self.q_min) * i as f64 / (self.q_points - 1) as f64;
                    let acc = BarkerAccount {
                        n_data: n,
                        batch: (q * n as f64 + 1e-9).floor() as u64,
                        iterations: self.iterations_a,
                        delta: 1.0 / n as f64,
                        alpha_max: self.alpha_max,
                    };
                    acc.validate().map(|_| acc).map_err(|e| {
                        ParamError::new(
                            if i == 0 { "q_min" } else { "n_data_a" },
                            format!("N = {n}, q = {}: {e}", check::short(q)),
                            "q_min and n_data_a with b = ⌊q·N⌋ ≥ 21 over the q range",
                        )
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            curves.push(Curve {
                panel: "a",
                iterations: vec![self.iterations_a; accounts.len()],
                accounts,
            });
        }
        Ok(curves)
    }

    /// Panel (b)'s curves: ε against T for each batch at q_b.
    fn panel_b(&self) -> Result<Vec<Curve>, ParamError> {
        let mut curves = Vec::new();
        check::non_empty("batches_b", &self.batches_b)?;
        check::at_least("t_min", self.t_min, 1)?;
        check::at_least("t_step", self.t_step, 1)?;
        check::range_points(
            ["t_min", "t_max", "t_step"],
            self.t_min as f64,
            self.t_max as f64,
            self.t_step as f64,
        )?;
        if !(self.q_b > 0.0 && self.q_b <= 1.0) {
            return Err(ParamError::new("q_b", format!("{}", self.q_b), "0 < q ≤ 1"));
        }
        let iterations: Vec<u64> = (self.t_min..=self.t_max)
            .step_by(self.t_step as usize)
            .collect();
        for &b in &self.batches_b {
            // N = b/q is the data size of the curve: a whole number a CSV
            // cell holds exactly (it once saturated and was written as −1)
            let n_exact = (b as f64 / self.q_b).round();
            if n_exact.is_nan() || n_exact > MAX_EXACT_N {
                return Err(ParamError::new(
                    "q_b",
                    format!("{:e} (N = b/q = {n_exact:e} for b = {b})", self.q_b),
                    format!(
                        "q_b ≥ b/2⁵³ for every b of batches_b (N = b/q at most {MAX_EXACT_N:e})"
                    ),
                ));
            }
            let n = n_exact as u64;
            let acc = BarkerAccount {
                n_data: n,
                batch: b,
                iterations: 0,
                delta: 1.0 / n as f64,
                alpha_max: self.alpha_max,
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
        Ok(curves)
    }

    /// Panel (c)'s plan: the private chains at each proposal variance.
    fn panel_c(&self) -> Result<ClippingPlan, ParamError> {
        check::non_empty("proposal_variances", &self.proposal_variances)?;
        for &v in &self.proposal_variances {
            check_proposal("proposal_variances", v)?;
        }
        check::at_least("chain_iterations", self.chain_iterations, 1)?;
        let test = private_test(
            ["batch_c", "n_data_c"],
            self.n_data_c,
            self.batch_c,
            self.n0,
            self.clip_factor,
        )?;
        let vcor = VCor::stored(2.0).ok_or_else(|| {
            ParamError::new(
                "panels",
                "no V_cor table for C = 2",
                "run `privpost vcor --write`",
            )
        })?;
        check_start(&self.start)?;
        Ok(ClippingPlan {
            account: BarkerAccount {
                n_data: self.n_data_c,
                batch: self.batch_c,
                iterations: self.chain_iterations,
                delta: 1.0 / self.n_data_c as f64,
                alpha_max: self.alpha_max,
            },
            n_data: self.n_data_c,
            start: self.start.clone(),
            variances: self.proposal_variances.clone(),
            iterations: self.chain_iterations,
            test,
            vcor,
        })
    }
}

pub fn validate_fig1(params: &toml::Table, seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let c: Fig1Config = deserialize(params)?;
    let mut clipping = None;
    check::non_empty("panels", &c.panels)?;
    check::non_empty("conversions", &c.conversions)?;
    check_alpha_max("alpha_max", c.alpha_max, 4)?;
    let mut curves = Vec::new();
    for p in &c.panels {
        match p {
            Panel::A => curves.extend(c.panel_a()?),
            Panel::B => curves.extend(c.panel_b()?),
            Panel::C => clipping = Some(c.panel_c()?),
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

/// The largest data size N = b/q of panel (b): 2⁵³, where every whole number is
/// still exact as a float.
const MAX_EXACT_N: f64 = 9_007_199_254_740_992.0;

/// A row of Fig. 1's `data.csv` (= `summary.csv`): a budget point of panel `a`
/// or `b` (ε after `iterations` steps at the best order), or a chain of panel
/// `c` (its clipped fraction and acceptance at one proposal variance).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize)]
pub struct Fig1Row {
    /// `a` (ε vs q), `b` (ε vs T) or `c` (clipping vs proposal variance)
    pub panel: String,
    pub n_data: u64,
    pub batch: u64,
    pub q: f64,
    pub iterations: u64,
    pub delta: Option<f64>,
    pub epsilon: Option<f64>,
    pub best_alpha: Option<u64>,
    pub conversion: Option<Conversion>,
    pub proposal_variance: Option<f64>,
    pub clipped_fraction: Option<f64>,
    pub acceptance: Option<f64>,
}

impl Figure for Fig1 {
    fn parameters(&self) -> Vec<(String, String)> {
        let mut p = vec![crate::experiments::parameter("δ", "1/N")];
        // the fixed coordinate of each panel, from its first curve
        for c in &self.curves {
            let Some(a) = c.accounts.first() else {
                continue;
            };
            let entry = match c.panel {
                "a" => crate::experiments::parameter("(a) T", a.iterations),
                "b" => crate::experiments::parameter(
                    "(b) q",
                    crate::plot::tick(&(a.batch as f64 / a.n_data as f64)),
                ),
                _ => continue,
            };
            if !p.contains(&entry) {
                p.push(entry);
            }
        }
        if let Some(c) = &self.clipping {
            p.push(crate::experiments::parameter(
                "(c) N",
                format!(
                    "{}, b = {}, T = {}",
                    c.account.n_data, c.account.batch, c.iterations
                ),
            ));
        }
        p
    }

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

    /// A budget curve: the RDP accountant's order search at each of its points
    /// (≈ 10^5 flops a point); panel (c): a private chain, a minibatch of
    /// log-likelihood ratios per iteration (≈ 80 flops a point).
    fn task_cost(&self, index: usize) -> f64 {
        let budget_tasks = self.curves.len() * self.conversions.len();
        match &self.clipping {
            Some(c) if index >= budget_tasks => c.iterations as f64 * c.test.batch as f64 * 80.0,
            _ => {
                let curve = &self.curves[(index / self.conversions.len().max(1))
                    .min(self.curves.len().saturating_sub(1))];
                (curve.iterations.len() * curve.accounts.len()) as f64 * 1e5
            }
        }
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
            let model = Gmm::untempered(&c.data);
            let (mut theta, mut stats) = (c.start.theta, Stats::default());
            for _ in 0..c.iterations {
                private_step(
                    &model,
                    &mut subsets,
                    &mut theta,
                    variance.sqrt(),
                    &c.test,
                    &c.vcor,
                    &mut stats,
                    rng,
                )?;
            }
            return Ok(vec![to_row(&Fig1Row {
                panel: "c".into(),
                n_data: c.data.len() as u64,
                batch: c.test.batch as u64,
                q: c.test.batch as f64 / c.data.len() as f64,
                iterations: c.iterations,
                delta: None,
                epsilon: None,
                best_alpha: None,
                conversion: None,
                proposal_variance: Some(variance),
                clipped_fraction: Some(stats.clipped as f64 / stats.ratios as f64),
                acceptance: Some(stats.accepted as f64 / stats.steps as f64),
            })]);
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
                to_row(&Fig1Row {
                    panel: curve.panel.into(),
                    n_data: a.n_data,
                    batch: a.batch,
                    q: a.q(),
                    iterations: curve.iterations[i],
                    delta: Some(a.delta),
                    epsilon: Some(s.epsilon),
                    best_alpha: Some(s.best_alpha as u64),
                    conversion: Some(conversion),
                    proposal_variance: None,
                    clipped_fraction: None,
                    acceptance: None,
                })
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
        // a budget curve releases nothing: one entry per curve, at its last point
        // (the CSV has every point, from the same accountant)
        for curve in &self.curves {
            let last = curve.iterations.len() - 1;
            let a = BarkerAccount {
                iterations: curve.iterations[last],
                ..curve.accounts[last.min(curve.accounts.len() - 1)]
            };
            for &conversion in &self.conversions {
                let series = format!(
                    "panel={}, n_data={}, batch={}, iterations={}, conversion={}",
                    curve.panel,
                    a.n_data,
                    a.batch,
                    a.iterations,
                    conversion.as_str()
                );
                out.push(a.entry(series, conversion)?.when(
                    "a budget curve, ending here: the accountant's answer for this setting; nothing is released",
                ));
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
