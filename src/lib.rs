//! privpost: reproduces the experiments and figures of five papers on
//! differentially private Bayesian inference from TOML configs.
//!
//! The math modules (`numeric`, `privacy`, `expfam`) know nothing of configs,
//! files or threads; `experiments` maps a validated config to tasks and rows;
//! `runner` plans, seeds, fans out and writes; `plot` renders from CSVs alone.

pub mod commands;
pub mod config;
pub mod data;
pub mod dpmcmc;
pub mod experiments;
pub mod expfam;
pub mod glm;
pub mod hellinger;
pub mod hmm;
pub mod numeric;
pub mod plot;
pub mod privacy;
pub mod runner;
pub mod samplers;

#[cfg(test)]
pub(crate) mod testutil;
