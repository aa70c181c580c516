//! MCMC diagnostics: split-R̂ and effective sample size as in Gelman et al.,
//! Bayesian Data Analysis (3rd ed.) §11.4–11.5 (Geyer's initial monotone sequence),
//! and the two-sample Kolmogorov–Smirnov test.

/// Mean and unbiased variance.
pub fn mean_var(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0).max(1.0);
    (m, v)
}

/// Between- and within-chain variances (B/n and W) of equal-length chains.
fn between_within(chains: &[&[f64]]) -> (f64, f64, f64) {
    let n = chains[0].len() as f64;
    let stats: Vec<(f64, f64)> = chains.iter().map(|c| mean_var(c)).collect();
    let means: Vec<f64> = stats.iter().map(|s| s.0).collect();
    let w = stats.iter().map(|s| s.1).sum::<f64>() / stats.len() as f64;
    let b_over_n = if chains.len() > 1 {
        mean_var(&means).1
    } else {
        0.0
    };
    let var_plus = (n - 1.0) / n * w + b_over_n;
    (b_over_n, w, var_plus)
}

/// Split-R̂: each chain cut in halves, R̂ = √(var⁺/W).
pub fn split_rhat(chains: &[Vec<f64>]) -> f64 {
    let half = chains.iter().map(Vec::len).min().unwrap_or(0) / 2;
    if half < 2 {
        return f64::NAN;
    }
    let parts: Vec<&[f64]> = chains
        .iter()
        .flat_map(|c| [&c[..half], &c[half..2 * half]])
        .collect();
    let (_, w, var_plus) = between_within(&parts);
    if w == 0.0 {
        return if var_plus == 0.0 { 1.0 } else { f64::INFINITY };
    }
    (var_plus / w).sqrt()
}

/// Multi-chain effective sample size (BDA3 eq. 11.7–11.8): autocorrelations
/// ρ̂ₜ = 1 − (W − mean autocovariance at lag t)/var⁺, summed in pairs while the pair
/// sums stay positive, made monotone (Geyer 1992).
pub fn ess(chains: &[Vec<f64>]) -> f64 {
    let n = chains.iter().map(Vec::len).min().unwrap_or(0);
    if n < 4 {
        return f64::NAN;
    }
    let parts: Vec<&[f64]> = chains.iter().map(|c| &c[..n]).collect();
    let (_, w, var_plus) = between_within(&parts);
    let m = parts.len() as f64;
    if var_plus == 0.0 {
        return m * n as f64;
    }
    let centred: Vec<Vec<f64>> = parts
        .iter()
        .map(|c| {
            let mu = c.iter().sum::<f64>() / n as f64;
            c.iter().map(|x| x - mu).collect()
        })
        .collect();
    let acov = |t: usize| -> f64 {
        centred
            .iter()
            .map(|c| (0..n - t).map(|i| c[i] * c[i + t]).sum::<f64>() / n as f64)
            .sum::<f64>()
            / m
    };
    let rho = |t: usize| 1.0 - (w - acov(t)) / var_plus;
    let mut tau = -1.0;
    let mut prev = f64::INFINITY;
    let mut t = 0;
    while t + 1 < n {
        let pair = rho(t) + rho(t + 1);
        if pair <= 0.0 {
            break;
        }
        let pair = pair.min(prev);
        tau += 2.0 * pair;
        prev = pair;
        t += 2;
    }
    m * n as f64 / tau.max(1.0 / (m * n as f64).ln().max(1.0))
}

/// Two-sample Kolmogorov–Smirnov statistic D and its asymptotic p-value
/// Q(√nₑ·D), nₑ = n₁n₂/(n₁ + n₂), Q(λ) = 2 Σₖ (−1)^{k−1} e^{−2k²λ²}.
pub fn ks_two_sample(a: &[f64], b: &[f64]) -> (f64, f64) {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (mut i, mut j, mut d) = (0, 0, 0.0f64);
    while i < a.len() && j < b.len() {
        let x = a[i].min(b[j]);
        while i < a.len() && a[i] <= x {
            i += 1;
        }
        while j < b.len() && b[j] <= x {
            j += 1;
        }
        d = d.max((i as f64 / na - j as f64 / nb).abs());
    }
    let lam = (na * nb / (na + nb)).sqrt() * d;
    let p = if lam < 0.2 {
        1.0
    } else {
        (1..=100)
            .map(|k| {
                let k = k as f64;
                2.0 * (if k as u64 % 2 == 1 { 1.0 } else { -1.0 })
                    * (-2.0 * k * k * lam * lam).exp()
            })
            .sum::<f64>()
            .clamp(0.0, 1.0)
    };
    (d, p)
}

/// Per-coordinate convergence summary of recorded multi-chain draws
/// (`draws[t]` is d × K: iteration t of every chain).
#[derive(Debug, Clone, PartialEq)]
pub struct Convergence {
    pub rhat_max: f64,
    pub ess_min: f64,
    pub ess_median: f64,
    pub mean: Vec<f64>,
    pub var: Vec<f64>,
}

pub fn convergence(draws: &[nalgebra::DMatrix<f64>]) -> Convergence {
    let (d, k) = draws[0].shape();
    let (mut rhat_max, mut esses, mut mean, mut var) = (0.0f64, Vec::new(), Vec::new(), Vec::new());
    for j in 0..d {
        let chains: Vec<Vec<f64>> = (0..k)
            .map(|c| draws.iter().map(|m| m[(j, c)]).collect())
            .collect();
        rhat_max = rhat_max.max(split_rhat(&chains));
        esses.push(ess(&chains));
        let all: Vec<f64> = chains.concat();
        let (m, v) = mean_var(&all);
        mean.push(m);
        var.push(v);
    }
    let mut sorted = esses.clone();
    sorted.sort_by(f64::total_cmp);
    Convergence {
        rhat_max,
        ess_min: sorted[0],
        ess_median: sorted[d / 2],
        mean,
        var,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_distr::{Distribution, StandardNormal};

    fn ar1(phi: f64, n: usize, seed: u64) -> Vec<f64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut x = 0.0;
        (0..n)
            .map(|_| {
                let e: f64 = StandardNormal.sample(&mut rng);
                x = phi * x + (1.0 - phi * phi).sqrt() * e;
                x
            })
            .collect()
    }

    /// An AR(1) chain with coefficient φ has ESS/N = (1 − φ)/(1 + φ).
    #[test]
    fn ess_of_ar1_matches_theory() {
        for phi in [0.0, 0.5, 0.9] {
            let chains: Vec<Vec<f64>> = (0..4).map(|s| ar1(phi, 20_000, s)).collect();
            let want = 80_000.0 * (1.0 - phi) / (1.0 + phi);
            let got = ess(&chains);
            assert!(
                (got / want - 1.0).abs() < 0.15,
                "φ = {phi}: {got} vs {want}"
            );
            assert!((split_rhat(&chains) - 1.0).abs() < 0.01);
        }
        // chains stuck in different places: R̂ far above 1
        let mut shifted: Vec<Vec<f64>> = (0..4).map(|s| ar1(0.5, 1000, s)).collect();
        shifted[0].iter_mut().for_each(|x| *x += 3.0);
        assert!(split_rhat(&shifted) > 1.1);
    }

    #[test]
    fn ks_detects_a_shift_and_accepts_equal_laws() {
        let a = ar1(0.0, 2000, 1);
        let b = ar1(0.0, 2000, 2);
        let (_, p) = ks_two_sample(&a, &b);
        assert!(p > 0.001);
        let c: Vec<f64> = b.iter().map(|x| x + 0.3).collect();
        let (d, p) = ks_two_sample(&a, &c);
        assert!(d > 0.08 && p < 1e-6, "{d} {p}");
        assert_eq!(ks_two_sample(&[1.0, 2.0], &[3.0, 4.0]).0, 1.0);
    }
}
