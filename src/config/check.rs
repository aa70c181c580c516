//! Range checks shared by the experiment schemas: each returns the value or a
//! [`ParamError`] naming the key, the value and what is allowed.

use super::ParamError;

pub fn positive(key: &str, v: f64) -> Result<f64, ParamError> {
    if v > 0.0 && v.is_finite() {
        Ok(v)
    } else {
        Err(ParamError::new(
            key,
            format!("invalid value {v}"),
            "a finite number > 0",
        ))
    }
}

pub fn epsilon(key: &str, v: f64) -> Result<f64, ParamError> {
    if v > 0.0 && v.is_finite() {
        Ok(v)
    } else {
        Err(ParamError::new(
            key,
            format!("invalid privacy level ε = {v}"),
            "ε > 0 (finite)",
        ))
    }
}

pub fn order(key: &str, v: f64) -> Result<f64, ParamError> {
    if v > 1.0 && v.is_finite() {
        Ok(v)
    } else {
        Err(ParamError::new(
            key,
            format!("invalid Rényi order λ = {v}"),
            "λ > 1 (finite)",
        ))
    }
}

pub fn coefficient(key: &str, v: f64) -> Result<f64, ParamError> {
    if v > 0.0 && v <= 1.0 {
        Ok(v)
    } else {
        Err(ParamError::new(
            key,
            format!("invalid coefficient {v}"),
            "0 < value ≤ 1",
        ))
    }
}

pub fn probability(key: &str, v: f64) -> Result<f64, ParamError> {
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(ParamError::new(
            key,
            format!("invalid probability {v}"),
            "0 ≤ value ≤ 1",
        ))
    }
}

pub fn prior(key: &str, v: &[f64]) -> Result<(f64, f64), ParamError> {
    match v {
        [a, b] if *a > 0.0 && *b > 0.0 && a.is_finite() && b.is_finite() => Ok((*a, *b)),
        _ => Err(ParamError::new(
            key,
            format!("invalid Beta prior {v:?}"),
            "[alpha, beta] with both > 0, e.g. [6.0, 18.0]",
        )),
    }
}

pub fn at_least(key: &str, v: u64, min: u64) -> Result<u64, ParamError> {
    if v >= min {
        Ok(v)
    } else {
        Err(ParamError::new(
            key,
            format!("invalid value {v}"),
            format!("an integer ≥ {min}"),
        ))
    }
}

pub fn non_empty<T>(key: &str, v: &[T]) -> Result<(), ParamError> {
    if v.is_empty() {
        Err(ParamError::new(key, "empty list", "at least one value"))
    } else {
        Ok(())
    }
}
