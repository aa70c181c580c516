//! What the planning stage hands on: a validated plan per run ([`Planned`]),
//! a prepared figure per run ([`Prepared`]), a selection parsed ([`Parsed`]).

use crate::config::{Override, Resolved};
use crate::experiments::{Figure, Plan, Spec};
use crate::runner::estimate;

/// A config resolved and validated into a plan (nothing prepared yet).
pub struct Planned {
    pub spec: &'static Spec,
    pub resolved: Resolved,
    pub plan: Box<dyn Plan>,
}

impl Planned {
    /// The run's cost before preparing ([`estimate::plan_cost`]).
    pub fn cost(&self) -> Option<estimate::Cost> {
        let r = &self.resolved;
        estimate::plan_cost(
            &r.experiment,
            self.plan.cost(),
            r.profile.is_none() && r.overrides.is_empty(),
        )
    }

    /// `figure@point`: the folder below the output root.
    pub fn name(&self) -> String {
        self.resolved.name()
    }
}

/// A figure run ready to compute: its registry row, resolved config and
/// prepared figure.
pub struct Prepared {
    pub spec: &'static Spec,
    pub resolved: Resolved,
    pub figure: Box<dyn Figure>,
    /// Seconds spent preparing the figure (data, fits, accounting): part of its wall time.
    pub prepare_seconds: f64,
}

impl Prepared {
    /// `figure@point`: the folder below the output root.
    pub fn name(&self) -> String {
        self.resolved.name()
    }
}

/// A selection's config files and `--set` overrides, parsed.
pub struct Parsed {
    pub paths: Vec<super::ConfigRef>,
    pub overrides: Vec<Override>,
}
