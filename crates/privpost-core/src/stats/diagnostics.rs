//! MCMC diagnostics: split-R̂ and effective sample size as in Gelman et al.,
//! Bayesian Data Analysis (3rd ed.) §11.4–11.5 (Geyer's initial monotone sequence);
//! the rank-normalised split-R̂, bulk-ESS and tail-ESS of Vehtari et al. (2021), as
//! Stan and ArviZ compute them ([`rank_diagnostics`]); and the two-sample
//! Kolmogorov–Smirnov test.

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

/// The mean over equal-length chains of the biased autocovariance at lag t,
/// (1/n) Σᵢ (xᵢ − x̄)(xᵢ₊ₜ − x̄), summed directly.
struct Autocov {
    centred: Vec<Vec<f64>>,
}

impl Autocov {
    fn new<C: AsRef<[f64]>>(chains: &[C]) -> Self {
        let centred = chains
            .iter()
            .map(|c| {
                let c = c.as_ref();
                let mu = c.iter().sum::<f64>() / c.len() as f64;
                c.iter().map(|x| x - mu).collect()
            })
            .collect();
        Autocov { centred }
    }

    fn at(&self, t: usize) -> f64 {
        self.centred
            .iter()
            .map(|c| {
                let n = c.len();
                (0..n - t).map(|i| c[i] * c[i + t]).sum::<f64>() / n as f64
            })
            .sum::<f64>()
            / self.centred.len() as f64
    }
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
    let acov = Autocov::new(&parts);
    let rho = |t: usize| 1.0 - (w - acov.at(t)) / var_plus;
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

/// The convergence diagnostics of Vehtari, Gelman, Simpson, Carpenter & Bürkner
/// (2021), "Rank-normalization, folding, and localization: an improved R̂ for
/// assessing convergence of MCMC", Bayesian Analysis 16(2):667–718, computed as
/// Stan's `posterior` package and ArviZ 0.22 compute them (checked against ArviZ in
/// `tests/reference/vehtari_diagnostics.{py,csv}`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankDiagnostics {
    /// max of the rank-normalised split-R̂ and the folded one (§4.2, eq. 4.3);
    /// `None` with fewer than two chains
    pub rhat: Option<f64>,
    /// bulk-ESS: the ESS of the rank-normalised split chains (§4.1)
    pub ess_bulk: f64,
    /// tail-ESS: the smaller ESS of the 5% and 95% quantile indicators (§4.3)
    pub ess_tail: f64,
}

/// R̂, bulk-ESS and tail-ESS of `chains` (chains × draws; the chains are cut to
/// the shortest). `None` when a chain has fewer than 4 draws or a value is not
/// finite.
pub fn rank_diagnostics(chains: &[Vec<f64>]) -> Option<RankDiagnostics> {
    let n = chains.iter().map(Vec::len).min()?;
    if n < 4 || chains.iter().flatten().any(|x| !x.is_finite()) {
        return None;
    }
    let chains: Vec<&[f64]> = chains.iter().map(|c| &c[..n]).collect();
    let split = split_halves(&chains);
    let ess_bulk = ess_basic(&z_scale(&split));
    // tail: indicators of the pooled 5% and 95% quantiles (type 7), split
    let pooled: Vec<f64> = chains.iter().flat_map(|c| c.iter().copied()).collect();
    let ess_tail = [0.05, 0.95]
        .iter()
        .map(|&p| {
            let q = quantile_type7(&pooled, p);
            let ind: Vec<Vec<f64>> = chains
                .iter()
                .map(|c| c.iter().map(|&x| f64::from(u8::from(x <= q))).collect())
                .collect();
            let ind: Vec<&[f64]> = ind.iter().map(Vec::as_slice).collect();
            ess_basic(&split_halves(&ind))
        })
        .fold(f64::INFINITY, f64::min);
    let rhat = (chains.len() >= 2).then(|| {
        let bulk = rhat_basic(&z_scale(&split));
        let all: Vec<f64> = split.iter().flatten().copied().collect();
        let median = quantile_type7(&all, 0.5);
        let folded: Vec<Vec<f64>> = split
            .iter()
            .map(|c| c.iter().map(|x| (x - median).abs()).collect())
            .collect();
        bulk.max(rhat_basic(&z_scale(&folded)))
    });
    Some(RankDiagnostics {
        rhat,
        ess_bulk,
        ess_tail,
    })
}

/// Each chain's first and last ⌊n/2⌋ draws as two chains (the middle draw of an
/// odd-length chain is dropped).
fn split_halves(chains: &[&[f64]]) -> Vec<Vec<f64>> {
    let n = chains[0].len();
    let half = n / 2;
    chains
        .iter()
        .map(|c| c[..half].to_vec())
        .chain(chains.iter().map(|c| c[n - half..].to_vec()))
        .collect()
}

/// Rank normalisation (eq. 4.1): pooled ranks r (ties get their average rank),
/// z = Φ⁻¹((r − 3/8)/(S + 1/4)) with S the number of draws (Blom 1958).
fn z_scale(chains: &[Vec<f64>]) -> Vec<Vec<f64>> {
    use statrs::distribution::{ContinuousCDF, Normal};
    let values: Vec<f64> = chains.iter().flatten().copied().collect();
    let s = values.len();
    let mut order: Vec<usize> = (0..s).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut rank = vec![0.0; s];
    let mut i = 0;
    while i < s {
        let mut j = i;
        while j + 1 < s && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        // positions i..=j (0-based) share the average 1-based rank
        let average = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            rank[k] = average;
        }
        i = j + 1;
    }
    let normal = Normal::standard();
    let c = 3.0 / 8.0;
    let z: Vec<f64> = rank
        .iter()
        .map(|r| normal.inverse_cdf((r - c) / (s as f64 - 2.0 * c + 1.0)))
        .collect();
    let mut out = Vec::with_capacity(chains.len());
    let mut start = 0;
    for ch in chains {
        out.push(z[start..start + ch.len()].to_vec());
        start += ch.len();
    }
    out
}

/// The `p` quantile by linear interpolation between order statistics (R's type 7,
/// numpy's default).
fn quantile_type7(values: &[f64], p: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let h = (v.len() - 1) as f64 * p;
    let (lo, frac) = (h.floor() as usize, h - h.floor());
    match v.get(lo + 1) {
        Some(&next) => v[lo] + frac * (next - v[lo]),
        None => v[lo],
    }
}

/// Plain R̂ of equal-length chains (Vehtari et al. 2021, eq. 3.1–3.3):
/// √((B/W + n − 1)/n), B = n·var(chain means), W = mean chain variance.
fn rhat_basic(chains: &[Vec<f64>]) -> f64 {
    let n = chains[0].len() as f64;
    let stats: Vec<(f64, f64)> = chains.iter().map(|c| mean_var(c)).collect();
    let means: Vec<f64> = stats.iter().map(|s| s.0).collect();
    let b = n * mean_var(&means).1;
    let w = stats.iter().map(|s| s.1).sum::<f64>() / stats.len() as f64;
    ((b / w + n - 1.0) / n).sqrt()
}

/// ESS of equal-length chains (Vehtari et al. 2021, eq. 3.7–3.11 and appendix):
/// ρ̂ₜ = 1 − (W − mean autocovariance at lag t)/var⁺, Geyer's initial positive
/// sequence over pairs, the last even lag kept when positive, the initial
/// monotone sequence, and τ̂ bounded below by 1/log₁₀(MN).
fn ess_basic(chains: &[Vec<f64>]) -> f64 {
    let m = chains.len();
    let n = chains[0].len();
    let size = (m * n) as f64;
    let (lo, hi) = chains
        .iter()
        .flatten()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    if hi - lo < 1e-15 {
        return size;
    }
    let autocov = Autocov::new(chains);
    let acov = |t: usize| autocov.at(t);
    let nf = n as f64;
    let w = acov(0) * nf / (nf - 1.0);
    let means: Vec<f64> = chains.iter().map(|c| c.iter().sum::<f64>() / nf).collect();
    let mut var_plus = w * (nf - 1.0) / nf;
    if m > 1 {
        var_plus += mean_var(&means).1;
    }
    let rho_at = |t: usize| 1.0 - (w - acov(t)) / var_plus;
    let mut rho = vec![0.0; n];
    rho[0] = 1.0;
    let (mut even, mut odd) = (1.0, rho_at(1));
    rho[1] = odd;
    let mut t = 1;
    while t + 3 < n && even + odd > 0.0 {
        even = rho_at(t + 1);
        odd = rho_at(t + 2);
        if even + odd >= 0.0 {
            rho[t + 1] = even;
            rho[t + 2] = odd;
        }
        t += 2;
    }
    // the last lag of the positive sequence (−1 when the loop never ran)
    let max_t = t as isize - 2;
    let next = (max_t + 1) as usize;
    if even > 0.0 {
        rho[next] = even;
    }
    let mut t = 1;
    while t as isize + 2 <= max_t {
        if rho[t + 1] + rho[t + 2] > rho[t - 1] + rho[t] {
            rho[t + 1] = (rho[t - 1] + rho[t]) / 2.0;
            rho[t + 2] = rho[t + 1];
        }
        t += 2;
    }
    let tau = -1.0 + 2.0 * rho[..next].iter().sum::<f64>() + rho[next];
    size / tau.max(1.0 / size.log10())
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

    /// The chains of `tests/reference/vehtari_diagnostics.py`, by the same recipe.
    fn reference_chains(
        m: usize,
        n: usize,
        phi: f64,
        offset: f64,
        transform: &str,
        seed: u64,
    ) -> Vec<Vec<f64>> {
        let mut state = seed;
        let mut uniform = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        };
        let scale = (1.0 - phi * phi).sqrt();
        (0..m)
            .map(|c| {
                let mut x = 0.0;
                (0..n)
                    .map(|t| {
                        let (u1, u2) = (uniform(), uniform());
                        let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
                        x = if t == 0 { z } else { phi * x + scale * z };
                        let v = x + offset * c as f64;
                        match transform {
                            "cube" => v * v * v,
                            "floor3" => (3.0 * v).floor(),
                            _ => v,
                        }
                    })
                    .collect()
            })
            .collect()
    }

    /// R̂, bulk-ESS and tail-ESS against ArviZ 0.22 on eight chain sets (mixing and
    /// unmixed, strongly autocorrelated, antithetic, heavy-tailed, tied values, odd
    /// length, one chain); values and script in tests/reference/. Tolerance 1e-9
    /// relative (the chains agree to within an ulp; ArviZ sums autocovariances by
    /// FFT, privpost directly).
    #[test]
    fn rank_diagnostics_match_arviz() {
        let text = include_str!("../../../../tests/reference/vehtari_diagnostics.csv");
        let mut cases = 0;
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            let num = |i: usize| f[i].parse::<f64>().unwrap();
            let chains = reference_chains(
                num(1) as usize,
                num(2) as usize,
                num(3),
                num(4),
                f[5],
                num(6) as u64,
            );
            let d = rank_diagnostics(&chains).unwrap();
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs();
            match d.rhat {
                Some(r) => assert!(close(r, num(7)), "{}: R̂ {r} vs {}", f[0], num(7)),
                None => assert!(num(7).is_nan(), "{}", f[0]),
            }
            for (what, got, col) in [("bulk", d.ess_bulk, 8), ("tail", d.ess_tail, 9)] {
                assert!(
                    close(got, num(col)),
                    "{}: {what} {got} vs {}",
                    f[0],
                    num(col)
                );
            }
            cases += 1;
        }
        assert_eq!(cases, 8);
    }

    #[test]
    fn rank_diagnostics_refuse_short_or_non_finite_chains() {
        assert_eq!(rank_diagnostics(&[vec![1.0, 2.0, 3.0]]), None);
        assert_eq!(
            rank_diagnostics(&[vec![1.0, 2.0, f64::NAN, 4.0, 5.0]]),
            None
        );
        assert_eq!(rank_diagnostics(&[]), None);
        // constant chains: every draw counts
        let d = rank_diagnostics(&[vec![2.0; 10], vec![2.0; 10]]).unwrap();
        assert_eq!(d.ess_bulk, 20.0);
    }
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
