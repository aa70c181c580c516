//! `privpost check`: validate configs and print the plan. No side effects: no
//! downloads, no dataset generation, no fits, no files written.

use std::path::PathBuf;

use super::{plan, CommandError};

/// Validate configs and print the grid size and task count; runs nothing.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    #[arg(required = true)]
    pub configs: Vec<PathBuf>,
    #[arg(long)]
    pub smoke: bool,
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

pub fn check(args: &CheckArgs) -> Result<(), CommandError> {
    let planned = plan(&args.configs, args.smoke.then_some("smoke"), &args.set)?;
    for p in &planned {
        let sweep = p
            .resolved
            .sweep_label
            .as_deref()
            .map(|s| format!(" [{s}]"))
            .unwrap_or_default();
        println!(
            "{}: ok — {}{sweep}, profile {}: {}",
            p.resolved.file(),
            p.resolved.experiment,
            p.resolved.profile.as_deref().unwrap_or("(paper scale)"),
            p.plan.describe()
        );
    }
    Ok(())
}
