//! geumlek2017 §5.1: Beta-Bernoulli experiments (Figures 1 and 2).
//!
//! Figures 1–3 (one file each), the sampler validation of Figure 3 (`samplers.rs`),
//! and their plots (`plot.rs`; Figure 3's in `experiments::logreg::plot`).

mod fig1;
mod fig2;
mod fig3;
pub mod plot;
pub mod samplers;

pub use fig1::{build_fig1, Fig1, Fig1Row, FIG1_SCHEMA};
pub use fig2::{build_fig2, Fig2, Fig2Row, Fig2Summary, FIG2_SCHEMA};
pub use fig3::{validate_fig3, Fig3, Fig3Row, Fig3Summary, FIG3_SCHEMA};

use crate::config::ParamError;
use crate::experiments::parameter;
use crate::expfam::beta::BetaDist;
use crate::expfam::mechanisms::BetaBernoulli;

/// The Beta prior of §5.1, spelled with named parameters: `prior = { alpha = …,
/// beta = … }`. The paper writes the prior in natural form η₀ = (α₀, α₀ + β₀) (§3), so
/// its "η₀ = (6, 18)" is Beta(6, 12); a bare pair `[a, b]` is refused as ambiguous.
/// The prior and data size of a Beta-Bernoulli figure, as [`Figure::parameters`]:
/// the prior in both spellings (Beta(α, β) and the paper's η₀ = (α, α + β), §3).
fn problem_parameters(problem: &BetaBernoulli) -> Vec<(String, String)> {
    let (a, b) = (problem.prior.alpha(), problem.prior.beta());
    vec![
        parameter("prior", format!("Beta({a}, {b}) (η₀ = ({a}, {}))", a + b)),
        parameter("n", problem.n),
    ]
}

fn problem(prior: &toml::Value, n: u64) -> Result<BetaBernoulli, ParamError> {
    const ALLOWED: &str =
        "prior = { alpha = …, beta = … }, e.g. { alpha = 6.0, beta = 12.0 } for the paper's η₀ = (6, 18)";
    let number = |v: Option<&toml::Value>| match v {
        Some(toml::Value::Float(x)) => Some(*x),
        Some(toml::Value::Integer(i)) => Some(*i as f64),
        _ => None,
    };
    let (a, b) = match prior {
        toml::Value::Table(t)
            if t.len() == 2
                && number(t.get("alpha")).is_some()
                && number(t.get("beta")).is_some() =>
        {
            (
                number(t.get("alpha")).unwrap_or(f64::NAN),
                number(t.get("beta")).unwrap_or(f64::NAN),
            )
        }
        toml::Value::Array(v) => {
            return Err(ParamError::new(
                "prior",
                format!(
                    "{} is ambiguous (Beta(α, β), or the paper's natural form η₀ = (α₀, α₀ + β₀)?)",
                    toml::Value::Array(v.clone())
                ),
                ALLOWED,
            ))
        }
        other => return Err(ParamError::new("prior", other.to_string(), ALLOWED)),
    };
    // beyond [1e-6, 1e6] the calibrations' digamma and log-Beta terms lose every
    // digit (at 1e-300 no coefficient reaches any ε: seen by the key-naming fuzz)
    for (key, v) in [("prior.alpha", a), ("prior.beta", b)] {
        if !(1e-6..=1e6).contains(&v) {
            return Err(ParamError::new(
                key,
                crate::config::check::short(v),
                "1e-6 ≤ alpha, beta ≤ 1e6 (a Beta prior the calibrations can evaluate)",
            ));
        }
    }
    let prior =
        BetaDist::new(a, b).map_err(|e| ParamError::new("prior", e.to_string(), ALLOWED))?;
    Ok(BetaBernoulli::new(prior, n))
}
