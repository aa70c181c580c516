//! `privpost plot`: re-render figures from their CSVs — [`api::figures`]
//! finds the folders, [`api::redraw`] draws each — printing each figure as it
//! is drawn.

use std::path::PathBuf;

use super::CommandError;
use crate::api;

/// Re-render figure.png and figure.svg from the summary.csv of figure folders (and
/// tradeoff.png/.svg from the ledger of a folder with its manifest.json).
#[derive(Debug, clap::Args)]
pub struct PlotArgs {
    /// Figure folders (each with summary.csv); with --recursive, any folders above them.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Re-render every figure folder below each DIR (at most 4 levels down; hidden folders skipped).
    #[arg(long, short)]
    pub recursive: bool,
}

/// Re-renders figures from CSVs: each dir is one figure's folder or any folder above them.
pub fn plot(args: &PlotArgs) -> Result<(), CommandError> {
    let mut done = 0;
    for dir in &args.dirs {
        for figure in api::figures(dir, args.recursive)? {
            let png = api::redraw(&figure)?;
            crate::outln!("{}: {}", figure.id, png.display());
            done += 1;
        }
    }
    crate::outln!("re-rendered {done} figure(s)");
    Ok(())
}
