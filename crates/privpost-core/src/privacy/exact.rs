//! Exact samplers of the discrete Laplace and the discrete Gaussian on ℤ
//! (Canonne, Kamath, Steinke 2020, "The Discrete Gaussian for Differential
//! Privacy", here CKS20), in integer arithmetic on any seeded or system RNG.
//!
//! Every probability the samplers use is a ratio of integers, decided by a
//! uniform integer below the denominator ([`uniform_below`], rejection from
//! random bits: exactly uniform). There is no floating point anywhere between
//! the random bits and the integer output, so the output distribution is
//! exactly the stated pmf — the property the float-attack audit checks
//! (Mironov 2012 broke float Laplace through its low-order bits).
//!
//! Scales are rationals on a 2⁻³² (Laplace) or 2⁻²⁰ (Gaussian σ²) grid, rounded
//! *up* from the configured value ([`Ratio::at_least`]), so the noise is never
//! smaller than asked and ε never larger; machine integers (u64/u128) hold every
//! intermediate, and the one quantity that can outgrow 128 bits (the discrete
//! Gaussian's acceptance exponent far in the proposal's tail) falls back to
//! `num-bigint`.

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};
use rand::Rng;
use serde::{Deserialize, Serialize};

use super::OutOfRange;

/// A uniform integer in [0, n), n ≥ 1: Lemire's multiply-and-reject (2019),
/// exactly uniform (the rejection removes the bias a plain multiply or modulo
/// would leave; one `u64` per draw except with probability < n/2⁶⁴).
pub fn uniform_below<R: Rng + ?Sized>(n: u64, rng: &mut R) -> u64 {
    debug_assert!(n >= 1);
    let mut m = rng.next_u64() as u128 * n as u128;
    if (m as u64) < n {
        // 2⁶⁴ mod n: the low words below it belong to an incomplete stripe
        let threshold = n.wrapping_neg() % n;
        while (m as u64) < threshold {
            m = rng.next_u64() as u128 * n as u128;
        }
    }
    (m >> 64) as u64
}

/// [`uniform_below`] for a 128-bit bound.
pub fn uniform_below_u128<R: Rng + ?Sized>(n: u128, rng: &mut R) -> u128 {
    debug_assert!(n >= 1);
    if n <= u64::MAX as u128 {
        return uniform_below(n as u64, rng) as u128;
    }
    let bits = 128 - (n - 1).leading_zeros();
    loop {
        let x = ((rng.next_u64() as u128) << 64 | rng.next_u64() as u128) >> (128 - bits);
        if x < n {
            return x;
        }
    }
}

/// Bernoulli(num/den), num ≤ den, den ≥ 1: exact.
fn bernoulli_ratio<R: Rng + ?Sized>(num: u128, den: u128, rng: &mut R) -> bool {
    uniform_below_u128(den, rng) < num
}

/// Bernoulli(exp(−γ)) for γ = num/den ∈ [0, 1] (CKS20 Algorithm 1, first part):
/// K counts the Bernoulli(γ/K) successes; the output is 1 when K ends odd.
fn bernoulli_exp_unit<R: Rng + ?Sized>(num: u128, den: u128, rng: &mut R) -> bool {
    match (u64::try_from(num), u64::try_from(den)) {
        (Ok(n), Ok(d)) => bernoulli_exp_unit64(n, d, rng),
        _ => bernoulli_exp_unit_from(num, den, 1, rng),
    }
}

/// The loop of [`bernoulli_exp_unit`] entered with K = `k` (the draws for
/// smaller K having succeeded).
fn bernoulli_exp_unit_from<R: Rng + ?Sized>(
    num: u128,
    den: u128,
    mut k: u128,
    rng: &mut R,
) -> bool {
    loop {
        // Bernoulli(γ/k) = Bernoulli(num/(den·k)); when den·k would overflow,
        // the product Bernoulli(num/den)·Bernoulli(1/k) of independent draws.
        let success = match den.checked_mul(k) {
            Some(dk) => bernoulli_ratio(num, dk, rng),
            None => bernoulli_ratio(num, den, rng) && bernoulli_ratio(1, k, rng),
        };
        if !success {
            return k % 2 == 1;
        }
        k += 1;
    }
}

/// [`bernoulli_exp_unit`] in 64-bit arithmetic while den·k fits.
fn bernoulli_exp_unit64<R: Rng + ?Sized>(num: u64, den: u64, rng: &mut R) -> bool {
    let mut k: u64 = 1;
    loop {
        let Some(dk) = den.checked_mul(k) else {
            // k beyond 2⁶⁴/den (probability below 1/k!): the general version
            // from this k on is the same process
            return bernoulli_exp_unit_from(num as u128, den as u128, k as u128, rng);
        };
        if uniform_below(dk, rng) >= num {
            return k % 2 == 1;
        }
        k += 1;
    }
}

/// Bernoulli(exp(−1)).
fn bernoulli_exp_one<R: Rng + ?Sized>(rng: &mut R) -> bool {
    bernoulli_exp_unit64(1, 1, rng)
}

/// Bernoulli(exp(−γ)) for γ = num/den ≥ 0, den ≥ 1 (CKS20 Algorithm 1): ⌊γ⌋
/// independent Bernoulli(e⁻¹) draws must all succeed, then one of exp(−frac γ).
pub fn bernoulli_exp<R: Rng + ?Sized>(num: u128, den: u128, rng: &mut R) -> bool {
    // γ < 1 needs no division; 64-bit division is several times faster than
    // 128-bit, and the samplers' numbers mostly fit
    let (whole, rem) = if num < den {
        (0, num)
    } else if let (Ok(n), Ok(d)) = (u64::try_from(num), u64::try_from(den)) {
        ((n / d) as u128, (n % d) as u128)
    } else {
        (num / den, num % den)
    };
    let mut i: u128 = 0;
    while i < whole {
        if !bernoulli_exp_one(rng) {
            return false;
        }
        i += 1;
    }
    bernoulli_exp_unit(rem, den, rng)
}

/// [`bernoulli_exp`] with a numerator beyond 128 bits (the remainder and the
/// denominator still fit).
fn bernoulli_exp_big<R: Rng + ?Sized>(num: &BigUint, den: u128, rng: &mut R) -> bool {
    let den_big = BigUint::from(den);
    let mut whole = num / &den_big;
    // the remainder is below den, which fits
    let rem = (num % &den_big).to_u128().unwrap_or(0);
    while !whole.is_zero() {
        if !bernoulli_exp_one(rng) {
            return false;
        }
        whole -= BigUint::one();
    }
    bernoulli_exp_unit(rem, den, rng)
}

/// x = m·2^e exactly, for a finite x > 0.
fn decode(x: f64) -> (u64, i64) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp - 1075)
    }
}

/// Whether (num/den)·a ≥ b holds in exact arithmetic (den a power of two,
/// a, b finite and > 0).
fn product_at_least(r: Ratio, a: f64, b: f64) -> bool {
    let (ma, ea) = decode(a);
    let (mb, eb) = decode(b);
    let den_bits = r.den.trailing_zeros() as i64;
    // r·a = num·ma·2^(ea − den_bits), b = mb·2^eb
    let (el, er) = (ea - den_bits, eb);
    let lo = el.min(er);
    let lhs = (BigUint::from(r.num) * ma) << (el - lo) as usize;
    let rhs = BigUint::from(mb) << (er - lo) as usize;
    lhs >= rhs
}

/// A positive rational num/den in lowest terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ratio {
    pub num: u64,
    pub den: u64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Ratio {
    pub fn new(num: u64, den: u64) -> Self {
        let g = gcd(num, den).max(1);
        Self {
            num: num / g,
            den: den / g,
        }
    }

    /// The smallest multiple of 2^−`grid_bits` that is ≥ x, for x in
    /// [2^−`grid_bits`, 2^`max_bits`]; exact (a power-of-two product and a
    /// ceiling are exact in binary floating point).
    pub fn at_least(
        name: &'static str,
        x: f64,
        grid_bits: i32,
        max_bits: i32,
    ) -> Result<Self, OutOfRange> {
        let lo = 2f64.powi(-grid_bits);
        let hi = 2f64.powi(max_bits);
        super::check(
            name,
            x,
            x.is_finite() && x >= lo && x <= hi,
            "a value the exact sampler's integers can hold: in [2^-30, 2^30] for a Laplace scale, [2^-20, 2^40] for a Gaussian variance",
        )?;
        let scaled = (x * 2f64.powi(grid_bits)).ceil();
        Ok(Self::new(scaled as u64, 1u64 << grid_bits))
    }

    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl std::fmt::Display for Ratio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

/// Grid of a Laplace scale: multiples of 2⁻³², scales up to 2³⁰.
pub const LAPLACE_GRID_BITS: i32 = 32;
pub const LAPLACE_MAX_BITS: i32 = 30;
/// Grid of a Gaussian variance: multiples of 2⁻²⁰, variances up to 2⁴⁰ (σ ≤ 2²⁰),
/// so that 2σ²·den·t² (t = ⌊σ⌋ + 1) stays below 2¹²⁸.
pub const GAUSSIAN_GRID_BITS: i32 = 20;
pub const GAUSSIAN_MAX_BITS: i32 = 40;

/// The discrete Laplace on ℤ with scale b = t/s: P(Y = y) ∝ exp(−|y|/b)
/// (CKS20 Definition 1; the two-sided geometric of Ghosh et al. 2009). Added to
/// an integer statistic of L1 sensitivity Δ it is (Δ/b)-DP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiscreteLaplace {
    scale: Ratio,
}

impl DiscreteLaplace {
    /// The scale Δ/ε rounded up to the 2⁻³² grid (so ε' = Δ/b ≤ ε).
    pub fn for_privacy(sensitivity: f64, epsilon: f64) -> Result<Self, super::PrivacyError> {
        super::check_positive("sensitivity", sensitivity)?;
        super::check_positive("epsilon", epsilon)?;
        let mut scale = Ratio::at_least(
            "scale",
            sensitivity / epsilon,
            LAPLACE_GRID_BITS,
            LAPLACE_MAX_BITS,
        )?;
        // the float quotient may sit below the real Δ/ε: step up the grid until
        // scale·ε ≥ Δ holds exactly (at most once)
        while !product_at_least(scale, epsilon, sensitivity) {
            scale = Ratio::new(
                scale.num * ((1u64 << LAPLACE_GRID_BITS) / scale.den) + 1,
                1u64 << LAPLACE_GRID_BITS,
            );
        }
        Ok(Self::with_scale(scale))
    }

    pub fn with_scale(scale: Ratio) -> Self {
        Self { scale }
    }

    pub fn scale(&self) -> Ratio {
        self.scale
    }

    /// One draw (CKS20 Algorithm 2 with t/s = the scale): U uniform in [0, t),
    /// kept with probability exp(−U/t); V ~ Geometric(1 − e⁻¹); Y = ⌊(U + tV)/s⌋
    /// with a random sign, rejecting −0.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> i128 {
        let (t, s) = (self.scale.num, self.scale.den);
        loop {
            let u = uniform_below(t, rng);
            // γ = u/t < 1
            if !bernoulli_exp_unit64(u, t, rng) {
                continue;
            }
            let mut v: u128 = 0;
            while bernoulli_exp_one(rng) {
                v += 1;
            }
            let x = u as u128 + t as u128 * v;
            // the grid's denominators are powers of two: a shift
            let y = if s.is_power_of_two() {
                (x >> s.trailing_zeros()) as i128
            } else {
                (x / s as u128) as i128
            };
            let negative = rng.next_u32() & 1 == 1;
            if negative && y == 0 {
                continue;
            }
            return if negative { -y } else { y };
        }
    }

    /// r = exp(−1/b), the ratio of successive probabilities.
    fn ratio(&self) -> f64 {
        (-1.0 / self.scale.to_f64()).exp()
    }

    /// P(Y = y) = (1 − r)/(1 + r)·r^|y|.
    pub fn pmf(&self, y: i64) -> f64 {
        let r = self.ratio();
        (1.0 - r) / (1.0 + r) * r.powf(y.unsigned_abs() as f64)
    }

    /// P(Y ≤ y): r^{−y}/(1 + r) for y < 0, 1 − r^{y+1}/(1 + r) for y ≥ 0.
    pub fn cdf(&self, y: i64) -> f64 {
        let r = self.ratio();
        if y < 0 {
            r.powf(-(y as f64)) / (1.0 + r)
        } else {
            1.0 - r.powf(y as f64 + 1.0) / (1.0 + r)
        }
    }

    /// P(Y ≥ y) = P(Y ≤ −y), by symmetry.
    pub fn upper(&self, y: i64) -> f64 {
        self.cdf(-y)
    }
}

/// The discrete Gaussian on ℤ with variance parameter σ² = num/den:
/// P(Y = y) ∝ exp(−y²/(2σ²)) (CKS20 Definition 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiscreteGaussian {
    sigma2: Ratio,
    /// t = ⌊σ⌋ + 1, the integer scale of the discrete Laplace proposal.
    t: u64,
}

impl DiscreteGaussian {
    /// σ² rounded up to the 2⁻²⁰ grid (so the noise is never smaller than asked).
    pub fn with_sigma(sigma: f64) -> Result<Self, super::PrivacyError> {
        super::check_positive("sigma", sigma)?;
        // σ² computed in floating point, nudged up by 4 ulps before the ceiling
        let s2 = (sigma * sigma) * (1.0 + 4.0 * f64::EPSILON);
        Ok(Self::with_variance(Ratio::at_least(
            "sigma^2",
            s2,
            GAUSSIAN_GRID_BITS,
            GAUSSIAN_MAX_BITS,
        )?))
    }

    pub fn with_variance(sigma2: Ratio) -> Self {
        // t = ⌊σ⌋ + 1 exactly: the largest r with r²·den ≤ num, plus one
        let (p, q) = (sigma2.num as u128, sigma2.den as u128);
        let mut r = (sigma2.to_f64().sqrt()) as u128;
        while r * r * q > p {
            r -= 1;
        }
        while (r + 1) * (r + 1) * q <= p {
            r += 1;
        }
        Self {
            sigma2,
            t: r as u64 + 1,
        }
    }

    pub fn variance(&self) -> Ratio {
        self.sigma2
    }

    /// One draw (CKS20 Algorithm 3): Y ~ discrete Laplace of scale t, accepted
    /// with probability exp(−(|Y| − σ²/t)²/(2σ²)).
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> i128 {
        let proposal = DiscreteLaplace::with_scale(Ratio::new(self.t, 1));
        let (p, q, t) = (
            self.sigma2.num as u128,
            self.sigma2.den as u128,
            self.t as u128,
        );
        // γ = (|Y|·q·t − p)² / (2·p·q·t²); the denominator fits by the grid bounds
        let den = 2 * p * q * t * t;
        loop {
            let y = proposal.sample(rng);
            let a = y.unsigned_abs();
            let accept = match a.checked_mul(q * t) {
                Some(aqt) => {
                    let w = aqt.abs_diff(p);
                    match w.checked_mul(w) {
                        Some(num) => bernoulli_exp(num, den, rng),
                        None => bernoulli_exp_big(&(BigUint::from(w) * w), den, rng),
                    }
                }
                None => {
                    let w = BigUint::from(a) * (q * t) - p;
                    bernoulli_exp_big(&(&w * &w), den, rng)
                }
            };
            if accept {
                return y;
            }
        }
    }

    fn sigma2_f64(&self) -> f64 {
        self.sigma2.to_f64()
    }

    /// ln Σ_{z ∈ ℤ} exp(−(z − c)²/(2σ²)), summed over |z − c| ≤ 40σ + 40
    /// (the rest is below e⁻⁸⁰⁰ of the sum).
    fn ln_theta(&self, c: f64) -> f64 {
        let s2 = self.sigma2_f64();
        let reach = 40.0 * s2.sqrt() + 40.0;
        let (lo, hi) = ((c - reach).floor() as i64, (c + reach).ceil() as i64);
        let terms: Vec<f64> = (lo..=hi)
            .map(|z| -((z as f64 - c).powi(2)) / (2.0 * s2))
            .collect();
        crate::numeric::log_sum_exp(&terms)
    }

    /// ln Θ(0), the log normaliser of the pmf (O(σ) terms: compute it once).
    pub fn ln_normaliser(&self) -> f64 {
        self.ln_theta(0.0)
    }

    /// ln P(Y = y), given `ln_norm` = [`Self::ln_normaliser`].
    pub fn ln_pmf(&self, y: i64, ln_norm: f64) -> f64 {
        -((y as f64).powi(2)) / (2.0 * self.sigma2_f64()) - ln_norm
    }

    /// Exact Rényi divergence of order α > 1 between N_ℤ(μ, σ²) and N_ℤ(0, σ²)
    /// for an integer shift μ (the release's neighbours differ by an integer):
    /// D_α = αμ²/(2σ²) + ln(Θ(αμ)/Θ(0))/(α − 1), Θ(c) = Σ_z exp(−(z − c)²/(2σ²)).
    /// Both normalisers equal Θ(0) (a shift by an integer), and completing the
    /// square in αx'² + (1−α)x² gives the formula. Θ(c) ≤ Θ(0) for every c (by
    /// Poisson summation Θ(c) = σ√(2π) Σ_k e^{−2π²σ²k²} cos 2πkc, largest at
    /// integer c), so D_α ≤ αμ²/(2σ²), the continuous Gaussian's value — the bound
    /// CKS20 prove for the discrete Gaussian; the tests check both numerically.
    pub fn rdp_epsilon(&self, alpha: f64, mu: u64) -> f64 {
        let s2 = self.sigma2_f64();
        let m = mu as f64;
        let continuous = alpha * m * m / (2.0 * s2);
        let correction = (self.ln_theta(alpha * m) - self.ln_theta(0.0)) / (alpha - 1.0);
        // the correction is ≤ 0 in exact arithmetic; never report above the bound
        (continuous + correction.min(0.0)).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;
    use rayon::prelude::*;
    use statrs::distribution::{ChiSquared, ContinuousCDF};

    /// Draws in parallel chunks, each from its own seeded stream; returns the
    /// histogram over [lo, hi] with everything outside pooled at the ends.
    fn histogram(
        draws: usize,
        seed: u64,
        lo: i64,
        hi: i64,
        sample: impl Fn(&mut ChaCha20Rng) -> i128 + Sync,
    ) -> Vec<u64> {
        let chunks = 64;
        (0..chunks)
            .into_par_iter()
            .map(|c| {
                let mut rng = ChaCha20Rng::seed_from_u64(seed * 1000 + c as u64);
                let mut h = vec![0u64; (hi - lo + 1) as usize];
                for _ in 0..draws / chunks {
                    let y = sample(&mut rng).clamp(lo as i128, hi as i128) as i64;
                    h[(y - lo) as usize] += 1;
                }
                h
            })
            .reduce(
                || vec![0u64; (hi - lo + 1) as usize],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    a
                },
            )
    }

    /// (χ² p-value, Kolmogorov distance) of a histogram over [lo, hi] (the ends
    /// pooling the tails) against `pmf`; cells with expected count < 5 are pooled
    /// into their neighbours towards the centre.
    fn fit(h: &[u64], lo: i64, pmf: impl Fn(i64) -> f64) -> (f64, f64) {
        let n: u64 = h.iter().sum();
        let n = n as f64;
        let hi = lo + h.len() as i64 - 1;
        // expected cell masses, tails pooled into the end cells
        let mut p: Vec<f64> = (lo..=hi).map(&pmf).collect();
        let inner: f64 = p.iter().sum();
        let below: f64 = ((lo - 2000)..lo).map(&pmf).sum::<f64>();
        let above = (1.0 - inner - below).max(0.0);
        p[0] += below;
        *p.last_mut().unwrap() += above;
        // pool small cells
        let (mut obs, mut exp) = (Vec::new(), Vec::new());
        let (mut o, mut e) = (0.0, 0.0);
        for (hc, pc) in h.iter().zip(&p) {
            o += *hc as f64;
            e += pc * n;
            if e >= 5.0 {
                obs.push(o);
                exp.push(e);
                (o, e) = (0.0, 0.0);
            }
        }
        if let (Some(lo_), Some(le)) = (obs.last_mut(), exp.last_mut()) {
            *lo_ += o;
            *le += e;
        }
        let chi2: f64 = obs.iter().zip(&exp).map(|(o, e)| (o - e).powi(2) / e).sum();
        let dof = (obs.len() - 1) as f64;
        let pvalue = 1.0 - ChiSquared::new(dof).unwrap().cdf(chi2);
        let (mut fo, mut fe, mut ks) = (0.0, below, 0.0f64);
        for (hc, pc) in h.iter().zip((lo..=hi).map(&pmf)) {
            fo += *hc as f64 / n;
            fe += pc;
            ks = ks.max((fo - fe).abs());
        }
        (pvalue, ks)
    }

    const DRAWS: usize = 10_000_000;
    /// The χ² test fails below this p-value: 10⁻⁶ at a fixed seed, so a correct
    /// sampler passes and a wrong one (the 1 % scale error below) does not.
    const P_MIN: f64 = 1e-6;
    /// 1.95/√n is the 0.1 % critical Kolmogorov distance (conservative for a
    /// discrete distribution).
    fn ks_max() -> f64 {
        1.95 / (DRAWS as f64).sqrt()
    }

    fn scales() -> Vec<Ratio> {
        vec![
            Ratio::new(1, 2),
            Ratio::new(1, 1),
            Ratio::new(10, 1),
            Ratio::new(1000, 1),
            Ratio::new(7, 3),
        ]
    }

    #[test]
    fn discrete_laplace_matches_its_pmf_at_ten_million_draws() {
        for (i, scale) in scales().into_iter().enumerate() {
            let lap = DiscreteLaplace::with_scale(scale);
            let b = scale.to_f64();
            let reach = (20.0 * b).ceil() as i64;
            let h = histogram(DRAWS, 11 + i as u64, -reach, reach, |r| lap.sample(r));
            let (p, ks) = fit(&h, -reach, |y| lap.pmf(y));
            assert!(p > P_MIN, "scale {scale}: χ² p = {p:e}");
            assert!(ks < ks_max(), "scale {scale}: Kolmogorov distance {ks:e}");
            // tail beyond 20 scales: expected 2r^{⌈20b⌉+1}/(1+r)·n draws, ≤ 0.1 here
            let tail = h[0] + h[h.len() - 1];
            let expected = 2.0 * lap.upper(reach) * DRAWS as f64;
            assert!(
                expected < 0.1 && tail <= 2,
                "scale {scale}: {tail} draws beyond 20 scales"
            );
            // the test has power: a 1 % larger scale is rejected at this sample size
            if scale.to_f64() >= 1.0 {
                let wrong =
                    DiscreteLaplace::with_scale(Ratio::new(scale.num * 101, scale.den * 100));
                let (p_wrong, ks_wrong) = fit(&h, -reach, |y| wrong.pmf(y));
                assert!(
                    p_wrong < P_MIN || ks_wrong > ks_max(),
                    "scale {scale}: 1 % error not detected (p = {p_wrong:e}, D = {ks_wrong:e})"
                );
            }
        }
    }

    #[test]
    fn discrete_gaussian_matches_its_pmf_at_ten_million_draws() {
        for (i, sigma) in scales().into_iter().enumerate() {
            let g = DiscreteGaussian::with_variance(Ratio::new(
                sigma.num * sigma.num,
                sigma.den * sigma.den,
            ));
            let s = sigma.to_f64();
            let reach = (20.0 * s).ceil() as i64;
            let h = histogram(DRAWS, 101 + i as u64, -reach, reach, |r| g.sample(r));
            let ln_norm = g.ln_normaliser();
            let (p, ks) = fit(&h, -reach, |y| g.ln_pmf(y, ln_norm).exp());
            assert!(p > P_MIN, "σ = {sigma}: χ² p = {p:e}");
            assert!(ks < ks_max(), "σ = {sigma}: Kolmogorov distance {ks:e}");
            // beyond 20σ the mass is below e⁻²⁰⁰: no draw may land there
            assert_eq!(h[0] + h[h.len() - 1], 0, "σ = {sigma}: draws beyond 20σ");
            if s >= 1.0 {
                let wrong = DiscreteGaussian::with_variance(Ratio::new(
                    sigma.num * sigma.num * 102,
                    sigma.den * sigma.den * 100,
                ));
                let ln_norm = wrong.ln_normaliser();
                let (p_wrong, ks_wrong) = fit(&h, -reach, |y| wrong.ln_pmf(y, ln_norm).exp());
                assert!(
                    p_wrong < P_MIN || ks_wrong > ks_max(),
                    "σ = {sigma}: 2 % variance error not detected (p = {p_wrong:e}, D = {ks_wrong:e})"
                );
            }
        }
    }

    #[test]
    fn bernoulli_exp_matches_exp_minus_gamma() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        for &(num, den) in &[(0u128, 1u128), (1, 3), (1, 1), (5, 2), (7, 1)] {
            let n = 400_000;
            let hits = (0..n).filter(|_| bernoulli_exp(num, den, &mut rng)).count() as f64;
            let p = (-(num as f64) / den as f64).exp();
            let se = (p * (1.0 - p) / n as f64).sqrt().max(1e-9);
            assert!(((hits / n as f64) - p).abs() < 5.0 * se, "γ = {num}/{den}");
        }
        // the big-integer path agrees with the u128 path on the same γ
        let big = BigUint::from(5u32);
        let (mut a, mut b) = (ChaCha20Rng::seed_from_u64(9), ChaCha20Rng::seed_from_u64(9));
        for _ in 0..1000 {
            assert_eq!(
                bernoulli_exp_big(&big, 2, &mut a),
                bernoulli_exp(5, 2, &mut b)
            );
        }
    }

    #[test]
    fn uniform_below_is_uniform_and_in_range() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let mut h = [0u32; 5];
        for _ in 0..100_000 {
            h[uniform_below(5, &mut rng) as usize] += 1;
        }
        assert!(h.iter().all(|&c| (19_000..21_000).contains(&c)), "{h:?}");
        assert_eq!(uniform_below(1, &mut rng), 0);
        let big = (1u128 << 100) + 3;
        assert!((0..1000).all(|_| uniform_below_u128(big, &mut rng) < big));
    }

    #[test]
    fn scales_round_up_onto_the_grid() {
        // Δ/ε = 2/0.1 = 20 exactly representable after rounding up
        let lap = DiscreteLaplace::for_privacy(2.0, 0.1).unwrap();
        assert!(lap.scale().to_f64() >= 20.0);
        assert!(lap.scale().to_f64() - 20.0 <= 2f64.powi(-31));
        // exact: Δ/ε that is a grid point stays one (ε = Δ/b exactly)
        assert_eq!(
            DiscreteLaplace::for_privacy(2.0, 0.5).unwrap().scale(),
            Ratio::new(4, 1)
        );
        // and a quotient that rounded down is stepped up: scale·ε ≥ Δ exactly
        for &(d, e) in &[
            (2.0, 0.3),
            (1.0, 3.0),
            (2.0, 1e-3),
            (3.0, 0.7),
            (2.0, 1.0 / 3.0),
        ] {
            let s = DiscreteLaplace::for_privacy(d, e).unwrap().scale();
            assert!(product_at_least(s, e, d), "{d}/{e}: {s}");
            let below = Ratio::new(s.num * ((1u64 << 32) / s.den) - 1, 1 << 32);
            assert!(
                !product_at_least(below, e, d),
                "{d}/{e}: {s} is not the smallest"
            );
        }
        let r = Ratio::at_least("x", 7.0 / 3.0, 32, 30).unwrap();
        assert!(r.num as f64 / r.den as f64 >= 7.0 / 3.0);
        assert_eq!(Ratio::at_least("x", 0.5, 32, 30).unwrap(), Ratio::new(1, 2));
        assert!(Ratio::at_least("x", 2f64.powi(31), 32, 30).is_err());
        assert!(Ratio::at_least("x", 1e-12, 32, 30).is_err());
        let g = DiscreteGaussian::with_sigma(3.0).unwrap();
        assert!(g.variance().to_f64() >= 9.0);
        assert_eq!(g.t, 4);
        let g = DiscreteGaussian::with_variance(Ratio::new(9, 1));
        assert_eq!(g.t, 4, "t = ⌊σ⌋ + 1 at an integer σ");
        let g = DiscreteGaussian::with_variance(Ratio::new(1, 4));
        assert_eq!(g.t, 1);
    }

    /// The exact RDP of the discrete Gaussian against a brute-force sum of
    /// p^α q^{1−α} over the support, and below the continuous Gaussian's.
    #[test]
    fn discrete_gaussian_rdp_is_exact_and_below_the_continuous_bound() {
        for &(s2num, s2den) in &[(1u64, 4u64), (1, 1), (9, 4), (25, 1), (400, 1)] {
            let g = DiscreteGaussian::with_variance(Ratio::new(s2num, s2den));
            let lt = g.ln_normaliser();
            let ln_pmf = |z: i64| g.ln_pmf(z, lt);
            for &alpha in &[1.5, 2.0, 5.0, 32.0] {
                for mu in [1u64, 2] {
                    let brute = {
                        let terms: Vec<f64> = (-5000i64..=5000)
                            .map(|z| alpha * ln_pmf(z - mu as i64) + (1.0 - alpha) * ln_pmf(z))
                            .collect();
                        crate::numeric::log_sum_exp(&terms) / (alpha - 1.0)
                    };
                    let exact = g.rdp_epsilon(alpha, mu);
                    let continuous = alpha * (mu * mu) as f64 / (2.0 * g.sigma2_f64());
                    assert!(
                        (exact - brute).abs() <= 1e-9 * brute.max(1e-300) + 1e-12,
                        "σ² = {s2num}/{s2den}, α = {alpha}, μ = {mu}: {exact} vs brute {brute}"
                    );
                    assert!(
                        exact <= continuous * (1.0 + 1e-12),
                        "{exact} > {continuous}"
                    );
                }
            }
        }
        // at small σ the discrete Gaussian is strictly better than its bound
        let g = DiscreteGaussian::with_variance(Ratio::new(1, 4));
        assert!(g.rdp_epsilon(1.5, 1) < 0.99 * 1.5 / (2.0 * 0.25));
    }

    #[test]
    fn seeded_draws_are_reproducible() {
        let lap = DiscreteLaplace::for_privacy(2.0, 0.5).unwrap();
        let draw = |seed| {
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            (0..20).map(|_| lap.sample(&mut rng)).collect::<Vec<_>>()
        };
        assert_eq!(draw(4), draw(4));
        assert_ne!(draw(4), draw(5));
    }
}
