//! Choosing the largest coefficient in (0, 1] that meets a privacy target
//! (geumlek2017 §3.1: "We can do a binary search over (0, 1] to find an
//! appropriate value of r or m").

use super::PrivacyError;

/// A coefficient with the privacy level it was verified to achieve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verified {
    pub coefficient: f64,
    /// ε(coefficient) as evaluated; always ≤ the target.
    pub epsilon: f64,
    /// Privacy-map evaluations spent.
    pub evaluations: usize,
}

/// Largest c ∈ (0, 1] with `epsilon_of(c) ≤ target` that bisection can certify.
///
/// Returns c = 1 when it already satisfies the target. Otherwise halves c until
/// a satisfying value is found (Theorems 13–14 guarantee one exists for an
/// ε-map that vanishes as c → 0), then bisects between the last satisfying and
/// the first failing value until they are adjacent doubles: a relative
/// precision of 2⁻⁵², reached in about 55 steps whatever the magnitude of c.
/// (The paper's 500 absolute halvings end at the same adjacent pair.)
/// Only values that were evaluated and satisfied the target are ever returned,
/// so the guarantee never rests on the monotonicity of `epsilon_of`.
pub fn largest_coefficient(
    target: f64,
    mut epsilon_of: impl FnMut(f64) -> f64,
) -> Result<Verified, PrivacyError> {
    super::check("epsilon", target, target > 0.0, "a value > 0")?;
    let mut evaluations = 1;
    let at_one = epsilon_of(1.0);
    if at_one <= target {
        return Ok(Verified {
            coefficient: 1.0,
            epsilon: at_one,
            evaluations,
        });
    }
    let mut hi = 1.0;
    let mut lo = 0.5;
    let mut eps_lo;
    loop {
        eps_lo = epsilon_of(lo);
        evaluations += 1;
        if eps_lo <= target {
            break;
        }
        hi = lo;
        lo *= 0.5;
        if lo < 1e-300 {
            return Err(PrivacyError::Unreachable {
                target,
                smallest: lo,
                achieved: eps_lo,
            });
        }
    }
    loop {
        let mid = lo + 0.5 * (hi - lo);
        if mid <= lo || mid >= hi {
            break;
        }
        let eps_mid = epsilon_of(mid);
        evaluations += 1;
        if eps_mid <= target {
            lo = mid;
            eps_lo = eps_mid;
        } else {
            hi = mid;
        }
    }
    Ok(Verified {
        coefficient: lo,
        epsilon: eps_lo,
        evaluations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_boundary_to_full_precision() {
        // ε(c) = c², target 1e-10 → c = 1e-5 (relative precision, not absolute).
        let v = largest_coefficient(1e-10, |c| c * c).unwrap();
        assert!(v.epsilon <= 1e-10);
        assert!(
            (v.coefficient - 1e-5).abs() < 4e-16 * 1e-5,
            "{}",
            v.coefficient
        );
        let next = f64::from_bits(v.coefficient.to_bits() + 1);
        assert!(next * next > 1e-10 || next * next == v.epsilon);
        assert!(v.evaluations < 100);
    }

    #[test]
    fn returns_one_when_direct_sampling_suffices() {
        let v = largest_coefficient(2.0, |c| c).unwrap();
        assert_eq!(v.coefficient, 1.0);
    }

    #[test]
    fn infinite_epsilon_is_treated_as_failing() {
        let v = largest_coefficient(1.0, |c| if c > 0.3 { f64::INFINITY } else { c }).unwrap();
        assert!(v.coefficient <= 0.3 && v.coefficient > 0.3 * (1.0 - 1e-15));
    }

    #[test]
    fn unreachable_targets_are_errors() {
        assert!(matches!(
            largest_coefficient(0.5, |_| 1.0),
            Err(PrivacyError::Unreachable { .. })
        ));
        assert!(largest_coefficient(0.0, |c| c).is_err());
    }
}
