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
