//! `privpost list`: the figures of the registry and their default configs.

use std::path::PathBuf;

use super::CommandError;
use crate::experiments;

/// List the figures this build reproduces and their default configs.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Folder of `<paper>/<figure>.toml` configs that replace the built-in ones
    /// (default: ./configs when it exists).
    #[arg(long = "configs", value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
}

/// Each figure with the config a figure id runs: the file in the configs folder,
/// or `[built-in] configs/<id>.toml` (`privpost config show ID` prints it).
pub fn list(args: &ListArgs) -> Result<(), CommandError> {
    let dir = crate::plan::config_dir(args.config_dir.as_deref())?;
    let rows: Vec<(&str, String, &str)> = experiments::REGISTRY
        .iter()
        .map(|spec| {
            let config = crate::plan::ConfigRef::figure(spec, dir.as_deref());
            (
                spec.id,
                crate::term::visible(&config.to_string()),
                spec.title,
            )
        })
        .collect();
    // columns as wide as their widest cell (a long configs path once pushed titles out of line)
    let width = |cells: &mut dyn Iterator<Item = usize>, head: &str| {
        cells.max().unwrap_or(0).max(head.chars().count())
    };
    let w_id = width(&mut rows.iter().map(|r| r.0.chars().count()), "figure");
    let w_config = width(&mut rows.iter().map(|r| r.1.chars().count()), "config");
    let pad = |s: &str, w: usize| format!("{s}{}", " ".repeat(w - s.chars().count()));
    crate::outln!(
        "{}  {}  title",
        pad("figure", w_id),
        pad("config", w_config)
    );
    for (id, config, title) in &rows {
        crate::outln!("{}  {}  {title}", pad(id, w_id), pad(config, w_config));
    }
    Ok(())
}
