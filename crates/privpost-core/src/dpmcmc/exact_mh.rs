//! Exact private Metropolis–Hastings samplers whose every iteration is a
//! composition of Gaussian mechanisms with data-independent sensitivity (//! facts: `shared/design/facts-dp-hmc-penalty.md`):
//!
//! - the **penalty algorithm** (Yildirim & Ermis 2019, after Ceperley & Dewing
//!   1999): a random-walk proposal θ′, the full-data log-likelihood ratio
//!   λ = Σᵢ clip(rᵢ) released with Gaussian noise of standard deviation σ, accepted
//!   with probability min{1, exp(λ̂ + ln p(θ′)/p(θ) − σ²/2)}. With σ symmetric in
//!   (θ, θ′) and free of the data, a(λ) = E min{1, e^{λ + σZ − σ²/2}} satisfies
//!   a(λ) = e^λ a(−λ): detailed balance for the posterior (their Proposition). Clipping each rᵢ to ±b‖θ′ − θ‖ bounds the sensitivity by
//!   c = 2b‖θ′ − θ‖ and σ = τ n^α c makes every iteration a Gaussian mechanism with
//!   Δ/σ = 1/(τ n^α).
//! - **DP-HMC** (Räisä, Koskela, Honkela 2021): leapfrog dynamics driven by the sum
//!   of per-record gradients clipped to norm b_g plus N(0, σ_g²I), σ_g = 2τ_g√n b_g
//!   (L + 1 releases per iteration), then the penalty test on the clipped ratio of
//!   the end point with σ_l = 2τ_l√n b_l‖θ_L − θ‖. The noisy half-kicks and drifts
//!   are each reversible, so the leapfrog is, and the penalty test keeps the
//!   posterior invariant (Räisä's thesis §4.3). The step is η·h with h ∈ [0, 1) from
//!   a randomly scrambled base-2 van der Corput sequence, as their code does.
//!
//! Clipping a ratio changes the target (the chain is then exact only for the
//! clipped likelihood); clipping a gradient does not (it only lowers acceptance).
//! Both are counted.

use rand::{Rng, RngExt};
use rand_distr::{Distribution, StandardNormal};

use super::model::{clipped_sum, RecordModel};
use crate::privacy::event::Event;

fn distance<const D: usize>(a: &[f64; D], b: &[f64; D]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

fn normal<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    StandardNormal.sample(rng)
}

/// What one iteration did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepStats {
    pub accepted: bool,
    /// ratios clipped at the proposal
    pub clipped_ratios: u64,
    /// per-record gradients clipped, over the L + 1 releases (DP-HMC)
    pub clipped_grads: u64,
    /// the proposal was not finite (rejected)
    pub diverged: bool,
}

/// Settings of the penalty algorithm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Penalty {
    /// τ: noise relative to the sensitivity and n^α
    pub tau: f64,
    /// α of n^α (Yildirim & Ermis recommend ½; Räisä et al. use ½)
    pub n_exponent: f64,
    /// random-walk proposal standard deviation per coordinate
    pub proposal_sd: f64,
    /// b: each ratio is clipped to ±b‖θ′ − θ‖
    pub clip: f64,
    /// Whether the σ²/2 penalty is applied (false only for the broken variant
    /// the tests and the audit use: still private, no longer exact).
    pub corrected: bool,
}

impl Penalty {
    /// σ/Δ of every release: τ n^α.
    pub fn noise_multiplier(&self, n: usize) -> f64 {
        self.tau * (n as f64).powf(self.n_exponent)
    }

    /// One iteration's privacy event: a Gaussian mechanism, sensitivity normalised to 1.
    pub fn event(&self, n: usize) -> Event {
        Event::Gaussian {
            l2_sensitivity: 1.0,
            sigma: self.noise_multiplier(n),
            rdp_scale: 0.5,
        }
    }

    /// The release of one iteration: λ̂ = Σᵢ clip(rᵢ(from, to)) + N(0, σ²) with
    /// σ = τn^α·2b‖to − from‖, returned with σ and the number of ratios clipped.
    /// `sigma_from_data` is the broken variant the audit must catch: σ from the
    /// largest |rᵢ| of this data set instead of the clip bound (not private).
    pub fn noisy_ratio<const D: usize, M: RecordModel<D>, R: Rng + ?Sized>(
        &self,
        model: &M,
        from: &[f64; D],
        to: &[f64; D],
        scratch: &mut Vec<f64>,
        rng: &mut R,
        sigma_from_data: bool,
    ) -> (f64, f64, u64) {
        let bound = self.clip * distance(from, to);
        let (lambda, clipped, sensitivity) = if sigma_from_data {
            scratch.resize(model.n(), 0.0);
            model.log_lik_ratios(from, to, scratch);
            let largest = scratch.iter().fold(0.0f64, |m, r| m.max(r.abs()));
            let (lambda, clipped) = clipped_sum(scratch, bound);
            (lambda, clipped, 2.0 * largest.min(bound))
        } else {
            let (lambda, clipped) = model.clipped_ratio_sum(from, to, bound, scratch);
            (lambda, clipped, 2.0 * bound)
        };
        let sigma = self.noise_multiplier(model.n()) * sensitivity;
        let noise = sigma * normal(rng);
        (lambda + noise, sigma, clipped)
    }

    /// One iteration from `theta` (updated in place); `scratch` holds the n ratios.
    /// The stream: the proposal, the release's noise, then u.
    pub fn step<const D: usize, M: RecordModel<D>, R: Rng + ?Sized>(
        &self,
        model: &M,
        theta: &mut [f64; D],
        scratch: &mut Vec<f64>,
        rng: &mut R,
    ) -> StepStats {
        let mut proposal = *theta;
        for p in proposal.iter_mut() {
            *p += self.proposal_sd * normal(rng);
        }
        if !proposal.iter().all(|x| x.is_finite()) {
            // the release and u are drawn whatever the outcome, so the stream does not
            // depend on the data
            let _noise = normal(rng);
            let _u = rng.random::<f64>();
            return StepStats {
                diverged: true,
                ..StepStats::default()
            };
        }
        let (released, sigma, clipped) =
            self.noisy_ratio(model, theta, &proposal, scratch, rng, false);
        let log_u = rng.random::<f64>().ln();
        let penalty = if self.corrected {
            0.5 * sigma * sigma
        } else {
            0.0
        };
        let log_a = released + model.log_prior(&proposal) - model.log_prior(theta) - penalty;
        let accepted = log_u < log_a;
        if accepted {
            *theta = proposal;
        }
        StepStats {
            accepted,
            clipped_ratios: clipped,
            ..StepStats::default()
        }
    }
}

/// Settings of DP-HMC.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DpHmc {
    /// τ_l of the ratio release
    pub tau_l: f64,
    /// τ_g of each gradient release
    pub tau_g: f64,
    /// b_l: ratios clipped to ±b_l‖θ_L − θ‖
    pub clip_ratio: f64,
    /// b_g: per-record gradients clipped to norm b_g
    pub clip_grad: f64,
    /// L leapfrog steps
    pub leapfrog: usize,
    /// η, the largest step (the step of an iteration is η·h, h ∈ [0, 1))
    pub step: f64,
}

/// A randomly scrambled base-2 van der Corput sequence: h_k = (bitreverse(k) XOR
/// mask)/2³², k = 0, 1, …, the mask drawn once per chain. Its terms are spread
/// over [0, 1) more evenly than i.i.d. draws, and they do not depend on the state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VanDerCorput {
    mask: u32,
    k: u32,
}

impl VanDerCorput {
    pub fn new<R: Rng + ?Sized>(rng: &mut R) -> Self {
        Self {
            mask: rng.random(),
            k: 0,
        }
    }

    pub fn next_value(&mut self) -> f64 {
        let h = (self.k.reverse_bits() ^ self.mask) as f64 / 4_294_967_296.0;
        self.k = self.k.wrapping_add(1);
        h
    }
}

impl DpHmc {
    /// σ/Δ of the ratio release and of each gradient release: τ√n.
    fn multipliers(&self, n: usize) -> (f64, f64) {
        let root = (n as f64).sqrt();
        (self.tau_l * root, self.tau_g * root)
    }

    /// One iteration's privacy event: the ratio release and L + 1 gradient
    /// releases, sensitivities normalised to 1.
    pub fn event(&self, n: usize) -> Event {
        let (l, g) = self.multipliers(n);
        let gaussian = |sigma: f64| Event::Gaussian {
            l2_sensitivity: 1.0,
            sigma,
            rdp_scale: 0.5,
        };
        Event::sequential(vec![
            gaussian(l),
            Event::repeat(self.leapfrog as u64 + 1, gaussian(g)),
        ])
    }

    /// The noisy gradient T·(Σ clip_{b_g}(∇ ln p(xᵢ|θ)) + N(0, σ_g²I)) + ∇ ln p(θ), T = 1,
    /// and how many per-record gradients were clipped.
    /// Each release (the noisy clipped sum, divided by σ_g) is appended to `trace`.
    fn noisy_gradient<const D: usize, M: RecordModel<D>, R: Rng + ?Sized>(
        &self,
        model: &M,
        theta: &[f64; D],
        rng: &mut R,
        trace: &mut Vec<f64>,
    ) -> ([f64; D], u64) {
        let bound = self.clip_grad;
        let (mut sum, clipped) = model.clipped_grad_sum(theta, bound);
        let sigma = 2.0 * self.multipliers(model.n()).1 * bound;
        let prior = model.grad_log_prior(theta);
        for (s, p) in sum.iter_mut().zip(prior) {
            *s += sigma * normal(rng);
            trace.push(*s / sigma);
            *s += p;
        }
        (sum, clipped)
    }

    /// One iteration from `theta` (updated in place), with step η·`h`.
    pub fn step<const D: usize, M: RecordModel<D>, R: Rng + ?Sized>(
        &self,
        model: &M,
        theta: &mut [f64; D],
        h: f64,
        scratch: &mut Vec<f64>,
        rng: &mut R,
    ) -> StepStats {
        self.step_traced(model, theta, h, scratch, rng, &mut Vec::new())
    }

    /// [`DpHmc::step`], appending what the iteration released, each divided by its
    /// noise scale, to `trace`: the L + 1 noisy gradient sums (D values each), then
    /// the proposal's displacement θ_L − θ (D values; a function of the gradient
    /// releases and the data-free momentum) and λ̂/σ_l (neither if the trajectory
    /// diverged). The audit reads it.
    pub fn step_traced<const D: usize, M: RecordModel<D>, R: Rng + ?Sized>(
        &self,
        model: &M,
        theta: &mut [f64; D],
        h: f64,
        scratch: &mut Vec<f64>,
        rng: &mut R,
        trace: &mut Vec<f64>,
    ) -> StepStats {
        let s = self.step * h;
        let p0: [f64; D] = std::array::from_fn(|_| normal(rng));
        let (mut q, mut p) = (*theta, p0);
        let (mut grad, mut clipped_grads) = self.noisy_gradient(model, &q, rng, trace);
        for _ in 0..self.leapfrog {
            for (pi, g) in p.iter_mut().zip(&grad) {
                *pi += 0.5 * s * g;
            }
            for (qi, pi) in q.iter_mut().zip(&p) {
                *qi += s * pi;
            }
            let (g, c) = self.noisy_gradient(model, &q, rng, trace);
            grad = g;
            clipped_grads += c;
            for (pi, g) in p.iter_mut().zip(&grad) {
                *pi += 0.5 * s * g;
            }
        }
        let d = distance(theta, &q);
        let sigma = 2.0 * self.multipliers(model.n()).0 * self.clip_ratio * d;
        let noise = sigma * normal(rng);
        let log_u = rng.random::<f64>().ln();
        if !q.iter().chain(&p).all(|x| x.is_finite()) {
            return StepStats {
                clipped_grads,
                diverged: true,
                ..StepStats::default()
            };
        }
        let (lambda, clipped_ratios) =
            model.clipped_ratio_sum(theta, &q, self.clip_ratio * d, scratch);
        trace.extend(q.iter().zip(theta.iter()).map(|(a, b)| a - b));
        trace.push((lambda + noise) / sigma);
        let kinetic = |v: &[f64; D]| 0.5 * v.iter().map(|x| x * x).sum::<f64>();
        let delta_h = kinetic(&p0) - kinetic(&p) + lambda + noise + model.log_prior(&q)
            - model.log_prior(theta);
        let accepted = log_u < delta_h - 0.5 * sigma * sigma;
        if accepted {
            *theta = q;
        }
        StepStats {
            accepted,
            clipped_ratios,
            clipped_grads,
            diverged: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::diagnostics;
    use rand::SeedableRng;

    /// xᵢ ~ N(θ, I₂), prior N(0, 100² I): posterior N(n x̄/(n + 10⁻⁴), 1/(n + 10⁻⁴)).
    use crate::dpmcmc::model::GaussMean2 as GaussMean;

    fn model(n: usize) -> (GaussMean, [f64; 2], f64) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
        let xs: Vec<[f64; 2]> = (0..n)
            .map(|_| [0.5 + normal(&mut rng), -1.0 + normal(&mut rng)])
            .collect();
        let prec = n as f64 + 1e-4;
        let mean = [
            xs.iter().map(|x| x[0]).sum::<f64>() / prec,
            xs.iter().map(|x| x[1]).sum::<f64>() / prec,
        ];
        (
            GaussMean {
                xs,
                prior_precision: 1e-4,
            },
            mean,
            1.0 / prec,
        )
    }

    /// Mean and variance of a chain's coordinate against the exact posterior: the
    /// mean within 5 Monte Carlo standard errors (ESS), the variance within 5
    /// standard errors of a variance estimate, √(2/ESS)·var. Returns the variance ratio.
    fn check(trace: &[f64], mean: f64, var: f64, what: &str) -> f64 {
        let ess = diagnostics::ess(&[trace.to_vec()]);
        let (m, v) = diagnostics::mean_var(trace);
        assert!(ess > 500.0, "{what}: ESS {ess}");
        assert!(
            (m - mean).abs() < 5.0 * (var / ess).sqrt(),
            "{what}: mean {m} vs {mean} (ESS {ess})"
        );
        v / var
    }

    /// With nothing clipped, the penalty chain targets the posterior: mean and
    /// variance agree with the closed form; without the σ²/2 correction (still
    /// private) the chain is too wide by far more than its Monte Carlo error.
    #[test]
    fn penalty_chain_is_exact_and_the_uncorrected_one_is_not() {
        let (m, mean, var) = model(1000);
        let s = Penalty {
            tau: 0.04,
            n_exponent: 0.5,
            proposal_sd: 0.03,
            clip: 10.0,
            corrected: true,
        };
        let run = |s: Penalty| {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
            let mut theta = mean;
            let mut scratch = Vec::new();
            let (mut trace, mut acc) = (Vec::new(), 0);
            for _ in 0..60_000 {
                let st = s.step(&m, &mut theta, &mut scratch, &mut rng);
                assert_eq!(st.clipped_ratios, 0);
                acc += usize::from(st.accepted);
                trace.push(theta[0]);
            }
            (trace, acc as f64 / 60_000.0)
        };
        let (trace, acc) = run(s);
        assert!(acc > 0.1, "acceptance {acc}");
        let ratio = check(&trace, mean[0], var, "penalty");
        let ess = diagnostics::ess(std::slice::from_ref(&trace));
        errln!("penalty: acceptance {acc:.3}, variance ratio {ratio:.4}, ESS {ess:.0}");
        assert!(
            (ratio - 1.0).abs() < 5.0 * (2.0 / ess).sqrt(),
            "variance ratio {ratio}"
        );
        let (broken, _) = run(Penalty {
            corrected: false,
            ..s
        });
        let (_, vb) = diagnostics::mean_var(&broken);
        let ess_b = diagnostics::ess(std::slice::from_ref(&broken));
        errln!(
            "uncorrected: variance ratio {:.4}, ESS {ess_b:.0}",
            vb / var
        );
        assert!(
            vb / var - 1.0 > 5.0 * (2.0 / ess_b).sqrt(),
            "uncorrected variance ratio {}",
            vb / var
        );
    }

    /// DP-HMC with nothing clipped targets the posterior too.
    #[test]
    fn dp_hmc_chain_is_exact() {
        let (m, mean, var) = model(1000);
        let s = DpHmc {
            tau_l: 0.03,
            tau_g: 0.01,
            clip_ratio: 10.0,
            clip_grad: 10.0,
            leapfrog: 5,
            step: 0.02,
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let mut jitter = VanDerCorput::new(&mut rng);
        let mut theta = mean;
        let mut scratch = Vec::new();
        let (mut t0, mut t1, mut acc) = (Vec::new(), Vec::new(), 0);
        for _ in 0..20_000 {
            let st = s.step(&m, &mut theta, jitter.next_value(), &mut scratch, &mut rng);
            assert_eq!(st.clipped_ratios + st.clipped_grads, 0);
            acc += usize::from(st.accepted);
            t0.push(theta[0]);
            t1.push(theta[1]);
        }
        assert!(acc > 2000, "acceptance {acc}/20000");
        for (t, mu, what) in [(&t0, mean[0], "θ₁"), (&t1, mean[1], "θ₂")] {
            let ratio = check(t, mu, var, what);
            let ess = diagnostics::ess(std::slice::from_ref(t));
            errln!(
                "DP-HMC {what}: acceptance {acc}/20000, variance ratio {ratio:.4}, ESS {ess:.0}"
            );
            assert!(
                (ratio - 1.0).abs() < 5.0 * (2.0 / ess).sqrt(),
                "{what}: variance ratio {ratio}"
            );
        }
    }

    /// The events' μ per iteration are the accountant's (`gaussian_pld`).
    #[test]
    fn events_match_the_accountants_mu() {
        use crate::privacy::gaussian_pld::{event_mu, hmc_mu, penalty_mu};
        let p = Penalty {
            tau: 0.17,
            n_exponent: 0.5,
            proposal_sd: 0.06,
            clip: 0.15,
            corrected: true,
        };
        let mu = event_mu(&p.event(100_000)).unwrap();
        assert!((mu / penalty_mu(0.17, 100_000, 0.5) - 1.0).abs() < 1e-12);
        let h = DpHmc {
            tau_l: 0.1,
            tau_g: 0.55,
            clip_ratio: 0.1,
            clip_grad: 0.05,
            leapfrog: 25,
            step: 0.006,
        };
        let mu = event_mu(&h.event(100_000)).unwrap();
        assert!((mu / hmc_mu(0.1, 0.55, 25, 100_000) - 1.0).abs() < 1e-12);
    }

    /// The scrambled van der Corput terms fill [0, 1): the first 2^k of them hit
    /// every cell of width 2^−k exactly once.
    #[test]
    fn van_der_corput_is_stratified() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut v = VanDerCorput::new(&mut rng);
        let mut hit = [0u32; 64];
        for _ in 0..64 {
            let h = v.next_value();
            assert!((0.0..1.0).contains(&h));
            hit[(h * 64.0) as usize] += 1;
        }
        assert!(hit.iter().all(|&c| c == 1), "{hit:?}");
    }
}
