//! Wall-time estimates before a run: `run`'s plan, `check` and
//! `slurm` print them per figure and in total.
//!
//! The model: a figure's tasks cost [`crate::experiments::Figure::task_cost`] units each (flops, to
//! an order of magnitude, comparable across the tasks of one figure but not
//! across figures), so each figure has its own rate, seconds per unit on one
//! core, and a fixed part (preparing data and fits, summary, plot), both
//! measured on one paper-scale run ([`CALIBRATED_ON`]; `scripts/calibrate-estimates.sh`
//! recomputes the table from a run's manifests, which record each figure's cost
//! and timings). The LPT scheduler runs the costliest tasks first, so with `jobs`
//! workers the tasks take about max(Σ cost / jobs, max cost) units.

pub use crate::experiments::{Cost, Rate};

/// Where and when the registry's rates were measured.
pub const CALIBRATED_ON: &str =
    "a 2-core x86_64 machine of the CI kind (paper-scale run of 2026-11-25, 2 jobs, 742 s)";

/// Estimated wall seconds of a figure run whose tasks cost `cost`, with `jobs`
/// workers; `None` for a figure the table has no rate for (an external figure).
pub fn wall_seconds(figure_id: &str, cost: Cost, jobs: usize) -> Option<f64> {
    let r = rate(figure_id)?;
    Some(r.fixed + r.per_unit * makespan_units(cost, jobs))
}

/// A built-in figure's calibrated rate (its registry row's `rate`).
fn rate(figure_id: &str) -> Option<Rate> {
    crate::experiments::find(figure_id).and_then(|s| s.rate)
}

/// The LPT schedule's length in cost units: the work shared over `jobs`, or
/// the largest task if that is longer.
pub fn makespan_units(cost: Cost, jobs: usize) -> f64 {
    (cost.total / jobs.max(1) as f64).max(cost.max)
}

/// The cost of a run before it is prepared: the plan's where it knows it
/// (`known`), else the calibration run's if this run is at paper scale (no
/// profile, no `--set`), else none.
pub fn plan_cost(figure_id: &str, known: Option<Cost>, paper_scale: bool) -> Option<Cost> {
    match known {
        Some(cost) => Some(cost),
        None if paper_scale => Some(rate(figure_id)?.paper),
        None => None,
    }
}

/// The estimated wall time of one array task of a Slurm plan whose runs are
/// (figure id, cost): every shard prepares every figure (the fixed part), and
/// the tasks are shared over `shards` × `cpus` workers (never less than the
/// largest task).
pub fn shard_seconds(
    runs: impl IntoIterator<Item = (String, Option<Cost>)>,
    shards: usize,
    cpus: usize,
) -> Option<f64> {
    runs.into_iter().try_fold(0.0, |acc, (id, cost)| {
        let r = rate(&id)?;
        Some(acc + r.fixed + r.per_unit * makespan_units(cost?, shards.max(1) * cpus.max(1)))
    })
}

/// A `--time` for a Slurm job that is estimated to take `seconds`: twice the
/// estimate plus ten minutes (the estimate's machine may not be the cluster's),
/// rounded up to whole minutes, as `H:MM:00`.
pub fn slurm_time(seconds: f64) -> String {
    let minutes = ((2.0 * seconds + 600.0) / 60.0).ceil() as u64;
    format!("{}:{:02}:00", minutes / 60, minutes % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn makespan_is_the_shared_work_or_the_largest_task() {
        let c = Cost {
            total: 10.0,
            max: 2.0,
        };
        assert_eq!(makespan_units(c, 2), 5.0);
        assert_eq!(makespan_units(c, 10), 2.0);
        assert_eq!(makespan_units(c, 0), 10.0);
    }

    #[test]
    fn slurm_time_doubles_and_pads_the_estimate() {
        assert_eq!(slurm_time(0.0), "0:10:00");
        assert_eq!(slurm_time(1800.0), "1:10:00");
        assert_eq!(slurm_time(61.0), "0:13:00");
    }

    #[test]
    fn every_registry_figure_has_a_rate() {
        for spec in crate::experiments::REGISTRY {
            let r = rate(spec.id).unwrap_or_else(|| {
                panic!(
                    "{}: no calibrated rate (scripts/calibrate-estimates.sh)",
                    spec.id
                )
            });
            assert!(r.per_unit > 0.0 && r.fixed >= 0.0, "{}", spec.id);
            assert!(
                r.paper.total >= r.paper.max && r.paper.max > 0.0,
                "{}",
                spec.id
            );
        }
        assert_eq!(rate("not/a_figure"), None);
    }
}
