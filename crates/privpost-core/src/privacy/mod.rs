//! Privacy mechanisms and accounting that do not depend on a model family:
//! noise samplers with their calibrations, RDP formulas (`rdp`) and the budget
//! questions built on them (`accountant`), the monotone search that turns a
//! privacy map into the largest admissible coefficient, and the privacy events
//! and ledger every figure's manifest carries (`ledger`).

pub mod accountant;
pub mod allocation;
pub mod audit;
pub mod curve_audit;
pub mod event;
pub mod event_account;
pub mod exact;
pub mod float_attack;
pub mod gaussian;
pub mod gaussian_pld;
pub mod laplace;
pub mod laplace_pld;
pub mod ledger;
pub mod noise;
pub mod pld;
pub mod rdp;
pub mod release_risk;
pub mod search;
pub mod sg_mcmc;
pub mod tradeoff;

/// A parameter outside its domain; shared by the math modules.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
#[error("{name} = {value} is out of range: {allowed}")]
pub struct OutOfRange {
    pub name: &'static str,
    pub value: f64,
    pub allowed: &'static str,
}

/// Errors of the privacy math. Messages name the parameter and its value.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum PrivacyError {
    #[error(transparent)]
    OutOfRange(#[from] OutOfRange),
    #[error("no coefficient in (0, 1] reaches epsilon = {target} (smallest tried: {smallest:e} gives {achieved})")]
    Unreachable {
        target: f64,
        smallest: f64,
        achieved: f64,
    },
}

/// `Ok(value)` when `ok` holds (and value is not NaN), else an [`OutOfRange`].
pub fn check(
    name: &'static str,
    value: f64,
    ok: bool,
    allowed: &'static str,
) -> Result<f64, OutOfRange> {
    if ok && !value.is_nan() {
        Ok(value)
    } else {
        Err(OutOfRange {
            name,
            value,
            allowed,
        })
    }
}

/// [`check`] for a parameter that must be finite and > 0 (a scale, σ, ε, a
/// sensitivity).
pub fn check_positive(name: &'static str, value: f64) -> Result<f64, OutOfRange> {
    check(
        name,
        value,
        value > 0.0 && value.is_finite(),
        "a finite value > 0",
    )
}
