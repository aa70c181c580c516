//! Coordinate-wise slice sampling (Neal 2003, §4: stepping out, then shrinkage),
//! the sampler Geumlek et al. §5.2 used. One chain; each coordinate update
//! evaluates the log density along a line in O(n) by keeping the margins
//! t = t₀ + A u and P u up to date.

use nalgebra::DVector;
use rand::{Rng, RngExt};

use super::LinearTarget;
use crate::numeric::vmath;

/// One chain's state.
pub struct Chain {
    pub u: DVector<f64>,
    t: DVector<f64>,
    pu: DVector<f64>,
    /// initial bracket width per coordinate
    widths: Vec<f64>,
    /// Σᵢ ln σ(tᵢ) at the current point, when known (the likelihood sum of the last
    /// accepted line evaluation: the next coordinate's f(0) without a pass over the data)
    lik: Option<f64>,
}

/// Starts at u (e.g. w = 0 in the original coordinates, as the paper's sampler).
/// Widths are 2/√(ρ Σᵢ aᵢⱼ²/4 + Pⱼⱼ), twice the scale of the curvature at t = 0.
pub fn start(target: &LinearTarget, u: DVector<f64>) -> Chain {
    let t = &target.t0 + &target.a * &u;
    let pu = &target.p * &u;
    let widths = (0..target.dim())
        .map(|j| {
            let curv = target.rho * target.a.column(j).norm_squared() / 4.0 + target.p[(j, j)];
            2.0 / curv.sqrt()
        })
        .collect();
    Chain {
        u,
        t,
        pu,
        widths,
        lik: None,
    }
}

/// Log density of moving coordinate j by δ (up to the same constant for every δ), and
/// the likelihood sum Σᵢ ln σ(tᵢ + δaᵢⱼ) it used (NaN outside the support).
fn line(target: &LinearTarget, ch: &Chain, j: usize, delta: f64) -> (f64, f64) {
    let (cj, puj, pjj) = (target.c[j], ch.pu[j], target.p[(j, j)]);
    let cu = target.c.dot(&ch.u) + cj * delta;
    let upu = ch.u.dot(&ch.pu) + 2.0 * delta * puj + pjj * delta * delta;
    if target.outside(cu, upu) {
        return (f64::NEG_INFINITY, f64::NAN);
    }
    let lik = vmath::log_sigmoid_line(ch.t.as_slice(), target.a.column(j).as_slice(), delta);
    (
        target.rho * lik - cj * delta - puj * delta - 0.5 * pjj * delta * delta,
        lik,
    )
}

/// f(0) of coordinate j: ρ·Σ ln σ(tᵢ), the value `line(…, 0)` computes, taken from the
/// previous accepted evaluation when there is one. The same bits either way: the
/// accepted evaluation summed tᵢ + δaᵢⱼ, and the update stores exactly those tᵢ.
fn current(target: &LinearTarget, ch: &Chain, j: usize) -> f64 {
    match ch.lik {
        // the δ = 0 terms of `line` are zeros, which leave a nonzero value unchanged
        Some(lik) => target.rho * lik,
        None => line(target, ch, j, 0.0).0,
    }
}

/// One sweep over all coordinates in order.
pub fn sweep(target: &LinearTarget, ch: &mut Chain, rng: &mut impl Rng) {
    for j in 0..target.dim() {
        let f0 = current(target, ch, j);
        let level = f0 + rng.random::<f64>().ln();
        let w = ch.widths[j];
        let mut lo = -w * rng.random::<f64>();
        let mut hi = lo + w;
        let mut budget = 50;
        while budget > 0 && line(target, ch, j, lo).0 > level {
            lo -= w;
            budget -= 1;
        }
        while budget > 0 && line(target, ch, j, hi).0 > level {
            hi += w;
            budget -= 1;
        }
        let (delta, lik) = loop {
            let d = lo + (hi - lo) * rng.random::<f64>();
            let (f, lik) = line(target, ch, j, d);
            if f > level {
                break (d, Some(lik));
            }
            if d < 0.0 {
                lo = d;
            } else {
                hi = d;
            }
            if hi - lo < 1e-300 {
                break (0.0, ch.lik);
            }
        };
        ch.u[j] += delta;
        ch.t.axpy(delta, &target.a.column(j), 1.0);
        ch.pu.axpy(delta, &target.p.column(j), 1.0);
        ch.lik = lik;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glm::tests::synthetic;
    use crate::glm::Posterior;
    use crate::stats::diagnostics;
    use rand::SeedableRng;

    /// A truncated Gaussian (ρ → 0, prior N(0, 1/4), ‖w‖ ≤ 0.5 in one dimension): the
    /// slice sampler's variance matches the closed form of the truncated normal.
    #[test]
    fn samples_a_truncated_gaussian() {
        let (x, y) = synthetic(10, 1, 6);
        let post = Posterior {
            x: &x,
            y: &y,
            rho: 1e-12,
            precision: 4.0,
            radius: Some(0.5),
        };
        let target = LinearTarget::original(&post);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let mut ch = start(&target, DVector::zeros(1));
        let mut xs = Vec::new();
        for _ in 0..40_000 {
            sweep(&target, &mut ch, &mut rng);
            xs.push(ch.u[0]);
        }
        assert!(xs.iter().all(|x| x.abs() <= 0.5));
        let (m, v) = diagnostics::mean_var(&xs);
        // N(0, σ² = 1/4) truncated to ±1 σ: variance σ²(1 − 2φ(1)/(2Φ(1) − 1))
        let phi1 = (-0.5f64).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let want = 0.25 * (1.0 - 2.0 * phi1 / 0.682_689_492_137_085_9);
        let ess = diagnostics::ess(&[xs.clone()]);
        assert!(m.abs() < 5.0 * (want / ess).sqrt(), "mean {m}");
        assert!((v / want - 1.0).abs() < 0.03, "var {v} vs {want}");
    }
}
