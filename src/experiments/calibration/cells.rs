//! The summaries shared by the calibration figures: per cell (a method at one
//! ε and n, and for multivariate θ one quantity), the coverage curve of its
//! credible levels against the nominal levels, its bands, the SBC χ² of its
//! ranks and the verdict.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::results::record::{columns, to_row};
use crate::results::table::{Row, Table};
use crate::stats::calibration::{binomial_band, dkw_halfwidth, ecdf, sbc_chi2};

/// The confidence of the bands and of the verdict.
pub const BAND_ALPHA: f64 = 0.05;

/// `summary.csv`'s columns after a cell's keys: one cell's coverage summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryTail {
    pub replications: usize,
    /// max over the nominal levels γ of |ĉ(γ) − γ| (signed)
    pub max_coverage_deviation: f64,
    pub worst_level: f64,
    /// the simultaneous 95 % DKW half-width
    pub simultaneous_band: f64,
    pub levels_outside_pointwise: usize,
    pub sbc_chi2: f64,
    pub sbc_p: f64,
    /// `calibrated` or `miscalibrated`
    pub verdict: String,
}

/// `coverage.csv`'s columns after a cell's keys: one nominal level of a cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoverageTail {
    pub level: f64,
    pub coverage: f64,
    pub deviation: f64,
    pub pointwise_low: f64,
    pub pointwise_high: f64,
    pub simultaneous_band: f64,
}

/// The columns of a cell's key record `K` followed by those of a tail record
/// `T`, kept in `cell` (one per figure and table).
pub fn joined<K: for<'de> Deserialize<'de>, T: for<'de> Deserialize<'de>>(
    cell: &'static OnceLock<Vec<&'static str>>,
) -> &'static [&'static str] {
    cell.get_or_init(|| [columns::<K>(), columns::<T>()].concat())
}

/// The replications of one cell: for each, the smallest credible level whose
/// region holds θ* (|2·PIT − 1| for a central interval, TARP's f for a ball
/// around a reference point) and its SBC rank.
pub struct CellData<K> {
    /// The cell's key record, the first columns of its summary and coverage rows.
    pub keys: K,
    pub credible: Vec<f64>,
    pub ranks: Vec<usize>,
}

impl<K: Serialize> CellData<K> {
    pub fn new(keys: K) -> Self {
        Self {
            keys,
            credible: Vec::new(),
            ranks: Vec::new(),
        }
    }

    /// (γ, ĉ(γ) − γ) at each nominal level: ĉ(γ) is the fraction of
    /// replications whose θ* lies in the γ-region.
    fn deviations(&self, levels: &[f64]) -> Vec<(f64, f64)> {
        levels
            .iter()
            .map(|&l| (l, ecdf(&self.credible, l) - l))
            .collect()
    }

    /// The cell's [`SummaryTail`]. Verdict: `calibrated` when the coverage
    /// curve stays inside the simultaneous 95 % DKW band at every level.
    pub fn summary(&self, draws: usize, bins: usize, levels: &[f64]) -> SummaryTail {
        let r = self.credible.len();
        let band = dkw_halfwidth(r, BAND_ALPHA);
        let dev = self.deviations(levels);
        let (worst_level, worst) = dev.iter().copied().fold((f64::NAN, 0.0f64), |acc, (l, d)| {
            if d.abs() > acc.1.abs() || acc.0.is_nan() {
                (l, d)
            } else {
                acc
            }
        });
        let outside = dev
            .iter()
            .filter(|&&(l, d)| {
                let (lo, hi) = binomial_band(r, l, BAND_ALPHA);
                !(lo..=hi).contains(&(l + d))
            })
            .count();
        let (chi2, p) = sbc_chi2(&self.ranks, draws, bins);
        let verdict = if worst.abs() <= band {
            "calibrated"
        } else {
            "miscalibrated"
        };
        SummaryTail {
            replications: r,
            max_coverage_deviation: worst,
            worst_level,
            simultaneous_band: band,
            levels_outside_pointwise: outside,
            sbc_chi2: chi2,
            sbc_p: p,
            verdict: verdict.into(),
        }
    }

    /// The cell's [`CoverageTail`] at each nominal level.
    pub fn coverage(&self, levels: &[f64]) -> Vec<CoverageTail> {
        let r = self.credible.len();
        let band = dkw_halfwidth(r, BAND_ALPHA);
        self.deviations(levels)
            .into_iter()
            .map(|(l, d)| {
                let (lo, hi) = binomial_band(r, l, BAND_ALPHA);
                CoverageTail {
                    level: l,
                    coverage: l + d,
                    deviation: d,
                    pointwise_low: lo,
                    pointwise_high: hi,
                    simultaneous_band: band,
                }
            })
            .collect()
    }

    /// The keys' cells, then the tail's.
    fn row<T: Serialize>(&self, tail: &T) -> Row {
        let mut row = to_row(&self.keys);
        row.extend(to_row(tail));
        row
    }
}

/// `key` holds no value twice.
pub fn distinct(key: &str, v: &[f64]) -> Result<(), crate::config::ParamError> {
    for (i, x) in v.iter().enumerate() {
        if v[..i].contains(x) {
            return Err(crate::config::ParamError::new(
                key,
                format!("{} appears twice", crate::config::check::short(*x)),
                "distinct values",
            ));
        }
    }
    Ok(())
}

/// `summary.csv`: the keys and [`SummaryTail`] of each cell.
pub fn summary_table<K: Serialize>(
    cells: Vec<CellData<K>>,
    columns: &[&str],
    (draws, bins): (usize, usize),
    levels: &[f64],
) -> Table {
    let rows = cells
        .iter()
        .map(|c| c.row(&c.summary(draws, bins, levels)))
        .collect();
    Table::new(columns, rows)
}

/// The side table `coverage.csv`: the keys and [`CoverageTail`] of each cell
/// at each nominal level.
pub fn coverage_table<K: Serialize>(
    cells: Vec<CellData<K>>,
    columns: &[&str],
    levels: &[f64],
) -> Vec<(String, Table)> {
    let rows = cells
        .iter()
        .flat_map(|c| {
            c.coverage(levels)
                .iter()
                .map(|t| c.row(t))
                .collect::<Vec<_>>()
        })
        .collect();
    vec![("coverage.csv".into(), Table::new(columns, rows))]
}

/// How a calibration figure's replications fall into tasks: per ε, per n,
/// chunks of `per_task` replications.
#[derive(Debug, Clone, Copy)]
pub struct Chunks {
    pub epsilons: usize,
    pub n_values: usize,
    pub replications: usize,
    pub per_task: usize,
}

impl Chunks {
    fn chunks(&self) -> usize {
        self.replications.div_ceil(self.per_task)
    }

    pub fn task_count(&self) -> usize {
        self.epsilons * self.n_values * self.chunks()
    }

    /// (ε index, n index, first replication, replications) of a task.
    pub fn task(&self, index: usize) -> (usize, usize, usize, usize) {
        let chunks = self.chunks();
        let cells = self.n_values * chunks;
        let (e, rest) = (index / cells, index % cells);
        let (ni, chunk) = (rest / chunks, rest % chunks);
        let first = chunk * self.per_task;
        (e, ni, first, self.per_task.min(self.replications - first))
    }
}

/// The key of a cell of a figure whose θ is multivariate, the first columns of
/// its `summary.csv` and `coverage.csv`: a method at one ε and n, and one
/// quantity (a coordinate of θ or TARP's joint check).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultiKey {
    pub method: String,
    pub epsilon: f64,
    pub n: u64,
    pub quantity: String,
}

/// `summary.csv`'s columns of a multivariate figure: [`MultiKey`], then [`SummaryTail`].
pub fn multi_summary_columns() -> &'static [&'static str] {
    static C: OnceLock<Vec<&'static str>> = OnceLock::new();
    joined::<MultiKey, SummaryTail>(&C)
}

/// `coverage.csv`'s columns of a multivariate figure: [`MultiKey`], then [`CoverageTail`].
pub fn multi_coverage_columns() -> &'static [&'static str] {
    static C: OnceLock<Vec<&'static str>> = OnceLock::new();
    joined::<MultiKey, CoverageTail>(&C)
}

/// The quantities of a K-dimensional θ: `{symbol}1` … `{symbol}K`, then `tarp`.
pub fn quantity_names(symbol: &str, k: usize) -> Vec<String> {
    (1..=k)
        .map(|j| format!("{symbol}{j}"))
        .chain(["tarp".to_string()])
        .collect()
}

/// One replication of a multivariate figure, as its rows record it.
pub struct Replication<'a> {
    pub epsilon: f64,
    pub n: u64,
    pub replication: usize,
    /// θ*
    pub theta: &'a [f64],
    /// ‖θ* − θ_r‖, TARP's truth
    pub distance: f64,
}

/// One row of a multivariate figure's `data.csv`: one method's check of one
/// quantity in one replication.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckRow {
    pub epsilon: f64,
    pub n: u64,
    pub replication: usize,
    pub method: String,
    pub quantity: String,
    /// θ*ₖ, or for TARP the distance ‖θ* − θ_r‖.
    pub truth: f64,
    /// The posterior CDF at θ*ₖ, or TARP's randomised f.
    pub pit: f64,
    /// The smallest credible level whose region holds θ*: |2·PIT − 1| for the
    /// central interval of θₖ, f for TARP's ball around θ_r.
    pub credible_level: f64,
    pub rank: usize,
}

/// The rows of one method's checks of one replication: `checks` holds (PIT,
/// rank) per coordinate, then TARP's (f, rank), in the order of `quantities`
/// (from [`quantity_names`]).
pub fn check_rows(
    rep: &Replication,
    method: &str,
    quantities: &[String],
    checks: &[(f64, usize)],
) -> Vec<Row> {
    let k = rep.theta.len();
    quantities
        .iter()
        .zip(checks)
        .enumerate()
        .map(|(j, (q, &(pit, rank)))| {
            let (truth, credible_level) = if j < k {
                (rep.theta[j], crate::stats::calibration::central_level(pit))
            } else {
                (rep.distance, pit)
            };
            to_row(&CheckRow {
                epsilon: rep.epsilon,
                n: rep.n,
                replication: rep.replication,
                method: method.into(),
                quantity: q.clone(),
                truth,
                pit,
                credible_level,
                rank,
            })
        })
        .collect()
}

/// The axes of a multivariate figure's cells, in config order.
pub struct MultiGrid<'a> {
    pub methods: &'a [&'a str],
    pub epsilons: &'a [f64],
    pub n_values: &'a [u64],
    pub quantities: &'a [String],
}

impl MultiGrid<'_> {
    /// The rows of `data` grouped by (method, ε, n, quantity), in config order.
    pub fn cells(&self, data: &Table) -> anyhow::Result<Vec<CellData<MultiKey>>> {
        let mut cells = Vec::new();
        for method in self.methods {
            for &epsilon in self.epsilons {
                for &n in self.n_values {
                    for quantity in self.quantities {
                        cells.push(CellData::new(MultiKey {
                            method: (*method).into(),
                            epsilon,
                            n,
                            quantity: quantity.clone(),
                        }));
                    }
                }
            }
        }
        let (nq, nn, ne) = (
            self.quantities.len(),
            self.n_values.len(),
            self.epsilons.len(),
        );
        for (i, row) in data.record_iter::<CheckRow>()?.enumerate() {
            let row = row?;
            let (mi, ei, ni, qi) = (
                self.methods.iter().position(|x| *x == row.method),
                self.epsilons.iter().position(|&x| x == row.epsilon),
                self.n_values.iter().position(|&x| x == row.n),
                self.quantities.iter().position(|x| *x == row.quantity),
            );
            let (Some(mi), Some(ei), Some(ni), Some(qi)) = (mi, ei, ni, qi) else {
                anyhow::bail!(
                    "data row {i}: its method, epsilon, n and quantity are not all in the config"
                );
            };
            let c = &mut cells[((mi * ne + ei) * nn + ni) * nq + qi];
            c.credible.push(row.credible_level);
            c.ranks.push(row.rank);
        }
        Ok(cells)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The headers the CSVs have always had: keys, then the shared tail.
    #[test]
    fn multivariate_columns_are_keys_then_the_shared_tail() {
        let keys = ["method", "epsilon", "n", "quantity"];
        let tail = [
            "replications",
            "max_coverage_deviation",
            "worst_level",
            "simultaneous_band",
            "levels_outside_pointwise",
            "sbc_chi2",
            "sbc_p",
            "verdict",
        ];
        assert_eq!(multi_summary_columns(), [&keys[..], &tail[..]].concat());
        let tail = [
            "level",
            "coverage",
            "deviation",
            "pointwise_low",
            "pointwise_high",
            "simultaneous_band",
        ];
        assert_eq!(multi_coverage_columns(), [&keys[..], &tail[..]].concat());
        assert_eq!(
            columns::<CheckRow>(),
            [
                "epsilon",
                "n",
                "replication",
                "method",
                "quantity",
                "truth",
                "pit",
                "credible_level",
                "rank"
            ]
        );
    }

    /// Rows have the declared columns; coordinates record the central level
    /// |2·PIT − 1|, TARP its f; grouping puts each row in its own cell.
    #[test]
    fn check_rows_round_trip_through_the_grid() {
        let quantities = quantity_names("w", 2);
        assert_eq!(quantities, ["w1", "w2", "tarp"]);
        let rep = Replication {
            epsilon: 0.3,
            n: 10,
            replication: 4,
            theta: &[0.5, -1.0],
            distance: 2.0,
        };
        let rows = check_rows(&rep, "m", &quantities, &[(0.9, 1), (0.25, 2), (0.7, 3)]);
        assert_eq!(rows.len(), 3);
        assert!(rows.iter().all(|r| r.len() == columns::<CheckRow>().len()));
        let table = Table::new(columns::<CheckRow>(), rows);
        let read: Vec<CheckRow> = table.records().unwrap();
        assert!((read[0].credible_level - 0.8).abs() < 1e-12);
        assert!((read[1].credible_level - 0.5).abs() < 1e-12);
        assert_eq!(read[2].credible_level, 0.7);
        assert_eq!(read[2].truth, 2.0);
        let grid = MultiGrid {
            methods: &["other", "m"],
            epsilons: &[1.0, 0.3],
            n_values: &[10],
            quantities: &quantities,
        };
        let cells = grid.cells(&table).unwrap();
        assert_eq!(cells.len(), 2 * 2 * 3);
        let filled: Vec<usize> = (0..cells.len())
            .filter(|&i| !cells[i].ranks.is_empty())
            .collect();
        assert_eq!(filled, [9, 10, 11]);
        assert_eq!(cells[10].ranks, [2]);
        let bad = MultiGrid {
            methods: &["other"],
            ..grid
        };
        assert!(bad.cells(&table).is_err());
    }
}
