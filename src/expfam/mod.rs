//! Conjugate exponential families. For now the Beta-Bernoulli system of
//! geumlek2017 §3 and foulds2016 §3; the Dirichlet-Categorical system joins
//! here when the Bun et al. family needs it.

pub mod beta;
pub mod mechanisms;
pub mod truncated;

/// Errors of the family math; messages name the parameter and its value.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FamilyError {
    #[error("{name} = {value} is out of range: {allowed}")]
    OutOfRange {
        name: &'static str,
        value: f64,
        allowed: &'static str,
    },
    #[error(transparent)]
    Privacy(#[from] crate::privacy::PrivacyError),
}

pub(crate) fn check(
    name: &'static str,
    value: f64,
    ok: bool,
    allowed: &'static str,
) -> Result<f64, FamilyError> {
    if ok && !value.is_nan() {
        Ok(value)
    } else {
        Err(FamilyError::OutOfRange {
            name,
            value,
            allowed,
        })
    }
}
