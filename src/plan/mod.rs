//! The planning stage, one library call for every verb and test: a selection
//! (config files, figure ids, paper ids or `--all`; a profile; `--set`
//! overrides, parsed once) becomes validated plans ([`Selection::plan`]), then
//! prepared figures ([`prepare_all`]) — with the checks that come before any work:
//! the output folder, the plan limits (tasks, memory, flops) and the estimates.
//! `run`, `check`, `audit`, `slurm` and `merge` call it; no verb imports another
//! verb for it.

mod limits;
mod resolve;
mod targets;
mod types;

use std::path::PathBuf;
use std::time::Instant;

pub use limits::{
    assignment, check_limits, check_targets, check_writable, estimate_lines, footprints, jobs,
    pool, refuse_secure, MAX_FLOPS, MAX_TASKS, MEMORY_SHARE,
};
pub use resolve::plan;
pub use targets::{
    all_configs, as_targets, config_dir, config_paths, did_you_mean, overrides, targets, ConfigRef,
};
pub use types::{Parsed, Planned, Prepared};

use crate::error::CommandError;

/// What a command runs: configs or figure ids (or --all), a profile, --set
/// overrides; shared by `run` and `slurm`.
#[derive(Debug, clap::Args)]
pub struct Selection {
    /// Config files (`configs/<paper>/<figure>.toml`) or figure ids (see `privpost list`).
    #[arg(value_name = "CONFIG|ID")]
    pub targets: Vec<String>,
    /// Run every config under --configs (default ./configs), or every built-in figure when there is no configs folder.
    #[arg(long)]
    pub all: bool,
    /// Apply each config's [profile.smoke] (same figure, seconds to run); = --profile smoke.
    #[arg(long, conflicts_with = "profile")]
    pub smoke: bool,
    /// Apply each config's [profile.NAME].
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Override a parameter: --set key=value (repeatable, each key once; see the sweep forms below).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Folder holding `<paper>/<figure>.toml` configs that replace the built-in ones
    /// (default: ./configs when it exists; otherwise the built-in configs are used).
    #[arg(long = "configs", value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
}

impl Selection {
    /// The profile named by --smoke or --profile.
    pub fn profile(&self) -> Option<&str> {
        if self.smoke {
            Some("smoke")
        } else {
            self.profile.as_deref()
        }
    }

    /// The config files of the targets (and --all) and the `--set` overrides,
    /// each parsed once here (the overrides first: `--set epsilon 0.5` is a
    /// missing `=`, not a figure "0.5").
    pub fn parse(&self) -> Result<Parsed, CommandError> {
        let overrides = overrides(&self.set)?;
        let dir = config_dir(self.config_dir.as_deref())?;
        let paths = config_paths(&self.targets, self.all, dir.as_deref())?;
        Ok(Parsed { paths, overrides })
    }

    /// The validated plans of the selection, nothing prepared
    /// ([`Selection::parse`], then [`plan`]).
    pub fn plan(&self) -> Result<(Parsed, Vec<Planned>), CommandError> {
        let parsed = self.parse()?;
        let planned = plan(&parsed.paths, self.profile(), &parsed.overrides)?;
        Ok((parsed, planned))
    }
}

/// Validates every config (printing the plan unless `quiet`), then prepares
/// every figure: a missing dataset or a bad data file stops the command
/// before any figure is written.
pub fn prepare_all(
    paths: &[ConfigRef],
    profile: Option<&str>,
    set: &[String],
    quiet: bool,
) -> Result<Vec<Prepared>, CommandError> {
    prepare_planned(plan(paths, profile, &overrides(set)?)?, paths.len(), quiet)
}

/// Prepares validated plans (printing them unless `quiet`).
pub fn prepare_planned(
    planned: Vec<Planned>,
    configs: usize,
    quiet: bool,
) -> Result<Vec<Prepared>, CommandError> {
    if !quiet {
        let points = planned.len();
        errln!(
            "plan: {configs} config(s), {points} run(s){}",
            if planned.iter().any(|p| p.resolved.sweep_label.is_some()) {
                " (sweep points × configs)"
            } else {
                ""
            }
        );
        for (k, p) in planned.iter().enumerate() {
            errln!(
                "  [{}/{points}] {}: {}",
                k + 1,
                p.resolved.name(),
                p.plan.describe()
            );
        }
    }
    let mut prepared = Vec::new();
    for p in planned {
        let clock = Instant::now();
        let figure = p
            .plan
            .prepare()
            .map_err(|e| e.in_file(&p.resolved.file()))?;
        prepared.push(Prepared {
            spec: p.spec,
            resolved: p.resolved,
            figure,
            prepare_seconds: clock.elapsed().as_secs_f64(),
        });
    }
    Ok(prepared)
}
