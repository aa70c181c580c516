//! Runs a prepared figure: fans its tasks out over a rayon pool with progress,
//! checks the rows against the registry's column lists, summarises, draws the
//! plots and writes everything atomically with its manifest and ledger.
//!
//! Determinism: task i draws from [`crate::rng::task_rng`] (seed, i), and rows
//! are concatenated in task order, so `data.csv` and `summary.csv` are
//! byte-identical for any `--jobs`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use indicatif::{ParallelProgressIterator, ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use crate::config::Resolved;
use crate::experiments::{Figure, Spec};
use crate::results::manifest::{rfc3339, Manifest, Timings};
use crate::results::table::{Row, Table};
use crate::results::{replace_dir, temp_dir_for, write_text, WriteError};
use crate::rng::task_rng;

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A bar with ETA on stderr.
    Bar,
    /// One line per figure when it finishes.
    Lines,
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

/// What a finished run reports.
#[derive(Debug, Clone)]
pub struct Report {
    pub figure: String,
    pub dir: PathBuf,
    pub tasks: usize,
    pub wall_seconds: f64,
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
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error(transparent)]
    Plot(#[from] crate::plot::PlotError),
}

/// Output folder of a resolved config: `<out>/<paper>/<figure>`, with
/// `@key=value,…` appended for a sweep point.
pub fn output_dir(out: &Path, resolved: &Resolved) -> PathBuf {
    let mut name = resolved.experiment.clone();
    if let Some(label) = &resolved.sweep_label {
        name.push('@');
        name.push_str(&label.replace(['/', '\\', ' ', '"'], "_"));
    }
    out.join(name)
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

fn progress_bar(progress: Progress, n: usize, id: &str) -> ProgressBar {
    match progress {
        Progress::Bar => {
            let bar = ProgressBar::with_draw_target(Some(n as u64), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix:>20} [{bar:30}] {pos}/{len} tasks, ETA {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar.set_prefix(id.to_string());
            bar
        }
        Progress::Lines => ProgressBar::hidden(),
    }
}

/// Runs every task of `figure` on `pool`, then writes data.csv, summary.csv,
/// the plots and manifest.json into a temporary folder that replaces the
/// previous output only once complete.
pub fn run(
    spec: &Spec,
    figure: &dyn Figure,
    resolved: &Resolved,
    out: &Path,
    pool: &rayon::ThreadPool,
    progress: Progress,
) -> Result<Report, RunError> {
    let id = resolved.experiment.clone();
    let started = SystemTime::now();
    let clock = Instant::now();
    let n = figure.task_count();
    let bar = progress_bar(progress, n, &id);
    let seed = resolved.seed;
    let results: Vec<anyhow::Result<Vec<Row>>> = pool.install(|| {
        (0..n)
            .into_par_iter()
            .progress_with(bar.clone())
            .map(|i| figure.run_task(i, &mut task_rng(seed, i)))
            .collect()
    });
    bar.finish_and_clear();
    let mut rows = Vec::new();
    for (index, r) in results.into_iter().enumerate() {
        rows.extend(r.map_err(|source| RunError::Task {
            figure: id.clone(),
            index,
            source,
        })?);
    }
    let task_seconds = clock.elapsed().as_secs_f64();
    let data = Table::new(spec.data_columns, rows);
    let summary = figure
        .summarize(&data)
        .map_err(|source| RunError::Summary {
            figure: id.clone(),
            source,
        })?;
    check_columns(&id, "summary.csv", &summary, spec.summary_columns)?;

    let final_dir = output_dir(out, resolved);
    let tmp = temp_dir_for(&final_dir)?;
    let result = (|| {
        let path = tmp.join("data.csv");
        data.write_csv(&path).map_err(|source| WriteError {
            path: path.display().to_string(),
            source,
        })?;
        let path = tmp.join("summary.csv");
        summary.write_csv(&path).map_err(|source| WriteError {
            path: path.display().to_string(),
            source,
        })?;
        let plot_clock = Instant::now();
        crate::plot::render_dir(&id, &tmp, spec.plot)?;
        let plot_seconds = plot_clock.elapsed().as_secs_f64();
        let privacy = figure.ledger().map_err(|source| RunError::Summary {
            figure: id.clone(),
            source,
        })?;
        let manifest = Manifest {
            figure: id.clone(),
            description: resolved.description.clone(),
            config_file: resolved.file(),
            profile: resolved.profile.clone(),
            overrides: resolved.overrides.clone(),
            sweep_point: resolved.sweep_label.clone(),
            seed: resolved.seed,
            resolved_config: serde_json::to_value(&resolved.params).unwrap_or_default(),
            command_line: std::env::args().collect(),
            privpost_version: env!("CARGO_PKG_VERSION"),
            git_commit: option_env!("PRIVPOST_GIT_COMMIT"),
            git_dirty_at_build: option_env!("PRIVPOST_GIT_DIRTY").map(|s| s == "true"),
            jobs: pool.current_num_threads(),
            tasks: n,
            data_rows: data.rows.len(),
            rng: Manifest::RNG,
            started_at: rfc3339(started),
            finished_at: rfc3339(SystemTime::now()),
            wall_seconds: clock.elapsed().as_secs_f64(),
            timings: Timings {
                tasks_seconds: task_seconds,
                plot_seconds,
            },
            datasets: figure.datasets(),
            privacy,
            details: figure.manifest_details(),
        };
        write_text(&tmp.join("manifest.json"), &manifest.to_json())?;
        replace_dir(&tmp, &final_dir).map_err(RunError::from)
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result?;
    let wall = clock.elapsed().as_secs_f64();
    if progress == Progress::Lines {
        eprintln!("{id}: {n} tasks in {wall:.2} s -> {}", final_dir.display());
    }
    Ok(Report {
        figure: id,
        dir: final_dir,
        tasks: n,
        wall_seconds: wall,
    })
}
