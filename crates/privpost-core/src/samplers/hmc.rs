//! Hamiltonian Monte Carlo (Neal 2011) with identity mass in whitened coordinates,
//! K independent chains advanced together: every chain has its own momentum and
//! its own Metropolis accept/reject; they share only the (state-independent)
//! step size and path length, so each chain is an exact MH chain for the target.
//!
//! The step size is tuned once per posterior on separate pilot chains (their own
//! random stream), then frozen: the production chains never adapt, so they are
//! independent draws given the tuned step size.

use nalgebra::DMatrix;
use rand::{Rng, RngExt};
use rand_distr::{Distribution, StandardNormal};

use super::{Batch, LinearTarget};

/// At most this many leapfrog steps per iteration: when a posterior needs tiny steps
/// (e.g. a truncation boundary through its bulk) the path shortens instead of the
/// cost exploding.
pub const MAX_LEAPFROG: usize = 64;

/// Fixed settings of a production run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// leapfrog step ε (jittered uniformly in [0.8ε, 1.2ε] per iteration)
    pub step: f64,
    /// integration time per iteration (≈ π/2 makes a Gaussian target's draws
    /// nearly independent); the number of leapfrog steps is ⌈time/ε⌉ ≤ MAX_LEAPFROG
    pub path_length: f64,
}

/// State of K chains: positions (d × K) with their log densities and gradients.
pub struct Chains {
    pub u: DMatrix<f64>,
    current: Batch,
    /// batched gradient evaluations so far (one per leapfrog step, for all chains)
    pub gradients: usize,
}

/// Draws K starting points from N(0, I) — the Laplace approximation in whitened
/// coordinates, close to the posterior, so the burn-in only removes what remains.
/// A start outside a truncated support is moved to w = 0, which is always inside.
pub fn start(target: &LinearTarget, k: usize, rng: &mut impl Rng) -> Chains {
    let mut u = DMatrix::from_fn(target.dim(), k, |_, _| StandardNormal.sample(rng));
    let mut current = target.eval(&u);
    if current.logp.iter().any(|l| !l.is_finite()) {
        for j in 0..k {
            if !current.logp[j].is_finite() {
                u.set_column(j, &target.origin);
            }
        }
        current = target.eval(&u);
    }
    Chains {
        u,
        current,
        gradients: 1,
    }
}

/// One HMC iteration of every chain; returns the mean acceptance probability.
pub fn step(target: &LinearTarget, chains: &mut Chains, s: Settings, rng: &mut impl Rng) -> f64 {
    let (d, k) = chains.u.shape();
    let eps = s.step * (0.8 + 0.4 * rng.random::<f64>());
    let leaps = ((s.path_length / eps).ceil() as usize).clamp(1, MAX_LEAPFROG);
    chains.gradients += leaps;
    let p0 = DMatrix::from_fn(d, k, |_, _| StandardNormal.sample(rng));
    let mut p = &p0 + &chains.current.grad * (0.5 * eps);
    let mut u = chains.u.clone();
    for _ in 1..leaps {
        u += &p * eps;
        p += &target.gradient(&u).grad * eps;
    }
    u += &p * eps;
    let next = target.eval(&u);
    p += &next.grad * (0.5 * eps);
    let mut accepted = 0.0;
    for j in 0..k {
        let h0 = -chains.current.logp[j] + 0.5 * p0.column(j).norm_squared();
        let h1 = -next.logp[j] + 0.5 * p.column(j).norm_squared();
        let log_ratio = h0 - h1;
        let prob = if log_ratio.is_nan() {
            0.0
        } else {
            log_ratio.exp().min(1.0)
        };
        accepted += prob;
        if next.logp[j].is_finite() && rng.random::<f64>() < prob {
            chains.u.set_column(j, &u.column(j));
            chains.current.logp[j] = next.logp[j];
            chains.current.grad.set_column(j, &next.grad.column(j));
        }
    }
    accepted / k as f64
}

/// Tunes the step size on `pilots` chains for `iterations` iterations
/// (Robbins–Monro on ln ε towards a mean acceptance of 0.8; the answer is the mean of
/// ln ε over the second half). Starts from ε = d^(−1/4), the scaling for a Gaussian.
pub fn tune(
    target: &LinearTarget,
    pilots: usize,
    iterations: usize,
    path_length: f64,
    rng: &mut impl Rng,
) -> Settings {
    let mut chains = start(target, pilots, rng);
    let mut ln_eps = -(target.dim() as f64).ln() / 4.0;
    let (mut sum, mut count) = (0.0, 0.0f64);
    for it in 0..iterations {
        let s = Settings {
            step: ln_eps.exp(),
            path_length,
        };
        let acc = step(target, &mut chains, s, rng);
        ln_eps += (acc - 0.8) * 2.0 / ((it + 1) as f64).sqrt();
        ln_eps = ln_eps.clamp(-9.0, 1.0);
        if 2 * it >= iterations {
            sum += ln_eps;
            count += 1.0;
        }
    }
    Settings {
        step: (sum / count.max(1.0)).exp(),
        path_length,
    }
}

/// Runs K fresh chains: `burn_in` iterations, then `draws` recorded iterations.
/// Returns the recorded parameters w, one d × K matrix per iteration (with
/// `draws` = 0, only the final state: K independent draws).
pub fn sample(
    target: &LinearTarget,
    k: usize,
    burn_in: usize,
    draws: usize,
    s: Settings,
    rng: &mut impl Rng,
) -> Vec<DMatrix<f64>> {
    let mut chains = start(target, k, rng);
    for _ in 0..burn_in {
        step(target, &mut chains, s, rng);
    }
    if draws == 0 {
        return vec![target.to_w(&chains.u)];
    }
    (0..draws)
        .map(|_| {
            step(target, &mut chains, s, rng);
            target.to_w(&chains.u)
        })
        .collect()
}

/// Unadjusted Langevin algorithm (Minami et al. eq. 14) for K chains:
/// u ← u + h∇ln p(u) + √(2h)·η, `iterations` times, from `start` (d × K).
/// No accept/reject: its error is the total-variation term γ of Proposition 13.
pub fn langevin(
    target: &LinearTarget,
    start: DMatrix<f64>,
    step: f64,
    iterations: u64,
    rng: &mut impl Rng,
) -> DMatrix<f64> {
    let (d, k) = start.shape();
    let mut u = start;
    let noise = (2.0 * step).sqrt();
    for _ in 0..iterations {
        let g = target.gradient(&u).grad;
        u += g * step
            + DMatrix::from_fn(d, k, |_, _| {
                noise * Distribution::<f64>::sample(&StandardNormal, rng)
            });
    }
    u
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glm::tests::synthetic;
    use crate::glm::Posterior;
    use crate::stats::diagnostics;
    use rand::SeedableRng;

    /// Langevin with Proposition 13's schedule on a small logistic posterior: after T
    /// steps the chains' mean and variance match a long HMC run within Monte Carlo error.
    #[test]
    fn langevin_with_proposition_13_schedule_reaches_the_posterior() {
        use crate::glm::calibrate::langevin_schedule;
        let (x, y) = synthetic(20, 2, 8);
        let (n, beta, m_pi) = (20usize, 0.5, 2.0);
        let post = Posterior {
            x: &x,
            y: &y,
            rho: beta,
            precision: m_pi,
            radius: None,
        };
        let sched = langevin_schedule(2, n, beta, 0.25, m_pi, m_pi, 0.3);
        assert!(sched.iterations < 2e5, "{sched:?}");
        let target = LinearTarget::original(&post);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let (mode, _) = post.mode().unwrap();
        let big_m = n as f64 * beta * 0.25 + m_pi;
        let start = DMatrix::from_fn(2, 400, |j, _| {
            mode[j] + Distribution::<f64>::sample(&StandardNormal, &mut rng) * (1.0 / big_m).sqrt()
        });
        let lmc = langevin(
            &target,
            start,
            sched.step,
            sched.iterations as u64,
            &mut rng,
        );
        let s = tune(&target, 8, 40, 1.5, &mut rng);
        let exact = sample(&target, 2000, 30, 0, s, &mut rng).remove(0);
        for j in 0..2 {
            let a: Vec<f64> = lmc.row(j).iter().copied().collect();
            let b: Vec<f64> = exact.row(j).iter().copied().collect();
            let (ma, va) = diagnostics::mean_var(&a);
            let (mb, vb) = diagnostics::mean_var(&b);
            let se = (va / 400.0 + vb / 2000.0).sqrt();
            assert!((ma - mb).abs() < 5.0 * se, "mean {ma} vs {mb}");
            assert!((va / vb - 1.0).abs() < 0.3, "var {va} vs {vb}");
        }
    }

    /// On a Gaussian target (ρ → 0: the prior alone) the draws' mean and variance
    /// match N(0, 1/(nβ)) within Monte Carlo error.
    #[test]
    fn samples_a_known_gaussian() {
        let (x, y) = synthetic(30, 4, 5);
        let post = Posterior {
            x: &x,
            y: &y,
            rho: 1e-12,
            precision: 4.0,
            radius: None,
        };
        let target = LinearTarget::original(&post);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let s = tune(&target, 8, 40, 1.5, &mut rng);
        let mut chains = start(&target, 200, &mut rng);
        for _ in 0..10 {
            step(&target, &mut chains, s, &mut rng);
        }
        let w = target.to_w(&chains.u);
        for j in 0..4 {
            let xs: Vec<f64> = w.row(j).iter().copied().collect();
            let (m, v) = diagnostics::mean_var(&xs);
            // 200 independent draws: 5 standard errors
            assert!(m.abs() < 5.0 * (0.25f64 / 200.0).sqrt(), "mean {m}");
            assert!(
                (v / 0.25 - 1.0).abs() < 5.0 * (2.0f64 / 199.0).sqrt(),
                "var {v}"
            );
        }
    }
}
