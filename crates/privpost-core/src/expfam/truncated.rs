//! Exact sampling from a Beta truncated to [lo, hi] by inversion of its CDF —
//! the OPS release of foulds2016 §3.1 (a tempered Beta on [a₀, 1 − a₀]).
//!
//! Inversion never stalls, unlike rejection from the untruncated Beta, which
//! needs ~1/mass tries when little of the mass lies inside [lo, hi].
//! The CDF is evaluated on whichever tail is small at the interval (lower
//! I_x(a, b) or upper I_{1−x}(b, a)) so that the mass F(hi) − F(lo) keeps its
//! relative precision. If that mass underflows (the interval sits hundreds of
//! standard deviations from the mode), the CDF is integrated numerically in log
//! space on the interval instead.

use rand::{Rng, RngExt};
use statrs::function::beta::{beta_reg, inv_beta_reg, ln_beta};

use super::FamilyError;
use crate::numeric::quadrature::GaussLegendre;

#[derive(Debug, Clone, PartialEq)]
pub struct TruncatedBeta {
    a: f64,
    b: f64,
    lo: f64,
    hi: f64,
    method: Method,
}

#[derive(Debug, Clone, PartialEq)]
enum Method {
    /// u ~ U(F(lo), F(hi)), θ = F⁻¹(u)
    Lower { f_lo: f64, f_hi: f64 },
    /// u ~ U(S(hi), S(lo)) with S(x) = I_{1−x}(b, a), θ = 1 − G⁻¹(u)
    Upper { s_hi: f64, s_lo: f64 },
    /// Cumulative masses of the density on a fine partition of [lo, hi].
    Numeric {
        edges: Vec<f64>,
        cumulative: Vec<f64>,
    },
}

const NUMERIC_PANELS: usize = 4096;

/// The tail beyond which statrs' `inv_beta_reg` is not used. Its Halley iterations
/// loop forever or panic far in a tail: probed over a 30 × 30 grid of a, b in
/// [10⁻⁶, 1.1·10⁶], it hung at p = 10⁻³¹ (a ≥ 1385, b = 1.71) and 10⁻³⁹ (a = 204,
/// b = 0.014), and panicked (`XOutOfRange`) below about 10⁻¹⁶⁰ — a Beta-Bernoulli
/// calibration at prior [10000, 10] stopped there. 10⁻¹² keeps a margin of 19 orders;
/// `statrs_inverse_terminates_above_the_safe_tail` probes it.
const STATRS_SAFE_TAIL: f64 = 1e-12;

/// G⁻¹(p) for G(x) = I_x(a, b): statrs' `inv_beta_reg` inside [10⁻¹², 1 − 10⁻¹²],
/// else the smallest float x in [0, 1] with I_x(a, b) ≥ p, by bisection over the
/// bit patterns of [0, 1] (positive floats order as their bits): 63 evaluations of
/// the regularised incomplete beta, exact to one ulp, never out of range.
fn inverse(a: f64, b: f64, p: f64) -> f64 {
    if (STATRS_SAFE_TAIL..=1.0 - STATRS_SAFE_TAIL).contains(&p) {
        return inv_beta_reg(a, b, p);
    }
    bisect_inverse(a, b, p)
}

/// The smallest float x in [0, 1] with I_x(a, b) ≥ p (see [`inverse`]).
fn bisect_inverse(a: f64, b: f64, p: f64) -> f64 {
    let (mut lo, mut hi) = (0u64, 1.0f64.to_bits());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if beta_reg(a, b, f64::from_bits(mid)) >= p {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    if beta_reg(a, b, f64::from_bits(lo)) >= p {
        f64::from_bits(lo)
    } else {
        f64::from_bits(hi)
    }
}

impl TruncatedBeta {
    pub fn new(a: f64, b: f64, lo: f64, hi: f64) -> Result<Self, FamilyError> {
        let ok = |x: f64| x > 0.0 && x.is_finite();
        super::check("a", a, ok(a), "a finite value > 0")?;
        super::check("b", b, ok(b), "a finite value > 0")?;
        super::check("lo", lo, (0.0..1.0).contains(&lo), "0 ≤ lo < 1")?;
        super::check("hi", hi, hi > lo && hi <= 1.0, "lo < hi ≤ 1")?;
        let f_lo = beta_reg(a, b, lo);
        let f_hi = beta_reg(a, b, hi);
        let method = if f_hi <= 0.5 && f_hi - f_lo > 1e-280 {
            Method::Lower { f_lo, f_hi }
        } else if f_lo >= 0.5 {
            let s_lo = beta_reg(b, a, 1.0 - lo);
            let s_hi = beta_reg(b, a, 1.0 - hi);
            if s_lo - s_hi > 1e-280 {
                Method::Upper { s_hi, s_lo }
            } else {
                Self::numeric(a, b, lo, hi)
            }
        } else if f_hi - f_lo > 1e-280 {
            Method::Lower { f_lo, f_hi }
        } else {
            Self::numeric(a, b, lo, hi)
        };
        Ok(Self {
            a,
            b,
            lo,
            hi,
            method,
        })
    }

    fn numeric(a: f64, b: f64, lo: f64, hi: f64) -> Method {
        let ln_k = Self::ln_kernel_max(a, b, lo, hi);
        let rule = GaussLegendre::new(8);
        let h = (hi - lo) / NUMERIC_PANELS as f64;
        let mut edges = Vec::with_capacity(NUMERIC_PANELS + 1);
        let mut cumulative = Vec::with_capacity(NUMERIC_PANELS + 1);
        let mut total = 0.0;
        edges.push(lo);
        cumulative.push(0.0);
        for k in 0..NUMERIC_PANELS {
            let x0 = lo + h * k as f64;
            total += rule.integrate(x0, x0 + h, |x| (Self::ln_kernel(a, b, x) - ln_k).exp());
            edges.push(if k + 1 == NUMERIC_PANELS { hi } else { x0 + h });
            cumulative.push(total);
        }
        Method::Numeric { edges, cumulative }
    }

    /// (a−1) ln θ + (b−1) ln(1−θ)
    fn ln_kernel(a: f64, b: f64, x: f64) -> f64 {
        (a - 1.0) * x.ln() + (b - 1.0) * (-x).ln_1p()
    }

    /// Maximum of the log kernel on [lo, hi] (at the mode, clamped).
    fn ln_kernel_max(a: f64, b: f64, lo: f64, hi: f64) -> f64 {
        let mut best = Self::ln_kernel(a, b, lo).max(Self::ln_kernel(a, b, hi));
        if a > 1.0 && b > 1.0 {
            let mode = ((a - 1.0) / (a + b - 2.0)).clamp(lo, hi);
            best = best.max(Self::ln_kernel(a, b, mode));
        }
        if best.is_finite() {
            best
        } else {
            0.0
        }
    }

    pub fn bounds(&self) -> (f64, f64) {
        (self.lo, self.hi)
    }

    /// Shape parameters (a, b) of the underlying Beta.
    pub fn shape(&self) -> (f64, f64) {
        (self.a, self.b)
    }

    /// Whether the log-space numerical CDF is in use.
    #[cfg(test)]
    pub fn is_numeric(&self) -> bool {
        matches!(self.method, Method::Numeric { .. })
    }

    /// ln density of the truncated distribution (normalised); −∞ outside [lo, hi].
    pub fn ln_pdf(&self, x: f64) -> f64 {
        if x < self.lo || x > self.hi {
            return f64::NEG_INFINITY;
        }
        let ln_mass = match &self.method {
            Method::Lower { f_lo, f_hi } => (f_hi - f_lo).ln(),
            Method::Upper { s_hi, s_lo } => (s_lo - s_hi).ln(),
            Method::Numeric { cumulative, .. } => {
                let ln_k = Self::ln_kernel_max(self.a, self.b, self.lo, self.hi);
                return Self::ln_kernel(self.a, self.b, x)
                    - ln_k
                    - cumulative[cumulative.len() - 1].ln();
            }
        };
        Self::ln_kernel(self.a, self.b, x) - ln_beta(self.a, self.b) - ln_mass
    }

    /// CDF of the truncated distribution.
    pub fn cdf(&self, x: f64) -> f64 {
        if x <= self.lo {
            return 0.0;
        }
        if x >= self.hi {
            return 1.0;
        }
        match &self.method {
            Method::Lower { f_lo, f_hi } => {
                ((beta_reg(self.a, self.b, x) - f_lo) / (f_hi - f_lo)).clamp(0.0, 1.0)
            }
            Method::Upper { s_hi, s_lo } => {
                ((s_lo - beta_reg(self.b, self.a, 1.0 - x)) / (s_lo - s_hi)).clamp(0.0, 1.0)
            }
            Method::Numeric { edges, cumulative } => {
                let k = Self::panel_of(edges, x);
                (cumulative[k] + self.panel_mass(edges[k], x)) / cumulative[cumulative.len() - 1]
            }
        }
    }

    fn panel_of(edges: &[f64], x: f64) -> usize {
        edges
            .partition_point(|&e| e <= x)
            .saturating_sub(1)
            .min(edges.len() - 2)
    }

    fn panel_mass(&self, from: f64, to: f64) -> f64 {
        let ln_k = Self::ln_kernel_max(self.a, self.b, self.lo, self.hi);
        GaussLegendre::new(8).integrate(from, to, |x| {
            (Self::ln_kernel(self.a, self.b, x) - ln_k).exp()
        })
    }

    /// One exact draw by inversion.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let u: f64 = rng.random();
        let x = match &self.method {
            Method::Lower { f_lo, f_hi } => inverse(self.a, self.b, f_lo + u * (f_hi - f_lo)),
            Method::Upper { s_hi, s_lo } => 1.0 - inverse(self.b, self.a, s_hi + u * (s_lo - s_hi)),
            Method::Numeric { edges, cumulative } => {
                let target = u * cumulative[cumulative.len() - 1];
                let k = cumulative
                    .partition_point(|&c| c <= target)
                    .saturating_sub(1)
                    .min(edges.len() - 2);
                let need = target - cumulative[k];
                // bisection inside the panel on the panel's own quadrature
                let (mut a, mut b) = (edges[k], edges[k + 1]);
                for _ in 0..60 {
                    let mid = 0.5 * (a + b);
                    if self.panel_mass(edges[k], mid) < need {
                        a = mid;
                    } else {
                        b = mid;
                    }
                }
                0.5 * (a + b)
            }
        };
        x.clamp(self.lo, self.hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::ks_statistic;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// CDF of the truncated Beta computed independently of the sampler, by
    /// quadrature of the density on [lo, x].
    fn reference_cdf(a: f64, b: f64, lo: f64, hi: f64) -> impl Fn(f64) -> f64 {
        let rule = GaussLegendre::new(20);
        let kern =
            move |x: f64| ((a - 1.0) * x.ln() + (b - 1.0) * (-x).ln_1p() - ln_beta(a, b)).exp();
        let total = rule.integrate_composite(lo, hi, 400, kern);
        move |x: f64| {
            if x <= lo {
                0.0
            } else if x >= hi {
                1.0
            } else {
                GaussLegendre::new(20).integrate_composite(lo, x, 400, kern) / total
            }
        }
    }

    fn ks_check(a: f64, b: f64, lo: f64, hi: f64, seed: u64) {
        let dist = TruncatedBeta::new(a, b, lo, hi).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = 5000;
        let draws: Vec<f64> = (0..n).map(|_| dist.sample(&mut rng)).collect();
        assert!(draws.iter().all(|&x| x >= lo && x <= hi));
        let cdf = reference_cdf(a, b, lo, hi);
        let d = ks_statistic(&draws, cdf);
        assert!(d < 1.63 / (n as f64).sqrt(), "a={a} b={b}: KS D = {d}");
    }

    #[test]
    fn samples_match_the_target_density() {
        // Foulds Fig 1-like: tempered posterior inside the interval.
        ks_check(1.0 + 6.0 / 2.77, 1.0 + 14.0 / 2.77, 0.2, 0.8, 1);
        // Most mass outside, on the left (the lower tail is the small one).
        ks_check(2.0, 60.0, 0.05, 0.95, 2);
        // Most mass outside, on the right (upper tail form).
        ks_check(60.0, 2.0, 0.05, 0.95, 3);
        // Heavy boundary mass (a < 1).
        ks_check(0.6, 1.4, 0.05, 0.95, 4);
    }

    #[test]
    fn far_tails_use_the_numeric_cdf_and_stay_exact() {
        // Mode at 1e-4 with a sharp peak: the interval holds < 1e-300 of the mass.
        let (a, b, lo, hi) = (1.0 + 2.0, 1.0 + 30000.0, 0.05, 0.95);
        let dist = TruncatedBeta::new(a, b, lo, hi).unwrap();
        assert!(dist.is_numeric());
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let draws: Vec<f64> = (0..4000).map(|_| dist.sample(&mut rng)).collect();
        // Density ∝ exp(−30000·x) near lo: truncated exponential with rate ≈ 30000/(1−x).
        let rate = 30000.0 / (1.0 - lo) - 2.0 / lo;
        let d = ks_statistic(&draws, |x| 1.0 - (-(x - lo) * rate).exp());
        assert!(d < 1.63 / 4000f64.sqrt() + 0.01, "KS D = {d}");
        // The numeric CDF agrees with its own sampler's quantiles.
        assert!((dist.cdf(lo + 1.0 / rate) - (1.0 - (-1.0f64).exp())).abs() < 2e-3);
    }

    #[test]
    fn ln_pdf_integrates_to_one() {
        for (a, b) in [(3.0, 5.0), (60.0, 2.0), (2.0, 60.0)] {
            let d = TruncatedBeta::new(a, b, 0.1, 0.9).unwrap();
            let total =
                GaussLegendre::new(20).integrate_composite(0.1, 0.9, 200, |x| d.ln_pdf(x).exp());
            assert!((total - 1.0).abs() < 1e-9, "{a} {b}: {total}");
        }
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(TruncatedBeta::new(1.0, 1.0, 0.6, 0.4).is_err());
        assert!(TruncatedBeta::new(0.0, 1.0, 0.1, 0.4).is_err());
    }

    /// The inverse below the safe tail: the bisection agrees with statrs where both
    /// apply, and a truncated Beta holding only 10⁻¹⁸⁹ of its mass (prior [10000, 10]
    /// after 10 failures: statrs panicked with `XOutOfRange`) draws by it.
    #[test]
    fn far_tail_draws_invert_by_bisection() {
        for (a, b, p) in [(3.0, 5.0, 0.3), (2.0e4, 15.0, 0.01), (0.5, 0.5, 0.9)] {
            let (x, y) = (inv_beta_reg(a, b, p), super::bisect_inverse(a, b, p));
            assert!(
                (x - y).abs() <= 1e-12 * x.max(1e-300),
                "{a} {b} {p}: {x} vs {y}"
            );
        }
        let d = TruncatedBeta::new(10000.0, 20.0, 0.05, 0.95).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let draws: Vec<f64> = (0..2000).map(|_| d.sample(&mut rng)).collect();
        assert!(draws.iter().all(|&x| (0.05..=0.95).contains(&x)));
        let ks = ks_statistic(&draws, |x| d.cdf(x));
        assert!(ks < 1.63 / 2000f64.sqrt(), "KS D = {ks}");
    }

    /// statrs' inverse ends, in range, on targets inside the safe tail, for parameters
    /// over the documented prior range plus counts (a, b in [10⁻⁶, 1.1·10⁶]): 2,000
    /// seeded (a, b, p), p log-uniform in [10⁻¹², ½] and mirrored, in a thread that
    /// must finish within 60 s (a hang fails the test instead of stalling it).
    #[test]
    fn statrs_inverse_terminates_above_the_safe_tail() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut rng = ChaCha8Rng::seed_from_u64(47);
            let log_uniform = |rng: &mut ChaCha8Rng, lo: f64, hi: f64| {
                let u: f64 = rng.random();
                (lo.ln() + u * (hi.ln() - lo.ln())).exp()
            };
            for _ in 0..1000 {
                let a = log_uniform(&mut rng, 1e-6, 1.1e6);
                let b = log_uniform(&mut rng, 1e-6, 1.1e6);
                let p = log_uniform(&mut rng, super::STATRS_SAFE_TAIL, 0.5);
                for q in [p, 1.0 - p] {
                    let x = super::inverse(a, b, q);
                    assert!((0.0..=1.0).contains(&x), "{a} {b} {q}: {x}");
                }
            }
            tx.send(()).unwrap();
        });
        rx.recv_timeout(std::time::Duration::from_secs(60))
            .expect("statrs' inv_beta_reg did not finish inside the safe tail");
    }
}
