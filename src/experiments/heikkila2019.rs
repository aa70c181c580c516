//! heikkila2019-dp-mcmc: privacy-budget panels of Figure 1 (a: ε vs q, b: ε vs T),
//! from the accountant of Theorem 2 / Corollary 2.
//!
//! Panel (c), the fraction of clipped log-likelihood ratios on the GMM problem,
//! needs the private chain itself and is not available yet: asking for it is an
//! error, not an empty panel.

use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

use super::Figure;
use crate::config::{check, deserialize, ParamError};
use crate::privacy::rdp::{BarkerAccount, Conversion};
use crate::runner::table::{Row, Table};

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
}

pub fn build_fig1(params: &toml::Table, _seed: u64) -> Result<Box<dyn Figure>, ParamError> {
    let c: Fig1Config = deserialize(params)?;
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
                    return Err(ParamError::new("q_min", format!("q range [{}, {}]", c.q_min, c.q_max), "0 < q_min < q_max ≤ 1"));
                }
                for &n in &c.n_data_a {
                    let accounts = (0..c.q_points)
                        .map(|i| {
                            let q = c.q_min + (c.q_max - c.q_min) * i as f64 / (c.q_points - 1) as f64;
                            let acc = BarkerAccount {
                                n_data: n,
                                batch: (q * n as f64 + 1e-9).floor() as u64,
                                iterations: c.iterations_a,
                                delta: 1.0 / n as f64,
                                alpha_max: c.alpha_max,
                            };
                            acc.validate().map(|_| acc).map_err(|e| ParamError::new("n_data_a", e.to_string(), "N with b = ⌊qN⌋ ≥ 21 over the q range"))
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    curves.push(Curve { panel: "a", iterations: vec![c.iterations_a; accounts.len()], accounts });
                }
            }
            "b" => {
                check::non_empty("batches_b", &c.batches_b)?;
                check::at_least("t_min", c.t_min, 1)?;
                check::at_least("t_step", c.t_step, 1)?;
                if c.t_max < c.t_min {
                    return Err(ParamError::new("t_max", format!("{} < t_min", c.t_max), "t_max ≥ t_min"));
                }
                if !(c.q_b > 0.0 && c.q_b <= 1.0) {
                    return Err(ParamError::new("q_b", format!("{}", c.q_b), "0 < q ≤ 1"));
                }
                let iterations: Vec<u64> = (c.t_min..=c.t_max).step_by(c.t_step as usize).collect();
                for &b in &c.batches_b {
                    let n = (b as f64 / c.q_b).round() as u64;
                    let acc = BarkerAccount { n_data: n, batch: b, iterations: 0, delta: 1.0 / n as f64, alpha_max: c.alpha_max };
                    acc.validate().map_err(|e| ParamError::new("batches_b", e.to_string(), "batches ≥ 21 (Theorem 2)"))?;
                    curves.push(Curve { panel: "b", accounts: vec![acc], iterations: iterations.clone() });
                }
            }
            "c" => {
                return Err(ParamError::new(
                    "panels",
                    "panel \"c\" (fraction of clipped ratios on the GMM chain) is not implemented yet: it needs the private Barker chain",
                    "[\"a\", \"b\"]",
                ))
            }
            other => return Err(ParamError::new("panels", format!("unknown panel \"{other}\""), "[\"a\", \"b\"]")),
        }
    }
    Ok(Box::new(Fig1 {
        conversions: c.conversions,
        curves,
    }))
}

const FIG1_COLUMNS: [&str; 9] = [
    "panel",
    "n_data",
    "batch",
    "q",
    "iterations",
    "delta",
    "epsilon",
    "best_alpha",
    "conversion",
];

impl Figure for Fig1 {
    fn task_count(&self) -> usize {
        self.curves.len() * self.conversions.len()
    }

    fn grid_description(&self) -> String {
        let points: usize = self.curves.iter().map(|c| c.iterations.len()).sum();
        format!(
            "{} curves, {points} points each for {} conversion(s)",
            self.curves.len(),
            self.conversions.len()
        )
    }

    fn data_columns(&self) -> Vec<&'static str> {
        FIG1_COLUMNS.to_vec()
    }

    fn run_task(&self, index: usize, _rng: &mut ChaCha8Rng) -> Result<Vec<Row>, String> {
        let curve = &self.curves[index / self.conversions.len()];
        let conversion = self.conversions[index % self.conversions.len()];
        let spent = if curve.accounts.len() == 1 {
            curve.accounts[0]
                .curve(&curve.iterations, conversion)
                .map_err(|e| e.to_string())?
        } else {
            curve
                .accounts
                .iter()
                .map(|a| a.spent(conversion))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())?
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
                ]
            })
            .collect())
    }

    fn summarize(&self, data: &Table) -> Result<Table, String> {
        Ok(data.clone())
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
            "panel_c": "not implemented: needs the private Barker chain on the GMM problem",
        })
    }
}
