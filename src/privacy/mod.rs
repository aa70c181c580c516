//! Privacy mechanisms and accounting that do not depend on a model family:
//! noise samplers with their calibrations, and the monotone search that turns a
//! privacy map into the largest admissible coefficient.

pub mod gaussian;
pub mod laplace;
pub mod search;

/// Errors of the privacy math. Messages name the parameter and its value.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum PrivacyError {
    #[error("{name} = {value} is out of range: {allowed}")]
    OutOfRange {
        name: &'static str,
        value: f64,
        allowed: &'static str,
    },
    #[error("no coefficient in (0, 1] reaches epsilon = {target} (smallest tried: {smallest:e} gives {achieved})")]
    Unreachable {
        target: f64,
        smallest: f64,
        achieved: f64,
    },
}

/// Checks `lo < value < hi` style ranges in one place.
pub(crate) fn check(
    name: &'static str,
    value: f64,
    ok: bool,
    allowed: &'static str,
) -> Result<f64, PrivacyError> {
    if ok && !value.is_nan() {
        Ok(value)
    } else {
        Err(PrivacyError::OutOfRange {
            name,
            value,
            allowed,
        })
    }
}
