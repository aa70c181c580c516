//! privpost: reproduces the experiments and figures of five papers on
//! differentially private Bayesian inference from TOML configs.
//!
//! Layers, from the bottom (see docs/architecture.md; `tests/module_graph.rs`
//! enforces that no edge points upward and that there is no cycle):
//! - leaves: `numeric`, `rng` (every random stream), `stats` (moments, quantiles,
//!   MCMC diagnostics), `term` (stderr that never panics: `errln!`), `input` (a user's files, size-capped);
//! - math: `privacy` (mechanisms, accountants, the privacy ledger's events), `expfam`,
//!   `glm`, `hellinger`, `dpmcmc`, `samplers`, `hmm` — no configs, files or threads;
//! - `results` (tables, manifest, atomic writes), `config` (TOML, validation),
//!   `data` (datasets: loaders, fetching, war-log records), `plot` (shared drawing);
//! - `experiments`: one registry row per figure (validate → prepare → tasks →
//!   summary → plot → ledger);
//! - `gallery` (the `index.html` page of an output root, beside the papers);
//! - `runner` (fan-out, progress, writing) and `commands` (one file per CLI verb).

/// `eprintln!` that never panics: see [`term`].
#[macro_export]
macro_rules! errln {
    () => {
        $crate::term::write_err(format_args!(""), true)
    };
    ($($t:tt)*) => {
        $crate::term::write_err(format_args!($($t)*), true)
    };
}

/// `eprint!` that never panics: see [`term`].
#[macro_export]
macro_rules! errprint {
    ($($t:tt)*) => {
        $crate::term::write_err(format_args!($($t)*), false)
    };
}

// The math, from its own crate (crates/privpost-core), under the names the
// harness has always used.
pub use privpost_core::{
    damcmc, dpmcmc, expfam, glm, hellinger, hmm, jax_random, numeric, privacy, rng, samplers, stats,
};

pub mod api;
pub mod cli;
pub mod commands;
pub mod config;
pub mod data;
pub mod error;
pub mod experiments;
pub mod gallery;
pub mod input;
pub mod invocation;
pub mod plan;
pub mod plot;
pub mod results;
pub mod runner;
pub mod term;

/// The version `privpost --version` prints (with the commit it was built from).
pub const LONG_VERSION: &str = env!("PRIVPOST_LONG_VERSION");
