//! Wall-time estimates before a run (issue 30): `run`'s plan, `check` and
//! `slurm` print them per figure and in total.
//!
//! The model: a figure's tasks cost [`Figure::task_cost`] units each (flops, to
//! an order of magnitude, comparable across the tasks of one figure but not
//! across figures), so each figure has its own rate, seconds per unit on one
//! core, and a fixed part (preparing data and fits, summary, plot), both
//! measured on one paper-scale run ([`CALIBRATED_ON`]; `scripts/calibrate-estimates.sh`
//! recomputes the table from a run's manifests, which record each figure's cost
//! and timings). The LPT scheduler runs the costliest tasks first, so with `jobs`
//! workers the tasks take about max(Σ cost / jobs, max cost) units.

pub use crate::experiments::Cost;

/// Where and when [`RATES`] were measured.
pub const CALIBRATED_ON: &str =
    "a 2-core x86_64 machine of the CI kind (paper-scale run of 2026-11-25, 2 jobs, 742 s)";

/// A figure's calibration: from the manifest of its paper-scale run.
struct Rate {
    id: &'static str,
    /// seconds per cost unit on one core
    per_unit: f64,
    /// seconds outside the tasks: preparing, summary, plot, manifest
    fixed: f64,
    /// the paper-scale run's cost (every task), for a plan whose cost is only
    /// known once prepared
    paper: Cost,
}

/// From the manifests of a paper-scale run, by `scripts/calibrate-estimates.sh`.
const RATES: &[Rate] = &[
    Rate {
        id: "audit/mechanisms",
        per_unit: 2.9682e-09,
        fixed: 5.48,
        paper: Cost {
            total: 1.941540e+10,
            max: 4.000000e+09,
        },
    },
    Rate {
        // calibrated on its own paper-scale run of 2026-11-26 (2 jobs, 5.7 s, while
        // a CI build ran on the same cores: conservative)
        id: "calibration/beta_bernoulli",
        per_unit: 1.4475e-09,
        fixed: 0.808,
        paper: Cost {
            total: 6.762000e+09,
            max: 7.840000e+07,
        },
    },
    Rate {
        // calibrated on its own paper-scale run of 2026-11-26 (2 jobs, 96.6 s, idle)
        id: "calibration/dirichlet",
        per_unit: 1.3441e-09,
        fixed: 1.008,
        paper: Cost {
            total: 1.420531e+11,
            max: 1.608573e+09,
        },
    },
    Rate {
        // calibrated on its own paper-scale run of 2026-11-26 (2 jobs, 111.7 s, idle)
        id: "calibration/logistic",
        per_unit: 1.4931e-10,
        fixed: 0.749,
        paper: Cost {
            total: 1.484514e+12,
            max: 1.671750e+10,
        },
    },
    Rate {
        // calibrated on a 2-repeat paper-scale run of 2026-11-26 with the AVX2 kernels
        // (2 jobs, 441 s, a build sharing the cores part of the time: conservative);
        // the paper's 10 repeats cost 5× the units
        id: "raisa2021/banana",
        per_unit: 2.3312e-09,
        fixed: 0.138,
        paper: Cost {
            total: 1.892310e+12,
            max: 3.004187e+10,
        },
    },
    Rate {
        // a paper-scale run of 2026-11-26 (2 jobs, 1354 s) shared the 2 cores with
        // another 2-job run: its DP-SGLD tasks ran at 2.1× heikkila2019/fig3's idle
        // seconds per unit, so the measured 4.617e-10 s/unit and 34.1 s are divided by 2.1
        id: "raisa2021/gmm",
        per_unit: 2.1986e-10,
        fixed: 16.2,
        paper: Cost {
            total: 5.718400e+12,
            max: 9.600000e+10,
        },
    },
    Rate {
        // calibrated on its paper-scale run of 2026-11-26 with the AVX2 kernels (10
        // repeats, 2 jobs, 738 s, idle)
        id: "raisa2021/gauss",
        per_unit: 1.3040e-09,
        fixed: 0.137,
        paper: Cost {
            total: 1.131466e+12,
            max: 3.019600e+10,
        },
    },
    Rate {
        id: "bun2018/fig2",
        per_unit: 3.6255e-10,
        fixed: 0.025,
        paper: Cost {
            total: 9.546397e+10,
            max: 1.454644e+10,
        },
    },
    Rate {
        id: "bun2018/fig3",
        per_unit: 8.3040e-10,
        fixed: 0.141,
        paper: Cost {
            total: 8.729723e+08,
            max: 1.085406e+08,
        },
    },
    Rate {
        id: "foulds2016/fig1",
        per_unit: 1.3361e-08,
        fixed: 0.153,
        paper: Cost {
            total: 3.200000e+05,
            max: 1.000000e+04,
        },
    },
    Rate {
        id: "foulds2016/fig2",
        per_unit: 1.0086e-08,
        fixed: 0.0304,
        paper: Cost {
            total: 1.600000e+08,
            max: 1.000000e+04,
        },
    },
    Rate {
        id: "foulds2016/fig3",
        per_unit: 7.0052e-10,
        fixed: 0.0755,
        paper: Cost {
            total: 7.920000e+07,
            max: 7.920000e+07,
        },
    },
    Rate {
        id: "foulds2016/fig4_5",
        per_unit: 6.8831e-10,
        fixed: 0.0737,
        paper: Cost {
            total: 7.920000e+07,
            max: 7.920000e+07,
        },
    },
    Rate {
        id: "foulds2016/fig6",
        per_unit: 3.1287e-10,
        fixed: 0.0838,
        paper: Cost {
            total: 2.605724e+11,
            max: 5.688000e+08,
        },
    },
    Rate {
        id: "foulds2016/fig7",
        per_unit: 5.9798e-10,
        fixed: 0.0207,
        paper: Cost {
            total: 1.148800e+08,
            max: 1.148800e+08,
        },
    },
    Rate {
        id: "foulds2016/recovery",
        per_unit: 6.1882e-10,
        fixed: 0.074,
        paper: Cost {
            total: 4.269760e+10,
            max: 1.148800e+08,
        },
    },
    Rate {
        id: "geumlek2017/fig1",
        per_unit: 1.1499e-08,
        fixed: 0.522,
        paper: Cost {
            total: 4.560000e+08,
            max: 1.000000e+04,
        },
    },
    Rate {
        id: "geumlek2017/fig2",
        per_unit: 8.1882e-11,
        fixed: 0.0474,
        paper: Cost {
            total: 2.311140e+10,
            max: 1.500000e+07,
        },
    },
    Rate {
        id: "geumlek2017/fig3",
        per_unit: 2.4829e-11,
        fixed: 0.439,
        paper: Cost {
            total: 1.864318e+13,
            max: 3.710044e+11,
        },
    },
    Rate {
        id: "geumlek2017/samplers",
        // refitted after `logreg::SLICE_FLOP_COST` (the samplers-only run of
        // 2026-11-25, 142 s, per-task seconds from $PRIVPOST_TASK_TIMES)
        per_unit: 2.0824e-11,
        fixed: 0.47,
        paper: Cost {
            total: 1.362017e+13,
            max: 2.045476e+12,
        },
    },
    Rate {
        id: "heikkila2019/fig1",
        per_unit: 2.0898e-10,
        fixed: 0.61,
        paper: Cost {
            total: 2.799940e+10,
            max: 1.600000e+09,
        },
    },
    Rate {
        id: "heikkila2019/fig2",
        per_unit: 1.7181e-10,
        fixed: 0.304,
        paper: Cost {
            total: 9.600000e+09,
            max: 6.400000e+09,
        },
    },
    Rate {
        id: "heikkila2019/fig3",
        per_unit: 2.6145e-10,
        fixed: 19.9,
        paper: Cost {
            total: 9.984000e+11,
            max: 2.400000e+10,
        },
    },
    Rate {
        id: "minami2016/logreg",
        per_unit: 1.6545e-11,
        fixed: 0.585,
        paper: Cost {
            total: 9.070254e+12,
            max: 3.710044e+11,
        },
    },
];

/// Estimated wall seconds of a figure run whose tasks cost `cost`, with `jobs`
/// workers; `None` for a figure the table has no rate for (an external figure).
pub fn wall_seconds(figure_id: &str, cost: Cost, jobs: usize) -> Option<f64> {
    let r = rate(figure_id)?;
    Some(r.fixed + r.per_unit * makespan_units(cost, jobs))
}

fn rate(figure_id: &str) -> Option<&'static Rate> {
    RATES.iter().find(|r| r.id == figure_id)
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
    fn every_registry_figure_has_a_rate_and_nothing_else_does() {
        for spec in crate::experiments::REGISTRY {
            assert!(
                rate(spec.id).is_some(),
                "{}: no calibrated rate (scripts/calibrate-estimates.sh)",
                spec.id
            );
        }
        for r in RATES {
            assert!(
                crate::experiments::find(r.id).is_some(),
                "{}: not a figure",
                r.id
            );
            assert!(r.per_unit > 0.0 && r.fixed >= 0.0, "{}", r.id);
            assert!(
                r.paper.total >= r.paper.max && r.paper.max > 0.0,
                "{}",
                r.id
            );
        }
    }
}
