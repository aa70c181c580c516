//! Splitting a command's plan into shards: every task of every figure run
//! (and sweep point) of one command goes to exactly one of `n` shards, the
//! same way on every machine, balanced by each task's cost estimate
//! ([`crate::experiments::Figure::task_cost`]).
//!
//! The split is longest-processing-time-first (Graham 1969): tasks sorted by
//! cost (largest first, ties by run then task index), each given to the shard
//! with the least assigned cost so far (ties: the lowest shard). Its makespan is
//! at most 4/3 of the best possible for the estimated costs. Costs are rounded
//! to whole units first, so the split is exact integer arithmetic and cannot
//! differ between the shards and `merge`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub use crate::results::shards::MAX_SHARDS;

/// `--shard i/n`: shard `index` (1-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSpec {
    pub index: usize,
    pub count: usize,
}

impl std::fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A `--shard` value that is not i/n with 1 ≤ i ≤ n.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ShardSpecError(pub String);

impl std::str::FromStr for ShardSpec {
    type Err = ShardSpecError;

    /// `i/n` with 1 ≤ i ≤ n ≤ [`MAX_SHARDS`].
    fn from_str(s: &str) -> Result<Self, ShardSpecError> {
        let allowed =
            format!("allowed: i/n with whole numbers 1 ≤ i ≤ n ≤ {MAX_SHARDS}, e.g. 1/4 … 4/4");
        let (i, n) = s.split_once('/').ok_or_else(|| {
            ShardSpecError(format!("--shard {s}: not of the form i/n ({allowed})"))
        })?;
        let parse = |t: &str| t.trim().parse::<usize>().ok();
        match (parse(i), parse(n)) {
            (Some(index), Some(count))
                if (1..=MAX_SHARDS).contains(&count) && (1..=count).contains(&index) =>
            {
                Ok(ShardSpec { index, count })
            }
            _ => Err(ShardSpecError(format!(
                "--shard {s}: out of range ({allowed})"
            ))),
        }
    }
}

/// A cost estimate as whole units (at least 1; NaN or negative counts as 1,
/// and estimates are capped at 10^15 so sums over 10^4 tasks cannot overflow).
pub fn cost_units(estimate: f64) -> u64 {
    if estimate.is_finite() && estimate > 1.0 {
        estimate.min(1e15).round() as u64
    } else {
        1
    }
}

/// The split of a plan: for each shard (0-based here), for each run, the task
/// indices it computes (ascending), and each shard's total cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    pub tasks: Vec<Vec<Vec<usize>>>,
    pub cost: Vec<u64>,
}

impl Assignment {
    /// The (0-based) shard of task `task` of run `run`.
    pub fn owner(&self, run: usize, task: usize) -> Option<usize> {
        self.tasks.iter().position(|runs| {
            runs.get(run)
                .is_some_and(|t| t.binary_search(&task).is_ok())
        })
    }
}

/// Splits the tasks of every run (`costs[run][task]`, whole units) over
/// `shards` shards, longest first.
pub fn assign(costs: &[Vec<u64>], shards: usize) -> Assignment {
    let shards = shards.max(1);
    let mut order: Vec<(u64, usize, usize)> = costs
        .iter()
        .enumerate()
        .flat_map(|(r, c)| c.iter().enumerate().map(move |(t, &cost)| (cost, r, t)))
        .collect();
    // largest cost first; equal costs in plan order
    order.sort_by_key(|&(cost, r, t)| (Reverse(cost), r, t));
    let mut tasks = vec![vec![Vec::new(); costs.len()]; shards];
    let mut cost = vec![0u64; shards];
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> =
        (0..shards).map(|s| Reverse((0, s))).collect();
    for (c, r, t) in order {
        let Some(Reverse((load, s))) = heap.pop() else {
            break;
        };
        tasks[s][r].push(t);
        cost[s] = load.saturating_add(c);
        heap.push(Reverse((cost[s], s)));
    }
    for runs in &mut tasks {
        for t in runs.iter_mut() {
            t.sort_unstable();
        }
    }
    Assignment { tasks, cost }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_specs_parse_and_refuse() {
        assert_eq!(
            "2/4".parse::<ShardSpec>(),
            Ok(ShardSpec { index: 2, count: 4 })
        );
        assert_eq!("1/1".parse::<ShardSpec>().unwrap().to_string(), "1/1");
        for bad in [
            "0/4", "5/4", "4", "a/b", "1/0", "-1/4", "1/100001", "1/4/2", "",
        ] {
            let e = bad.parse::<ShardSpec>().unwrap_err();
            assert!(e.0.contains("allowed"), "{bad}: {e}");
        }
    }

    #[test]
    fn cost_units_are_whole_and_positive() {
        assert_eq!(cost_units(f64::NAN), 1);
        assert_eq!(cost_units(-3.0), 1);
        assert_eq!(cost_units(0.2), 1);
        assert_eq!(cost_units(7.6), 8);
        assert_eq!(cost_units(f64::INFINITY), 1);
        assert_eq!(cost_units(1e300), 1_000_000_000_000_000);
    }

    /// Every task lands on exactly one shard; loads add up; the split is the
    /// same on every call.
    #[test]
    fn every_task_once_and_deterministic() {
        let costs: Vec<Vec<u64>> = vec![
            (0..37).map(|t| 1 + (t * 7919 % 13) as u64).collect(),
            vec![1000, 5, 5],
            vec![],
            (0..5).map(|_| 40).collect(),
        ];
        for shards in [1, 2, 3, 4, 7, 50] {
            let a = assign(&costs, shards);
            assert_eq!(a, assign(&costs, shards));
            assert_eq!(a.tasks.len(), shards);
            for (r, c) in costs.iter().enumerate() {
                let mut all: Vec<usize> = a.tasks.iter().flat_map(|s| s[r].clone()).collect();
                all.sort_unstable();
                assert_eq!(
                    all,
                    (0..c.len()).collect::<Vec<_>>(),
                    "run {r}, {shards} shards"
                );
                for t in 0..c.len() {
                    let owner = a.owner(r, t).unwrap();
                    assert!(a.tasks[owner][r].contains(&t));
                }
            }
            for (s, runs) in a.tasks.iter().enumerate() {
                let costs = &costs;
                let sum: u64 = runs
                    .iter()
                    .enumerate()
                    .flat_map(|(r, ts)| ts.iter().map(move |&t| costs[r][t]))
                    .sum();
                assert_eq!(sum, a.cost[s]);
            }
        }
    }

    /// Longest-first meets Graham's bound against brute force on small cases,
    /// and beats a round-robin split when costs are skewed.
    #[test]
    fn balance_is_within_four_thirds_of_optimal() {
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            1 + (state >> 33) % 100
        };
        for _ in 0..200 {
            let costs: Vec<u64> = (0..9).map(|_| next()).collect();
            for shards in [2, 3] {
                let a = assign(std::slice::from_ref(&costs), shards);
                let makespan = *a.cost.iter().max().unwrap();
                // brute force over all shards^9 splits
                let mut best = u64::MAX;
                for code in 0..(shards as u64).pow(9) {
                    let mut loads = vec![0u64; shards];
                    let mut c = code;
                    for &x in &costs {
                        loads[(c % shards as u64) as usize] += x;
                        c /= shards as u64;
                    }
                    best = best.min(*loads.iter().max().unwrap());
                }
                assert!(
                    3 * makespan <= 4 * best,
                    "{costs:?} on {shards}: {makespan} vs {best}"
                );
            }
        }
        // one expensive task per four cheap ones: round robin would put all
        // expensive tasks on shard 0
        let costs: Vec<u64> = (0..40).map(|t| if t % 4 == 0 { 100 } else { 1 }).collect();
        let a = assign(std::slice::from_ref(&costs), 4);
        let (lo, hi) = (a.cost.iter().min().unwrap(), a.cost.iter().max().unwrap());
        // the best possible is 300 (ten 100s on four shards); round robin gives 1000
        assert!(hi - lo <= 100 && *hi == 300, "{:?}", a.cost);
    }
}
