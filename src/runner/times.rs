//! Each task's measured seconds, kept beside the cache so the next run orders its tasks longest first and estimates what is left; and the check that the file of times is sound.

use super::{Figure, Mutex, PathBuf, RunError, WriteError};
use crate::runner::figure_name;

/// Per-task seconds for calibrating [`Figure::task_cost`] (a cost
/// model is refitted from them, `scripts/calibrate-estimates.sh`): with
/// `$PRIVPOST_TASK_TIMES=FILE`, each computed task appends a line
/// `figure,index,cost_units,seconds` to FILE (created with a header if absent).
/// Not part of any output folder: seconds are not reproducible.
pub(super) struct TaskTimes {
    path: PathBuf,
    figure: String,
    lines: Mutex<Vec<(usize, f64, f64)>>,
}

impl TaskTimes {
    const VAR: &'static str = "PRIVPOST_TASK_TIMES";
    const HEADER: &'static str = "figure,index,cost_units,seconds";

    pub(super) fn path() -> Option<PathBuf> {
        std::env::var_os(Self::VAR)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
    }

    /// The log named by the environment, checked writable before any task runs.
    pub(super) fn open(name: &str) -> Result<Option<Self>, RunError> {
        let Some(path) = Self::path() else {
            return Ok(None);
        };
        let log = Self {
            path,
            figure: figure_name(name),
            lines: Mutex::new(Vec::new()),
        };
        log.append("")?;
        Ok(Some(log))
    }

    pub(super) fn record(&self, index: usize, cost: f64, seconds: f64) {
        self.lines
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((index, cost, seconds));
    }

    pub(super) fn append(&self, text: &str) -> Result<(), RunError> {
        use std::io::Write;
        let fail = |source: std::io::Error| {
            RunError::Write(WriteError {
                path: format!("{} (${})", self.path.display(), Self::VAR),
                source,
            })
        };
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(fail)?;
        if file.metadata().map_err(fail)?.len() == 0 {
            writeln!(file, "{}", Self::HEADER).map_err(fail)?;
        }
        file.write_all(text.as_bytes()).map_err(fail)
    }

    pub(super) fn write(self) -> Result<(), RunError> {
        let mut lines = std::mem::take(&mut *self.lines.lock().unwrap_or_else(|e| e.into_inner()));
        lines.sort_by_key(|l| l.0);
        let text: String = lines
            .iter()
            .map(|(i, c, s)| format!("{},{i},{c:e},{s:.6}\n", self.figure))
            .collect();
        self.append(&text)
    }
}

/// `PRIVPOST_TASK_TIMES` names a file that cannot be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct TaskTimesError(pub String);

/// Checks `$PRIVPOST_TASK_TIMES` (a per-task timing log, for calibrating the
/// cost models) before a command starts work: the message names the variable
/// and the cause when the file cannot be opened for appending.
pub fn check_task_times() -> Result<(), TaskTimesError> {
    let Some(path) = TaskTimes::path() else {
        return Ok(());
    };
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map(drop)
        .map_err(|e| {
            TaskTimesError(format!(
                "{}={}: cannot append to it ({e}); allowed: the path of a writable file (a per-task timing log) or unset",
                TaskTimes::VAR,
                path.display()
            ))
        })
}

/// `todo` with the costliest tasks ([`Figure::task_cost`]) first; equal costs keep
/// their order.
pub(super) fn by_cost(figure: &dyn Figure, todo: &[usize]) -> Vec<usize> {
    let mut order = todo.to_vec();
    let cost: std::collections::HashMap<usize, f64> =
        todo.iter().map(|&i| (i, figure.task_cost(i))).collect();
    order.sort_by(|a, b| cost[b].total_cmp(&cost[a]));
    order
}
