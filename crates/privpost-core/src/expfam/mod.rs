//! Conjugate exponential families. For now the Beta-Bernoulli system of
//! geumlek2017 §3 and foulds2016 §3; the Dirichlet-Categorical system joins
//! here when the Bun et al. family needs it.

pub mod beta;
pub mod dirichlet;
pub mod mechanisms;
pub mod noise_aware;
pub mod noise_aware_dirichlet;
pub mod truncated;

pub(crate) use crate::privacy::check;
pub use crate::privacy::OutOfRange;

/// Errors of the family math; messages name the parameter and its value.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FamilyError {
    #[error(transparent)]
    OutOfRange(#[from] OutOfRange),
    #[error(transparent)]
    Privacy(#[from] crate::privacy::PrivacyError),
}
