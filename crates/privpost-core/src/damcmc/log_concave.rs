//! Exact draws from an unnormalised log-concave law on {0, …, s}: the step of
//! the count-level data-augmentation kernel ([`crate::damcmc::models::PerCellHmm`]
//! with [`crate::damcmc::models::CellKernel::Counts`]).
//!
//! Why: given everything else, the split (h_a, h_b) of the s = h_a + h_b records
//! of one cell that hold value a or b of a feature has the law
//! p(j) ∝ C(s, j) φ_a^j φ_b^{s−j} η_a(j) η_b(s − j) (h_a = j): binomial
//! coefficients times the release densities of the two counts. Each factor is
//! log-concave in j — the binomial coefficients, and the density and the CDF
//! (a clamped coordinate) of every noise law the release may use: Laplace,
//! Gaussian and their discrete versions — so p is. One exact draw of the split
//! then costs O(log s) evaluations of ln p, where the record-wise kernel spends
//! one proposal per record and still moves each count by ±1 at a time.
//!
//! How: rejection from a hat built from the law's own slopes. With
//! d(j) = ln p(j + 1) − ln p(j), non-increasing by log-concavity, the mode m is
//! the first j with d(j) ≤ 0 (found by galloping from the chain's current value,
//! then bisection). The hat is ln p(m) on the 2k − 1 values around m (k ≈ the
//! law's width from the curvature at m), and beyond them the geometric tails
//! ln p(m + k) + i·d(m + k) and ln p(m − k) − i·d(m − k − 1), which lie above
//! ln p because no slope further out is steeper in the other direction. Draws
//! from the hat are accepted with probability p/hat, so the draw is exact for
//! any k (k only sets the cost: about 1.3 attempts for a Gaussian-shaped law).
//! A law that is not finite at a value it evaluates falls back to enumerating
//! all s + 1 values.

use rand::{Rng, RngExt};

/// One draw of j ∈ {0, …, s} with probability ∝ e^{`ln_p`(j)}, for `ln_p`
/// log-concave on {0, …, s}. `start` (clamped to s) is where the mode search
/// begins: the chain's current value, near the mode in equilibrium.
pub fn draw(s: usize, start: usize, ln_p: impl Fn(usize) -> f64, rng: &mut impl Rng) -> usize {
    if s == 0 {
        return 0;
    }
    if s < SMALL {
        return enumerate(s, ln_p, rng);
    }
    let memo = Memo::new(&ln_p);
    let ln_p = |j| memo.get(j);
    match Hat::new(s, start.min(s), &ln_p) {
        Some(hat) => hat.draw(&ln_p, rng),
        None => enumerate(s, ln_p, rng),
    }
}

/// Below this many values a draw enumerates them: cheaper than building a hat.
const SMALL: usize = 12;

/// The last few values of ln p, so that the mode search and the hat, which
/// read neighbouring values, evaluate each once.
struct Memo<'f, F> {
    ln_p: &'f F,
    slots: [std::cell::Cell<(usize, f64)>; 8],
}

impl<'f, F: Fn(usize) -> f64> Memo<'f, F> {
    fn new(ln_p: &'f F) -> Self {
        Self {
            ln_p,
            slots: std::array::from_fn(|_| std::cell::Cell::new((usize::MAX, 0.0))),
        }
    }

    fn get(&self, j: usize) -> f64 {
        let slot = &self.slots[j % 8];
        let (at, v) = slot.get();
        if at == j {
            return v;
        }
        let v = (self.ln_p)(j);
        slot.set((j, v));
        v
    }
}

/// One draw by evaluating all s + 1 values (the fallback; exact for any law
/// whose values are finite or −∞ and not all −∞).
pub fn enumerate(s: usize, ln_p: impl Fn(usize) -> f64, rng: &mut impl Rng) -> usize {
    let lw: Vec<f64> = (0..=s).map(ln_p).collect();
    let top = lw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let w: Vec<f64> = lw.iter().map(|&l| (l - top).exp()).collect();
    let total: f64 = w.iter().sum();
    let mut u = rng.random::<f64>() * total;
    for (j, &x) in w.iter().enumerate() {
        if u < x {
            return j;
        }
        u -= x;
    }
    // rounding left u at the total: the last value of positive weight
    w.iter().rposition(|&x| x > 0.0).unwrap_or(0)
}

/// The rejection hat of one law: flat at ln p(m) on [lo, hi], geometric tails
/// beyond (each `None` when the flat part reaches that end).
#[derive(Debug, Clone, Copy)]
struct Hat {
    top: f64,
    lo: usize,
    hi: usize,
    /// the right tail: values hi + 1 + i, i < len, hat ln p(hi + 1) + i·slope
    right: Option<Tail>,
    /// the left tail: values lo − 1 − i, i < len, hat ln p(lo − 1) + i·slope
    left: Option<Tail>,
}

/// One geometric tail of the hat, its mass relative to e^{top}.
#[derive(Debug, Clone, Copy)]
struct Tail {
    anchor: f64,
    /// ≤ 0 (−∞ when only the anchor has mass)
    slope: f64,
    len: usize,
    /// e^{len·slope} − 1
    all: f64,
    mass: f64,
}

impl Tail {
    fn new(anchor: f64, slope: f64, len: usize, top: f64) -> Option<Self> {
        if !(anchor.is_finite() && slope <= 0.0) || slope.is_nan() {
            return None;
        }
        // Σ_{i < len} e^{i·slope} = expm1(len·slope) / expm1(slope)
        let all = (len as f64 * slope).exp_m1();
        let sum = if slope == f64::NEG_INFINITY || len == 1 {
            1.0
        } else if slope > -1e-12 {
            len as f64
        } else {
            all / slope.exp_m1()
        };
        Some(Self {
            anchor,
            slope,
            len,
            all,
            mass: (anchor - top).exp() * sum,
        })
    }

    /// An offset i < len with probability ∝ e^{i·slope} (inversion).
    fn offset(&self, rng: &mut impl Rng) -> usize {
        if self.len == 1 || self.slope == f64::NEG_INFINITY {
            return 0;
        }
        let u: f64 = rng.random();
        if self.slope > -1e-12 {
            return ((u * self.len as f64) as usize).min(self.len - 1);
        }
        // P(i ≥ t) = (e^{t·slope} − e^{len·slope}) / (1 − e^{len·slope})
        let v = -u * self.all;
        let i = ((-v).ln_1p() / self.slope).floor();
        if i.is_finite() && i >= 0.0 {
            (i as usize).min(self.len - 1)
        } else {
            0
        }
    }
}

impl Hat {
    /// `None` when a value it needs is not finite (the caller enumerates).
    fn new(s: usize, start: usize, ln_p: &impl Fn(usize) -> f64) -> Option<Self> {
        let m = mode(s, start, ln_p)?;
        let top = ln_p(m);
        if !top.is_finite() {
            return None;
        }
        // the width from the curvature at the mode: k ≈ one standard deviation
        let k = if m > 0 && m < s {
            let c = (top - ln_p(m - 1)) - (ln_p(m + 1) - top);
            if c.is_finite() && c > 0.0 {
                (1.0 / c.sqrt()).round().clamp(1.0, s as f64) as usize
            } else {
                1
            }
        } else {
            1
        };
        let lo = m.saturating_sub(k - 1);
        let hi = (m + k - 1).min(s);
        let right = if hi < s {
            let a = hi + 1;
            let la = ln_p(a);
            let slope = if a < s {
                ln_p(a + 1) - la
            } else {
                f64::NEG_INFINITY
            };
            Some(Tail::new(la, slope, s - a + 1, top)?)
        } else {
            None
        };
        let left = if lo > 0 {
            let b = lo - 1;
            let lb = ln_p(b);
            let slope = if b > 0 {
                ln_p(b - 1) - lb
            } else {
                f64::NEG_INFINITY
            };
            Some(Tail::new(lb, slope, b + 1, top)?)
        } else {
            None
        };
        Some(Self {
            top,
            lo,
            hi,
            right,
            left,
        })
    }

    fn draw(&self, ln_p: &impl Fn(usize) -> f64, rng: &mut impl Rng) -> usize {
        let flat = (self.hi - self.lo + 1) as f64;
        let rm = self.right.map_or(0.0, |t| t.mass);
        let lm = self.left.map_or(0.0, |t| t.mass);
        let total = flat + rm + lm;
        loop {
            let u = rng.random::<f64>() * total;
            let (j, ln_hat) = if u < flat {
                let j = self.lo + ((u as usize).min(self.hi - self.lo));
                (j, self.top)
            } else if u < flat + rm {
                let t = self.right.expect("a right tail has mass");
                let i = t.offset(rng);
                (self.hi + 1 + i, t.anchor + i as f64 * tail_step(t.slope, i))
            } else {
                let t = self.left.expect("a left tail has mass");
                let i = t.offset(rng);
                (self.lo - 1 - i, t.anchor + i as f64 * tail_step(t.slope, i))
            };
            let lp = ln_p(j);
            if lp >= ln_hat || rng.random::<f64>().ln() < lp - ln_hat {
                return j;
            }
        }
    }
}

/// The slope times i without 0·(−∞): a tail of slope −∞ has only i = 0.
fn tail_step(slope: f64, i: usize) -> f64 {
    if i == 0 {
        0.0
    } else {
        slope
    }
}

/// The mode of a log-concave `ln_p` on {0, …, s}: the first j with
/// ln p(j + 1) ≤ ln p(j) (s if none), by galloping from `start` and bisection.
/// `None` when a slope it reads is NaN.
fn mode(s: usize, start: usize, ln_p: &impl Fn(usize) -> f64) -> Option<usize> {
    // descending(j): the law does not rise from j to j + 1 (true at s)
    let descending = |j: usize| -> Option<bool> {
        if j >= s {
            return Some(true);
        }
        let d = ln_p(j + 1) - ln_p(j);
        (!d.is_nan()).then_some(d <= 0.0)
    };
    let (mut lo, mut hi);
    if descending(start)? {
        // the mode is in [0, start]
        hi = start;
        lo = 0;
        let mut step = 1;
        while step <= start {
            let c = start - step;
            if descending(c)? {
                hi = c;
            } else {
                lo = c + 1;
                break;
            }
            step *= 2;
        }
    } else {
        // the mode is in [start + 1, s]
        lo = start + 1;
        let mut step = 1;
        loop {
            let c = (start + step).min(s);
            if descending(c)? {
                hi = c;
                break;
            }
            lo = c + 1;
            step *= 2;
        }
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if descending(mid)? {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use statrs::function::gamma::ln_gamma;

    /// ln C(s, j) + j ln ρ + (s − j) ln(1 − ρ) plus two Laplace terms with kinks
    /// at `ya` and `yb` (scale b): the count kernel's law with Laplace releases.
    fn pair_law(s: usize, rho: f64, (ya, yb, b): (f64, f64, f64)) -> impl Fn(usize) -> f64 {
        move |j| {
            let (jf, sf) = (j as f64, s as f64);
            ln_gamma(sf + 1.0) - ln_gamma(jf + 1.0) - ln_gamma(sf - jf + 1.0)
                + jf * rho.ln()
                + (sf - jf) * (1.0 - rho).ln()
                - (ya - jf).abs() / b
                - (yb - (sf - jf)).abs() / b
        }
    }

    /// Pearson's χ² of `draws` draws against the normalised law, over the
    /// values of expected count ≥ 5 (the rest pooled); returns (χ², cells).
    fn chi2(s: usize, ln_p: &impl Fn(usize) -> f64, counts: &[u64], draws: u64) -> (f64, usize) {
        let lw: Vec<f64> = (0..=s).map(ln_p).collect();
        let top = lw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let total: f64 = lw.iter().map(|l| (l - top).exp()).sum();
        let (mut x2, mut cells) = (0.0, 0);
        let (mut pooled_e, mut pooled_o) = (0.0, 0.0);
        for j in 0..=s {
            let e = (lw[j] - top).exp() / total * draws as f64;
            let o = counts[j] as f64;
            if e >= 5.0 {
                x2 += (o - e).powi(2) / e;
                cells += 1;
            } else {
                pooled_e += e;
                pooled_o += o;
            }
        }
        if pooled_e > 0.0 {
            x2 += (pooled_o - pooled_e).powi(2) / pooled_e.max(1e-300);
            cells += 1;
        }
        (x2, cells)
    }

    /// The χ² of 100,000 draws stays below the 0.9999 quantile of χ²(cells − 1)
    /// (Wilson–Hilferty), for laws that are wide, narrow, kinked, one-sided
    /// and flat, from starts far from and at the mode.
    #[test]
    fn draws_follow_the_law() {
        type Law = Box<dyn Fn(usize) -> f64>;
        let cases: Vec<(usize, Law)> = vec![
            (1000, Box::new(pair_law(1000, 0.1, (80.0, 930.0, 10.0)))),
            (1000, Box::new(pair_law(1000, 0.1, (300.0, 700.0, 0.5)))),
            (40, Box::new(pair_law(40, 0.5, (3.0, 7.0, 2.0)))),
            (25, Box::new(|j: usize| -0.8 * j as f64)),
            (25, Box::new(|j: usize| 0.3 * j as f64)),
            (12, Box::new(|_| 0.0)),
            (1, Box::new(|j: usize| if j == 0 { 0.0 } else { -2.0 })),
            (
                200,
                Box::new(|j: usize| -((j as f64 - 77.3).powi(2)) / 50.0),
            ),
        ];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for (case, (s, law)) in cases.iter().enumerate() {
            for start in [0, *s / 2, *s] {
                let n = 100_000u64;
                let mut counts = vec![0u64; s + 1];
                for _ in 0..n {
                    counts[draw(*s, start, law, &mut rng)] += 1;
                }
                let (x2, cells) = chi2(*s, law, &counts, n);
                let df = (cells.max(2) - 1) as f64;
                // Wilson–Hilferty: χ²_q ≈ df (1 − 2/(9df) + z √(2/(9df)))³, z = 3.72
                let q = df * (1.0 - 2.0 / (9.0 * df) + 3.72 * (2.0 / (9.0 * df)).sqrt()).powi(3);
                assert!(
                    x2 < q,
                    "case {case}, start {start}: χ² {x2} ≥ {q} ({cells} cells)"
                );
            }
        }
    }

    /// The check above has power: a law shifted by one value fails it.
    #[test]
    fn the_check_sees_a_shift() {
        let law = pair_law(1000, 0.1, (80.0, 930.0, 10.0));
        let shifted = |j: usize| law(j.saturating_sub(1));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
        let n = 200_000u64;
        let mut counts = vec![0u64; 1001];
        for _ in 0..n {
            counts[draw(1000, 100, shifted, &mut rng)] += 1;
        }
        let (x2, cells) = chi2(1000, &law, &counts, n);
        assert!(x2 > 10.0 * cells as f64, "χ² {x2} over {cells} cells");
    }

    /// The tails of the hat are reached and exact: a law with a sharp kink at
    /// the mode gets k = 1, so most of its mass is drawn from the tails.
    #[test]
    fn kinked_law_draws_from_the_tails() {
        let law = |j: usize| -(j as f64 - 30.0).abs() * 0.4;
        let hat = Hat::new(60, 0, &law).unwrap();
        assert_eq!((hat.lo, hat.hi), (30, 30));
        let rm = hat.right.unwrap().mass;
        assert!(rm > 1.5, "right tail mass {rm}");
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let n = 200_000u64;
        let mut counts = vec![0u64; 61];
        for _ in 0..n {
            counts[hat.draw(&law, &mut rng)] += 1;
        }
        let (x2, cells) = chi2(60, &law, &counts, n);
        assert!(x2 < 2.0 * cells as f64, "χ² {x2} over {cells} cells");
    }

    #[test]
    fn mode_is_found_from_any_start() {
        let law = pair_law(500, 0.3, (100.0, 380.0, 3.0));
        let brute = (0..=500)
            .max_by(|&a, &b| law(a).total_cmp(&law(b)).then(b.cmp(&a)))
            .unwrap();
        for start in [0, 1, 99, 150, 151, 400, 499, 500] {
            assert_eq!(mode(500, start, &law), Some(brute), "start {start}");
        }
        assert_eq!(mode(10, 3, &|j: usize| j as f64), Some(10));
        assert_eq!(mode(10, 3, &|j: usize| -(j as f64)), Some(0));
        assert_eq!(mode(10, 3, &|_| f64::NAN), None);
    }

    /// A law that is −∞ somewhere falls back to enumeration, which never
    /// returns a value of zero probability.
    #[test]
    fn infinite_values_enumerate() {
        let law = |j: usize| {
            if j < 3 {
                f64::NEG_INFINITY
            } else {
                -(j as f64)
            }
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(10);
        for _ in 0..1000 {
            assert!(draw(8, 0, law, &mut rng) >= 3);
        }
        assert_eq!(draw(0, 5, law, &mut rng), 0);
    }
}
