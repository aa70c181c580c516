//! geumlek2017 §5.1: Beta-Bernoulli experiments (Figures 1 and 2).
//!
//! Figures 1–3 (one file each), the sampler validation of Figure 3 (`samplers.rs`),
//! and their plots (`plot.rs`; Figure 3's in `experiments::logreg::plot`).

mod fig1;
mod fig2;
mod fig3;
pub mod plot;
pub mod samplers;

pub use fig1::{build_fig1, Fig1, FIG1_COLUMNS};
pub use fig2::{build_fig2, Fig2, FIG2_DATA, FIG2_SUMMARY};
pub use fig3::{validate_fig3, Fig3, FIG3_COLUMNS, FIG3_SUMMARY};

use crate::config::{check, ParamError};
use crate::expfam::beta::BetaDist;
use crate::expfam::mechanisms::BetaBernoulli;

fn problem(prior: &[f64], n: u64) -> Result<BetaBernoulli, ParamError> {
    let (a, b) = check::prior("prior", prior)?;
    let prior = BetaDist::new(a, b)
        .map_err(|e| ParamError::new("prior", e.to_string(), "[alpha, beta] > 0"))?;
    Ok(BetaBernoulli::new(prior, n))
}
