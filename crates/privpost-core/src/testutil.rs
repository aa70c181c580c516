//! Shared test helpers and the tolerances used across the unit tests, in one place.

/// Closed form vs closed form evaluated another way (same math, different rounding).
pub const REL_CLOSED_FORM: f64 = 1e-12;
/// Closed form vs composite Gauss–Legendre quadrature of the defining integral.
pub const REL_QUADRATURE: f64 = 1e-9;
/// Closed form vs 50-digit mpmath reference values (tests/reference/).
pub const REL_REFERENCE: f64 = 1e-13;

/// Asserts |got − want| ≤ rel·|want| (or both zero).
#[track_caller]
pub fn assert_rel(got: f64, want: f64, rel: f64) {
    let ok = got == want || (got - want).abs() <= rel * want.abs();
    assert!(
        ok,
        "got {got:e}, want {want:e} (rel. error {:e} > {rel:e})",
        ((got - want) / want).abs()
    );
}

/// Two-sided Kolmogorov–Smirnov statistic of `draws` against `cdf`.
pub fn ks_statistic(draws: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let mut sorted = draws.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    sorted
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
        })
        .fold(0.0, f64::max)
}
