//! `privpost gallery [DIR]`: write `DIR/index.html`, the page showing every
//! figure folder below DIR beside its paper (see `crate::gallery`). `run`,
//! `merge` and `audit` write it too, after every run.

use std::path::{Path, PathBuf};

use super::CommandError;
use crate::gallery;

/// Write DIR/index.html: every figure below DIR beside its paper, with provenance and privacy ledger.
#[derive(Debug, clap::Args)]
pub struct GalleryArgs {
    /// Output root holding `<paper>/<figure>/` folders (as written by `privpost run --out DIR`)
    #[arg(default_value = "results")]
    pub dir: PathBuf,
    /// Print docs/figures/README.md (every figure's notes as one Markdown page) and exit.
    #[arg(long)]
    pub notes_page: bool,
    /// Print the README's figure table (a row per figure, from its notes) and exit.
    #[arg(long, conflicts_with = "notes_page")]
    pub readme_table: bool,
    /// Print the figure sections of docs/outputs.md (from the notes' `[outputs]` tables) and exit.
    #[arg(long, conflicts_with_all = ["notes_page", "readme_table"])]
    pub outputs_sections: bool,
    /// Write a small PNG of each paper-scale figure below DIR into OUT (the README's
    /// figure table: docs/figures/thumbs) instead of the page.
    #[arg(long, value_name = "OUT")]
    pub thumbnails: Option<PathBuf>,
}

pub fn gallery(args: &GalleryArgs) -> Result<(), CommandError> {
    if args.notes_page {
        let page = crate::experiments::notes_markdown().map_err(CommandError::failed)?;
        crate::outln!("{}", page.trim_end());
        return Ok(());
    }
    if args.outputs_sections {
        let md = crate::experiments::outputs_sections().map_err(CommandError::failed)?;
        crate::outln!("{}", md.trim());
        return Ok(());
    }
    if args.readme_table {
        let table = crate::experiments::readme_table().map_err(CommandError::failed)?;
        crate::outln!("{}", table.trim_end());
        return Ok(());
    }
    let dir = &args.dir;
    if !dir.is_dir() {
        return Err(CommandError::input(format!(
            "{}: not a directory (allowed: an output root holding <paper>/<figure>/ folders, as written by `privpost run --out DIR`)",
            dir.display()
        )));
    }
    if !gallery::has_figures(dir) {
        return Err(CommandError::input(format!(
            "{}: no figure folders (<paper>/<figure>/manifest.json) below it; name the output root of a run",
            dir.display()
        )));
    }
    if let Some(out) = &args.thumbnails {
        return thumbnails(dir, out);
    }
    let w = gallery::write(dir).map_err(CommandError::failed)?;
    crate::outln!("gallery: {} ({} folder(s))", w.path.display(), w.folders);
    Ok(())
}

/// `--thumbnails OUT`: one per paper-scale figure; the others are named with
/// the reason. None at all is bad input (no paper-scale run below DIR).
fn thumbnails(dir: &Path, out: &Path) -> Result<(), CommandError> {
    let done = gallery::thumbs::write(dir, out).map_err(CommandError::failed)?;
    for (id, why) in &done.skipped {
        errln!("thumbnails: {id} skipped: {why}");
    }
    if done.written.is_empty() {
        return Err(CommandError::input(format!(
            "{}: no figure folder below it ran at the paper's scale (no profile, no --set); thumbnails come only from a paper-scale run such as `privpost run --all --out {}`",
            dir.display(),
            dir.display()
        )));
    }
    crate::outln!(
        "thumbnails: {} of {} figures written to {}",
        done.written.len(),
        done.written.len() + done.skipped.len(),
        out.display()
    );
    Ok(())
}
