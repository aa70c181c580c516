//! Numerical building blocks shared by the math modules: accurate log-gamma
//! differences, log-sum-exp, and Gauss–Legendre quadrature.
//!
//! Why this exists: privacy levels of the Beta-Bernoulli mechanisms are small
//! differences of log-partition functions evaluated at large arguments (the
//! concentrated posterior uses priors of order 10^6). Subtracting `ln Γ` values
//! of that size loses most significant digits, so divergences are computed from
//! second-order remainders that are sums of non-negative terms instead.

pub mod cholesky;
pub mod gemm;
pub mod pages;
pub mod quadrature;
pub mod vmath;

/// A number as `{}` prints it, or in scientific notation when that runs long
/// (`1e308` printed by `{}` has 309 digits): how messages quote a value.
pub fn short(x: f64) -> String {
    let plain = format!("{x}");
    if plain.len() > 12 {
        format!("{x:e}")
    } else {
        plain
    }
}

/// `ln(1 + y) − y`, accurate for small `|y|` (a power series below 0.1).
///
/// Always ≤ 0 for `y > −1`; `−∞` at `y = −1`.
pub fn log1p_minus_x(y: f64) -> f64 {
    if y.abs() < 0.1 {
        // −y²/2 + y³/3 − y⁴/4 + …  (|y| < 0.1: 16 terms reach 1e-17 relative)
        let mut term = -y * y / 2.0;
        let mut sum = term;
        let mut power = y * y;
        for j in 3..40 {
            power *= -y;
            term = power / j as f64;
            sum -= term;
            if term.abs() < 1e-18 * sum.abs() {
                break;
            }
        }
        sum
    } else {
        y.ln_1p() - y
    }
}

/// `(1 + x) ln(1 + x) − x`, accurate for small `|x|`; ≥ 0 for `x > −1`.
fn one_plus_x_log1p_minus_x(x: f64) -> f64 {
    if x.abs() < 0.1 {
        // Σ_{j≥2} (−1)^j x^j / (j (j − 1))
        let mut sum = 0.0;
        let mut power = x;
        for j in 2..40 {
            power *= -x;
            let term = power / (j as f64 * (j as f64 - 1.0));
            // power = (−1)^{j−1} x^j here; the series term is (−1)^j x^j
            sum -= term;
            if term.abs() < 1e-18 * sum.abs() {
                break;
            }
        }
        sum
    } else {
        (1.0 + x) * x.ln_1p() - x
    }
}

/// `(1 + x)^(−p) − 1 + p x` for `x > −1`, `p > 0`, accurate for small `|x|`.
fn binomial_remainder(x: f64, p: f64) -> f64 {
    if x.abs() < 0.1 {
        // Σ_{j≥2} C(−p, j) x^j, with C(−p, j) = C(−p, j−1) · (−p − j + 1) / j
        let mut coef = -p * x; // C(−p, 1) x
        let mut sum = 0.0;
        for j in 2..60 {
            coef *= (-p - (j as f64) + 1.0) / j as f64 * x;
            sum += coef;
            if coef.abs() < 1e-18 * sum.abs() {
                break;
            }
        }
        sum
    } else {
        (-p * x.ln_1p()).exp() - 1.0 + p * x
    }
}

/// Stirling-series coefficients B_{2k} / (2k (2k − 1)), k = 1..7.
const STIRLING: [f64; 7] = [
    1.0 / 12.0,
    -1.0 / 360.0,
    1.0 / 1260.0,
    -1.0 / 1680.0,
    1.0 / 1188.0,
    -691.0 / 360360.0,
    1.0 / 156.0,
];

/// Arguments at or above this use the Stirling series directly.
const STIRLING_MIN: f64 = 16.0;

/// Second-order remainder of `ln Γ`:
/// `φ(a, u) = ln Γ(a + u) − ln Γ(a) − u ψ(a)` for `a > 0`, `a + u > 0`.
///
/// `φ ≥ 0` (ln Γ is convex). Computed as a sum of non-negative terms, so it
/// keeps full relative precision even when `u ≪ a` or `a ~ 10^7`:
/// the recurrence `φ(a, u) = φ(a + N, u) − Σ_{i<N} [ln(1 + u/(a+i)) − u/(a+i)]`
/// lifts both arguments above 16, where the Stirling series gives
/// `φ(A, u) = A f₁(u/A) − ½ f₂(u/A) + Σ_k c_k A^{1−2k} [(1 + x)^{1−2k} − 1 + (2k−1) x]`
/// with `f₁(x) = (1+x)ln(1+x) − x ≥ 0`, `f₂(x) = ln(1+x) − x ≤ 0`.
/// Returns `+∞` when `a + u ≤ 0` and NaN when `a ≤ 0`.
pub fn ln_gamma_remainder(a: f64, u: f64) -> f64 {
    if a.is_nan() || u.is_nan() || a <= 0.0 {
        return f64::NAN;
    }
    if a + u <= 0.0 {
        return f64::INFINITY;
    }
    if u == 0.0 {
        return 0.0;
    }
    let low = a.min(a + u);
    let shift = if low >= STIRLING_MIN {
        0
    } else {
        (STIRLING_MIN - low).ceil() as usize
    };
    let mut sum = 0.0;
    for i in 0..shift {
        sum -= log1p_minus_x(u / (a + i as f64));
    }
    let big = a + shift as f64;
    let x = u / big;
    let mut value = big * one_plus_x_log1p_minus_x(x) - 0.5 * log1p_minus_x(x);
    let mut inv_power = 1.0 / big; // A^{1−2k}
    let inv_sq = inv_power * inv_power;
    for (k, c) in STIRLING.iter().enumerate() {
        let p = (2 * k + 1) as f64;
        value += c * inv_power * binomial_remainder(x, p);
        inv_power *= inv_sq;
    }
    sum + value
}

/// `ln Σ exp(xᵢ)` without overflow; `−∞` for an empty slice or all `−∞`.
/// Written as `max + ln(1 + Σ_{i ≠ argmax} e^{xᵢ − max})` with `ln_1p`, so a sum
/// dominated by one term keeps its relative precision (e.g. ln(1 + 10⁻⁶)).
pub fn log_sum_exp(xs: &[f64]) -> f64 {
    let Some((arg, &max)) = xs.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)) else {
        return f64::NEG_INFINITY;
    };
    if max == f64::NEG_INFINITY || max.is_nan() {
        return max;
    }
    if max == f64::INFINITY {
        return f64::INFINITY;
    }
    let rest: f64 = xs
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != arg)
        .map(|(_, x)| (x - max).exp())
        .sum();
    max + rest.ln_1p()
}

/// A number to 6 significant digits, trailing zeros dropped (`1.26433`, `2e-6`).
pub fn sig(x: f64) -> String {
    if !x.is_finite() || x == 0.0 {
        return format!("{x}");
    }
    let a = x.abs();
    if (1e-4..1e6).contains(&a) {
        let decimals = (5 - a.log10().floor() as i32).max(0) as usize;
        let t = format!("{x:.decimals$}");
        if t.contains('.') {
            t.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            t
        }
    } else {
        let t = format!("{x:.5e}");
        let (m, e) = t.split_once('e').unwrap_or((&t, "0"));
        let m = if m.contains('.') {
            m.trim_end_matches('0').trim_end_matches('.')
        } else {
            m
        };
        format!("{m}e{e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use statrs::function::gamma::{digamma, ln_gamma};

    #[test]
    fn series_helpers_match_direct_formulas_away_from_zero() {
        for &x in &[0.099f64, -0.099, 0.05, -0.05] {
            let direct = x.ln_1p() - x;
            assert!((log1p_minus_x(x) - direct).abs() < 1e-15 * direct.abs() * 100.0);
            let direct = (1.0 + x) * x.ln_1p() - x;
            assert!((one_plus_x_log1p_minus_x(x) - direct).abs() < 1e-13 * direct.abs());
            for p in [1.0, 3.0, 7.0] {
                let direct = (1.0 + x).powf(-p) - 1.0 + p * x;
                let got = binomial_remainder(x, p);
                assert!((got - direct).abs() < 1e-12 * direct.abs(), "{x} {p}");
            }
        }
        // p = 1 has the closed form x² / (1 + x)
        for &x in &[1e-6f64, 0.01, -0.05, 0.5, 3.0] {
            let exact = x * x / (1.0 + x);
            assert!((binomial_remainder(x, 1.0) - exact).abs() < 1e-14 * exact);
        }
    }

    #[test]
    fn remainder_matches_log_gamma_where_cancellation_is_mild() {
        // Moderate arguments: the naive formula is accurate to ~1e-13 absolute.
        for &(a, u) in &[
            (0.5, 0.3),
            (2.0, 5.0),
            (6.0, -5.5),
            (30.0, 1.0),
            (3.0, 40.0),
        ] {
            let naive = ln_gamma(a + u) - ln_gamma(a) - u * digamma(a);
            let got = ln_gamma_remainder(a, u);
            assert!(
                (got - naive).abs() < 1e-11 * (1.0 + naive.abs()),
                "{a} {u}: {got} vs {naive}"
            );
        }
    }

    #[test]
    fn remainder_edge_cases() {
        assert_eq!(ln_gamma_remainder(3.0, -3.0), f64::INFINITY);
        assert_eq!(ln_gamma_remainder(3.0, 0.0), 0.0);
        assert!(ln_gamma_remainder(-1.0, 0.5).is_nan());
        assert!(ln_gamma_remainder(1e7, 1e-9) > 0.0);
    }

    #[test]
    fn log_sum_exp_handles_extremes() {
        assert_eq!(log_sum_exp(&[]), f64::NEG_INFINITY);
        assert!((log_sum_exp(&[1000.0, 1000.0]) - (1000.0 + 2f64.ln())).abs() < 1e-12);
        assert_eq!(log_sum_exp(&[f64::NEG_INFINITY, 0.0]), 0.0);
        // ln(1 + 1e-9) to full relative precision
        let x: f64 = 1e-9;
        assert!((log_sum_exp(&[0.0, x.ln()]) - x.ln_1p()).abs() < 1e-24);
    }
}
