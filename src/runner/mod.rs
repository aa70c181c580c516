//! Runs a prepared figure: fans its tasks out over a rayon pool with progress,
//! checks the rows against the registry's column lists, summarises, draws the
//! plots and writes everything atomically with its manifest and ledger.
//!
//! Determinism: task i draws from [`crate::rng::task_rng`] (seed, i), and rows
//! are concatenated in task order, so `data.csv` and `summary.csv` are
//! byte-identical for any `--jobs`.
//!
//! The same holds across machines: `shard.rs` splits a command's tasks into
//! shards that fill a shared task cache, and a cache-only run (`privpost
//! merge`) assembles the folders from it.

pub mod estimate;
mod panics;
pub mod shard;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::config::Resolved;
use crate::experiments::{Figure, Spec};
use crate::results::cache::{self, KeyParts, RunCache, RunInfo};
use crate::results::manifest::{rfc3339, CacheUse, Manifest, ShardsUse, Timings};
use crate::results::table::{Cell, Row, Table};
use crate::results::{replace_dir, temp_dir_for, write_text, WriteError};
use crate::rng::task_rng;

mod progress;
mod write;
use crate::term::interrupt;
use progress::Monitor;
pub use progress::{eta_seconds, human_duration, log_line};

mod times;
use times::{by_cost, TaskTimes};
pub use times::{check_task_times, TaskTimesError};

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A bar with a steady ETA on stderr (a terminal outside CI).
    Bar,
    /// Log lines: one when a figure starts, a heartbeat while it runs, one when it ends.
    Lines,
    /// Nothing but errors (the command prints its final summary).
    Quiet,
}

impl Progress {
    /// A bar only on a terminal and outside CI.
    pub fn detect() -> Self {
        let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false");
        if std::io::stderr().is_terminal() && !ci {
            Progress::Bar
        } else {
            Progress::Lines
        }
    }
}

/// How a figure is run: progress, cache, and where it stands in the command.
#[derive(Debug, Clone)]
pub struct Options {
    pub progress: Progress,
    /// Recompute every task and rewrite the folder even if the cache has them.
    pub force: bool,
    /// Root of the task cache; `None` runs without one.
    pub cache_root: Option<PathBuf>,
    /// Interval of the heartbeat lines in `Lines` mode.
    pub heartbeat: Duration,
    /// This figure is number `position.0` of `position.1` in the command.
    pub position: (usize, usize),
    /// Compute nothing: every task must come from the cache (`privpost merge`).
    pub cache_only: bool,
    /// The shards that computed the tasks, recorded in the manifest by `merge`.
    pub shards: Option<ShardsUse>,
    /// Seconds the figure took to prepare before this run (counted in its wall time).
    pub prepare_seconds: f64,
    /// The caller's stop flag (the API's: the Python module sets it on Ctrl-C).
    /// `None`: Ctrl-C (SIGINT) is the stop, its handler installed by the run.
    /// Either way the workers take no new task once it is set, the running ones
    /// finish (their rows stored in the task cache), and the run ends with
    /// [`RunError::Interrupted`], no folder written.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Options {
    /// Whether the run was asked to stop (see [`Options::stop`]).
    pub fn stopped(&self) -> bool {
        match &self.stop {
            Some(flag) => flag.load(Ordering::SeqCst),
            None => interrupt::requested(),
        }
    }

    /// Options of a plain run: progress, cache, heartbeat and position.
    pub fn new(
        progress: Progress,
        cache_root: Option<PathBuf>,
        heartbeat: Duration,
        position: (usize, usize),
    ) -> Self {
        Self {
            progress,
            force: false,
            cache_root,
            heartbeat,
            position,
            cache_only: false,
            shards: None,
            prepare_seconds: 0.0,
            stop: None,
        }
    }
}

/// What a finished run reports.
#[derive(Debug, Clone)]
pub struct Report {
    pub figure: String,
    pub label: Option<String>,
    pub dir: PathBuf,
    pub tasks: usize,
    /// Tasks computed by this run (the rest came from the cache).
    pub computed: usize,
    /// The folder was already up to date: nothing was computed or written.
    pub up_to_date: bool,
    pub wall_seconds: f64,
}

impl Report {
    /// `figure@point`.
    pub fn name(&self) -> String {
        match &self.label {
            Some(l) => format!("{}@{l}", self.figure),
            None => self.figure.clone(),
        }
    }

    /// The width of a table's name column: the longest name (sweep labels can
    /// be long), at least 22.
    pub fn name_width(reports: &[Report]) -> usize {
        reports
            .iter()
            .map(|r| r.name().chars().count())
            .max()
            .unwrap_or(0)
            .max(22)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{figure}: task {index} failed")]
    Task {
        figure: String,
        index: usize,
        #[source]
        source: anyhow::Error,
    },
    #[error("{figure}: summarising the task rows failed")]
    Summary {
        figure: String,
        #[source]
        source: anyhow::Error,
    },
    #[error("{figure}: {which} has columns {got:?}, the registry lists {want:?}")]
    Columns {
        figure: String,
        which: &'static str,
        got: Vec<String>,
        want: Vec<String>,
    },
    #[error("{figure}: {missing} of its tasks are not in the task cache (first: task {first}); a cache-only run computes nothing")]
    Missing {
        figure: String,
        missing: usize,
        first: usize,
    },
    #[error("{figure}: {file} would hold NaN in column `{column}`, row {row}: the inputs make this quantity undefined (e.g. an empty hold-out set, or values so extreme that the arithmetic overflows){changed}; nothing was written")]
    NotANumber {
        figure: String,
        file: &'static str,
        column: String,
        row: usize,
        /// the config keys this run changed, the likely cause (`; the keys …`)
        changed: String,
    },
    #[error("{figure}: interrupted after {done} of the {total} tasks to run; {}", if *.kept {
        "the finished ones are kept in the task cache: run the same command again to resume"
    } else {
        "they are not kept (no task cache: --no-cache or noise = \"secure\"); the output folder is unchanged"
    })]
    Interrupted {
        figure: String,
        done: usize,
        total: usize,
        /// The finished tasks are in the task cache.
        kept: bool,
    },
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error(transparent)]
    Plot(#[from] crate::plot::PlotError),
}

/// Output folder of a resolved config: `<out>/<paper>/<figure>` (or the
/// config's own `id`), with `@label` appended for anything but the shipped
/// config at the paper's setting ([`Resolved::folder_label`]: own config,
/// profile, sweep point).
pub fn output_dir(out: &Path, resolved: &Resolved) -> PathBuf {
    let mut name = resolved
        .id
        .clone()
        .unwrap_or_else(|| resolved.experiment.clone());
    if let Some(label) = resolved.folder_label() {
        name.push('@');
        name.push_str(&folder_label(&label));
    }
    out.join(name)
}

/// A sweep label as a folder name: path separators, spaces and quotes as `_`;
/// one longer than 120 bytes (a long list value) cut to its first 80 and a
/// hash of the whole, so every label stays a valid, distinct file name.
fn folder_label(label: &str) -> String {
    let clean = label.replace(['/', '\\', ' ', '"'], "_");
    if clean.len() <= 120 {
        return clean;
    }
    let mut cut = 80;
    while !clean.is_char_boundary(cut) {
        cut -= 1;
    }
    let hash = cache::hex(&<sha2::Sha256 as sha2::Digest>::digest(label.as_bytes()));
    format!("{}…{}", &clean[..cut], &hash[..12])
}

fn check_columns(
    figure: &str,
    which: &'static str,
    table: &Table,
    want: &[&str],
) -> Result<(), RunError> {
    if table
        .header
        .iter()
        .map(String::as_str)
        .eq(want.iter().copied())
    {
        Ok(())
    } else {
        Err(RunError::Columns {
            figure: figure.into(),
            which,
            got: table.header.clone(),
            want: want.iter().map(|s| s.to_string()).collect(),
        })
    }
}

/// `[k/N] figure@label` for progress lines.
fn display_name(resolved: &Resolved, position: (usize, usize)) -> String {
    format!("[{}/{}] {}", position.0, position.1, resolved.name())
}

/// The key of this run in the task cache.
pub fn run_key(figure: &dyn Figure, resolved: &Resolved, n: usize) -> String {
    let params = serde_json::to_value(&resolved.params).unwrap_or_default();
    let datasets = serde_json::to_value(figure.datasets()).unwrap_or_default();
    cache::run_key(&KeyParts {
        code: cache::code_id(),
        figure: &resolved.experiment,
        params: &params,
        seed: resolved.seed,
        datasets: &datasets,
        tasks: n,
    })
}

/// Whether `dir` holds a complete output of the run with this key.
fn up_to_date(dir: &Path, key: &str) -> bool {
    let recorded = crate::results::manifest::Manifest::read(dir).map(|m| m.cache.run_key);
    recorded.as_deref() == Ok(key)
        && ["data.csv", "summary.csv", "figure.png", "figure.svg"]
            .iter()
            .all(|f| dir.join(f).is_file())
}

/// `summary.csv` of a sweep point carries the swept keys as leading
/// `set.KEY` columns.
fn with_sweep_columns(summary: Table, resolved: &Resolved) -> Table {
    if resolved.sweep.is_empty() {
        return summary;
    }
    let mut header: Vec<String> = resolved
        .sweep
        .iter()
        .map(|(k, _)| format!("set.{k}"))
        .collect();
    header.extend(summary.header);
    let lead: Row = resolved
        .sweep
        .iter()
        .map(|(_, v)| Cell::Str(v.clone()))
        .collect();
    let rows = summary
        .rows
        .into_iter()
        .map(|r| lead.iter().cloned().chain(r).collect())
        .collect();
    Table { header, rows }
}

/// Opens this run's task cache (recording what the run is), if there is one.
fn open_cache(
    figure: &dyn Figure,
    resolved: &Resolved,
    key: &str,
    options: &Options,
) -> Result<Option<RunCache>, RunError> {
    let Some(root) = &options.cache_root else {
        return Ok(None);
    };
    let c = RunCache::new(root, key);
    c.open(&RunInfo {
        figure: resolved.experiment.clone(),
        sweep_point: resolved.sweep_label.clone(),
        config_file: resolved.file(),
        code: cache::code_id().to_string(),
        tasks: figure.task_count(),
    })?;
    Ok(Some(c))
}

/// Computes tasks `todo` on `pool` with progress, storing each in `cache` as
/// soon as it finishes; the rows in the order of `todo`.
fn compute(
    figure: &dyn Figure,
    seed: u64,
    todo: &[usize],
    cache: Option<&RunCache>,
    pool: &rayon::ThreadPool,
    options: &Options,
    name: &str,
) -> Result<Vec<(usize, Vec<Row>)>, RunError> {
    // task costs, positive and finite, so that the ETA can weight by them
    let cost = |i: usize| {
        let c = figure.task_cost(i);
        if c.is_finite() && c > 0.0 {
            c
        } else {
            1.0
        }
    };
    let total_cost: f64 = todo.iter().map(|&i| cost(i)).sum();
    let timing_log = TaskTimes::open(name)?;
    let monitor = Monitor::new(options.progress, todo.len(), total_cost, name);
    let (stop, stopped) = mpsc::channel();
    let computed: Vec<(usize, anyhow::Result<Vec<Row>>)> = std::thread::scope(|scope| {
        let monitor = &monitor;
        if options.stop.is_none() {
            interrupt::install();
        }
        let cached = cache.is_some();
        let watcher = scope.spawn(move || monitor.watch(stopped, options, name, cached));
        // the costliest first, each worker taking the next from one queue (longest
        // processing time first): a long task started last would leave the other
        // workers idle at the end. Each task's rows depend only on (seed, index).
        let order = by_cost(figure, todo);
        let next = AtomicUsize::new(0);
        let done: Mutex<Vec<(usize, anyhow::Result<Vec<Row>>)>> =
            Mutex::new(Vec::with_capacity(todo.len()));
        // a panicking task becomes that task's error and stops the others taking
        // new tasks; the watcher is stopped whatever happens (a panic had left it,
        // and the run, waiting forever)
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                rayon::broadcast(|_| loop {
                    if options.stopped() {
                        break;
                    }
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = order.get(k) else { break };
                    let clock = Instant::now();
                    let rows = panics::catching(|| figure.run_task(i, &mut task_rng(seed, i)));
                    if rows.is_err() && panics::was_panic(&rows) {
                        next.store(order.len(), Ordering::Relaxed);
                    }
                    if let Some(log) = &timing_log {
                        log.record(i, figure.task_cost(i), clock.elapsed().as_secs_f64());
                    }
                    let rows = match (rows, cache) {
                        (Ok(rows), Some(c)) => c.store(i, &rows).map(|()| rows).map_err(Into::into),
                        (r, _) => r,
                    };
                    monitor.task_done(cost(i));
                    done.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((i, rows));
                })
            })
        }));
        let _ = stop.send(());
        let _ = watcher.join();
        if let Err(payload) = caught {
            std::panic::resume_unwind(payload);
        }
        // back into the order of `todo`
        let mut results = done.into_inner().unwrap_or_else(|e| e.into_inner());
        let position: std::collections::HashMap<usize, usize> =
            todo.iter().enumerate().map(|(k, &i)| (i, k)).collect();
        results.sort_by_key(|(i, _)| position[i]);
        results
    });
    monitor.finish();
    if let Some(log) = timing_log {
        log.write()?;
    }
    if options.stopped() {
        return Err(RunError::Interrupted {
            figure: figure_name(name),
            done: computed.iter().filter(|(_, r)| r.is_ok()).count(),
            total: todo.len(),
            kept: cache.is_some(),
        });
    }
    computed
        .into_iter()
        .map(|(index, r)| {
            r.map(|rows| (index, rows))
                .map_err(|source| RunError::Task {
                    figure: figure_name(name),
                    index,
                    source,
                })
        })
        .collect()
}

/// The figure id (with its sweep point) in a `[k/N] id@point` display name.
fn figure_name(display: &str) -> String {
    display
        .split_once("] ")
        .map_or(display, |(_, rest)| rest)
        .to_string()
}

/// What one shard did for one figure run.
#[derive(Debug, Clone)]
pub struct ShardReport {
    pub run_key: String,
    pub computed: usize,
    pub from_cache: usize,
    pub wall_seconds: f64,
}

/// Computes the tasks `tasks` of `figure` into the task cache (taking those
/// already stored from it, unless `force`), writing no output folder: one
/// shard's share of a figure run. `privpost merge` writes the folder once
/// every shard has finished.
pub fn run_shard(
    figure: &dyn Figure,
    resolved: &Resolved,
    tasks: &[usize],
    pool: &rayon::ThreadPool,
    options: &Options,
) -> Result<ShardReport, RunError> {
    let clock = Instant::now();
    let n = figure.task_count();
    let key = run_key(figure, resolved, n);
    let name = display_name(resolved, options.position);
    let cache = open_cache(figure, resolved, &key, options)?.ok_or_else(|| {
        RunError::Write(WriteError {
            path: "(no task cache)".into(),
            source: std::io::Error::other("a shard writes its rows into the task cache"),
        })
    })?;
    let todo: Vec<usize> = if options.force {
        tasks.to_vec()
    } else {
        let stored: Vec<bool> =
            pool.install(|| tasks.par_iter().map(|&i| cache.load(i).is_some()).collect());
        tasks
            .iter()
            .zip(stored)
            .filter(|(_, s)| !s)
            .map(|(&i, _)| i)
            .collect()
    };
    if options.progress == Progress::Lines {
        log_line(format_args!(
            "{name}: {} of this shard's {} tasks to run ({} from the cache; the figure has {n}), {} jobs",
            todo.len(),
            tasks.len(),
            tasks.len() - todo.len(),
            pool.current_num_threads()
        ));
    }
    compute(
        figure,
        resolved.seed,
        &todo,
        Some(&cache),
        pool,
        options,
        &name,
    )?;
    Ok(ShardReport {
        run_key: key,
        computed: todo.len(),
        from_cache: tasks.len() - todo.len(),
        wall_seconds: clock.elapsed().as_secs_f64(),
    })
}

/// Runs every task of `figure` on `pool` (taking finished tasks from the
/// cache), then writes data.csv, summary.csv, the plots and manifest.json into
/// a temporary folder that replaces the previous output only once complete.
/// A folder already holding this run's outputs is left as it is.
pub fn run(
    spec: &Spec,
    figure: &dyn Figure,
    resolved: &Resolved,
    out: &Path,
    pool: &rayon::ThreadPool,
    options: &Options,
) -> Result<Report, RunError> {
    let id = resolved.experiment.clone();
    let name = display_name(resolved, options.position);
    let started = SystemTime::now();
    let clock = Instant::now();
    let n = figure.task_count();
    let seed = resolved.seed;
    let key = run_key(figure, resolved, n);
    let final_dir = output_dir(out, resolved);
    let quiet = options.progress == Progress::Quiet;

    let noise = crate::config::noise_mode(&resolved.params);
    // a secure run draws fresh system randomness: no cached or earlier output
    // stands in for it, and none of its tasks is kept for a later run
    let fresh = !noise.reproducible();
    if !options.force && !fresh && up_to_date(&final_dir, &key) {
        if !quiet {
            errln!("{name}: up to date ({n} tasks) -> {}", final_dir.display());
        }
        return Ok(Report {
            figure: resolved.id.clone().unwrap_or(id),
            label: resolved.folder_label(),
            dir: final_dir,
            tasks: n,
            computed: 0,
            up_to_date: true,
            wall_seconds: options.prepare_seconds + clock.elapsed().as_secs_f64(),
        });
    }

    let cache = if fresh {
        None
    } else {
        open_cache(figure, resolved, &key, options)?
    };
    let mut slots: Vec<Option<Vec<Row>>> = match (&cache, options.force) {
        (Some(c), false) => pool.install(|| (0..n).into_par_iter().map(|i| c.load(i)).collect()),
        _ => vec![None; n],
    };
    let todo: Vec<usize> = (0..n).filter(|&i| slots[i].is_none()).collect();
    let cached = n - todo.len();
    if options.cache_only && !todo.is_empty() {
        return Err(RunError::Missing {
            figure: id,
            missing: todo.len(),
            first: todo[0],
        });
    }
    if options.progress == Progress::Lines {
        log_line(format_args!(
            "{name}: {} tasks to run ({cached} of {n} from the cache), {} jobs",
            todo.len(),
            pool.current_num_threads()
        ));
    }
    for (index, rows) in compute(figure, seed, &todo, cache.as_ref(), pool, options, &name)? {
        slots[index] = Some(rows);
    }
    let task_seconds = clock.elapsed().as_secs_f64();
    let outputs = write::outputs(spec, figure, resolved, &id, slots.into_iter().flatten())?;
    let facts = write::Facts {
        id: &id,
        key: &key,
        noise,
        jobs: pool.current_num_threads(),
        tasks: n,
        computed: todo.len(),
        cached,
        started,
        clock,
        task_seconds,
        summary_seconds: clock.elapsed().as_secs_f64() - task_seconds,
        options,
    };
    let tmp = temp_dir_for(&final_dir)?;
    let result = write::folder(&tmp, &outputs, spec, figure, resolved, &facts)
        .and_then(|()| replace_dir(&tmp, &final_dir).map_err(RunError::from));
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result?;
    let wall = options.prepare_seconds + clock.elapsed().as_secs_f64();
    if options.progress == Progress::Lines {
        log_line(format_args!(
            "{name}: {n} tasks ({} computed) in {wall:.2} s -> {}",
            todo.len(),
            final_dir.display()
        ));
    }
    Ok(Report {
        figure: resolved.id.clone().unwrap_or(id),
        label: resolved.folder_label(),
        dir: final_dir,
        tasks: n,
        computed: todo.len(),
        up_to_date: false,
        wall_seconds: wall,
    })
}

#[cfg(test)]
mod tests {
    use super::progress::status_text;
    use super::*;

    #[test]
    fn eta_is_elapsed_times_remaining_over_done() {
        assert_eq!(eta_seconds(0.0, 10.0, 5.0), None);
        assert_eq!(eta_seconds(2.0, 10.0, 5.0), Some(20.0));
        assert_eq!(eta_seconds(10.0, 10.0, 5.0), Some(0.0));
        assert_eq!(human_duration(5.4), "5 s");
        assert_eq!(human_duration(185.0), "3 min 05 s");
        assert_eq!(human_duration(3720.0), "1 h 02 min");
        assert_eq!(human_duration(f64::NAN), "?");
        assert_eq!(
            status_text(0, 4, 1.0, None),
            "0/4 tasks, 1 s elapsed, ETA unknown"
        );
    }

    use crate::privacy::ledger::Ledger;
    use rand_chacha::ChaCha8Rng;

    /// A figure whose task 3 panics (as statrs did on a Dirichlet prior of 1e20).
    struct Panicky;

    impl Figure for Panicky {
        fn task_count(&self) -> usize {
            40
        }
        fn grid_description(&self) -> String {
            "40 tasks".into()
        }
        fn run_task(&self, index: usize, _rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
            if index == 3 {
                panic!("BNotGreaterThanZero");
            }
            std::thread::sleep(Duration::from_millis(5));
            Ok(vec![vec![Cell::from(index as f64)]])
        }
        fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
            Ok(data.clone())
        }
        fn manifest_details(&self) -> serde_json::Value {
            serde_json::Value::Null
        }
        fn ledger(&self) -> anyhow::Result<Ledger> {
            Ok(Ledger::default())
        }
    }

    /// A panic in a worker ends the computation with that task's error, carrying
    /// the panic's message, and the other workers stop taking tasks (it had left
    /// the run waiting forever at "0/16 tasks").
    #[test]
    fn a_panicking_task_ends_the_run_with_its_message() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let options = Options::new(Progress::Quiet, None, Duration::from_secs(60), (1, 1));
        let todo: Vec<usize> = (0..40).collect();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let r = compute(&Panicky, 1, &todo, None, &pool, &options, "test/panicky");
            let _ = tx.send(
                r.map(|rows| rows.len())
                    .map_err(|e| format!("{:#}", anyhow::Error::from(e))),
            );
        });
        let r = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the run hung after a panic");
        let e = r.unwrap_err();
        assert!(e.contains("task 3 failed"), "{e}");
        assert!(e.contains("BNotGreaterThanZero"), "{e}");
    }

    /// Weighted by cost: one task of cost 9 done of costs (9, 1) leaves a ninth
    /// of the work; and between finished tasks the ETA counts down, never up.
    #[test]
    fn the_eta_weights_by_cost_and_never_rises_while_nothing_finishes() {
        let m = Monitor::new(Progress::Quiet, 2, 10.0, "x");
        assert!(m.status().ends_with("ETA unknown"));
        m.task_done(9.0);
        let first = m.estimate.lock().unwrap().eta.unwrap();
        let elapsed = m.started.elapsed().as_secs_f64();
        assert!(first <= elapsed / 9.0 + 1e-9, "{first} vs {elapsed}");
        let eta = |m: &Monitor| {
            let e = m.estimate.lock().unwrap();
            e.eta.unwrap() - e.at.unwrap().elapsed().as_secs_f64()
        };
        let a = eta(&m);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(eta(&m) < a, "the ETA rose while nothing finished");
    }
}
