//! `privpost plot`: re-render figures from their CSVs, with the drawing step
//! the registry names for each figure.

use crate::results::manifest::Manifest;
use std::path::{Path, PathBuf};

use super::CommandError;
use crate::experiments;

/// Re-render figure.png and figure.svg from the summary.csv of figure folders.
#[derive(Debug, clap::Args)]
pub struct PlotArgs {
    /// Figure folders (each with summary.csv); with --recursive, any folders above them.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Re-render every figure folder below each DIR (at most 4 levels down; hidden folders skipped).
    #[arg(long, short)]
    pub recursive: bool,
}

/// How deep --recursive looks: <out>/<paper>/<figure> is 2 levels.
const MAX_DEPTH: usize = 4;

/// Re-renders figures from CSVs: `dir` is one figure's folder or any folder above them.
pub fn plot(args: &PlotArgs) -> Result<(), CommandError> {
    let dirs = &args.dirs;
    let mut done = 0;
    for dir in dirs {
        if !dir.is_dir() {
            return Err(CommandError::input(format!(
                "{}: not a directory",
                dir.display()
            )));
        }
        let mut figures = Vec::new();
        if args.recursive {
            find_figures(dir, &mut figures, MAX_DEPTH)
                .map_err(|e| CommandError::failed(format!("{}: {e}", dir.display())))?;
        } else {
            find_figures(dir, &mut figures, 0)
                .map_err(|e| CommandError::failed(format!("{}: {e}", dir.display())))?;
        }
        if figures.is_empty() {
            return Err(CommandError::input(if args.recursive {
                format!(
                    "{}: no summary.csv found within {MAX_DEPTH} levels below it",
                    dir.display()
                )
            } else {
                format!(
                    "{}: not a figure folder (no summary.csv); name figure folders, or add --recursive",
                    dir.display()
                )
            }));
        }
        for (fig_dir, id) in figures {
            let manifest = Manifest::read(&fig_dir).ok();
            let spec = experiments::find_for(&id, manifest.as_ref()).ok_or_else(|| {
                CommandError::input(format!(
                    "{}: unknown figure \"{id}\" (allowed: {})",
                    fig_dir.display(),
                    experiments::known_ids()
                ))
            })?;
            // a damaged or edited table is bad input (exit 2), named with its
            // column and row, before anything is drawn
            for (file, want) in [
                ("summary.csv", spec.summary_columns.get()),
                ("data.csv", spec.data_columns.get()),
            ] {
                let path = fig_dir.join(file);
                if path.is_file() || file == "summary.csv" {
                    let t = crate::results::table::Table::read_csv(&path)
                        .map_err(CommandError::input)?;
                    check_header(&t.header, want, &path)?;
                    crate::plot::check_numbers(&t, &path).map_err(|e| CommandError::input(e.0))?;
                    // the column kinds the run recorded (absent in folders written
                    // before privpost recorded them)
                    if let Some(kinds) =
                        manifest.as_ref().and_then(|m| m.columns.get(file).cloned())
                    {
                        crate::plot::check_kinds(&t, &kinds, &path)
                            .map_err(|e| CommandError::input(e.0))?;
                    } else if t.rows.is_empty() && file == "summary.csv" {
                        return Err(CommandError::input(format!(
                            "{}: no rows (allowed: the rows the run wrote)",
                            path.display()
                        )));
                    }
                }
            }
            crate::plot::parameters(&fig_dir).map_err(|e| CommandError::input(e.0))?;
            if experiments::find(&id).is_none() {
                // an external figure: its drawing's declaration must fit its table
                experiments::external::plot::check(&fig_dir).map_err(CommandError::input)?;
            }
            // `plot` draws only from the folder's files: a figure that cannot be
            // drawn from them (an axis with no usable numbers) is bad input, exit 2
            crate::plot::render_dir(&id, &fig_dir, spec.plot)
                .map_err(|e| CommandError::input(e.to_string()))?;
            crate::outln!("{id}: {}", fig_dir.join("figure.png").display());
            done += 1;
        }
    }
    crate::outln!("re-rendered {done} figure(s)");
    Ok(())
}

/// The columns of a table `plot` reads must be the figure's (a sweep
/// point's summary may lead with `set.KEY` columns).
fn check_header(header: &[String], want: &[&str], path: &Path) -> Result<(), CommandError> {
    let got: Vec<&str> = header
        .iter()
        .map(String::as_str)
        .skip_while(|h| h.starts_with("set."))
        .collect();
    if got == want {
        return Ok(());
    }
    let missing: Vec<&str> = want.iter().copied().filter(|w| !got.contains(w)).collect();
    let extra: Vec<&str> = got.iter().copied().filter(|g| !want.contains(g)).collect();
    Err(CommandError::input(format!(
        "{}: columns {} (missing: {}; unexpected: {}); allowed: exactly {}",
        path.display(),
        got.join(","),
        if missing.is_empty() {
            "none".into()
        } else {
            missing.join(", ")
        },
        if extra.is_empty() {
            "none".into()
        } else {
            extra.join(", ")
        },
        want.join(",")
    )))
}

/// Folders holding a summary.csv, with their figure id (from manifest.json,
/// else from the last two path components, minus any `@sweep` suffix).
fn find_figures(dir: &Path, out: &mut Vec<(PathBuf, String)>, depth: usize) -> std::io::Result<()> {
    if dir.join("summary.csv").is_file() {
        let from_manifest = Manifest::read(dir).ok().map(|m| m.figure);
        let id = from_manifest.unwrap_or_else(|| {
            let leaf = dir
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let paper = dir
                .parent()
                .and_then(|p| p.file_name())
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("{paper}/{}", leaf.split('@').next().unwrap_or(""))
        });
        out.push((dir.to_path_buf(), id));
        return Ok(());
    }
    if depth == 0 {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if path.is_dir() && !hidden {
            find_figures(&path, out, depth - 1)?;
        }
    }
    Ok(())
}
