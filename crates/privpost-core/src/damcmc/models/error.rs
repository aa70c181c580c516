//! The error of a model's constructor: the key, what was found, what is allowed
//! (a leaf, so that each model imports it without its parent module).

/// A prior or size the model cannot take.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{key}: {found} — allowed: {allowed}")]
pub struct ModelError {
    pub key: &'static str,
    pub found: String,
    pub allowed: &'static str,
}

impl ModelError {
    pub fn new(key: &'static str, found: impl Into<String>, allowed: &'static str) -> Self {
        Self {
            key,
            found: found.into(),
            allowed,
        }
    }
}
