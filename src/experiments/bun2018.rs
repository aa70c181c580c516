//! bun2018 (smoothed-Hellinger exponential mechanism poster): Figures 2 and 3.

use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

use super::Figure;
use crate::config::{check, deserialize, ParamError};
use crate::expfam::dirichlet::HellingerVariant;
use crate::hellinger::laplace::{poster_sensitivity, LaplaceCounts, Rounding};
use crate::hellinger::{audit, balanced_counts, candidate_count, ExpMech, Space};
use crate::privacy::ledger::{Entry, Guarantee, Ledger};
use crate::results::table::{Cell, Row, Table};
use crate::stats::quantile;

/// The three released-posterior mechanisms compared on the poster.
pub const MECHANISMS: [&str; 3] = ["hellinger_em", "laplace_hist", "laplace_dim"];

/// (mean, q25, q50, q75) of distances.
fn describe(mut d: Vec<f64>) -> (f64, f64, f64, f64) {
    d.sort_by(f64::total_cmp);
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    (
        mean,
        quantile(&d, 0.25),
        quantile(&d, 0.5),
        quantile(&d, 0.75),
    )
}

/// `draws` distances H(BI(c), release) of one mechanism, and the noise scale used
/// (S(c) for the exponential mechanism, s for Laplace).
fn draw_distances(
    space: &Space,
    data: &[u32],
    mechanism: &str,
    common: &Common,
    draws: usize,
    rng: &mut ChaCha8Rng,
) -> anyhow::Result<(Vec<f64>, f64)> {
    let (epsilon, delta, rounding) = (common.epsilon, common.delta, common.laplace_rounding);
    if mechanism == "hellinger_em" {
        let m = ExpMech::new(space, data, epsilon, delta)?;
        Ok((m.sample_distances(draws, rng), m.smooth_sensitivity()))
    } else {
        let s = poster_sensitivity(mechanism, space.k());
        let m = LaplaceCounts::new(s, epsilon, rounding)?;
        let d = space.from_data(data);
        Ok((
            (0..draws)
                .map(|_| d.hellinger(&m.sample(data, rng)))
                .collect(),
            s,
        ))
    }
}

/// The ledger entry of one poster series at dimension k: the smoothed-Hellinger EM
/// at (ε, δ), or Laplace(s/ε) with the series' sensitivity s.
fn ledger_entry(common: &Common, mechanism: &str, k: usize) -> anyhow::Result<Entry> {
    let series = format!("k={k}, mechanism={mechanism}");
    Ok(if mechanism == "hellinger_em" {
        Entry::new(
            series,
            crate::hellinger::privacy_event(common.epsilon, common.delta),
            Guarantee::ApproxDp {
                epsilon: common.epsilon,
                delta: common.delta,
                conversion: "theorem (smooth-sensitivity exponential mechanism)".into(),
                order: None,
            },
        )
        .when(match common.hellinger {
            HellingerVariant::Correct => "scores are Hellinger distances and S their γ-smooth sensitivity, computed exactly over all count vectors",
            HellingerVariant::AsPublished => "scores are the authors' (mistyped) log-Beta 'distance'; S is its exact γ-smooth sensitivity, so (ε, δ) still holds for that score",
        })
    } else {
        let m = LaplaceCounts::new(
            poster_sensitivity(mechanism, k),
            common.epsilon,
            common.laplace_rounding,
        )?;
        Entry::new(
            series,
            m.event(),
            Guarantee::PureDp {
                epsilon: common.epsilon,
            },
        )
    })
}

/// Entries for each distinct (k, mechanism) in order of first appearance.
fn ledger_of(
    common: &Common,
    pairs: impl Iterator<Item = (usize, usize)>,
) -> anyhow::Result<Ledger> {
    let mut seen = Vec::new();
    for p in pairs {
        if !seen.contains(&p) {
            seen.push(p);
        }
    }
    seen.into_iter()
        .map(|(k, m)| ledger_entry(common, MECHANISMS[m], k))
        .collect()
}

#[derive(Debug)]
struct Common {
    epsilon: f64,
    delta: f64,
    hellinger: HellingerVariant,
    laplace_rounding: Rounding,
}

fn check_common(c: &Common) -> Result<(), ParamError> {
    check::epsilon("epsilon", c.epsilon)?;
    if !(c.delta > 0.0 && c.delta < 1.0) {
        return Err(ParamError::new(
            "delta",
            format!("invalid δ = {}", c.delta),
            "0 < δ < 1",
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------- Figure 2

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig2Config {
    epsilon: f64,
    delta: f64,
    hellinger: HellingerVariant,
    laplace_rounding: Rounding,
    dimensions: Vec<u64>,
    n_min: u64,
    n_max: Vec<u64>,
    n_step: u64,
    draws: u64,
    prior: f64,
}

/// Mean and quartiles of H(released, true posterior) vs n, per k (Figure 2).
pub struct Fig2 {
    common: Common,
    prior: f64,
    draws: usize,
    /// (k, n, mechanism index)
    tasks: Vec<(usize, u32, usize)>,
}

fn check_dimensions(key: &str, ks: &[u64]) -> Result<(), ParamError> {
    check::non_empty(key, ks)?;
    for &k in ks {
        if !(2..=8).contains(&k) {
            return Err(ParamError::new(
                key,
                format!("invalid dimension {k}"),
                "2 ≤ k ≤ 8",
            ));
        }
    }
    Ok(())
}

fn check_size(key: &str, n: u64, k: u64) -> Result<u32, ParamError> {
    check::at_least(key, n, 1)?;
    if candidate_count(n.min(u32::MAX as u64) as u32, k as usize) > 2_000_000_000 || n > 100_000 {
        return Err(ParamError::new(
            key,
            format!("n = {n} with k = {k} gives too many candidate posteriors"),
            "at most 2·10⁹ candidates C(n+k−1, k−1)",
        ));
    }
    Ok(n as u32)
}

pub fn build_fig2(params: &toml::Table, _seed: u64) -> Result<Box<dyn Figure>, ParamError> {
    let c: Fig2Config = deserialize(params)?;
    let common = Common {
        epsilon: c.epsilon,
        delta: c.delta,
        hellinger: c.hellinger,
        laplace_rounding: c.laplace_rounding,
    };
    check_common(&common)?;
    check_dimensions("dimensions", &c.dimensions)?;
    if c.n_max.len() != c.dimensions.len() {
        return Err(ParamError::new(
            "n_max",
            format!(
                "{} values for {} dimensions",
                c.n_max.len(),
                c.dimensions.len()
            ),
            "one n_max per entry of `dimensions`",
        ));
    }
    check::at_least("n_step", c.n_step, 1)?;
    check::at_least("draws", c.draws, 1)?;
    check::positive("prior", c.prior)?;
    let mut tasks = Vec::new();
    for (&k, &n_max) in c.dimensions.iter().zip(&c.n_max) {
        if n_max < c.n_min {
            return Err(ParamError::new(
                "n_max",
                format!("{n_max} < n_min = {}", c.n_min),
                "n_max ≥ n_min",
            ));
        }
        let mut n = c.n_min;
        while n <= n_max {
            let n32 = check_size("n_max", n, k)?;
            for m in 0..MECHANISMS.len() {
                tasks.push((k as usize, n32, m));
            }
            n += c.n_step;
        }
    }
    Ok(Box::new(Fig2 {
        common,
        prior: c.prior,
        draws: c.draws as usize,
        tasks,
    }))
}

pub const FIG2_DATA: [&str; 11] = [
    "k",
    "n",
    "mechanism",
    "mean",
    "q25",
    "q50",
    "q75",
    "draws",
    "scale",
    "candidates",
    "hellinger",
];

pub const FIG2_SUMMARY: [&str; 12] = [
    "k",
    "n",
    "mechanism",
    "mean",
    "q25",
    "q50",
    "q75",
    "draws",
    "scale",
    "candidates",
    "hellinger",
    "crossover_n",
];

impl Figure for Fig2 {
    fn task_count(&self) -> usize {
        self.tasks.len()
    }

    fn grid_description(&self) -> String {
        let largest = self
            .tasks
            .iter()
            .map(|&(k, n, _)| candidate_count(n, k))
            .max()
            .unwrap_or(0);
        format!(
            "{} (k, n) points × 3 mechanisms, {} draws each; up to {largest} candidate posteriors",
            self.tasks.len() / 3,
            self.draws
        )
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let (k, n, m) = self.tasks[index];
        let space = Space::new(vec![self.prior; k], n, self.common.hellinger)?;
        let data = balanced_counts(n, k);
        let c = &self.common;
        let (d, scale) = draw_distances(&space, &data, MECHANISMS[m], c, self.draws, rng)?;
        let (mean, q25, q50, q75) = describe(d);
        Ok(vec![vec![
            k.into(),
            (n as u64).into(),
            MECHANISMS[m].into(),
            mean.into(),
            q25.into(),
            q50.into(),
            q75.into(),
            self.draws.into(),
            scale.into(),
            space.count().into(),
            c.hellinger.as_str().into(),
        ]])
    }

    /// The data rows plus `crossover_n`: for each Laplace baseline and k, the
    /// smallest n of the grid from which the exponential mechanism's mean distance
    /// stays below the baseline's (empty if it never does).
    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let col = |n: &str| data.col(n);
        let (k_col, n_col, m_col, mean_col) =
            (col("k")?, col("n")?, col("mechanism")?, col("mean")?);
        let mean_of = |k: &str, n: &str, m: &str| {
            (0..data.rows.len())
                .find(|&i| data.s(i, k_col) == k && data.s(i, n_col) == n && data.s(i, m_col) == m)
                .map(|i| data.f(i, mean_col))
        };
        let mut rows = Vec::new();
        for i in 0..data.rows.len() {
            let (k, m) = (data.s(i, k_col), data.s(i, m_col));
            let crossover: Cell = if m == "hellinger_em" {
                Cell::Empty
            } else {
                let ns: Vec<String> = {
                    let mut v: Vec<String> = (0..data.rows.len())
                        .filter(|&j| data.s(j, k_col) == k && data.s(j, m_col) == m)
                        .map(|j| data.s(j, n_col))
                        .collect();
                    v.dedup();
                    v
                };
                let mut first: Option<u64> = None;
                for n in ns.iter().rev() {
                    match (mean_of(&k, n, "hellinger_em"), mean_of(&k, n, &m)) {
                        (Some(em), Some(lap)) if em < lap => first = n.parse().ok(),
                        _ => break,
                    }
                }
                first.map_or(Cell::Empty, |n| n.into())
            };
            let mut row = data.rows[i].clone();
            row.push(crossover);
            rows.push(row);
        }
        Ok(Table::new(&FIG2_SUMMARY, rows))
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        ledger_of(&self.common, self.tasks.iter().map(|&(k, _, m)| (k, m)))
    }

    fn manifest_details(&self) -> serde_json::Value {
        let c = &self.common;
        serde_json::json!({
            "epsilon": c.epsilon, "delta": c.delta, "prior_concentration": self.prior,
            "hellinger": c.hellinger.as_str(),
            "hellinger_meaning": match c.hellinger {
                HellingerVariant::Correct => "ln B(a) = Σ ln Γ(aᵢ) − ln Γ(Σ aᵢ)",
                HellingerVariant::AsPublished => "AS PUBLISHED (authors' code): ln B(a) = Σ ln Γ(aᵢ) / ln Σ aᵢ — distances are not Hellinger distances",
            },
            "laplace_rounding": c.laplace_rounding.as_str(),
            "data": "balanced: each bin ⌊n/k⌋, remainder to the last",
            "laplace": "noise Lap(s/ε) on the first k−1 counts; sequential clamping to [0, remaining]; last count = remainder",
            "quantiles": "type 7 (linear interpolation)",
        })
    }
}

// ---------------------------------------------------------------- Figure 3

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig3Config {
    epsilon: f64,
    delta: f64,
    hellinger: HellingerVariant,
    laplace_rounding: Rounding,
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
    check::positive("prior_min", c.prior_min)?;
    check::positive("prior_step", c.prior_step)?;
    if c.prior_max < c.prior_min || !c.prior_max.is_finite() {
        return Err(ParamError::new(
            "prior_max",
            format!("{} < prior_min", c.prior_max),
            "prior_max ≥ prior_min",
        ));
    }
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
    check::positive("exact_prior", c.exact_prior)?;
    check::at_least("audit_n", c.audit_n, 1)?;
    if c.audit_n > 30 {
        return Err(ParamError::new(
            "audit_n",
            format!("{}", c.audit_n),
            "1 ≤ audit_n ≤ 30 (exhaustive check)",
        ));
    }
    let steps = ((c.prior_max - c.prior_min) / c.prior_step + 1e-9).floor() as usize;
    let mut tasks = Vec::new();
    for s in 0..=steps {
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

pub const FIG3_COLUMNS: [&str; 14] = [
    "panel",
    "k",
    "n",
    "prior",
    "mechanism",
    "distance",
    "probability",
    "candidates",
    "mean",
    "q25",
    "q50",
    "q75",
    "draws",
    "hellinger",
];

impl Figure for Fig3 {
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

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let c = &self.common;
        let e = || Cell::Empty;
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
                Ok(vec![vec![
                    "a".into(),
                    2usize.into(),
                    (self.prior_n as u64).into(),
                    a.into(),
                    MECHANISMS[mechanism].into(),
                    e(),
                    e(),
                    e(),
                    mean.into(),
                    q25.into(),
                    q50.into(),
                    q75.into(),
                    self.draws.into(),
                    c.hellinger.as_str().into(),
                ]])
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
                        vec![
                            panel.to_string().into(),
                            k.into(),
                            (self.exact_n as u64).into(),
                            self.exact_prior.into(),
                            MECHANISMS[mechanism].into(),
                            h.into(),
                            p.into(),
                            count.into(),
                            e(),
                            e(),
                            e(),
                            e(),
                            e(),
                            c.hellinger.as_str().into(),
                        ]
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
