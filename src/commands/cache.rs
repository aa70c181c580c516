//! `privpost cache`: what the task cache under an output root holds, and
//! clearing it (all of it, or only runs computed by other binaries).

use std::path::PathBuf;

use super::CommandError;
use crate::results::cache;

/// Show or clear the task cache under --out.
#[derive(Debug, clap::Args)]
pub struct CacheArgs {
    #[command(subcommand)]
    pub action: CacheAction,
}

#[derive(Debug, clap::Subcommand)]
pub enum CacheAction {
    /// One line per cached run: figure, sweep point, tasks stored/total, size, and whether
    /// this binary can use it.
    Status {
        /// Output root whose cache to show.
        #[arg(long, default_value = "results")]
        out: PathBuf,
    },
    /// Remove cached runs (all, or with --stale only those of other binaries).
    Clean {
        #[arg(long, default_value = "results")]
        out: PathBuf,
        /// Keep the runs this binary computed; remove only the others.
        #[arg(long)]
        stale: bool,
    },
}

pub fn cache(args: &CacheArgs) -> Result<(), CommandError> {
    let (out, stale_only) = match &args.action {
        CacheAction::Status { out } => (out, None),
        CacheAction::Clean { out, stale } => (out, Some(*stale)),
    };
    let root = out.join(cache::DIR_NAME);
    let runs = cache::list(&root).map_err(|e| {
        CommandError::failed(format!("{}: cannot read the cache: {e}", root.display()))
    })?;
    let here = cache::code_id();
    let usable = |r: &cache::CachedRun| r.info.as_ref().is_some_and(|i| i.code == here);
    match stale_only {
        None => {
            if runs.is_empty() {
                crate::outln!("{}: empty", root.display());
                return Ok(());
            }
            let mut bytes = 0;
            for r in &runs {
                bytes += r.bytes;
                let (figure, point, total) = match &r.info {
                    Some(i) => (
                        i.figure.clone(),
                        i.sweep_point.clone().unwrap_or_default(),
                        i.tasks.to_string(),
                    ),
                    None => ("?".into(), String::new(), "?".into()),
                };
                crate::outln!(
                    "{}  {:<22} {:<28} {:>6}/{:<6} tasks {:>10} bytes  {}",
                    &r.key[..12.min(r.key.len())],
                    figure,
                    point,
                    r.tasks_stored,
                    total,
                    r.bytes,
                    if usable(r) {
                        "this binary"
                    } else {
                        "other binary (stale)"
                    }
                );
            }
            crate::outln!(
                "{} run(s), {} usable by this binary, {bytes} bytes in {}",
                runs.len(),
                runs.iter().filter(|r| usable(r)).count(),
                root.display()
            );
        }
        Some(stale) => {
            let mut removed = 0;
            for r in runs.iter().filter(|r| !stale || !usable(r)) {
                let dir = root.join(&r.key);
                std::fs::remove_dir_all(&dir).map_err(|e| {
                    CommandError::failed(format!("{}: cannot remove: {e}", dir.display()))
                })?;
                removed += 1;
            }
            if !stale && root.is_dir() {
                let _ = std::fs::remove_dir(&root);
            }
            crate::outln!("removed {removed} cached run(s) from {}", root.display());
        }
    }
    Ok(())
}
