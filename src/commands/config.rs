//! `privpost config show ID`: prints the config a figure id runs — the file in the
//! configs folder when there is one, else the built-in config — to copy and edit
//! (`privpost config show foulds2016/fig2 > mine.toml`, then `privpost run mine.toml`).

use std::path::PathBuf;

use super::CommandError;
use crate::experiments;
use crate::plan::{config_dir, did_you_mean, ConfigRef};

/// The configs a figure id runs.
#[derive(Debug, clap::Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub action: ConfigAction,
}

#[derive(Debug, clap::Subcommand)]
pub enum ConfigAction {
    /// Print the config of a figure id (e.g. foulds2016/fig2) to standard output.
    Show {
        /// A figure id (see `privpost list`).
        id: String,
        /// Print the built-in config even when the configs folder has its own.
        #[arg(long)]
        built_in: bool,
        /// Folder of `<paper>/<figure>.toml` configs that replace the built-in ones
        /// (default: ./configs when it exists).
        #[arg(long = "configs", value_name = "DIR")]
        config_dir: Option<PathBuf>,
    },
}

pub fn config(args: &ConfigArgs) -> Result<(), CommandError> {
    match &args.action {
        ConfigAction::Show {
            id,
            built_in,
            config_dir: dir,
        } => {
            let spec = experiments::find(id.trim_end_matches(".toml")).ok_or_else(|| {
                let hint = did_you_mean(id, experiments::REGISTRY.iter().map(|s| s.id))
                    .map(|id| format!(" (did you mean `{id}`?)"))
                    .unwrap_or_default();
                CommandError::input(format!(
                    "config show {id}: not a figure id{hint} (allowed: {})",
                    experiments::known_ids()
                ))
            })?;
            let dir = config_dir(dir.as_deref())?;
            let config = if *built_in {
                ConfigRef::BuiltIn(spec.id)
            } else {
                ConfigRef::figure(spec, dir.as_deref())
            };
            let text = match &config {
                ConfigRef::BuiltIn(_) => spec.config_text.to_string(),
                ConfigRef::File(path) => {
                    crate::input::read_regular_text(path, crate::input::MAX_JSON_BYTES).map_err(
                        |e| CommandError::input(format!("{}: {}", path.display(), e.message)),
                    )?
                }
            };
            crate::errln!("# {config}");
            crate::outln!("{}", text.trim_end_matches('\n'));
            Ok(())
        }
    }
}
