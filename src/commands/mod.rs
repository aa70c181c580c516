//! The CLI verbs, one file each: `run`, `check`, `list`, `plot`, `combine`,
//! `cache`, `merge`, `slurm`, `account`, `data`, `vcor`, `infer`, `show` (`completions` is generated from the parser in cli.rs). Each file holds the verb's clap arguments (derived once; cli.rs
//! only dispatches) and turns them into library calls. Errors keep their cause
//! chain; their kind maps to the exit code: bad input 2, a failure while running 1.

pub mod account;
pub mod audit;
pub mod audit_samples;
pub mod batch;
pub mod cache;
pub mod check;
pub mod combine;
pub mod config;
pub mod data;
pub mod gallery;
pub mod infer;
pub mod list;
pub mod merge;
pub mod plot;
pub mod run;
pub mod shards;
pub mod show;
pub mod slurm;
pub mod vcor;

/// A JSON file (a manifest, an event), its size bounded: an error names the
/// file, and a key given twice is refused (JSON would keep the last silently).
pub fn read_json(path: &std::path::Path) -> Result<serde_json::Value, CommandError> {
    let text = crate::input::read_input_text(path, crate::input::MAX_JSON_BYTES)
        .map_err(|e| CommandError::input(e.to_string()))?;
    let v = serde_json::from_str(&text)
        .map_err(|e| CommandError::input(format!("{}: not valid JSON: {e}", path.display())))?;
    if let Some(key) = crate::results::json_keys::duplicate_key(&text) {
        return Err(CommandError::input(format!(
            "{}: key `{key}` given twice (JSON would keep the last without a word); allowed: each key once",
            path.display()
        )));
    }
    Ok(v)
}

pub use crate::error::CommandError;

/// Prints a verb's `--json` answer, pretty.
pub fn emit_json(value: serde_json::Value) -> Result<(), CommandError> {
    let text =
        serde_json::to_string_pretty(&value).map_err(|e| CommandError::failed(e.to_string()))?;
    write_out(format_args!("{text}"))
}

use crate::plan::{estimate_lines, Planned};

/// Writes one line to standard output. A write error (a full disk) is a
/// failure with a message, never a panic as with `println!`; a reader that
/// stopped reading (`privpost list | head -1`) is [`CommandError::BrokenPipe`],
/// which ends the command quietly with exit 0.
pub fn write_out(args: std::fmt::Arguments) -> Result<(), CommandError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out
        .write_fmt(args)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(CommandError::BrokenPipe(
            anyhow::Error::msg(format!("standard output closed by its reader: {e}")),
        )),
        Err(e) => Err(CommandError::failed(format!(
            "cannot write to standard output: {e}"
        ))),
    }
}

/// `println!` that returns a [`CommandError`] from the enclosing function when
/// standard output cannot be written.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::commands::write_out(format_args!(""))?
    };
    ($($t:tt)*) => {
        $crate::commands::write_out(format_args!($($t)*))?
    };
}

/// How a command computes and reports: the options `run`, `audit` and `merge` share.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Work {
    /// Worker threads (default: SLURM_CPUS_PER_TASK if set, else all cores). Results do not depend on it.
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Recompute every task and rewrite every folder, even if cached or up to date.
    #[arg(long)]
    pub force: bool,
    /// Print only errors and the final summary (`audit`: and the table).
    #[arg(long, short)]
    pub quiet: bool,
}

/// A command-line value that is not one the flag allows (the message says what is).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ArgError(pub String);

/// An integer flag's value, also written in scientific notation (`1e6`,
/// `2.5e3`) when that is a whole number in range: `--iterations 1e6`.
pub fn integer_arg<T: TryFrom<u64>>(text: &str) -> Result<T, ArgError> {
    let t = text.trim().replace('_', "");
    let n: u64 = match t.parse::<u64>() {
        Ok(n) => n,
        Err(_) => {
            let x: f64 = t
                .parse()
                .map_err(|_| ArgError(format!("{text:?} is not an integer (e.g. 1000, 1e6)")))?;
            if !(x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x < 2f64.powi(63)) {
                return Err(ArgError(format!("{text:?} is not a whole number ≥ 0")));
            }
            x as u64
        }
    };
    T::try_from(n).map_err(|_| ArgError(format!("{text:?} is too large for this flag")))
}

/// Prints the estimated wall time of planned runs (before preparing).
pub fn print_estimates(planned: &[Planned], jobs: usize) -> Result<(), CommandError> {
    let runs = planned
        .iter()
        .map(|p| (p.name(), p.resolved.experiment.clone(), p.cost()));
    for line in estimate_lines(runs, jobs) {
        crate::outln!("{line}");
    }
    Ok(())
}

/// After a command wrote figure folders under `out`: rewrite its gallery and say where.
/// A failure to write it is reported but does not fail the run whose figures are written.
pub fn after_run(out: &std::path::Path) -> Result<(), CommandError> {
    match crate::gallery::write(out) {
        Ok(w) => crate::outln!("gallery: {}", w.path.display()),
        Err(e) => errln!("warning: gallery not written: {e}"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failure keeps its causes: main prints each `caused by` line.
    #[test]
    fn errors_keep_their_cause_chain() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "read-only disk");
        let e = CommandError::Failed(
            crate::results::WriteError {
                path: "results/x/data.csv".into(),
                source: io,
            }
            .into(),
        );
        assert_eq!(e.exit_code(), 1);
        let chain: Vec<String> = e.error().chain().map(|c| c.to_string()).collect();
        assert_eq!(chain, ["writing results/x/data.csv", "read-only disk"]);
        assert_eq!(CommandError::input("bad").exit_code(), 2);
    }
}
