//! xiong2025/coupling: Xiong & Ju 2025's convergence benchmark (SOMA, arXiv
//! 2505.00635; their `regression.py`): the meeting time of two coupled chains on
//! a private linear regression, SOMA against random- and systematic-scan IMwG,
//! on the authors' released values (`reference_theta/sdp_obs_ckpt_n+100.pt`).
//!
//! Each task is one (ε, repeat), as one seed of their script: chain 1 starts
//! where `fit` iterations of SOMA from the prior end (their fit, whose saved state
//! every method's coupling reads), chain 2 from the prior; then, from those two
//! starts, each kernel runs the pair coupled (`damcmc::coupling`) until θ and
//! every record are equal, or `cap` iterations have passed (censored).

use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::config::{check, deserialize, ParamError};
use crate::damcmc::coupling::{ChainState, CoupledKernel, CoupledPair};
use crate::damcmc::models::NigRegression;
use crate::damcmc::{AugmentedModel, Clamp, Noise, Release};
use crate::experiments::{Figure, Plan, Ready};
use crate::privacy::event::Guarantee;
use crate::privacy::laplace::Laplace;
use crate::privacy::ledger::{Entry, Ledger};
use crate::results::record::to_row;
use crate::results::table::{Row, Table};

/// One released vector: the authors' values at one ε.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Released {
    epsilon: f64,
    values: Vec<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    /// records (their `--ncomp`, 100)
    n: u64,
    /// the ε run, each with a row in `releases`
    epsilons: Vec<f64>,
    /// the released values per ε (their saved observations)
    releases: Vec<Released>,
    kernels: Vec<CoupledKernel>,
    /// pairs per ε (their seeds)
    repeats: u64,
    /// SOMA iterations that give chain 1's start (their `--step`)
    fit: u64,
    /// iterations after which a pair that has not met counts as censored (their `--step`)
    cap: u64,
    /// failed redraws after which chain 2's record proposal copies chain 1's, as
    /// the authors' `update_data_coupling` does after 100; absent: a maximal
    /// coupling (redrawn until done)
    #[serde(default)]
    proposal_give_up: Option<u32>,
}

pub const SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Config>;

/// Most records, repeats and iterations.
const MAX_N: u64 = 10_000;
const MAX_REPEATS: u64 = 1000;
const MAX_ITERATIONS: u64 = 1_000_000;
/// Most redraws before a proposal coupling gives up.
const MAX_GIVE_UP: u32 = 1_000_000;

/// A row of `data.csv`: one kernel's coupled run from one pair of starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeetingRow {
    pub epsilon: f64,
    pub repeat: u64,
    pub kernel: CoupledKernel,
    /// iterations run until θ and every record were equal (their printed
    /// "coupled at iteration i" is this minus 1); empty when censored
    pub meeting: Option<u64>,
    pub censored: bool,
    pub cap: u64,
    /// each chain's record acceptance over the run
    pub acceptance1: f64,
    pub acceptance2: f64,
}

/// A row of `summary.csv`: one kernel at one ε, over repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    pub epsilon: f64,
    pub kernel: CoupledKernel,
    pub runs: u64,
    /// pairs that met within the cap
    pub met: u64,
    /// quartiles of the meeting time, censored runs counted at the cap (so
    /// empty where the quartile falls among them: it is only known to exceed the cap)
    pub q25: Option<f64>,
    pub median: Option<f64>,
    pub q75: Option<f64>,
    pub cap: u64,
    /// the record acceptance, mean over both chains and repeats
    pub acceptance: f64,
}

struct Coupling {
    model: NigRegression,
    /// (ε, release) in the order of `epsilons`
    releases: Vec<(f64, Release)>,
    kernels: Vec<CoupledKernel>,
    repeats: u64,
    fit: usize,
    cap: usize,
    proposal_give_up: Option<u32>,
}

pub fn validate(params: &toml::Table, _seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let c: Config = deserialize(params)?;
    if !(1..=MAX_N).contains(&c.n) {
        return Err(ParamError::new(
            "n",
            c.n.to_string(),
            format!("1 to {MAX_N}"),
        ));
    }
    if !(1..=MAX_REPEATS).contains(&c.repeats) {
        return Err(ParamError::new(
            "repeats",
            c.repeats.to_string(),
            format!("1 to {MAX_REPEATS}"),
        ));
    }
    for (key, v) in [("fit", c.fit), ("cap", c.cap)] {
        if !(1..=MAX_ITERATIONS).contains(&v) {
            return Err(ParamError::new(
                key,
                v.to_string(),
                format!("1 to {MAX_ITERATIONS}"),
            ));
        }
    }
    if c.kernels.is_empty() {
        return Err(ParamError::new(
            "kernels",
            "[]",
            "one or more of soma, random_scan, systematic_scan",
        ));
    }
    if c.epsilons.is_empty() {
        return Err(ParamError::new(
            "epsilons",
            "[]",
            "one or more ε, each with a row in releases",
        ));
    }
    if c.proposal_give_up.is_some_and(|g| g > MAX_GIVE_UP) {
        return Err(ParamError::new(
            "proposal_give_up",
            format!("{:?}", c.proposal_give_up),
            format!("0 to {MAX_GIVE_UP} redraws (the authors' code: 100), or absent for a maximal coupling"),
        ));
    }
    let model = NigRegression::xiong_ju(c.n as usize)
        .map_err(|e| ParamError::new(e.key, e.found, e.allowed))?
        .giving_up_after(c.proposal_give_up);
    let mut releases = Vec::new();
    for &epsilon in &c.epsilons {
        check::positive("epsilons", epsilon)?;
        let Some(r) = c.releases.iter().find(|r| r.epsilon == epsilon) else {
            return Err(ParamError::new(
                "epsilons",
                epsilon.to_string(),
                "an ε with a row in releases (its released values)",
            ));
        };
        let release = Release::new(
            r.values.clone(),
            Noise::Laplace {
                scale: model.l1_sensitivity() / epsilon,
            },
            Clamp::NONE,
            model.statistic_len(),
        )
        .map_err(|e| {
            ParamError::new("releases", format!("ε = {epsilon}: {}", e.found), e.allowed)
        })?;
        releases.push((epsilon, release));
    }
    Ok(Box::new(Ready(Box::new(Coupling {
        model,
        releases,
        kernels: c.kernels,
        repeats: c.repeats,
        fit: c.fit as usize,
        cap: c.cap as usize,
        proposal_give_up: c.proposal_give_up,
    }))))
}

impl Coupling {
    fn point(&self, index: usize) -> (usize, u64) {
        (index / self.repeats as usize, index as u64 % self.repeats)
    }

    /// How the record proposals are coupled, in words.
    fn proposal_coupling(&self) -> String {
        match self.proposal_give_up {
            None => "maximal".into(),
            Some(g) => format!("maximal, but chain 2 copies chain 1 after {g} failed redraws (the authors' code: 100)"),
        }
    }

    /// The mechanism of ε: Laplace of scale Δ/ε, Δ = ((p + 3)p + 3)/n.
    fn mechanism(&self, epsilon: f64) -> Laplace {
        let delta = self.model.l1_sensitivity();
        Laplace::with_scale(delta, delta / epsilon).expect("Δ and ε were checked")
    }
}

impl Figure for Coupling {
    fn task_count(&self) -> usize {
        self.releases.len() * self.repeats as usize
    }

    fn grid_description(&self) -> String {
        format!(
            "{} ε × {} repeats, {} kernels each, fit {} and cap {} iterations, n = {}",
            self.releases.len(),
            self.repeats,
            self.kernels.len(),
            self.fit,
            self.cap,
            self.model.n()
        )
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let (e, repeat) = self.point(index);
        let (epsilon, release) = &self.releases[e];
        // chain 1: SOMA from the prior for `fit` iterations, run as a pair of equal
        // chains (the couplings are faithful: they stay equal, each a SOMA chain)
        let start = ChainState::from_prior(&self.model, release, rng);
        let mut fit = CoupledPair::new(
            &self.model,
            release,
            CoupledKernel::Soma,
            [start.clone(), start],
        );
        for _ in 0..self.fit {
            fit.step(rng);
        }
        let [first, _] = fit.chains;
        let second = ChainState::from_prior(&self.model, release, rng);
        let rows: Vec<MeetingRow> = self
            .kernels
            .iter()
            .map(|&kernel| {
                let pair = CoupledPair::new(
                    &self.model,
                    release,
                    kernel,
                    [first.clone(), second.clone()],
                );
                let m = pair.run(self.cap, rng);
                MeetingRow {
                    epsilon: *epsilon,
                    repeat,
                    kernel,
                    meeting: m.at.map(|i| i as u64 + 1),
                    censored: m.at.is_none(),
                    cap: self.cap as u64,
                    acceptance1: m.acceptance[0],
                    acceptance2: m.acceptance[1],
                }
            })
            .collect();
        Ok(rows.iter().map(to_row).collect())
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        summarize(data)
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "model": "linear regression with a normal-inverse-gamma prior from Laplace-noised clamped sufficient statistics (Xiong & Ju 2025, regression.py)",
            "n": self.model.n(),
            "l1_sensitivity": self.model.l1_sensitivity(),
            "releases": "the authors' released values (reference_theta/sdp_obs_ckpt_n+100.pt, [ε, 0]), Laplace of scale Δ/ε",
            "kernels": self.kernels.iter().map(|k| k.as_str()).collect::<Vec<_>>(),
            "repeats": self.repeats,
            "fit": self.fit,
            "cap": self.cap,
            "proposal_coupling": self.proposal_coupling(),
        })
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        Ok(self
            .releases
                .iter()
                .map(|(epsilon, _)| {
                    Entry::new(
                        format!("epsilon={epsilon}"),
                        self.mechanism(*epsilon).event(),
                        Guarantee::PureDp { epsilon: *epsilon },
                    )
                    .when("the authors' release (their saved values), not made by privpost: Laplace of scale Δ/ε with Δ = ((p + 3)p + 3)/n, the sum of the clamped statistic's coordinate sensitivities")
                    .when("the coupled chains are post-processing of the release: no cost beyond it")
                })
                .collect())
    }

    fn parameters(&self) -> Vec<(String, String)> {
        vec![
            ("n".into(), self.model.n().to_string()),
            ("p".into(), "2".into()),
            ("Laplace scale".into(), "Δ/ε, Δ = 13/n".into()),
            ("fit".into(), self.fit.to_string()),
            ("cap".into(), self.cap.to_string()),
            ("proposal coupling".into(), self.proposal_coupling()),
            ("repeats".into(), self.repeats.to_string()),
            ("the authors' released values".into(), String::new()),
        ]
    }

    /// A SOMA iteration weighs n offers against n records in both chains (9
    /// values each), the fit's twice; IMwG one record per offer.
    fn task_cost(&self, _index: usize) -> f64 {
        let n = self.model.n() as f64;
        let soma = 2.0 * n * n * 9.0 * 10.0;
        let imwg = 2.0 * n * 9.0 * 10.0 + 2000.0;
        let kernels: f64 = self
            .kernels
            .iter()
            .map(|k| {
                if *k == CoupledKernel::Soma {
                    soma
                } else {
                    imwg
                }
            })
            .sum();
        (self.fit as f64 * soma + self.cap as f64 * kernels).max(1e4)
    }
}

/// The p-quantile (linear interpolation, as [`crate::stats::quantile`]) of
/// `sorted` times with the censored runs (None) last, or None when it needs a
/// censored one: it is then only known to exceed the cap.
fn quartile(sorted: &[Option<f64>], p: f64) -> Option<f64> {
    let h = (sorted.len().checked_sub(1)?) as f64 * p;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    let frac = h - lo as f64;
    let a = sorted[lo]?;
    if frac == 0.0 {
        return Some(a);
    }
    Some(a + frac * (sorted[hi]? - a))
}

/// The quartiles of the meeting times over repeats, censored runs at the cap.
pub fn summarize(data: &Table) -> anyhow::Result<Table> {
    let rows: Vec<MeetingRow> = data.records()?;
    let mut order: Vec<(u64, CoupledKernel)> = Vec::new();
    for r in &rows {
        let key = (r.epsilon.to_bits(), r.kernel);
        if !order.contains(&key) {
            order.push(key);
        }
    }
    let out: Vec<SummaryRow> = order
        .iter()
        .map(|&(bits, kernel)| {
            let g: Vec<&MeetingRow> = rows
                .iter()
                .filter(|r| r.epsilon.to_bits() == bits && r.kernel == kernel)
                .collect();
            let cap = g[0].cap;
            let mut times: Vec<Option<f64>> =
                g.iter().map(|r| r.meeting.map(|t| t as f64)).collect();
            // met runs first, in order; censored ones after them (beyond the cap)
            times.sort_by(|a, b| match (a, b) {
                (Some(x), Some(y)) => x.total_cmp(y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            });
            let q = |p: f64| quartile(&times, p);
            let acceptance =
                g.iter().map(|r| r.acceptance1 + r.acceptance2).sum::<f64>() / (2 * g.len()) as f64;
            SummaryRow {
                epsilon: f64::from_bits(bits),
                kernel,
                runs: g.len() as u64,
                met: g.iter().filter(|r| !r.censored).count() as u64,
                q25: q(0.25),
                median: q(0.5),
                q75: q(0.75),
                cap,
                acceptance,
            }
        })
        .collect();
    Ok(Table::of_records(&out))
}

const PLOT: &str = "Meeting time of two coupled chains (median over repeats; bars: the quartiles, drawn to the cap where a quartile is censored)";

/// Per kernel against ε: the median meeting time (where more than half met,
/// whiskers from the lower to the upper quartile, or to the cap where the upper
/// is censored), the share of pairs that met within the cap, and the record
/// acceptance.
pub fn plot(dir: &std::path::Path) -> Result<(), crate::plot::DrawError> {
    use crate::plot::grid::PanelGrid;
    use crate::plot::{render_headed, summary, Band, DrawError};
    let rows: Vec<SummaryRow> = summary(dir)?.records().map_err(|e| DrawError(e.0))?;
    let mut kernels: Vec<CoupledKernel> = Vec::new();
    for r in &rows {
        if !kernels.contains(&r.kernel) {
            kernels.push(r.kernel);
        }
    }
    let x = |r: &SummaryRow| r.epsilon.log10();
    let series = |f: &dyn Fn(&SummaryRow) -> Option<(f64, f64)>| -> Vec<Band> {
        kernels
            .iter()
            .map(|k| {
                let points = rows
                    .iter()
                    .filter(|r| r.kernel == *k)
                    .filter_map(|r| f(r).map(|(y, half)| (x(r), y, half)))
                    .collect();
                (k.as_str().to_string(), points)
            })
            .collect()
    };
    let median = series(&|r| r.median.map(|m| (m, 0.0)));
    // whiskers in the order of `median`'s points: the quartiles, the cap for a
    // censored upper one
    let quartiles: Vec<Vec<(f64, f64)>> = kernels
        .iter()
        .map(|k| {
            rows.iter()
                .filter(|r| r.kernel == *k && r.median.is_some())
                .map(|r| {
                    let m = r.median.unwrap_or_default();
                    (r.q25.unwrap_or(m), r.q75.unwrap_or(r.cap as f64))
                })
                .collect()
        })
        .collect();
    let met = series(&|r| Some((r.met as f64 / r.runs as f64, 0.0)));
    let acceptance = series(&|r| Some((r.acceptance, 0.0)));
    let grid = PanelGrid {
        rows: 1,
        cols: 3,
        panels: vec![
            ("median meeting time".into(), median),
            ("share of pairs met within the cap".into(), met),
            ("records' acceptance rate".into(), acceptance),
        ],
        x_desc: "ε".into(),
        y_desc: "iterations".into(),
        order: kernels.iter().map(|k| k.as_str().to_string()).collect(),
        x_log10: true,
        subtitle: None,
        y_descs: vec![
            "iterations until equal".into(),
            "share met".into(),
            "acceptance rate".into(),
        ],
        shared_y: false,
        intervals: vec![quartiles],
    };
    render_headed(grid, dir, None, Some(PLOT.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A quantile that needs a censored run is unknown (only beyond the cap);
    /// one between met runs interpolates as `stats::quantile`.
    #[test]
    fn quartiles_stop_at_the_censored_runs() {
        let t = [Some(1.0), Some(3.0), None, None];
        assert_eq!(quartile(&t, 0.0), Some(1.0));
        assert_eq!(quartile(&t, 0.25), Some(2.5));
        assert_eq!(quartile(&t, 1.0 / 3.0), Some(3.0));
        assert_eq!(quartile(&t, 0.5), None);
        assert_eq!(quartile(&[None], 0.5), None);
        assert_eq!(quartile(&[], 0.5), None);
        let met = [Some(2.0), Some(4.0), Some(10.0)];
        assert_eq!(
            quartile(&met, 0.5),
            Some(crate::stats::quantile(&[2.0, 4.0, 10.0], 0.5))
        );
    }
}
