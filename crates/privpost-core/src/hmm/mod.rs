//! Hidden Markov models with naive-Bayes emissions for the war-log case study of
//! Foulds et al. 2016 (§4–5): event records, their per-(region, month, feature)
//! histograms (the only way the data enter), a synthetic generator with a known
//! ground truth ([`generate`]), and the Gibbs samplers — non-private, Laplace
//! mechanism on the histograms, and OPS ([`gibbs`]).

pub mod dirichlet;
pub mod generate;
pub mod gibbs;
pub mod laplace;
pub mod metrics;

/// Feature names, in record order after the region and month columns.
pub const FEATURES: [&str; 5] = [
    "type",
    "category",
    "friendly_or_hostnation_casualty",
    "civilian_casualty",
    "enemy_casualty_or_detained",
];

/// One event: region and month indices and the value of each of the five features.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub region: usize,
    pub month: usize,
    pub values: [usize; 5],
}

/// One kept (region, month) cell: its month and a histogram per feature. Counts are
/// reals so that Laplace-noised statistics use the same type.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub month: usize,
    pub events: usize,
    pub counts: Vec<Vec<f64>>,
}

/// The data as the model sees them: per region, the time-ordered kept cells.
#[derive(Debug, Clone, PartialEq)]
pub struct Histograms {
    /// number of values of each feature (K_d)
    pub cards: Vec<usize>,
    /// kept regions (original indices) and their cells
    pub regions: Vec<(usize, Vec<Cell>)>,
}

impl Histograms {
    /// Aggregates records into histograms; drops empty (region, month) cells and
    /// regions with fewer than `min_region_events` events in total (§5's preprocessing).
    pub fn aggregate(
        records: &[Record],
        regions: usize,
        months: usize,
        cards: &[usize],
        min_region_events: usize,
    ) -> Self {
        let mut grid: Vec<Vec<Cell>> = (0..regions)
            .map(|_| {
                (0..months)
                    .map(|m| Cell {
                        month: m,
                        events: 0,
                        counts: cards.iter().map(|&k| vec![0.0; k]).collect(),
                    })
                    .collect()
            })
            .collect();
        for r in records {
            let c = &mut grid[r.region][r.month];
            c.events += 1;
            for (d, &v) in r.values.iter().enumerate() {
                c.counts[d][v] += 1.0;
            }
        }
        let regions = grid
            .into_iter()
            .enumerate()
            .filter(|(_, cells)| cells.iter().map(|c| c.events).sum::<usize>() >= min_region_events)
            .map(|(r, cells)| {
                (
                    r,
                    cells
                        .into_iter()
                        .filter(|c| c.events > 0)
                        .collect::<Vec<_>>(),
                )
            })
            .filter(|(_, cells)| !cells.is_empty())
            .collect();
        Self {
            cards: cards.to_vec(),
            regions,
        }
    }

    pub fn cells(&self) -> usize {
        self.regions.iter().map(|r| r.1.len()).sum()
    }

    pub fn events(&self) -> usize {
        self.regions
            .iter()
            .flat_map(|r| r.1.iter())
            .map(|c| c.events)
            .sum()
    }

    /// Median number of events per kept cell.
    pub fn median_events(&self) -> f64 {
        let mut e: Vec<usize> = self
            .regions
            .iter()
            .flat_map(|r| r.1.iter())
            .map(|c| c.events)
            .collect();
        if e.is_empty() {
            return 0.0;
        }
        e.sort_unstable();
        let n = e.len();
        if n % 2 == 1 {
            e[n / 2] as f64
        } else {
            0.5 * (e[n / 2 - 1] + e[n / 2]) as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregation_drops_empty_cells_and_sparse_regions() {
        let rec = |region, month, t| Record {
            region,
            month,
            values: [t, 0, 1, 0, 0],
        };
        let records = vec![rec(0, 0, 1), rec(0, 0, 2), rec(0, 2, 1), rec(1, 1, 0)];
        let h = Histograms::aggregate(&records, 2, 3, &[3, 1, 2, 2, 2], 2);
        assert_eq!(h.regions.len(), 1, "region 1 has 1 event < 2");
        let cells = &h.regions[0].1;
        assert_eq!(
            cells.iter().map(|c| c.month).collect::<Vec<_>>(),
            vec![0, 2]
        );
        assert_eq!(cells[0].counts[0], vec![0.0, 1.0, 1.0]);
        assert_eq!(cells[0].counts[2], vec![0.0, 2.0]);
        assert_eq!((h.cells(), h.events(), h.median_events()), (2, 3, 1.5));
    }
}
