//! foulds2016 §3: Laplace mechanism vs one-posterior-sample (Figures 1 and 2).
//!
//! Figures 1–2 (Beta-Bernoulli, one file each) and their plots (`plot.rs`); the
//! HMM case study of §5 (Figures 3–7 and the recovery figure) in [`hmm`].

mod fig1;
mod fig2;
pub mod hmm;
pub mod plot;

pub use fig1::{build_fig1, Fig1, Fig1Row, Fig1Summary, FIG1_SCHEMA};
pub use fig2::{build_fig2, Fig2, Fig2Row, Fig2Summary, FIG2_SCHEMA};

use crate::config::{check, ParamError};
use crate::expfam::beta::BetaDist;
use crate::expfam::mechanisms::{counts_noise, Ops};
use crate::privacy::event::NoiseMode;
use crate::privacy::event::{Event, Guarantee};
use crate::privacy::ledger::{Entry, Ledger};
use crate::privacy::noise::CountNoise;

fn prior(v: &[f64]) -> Result<BetaDist, ParamError> {
    let (a, b) = check::prior("prior", v)?;
    BetaDist::new(a, b).map_err(|e| ParamError::new("prior", e.to_string(), "[alpha, beta] > 0"))
}

/// The prior and the OPS truncation, for [`Figure::parameters`](crate::experiments::Figure::parameters).
fn prior_and_ops(prior: &BetaDist, ops: &Ops) -> [(String, String); 2] {
    [
        crate::experiments::parameter(
            "prior",
            format!("Beta({}, {})", prior.alpha(), prior.beta()),
        ),
        crate::experiments::parameter("OPS truncation a₀", ops.a0),
    ]
}

fn ops(a0: f64, epsilon: f64) -> Result<Ops, ParamError> {
    check::epsilon("epsilon", epsilon)?;
    Ops::new(a0, epsilon).map_err(|_| {
        ParamError::new(
            "a0",
            format!("invalid truncation a0 = {a0}"),
            "0 < a0 < 0.5",
        )
    })
}

/// The ledger of the Beta-Bernoulli comparison: the non-private posterior, the
/// Laplace mechanism on (n₊, n₋) and OPS, each as one release of one dataset.
/// The noise of the Laplace mechanism on (n₊, n₋) at ε in `mode`.
fn laplace_noise(mode: NoiseMode, epsilon: f64) -> Result<CountNoise, ParamError> {
    counts_noise(mode, epsilon).map_err(|e| {
        ParamError::new(
            "epsilon",
            format!("{e} (noise = \"{}\")", mode.as_str()),
            "a positive ε whose Laplace scale 2/ε the exact sampler can hold (2^-30 ≤ 2/ε ≤ 2^30)",
        )
    })
}

fn ledger(
    ops: &Ops,
    laplace: &CountNoise,
    epsilon: f64,
    laplace_note: &str,
) -> anyhow::Result<Ledger> {
    Ok(vec![
        Entry::new("mechanism=posterior", Event::NonPrivate, Guarantee::None)
            .when("the non-private baseline"),
        Entry::new(
            "mechanism=laplace",
            laplace.event(),
            Guarantee::PureDp { epsilon },
        )
        .when(laplace_note),
        Entry::new(
            "mechanism=ops",
            ops.event(),
            Guarantee::PureDp {
                epsilon: ops.epsilon_spent(),
            },
        )
        .when("the sample is drawn exactly (inverse CDF of the truncated, tempered Beta)"),
    ])
}
