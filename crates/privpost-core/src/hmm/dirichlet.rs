//! Dirichlet sampling for the HMM's emission updates: the ordinary Dirichlet (via
//! Gamma draws) and the truncated, tempered one of OPS (Foulds et al. 2016 eq. 14 with
//! the simplex truncated to {φ_v ≥ a₀}).
//!
//! The truncated Dirichlet(γ) on {φ_v ≥ a₀} is sampled by a kernel that leaves it
//! invariant: up to `REJECTION_TRIES` proposals from the untruncated Dirichlet(γ),
//! accepted when inside (an exact, independent draw); if none is inside, sweeps of
//! pairwise updates from the current value — for a pair (i, j) with s = φᵢ + φⱼ held
//! fixed, φᵢ/s has density ∝ x^{γᵢ−1}(1 − x)^{γⱼ−1} on [a₀/s, 1 − a₀/s] (a truncated
//! Beta), updated by one slice-sampling step (Neal 2003: a uniform level under the
//! density, then shrinkage from the whole bounded interval), which leaves that
//! conditional invariant. Both branches leave the target invariant and the branch
//! probability does not depend on the current value, so the mixture does too.

use rand::{Rng, RngExt};
use rand_distr::{Distribution, Gamma};

pub const REJECTION_TRIES: usize = 8;
/// Pairwise sweeps when rejection fails.
pub const PAIR_SWEEPS: usize = 4;

/// One Dirichlet(γ) draw (normalised Gamma(γᵥ, 1) variables; a draw that underflows
/// everywhere falls back to the largest γ's vertex).
pub fn dirichlet(gamma: &[f64], rng: &mut impl Rng) -> Vec<f64> {
    let mut x: Vec<f64> = gamma
        .iter()
        .map(|&g| Gamma::new(g, 1.0).map(|d| d.sample(rng)).unwrap_or(0.0))
        .collect();
    let s: f64 = x.iter().sum();
    if s > 0.0 && s.is_finite() {
        x.iter_mut().for_each(|v| *v /= s);
    } else {
        let best = (0..gamma.len())
            .max_by(|&a, &b| gamma[a].total_cmp(&gamma[b]))
            .unwrap_or(0);
        x.iter_mut()
            .enumerate()
            .for_each(|(i, v)| *v = f64::from(i == best));
    }
    x
}

/// One step of the invariant kernel for Dirichlet(γ) truncated to φᵥ ≥ a₀, from the
/// current value `phi` (which must satisfy the constraint). Requires K·a₀ < 1.
pub fn truncated_dirichlet(gamma: &[f64], a0: f64, phi: &mut [f64], rng: &mut impl Rng) {
    let k = gamma.len();
    for _ in 0..REJECTION_TRIES {
        let x = dirichlet(gamma, rng);
        if x.iter().all(|&v| v >= a0) {
            phi.copy_from_slice(&x);
            return;
        }
    }
    for _ in 0..PAIR_SWEEPS {
        for i in 0..k {
            let j = (i + 1 + rng.random_range(0..k - 1)) % k;
            let s = phi[i] + phi[j];
            let (mut lo, mut hi) = (a0 / s, 1.0 - a0 / s);
            if hi <= lo {
                continue;
            }
            let (a, b) = (gamma[i], gamma[j]);
            let ln_f = |x: f64| (a - 1.0) * x.ln() + (b - 1.0) * (1.0 - x).ln();
            let x0 = (phi[i] / s).clamp(lo, hi);
            let level = ln_f(x0) + rng.random::<f64>().ln();
            let x = loop {
                let x = lo + (hi - lo) * rng.random::<f64>();
                if ln_f(x) >= level {
                    break x;
                }
                if hi - lo < 1e-15 {
                    break x0; // the current point is always on the slice
                }
                if x < x0 {
                    lo = x;
                } else {
                    hi = x;
                }
            };
            phi[i] = s * x;
            phi[j] = s - phi[i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::quadrature::GaussLegendre;
    use rand::SeedableRng;

    /// Moments of the truncated Dirichlet on the 2-simplex: sampler vs quadrature, for
    /// parameters where rejection almost always fails (so the pairwise kernel does the work)
    /// and where it mostly succeeds.
    #[test]
    fn truncated_dirichlet_matches_its_target_density() {
        let a0 = 0.12;
        for gamma in [[0.3, 0.5, 6.0], [2.0, 3.0, 4.0], [0.05, 0.05, 0.05]] {
            // E[φ₀], E[φ₀²], E[φ₁] by quadrature over {φ₀, φ₁ ≥ a₀, φ₀ + φ₁ ≤ 1 − a₀}
            let gl = GaussLegendre::new(48);
            let dens = |x: f64, y: f64| {
                let z = 1.0 - x - y;
                ((gamma[0] - 1.0) * x.ln() + (gamma[1] - 1.0) * y.ln() + (gamma[2] - 1.0) * z.ln())
                    .exp()
            };
            let (mut m0, mut m1, mut m00, mut z) = (0.0, 0.0, 0.0, 0.0);
            let pieces = 16;
            let top = 1.0 - 2.0 * a0;
            for p in 0..pieces {
                let (xa, xb) = (
                    a0 + (top - a0) * p as f64 / pieces as f64,
                    a0 + (top - a0) * (p + 1) as f64 / pieces as f64,
                );
                for (x, wx) in gl.mapped(xa, xb) {
                    let ymax = 1.0 - a0 - x;
                    for q in 0..pieces {
                        let (ya, yb) = (
                            a0 + (ymax - a0) * q as f64 / pieces as f64,
                            a0 + (ymax - a0) * (q + 1) as f64 / pieces as f64,
                        );
                        for (y, wy) in gl.mapped(ya, yb) {
                            let f = wx * wy * dens(x, y);
                            z += f;
                            m0 += f * x;
                            m1 += f * y;
                            m00 += f * x * x;
                        }
                    }
                }
            }
            let (e0, e1, e00) = (m0 / z, m1 / z, m00 / z);
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
            let mut phi = vec![1.0 / 3.0; 3];
            let n = 60_000;
            let (mut s0, mut s1, mut s00) = (0.0, 0.0, 0.0);
            for _ in 0..n {
                truncated_dirichlet(&gamma, a0, &mut phi, &mut rng);
                assert!(phi.iter().all(|&v| v >= a0 - 1e-12));
                assert!((phi.iter().sum::<f64>() - 1.0).abs() < 1e-12);
                s0 += phi[0];
                s1 += phi[1];
                s00 += phi[0] * phi[0];
            }
            let (s0, s1, s00) = (s0 / n as f64, s1 / n as f64, s00 / n as f64);
            let var0 = e00 - e0 * e0;
            // the pairwise kernel is autocorrelated: allow 6 s.e. of 1/10 of the draws
            let tol = 6.0 * (var0 / (n as f64 / 10.0)).sqrt();
            assert!((s0 - e0).abs() < tol, "{gamma:?}: E φ₀ {s0} vs {e0}");
            assert!((s1 - e1).abs() < tol, "{gamma:?}: E φ₁ {s1} vs {e1}");
            assert!(
                (s00 - e00).abs() < 2.0 * tol,
                "{gamma:?}: E φ₀² {s00} vs {e00}"
            );
        }
    }

    #[test]
    fn dirichlet_draws_have_the_right_mean() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let g = [1.0, 2.0, 7.0];
        let n = 20_000;
        let mut m = [0.0; 3];
        for _ in 0..n {
            let x = dirichlet(&g, &mut rng);
            for i in 0..3 {
                m[i] += x[i] / n as f64;
            }
        }
        for i in 0..3 {
            assert!((m[i] - g[i] / 10.0).abs() < 0.01, "{m:?}");
        }
    }
}
