//! Laplace baselines of bun2018: Laplace(s/ε) noise on the first k − 1 counts,
//! rounded to integers and clamped so that counts are non-negative and sum to
//! n (the last count takes the remainder). Clamping is sequential: count i is
//! clamped to [0, n − Σ_{j<i} c̃_j]. Both the sampler and the exact output
//! distribution (from the Laplace CDF over each integer cell) are provided.

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::expfam::FamilyError;
use crate::privacy::event::NoiseMode;
use crate::privacy::noise::CountNoise;

/// How a noisy count becomes an integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rounding {
    /// The closest integer (as the poster says).
    Nearest,
    /// ⌊x⌋ (as the authors' code did).
    Floor,
}

crate::names::name_table!(Rounding {
    Nearest => "nearest",
    Floor => "floor",
});

impl Rounding {
    fn apply(self, x: f64) -> f64 {
        match self {
            Self::Nearest => x.round(),
            Self::Floor => x.floor(),
        }
    }

    /// The interval of x that maps to integer v: [v + lo, v + hi).
    fn cell(self) -> (f64, f64) {
        match self {
            Self::Nearest => (-0.5, 0.5),
            Self::Floor => (0.0, 1.0),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaplaceCounts {
    noise: CountNoise,
    rounding: Rounding,
    sensitivity: f64,
}

impl LaplaceCounts {
    /// Laplace(s/ε) noise in `mode`. In the exact modes the noise is the discrete
    /// Laplace on ℤ, so a noisy count is already an integer and `rounding` does
    /// nothing (callers refuse `floor` there, see [`Rounding`]).
    pub fn new(
        sensitivity: f64,
        epsilon: f64,
        rounding: Rounding,
        mode: NoiseMode,
    ) -> Result<Self, FamilyError> {
        let noise = CountNoise::for_privacy(mode, sensitivity, epsilon)?;
        Ok(Self {
            noise,
            rounding,
            sensitivity,
        })
    }

    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// The privacy event: Laplace(s/ε) on the first k − 1 counts, L1 sensitivity s
    /// (clamping and the last count are post-processing).
    pub fn event(&self) -> crate::privacy::event::Event {
        self.noise.event()
    }

    pub fn sample<R: Rng + ?Sized>(&self, c: &[u32], rng: &mut R) -> anyhow::Result<Vec<u32>> {
        let n: u32 = c.iter().sum();
        let mut out = Vec::with_capacity(c.len());
        let mut left = n;
        let mut r = self.noise.rng(rng)?;
        for &ci in &c[..c.len() - 1] {
            let v = self
                .rounding
                .apply(self.noise.add(ci as f64, &mut r))
                .clamp(0.0, left as f64) as u32;
            out.push(v);
            left -= v;
        }
        out.push(left);
        Ok(out)
    }

    /// P(clamp(round(c + Y), 0, budget) = v).
    fn cell_probability(&self, c: u32, budget: u32, v: u32) -> f64 {
        if budget == 0 {
            return if v == 0 { 1.0 } else { 0.0 };
        }
        if v > budget {
            return 0.0;
        }
        let (c, v, budget) = (c as i64, v as i64, budget as i64);
        match &self.noise {
            CountNoise::Float(lap) => {
                let (lo, hi) = self.rounding.cell();
                let f = |x: f64| lap.cdf(x - c as f64);
                let upper = |x: f64| lap.cdf(c as f64 - x); // P(c + Y ≥ x)
                if v == 0 {
                    f(hi)
                } else if v == budget {
                    upper(budget as f64 + lo)
                } else {
                    let (a, b) = (v as f64 + lo, v as f64 + hi);
                    // difference taken on the side where both terms are small
                    if b <= c as f64 {
                        f(b) - f(a)
                    } else {
                        upper(a) - upper(b)
                    }
                }
            }
            // c + Y is an integer: its pmf, with the clamped tails at the ends
            CountNoise::Discrete { noise, .. } => {
                if v == 0 {
                    noise.cdf(-c)
                } else if v == budget {
                    noise.upper(budget - c)
                } else {
                    noise.pmf(v - c)
                }
            }
        }
    }

    /// Exact probability of releasing counts r for data c.
    pub fn probability(&self, c: &[u32], r: &[u32]) -> f64 {
        let mut left: u32 = c.iter().sum();
        let mut p = 1.0;
        for (&ci, &ri) in c[..c.len() - 1].iter().zip(r) {
            if ri > left {
                return 0.0;
            }
            p *= self.cell_probability(ci, left, ri);
            left -= ri;
        }
        if r[r.len() - 1] == left {
            p
        } else {
            0.0
        }
    }
}

/// Sensitivities of the poster's Laplace series: `laplace_hist` (red) s = 1 (k = 2)
/// or 2 (k ≥ 3), the histogram sensitivity; `laplace_dim` (green) s = 2 (k = 2) or
/// k (k ≥ 3), growing with the dimension.
pub fn poster_sensitivity(series: &str, k: usize) -> f64 {
    match (series, k) {
        ("laplace_hist", 2) => 1.0,
        ("laplace_hist", _) => 2.0,
        (_, 2) => 2.0,
        (_, k) => k as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hellinger::for_each_count;
    use crate::testutil::assert_rel;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn exact_distribution_sums_to_one_and_matches_sampling() {
        let cases = [
            (Rounding::Nearest, NoiseMode::Float),
            (Rounding::Floor, NoiseMode::Float),
            (Rounding::Nearest, NoiseMode::Exact),
        ];
        for (rounding, mode) in cases {
            for (c, s) in [
                (vec![5u32, 5], 1.0),
                (vec![3, 3, 4], 2.0),
                (vec![0, 9, 1], 3.0),
            ] {
                let m = LaplaceCounts::new(s, 1.0, rounding, mode).unwrap();
                let n: u32 = c.iter().sum();
                let mut total = 0.0;
                let mut table = Vec::new();
                for_each_count(n, c.len(), |r| {
                    let p = m.probability(&c, r);
                    total += p;
                    table.push((r.to_vec(), p));
                });
                assert_rel(total, 1.0, 1e-12);
                let mut rng = ChaCha8Rng::seed_from_u64(5);
                let draws = 40_000;
                let mut hits = vec![0usize; table.len()];
                for _ in 0..draws {
                    let r = m.sample(&c, &mut rng).unwrap();
                    hits[table.iter().position(|t| t.0 == r).unwrap()] += 1;
                }
                for ((r, p), h) in table.iter().zip(hits) {
                    let sd = (p * (1.0 - p) / draws as f64).sqrt();
                    assert!(
                        (h as f64 / draws as f64 - p).abs() < 5.0 * sd + 1e-4,
                        "{rounding:?} {mode:?} {c:?} {r:?}: {h} vs {p}"
                    );
                }
            }
        }
    }
}
