//! Statistics used to summarise task rows: streaming moments, mean and
//! standard error, quantiles, and (in [`diagnostics`]) the MCMC diagnostics
//! (split-R̂, effective sample size, two-sample KS). Pure functions on `f64`.

pub mod calibration;
pub mod diagnostics;
pub mod mmd;

pub use diagnostics::mean_var;

/// Mean and M2 (sum of squared deviations) accumulated with Welford's method,
/// merged across chunks with Chan et al.'s formula.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Moments {
    pub count: u64,
    pub mean: f64,
    pub m2: f64,
}

impl Moments {
    pub fn push(&mut self, x: f64) {
        self.count += 1;
        let d = x - self.mean;
        self.mean += d / self.count as f64;
        self.m2 += d * (x - self.mean);
    }

    pub fn merge(&mut self, other: &Moments) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = *other;
            return;
        }
        let n = (self.count + other.count) as f64;
        let d = other.mean - self.mean;
        self.mean += d * other.count as f64 / n;
        self.m2 += other.m2 + d * d * self.count as f64 * other.count as f64 / n;
        self.count += other.count;
    }

    /// Sample standard deviation (n − 1); NaN for fewer than two values.
    pub fn sd(&self) -> f64 {
        if self.count < 2 {
            f64::NAN
        } else {
            (self.m2 / (self.count - 1) as f64).sqrt()
        }
    }

    pub fn se(&self) -> f64 {
        self.sd() / (self.count as f64).sqrt()
    }
}

/// Mean and standard error of a column of draws.
pub fn mean_se(xs: &[f64]) -> (f64, f64) {
    let (m, v) = mean_var(xs);
    (m, (v / xs.len() as f64).sqrt())
}

/// The sample standard deviation s (n − 1) of `xs` and the standard error of s
/// itself: the spread of a score over repeats, with its own uncertainty. The
/// variance of the unbiased sample variance is Var(s²) = (μ₄ − σ⁴(n − 3)/(n − 1))/n
/// (for normal data 2σ⁴/(n − 1)); with the sample's fourth central moment m₄ and
/// s² plugged in, the delta method gives se(s) = √Var(s²) / (2s). No distribution
/// is assumed; at small n it is a rough guide. NaN for fewer than four values or
/// s = 0.
pub fn sd_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.len() < 2 {
        return (f64::NAN, f64::NAN);
    }
    let (m, v) = mean_var(xs);
    let s = v.sqrt();
    if xs.len() < 4 || s == 0.0 {
        return (s, f64::NAN);
    }
    let m4 = xs.iter().map(|x| (x - m).powi(4)).sum::<f64>() / n;
    let var_s2 = ((m4 - v * v * (n - 3.0) / (n - 1.0)) / n).max(0.0);
    (s, var_s2.sqrt() / (2.0 * s))
}

/// Type-7 (linear interpolation) quantile of sorted values; NaN for none.
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * p;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_merge_equals_one_pass() {
        let xs: Vec<f64> = (0..1000).map(|i| ((i * 37) % 101) as f64 * 0.25).collect();
        let mut all = Moments::default();
        xs.iter().for_each(|&x| all.push(x));
        let mut merged = Moments::default();
        for chunk in xs.chunks(128) {
            let mut m = Moments::default();
            chunk.iter().for_each(|&x| m.push(x));
            merged.merge(&m);
        }
        assert_eq!(merged.count, all.count);
        assert!((merged.mean - all.mean).abs() < 1e-12);
        assert!((merged.sd() - all.sd()).abs() < 1e-12);
        let (m, se) = mean_se(&xs);
        assert!((m - all.mean).abs() < 1e-12 && (se - all.se()).abs() < 1e-12);
    }

    #[test]
    fn quantiles_interpolate_linearly() {
        let xs = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&xs, 0.0), 1.0);
        assert_eq!(quantile(&xs, 1.0), 4.0);
        assert_eq!(quantile(&xs, 0.5), 2.5);
        assert!(quantile(&[], 0.5).is_nan());
    }

    /// For normal data se(s) = σ/√(2(n − 1)) (m₄ = 3σ⁴), and for skewed data the
    /// formula tracks the spread of s over many samples (brute force).
    #[test]
    fn the_standard_error_of_a_standard_deviation() {
        use rand::SeedableRng;
        use rand_distr::{Distribution, Exp, Normal};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let normal = Normal::new(0.0, 2.0).unwrap();
        let big: Vec<f64> = (0..200_000).map(|_| normal.sample(&mut rng)).collect();
        let (s, se) = sd_se(&big);
        assert!((s - 2.0).abs() < 0.02, "{s}");
        let want = 2.0 / (2.0 * (big.len() as f64 - 1.0)).sqrt();
        assert!((se / want - 1.0).abs() < 0.03, "{se} vs {want}");
        // exponential (kurtosis 9), n = 50: the s.d. of s over 4000 samples
        // against the mean estimated s.e.
        let exp = Exp::new(1.0).unwrap();
        let (mut sds, mut ses) = (Vec::new(), Vec::new());
        for _ in 0..4000 {
            let xs: Vec<f64> = (0..50).map(|_| exp.sample(&mut rng)).collect();
            let (s, se) = sd_se(&xs);
            sds.push(s);
            ses.push(se);
        }
        let spread = mean_var(&sds).1.sqrt();
        let estimated = ses.iter().sum::<f64>() / ses.len() as f64;
        assert!(
            (estimated / spread - 1.0).abs() < 0.2,
            "{estimated} vs {spread}"
        );
        assert!(sd_se(&[1.0]).0.is_nan());
        assert!(sd_se(&[1.0, 2.0, 3.0]).1.is_nan());
        assert!(sd_se(&[1.0; 5]).1.is_nan());
    }
}
