//! Bun et al. Figure 3: (a) distance quartiles vs prior strength; (b, c) exact
//! output distributions of the mechanisms.

use super::{
    check_common, check_dimensions, check_size, describe, draw_distances, ledger_of, Common,
    MECHANISMS, PRIOR_RANGE,
};
use crate::config::{check, deserialize, ParamError};
use crate::experiments::Figure;
use crate::expfam::dirichlet::HellingerVariant;
use crate::hellinger::laplace::{poster_sensitivity, LaplaceCounts, Rounding};
use crate::hellinger::{audit, balanced_counts, candidate_count, ExpMech, Space};
use crate::privacy::ledger::Ledger;
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig3Config {
    epsilon: f64,
    delta: f64,
    hellinger: HellingerVariant,
    laplace_rounding: Rounding,
    /// how the Laplace baselines draw their noise (the exponential mechanism is float-only)
    #[serde(default)]
    noise: crate::privacy::event::NoiseMode,
    draws: u64,
    prior_n: u64,
    prior_data: Vec<u64>,
    prior_min: f64,
    prior_max: f64,
    prior_step: f64,
    exact_dimensions: Vec<u64>,
    exact_n: u64,
    exact_prior: f64,
    audit_n: u64,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const FIG3_SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Fig3Config>;

enum Fig3Task {
    /// panel (a): prior Beta(a, a), one mechanism
    Prior { a: f64, mechanism: usize },
    /// panels (b, c): exact output distribution for dimension k, one mechanism
    Exact {
        panel: char,
        k: usize,
        mechanism: usize,
    },
}

/// (a) distance quartiles vs prior strength; (b, c) exact output distributions (Figure 3).
pub struct Fig3 {
    common: Common,
    draws: usize,
    prior_n: u32,
    prior_data: Vec<u32>,
    exact_n: u32,
    exact_prior: f64,
    audit_n: u32,
    tasks: Vec<Fig3Task>,
}

pub fn build_fig3(params: &toml::Table, _seed: u64) -> Result<Box<dyn Figure>, ParamError> {
    let c: Fig3Config = deserialize(params)?;
    let common = Common {
        epsilon: c.epsilon,
        delta: c.delta,
        hellinger: c.hellinger,
        laplace_rounding: c.laplace_rounding,
        noise: c.noise,
    };
    check_common(&common)?;
    check::at_least("draws", c.draws, 1)?;
    let prior_n = check_size("prior_n", c.prior_n, 2)?;
    if c.prior_data.len() != 2 || c.prior_data.iter().sum::<u64>() != c.prior_n {
        return Err(ParamError::new(
            "prior_data",
            format!("{:?}", c.prior_data),
            "two counts summing to prior_n",
        ));
    }
    check::within("prior_min", c.prior_min, 1e-6, 1e6, PRIOR_RANGE)?;
    check::within("prior_max", c.prior_max, 1e-6, 1e6, PRIOR_RANGE)?;
    let prior_points = check::range_points(
        ["prior_min", "prior_max", "prior_step"],
        c.prior_min,
        c.prior_max,
        c.prior_step,
    )?;
    check_dimensions("exact_dimensions", &c.exact_dimensions)?;
    let exact_n = c
        .exact_dimensions
        .iter()
        .map(|&k| check_size("exact_n", c.exact_n, k))
        .collect::<Result<Vec<_>, _>>()?[0];
    for &k in &c.exact_dimensions {
        if candidate_count(exact_n, k as usize) > 10_000_000 {
            return Err(ParamError::new(
                "exact_n",
                "too many candidates for an exact table",
                "C(n+k−1, k−1) ≤ 10⁷",
            ));
        }
    }
    check::within("exact_prior", c.exact_prior, 1e-6, 1e6, PRIOR_RANGE)?;
    check::at_least("audit_n", c.audit_n, 1)?;
    if c.audit_n > 30 {
        return Err(ParamError::new(
            "audit_n",
            format!("{}", c.audit_n),
            "1 ≤ audit_n ≤ 30 (exhaustive check)",
        ));
    }
    let mut tasks = Vec::new();
    for s in 0..prior_points {
        for mechanism in 0..MECHANISMS.len() {
            tasks.push(Fig3Task::Prior {
                a: c.prior_min + s as f64 * c.prior_step,
                mechanism,
            });
        }
    }
    for (i, &k) in c.exact_dimensions.iter().enumerate() {
        for mechanism in 0..MECHANISMS.len() {
            tasks.push(Fig3Task::Exact {
                panel: (b'b' + i as u8) as char,
                k: k as usize,
                mechanism,
            });
        }
    }
    Ok(Box::new(Fig3 {
        draws: c.draws as usize,
        prior_n,
        prior_data: c.prior_data.iter().map(|&x| x as u32).collect(),
        exact_n,
        exact_prior: c.exact_prior,
        audit_n: c.audit_n as u32,
        common,
        tasks,
    }))
}

/// A row of Fig. 3's `data.csv` (= `summary.csv`): panel (a) a mechanism's
/// distances at one prior concentration (quartiles and mean of its draws);
/// panels (b), (c) one distance of the exact output distribution and its
/// probability (candidates at equal distance grouped).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fig3Row {
    pub panel: String,
    pub k: u64,
    pub n: u64,
    pub prior: f64,
    pub mechanism: String,
    pub distance: Option<f64>,
    pub probability: Option<f64>,
    pub candidates: Option<u64>,
    pub mean: Option<f64>,
    pub q25: Option<f64>,
    pub q50: Option<f64>,
    pub q75: Option<f64>,
    pub draws: Option<u64>,
    pub hellinger: String,
}

impl Figure for Fig3 {
    fn parameters(&self) -> Vec<(String, String)> {
        let counts: Vec<String> = self.prior_data.iter().map(|c| c.to_string()).collect();
        let mut p = self.common.parameters();
        p.push(crate::experiments::parameter(
            "(a) counts",
            format!("({}), {} draws", counts.join(", "), self.draws),
        ));
        p.push(crate::experiments::parameter(
            "(b, c) prior",
            format!("Dirichlet({}, …, {})", self.exact_prior, self.exact_prior),
        ));
        p
    }

    fn task_count(&self) -> usize {
        self.tasks.len()
    }

    fn grid_description(&self) -> String {
        let a = self
            .tasks
            .iter()
            .filter(|t| matches!(t, Fig3Task::Prior { .. }))
            .count()
            / 3;
        format!(
            "(a) {a} priors × 3 mechanisms × {} draws; (b, c) exact distributions at n = {}",
            self.draws, self.exact_n
        )
    }

    fn task_cost(&self, index: usize) -> f64 {
        match self.tasks[index] {
            Fig3Task::Prior { mechanism, .. } => {
                super::task_cost(MECHANISMS[mechanism], self.prior_n, 2, self.draws)
            }
            // every candidate scored, and its probability computed, once
            Fig3Task::Exact { k, mechanism, .. } => {
                super::task_cost("hellinger_em", self.exact_n, k, 0)
                    * if MECHANISMS[mechanism] == "hellinger_em" {
                        1.0
                    } else {
                        2.0
                    }
            }
        }
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let c = &self.common;
        match self.tasks[index] {
            Fig3Task::Prior { a, mechanism } => {
                let space = Space::new(vec![a, a], self.prior_n, c.hellinger)?;
                let (d, _) = draw_distances(
                    &space,
                    &self.prior_data,
                    MECHANISMS[mechanism],
                    c,
                    self.draws,
                    rng,
                )?;
                let (mean, q25, q50, q75) = describe(d);
                Ok(vec![to_row(&Fig3Row {
                    panel: "a".into(),
                    k: 2,
                    n: self.prior_n as u64,
                    prior: a,
                    mechanism: MECHANISMS[mechanism].into(),
                    distance: None,
                    probability: None,
                    candidates: None,
                    mean: Some(mean),
                    q25: Some(q25),
                    q50: Some(q50),
                    q75: Some(q75),
                    draws: Some(self.draws as u64),
                    hellinger: c.hellinger.as_str().into(),
                })])
            }
            Fig3Task::Exact {
                panel,
                k,
                mechanism,
            } => {
                let space = Space::new(vec![self.exact_prior; k], self.exact_n, c.hellinger)?;
                let data = balanced_counts(self.exact_n, k);
                let dist = space.from_data(&data);
                let mut pairs: Vec<(f64, f64)> = if MECHANISMS[mechanism] == "hellinger_em" {
                    let m = ExpMech::new(&space, &data, c.epsilon, c.delta)?;
                    m.exact().into_iter().map(|(_, h, p)| (h, p)).collect()
                } else {
                    let m = LaplaceCounts::new(
                        poster_sensitivity(MECHANISMS[mechanism], k),
                        c.epsilon,
                        c.laplace_rounding,
                        c.noise,
                    )?;
                    let mut v = Vec::new();
                    space.for_each(|r| v.push((dist.hellinger(r), m.probability(&data, r))));
                    v
                };
                // Group candidates at equal distance (equal up to rounding, 1e-12 relative).
                pairs.sort_by(|x, y| x.0.total_cmp(&y.0));
                let mut groups: Vec<(f64, f64, u64)> = Vec::new();
                for (h, p) in pairs {
                    match groups.last_mut() {
                        Some(g) if (h - g.0).abs() <= 1e-12 * h.max(1e-300) => {
                            g.1 += p;
                            g.2 += 1;
                        }
                        _ => groups.push((h, p, 1)),
                    }
                }
                Ok(groups
                    .into_iter()
                    .map(|(h, p, count)| {
                        to_row(&Fig3Row {
                            panel: panel.to_string(),
                            k: k as u64,
                            n: self.exact_n as u64,
                            prior: self.exact_prior,
                            mechanism: MECHANISMS[mechanism].into(),
                            distance: Some(h),
                            probability: Some(p),
                            candidates: Some(count),
                            mean: None,
                            q25: None,
                            q50: None,
                            q75: None,
                            draws: None,
                            hellinger: c.hellinger.as_str().into(),
                        })
                    })
                    .collect())
            }
        }
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        Ok(data.clone())
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        ledger_of(
            &self.common,
            self.tasks.iter().map(|t| match *t {
                Fig3Task::Prior { mechanism, .. } => (2, mechanism),
                Fig3Task::Exact { k, mechanism, .. } => (k, mechanism),
            }),
        )
    }

    fn manifest_details(&self) -> serde_json::Value {
        let c = &self.common;
        let audits: Vec<serde_json::Value> = [2usize, 3]
            .iter()
            .filter_map(|&k| {
                let space = Space::new(vec![self.exact_prior; k], self.audit_n, c.hellinger).ok()?;
                let a = audit(&space, c.epsilon, c.delta).ok()?;
                Some(serde_json::json!({ "k": k, "n": self.audit_n, "neighbour_pairs": a.pairs, "worst_ln_probability_ratio": a.worst_ln_ratio, "delta_needed_at_epsilon": a.worst_delta }))
            })
            .collect();
        serde_json::json!({
            "epsilon": c.epsilon, "delta": c.delta,
            "hellinger": c.hellinger.as_str(),
            "laplace_rounding": c.laplace_rounding.as_str(),
            "panel_a": { "k": 2, "n": self.prior_n, "data": self.prior_data, "prior": "Beta(a, a)" },
            "panels_b_c": { "n": self.exact_n, "prior_concentration": self.exact_prior, "method": "exact: EM weights normalised; Laplace from the CDF over each integer cell; candidates at equal distance grouped" },
            "privacy_audit": audits,
        })
    }
}
