//! The CLI verbs, one file each: `run`, `check`, `list`, `plot`, `account`,
//! `data`, `vcor`. Each file holds the verb's clap arguments (derived once; main.rs
//! only dispatches) and turns them into library calls. Errors keep their cause
//! chain; their kind maps to the exit code: bad input 2, a failure while running 1.

pub mod account;
pub mod check;
pub mod data;
pub mod list;
pub mod plot;
pub mod run;
pub mod vcor;

use std::path::{Path, PathBuf};

use crate::config::{ConfigError, ConfigFile, Override, Resolved};
use crate::experiments::{self, Plan, Spec};

/// A command's failure: bad input (exit 2) or a failure while running (exit 1),
/// with its cause chain.
#[derive(Debug)]
pub enum CommandError {
    Input(anyhow::Error),
    Failed(anyhow::Error),
}

impl CommandError {
    /// Bad input with a message.
    pub fn input(
        message: impl std::fmt::Display + std::fmt::Debug + Send + Sync + 'static,
    ) -> Self {
        CommandError::Input(anyhow::Error::msg(message))
    }

    /// A failure while running, with a message.
    pub fn failed(
        message: impl std::fmt::Display + std::fmt::Debug + Send + Sync + 'static,
    ) -> Self {
        CommandError::Failed(anyhow::Error::msg(message))
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            CommandError::Input(_) => 2,
            CommandError::Failed(_) => 1,
        }
    }

    /// The error and its causes, outermost first.
    pub fn error(&self) -> &anyhow::Error {
        match self {
            CommandError::Input(e) | CommandError::Failed(e) => e,
        }
    }
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.error())
    }
}

impl From<ConfigError> for CommandError {
    fn from(e: ConfigError) -> Self {
        CommandError::Input(e.into())
    }
}

/// A config resolved and validated into a plan (nothing prepared yet).
pub struct Planned {
    pub spec: &'static Spec,
    pub resolved: Resolved,
    pub plan: Box<dyn Plan>,
}

/// Every `*.toml` under `dir`, sorted.
pub fn all_configs(dir: &Path) -> Result<Vec<PathBuf>, CommandError> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "toml") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, &mut out)
        .map_err(|e| CommandError::input(format!("{}: cannot list configs: {e}", dir.display())))?;
    out.sort();
    if out.is_empty() {
        return Err(CommandError::input(format!(
            "{}: no *.toml configs found",
            dir.display()
        )));
    }
    Ok(out)
}

/// Loads, resolves and validates configs into plans, with no side effects.
/// Stops at the first bad one, before any work.
pub fn plan(
    paths: &[PathBuf],
    profile: Option<&str>,
    overrides: &[String],
) -> Result<Vec<Planned>, CommandError> {
    let overrides: Vec<Override> = overrides
        .iter()
        .map(|s| Override::parse(s))
        .collect::<Result<_, _>>()?;
    let mut planned = Vec::new();
    for path in paths {
        let file = ConfigFile::load(path)?;
        let spec = experiments::find(&file.experiment).ok_or_else(|| ConfigError {
            file: path.display().to_string(),
            key: Some("experiment".into()),
            message: format!("unknown experiment \"{}\"", file.experiment),
            allowed: Some(experiments::known_ids()),
        })?;
        for resolved in file.resolve(profile, &overrides)? {
            let plan = (spec.validate)(&resolved.params, resolved.seed)
                .map_err(|e| e.in_file(&resolved.file()))?;
            planned.push(Planned {
                spec,
                resolved,
                plan,
            });
        }
    }
    Ok(planned)
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
