//! `privpost combine`: [`api::combine`](crate::api::combine()) — the folders
//! of a sweep joined into one table, an overlay figure and a listing — and
//! the line saying where.

use std::path::PathBuf;

use super::CommandError;
use crate::api::{self, CombineOptions};

/// Join sweep-point folders of one figure into combined.csv, an overlay figure and combined.json.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  privpost run foulds2016/fig2 --smoke --set epsilon=0.1,1,10\n  privpost combine results/foulds2016/fig2      (= its sweep points results/foulds2016/fig2@*)\n\
  privpost combine results/foulds2016/fig2 --where profile=smoke --where n=100\n\
Points must share one profile and one base config (the same resolved config but for the\n\
swept keys); a mixture is refused naming the folders. Points are drawn in value order.\n\
writes results/foulds2016/fig2.combined/{combined.csv, combined.png, combined.svg, combined.json}"
)]
pub struct CombineArgs {
    /// Figure folders written by `privpost run` (each with manifest.json and summary.csv);
    /// a figure's base name (results/foulds2016/fig2) stands for its sweep points fig2@….
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Output folder (default: `<parent of the first>/<figure>.combined`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// One overlay panel per value of this swept key (a second sweep axis).
    #[arg(long, value_name = "KEY")]
    pub facet: Option<String>,
    /// Keep only the points whose swept KEY has this value (numbers compared
    /// as numbers), or `profile=NAME` (`profile=none`: no profile); repeatable.
    #[arg(long = "where", value_name = "KEY=VALUE")]
    pub filters: Vec<String>,
}

pub fn combine(args: &CombineArgs) -> Result<(), CommandError> {
    let done = api::combine(&CombineOptions {
        dirs: args.dirs.clone(),
        out: args.out.clone(),
        facet: args.facet.clone(),
        filters: args.filters.clone(),
    })?;
    crate::outln!(
        "combined {} point(s) of {} ({} rows) -> {}",
        done.points,
        done.figure,
        done.rows,
        done.folder.join("combined.csv").display()
    );
    Ok(())
}
