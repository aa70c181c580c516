//! What a command names: config files, figure ids, paper ids or `--all`, and
//! its `--set` overrides — turned into config paths and parsed overrides.

use std::path::{Path, PathBuf};

use crate::config::Override;
use crate::error::CommandError;
use crate::experiments;

/// Every `*.toml` under `dir`, sorted.
pub fn all_configs(dir: &Path) -> Result<Vec<PathBuf>, CommandError> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "toml")
                && path
                    .file_name()
                    .is_some_and(|n| n != crate::config::SHARED_PROFILES)
            {
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

/// The closest of `candidates` to `name`, if close enough to be a likely typo.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    crate::config::closest(name, candidates)
}

/// Turns the command's targets into config files: a path to a `.toml`, or a
/// figure id (`foulds2016/fig2`) meaning `<config_dir>/<id>.toml`.
pub fn targets(targets: &[String], config_dir: &Path) -> Result<Vec<PathBuf>, CommandError> {
    let mut out = Vec::new();
    for t in targets {
        let path = PathBuf::from(t);
        if path.is_file() {
            out.push(path);
            continue;
        }
        // a paper id (`foulds2016`): every config of that paper
        let paper_id = t.trim_end_matches('/');
        let paper = config_dir.join(paper_id);
        let is_paper = !paper_id.contains(['/', '\\'])
            && experiments::REGISTRY
                .iter()
                .any(|s| s.id.split('/').next() == Some(paper_id));
        if is_paper && paper.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(&paper)
                .map_err(|e| CommandError::input(format!("{}: {e}", paper.display())))?
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
            found.sort();
            out.extend(found);
            continue;
        }
        if let Some(spec) = experiments::find(t.trim_end_matches(".toml")) {
            let path = config_dir.join(format!("{}.toml", spec.id));
            if !path.is_file() {
                return Err(CommandError::input(format!(
                    "{t}: figure id, but its config {} does not exist (set --configs to the folder holding configs/<paper>/<figure>.toml)",
                    path.display()
                )));
            }
            out.push(path);
            continue;
        }
        let hint = did_you_mean(t, experiments::REGISTRY.iter().map(|s| s.id))
            .map(|id| format!(" (did you mean `{id}`?)"))
            .unwrap_or_default();
        return Err(CommandError::input(format!(
            "{t}: neither a config file, a figure id nor a paper id{hint} (allowed: a path to a .toml config, a paper id such as foulds2016 for all its figures, or one of {})",
            experiments::known_ids()
        )));
    }
    Ok(out)
}

/// Parses `--set` arguments (each a `KEY=VALUE`), refusing a key given twice.
pub fn overrides(set: &[String]) -> Result<Vec<Override>, CommandError> {
    let overrides: Vec<Override> = set
        .iter()
        .map(|s| Override::parse(s))
        .collect::<Result<_, _>>()?;
    crate::config::check_distinct(&overrides)?;
    Ok(overrides)
}

/// The config files of the command's targets (and --all).
pub fn config_paths(
    targets_given: &[String],
    all: bool,
    config_dir: &std::path::Path,
) -> Result<Vec<PathBuf>, CommandError> {
    let mut paths = targets(targets_given, config_dir)?;
    if all {
        paths.extend(all_configs(config_dir)?);
    }
    if paths.is_empty() {
        return Err(CommandError::input(
            "nothing to run: give config files, figure ids or --all",
        ));
    }
    Ok(paths)
}
