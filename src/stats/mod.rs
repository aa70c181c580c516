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
}
