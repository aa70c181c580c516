//! `privpost list`: the figures of the registry and their default configs.

use std::path::PathBuf;

use super::CommandError;
use crate::experiments;

/// List the figures this build reproduces and their default configs.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    #[arg(long = "configs", default_value = "configs")]
    pub config_dir: PathBuf,
}

pub fn list(args: &ListArgs) -> Result<(), CommandError> {
    let config_dir = &args.config_dir;
    crate::outln!("{:<20} {:<34} title", "figure", "default config");
    for spec in experiments::REGISTRY {
        let path = config_dir.join(spec.config.trim_start_matches("configs/"));
        let mark = if path.exists() { "" } else { " (missing)" };
        crate::outln!(
            "{:<20} {:<34} {}",
            spec.id,
            format!("{}{mark}", path.display()),
            spec.title
        );
    }
    Ok(())
}
