//! `api::figures` and `api::redraw`: a figure re-rendered from the CSVs of
//! its folder, with the drawing step the registry names for it (`privpost
//! plot`). The tables are checked first — columns, numbers, the column kinds
//! the run recorded — so that a damaged or edited table is bad input, named
//! with its column and row, before anything is drawn.

use std::path::{Path, PathBuf};

use super::error::ApiError;
use crate::experiments;
use crate::results::manifest::Manifest;

/// A figure folder found by [`figures`]: the folder and its figure id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FigureFolder {
    pub folder: PathBuf,
    /// From its manifest, else from the path (`<paper>/<figure>[@point]`).
    pub id: String,
}

/// How deep --recursive looks: <out>/<paper>/<figure> is 2 levels.
const MAX_DEPTH: usize = 4;

/// The figure folders of `dir`: `dir` itself when it holds a summary.csv,
/// else (with `recursive`) every such folder at most 4 levels below it,
/// hidden folders skipped, in path order.
pub fn figures(dir: &Path, recursive: bool) -> Result<Vec<FigureFolder>, ApiError> {
    if !dir.is_dir() {
        return Err(ApiError::input(
            "dir",
            format!("{}: not a directory", dir.display()),
        ));
    }
    let mut found = Vec::new();
    find_figures(dir, &mut found, if recursive { MAX_DEPTH } else { 0 })
        .map_err(|e| ApiError::failed(format!("{}: {e}", dir.display())))?;
    if found.is_empty() {
        return Err(ApiError::input(
            "dir",
            if recursive {
                format!(
                    "{}: no summary.csv found within {MAX_DEPTH} levels below it",
                    dir.display()
                )
            } else {
                format!(
                    "{}: not a figure folder (no summary.csv); name figure folders, or add --recursive",
                    dir.display()
                )
            },
        ));
    }
    Ok(found
        .into_iter()
        .map(|(folder, id)| FigureFolder { folder, id })
        .collect())
}

/// Re-renders one figure from its folder's CSVs (see the module header);
/// answers the figure.png written (figure.svg beside it). With the folder's
/// manifest, tradeoff.png and .svg are redrawn from its ledger as the run drew them.
pub fn redraw(figure: &FigureFolder) -> Result<PathBuf, ApiError> {
    let (fig_dir, id) = (&figure.folder, &figure.id);
    fn input(m: impl std::fmt::Display) -> ApiError {
        ApiError::input("dir", m.to_string())
    }
    let manifest = Manifest::read(fig_dir).ok();
    let spec = experiments::find_for(id, manifest.as_ref()).ok_or_else(|| {
        input(format!(
            "{}: unknown figure \"{id}\" (allowed: {})",
            fig_dir.display(),
            experiments::known_ids()
        ))
    })?;
    for (file, want) in [
        ("summary.csv", spec.summary_columns.get()),
        ("data.csv", spec.data_columns.get()),
    ] {
        let path = fig_dir.join(file);
        if path.is_file() || file == "summary.csv" {
            let t = crate::results::table::Table::read_csv(&path).map_err(input)?;
            check_header(&t.header, want, &path)?;
            crate::plot::check_numbers(&t, &path).map_err(|e| input(e.0))?;
            // the column kinds the run recorded (absent in folders written
            // before privpost recorded them)
            if let Some(kinds) = manifest.as_ref().and_then(|m| m.columns.get(file).cloned()) {
                crate::plot::check_kinds(&t, &kinds, &path).map_err(|e| input(e.0))?;
            } else if t.rows.is_empty() && file == "summary.csv" {
                return Err(input(format!(
                    "{}: no rows (allowed: the rows the run wrote)",
                    path.display()
                )));
            }
        }
    }
    crate::plot::parameters(fig_dir).map_err(|e| input(e.0))?;
    if experiments::find(id).is_none() {
        // an external figure: its drawing's declaration must fit its table
        experiments::external::plot::check(fig_dir).map_err(input)?;
    }
    // drawn only from the folder's files: a figure that cannot be drawn from
    // them (an axis with no usable numbers) is bad input
    crate::plot::render_dir(id, fig_dir, spec.plot).map_err(|e| input(e.to_string()))?;
    // the trade-off plot, from the manifest's ledger (its events give the curves)
    if let Some(m) = &manifest {
        let events: Vec<(&str, &crate::privacy::event::Event)> = m
            .privacy
            .iter()
            .map(|e| (e.series.as_str(), &e.event))
            .collect();
        crate::plot::tradeoff::render(fig_dir, id, &m.attack_risk, &events)
            .map_err(|e| input(e.to_string()))?;
    }
    Ok(fig_dir.join("figure.png"))
}

/// The columns of a table `plot` reads must be the figure's (a sweep
/// point's summary may lead with `set.KEY` columns).
fn check_header(header: &[String], want: &[&str], path: &Path) -> Result<(), ApiError> {
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
    Err(ApiError::input(
        "dir",
        format!(
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
        ),
    ))
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
