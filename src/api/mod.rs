//! The typed front door: what the CLI verbs and the Python module both call.
//! No clap, no exit codes, and no printing but the progress a caller asks for
//! (`progress` of a run, a shard, a merge, a planned run): each function takes typed values,
//! returns a typed answer or an [`ApiError`] naming the argument and key at
//! fault, and writes only what it is asked to write. A CLI verb is: parse the
//! flags, call `api`, format the answer; `crates/privpost-python` is: convert
//! the Python values, call `api`, map the error to one exception class.
//!
//! - [`account()`] — the privacy of an event, or a ledger entry re-verified;
//! - [`account_planned()`] — the budget of a planned DP-MCMC, DP-SGLD, penalty
//!   or DP-HMC run, or the T, σ or q that meets a target ε;
//! - [`verify_ledger()`] — a run's ledger re-verified, its releases and compositions;
//! - [`audit_samples()`] — a claim audited from a mechanism's outputs;
//! - [`infer()`] — the posterior from a private release, written to a folder;
//! - [`model_release()`], [`ModelChain`], [`summarize()`] — the engine's part of a
//!   model defined outside Rust (the Python module's `infer_model`);
//! - [`load()`] — a folder privpost wrote, its manifest read typed;
//! - [`run()`] — figures computed and their folders written, as typed reports;
//! - [`run_shard()`] — one shard of them computed into the task cache, with its record;
//! - [`merge()`] — the folders of a sharded run written once every shard has finished;
//! - [`figures()`], [`redraw()`] — figure folders found, and re-rendered from their CSVs;
//! - [`combine()`] — a sweep's folders joined into one table and overlay figure.

pub mod account;
pub mod audit;
pub mod combine;
pub mod error;
pub mod infer;
pub mod ledger;
pub mod load;
pub mod merge;
pub mod model;
pub mod planned;
pub mod replot;
pub mod run;
pub mod shard;

pub use crate::results::manifest::{FolderManifest, InferManifest, InferPrivacy};
pub use account::{
    account, attack_risk, read_event, AccountAnswer, AccountOptions, Accounted, AttackRisk,
    EventInput, TprAtFpr, Verification, DEFAULT_FPRS,
};
pub use audit::{audit_samples, score_claim, Samples, Verdict};
pub use combine::{combine, CombineOptions, Combined};
pub use error::{ApiError, ErrorKind};
pub use infer::{
    infer, prepare, InferOptions, InferOutcome, Prepared, ReleaseSource, Warning, WarningKind,
};
pub use ledger::{verify_ledger, Composed, EntryCheck, LedgerCheck, Release};
pub use load::{load, Loaded};
pub use merge::{merge, MergeOptions, MergeOutcome};
pub use model::{accept_rng, model_release, summarize, ModelChain, ModelSummary};
pub use planned::{account_planned, PlannedAnswer, PlannedRun};
pub use replot::{figures, redraw, FigureFolder};
pub use run::{run, Failure, Report, RunOptions, RunOutcome};
pub use shard::{run_shard, ShardOptions, ShardOutcome};
