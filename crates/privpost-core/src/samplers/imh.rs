//! Independence Metropolis–Hastings from a heavy-tailed Laplace approximation: the
//! logistic posteriors' sampler at (nearly) the cost of evaluating their likelihood.
//!
//! What: in the coordinates whitened at the mode ([`LinearTarget::whitened`], where the
//! Laplace approximation is N(0, I)), the proposal q is a multivariate Student t with ν
//! degrees of freedom and scale s (s ≥ 1 inflates it). Each draw is the last state of
//! its own short IMH chain: the chain starts at a draw of q and takes `steps` IMH steps,
//! each accepting a fresh independent proposal y with probability
//! min(1, w(y)/w(x)), w = π/q (Tierney 1994, §2.3.3). The proposals do not depend on the
//! chain's state, so every proposal of every chain is evaluated in one batch: a step
//! costs one likelihood evaluation (one product of the n × d design with a column,
//! batched into GEMMs), where a whitened HMC iteration costs about ten gradients (two
//! products each).
//!
//! Why it is exact and how far from the target it can be: the posterior is log-concave
//! with a Gaussian prior, so its density falls like a Gaussian while q's falls like a
//! power; w is bounded, sup w = W (normalised so that E_q w = 1), and the chain is
//! uniformly ergodic with ‖qPᴷ − π‖_TV ≤ (1 − 1/W)ᴷ (Mengersen & Tweedie 1996,
//! Theorem 2.1; the start is a draw of q, so qPᴷ is the law of a draw). W is not known
//! in closed form; [`Diagnostics::tv_estimate`] puts the largest weight observed among all
//! proposals (over their mean) in its place. That is an estimate of the bound, not a
//! bound: a larger weight may exist where no proposal fell. The figures report it with
//! the acceptance rate, and the sampler is validated against quadrature, slice
//! references and HMC as HMC was.
//!
//! Truncated supports (OPS balls) are not handled here: [`super::whitened_draws`]
//! switches to slice sampling when a ball cuts near the posterior's bulk, and a
//! proposal outside a far ball has w = 0 (rejected).

use nalgebra::DMatrix;
use rand::{Rng, RngExt};
use rand_distr::{ChiSquared, Distribution, StandardNormal};

use super::{LinearTarget, SamplerError};

/// Fixed settings of the independence sampler.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Settings {
    /// degrees of freedom ν of the t proposal (finite: with a Gaussian proposal the
    /// weights would be unbounded)
    pub df: f64,
    /// scale s of the t proposal in whitened units (s = 1: the Laplace covariance)
    pub scale: f64,
    /// the steps K per draw are the fewest with (1 − 1/Ŵ)ᴷ ≤ `tv_target`, Ŵ the
    /// largest weight of the pilot proposals over their mean ([`pilot_steps`]) …
    pub tv_target: f64,
    /// … but at least this many …
    pub min_steps: usize,
    /// … and at most this many
    pub max_steps: usize,
}

/// The first pilot's proposals (see [`pilot_steps`]).
pub const PILOT: usize = 256;

/// The most pilot proposals [`pilot_steps`] draws.
pub const MAX_PILOT: usize = 1 << 16;

/// The steps K of `chains` chains, set by a pilot: independent proposals drawn
/// before the chains' and independent of them, so each chain is an exact K-step IMH
/// chain given K. The pilot starts with [`PILOT`] proposals and doubles (to at most
/// [`MAX_PILOT`]) until it holds twice the proposals the chains will draw,
/// 2 · chains · (K + 1), K being what its Ŵ asks for — unless even twice its Ŵ would
/// ask for no more than `min_steps`, where it stops at once.
///
/// Why it grows: Ŵ is the largest weight seen, and the largest of m log-normal-like
/// weights grows with m. On the MNIST posterior of geumlek2017/fig3 at ρ = 1
/// (d = 784), 256 proposals see Ŵ ≈ 7 and K = 30, while the 1,550 proposals of 50
/// such chains see Ŵ ≈ 23: the K meant for 0.01 then had an estimate of 0.26. A pilot
/// twice as large as the chains' proposals sees about what the pilot and the chains
/// together will see, which [`Diagnostics::tv_estimate`] reports. On a posterior whose
/// weights are nearly constant (Adult: Ŵ ≈ 1.3 at any size) the first pilot stops.
///
/// Returns (K, the pilot's log weights).
pub fn pilot_steps(
    target: &LinearTarget,
    chains: usize,
    s: Settings,
    rng: &mut impl Rng,
) -> (usize, Vec<f64>) {
    let chi = ChiSquared::new(s.df).expect("df > 0");
    let mut log_w = proposals(target, PILOT, s, &chi, rng).1;
    loop {
        let w = max_over_mean(&log_w);
        let steps = s.steps_for(w);
        let wanted = chains.saturating_mul(steps + 1).saturating_mul(2);
        if s.steps_for(2.0 * w) <= s.min_steps || log_w.len() >= wanted || log_w.len() >= MAX_PILOT
        {
            return (steps, log_w);
        }
        let more = log_w.len().min(MAX_PILOT - log_w.len());
        log_w.extend(proposals(target, more, s, &chi, rng).1);
    }
}

impl Settings {
    /// The steps K for a pilot's Ŵ: ⌈ln target / ln(1 − 1/Ŵ)⌉ within [min, max].
    pub fn steps_for(&self, max_weight: f64) -> usize {
        let k = if !max_weight.is_finite() {
            self.max_steps as f64
        } else if max_weight <= 1.0 {
            0.0
        } else {
            (self.tv_target.ln() / (1.0 - 1.0 / max_weight).ln()).ceil()
        };
        (k.max(0.0) as usize).clamp(self.min_steps, self.max_steps)
    }
}

/// Columns evaluated per batch: bounds the n × columns margins held at once.
const BLOCK: usize = 64;

/// K draws (d × K parameters w) and what the chains saw.
#[derive(Debug, Clone)]
pub struct Draws {
    pub w: DMatrix<f64>,
    pub diagnostics: Diagnostics,
}

/// What K independence chains saw, for a figure's notes.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Diagnostics {
    /// accepted moves over attempted ones, all chains
    pub acceptance: f64,
    /// the largest importance weight π/q among all proposals (the pilot's and the
    /// chains') over their mean: the observed stand-in for W of the
    /// Mengersen–Tweedie bound
    pub max_weight: f64,
    /// the steps each chain took (set by the pilot, see [`pilot_steps`])
    pub steps: usize,
    /// Ŵ of the pilot proposals alone
    pub pilot_max_weight: f64,
    /// the pilot's proposals
    pub pilot_size: usize,
}

impl Diagnostics {
    /// (1 − 1/Ŵ)ᴷ with Ŵ = [`Diagnostics::max_weight`]: the Mengersen–Tweedie bound on
    /// the total-variation distance of a draw to the posterior, with the observed
    /// weight range in place of the supremum (an estimate, see the module header).
    pub fn tv_estimate(&self) -> f64 {
        tv_bound(self.max_weight, self.steps)
    }
}

/// (1 − 1/W)ᴷ, 1 when W is not finite (Mengersen & Tweedie 1996, Theorem 2.1).
pub fn tv_bound(w: f64, steps: usize) -> f64 {
    if !w.is_finite() || w < 1.0 {
        return if w.is_finite() { 0.0 } else { 1.0 };
    }
    (1.0 - 1.0 / w).powf(steps as f64)
}

/// ln q(u) of the t proposal up to a constant: −(ν + d)/2 · ln(1 + ‖u‖²/(νs²)).
fn log_proposal(u_sq: f64, d: usize, s: Settings) -> f64 {
    -0.5 * (s.df + d as f64) * (u_sq / (s.df * s.scale * s.scale)).ln_1p()
}

/// K draws of `target` (whitened at its mode) by independence MH, as described in the
/// module header. Fails only when some chain saw no proposal inside the support.
pub fn draws(
    target: &LinearTarget,
    k: usize,
    s: Settings,
    rng: &mut impl Rng,
) -> Result<Draws, SamplerError> {
    assert!(s.df > 0.0 && s.df.is_finite() && s.scale > 0.0);
    assert!(s.tv_target > 0.0 && s.tv_target < 1.0 && s.min_steps <= s.max_steps);
    let d = target.dim();
    let chi = ChiSquared::new(s.df).expect("df > 0");
    let (steps, pilot) = pilot_steps(target, k, s, rng);
    let mut kept = DMatrix::zeros(d, k);
    let seen = run_chains(target, k, steps, s, &chi, rng, |chain, step, state| {
        if step == steps {
            kept.set_column(chain, state);
        }
    })?;
    Ok(Draws {
        w: target.to_w(&kept),
        diagnostics: seen.diagnostics(steps, &pilot),
    })
}

/// `chains` independence chains of `length` steps each, every state after the
/// start recorded (one d × chains matrix of parameters w per step): the form the
/// benchmarks measure effective samples per CPU-second in. The proposal is that of
/// [`draws`]; the steps are given, not set by a pilot.
pub fn traces(
    target: &LinearTarget,
    chains: usize,
    length: usize,
    s: Settings,
    rng: &mut impl Rng,
) -> Result<(Vec<DMatrix<f64>>, Diagnostics), SamplerError> {
    assert!(s.df > 0.0 && s.df.is_finite() && s.scale > 0.0 && length > 0);
    let d = target.dim();
    let chi = ChiSquared::new(s.df).expect("df > 0");
    let mut states = vec![DMatrix::zeros(d, chains); length];
    let seen = run_chains(
        target,
        chains,
        length,
        s,
        &chi,
        rng,
        |chain, step, state| {
            if step > 0 {
                states[step - 1].set_column(chain, state);
            }
        },
    )?;
    let w = states.iter().map(|u| target.to_w(u)).collect();
    Ok((w, seen.diagnostics(length, &[])))
}

/// What a set of chains saw: moves and the log weights of all proposals.
struct Seen {
    accepted: usize,
    attempted: usize,
    log_w: Vec<f64>,
}

impl Seen {
    /// The diagnostics of these chains after a pilot of log weights `pilot` (empty:
    /// no pilot; its Ŵ is then NaN).
    fn diagnostics(&self, steps: usize, pilot: &[f64]) -> Diagnostics {
        let all: Vec<f64> = pilot.iter().chain(&self.log_w).copied().collect();
        Diagnostics {
            acceptance: self.accepted as f64 / self.attempted.max(1) as f64,
            max_weight: max_over_mean(&all),
            steps,
            pilot_max_weight: if pilot.is_empty() {
                f64::NAN
            } else {
                max_over_mean(pilot)
            },
            pilot_size: pilot.len(),
        }
    }
}

/// Runs `k` chains of `steps` IMH steps one after another (chain j's start and
/// proposals are the columns j·(steps + 1) .. of the proposal stream, drawn in
/// batches), calling `visit(chain, step, state)` with each chain's state after its
/// start (step 0) and after every step.
fn run_chains(
    target: &LinearTarget,
    k: usize,
    steps: usize,
    s: Settings,
    chi: &ChiSquared<f64>,
    rng: &mut impl Rng,
    mut visit: impl FnMut(usize, usize, &nalgebra::DVector<f64>),
) -> Result<Seen, SamplerError> {
    let per_chain = steps + 1;
    let total = k * per_chain;
    let mut seen = Seen {
        accepted: 0,
        attempted: 0,
        log_w: Vec::with_capacity(total),
    };
    // ln w of the current chain's state
    let mut current = f64::NEG_INFINITY;
    let mut current_col = nalgebra::DVector::zeros(target.dim());
    let mut done = 0;
    while done < total {
        let m = BLOCK.min(total - done);
        let (u, lws) = proposals(target, m, s, chi, rng);
        for (c, &lw) in lws.iter().enumerate() {
            let index = done + c;
            let (chain, step) = (index / per_chain, index % per_chain);
            seen.log_w.push(lw);
            let take = if step == 0 {
                true
            } else {
                seen.attempted += 1;
                // a finite weight always replaces an infinite-ratio start outside the support
                let ratio = lw - current;
                let take = lw.is_finite() && (ratio >= 0.0 || rng.random::<f64>().ln() < ratio);
                seen.accepted += take as usize;
                take
            };
            if take {
                current_col.copy_from(&u.column(c));
                current = lw;
            }
            if step == steps && !current.is_finite() {
                return Err(SamplerError::NoProposalInside);
            }
            visit(chain, step, &current_col);
        }
        done += m;
    }
    Ok(seen)
}

/// `m` proposals (d × m, whitened) and their log weights ln π(u) − ln q(u).
fn proposals(
    target: &LinearTarget,
    m: usize,
    s: Settings,
    chi: &ChiSquared<f64>,
    rng: &mut impl Rng,
) -> (DMatrix<f64>, Vec<f64>) {
    let d = target.dim();
    let mut u = DMatrix::from_fn(d, m, |_, _| StandardNormal.sample(rng));
    for mut col in u.column_iter_mut() {
        let g: f64 = chi.sample(rng);
        col *= s.scale / (g / s.df).sqrt();
    }
    let mut lw = Vec::with_capacity(m);
    for chunk in 0..m.div_ceil(BLOCK) {
        let cols = chunk * BLOCK..(chunk * BLOCK + BLOCK).min(m);
        let block = u.columns(cols.start, cols.len()).into_owned();
        let logp = target.log_density(&block);
        for (c, l) in logp.into_iter().enumerate() {
            lw.push(l - log_proposal(block.column(c).norm_squared(), d, s));
        }
    }
    (u, lw)
}

/// max wᵢ / mean wᵢ from log weights (∞ when none is finite).
fn max_over_mean(log_w: &[f64]) -> f64 {
    let top = log_w.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !top.is_finite() {
        return f64::INFINITY;
    }
    let mean = log_w.iter().map(|l| (l - top).exp()).sum::<f64>() / log_w.len() as f64;
    1.0 / mean
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glm::tests::synthetic;
    use crate::glm::Posterior;
    use crate::stats::diagnostics;
    use rand::SeedableRng;

    const SETTINGS: Settings = Settings {
        df: 1000.0,
        scale: 1.0,
        tv_target: 0.01,
        min_steps: 10,
        max_steps: 500,
    };

    /// The untempered posterior of (x, y) under the prior N(0, I), no truncation.
    fn plain<'a>(x: &'a DMatrix<f64>, y: &'a nalgebra::DVector<f64>) -> Posterior<'a> {
        Posterior {
            x,
            y,
            rho: 1.0,
            precision: 1.0,
            radius: None,
        }
    }

    /// The bound (1 − 1/W)ᴷ and the steps that meet a target, by hand.
    #[test]
    fn steps_meet_the_target_bound() {
        assert_eq!(tv_bound(2.0, 3), 0.125);
        assert_eq!(tv_bound(1.0, 3), 0.0);
        assert_eq!(tv_bound(f64::INFINITY, 3), 1.0);
        let s = Settings {
            min_steps: 1,
            ..SETTINGS
        };
        // (1 − 1/2)^7 = 0.0078 ≤ 0.01 < (1/2)^6 = 0.0156
        assert_eq!(s.steps_for(2.0), 7);
        assert!(tv_bound(5.0, s.steps_for(5.0)) <= 0.01);
        assert!(tv_bound(5.0, s.steps_for(5.0) - 1) > 0.01);
        assert_eq!(s.steps_for(1.0), 1);
        assert_eq!(s.steps_for(f64::INFINITY), 500);
        assert_eq!(s.steps_for(1e9), 500);
    }

    /// The pilot grows by doubling until it holds twice the proposals the chains
    /// will draw, and stops at once when twice its first Ŵ asks for no more than
    /// `min_steps`; K is always what its final Ŵ asks for.
    #[test]
    fn pilot_grows_to_the_chains_proposals() {
        let (x, y) = synthetic(30, 2, 11);
        let post = plain(&x, &y);
        let target = LinearTarget::whitened(&post).unwrap();
        // a narrow proposal (s = 0.8): weights grow like e^{0.28 |u|²}, so K ≫ 1
        let narrow = Settings {
            scale: 0.8,
            min_steps: 1,
            ..SETTINGS
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let (steps, lw) = pilot_steps(&target, 20, narrow, &mut rng);
        assert_eq!(steps, narrow.steps_for(max_over_mean(&lw)));
        assert!(steps > 10, "{steps} {}", lw.len());
        assert!(
            lw.len() >= 40 * (steps + 1) && lw.len() < MAX_PILOT,
            "{}",
            lw.len()
        );
        assert!(lw.len().is_power_of_two() && lw.len() > PILOT);
        // the half-size pilot would not have held the chains' proposals
        let half = &lw[..lw.len() / 2];
        assert!(half.len() < 40 * (narrow.steps_for(max_over_mean(half)) + 1));
        // tempered to ρ = 0.01 the posterior is nearly its Gaussian prior and the
        // Laplace-matched proposal's weights nearly constant: twice the first Ŵ asks
        // for no more than min_steps = 10, and the pilot stops at once
        let near_gaussian = Posterior { rho: 0.01, ..post };
        let flat = LinearTarget::whitened(&near_gaussian).unwrap();
        let (steps, lw) = pilot_steps(&flat, 400, SETTINGS, &mut rng);
        assert_eq!((steps, lw.len()), (SETTINGS.min_steps, PILOT));
        // and the draws report the pilot they used
        let d = draws(&target, 50, narrow, &mut rng).unwrap().diagnostics;
        assert!(d.pilot_size > PILOT && d.max_weight >= d.pilot_max_weight * 0.5);
    }

    /// 4000 independent IMH draws of a 2-d logistic posterior against its mean and
    /// variance by quadrature (Gauss–Legendre on ±9 sd around the mode); tolerance 5
    /// Monte Carlo standard errors. A heavier-tailed, inflated proposal (ν = 4,
    /// s = 1.5) must pass too: the kernel is exact whatever the proposal.
    #[test]
    fn imh_draws_match_quadrature_on_a_2d_posterior() {
        let (x, y) = synthetic(30, 2, 11);
        let post = plain(&x, &y);
        let (mean, var) = crate::samplers::tests::quadrature_moments(&post);
        let target = LinearTarget::whitened(&post).unwrap();
        for s in [
            SETTINGS,
            Settings {
                df: 4.0,
                scale: 1.5,
                ..SETTINGS
            },
        ] {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
            let d = draws(&target, 4000, s, &mut rng).unwrap();
            let diag = d.diagnostics;
            assert!(diag.acceptance > 0.3 && diag.acceptance <= 1.0, "{diag:?}");
            assert!(diag.steps >= s.min_steps && diag.tv_estimate() < 0.5);
            for j in 0..2 {
                let xs: Vec<f64> = d.w.row(j).iter().copied().collect();
                let (m, v) = diagnostics::mean_var(&xs);
                let se_m = (var[j] / 4000.0).sqrt();
                let se_v = var[j] * (2.0f64 / 3999.0).sqrt();
                assert!(
                    (m - mean[j]).abs() < 5.0 * se_m,
                    "{s:?}: mean {m} vs {}",
                    mean[j]
                );
                assert!(
                    (v - var[j]).abs() < 5.0 * se_v,
                    "{s:?}: var {v} vs {}",
                    var[j]
                );
            }
        }
    }

    /// Recorded chains: one d × chains matrix per step, and their pooled mean and
    /// variance agree with independent draws' (5 s.e. of the independent draws, the
    /// traces' own error being smaller at this acceptance).
    #[test]
    fn traces_record_every_step_of_the_same_kernel() {
        let (x, y) = synthetic(40, 3, 2);
        let post = plain(&x, &y);
        let target = LinearTarget::whitened(&post).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let (tr, diag) = traces(&target, 100, 40, SETTINGS, &mut rng).unwrap();
        assert_eq!(tr.len(), 40);
        assert!(tr
            .iter()
            .all(|m| m.shape() == (3, 100) && m.iter().all(|v| v.is_finite())));
        assert!(diag.acceptance > 0.5 && diag.steps == 40, "{diag:?}");
        let d = draws(&target, 2000, SETTINGS, &mut rng).unwrap();
        for j in 0..3 {
            let pooled: Vec<f64> = tr
                .iter()
                .flat_map(|m| m.row(j).iter().copied().collect::<Vec<_>>())
                .collect();
            let single: Vec<f64> = d.w.row(j).iter().copied().collect();
            let (m1, v1) = diagnostics::mean_var(&pooled);
            let (m2, v2) = diagnostics::mean_var(&single);
            assert!((m1 - m2).abs() < 5.0 * (v2 / 2000.0).sqrt(), "{m1} {m2}");
            assert!(
                (v1 / v2 - 1.0).abs() < 5.0 * (2.0f64 / 2000.0).sqrt(),
                "{v1} {v2}"
            );
        }
    }

    /// Its log density is `eval`'s, without the gradient, in both coordinate systems.
    #[test]
    fn log_density_equals_eval() {
        let (x, y) = synthetic(50, 4, 3);
        let post = Posterior {
            x: &x,
            y: &y,
            rho: 0.7,
            precision: 2.0,
            radius: Some(4.0),
        };
        let u = DMatrix::from_fn(4, 5, |i, j| ((i * 5 + j) as f64 * 0.7).sin() * 2.0);
        for t in [
            LinearTarget::original(&post),
            LinearTarget::whitened(&post).unwrap(),
        ] {
            let a = t.log_density(&u);
            let b = t.eval(&u).logp;
            for (a, b) in a.iter().zip(&b) {
                assert!(
                    a == b || (a - b).abs() < 1e-10 * b.abs().max(1.0),
                    "{a} {b}"
                );
            }
        }
    }
}
