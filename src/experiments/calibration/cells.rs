//! The summaries shared by the calibration figures: per cell (a method at one
//! ε and n, and for multivariate θ one quantity), the coverage curve of its
//! credible levels against the nominal levels, its bands, the SBC χ² of its
//! ranks and the verdict.

use crate::results::table::{Cell, Row, Table};
use crate::stats::calibration::{binomial_band, dkw_halfwidth, ecdf, sbc_chi2};

/// The confidence of the bands and of the verdict.
pub const BAND_ALPHA: f64 = 0.05;

/// `summary.csv`'s columns after a cell's keys, in the order of
/// [`CellData::summary_row`].
pub const SUMMARY_TAIL: [&str; 8] = [
    "replications",
    "max_coverage_deviation",
    "worst_level",
    "simultaneous_band",
    "levels_outside_pointwise",
    "sbc_chi2",
    "sbc_p",
    "verdict",
];

/// `coverage.csv`'s columns after a cell's keys, in the order of
/// [`CellData::coverage_rows`].
pub const COVERAGE_TAIL: [&str; 6] = [
    "level",
    "coverage",
    "deviation",
    "pointwise_low",
    "pointwise_high",
    "simultaneous_band",
];

/// The replications of one cell: for each, the smallest credible level whose
/// region holds θ* (|2·PIT − 1| for a central interval, TARP's f for a ball
/// around a reference point) and its SBC rank.
pub struct CellData {
    /// The cell's key cells, the first columns of its summary and coverage rows.
    pub keys: Row,
    pub credible: Vec<f64>,
    pub ranks: Vec<usize>,
}

impl CellData {
    pub fn new(keys: Row) -> Self {
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

    /// The keys, then [`SUMMARY_TAIL`]. Verdict: `calibrated` when the coverage
    /// curve stays inside the simultaneous 95 % DKW band at every level.
    pub fn summary_row(&self, draws: usize, bins: usize, levels: &[f64]) -> Row {
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
        let tail: [Cell; 8] = [
            r.into(),
            worst.into(),
            worst_level.into(),
            band.into(),
            outside.into(),
            chi2.into(),
            p.into(),
            verdict.into(),
        ];
        self.keys.iter().cloned().chain(tail).collect()
    }

    /// One row per nominal level: the keys, then [`COVERAGE_TAIL`].
    pub fn coverage_rows(&self, levels: &[f64]) -> Vec<Row> {
        let r = self.credible.len();
        let band = dkw_halfwidth(r, BAND_ALPHA);
        self.deviations(levels)
            .into_iter()
            .map(|(l, d)| {
                let (lo, hi) = binomial_band(r, l, BAND_ALPHA);
                let tail: [Cell; 6] = [
                    l.into(),
                    (l + d).into(),
                    d.into(),
                    lo.into(),
                    hi.into(),
                    band.into(),
                ];
                self.keys.iter().cloned().chain(tail).collect()
            })
            .collect()
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

/// `summary.csv`: one [`CellData::summary_row`] per cell.
pub fn summary_table(
    cells: Vec<CellData>,
    columns: &[&str],
    (draws, bins): (usize, usize),
    levels: &[f64],
) -> Table {
    let rows = cells
        .iter()
        .map(|c| c.summary_row(draws, bins, levels))
        .collect();
    Table::new(columns, rows)
}

/// The side table `coverage.csv`: [`CellData::coverage_rows`] of every cell.
pub fn coverage_table(
    cells: Vec<CellData>,
    columns: &[&str],
    levels: &[f64],
) -> Vec<(String, Table)> {
    let rows = cells.iter().flat_map(|c| c.coverage_rows(levels)).collect();
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

/// The first columns of `summary.csv` and `coverage.csv` of a figure whose θ
/// is multivariate: a cell is a method at one ε and n, and one quantity (a
/// coordinate of θ or TARP's joint check).
pub const MULTI_KEYS: [&str; 4] = ["method", "epsilon", "n", "quantity"];

/// `data.csv`'s columns of a multivariate figure, in the order of
/// [`CheckRow::cells`].
pub const MULTI_DATA_COLUMNS: [&str; 9] = [
    "epsilon",
    "n",
    "replication",
    "method",
    "quantity",
    "truth",
    "pit",
    "credible_level",
    "rank",
];

/// `summary.csv`'s columns of a multivariate figure: [`MULTI_KEYS`], then [`SUMMARY_TAIL`].
pub const MULTI_SUMMARY_COLUMNS: [&str; 12] = [
    "method",
    "epsilon",
    "n",
    "quantity",
    "replications",
    "max_coverage_deviation",
    "worst_level",
    "simultaneous_band",
    "levels_outside_pointwise",
    "sbc_chi2",
    "sbc_p",
    "verdict",
];

/// `coverage.csv`'s columns of a multivariate figure: [`MULTI_KEYS`], then [`COVERAGE_TAIL`].
pub const MULTI_COVERAGE_COLUMNS: [&str; 10] = [
    "method",
    "epsilon",
    "n",
    "quantity",
    "level",
    "coverage",
    "deviation",
    "pointwise_low",
    "pointwise_high",
    "simultaneous_band",
];

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
struct CheckRow<'a> {
    rep: &'a Replication<'a>,
    method: &'a str,
    quantity: &'a str,
    /// θ*ₖ, or for TARP the distance ‖θ* − θ_r‖.
    truth: f64,
    /// The posterior CDF at θ*ₖ, or TARP's randomised f.
    pit: f64,
    /// The smallest credible level whose region holds θ*: |2·PIT − 1| for the
    /// central interval of θₖ, f for TARP's ball around θ_r.
    credible_level: f64,
    rank: usize,
}

impl CheckRow<'_> {
    fn cells(&self) -> Row {
        vec![
            self.rep.epsilon.into(),
            self.rep.n.into(),
            self.rep.replication.into(),
            self.method.into(),
            self.quantity.into(),
            self.truth.into(),
            self.pit.into(),
            self.credible_level.into(),
            self.rank.into(),
        ]
    }
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
            CheckRow {
                rep,
                method,
                quantity: q,
                truth,
                pit,
                credible_level,
                rank,
            }
            .cells()
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
    pub fn cells(&self, data: &Table) -> anyhow::Result<Vec<CellData>> {
        let col = |c: &str| data.col(c);
        let (m, e, n, q, lvl, rk) = (
            col("method")?,
            col("epsilon")?,
            col("n")?,
            col("quantity")?,
            col("credible_level")?,
            col("rank")?,
        );
        let mut cells = Vec::new();
        for method in self.methods {
            for &eps in self.epsilons {
                for &nv in self.n_values {
                    for qv in self.quantities {
                        cells.push(CellData::new(vec![
                            (*method).into(),
                            eps.into(),
                            nv.into(),
                            qv.as_str().into(),
                        ]));
                    }
                }
            }
        }
        let (nq, nn, ne) = (
            self.quantities.len(),
            self.n_values.len(),
            self.epsilons.len(),
        );
        for i in 0..data.rows.len() {
            let name = data.s(i, q);
            let (mi, ei, ni, qi) = (
                self.methods.iter().position(|x| *x == data.s(i, m)),
                self.epsilons.iter().position(|&x| x == data.f(i, e)),
                self.n_values.iter().position(|&x| x as f64 == data.f(i, n)),
                self.quantities.iter().position(|x| *x == name),
            );
            let (Some(mi), Some(ei), Some(ni), Some(qi)) = (mi, ei, ni, qi) else {
                anyhow::bail!(
                    "data row {i}: its {} are not all in the config",
                    MULTI_KEYS.join(", ")
                );
            };
            let c = &mut cells[((mi * ne + ei) * nn + ni) * nq + qi];
            c.credible.push(data.f(i, lvl));
            c.ranks.push(data.f(i, rk) as usize);
        }
        Ok(cells)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multivariate_columns_are_keys_then_the_shared_tail() {
        assert_eq!(MULTI_SUMMARY_COLUMNS[..4], MULTI_KEYS);
        assert_eq!(MULTI_SUMMARY_COLUMNS[4..], SUMMARY_TAIL);
        assert_eq!(MULTI_COVERAGE_COLUMNS[..4], MULTI_KEYS);
        assert_eq!(MULTI_COVERAGE_COLUMNS[4..], COVERAGE_TAIL);
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
        assert!(rows.iter().all(|r| r.len() == MULTI_DATA_COLUMNS.len()));
        let table = Table::new(&MULTI_DATA_COLUMNS, rows);
        let level = table.col("credible_level").unwrap();
        assert!((table.f(0, level) - 0.8).abs() < 1e-12);
        assert!((table.f(1, level) - 0.5).abs() < 1e-12);
        assert_eq!(table.f(2, level), 0.7);
        assert_eq!(table.f(2, table.col("truth").unwrap()), 2.0);
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
