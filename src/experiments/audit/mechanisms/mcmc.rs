//! The audits of the DP-MCMC samplers: Heikkilä et al.'s subsampled Barker step (exact and statistical, its accept decision), DP-SGLD's step, and the penalty algorithm's and DP-HMC's steps on a linear witness model.

use super::{
    barker_step_epsilon, quadrature, sampled_gaussian, statistical, subsampled_without_replacement,
    worst_order, ChaCha8Rng, Claim, Outcome, PrivateTest, Settings, Stats, SubsetSampler,
};
use crate::dpmcmc::barker;
use rand::RngExt;

/// The Barker audit's set-up: N = 100 records, batch b = 50, N₀ = 10, clip 0.99·√b/N₀,
/// C = 2; every record's ratio is 0 except the last, +10 in D and −10 in D′ (clipped
/// to ±clip: the largest change one record can make).
pub(super) fn barker_setup() -> (PrivateTest, Vec<f64>, Vec<f64>) {
    let (n, b, n0) = (100usize, 50usize, 10.0f64);
    let test = PrivateTest {
        batch: b,
        n0,
        clip: 0.99 * (b as f64).sqrt() / n0,
        c: 2.0,
    };
    let mut d = vec![0.0; n];
    d[n - 1] = 10.0;
    let mut d2 = d.clone();
    d2[n - 1] = -10.0;
    (test, d, d2)
}

/// The claimed per-step RDP (Heikkilä Theorem 2 + Corollary 2) at `order`.
pub(super) fn barker_claim(order: u32, test: &PrivateTest, n: usize) -> f64 {
    let b = test.batch as u64;
    subsampled_without_replacement(order, test.batch as f64 / n as f64, |j| {
        barker_step_epsilon(j, b).unwrap_or(f64::INFINITY)
    })
}

/// Exact audit of one subsampled Barker step: the noisy statistic Δ* + N(0, C − s²)
/// that Theorem 2 accounts for (the decision adds V_cor: post-processing) is, for this
/// witness, a two-component Gaussian mixture — the minibatch holds the last record
/// (probability b/N) or not. Its Rényi divergence is integrated at every order
/// 2 ≤ α < b/5 and compared with the claim; the order with the largest ratio is reported.
pub fn barker_exact() -> Outcome {
    let (test, d, _) = barker_setup();
    let (n, b) = (d.len() as f64, test.batch as f64);
    let q = b / n;
    let r = test.clip;
    // with the record: mean ±r/b, population variance r²(b − 1)/b², s² = N₀² var / b
    let s2 = test.n0 * test.n0 * r * r * (b - 1.0) / (b * b) / b;
    let mu = test.n0 * r / b;
    let ln_n = |x: f64, m: f64, v: f64| {
        -0.5 * (x - m).powi(2) / v - 0.5 * (2.0 * std::f64::consts::PI * v).ln()
    };
    let ln_mix = |x: f64, m: f64| {
        crate::numeric::log_sum_exp(&[
            (1.0 - q).ln() + ln_n(x, 0.0, test.c),
            q.ln() + ln_n(x, m, test.c - s2),
        ])
    };
    let pair = quadrature(-40.0, 40.0, 3200, |x| (1.0, ln_mix(x, mu), ln_mix(x, -mu)));
    worst_order(
        (2..test.batch as u32)
            .take_while(|&a| 5 * a < test.batch as u32)
            .map(|order| {
                let a = order as f64;
                let witness = format!(
                    "N = 100, b = 50, N₀ = 10, clip {r:.4}, C = 2; one record's ratio +clip vs −clip, the rest 0; order {order}"
                );
                let value = pair.renyi(a).max(pair.swapped().renyi(a));
                (a, barker_claim(order, &test, d.len()), value, witness)
            }),
    )
}

/// Statistical audit of one subsampled Barker step, the noisy statistic drawn by
/// privpost's own code (`barker::private_statistic`) on D and D′, scored by the
/// statistic itself (the likelihood ratio is monotone in it), against the claim
/// converted to (ε, δ = 10⁻⁵) at its best order. `uniform` is the broken variant of
/// the follow-up code: the "Gaussian" noise drawn as sd·U(0, 1).
pub fn barker_statistical(uniform: bool, s: &Settings, rng: &mut ChaCha8Rng) -> Outcome {
    let (test, d, d2) = barker_setup();
    let (d, d2) = (LinearRecords(d), LinearRecords(d2));
    let delta = 1e-5;
    let n = d.0.len();
    let (epsilon, order) = barker_claim_dp(&test, n, delta);
    let mut subsets = SubsetSampler::new(n);
    let mut stats = Stats::default();
    let theta = [0.0];
    let prop = [1.0];
    let mut draw = |data: &LinearRecords, rng: &mut ChaCha8Rng| -> f64 {
        if uniform {
            let (delta_star, s2) = barker::minibatch_estimate(
                data,
                &mut subsets,
                &theta,
                &prop,
                &test,
                &mut stats,
                rng,
            )
            .unwrap_or_else(|_| unreachable!("s² < C for this witness"));
            delta_star + (test.c - s2).sqrt() * rng.random::<f64>()
        } else {
            barker::private_statistic(data, &mut subsets, &theta, &prop, &test, &mut stats, rng)
                .unwrap_or_else(|_| unreachable!("s² < C for this witness"))
        }
    };
    let on_d: Vec<f64> = (0..s.draws).map(|_| draw(&d, rng)).collect();
    let on_d2: Vec<f64> = (0..s.draws).map(|_| draw(&d2, rng)).collect();
    let noise = if uniform {
        "noise sd·U(0, 1) (broken: the follow-up code's uniform draw)"
    } else {
        "noise N(0, C − s²)"
    };
    statistical(
        Claim::Approx { epsilon, delta },
        format!(
            "N = 100, b = 50, N₀ = 10, C = 2, one record's ratio +clip vs −clip; {noise}; claim from order {order} (classic conversion)"
        ),
        on_d,
        on_d2,
        s,
    )
}

/// The accept decision itself (the statistic + V_cor > 0, by `barker::private_test`
/// with the stored V_cor for C = 2) audited statistically on the same witness: a
/// binary output, scored 1 for accept. Post-processing of the statistic, so its
/// ε_lcb can only be smaller than the statistic's.
pub fn barker_decision(s: &Settings, rng: &mut ChaCha8Rng) -> Outcome {
    let (test, d, d2) = barker_setup();
    let (d, d2) = (LinearRecords(d), LinearRecords(d2));
    let delta = 1e-5;
    let n = d.0.len();
    let (epsilon, order) = barker_claim_dp(&test, n, delta);
    let vcor = crate::dpmcmc::vcor::VCor::stored(test.c)
        .unwrap_or_else(|| unreachable!("V_cor for C = 2 is stored"));
    let mut subsets = SubsetSampler::new(n);
    let mut stats = Stats::default();
    let mut draw = |data: &LinearRecords, rng: &mut ChaCha8Rng| -> f64 {
        let accept = barker::private_test(
            data,
            &mut subsets,
            &[0.0],
            &[1.0],
            &test,
            &vcor,
            &mut stats,
            rng,
        )
        .unwrap_or_else(|_| unreachable!("s² < C for this witness"));
        f64::from(u8::from(accept))
    };
    let on_d: Vec<f64> = (0..s.draws).map(|_| draw(&d, rng)).collect();
    let on_d2: Vec<f64> = (0..s.draws).map(|_| draw(&d2, rng)).collect();
    statistical(
        Claim::Approx { epsilon, delta },
        format!(
            "N = 100, b = 50, N₀ = 10, C = 2, one record's ratio +clip vs −clip; the accept decision with V_cor; claim from order {order} (classic conversion)"
        ),
        on_d,
        on_d2,
        s,
    )
}

/// The per-step claim as (ε, δ): the classic conversion at the best order 2 ≤ α < b/5.
pub(super) fn barker_claim_dp(test: &PrivateTest, n: usize, delta: f64) -> (f64, u32) {
    let top = (test.batch as u32).div_ceil(5) - 1;
    (2..=top)
        .filter(|&a| 5 * a < test.batch as u32)
        .map(|a| {
            let rdp = barker_claim(a, test, n);
            (
                crate::privacy::event::Conversion::Classic.epsilon(rdp, a as f64, delta),
                a,
            )
        })
        .fold(
            (f64::INFINITY, 0),
            |acc, x| if x.0 < acc.0 { x } else { acc },
        )
}

/// One step of the Poisson-subsampled Gaussian (DP-SGLD/DPVI) at q = 0.01, σ = 1:
/// the output mixture (1 − q)N(0, σ²) + qN(1, σ²) against N(0, σ²), Rényi divergence
/// by quadrature (both directions) at orders 2–32 vs the claimed RDP of Mironov,
/// Talwar and Zhang. `noise_factor` 1/√2 is the broken variant (noise variance h
/// instead of 2h in the authors' DP-SGLD baseline: σ/√2 drawn, σ claimed).
pub fn sgld_step(noise_factor: f64) -> Outcome {
    let (q, sigma) = (0.01f64, 1.0f64);
    let actual = sigma * noise_factor;
    let ln_n = |x: f64, m: f64| {
        -0.5 * ((x - m) / actual).powi(2) - (actual * (2.0 * std::f64::consts::PI).sqrt()).ln()
    };
    let pair = quadrature(-40.0, 80.0, 4800, |x| {
        (
            1.0,
            crate::numeric::log_sum_exp(&[(1.0 - q).ln() + ln_n(x, 0.0), q.ln() + ln_n(x, 1.0)]),
            ln_n(x, 0.0),
        )
    });
    worst_order((2u32..=32).map(|order| {
        let a = order as f64;
        let witness = format!(
            "q = 0.01, σ = 1 claimed, noise sd {actual:.4} drawn; a record with gradient 1 present vs absent; order {order}"
        );
        let value = pair.renyi(a).max(pair.swapped().renyi(a));
        (a, sampled_gaussian(order, q, sigma), value, witness)
    }))
}

/// The witness model of the Barker, penalty and DP-HMC audits: ln p(x | θ) = x·θ,
/// flat prior, so a record's ratio for θ → θ′ is x(θ′ − θ) (its value x for θ = 0 →
/// θ′ = 1) and its gradient x (both then clipped).
pub(super) struct LinearRecords(pub(super) Vec<f64>);

impl crate::dpmcmc::model::RecordModel<1> for LinearRecords {
    fn n(&self) -> usize {
        self.0.len()
    }
    fn log_lik_ratios(&self, from: &[f64; 1], to: &[f64; 1], out: &mut [f64]) {
        for (r, x) in out.iter_mut().zip(&self.0) {
            *r = x * (to[0] - from[0]);
        }
    }
    fn batch_log_lik_ratios(
        &self,
        batch: &[usize],
        from: &[f64; 1],
        to: &[f64; 1],
        out: &mut [f64],
    ) {
        for (r, &i) in out.iter_mut().zip(batch) {
            *r = self.0[i] * (to[0] - from[0]);
        }
    }
    fn for_each_grad(&self, _: &[f64; 1], f: &mut dyn FnMut(&[f64; 1])) {
        self.0.iter().for_each(|&x| f(&[x]));
    }
    fn batch_grads(&self, _: &[f64; 1], batch: &[usize], f: &mut dyn FnMut(&[f64; 1])) {
        batch.iter().for_each(|&i| f(&[self.0[i]]));
    }
    fn log_prior(&self, _: &[f64; 1]) -> f64 {
        0.0
    }
    fn grad_log_prior(&self, _: &[f64; 1]) -> [f64; 1] {
        [0.0]
    }
}

/// n = 100 records, all 0 but the last (`last` in D, `last2` in D′).
pub(super) fn linear_pair(last: f64, last2: f64) -> (LinearRecords, LinearRecords) {
    let mut d = vec![0.0; 100];
    d[99] = last;
    let mut d2 = d.clone();
    d2[99] = last2;
    (LinearRecords(d), LinearRecords(d2))
}

/// Claimed (ε, δ = 10⁻⁵) of a Gaussian-composition event (closed-form tight PLD).
pub(super) fn gaussian_claim(event: &crate::privacy::event::Event) -> Claim {
    let delta = 1e-5;
    let mu = crate::privacy::gaussian_pld::event_mu(event)
        .unwrap_or_else(|| unreachable!("the samplers' events are Gaussian compositions"));
    Claim::Approx {
        epsilon: crate::privacy::gaussian_pld::epsilon(delta, mu),
        delta,
    }
}

/// Statistical audit of one penalty-algorithm release (Yildirim & Ermis 2019), drawn
/// by privpost's own `Penalty::noisy_ratio` for θ = 0 → θ′ = 1 on D and D′, scored by
/// the release (the likelihood ratio is monotone in it), against the tight (ε, 10⁻⁵)
/// of its Gaussian event. τ = 0.1, n = 100 (σ/Δ = 1), clip b = 1. Witness: the last
/// record's ratio +10 vs −10 (clipped to ±b: the largest change). `data_noise` is the
/// broken variant: σ from this data's largest |rᵢ| instead of the clip bound, with
/// the last record +10 vs 0 (D′ then gets no noise at all).
pub fn penalty_step(data_noise: bool, s: &Settings, rng: &mut ChaCha8Rng) -> Outcome {
    use crate::dpmcmc::exact_mh::Penalty;
    let p = Penalty {
        tau: 0.1,
        n_exponent: 0.5,
        proposal_sd: 1.0,
        clip: 1.0,
        corrected: true,
    };
    let (d, d2) = linear_pair(10.0, if data_noise { 0.0 } else { -10.0 });
    let claim = gaussian_claim(&p.event(100));
    let mut scratch = Vec::new();
    let mut draw = |m: &LinearRecords, rng: &mut ChaCha8Rng| {
        p.noisy_ratio(m, &[0.0], &[1.0], &mut scratch, rng, data_noise)
            .0
    };
    let on_d: Vec<f64> = (0..s.draws).map(|_| draw(&d, rng)).collect();
    let on_d2: Vec<f64> = (0..s.draws).map(|_| draw(&d2, rng)).collect();
    let witness = if data_noise {
        "τ = 0.1, n = 100, b = 1, θ = 0 → 1; last record's ratio +10 vs 0; σ from the data's largest |r| (broken)"
    } else {
        "τ = 0.1, n = 100, b = 1, θ = 0 → 1; last record's ratio +10 vs −10 (clipped to ±1); σ = τ√n·2b|Δθ|"
    };
    statistical(claim, witness.into(), on_d, on_d2, s)
}

/// Statistical audit of one whole DP-HMC iteration (Räisä et al. 2021), run by
/// privpost's own `DpHmc::step_traced` from θ = 0 on D and D′ (n = 100, L = 3,
/// τ_l = τ_g = √0.05, so each of the L + 2 releases has μ = 0.1). Witness: the last
/// record +10 vs −10, so every gradient sum moves by 2b_g and the ratio by
/// 2b_l|Δθ|, whatever the trajectory. Score: the likelihood-ratio statistic of the
/// releases, Σ (gradient release)/τ_g + sign(Δθ)·(ratio release)/τ_l.
pub fn dp_hmc_step(s: &Settings, rng: &mut ChaCha8Rng) -> Outcome {
    use crate::dpmcmc::exact_mh::DpHmc;
    let tau = 0.05f64.sqrt();
    let h = DpHmc {
        tau_l: tau,
        tau_g: tau,
        clip_ratio: 1.0,
        clip_grad: 1.0,
        leapfrog: 3,
        step: 0.1,
    };
    let (d, d2) = linear_pair(10.0, -10.0);
    let claim = gaussian_claim(&h.event(100));
    let mut scratch = Vec::new();
    let mut trace = Vec::new();
    let mut draw = |m: &LinearRecords, rng: &mut ChaCha8Rng| -> f64 {
        trace.clear();
        let mut theta = [0.0];
        h.step_traced(m, &mut theta, 1.0, &mut scratch, rng, &mut trace);
        let l = h.leapfrog + 1;
        let score: f64 = trace[..l].iter().sum::<f64>() / tau;
        match (trace.get(l), trace.get(l + 1)) {
            // the ratio release moves by sign(Δθ)/(τ_l√n) between D and D′
            (Some(&step), Some(&ratio)) => score + step.signum() * ratio / tau,
            _ => score,
        }
    };
    let on_d: Vec<f64> = (0..s.draws).map(|_| draw(&d, rng)).collect();
    let on_d2: Vec<f64> = (0..s.draws).map(|_| draw(&d2, rng)).collect();
    statistical(
        claim,
        "n = 100, L = 3, τ_l = τ_g = √0.05 (μ = 0.1 per release), b_l = b_g = 1, θ = 0; last record +10 vs −10".into(),
        on_d,
        on_d2,
        s,
    )
}
