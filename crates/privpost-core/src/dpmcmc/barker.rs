//! Metropolis chains with Barker's acceptance test (heikkila2019 §2.2, §3.3).
//!
//! Barker's test accepts θ′ with probability σ(Δ) = 1/(1 + e^{−Δ}), where Δ is the
//! log ratio of the (tempered) target: equivalently Δ + V_log > 0 with V_log
//! logistic (eq. 5). The private subsampled version (eq. 18) replaces Δ by the
//! minibatch estimate Δ* and V_log by N(0, C − s²) + V_cor, where s² estimates
//! the variance of Δ*, so that the total noise is ≈ N(0, C) + V_cor ≈ V_log.

use rand::Rng;
#[cfg(test)]
use rand::RngExt;
use rand_distr::{Distribution, Normal};

use super::model::{ClippedSums, RecordModel};
use super::vcor::VCor;

/// Settings of the private subsampled test (defaults: the paper's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrivateTest {
    /// minibatch size b (without replacement)
    pub batch: usize,
    /// tempering: log-likelihoods scaled by τ = N₀/N
    pub n0: f64,
    /// per-example |log-likelihood ratio| bound (0.99·√b/N₀ in the paper)
    pub clip: f64,
    /// total noise variance C
    pub c: f64,
}

impl PrivateTest {
    /// The paper's set-up: b = 1000, N₀ = 100, clip 0.99·√b/N₀, C = 2.
    pub fn paper() -> Self {
        Self {
            batch: 1000,
            n0: 100.0,
            clip: 0.99 * 1000f64.sqrt() / 100.0,
            c: 2.0,
        }
    }
}

/// Uniform random subsets of {0, …, n−1} without replacement, by rejection
/// against a bitset (expected b(1 + b/2n) draws for a subset of size b, each index by
/// [`crate::rng::index_below`]): uniform up to the bias of rand's Canon method (of
/// order n/2⁶⁴ per index), O(b) per call, n/8 bytes of state, cleared after each call. A second
/// level (one bit per nonzero word) lists the subset in ascending order in
/// O(b + n/4096) without a sort.
#[derive(Debug, Clone)]
pub struct SubsetSampler {
    n: usize,
    bits: Vec<u64>,
    /// bit w set iff `bits[w]` ≠ 0
    words: Vec<u64>,
    chosen: Vec<usize>,
    /// the log-likelihood ratios of the last minibatch
    ratios: Vec<f64>,
}

impl SubsetSampler {
    pub fn new(n: usize) -> Self {
        let words = n.div_ceil(64);
        Self {
            n,
            bits: vec![0; words],
            words: vec![0; words.div_ceil(64)],
            chosen: Vec::new(),
            ratios: Vec::new(),
        }
    }

    /// b distinct indices in the order drawn (b ≤ n/2 keeps rejection cheap; larger
    /// b still works).
    pub fn sample<R: Rng + ?Sized>(&mut self, b: usize, rng: &mut R) -> &[usize] {
        self.draw(b, rng, |_| {});
        for &i in &self.chosen {
            self.bits[i / 64] = 0;
            self.words[i / 4096] = 0;
        }
        &self.chosen
    }

    /// Draws b distinct indices into the bitsets and `chosen`, calling `fresh(i)` on
    /// each as it is drawn; the caller clears the bitsets.
    fn draw<R: Rng + ?Sized>(&mut self, b: usize, rng: &mut R, mut fresh: impl FnMut(usize)) {
        self.chosen.clear();
        while self.chosen.len() < b.min(self.n) {
            let i = crate::rng::index_below(rng, self.n);
            let (word, bit) = (i / 64, 1u64 << (i % 64));
            if self.bits[word] & bit == 0 {
                self.bits[word] |= bit;
                self.words[word / 64] |= 1u64 << (word % 64);
                self.chosen.push(i);
                fresh(i);
            }
        }
    }

    /// A fresh random subset of b indices in ascending order, calling `fresh(i)` on
    /// each index as it is drawn (a model prefetches record i there, so the memory
    /// reads overlap the drawing and the arithmetic that follows runs on cached data).
    pub fn sorted<R: Rng + ?Sized>(
        &mut self,
        b: usize,
        rng: &mut R,
        fresh: impl FnMut(usize),
    ) -> &[usize] {
        self.draw(b, rng, fresh);
        // the subset in ascending order, read off the two bitset levels (clearing them)
        self.chosen.clear();
        for (top, summary) in self.words.iter_mut().enumerate() {
            let mut nonzero = std::mem::take(summary);
            while nonzero != 0 {
                let word = top * 64 + nonzero.trailing_zeros() as usize;
                nonzero &= nonzero - 1;
                let mut w = std::mem::take(&mut self.bits[word]);
                while w != 0 {
                    self.chosen.push(word * 64 + w.trailing_zeros() as usize);
                    w &= w - 1;
                }
            }
        }
        &self.chosen
    }
}

/// Why a step could not be taken.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ChainError {
    #[error("minibatch variance s² = {s2} ≥ C = {c}: the noise N(0, C − s²) does not exist; raise C, lower N₀ or the proposal variance")]
    VarianceTooLarge { s2: f64, c: f64 },
    #[error("batch {batch} is larger than the data ({n})")]
    BatchTooLarge { batch: usize, n: usize },
    #[error("proposal sd = {sd}: must be finite and ≥ 0")]
    Proposal { sd: f64 },
}

/// The random-walk proposal N(0, sd²) per coordinate.
fn proposal(sd: f64) -> Result<Normal<f64>, ChainError> {
    Normal::new(0.0, sd).map_err(|_| ChainError::Proposal { sd })
}

/// Counters of a chain.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stats {
    pub steps: u64,
    pub accepted: u64,
    pub clipped: u64,
    pub ratios: u64,
    pub max_s2: f64,
}

/// One step of the private subsampled Barker chain (eq. 18): a Gaussian random-walk
/// proposal, then [`private_test`]. Returns whether θ moved.
#[allow(clippy::too_many_arguments)]
pub fn private_step<const D: usize, M: RecordModel<D>, R: Rng + ?Sized>(
    model: &M,
    subsets: &mut SubsetSampler,
    theta: &mut [f64; D],
    proposal_sd: f64,
    test: &PrivateTest,
    vcor: &VCor,
    stats: &mut Stats,
    rng: &mut R,
) -> Result<bool, ChainError> {
    let step = proposal(proposal_sd)?;
    let mut prop = *theta;
    for p in prop.iter_mut() {
        *p += step.sample(rng);
    }
    let accept = private_test(model, subsets, theta, &prop, test, vcor, stats, rng)?;
    if accept {
        *theta = prop;
    }
    Ok(accept)
}

/// The private acceptance decision for θ → θ′ (eq. 18): accept iff
/// [`private_statistic`] + V_cor > 0. An error if s² ≥ C.
#[allow(clippy::too_many_arguments)]
pub fn private_test<const D: usize, M: RecordModel<D>, R: Rng + ?Sized>(
    model: &M,
    subsets: &mut SubsetSampler,
    theta: &[f64; D],
    prop: &[f64; D],
    test: &PrivateTest,
    vcor: &VCor,
    stats: &mut Stats,
    rng: &mut R,
) -> Result<bool, ChainError> {
    let z = private_statistic(model, subsets, theta, prop, test, stats, rng)?;
    let accept = z + vcor.sample(rng) > 0.0;
    if accept {
        stats.accepted += 1;
    }
    Ok(accept)
}

/// The noisy statistic of the private test (eq. 18), the part Theorem 2 accounts
/// for (the decision adds V_cor, post-processing): a minibatch of b ratios
/// rᵢ = ln p(xᵢ|θ′) − ln p(xᵢ|θ) drawn without replacement, each clipped to
/// |rᵢ| ≤ clip; Δ* = N₀·mean(r) + ln p(θ′) − ln p(θ); s² = N₀²·Var_pop(r)/b;
/// returns Δ* + N(0, C − s²). An error if s² ≥ C.
#[allow(clippy::too_many_arguments)]
pub fn private_statistic<const D: usize, M: RecordModel<D>, R: Rng + ?Sized>(
    model: &M,
    subsets: &mut SubsetSampler,
    theta: &[f64; D],
    prop: &[f64; D],
    test: &PrivateTest,
    stats: &mut Stats,
    rng: &mut R,
) -> Result<f64, ChainError> {
    let (delta, s2) = minibatch_estimate(model, subsets, theta, prop, test, stats, rng)?;
    let noise = Normal::new(0.0, (test.c - s2).sqrt())
        .map_err(|_| ChainError::VarianceTooLarge { s2, c: test.c })?
        .sample(rng);
    Ok(delta + noise)
}

/// (Δ*, s²) of a fresh minibatch (see [`private_statistic`]); an error if s² ≥ C.
#[allow(clippy::too_many_arguments)]
pub fn minibatch_estimate<const D: usize, M: RecordModel<D>, R: Rng + ?Sized>(
    model: &M,
    subsets: &mut SubsetSampler,
    theta: &[f64; D],
    prop: &[f64; D],
    test: &PrivateTest,
    stats: &mut Stats,
    rng: &mut R,
) -> Result<(f64, f64), ChainError> {
    if test.batch > model.n() {
        return Err(ChainError::BatchTooLarge {
            batch: test.batch,
            n: model.n(),
        });
    }
    subsets.sorted(test.batch, rng, |i| model.prefetch(i));
    let ClippedSums {
        sum,
        sum_sq,
        clipped,
    } = model.batch_clipped_ratio_sums(
        &subsets.chosen,
        theta,
        prop,
        test.clip,
        &mut subsets.ratios,
    );
    stats.clipped += clipped;
    let b = test.batch as f64;
    let mean = sum / b;
    let var_pop = (sum_sq / b - mean * mean).max(0.0);
    let delta = test.n0 * mean + model.log_prior(prop) - model.log_prior(theta);
    let s2 = test.n0 * test.n0 * var_pop / b;
    stats.max_s2 = stats.max_s2.max(s2);
    stats.ratios += test.batch as u64;
    stats.steps += 1;
    // written so that a NaN s² (e.g. N₀² overflowing) fails the test too
    if s2.is_nan() || s2 >= test.c {
        return Err(ChainError::VarianceTooLarge { s2, c: test.c });
    }
    Ok((delta, s2))
}

/// The non-private minibatch Barker test of the authors' reference chain: C = 1,
/// no clipping, and while s² ≥ C the minibatch is redrawn 100 points larger
/// (the authors add 100 points to the failed batch; we redraw the larger batch,
/// which avoids conditioning on the failure). Returns whether θ moved.
#[allow(clippy::too_many_arguments)]
pub fn nonprivate_step<const D: usize, M: RecordModel<D>, R: Rng + ?Sized>(
    model: &M,
    subsets: &mut SubsetSampler,
    theta: &mut [f64; D],
    proposal_sd: f64,
    batch: usize,
    n0: f64,
    vcor: &VCor,
    stats: &mut Stats,
    rng: &mut R,
) -> Result<bool, ChainError> {
    let step = proposal(proposal_sd)?;
    let mut prop = *theta;
    for p in prop.iter_mut() {
        *p += step.sample(rng);
    }
    let mut b = batch;
    loop {
        let test = PrivateTest {
            batch: b.min(model.n()),
            n0,
            clip: f64::INFINITY,
            c: vcor.c,
        };
        match private_test(model, subsets, theta, &prop, &test, vcor, stats, rng) {
            Ok(accept) => {
                if accept {
                    *theta = prop;
                }
                return Ok(accept);
            }
            Err(ChainError::VarianceTooLarge { .. }) if b < model.n() => {
                stats.steps -= 1; // the retry is part of the same step
                b += 100;
            }
            Err(e) => return Err(e),
        }
    }
}

/// The full-data private test (heikkila2019 §3.2, eq. 9): the tempered
/// log-likelihood ratios rᵢ are clipped to |τ rᵢ| ≤ B, Δ = Σᵢ τ rᵢ + prior ratio,
/// and θ′ is accepted iff Δ + N(0, C) + V_cor > 0. Each decision is
/// (α, 2αB²/C)-RDP (Theorem 1, [`crate::privacy::rdp::full_data_step_epsilon`]).
#[allow(clippy::too_many_arguments)]
#[cfg(test)]
pub fn full_data_private_test<const D: usize, M: RecordModel<D>, R: Rng + ?Sized>(
    model: &M,
    tau: f64,
    bound: f64,
    theta: &[f64; D],
    prop: &[f64; D],
    vcor: &VCor,
    stats: &mut Stats,
    rng: &mut R,
) -> bool {
    let mut delta = model.log_prior(prop) - model.log_prior(theta);
    let mut ratios = vec![0.0; model.n()];
    model.log_lik_ratios(theta, prop, &mut ratios);
    for r in ratios {
        let r = tau * r;
        if r.abs() > bound {
            stats.clipped += 1;
        }
        delta += r.clamp(-bound, bound);
    }
    stats.ratios += model.n() as u64;
    stats.steps += 1;
    let noise = Normal::new(0.0, vcor.c.sqrt())
        .unwrap_or_else(|_| unreachable!())
        .sample(rng);
    let accept = delta + noise + vcor.sample(rng) > 0.0;
    if accept {
        stats.accepted += 1;
    }
    accept
}

/// One step of the exact full-data Barker chain (eq. 5) on the target tempered by τ.
#[cfg(test)]
pub fn exact_step<const D: usize, M: RecordModel<D>, R: Rng + ?Sized>(
    model: &M,
    tau: f64,
    theta: &mut [f64; D],
    proposal_sd: f64,
    stats: &mut Stats,
    rng: &mut R,
) -> Result<bool, ChainError> {
    let step = proposal(proposal_sd)?;
    let mut prop = *theta;
    for p in prop.iter_mut() {
        *p += step.sample(rng);
    }
    let mut ratios = vec![0.0; model.n()];
    model.log_lik_ratios(theta, &prop, &mut ratios);
    let ll: f64 = ratios.iter().sum();
    let delta = tau * ll + model.log_prior(&prop) - model.log_prior(theta);
    stats.steps += 1;
    // Δ + V_log > 0 with V_log = ln(u/(1−u)) logistic
    let u: f64 = rng.random();
    let accept = delta + (u / (1.0 - u)).ln() > 0.0;
    if accept {
        *theta = prop;
        stats.accepted += 1;
    }
    Ok(accept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dpmcmc::gmm::{log_lik, Gmm};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn exact_barker_chain_targets_the_posterior() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let data: Vec<f64> = (0..200)
            .map(|_| 1.5 + Normal::new(0.0, 1.0).unwrap().sample(&mut rng))
            .collect();
        // posterior precision 1/10 + n, mean Σx / precision
        let precision = 0.1 + data.len() as f64;
        let (post_mean, post_var) = (data.iter().sum::<f64>() / precision, 1.0 / precision);
        let model = crate::dpmcmc::model::NormalMean {
            data,
            tau: 1.0,
            prior_var: 10.0,
        };
        let (mut theta, mut stats) = ([0.0], Stats::default());
        let (mut s, mut ss, mut n) = (0.0, 0.0, 0.0);
        for i in 0..200_000 {
            exact_step(&model, 1.0, &mut theta, 0.1, &mut stats, &mut rng).unwrap();
            if i >= 2000 {
                s += theta[0];
                ss += theta[0] * theta[0];
                n += 1.0;
            }
        }
        let (mean, var) = (s / n, ss / n - (s / n).powi(2));
        // tolerances: a few Monte-Carlo standard errors of a correlated chain
        assert!(
            (mean - post_mean).abs() < 0.05 * post_var.sqrt(),
            "mean {mean} vs {post_mean}"
        );
        assert!(
            (var / post_var - 1.0).abs() < 0.05,
            "var {var} vs {post_var}"
        );
    }

    /// A NaN s² (N₀² overflowing to inf, times a zero variance) is refused as
    /// too large, never passed on to the noise.
    #[test]
    fn nan_variance_is_refused_not_a_panic() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let data = super::super::gmm::generate(1000, &mut rng);
        let vcor = VCor::stored(2.0).unwrap();
        let test = PrivateTest {
            batch: 100,
            n0: 1e308,
            clip: 0.0,
            c: 2.0,
        };
        let mut subsets = SubsetSampler::new(data.len());
        let r = private_test(
            &Gmm::untempered(&data),
            &mut subsets,
            &[0.3, 0.4],
            &[0.31, 0.4],
            &test,
            &vcor,
            &mut Stats::default(),
            &mut rng,
        );
        assert!(
            matches!(r, Err(ChainError::VarianceTooLarge { s2, .. }) if s2.is_nan()),
            "{r:?}"
        );
    }

    /// For a fixed (θ, θ′), the private test accepts with probability ≈ σ(Δ), the
    /// exact Barker probability (CLT for Δ* + the V_cor decomposition).
    #[test]
    fn private_acceptance_matches_the_exact_test() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let data = super::super::gmm::generate(100_000, &mut rng);
        let vcor = VCor::stored(2.0).unwrap();
        let test = PrivateTest {
            batch: 1000,
            n0: 100.0,
            clip: f64::INFINITY,
            c: 2.0,
        };
        let tau = test.n0 / data.len() as f64;
        for (from, to) in [
            ([0.3, 0.4], [0.32, 0.37]),
            ([0.3, 0.4], [0.5, 0.1]),
            ([0.6, -0.3], [0.55, -0.2]),
        ] {
            let exact_delta: f64 = tau
                * data
                    .iter()
                    .map(|&x| log_lik(x, to) - log_lik(x, from))
                    .sum::<f64>()
                + super::super::gmm::log_prior(to)
                - super::super::gmm::log_prior(from);
            let want = 1.0 / (1.0 + (-exact_delta).exp());
            let trials = 20_000;
            let mut stats = Stats::default();
            let mut subsets = SubsetSampler::new(data.len());
            let mut hits = 0;
            for _ in 0..trials {
                if private_test(
                    &Gmm::untempered(&data),
                    &mut subsets,
                    &from,
                    &to,
                    &test,
                    &vcor,
                    &mut stats,
                    &mut rng,
                )
                .unwrap()
                {
                    hits += 1;
                }
            }
            let got = hits as f64 / trials as f64;
            let se = (want * (1.0 - want) / trials as f64).sqrt();
            assert!(
                (got - want).abs() < 4.0 * se + 0.01,
                "Δ = {exact_delta}: accept {got} vs σ(Δ) = {want}"
            );
        }
    }

    /// The full-data private test (eq. 9) accepts with probability ≈ σ(Δ) when no
    /// ratio is clipped (N(0, C) + V_cor ≈ logistic).
    #[test]
    fn full_data_private_test_matches_barker() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let data = super::super::gmm::generate(2000, &mut rng);
        let vcor = VCor::stored(2.0).unwrap();
        let tau = 0.05;
        let (from, to) = ([0.3, 0.4], [0.45, 0.2]);
        let delta: f64 = tau
            * data
                .iter()
                .map(|&x| log_lik(x, to) - log_lik(x, from))
                .sum::<f64>()
            + super::super::gmm::log_prior(to)
            - super::super::gmm::log_prior(from);
        let want = 1.0 / (1.0 + (-delta).exp());
        let mut stats = Stats::default();
        let trials = 20_000;
        let hits = (0..trials)
            .filter(|_| {
                full_data_private_test(
                    &Gmm::untempered(&data),
                    tau,
                    1.0,
                    &from,
                    &to,
                    &vcor,
                    &mut stats,
                    &mut rng,
                )
            })
            .count();
        assert_eq!(stats.clipped, 0);
        let got = hits as f64 / trials as f64;
        assert!(
            (got - want).abs() < 4.0 * (want * (1.0 - want) / trials as f64).sqrt() + 0.01,
            "{got} vs σ(Δ) = {want}"
        );
    }

    /// `sorted` lists the subset `sample` would draw from the same stream, in
    /// ascending order (as a sort gives it), for every size and spread, and leaves
    /// the bitsets clear for the next call.
    #[test]
    fn sorted_is_the_drawn_subset_in_ascending_order() {
        for (b, n) in [
            (0, 1),
            (1, 5),
            (63, 100),
            (64, 64),
            (1000, 1_000_000),
            (5000, 7000),
            (300, 5_000_000),
        ] {
            let (mut s1, mut s2) = (SubsetSampler::new(n), SubsetSampler::new(n));
            let (mut r1, mut r2) = (
                ChaCha8Rng::seed_from_u64(b as u64),
                ChaCha8Rng::seed_from_u64(b as u64),
            );
            for _ in 0..3 {
                let mut want = s1.sample(b, &mut r1).to_vec();
                want.sort();
                let mut seen = Vec::new();
                let got = s2.sorted(b, &mut r2, |i| seen.push(i));
                assert_eq!(got, &want[..], "b {b}, n {n}");
                seen.sort();
                assert_eq!(seen, want, "every index is offered to prefetch once");
            }
            assert!(s2.bits.iter().chain(&s2.words).all(|&w| w == 0));
        }
    }

    #[test]
    fn subsets_are_distinct_and_uniform() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut s = SubsetSampler::new(10);
        let mut counts = [0usize; 10];
        for _ in 0..20_000 {
            let pick = s.sample(3, &mut rng).to_vec();
            let mut sorted = pick.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), 3);
            pick.iter().for_each(|&i| counts[i] += 1);
        }
        // each index is in a subset with probability 3/10: 6000 ± 4 sd (sd ≈ 65)
        assert!(
            counts.iter().all(|&c| (c as f64 - 6000.0).abs() < 260.0),
            "{counts:?}"
        );
        assert_eq!(s.sample(10, &mut rng).len(), 10);
    }

    #[test]
    fn private_chain_runs_on_the_paper_problem_within_its_assumptions() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let data = super::super::gmm::generate(1_000_000, &mut rng);
        let vcor = VCor::stored(2.0).unwrap();
        let test = PrivateTest::paper();
        let (mut theta, mut stats) = ([0.5, 0.0], Stats::default());
        let mut subsets = SubsetSampler::new(data.len());
        for _ in 0..2000 {
            private_step(
                &Gmm::untempered(&data),
                &mut subsets,
                &mut theta,
                0.1,
                &test,
                &vcor,
                &mut stats,
                &mut rng,
            )
            .unwrap();
        }
        assert!(stats.max_s2 < 1.0, "s² reached {}", stats.max_s2); // paper: max 0.63
        let clipped = stats.clipped as f64 / stats.ratios as f64;
        assert!(clipped < 0.05, "clipped fraction {clipped}");
        let acc = stats.accepted as f64 / stats.steps as f64;
        assert!(acc > 0.2 && acc < 0.8, "acceptance {acc}");
        // a batch larger than the data, or C below s², is an error, not a silent fallback
        let big = PrivateTest {
            batch: 2_000_000,
            ..test
        };
        assert!(matches!(
            private_step(
                &Gmm::untempered(&data),
                &mut subsets,
                &mut theta,
                0.1,
                &big,
                &vcor,
                &mut stats,
                &mut rng
            ),
            Err(ChainError::BatchTooLarge { .. })
        ));
        let tiny_c = PrivateTest { c: 1e-9, ..test };
        let mut saw = false;
        for _ in 0..20 {
            if let Err(ChainError::VarianceTooLarge { .. }) = private_step(
                &Gmm::untempered(&data),
                &mut subsets,
                &mut theta,
                0.1,
                &tiny_c,
                &vcor,
                &mut stats,
                &mut rng,
            ) {
                saw = true;
                break;
            }
        }
        assert!(saw);
    }
}
