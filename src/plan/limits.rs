//! The checks between planning and work: the output folder, secure noise and
//! shards, the plan limits (tasks, memory, flops), the estimates, and the
//! worker pool.

use std::path::Path;

use super::types::{Planned, Prepared};
use crate::config::ConfigError;
use crate::error::CommandError;
use crate::experiments::Footprint;
use crate::runner::estimate;
use crate::runner::human_duration;
use crate::runner::shard::{self as split, Assignment};

/// The most tasks one figure run may have: its rows are held in memory and
/// written as one data.csv.
pub const MAX_TASKS: usize = 1_000_000;

/// The most estimated work a command (or a shard) runs without --allow-long:
/// 10^15 flops, about a CPU-week at the 1–2 Gflop/s the samplers reach here.
pub const MAX_FLOPS: f64 = 1e15;

/// The share of the machine's memory the tasks of one run may hold at once.
pub const MEMORY_SHARE: f64 = 0.8;

/// Refuses an output folder that cannot be written (exit 2), before any work:
/// creates it if needed and writes and removes a probe file, named by process
/// and call so that threads of one process (Python) never share one.
pub fn check_writable(out: &Path) -> Result<(), CommandError> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let bad = |e: std::io::Error| {
        CommandError::input(format!(
            "--out {}: cannot write there ({e}); allowed: a folder this user can create and write",
            out.display()
        ))
    };
    std::fs::create_dir_all(out).map_err(bad)?;
    let probe = out.join(format!(
        ".privpost-probe-{}-{n}",
        crate::results::owner_tag()
    ));
    std::fs::write(&probe, b"").map_err(bad)?;
    std::fs::remove_file(&probe).map_err(bad)
}

/// Every figure folder a run will write under `out` (`<paper>/<figure>[@point]`,
/// their paper folders, and `out` itself) must be a folder or creatable: a file in
/// the way is refused here, before anything is prepared or computed (exit 2).
/// Creates nothing; [`check_writable`] probes `out` itself.
pub fn check_targets(out: &Path, planned: &[Planned]) -> Result<(), CommandError> {
    for p in planned {
        let dir = crate::runner::output_dir(out, &p.resolved);
        for d in dir.ancestors() {
            if d.exists() && !d.is_dir() {
                return Err(CommandError::input(format!(
                    "--out {}: {} is a file, where {} needs a folder (allowed: an output folder whose <paper>/<figure> paths are folders or absent)",
                    out.display(),
                    d.display(),
                    p.resolved.experiment
                )));
            }
            if d == out {
                break;
            }
        }
    }
    Ok(())
}

/// `noise = "secure"` draws fresh system randomness on every run and keeps
/// nothing in the task cache, where shards meet: refused with `--shard`,
/// `merge` and `slurm` (exit 2, naming the config and the key).
pub fn refuse_secure(planned: &[Planned], verb: &str) -> Result<(), CommandError> {
    use crate::privacy::event::NoiseMode;
    match planned
        .iter()
        .find(|p| crate::config::noise_mode(&p.resolved.params) == NoiseMode::Secure)
    {
        Some(p) => Err(ConfigError {
            file: p.resolved.file(),
            key: Some(crate::config::NOISE_KEY.into()),
            message: format!(
                "noise = \"secure\" cannot be used with {verb}: a secure run draws its noise from the operating system and keeps no task in the cache, which is where shards are collected"
            ),
            allowed: Some("an unsharded `privpost run`, or noise = \"exact\" (seeded, shards and resumes like float)".into()),
        }
        .into()),
        None => Ok(()),
    }
}

/// The estimate lines of runs given as (name, figure id, cost if known) with
/// `jobs` workers: a line per run, the total, the calibration machine. Shared
/// by `check` (before preparing) and `run` (after).
pub fn estimate_lines(
    runs: impl IntoIterator<Item = (String, String, Option<estimate::Cost>)>,
    jobs: usize,
) -> Vec<String> {
    let mut lines = vec![format!(
        "estimated wall time with {jobs} jobs, if no task is cached:"
    )];
    let (mut total, mut count, mut unknown) = (0.0, 0, 0);
    for (name, id, cost) in runs {
        let seconds = cost.and_then(|c| estimate::wall_seconds(&id, c, jobs));
        total += seconds.unwrap_or(0.0);
        unknown += usize::from(seconds.is_none());
        count += 1;
        lines.push(format!(
            "  {name}: {}",
            seconds.map_or_else(
                || "no estimate (its cost is known once its data is prepared, and `run` prints it then; an external figure has no calibrated rate)".to_string(),
                |s| format!("about {}", human_duration(s))
            )
        ));
    }
    if count > 1 {
        lines.push(match unknown {
            0 => format!("  total: about {}", human_duration(total)),
            u if u == count => "  total: unknown (no run has an estimate yet)".to_string(),
            u => format!(
                "  total: more than about {} ({u} of the {count} runs have no estimate yet)",
                human_duration(total)
            ),
        });
    }
    lines.push(format!(
        "  (cost model calibrated on {})",
        estimate::CALIBRATED_ON
    ));
    if let Some(busy) = machine_load() {
        lines.push(busy);
    }
    lines
}

/// A line saying that other work holds the cores, when it does: the estimates
/// assume idle cores, and on a loaded machine they ran 2–8× low. From the 1-minute
/// load average of /proc/loadavg against the cores this process may use.
fn machine_load() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let load: f64 = text.split_whitespace().next()?.parse().ok()?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    (load >= 0.5 * cores).then(|| {
        format!(
            "  note: the machine is busy (load average {load:.1} on {cores} cores) — the estimates assume idle cores, and other work can make a run several times longer"
        )
    })
}

/// The plan-size check: each figure run's task count and its largest task's memory
/// (one task per worker at once), then the estimated work of the tasks this process
/// will compute, refused (exit 2) with the estimate before anything runs. A typo of
/// three zeros is a refusal, not a memory abort or a week-long run. `check` applies
/// the same limits to the plans it can size without preparing.
pub fn check_limits(
    runs: &[(String, String, Footprint)],
    jobs: usize,
    allow_long: bool,
) -> Result<(), CommandError> {
    let memory = memory_limit();
    for (name, file, fp) in runs {
        if fp.tasks > MAX_TASKS {
            return Err(CommandError::input(format!(
                "{name} (config {file}): {} tasks planned; allowed: at most {MAX_TASKS} per figure run (lower its counts, e.g. repeats or runs, or split it into sweep points)",
                fp.tasks
            )));
        }
        let workers = jobs.min(fp.tasks).max(1) as f64;
        if fp.memory * workers > memory {
            let gb = |b: f64| format!("{:.1} GB", b / 1e9);
            let hint = if fp.memory <= memory {
                format!(
                    "run it with --jobs {} or fewer, or lower the counts that size a task",
                    (memory / fp.memory).floor().max(1.0)
                )
            } else {
                "lower the counts that size a task (draws or chains kept, the data's dimension)"
                    .to_string()
            };
            return Err(CommandError::input(format!(
                "{name} (config {file}): a task holds about {} at once, {} with {workers} workers; allowed: {} ({MEMORY_SHARE}× this machine's memory): {hint}",
                gb(fp.memory),
                gb(fp.memory * workers),
                gb(memory)
            )));
        }
    }
    let flops: f64 = runs.iter().map(|r| r.2.flops).sum();
    if flops > MAX_FLOPS && !allow_long {
        let days = flops / 1.5e9 / 86_400.0;
        return Err(CommandError::input(format!(
            "estimated work {flops:.1e} flops, about {days:.0} CPU-days at 1.5 Gflop/s per core; allowed without --allow-long: {MAX_FLOPS:.0e} flops (about a CPU-week). Check the counts for a typo, pass --allow-long if this is intended, or split it over machines (--shard i/n, privpost slurm)"
        )));
    }
    Ok(())
}

/// [`MEMORY_SHARE`] of the machine's memory (`MemTotal` of /proc/meminfo), or of
/// 8 GB where it cannot be read.
fn memory_limit() -> f64 {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(8e9, |kb| kb * 1024.0);
    MEMORY_SHARE * total
}

/// The [`check_limits`] rows of prepared figures, over the tasks `tasks(r)` of run r.
pub fn footprints(
    prepared: &[Prepared],
    tasks: impl Fn(usize) -> Vec<usize>,
) -> Vec<(String, String, Footprint)> {
    prepared
        .iter()
        .enumerate()
        .map(|(r, p)| {
            (
                p.name(),
                p.resolved.file(),
                Footprint::of(p.figure.as_ref(), tasks(r)),
            )
        })
        .collect()
}

/// Worker threads: --jobs, else SLURM_CPUS_PER_TASK inside a Slurm job, else all cores.
pub fn jobs(requested: Option<usize>) -> Result<usize, CommandError> {
    match requested {
        Some(0) => Err(CommandError::input(
            "--jobs 0: allowed values are integers from 1 to 1024",
        )),
        Some(j) if j > 1024 => Err(CommandError::input(format!(
            "--jobs {j}: allowed values are integers from 1 to 1024"
        ))),
        Some(j) => Ok(j),
        None => Ok(std::env::var("SLURM_CPUS_PER_TASK")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| (1..=1024).contains(&n))
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))),
    }
}

/// A rayon pool of `jobs` threads.
pub fn pool(jobs: usize) -> Result<rayon::ThreadPool, CommandError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| CommandError::failed(format!("cannot start {jobs} worker threads: {e}")))
}

/// The split of every task of `prepared` over `shards` shards.
pub fn assignment(prepared: &[Prepared], shards: usize) -> Assignment {
    let costs: Vec<Vec<u64>> = prepared
        .iter()
        .map(|p| {
            (0..p.figure.task_count())
                .map(|i| split::cost_units(p.figure.task_cost(i)))
                .collect()
        })
        .collect();
    split::assign(&costs, shards)
}

#[cfg(test)]
mod tests {
    use super::check_writable;

    /// Threads of one process probing one folder at once (Python's `infer`
    /// from four threads) never remove each other's probe.
    #[test]
    fn threads_probe_one_folder_at_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out");
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let out = out.clone();
                std::thread::spawn(move || {
                    (0..200)
                        .map(|_| check_writable(&out).map_err(|e| e.to_string()))
                        .collect::<Result<Vec<()>, String>>()
                })
            })
            .collect();
        for t in threads {
            t.join().expect("thread").expect("writable");
        }
        let left: Vec<_> = std::fs::read_dir(&out).expect("out").collect();
        assert!(left.is_empty(), "probes left: {left:?}");
    }
}
