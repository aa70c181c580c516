//! Rényi-DP formulas for DP-MCMC (heikkila2019-dp-mcmc) and its DP-SGLD
//! baseline: per-step bounds, amplification by subsampling, the subsampled
//! Gaussian, and conversion to (ε, δ)-DP. The budget questions built on them
//! (T steps, best order) are in [`super::accountant`], re-exported here.

use crate::numeric::log_sum_exp;

/// Why an accounting question cannot be answered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AccountError {
    #[error("{name} = {value}: {allowed}")]
    Invalid {
        name: &'static str,
        value: String,
        allowed: String,
    },
}

pub(super) fn invalid(
    name: &'static str,
    value: impl ToString,
    allowed: impl ToString,
) -> AccountError {
    let mut value = value.to_string();
    // a float such as 1e-300 printed by `{}` runs to hundreds of digits
    if value.len() > 16 {
        if let Ok(x) = value.parse::<f64>() {
            value = format!("{x:e}");
        }
    }
    AccountError::Invalid {
        name,
        value,
        allowed: allowed.to_string(),
    }
}

/// Per-iteration RDP of the subsampled private Barker test with C = 2,
/// heikkila2019 Theorem 2, eq. (21), for integer order α with 1 < α < b/5:
/// `ε(α) = 5/(2b) + ln(2b / (b − 5α)) / (2(α − 1)) + 2α / (b − 5α)`.
/// Requires the clipping condition (19)/(23), |r_i| ≤ √b/N₀ (checked by
/// [`check_clipping`]). Depends on the batch size b only.
pub fn barker_step_epsilon(alpha: u32, batch: u64) -> Result<f64, AccountError> {
    let (a, b) = (alpha as f64, batch as f64);
    if alpha < 2 || 5.0 * a >= b {
        return Err(invalid(
            "alpha",
            alpha,
            format!(
                "an integer order with 1 < α < b/5 = {} (Theorem 2, eq. 20)",
                b / 5.0
            ),
        ));
    }
    Ok(5.0 / (2.0 * b)
        + (2.0 * b / (b - 5.0 * a)).ln() / (2.0 * (a - 1.0))
        + 2.0 * a / (b - 5.0 * a))
}

/// Per-iteration RDP of the full-data private Barker test (heikkila2019
/// Theorem 1): with |log-likelihood ratios| ≤ B and noise variance C, the
/// decision of test (9) is (α, 2αB²/C)-RDP.
pub fn full_data_step_epsilon(alpha: f64, bound: f64, c: f64) -> Result<f64, AccountError> {
    if !(alpha > 1.0 && alpha.is_finite()) {
        return Err(invalid("alpha", alpha, "α > 1"));
    }
    if !(bound > 0.0 && bound.is_finite()) {
        return Err(invalid("bound", bound, "B > 0"));
    }
    if !(c > 0.0 && c < std::f64::consts::PI * std::f64::consts::PI / 3.0) {
        return Err(invalid("C", c, "0 < C < π²/3 (the logistic variance)"));
    }
    Ok(2.0 * alpha * bound * bound / c)
}

/// Condition (23): per-example log-likelihood ratios clipped to |r| ≤ √b / N₀.
pub fn check_clipping(clip: f64, batch: u64, n0: f64) -> Result<(), AccountError> {
    if !(n0 > 0.0 && n0.is_finite()) {
        return Err(invalid(
            "n0",
            n0,
            "a finite N₀ > 0 (the likelihood's tempering size)",
        ));
    }
    let bound = (batch as f64).sqrt() / n0;
    if clip > 0.0 && clip <= bound {
        Ok(())
    } else {
        Err(invalid(
            "clip",
            clip,
            format!("0 < clip ≤ √b/N₀ = {bound} (heikkila2019 eq. 23); the authors use 0.99·√b/N₀"),
        ))
    }
}

/// ln C(α, j) for j = 0..=α, by the multiplicative recurrence.
fn ln_binomials(alpha: u32) -> Vec<f64> {
    let mut out = Vec::with_capacity(alpha as usize + 1);
    let mut acc = 0.0;
    out.push(0.0);
    for j in 1..=alpha {
        acc += ((alpha - j + 1) as f64).ln() - (j as f64).ln();
        out.push(acc);
    }
    out
}

/// RDP of order α after subsampling without replacement with ratio q, for a
/// mechanism with per-order RDP `eps(j)` (Wang, Balle, Kasiviswanathan 2019;
/// heikkila2019 Corollary 2, eq. 22), integer α ≥ 2:
/// `ε′(α) = ln(1 + q² C(α,2) min{4(e^{ε(2)} − 1), 2e^{ε(2)}} + 2 Σ_{j=3}^{α} q^j C(α,j) e^{(j−1)ε(j)}) / (α − 1)`,
/// summed in log space.
pub fn subsampled_without_replacement(alpha: u32, q: f64, eps: impl Fn(u32) -> f64) -> f64 {
    let lnc = ln_binomials(alpha);
    let lq = q.ln();
    let e2 = eps(2);
    // ln min{4(e^{ε(2)} − 1), 2e^{ε(2)}}
    let second = (4.0f64.ln() + e2.exp_m1().ln()).min(2.0f64.ln() + e2);
    let mut terms = Vec::with_capacity(alpha as usize);
    terms.push(0.0);
    terms.push(2.0 * lq + lnc[2] + second);
    for j in 3..=alpha {
        terms.push(2.0f64.ln() + j as f64 * lq + lnc[j as usize] + (j - 1) as f64 * eps(j));
    }
    log_sum_exp(&terms) / (alpha - 1) as f64
}

/// RDP of the Poisson-subsampled Gaussian mechanism (sampling rate q, noise
/// multiplier σ), integer α ≥ 2 (Mironov, Talwar, Zhang 2019, §3.3):
/// `ε(α) = ln Σ_{k=0}^{α} C(α,k) (1−q)^{α−k} q^k exp((k² − k)/(2σ²)) / (α − 1)`.
pub fn sampled_gaussian(alpha: u32, q: f64, sigma: f64) -> f64 {
    let lnc = ln_binomials(alpha);
    let (lq, l1q) = (q.ln(), (-q).ln_1p());
    let terms: Vec<f64> = (0..=alpha)
        .map(|k| {
            // (1 − q)^0 = 1 even at q = 1, where ln(1 − q) = −∞ (0·∞ would be NaN)
            let rest = if k == alpha {
                0.0
            } else {
                (alpha - k) as f64 * l1q
            };
            let k = k as f64;
            lnc[k as usize] + rest + k * lq + (k * k - k) / (2.0 * sigma * sigma)
        })
        .collect();
    log_sum_exp(&terms) / (alpha - 1) as f64
}

/// ln erfc(x), accurate in the far right tail (an asymptotic series beyond x = 25,
/// where erfc underflows).
pub fn ln_erfc(x: f64) -> f64 {
    if x < 25.0 {
        statrs::function::erf::erfc(x).ln()
    } else {
        let x2 = x * x;
        -x2 - (x * std::f64::consts::PI.sqrt()).ln()
            + (1.0 - 0.5 / x2 + 0.75 / (x2 * x2) - 1.875 / (x2 * x2 * x2)).ln()
    }
}

/// ln(e^a + e^b) and ln(e^a − e^b) (a ≥ b), with −∞ as the empty sum.
fn ln_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        hi
    } else {
        hi + (lo - hi).exp().ln_1p()
    }
}

fn ln_sub(a: f64, b: f64) -> f64 {
    if b == f64::NEG_INFINITY {
        a
    } else if b >= a {
        f64::NEG_INFINITY
    } else {
        a + (-(b - a).exp()).ln_1p()
    }
}

/// RDP of the Poisson-subsampled Gaussian at any real order α > 1 (Mironov, Talwar,
/// Zhang 2019, §3.3): ε(α) = ln(A₁ + A₂)/(α − 1) with z₀ = σ² ln(1/q − 1) + 1/2 and
/// A₁ = Σ_{i≥0} C(α,i) q^i (1−q)^{α−i} e^{(i²−i)/(2σ²)} erfc((i − z₀)/(√2σ))/2,
/// A₂ = Σ_{i≥0} C(α,i) q^{α−i} (1−q)^i e^{((α−i)²−(α−i))/(2σ²)} erfc((z₀ − (α−i))/(√2σ))/2,
/// generalised binomials (alternating in sign beyond i > α); summed in log space until
/// the terms fall 40 nats below the sum. Integer orders use the finite sum
/// [`sampled_gaussian`], which this equals there.
pub fn sampled_gaussian_real(alpha: f64, q: f64, sigma: f64) -> f64 {
    if alpha.fract() == 0.0 && alpha >= 2.0 && alpha <= u32::MAX as f64 {
        return sampled_gaussian(alpha as u32, q, sigma);
    }
    if q >= 1.0 {
        return alpha / (2.0 * sigma * sigma);
    }
    let (lq, l1q) = (q.ln(), (-q).ln_1p());
    let z0 = sigma * sigma * (1.0 / q - 1.0).ln() + 0.5;
    let s2 = std::f64::consts::SQRT_2 * sigma;
    let (mut a0, mut a1) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    // ln |C(α, i)| and its sign, by the recurrence C(α, i) = C(α, i−1)(α − i + 1)/i
    let (mut ln_coef, mut positive) = (0.0f64, true);
    let mut small = 0;
    for i in 0..100_000u32 {
        if i > 0 {
            let factor = (alpha - i as f64 + 1.0) / i as f64;
            if factor == 0.0 {
                break;
            }
            ln_coef += factor.abs().ln();
            positive ^= factor < 0.0;
        }
        let fi = i as f64;
        let j = alpha - fi;
        let s0 = ln_coef
            + fi * lq
            + j * l1q
            + (fi * fi - fi) / (2.0 * sigma * sigma)
            + 0.5f64.ln()
            + ln_erfc((fi - z0) / s2);
        let s1 = ln_coef
            + j * lq
            + fi * l1q
            + (j * j - j) / (2.0 * sigma * sigma)
            + 0.5f64.ln()
            + ln_erfc((z0 - j) / s2);
        if positive {
            a0 = ln_add(a0, s0);
            a1 = ln_add(a1, s1);
        } else {
            a0 = ln_sub(a0, s0);
            a1 = ln_sub(a1, s1);
        }
        // the terms beyond i > α need not decrease at once (q^{α−i} and the quadratic
        // exponent grow until the erfc factor wins): stop after 20 negligible terms in a row
        if fi > alpha && s0.max(s1) < ln_add(a0, a1) - 40.0 {
            small += 1;
            if small >= 20 {
                break;
            }
        } else {
            small = 0;
        }
    }
    ln_add(a0, a1) / (alpha - 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::assert_rel;

    /// Regression: at q = 1 the subsampled Gaussian is the plain Gaussian,
    /// α/(2σ²); the k = α term once evaluated 0·ln 0 = NaN.
    #[test]
    fn sampled_gaussian_without_subsampling_is_the_gaussian() {
        for alpha in [2u32, 5, 40] {
            let want = alpha as f64 / (2.0 * 1.3 * 1.3);
            assert!((sampled_gaussian(alpha, 1.0, 1.3) - want).abs() < 1e-12 * want);
        }
    }

    /// The real-order formula agrees with the finite sum at integer orders (evaluated
    /// just off the integer, where the infinite series is used) and increases with α.
    #[test]
    fn fractional_orders_continue_the_integer_curve() {
        for (q, sigma) in [(1e-4, 1.19523), (0.01, 1.0), (0.1, 2.0)] {
            for a in [2u32, 3, 10, 22] {
                let near = sampled_gaussian_real(a as f64 + 1e-9, q, sigma);
                assert_rel(near, sampled_gaussian(a, q, sigma), 1e-6);
            }
            let mut last = 0.0;
            for k in 3..60 {
                let v = sampled_gaussian_real(k as f64 * 0.5, q, sigma);
                assert!(
                    v >= last,
                    "q={q} σ={sigma} α={}: {v} < {last}",
                    k as f64 * 0.5
                );
                last = v;
            }
        }
    }

    /// Theorem 2 (Heikkilä et al. 2019, eq. 21) written out directly, and its domain.
    #[test]
    fn per_step_bound_matches_the_formula_and_its_domain() {
        for (alpha, b) in [(2u32, 1000u64), (10, 1000), (99, 1000), (3, 20)] {
            let (a, bf) = (alpha as f64, b as f64);
            let direct = 5.0 / (2.0 * bf)
                + 1.0 / (2.0 * (a - 1.0)) * (2.0 * bf / (bf - 5.0 * a)).ln()
                + 2.0 * a / (bf - 5.0 * a);
            assert_rel(barker_step_epsilon(alpha, b).unwrap(), direct, 1e-15);
        }
        assert!(barker_step_epsilon(200, 1000).is_err()); // α = b/5
        assert!(barker_step_epsilon(1, 1000).is_err());
        assert!(check_clipping(0.99 * 1000f64.sqrt() / 100.0, 1000, 100.0).is_ok());
        assert!(check_clipping(0.32, 1000, 100.0).is_err());
        // Theorem 1, full data: 2αB²/C; it is also Lemma 1 (eq. 10) for two normals of
        // variance C whose means differ by at most 2B
        let (alpha, b, c) = (4.0, 0.1, 2.0);
        let lemma1 = alpha / 2.0 * (2.0 * b) * (2.0 * b) / c;
        assert_rel(full_data_step_epsilon(alpha, b, c).unwrap(), lemma1, 1e-15);
        assert!(full_data_step_epsilon(2.0, 0.1, 4.0).is_err());
    }

    /// eq. (22) in log space against the plain sum, where the plain sum cannot overflow.
    #[test]
    fn log_space_sum_equals_the_direct_sum() {
        for (alpha, q, b) in [(5u32, 0.001, 1000u64), (20, 0.01, 1000), (40, 0.05, 500)] {
            let eps = |j: u32| barker_step_epsilon(j, b).unwrap();
            let binom =
                |n: u32, k: u32| (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64);
            // s − 1, summed plainly; ln_1p keeps the precision of ln(1 + small)
            let mut s = q * q * binom(alpha, 2) * (4.0 * eps(2).exp_m1()).min(2.0 * eps(2).exp());
            for j in 3..=alpha {
                s += 2.0 * q.powi(j as i32) * binom(alpha, j) * ((j - 1) as f64 * eps(j)).exp();
            }
            assert_rel(
                subsampled_without_replacement(alpha, q, eps),
                s.ln_1p() / (alpha - 1) as f64,
                1e-13,
            );
        }
    }

    /// eq. (22) against a 50-digit direct evaluation of the sum, including orders
    /// where the terms overflow a double (tests/reference/heikkila_accountant.py).
    #[test]
    fn matches_mpmath_direct_sum() {
        let text = include_str!("../../../../tests/reference/heikkila_accountant.csv");
        let mut checked = 0;
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("alpha"))
        {
            let f: Vec<&str> = line.split(',').collect();
            let (alpha, q, b, want): (u32, f64, u64, f64) = (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
            );
            let got =
                subsampled_without_replacement(alpha, q, |j| barker_step_epsilon(j, b).unwrap());
            assert_rel(got, want, 1e-12);
            checked += 1;
        }
        assert_eq!(checked, 8);
    }
}
