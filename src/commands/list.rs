//! `privpost list`: the figures of the registry and their default configs.

use std::path::PathBuf;

use super::CommandError;
use crate::experiments;

/// List the figures this build reproduces and their default configs.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Folder of <paper>/<figure>.toml configs that replace the built-in ones
    /// (default: ./configs when it exists).
    #[arg(long = "configs", value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
}

/// Each figure with the config a figure id runs: the file in the configs folder,
/// or `[built-in] configs/<id>.toml` (`privpost config show ID` prints it).
pub fn list(args: &ListArgs) -> Result<(), CommandError> {
    let dir = crate::plan::config_dir(args.config_dir.as_deref())?;
    crate::outln!("{:<20} {:<34} title", "figure", "config");
    for spec in experiments::REGISTRY {
        let config = crate::plan::ConfigRef::figure(spec, dir.as_deref());
        crate::outln!("{:<20} {:<34} {}", spec.id, config.to_string(), spec.title);
    }
    Ok(())
}
