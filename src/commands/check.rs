//! `privpost check`: validate configs and print the plan. No side effects: no
//! downloads, no dataset generation, no fits, no files written.

use super::CommandError;
use crate::config::ConfigFile;
use crate::plan::Selection;

/// Validate configs and print the grid size and task count; runs nothing.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// What `run` would run: the same targets, profile, overrides and configs folder.
    #[command(flatten)]
    pub selection: Selection,
    /// Print each resolved config (profile and --set applied, one per sweep point) as TOML.
    #[arg(long)]
    pub resolved: bool,
    /// Accept an estimated work above the limit, as `run --allow-long` does.
    #[arg(long)]
    pub allow_long: bool,
}

pub fn check(args: &CheckArgs) -> Result<(), CommandError> {
    let (parsed, planned) = args.selection.plan()?;
    let paths = parsed.paths;
    let points = planned.len();
    // run's limits, wherever the plan is sized without preparing (a deferred
    // figure's tasks depend on its data: run checks them after loading it)
    let sized: Vec<_> = planned
        .iter()
        .filter_map(|p| Some((p.name(), p.resolved.file(), p.plan.footprint()?)))
        .collect();
    crate::plan::check_limits(&sized, crate::plan::jobs(None)?, args.allow_long)?;
    // a user's CSV dataset: its errors, as run would give them, and the warning when
    // the declared bound would mostly clip it
    let mut seen = std::collections::BTreeSet::new();
    for p in &planned {
        let warnings = crate::experiments::logreg::csv_check(&p.resolved.params)
            .map_err(|e| e.in_file(&p.resolved.file()))?;
        for w in warnings {
            if !args.resolved && seen.insert(w.clone()) {
                errln!("{w}");
            }
        }
    }
    for p in &planned {
        let sweep = p
            .resolved
            .sweep_label
            .as_deref()
            .map(|s| format!(" [{s}]"))
            .unwrap_or_default();
        if args.resolved {
            crate::outln!(
                "# {}{sweep}, profile {}",
                p.resolved.file(),
                p.resolved.profile.as_deref().unwrap_or("(paper scale)")
            );
            crate::outln!("{}", ConfigFile::to_toml(&p.resolved));
            continue;
        }
        crate::outln!(
            "{}: ok — {}{sweep}, profile {}: {}",
            p.resolved.file(),
            p.resolved.experiment,
            p.resolved.profile.as_deref().unwrap_or("(paper scale)"),
            p.plan.describe()
        );
    }
    if !args.resolved && points > paths.len() {
        crate::outln!("{points} run(s) from {} config(s)", paths.len());
    }
    if !args.resolved {
        super::print_estimates(&planned, crate::plan::jobs(None)?)?;
    }
    Ok(())
}
