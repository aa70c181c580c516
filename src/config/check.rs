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

/// Largest privacy level a config may ask for: beyond it a release is not
/// private in any useful sense, and figures plot ε on axes bounded at 1e15.
pub const MAX_EPSILON: f64 = 1e6;

/// Smallest privacy level a config may ask for: below it the noise scales (1/ε
/// and more) and the share of ε a mechanism splits over its releases leave the
/// range the samplers hold — ε = 5·10⁻³²⁴ split over five features became 0 in a
/// task, after the plan had been accepted.
pub const MIN_EPSILON: f64 = 1e-6;

pub fn epsilon(key: &str, v: f64) -> Result<f64, ParamError> {
    if (MIN_EPSILON..=MAX_EPSILON).contains(&v) {
        Ok(v)
    } else {
        Err(ParamError::new(
            key,
            format!("invalid privacy level ε = {}", short(v)),
            "10⁻⁶ ≤ ε ≤ 10⁶",
        ))
    }
}

/// `lo ≤ v ≤ hi`, the range the computation is stable in (`what` says why
/// the ends are where they are).
pub fn within(key: &str, v: f64, lo: f64, hi: f64, what: &str) -> Result<f64, ParamError> {
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(ParamError::new(
            key,
            short(v),
            format!("{} ≤ {key} ≤ {} ({what})", short(lo), short(hi)),
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
    // below 1e-6 the critical orders (∝ 1/r²) leave every plottable range
    if (1e-6..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(ParamError::new(
            key,
            format!("invalid coefficient {}", short(v)),
            "1e-6 ≤ value ≤ 1",
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
        [a, b] if hyperparameter(*a) && hyperparameter(*b) => Ok((*a, *b)),
        _ => Err(ParamError::new(
            key,
            format!("invalid Beta prior {v:?}"),
            HYPERPARAMETERS,
        )),
    }
}

/// What Beta and Dirichlet hyperparameters may be: the documented range, in which
/// every posterior's CDF, inverse CDF and normaliser is evaluated (a Dirichlet
/// prior of 1e20 had lost the other parameters to rounding and panicked in a
/// worker).
pub const HYPERPARAMETERS: &str =
    "[alpha, beta] with 1e-6 ≤ alpha, beta ≤ 1e6, e.g. [6.0, 18.0] (Dirichlet: each of α₁, …, α_K)";

/// A Beta or Dirichlet hyperparameter inside [1e-6, 1e6].
pub fn hyperparameter(v: f64) -> bool {
    (1e-6..=1e6).contains(&v)
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

/// Most points one range or grid of a figure may have (`*_min`/`*_max`/`*_step`
/// keys, `*_points` counts): counted from its parameters before anything is
/// expanded, so a step typo is refused instead of allocating gigabytes.
pub const MAX_RANGE_POINTS: u64 = 100_000;

/// The number of points `lo, lo + step, …, ≤ hi` (both ends finite, `step > 0`,
/// `lo ≤ hi`), counted in floating point before any expansion and refused
/// beyond [`MAX_RANGE_POINTS`]. `keys` are (lo, hi, step) names for the errors.
pub fn range_points(keys: [&str; 3], lo: f64, hi: f64, step: f64) -> Result<usize, ParamError> {
    let [lo_key, hi_key, step_key] = keys;
    for (key, v) in [(lo_key, lo), (hi_key, hi)] {
        if !v.is_finite() {
            return Err(ParamError::new(key, format!("{v}"), "a finite number"));
        }
    }
    positive(step_key, step)?;
    if hi < lo {
        return Err(ParamError::new(
            hi_key,
            format!("{hi} < {lo_key} = {lo}"),
            format!("{hi_key} ≥ {lo_key}"),
        ));
    }
    let count = ((hi - lo) / step + 1e-9).floor() + 1.0;
    if !count.is_finite() || count > MAX_RANGE_POINTS as f64 {
        return Err(ParamError::new(
            step_key,
            format!(
                "{lo_key} = {}, {hi_key} = {} and {step_key} = {} give {count:.3e} points",
                short(lo),
                short(hi),
                short(step)
            ),
            format!("at most {MAX_RANGE_POINTS} points: a larger step or a narrower range"),
        ));
    }
    Ok(count as usize)
}

pub use crate::numeric::short;

/// A count of points (`*_points`): between `min` and [`MAX_RANGE_POINTS`].
pub fn points(key: &str, v: u64, min: u64) -> Result<usize, ParamError> {
    if (min..=MAX_RANGE_POINTS).contains(&v) {
        Ok(v as usize)
    } else {
        Err(ParamError::new(
            key,
            format!("{v} points"),
            format!("{min} to {MAX_RANGE_POINTS} points"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_counted_before_expansion() {
        let k = ["lo", "hi", "step"];
        assert_eq!(range_points(k, 20.0, 2000.0, 10.0).unwrap(), 199);
        assert_eq!(range_points(k, 1.0, 1.0, 0.5).unwrap(), 1);
        // ends that are not a whole number of steps apart: the last point ≤ hi
        assert_eq!(range_points(k, 0.0, 1.0, 0.3).unwrap(), 4);
        // 0.1 steps that land on hi in exact arithmetic still include it
        assert_eq!(range_points(k, 0.0, 0.3, 0.1).unwrap(), 4);
        for (hi, step, key) in [
            (1e308, 10.0, "step"),
            (2000.0, 1e-6, "step"),
            (f64::INFINITY, 1.0, "hi"),
            (10.0, 0.0, "step"),
            (10.0, f64::NAN, "step"),
            (1.0, 1.0, "hi"),
        ] {
            let lo = if key == "hi" && hi.is_finite() {
                5.0
            } else {
                0.0
            };
            let e = range_points(k, lo, hi, step).unwrap_err();
            assert_eq!(e.key, key, "{hi} {step}: {e:?}");
        }
        assert_eq!(
            range_points(k, 0.0, (MAX_RANGE_POINTS - 1) as f64, 1.0).unwrap() as u64,
            MAX_RANGE_POINTS
        );
        assert!(range_points(k, 0.0, MAX_RANGE_POINTS as f64, 1.0).is_err());
        assert!(points("p", MAX_RANGE_POINTS + 1, 2).is_err());
        assert!(points("p", 1, 2).is_err());
        assert_eq!(points("p", 2, 2).unwrap(), 2);
    }
}
