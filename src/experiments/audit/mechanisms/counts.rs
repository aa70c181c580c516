//! The audits of count releases: the clamped Laplace and discrete Laplace counts (exact and statistical, the floating-point attack), Foulds et al.'s HMM releases (Laplace per cell, one posterior sample) and Bun et al.'s smoothed-Hellinger mechanism and Laplace baselines.

use super::{
    epsilon_for_delta, exact, statistical, ChaCha8Rng, Claim, CountNoise, Discrete, ExpMech,
    GaussLegendre, Laplace, LaplaceCounts, NoiseMode, Outcome, Rounding, Settings, Space,
};
use crate::privacy::float_attack;

/// A count c released as max(0, c + Laplace(b)) (Foulds §3.2 and §4.2 clamp at zero),
/// for counts c and c′: an atom at 0 and a density above it.
pub(super) fn clamped_laplace_pair(c: f64, c2: f64, scale: f64) -> Discrete {
    let lap = laplace_of(scale);
    let ln_atom = |c: f64| lap.cdf(-c).ln();
    let ln_density = |y: f64, c: f64| -(2.0 * scale).ln() - (y - c).abs() / scale;
    let mut pair = Discrete::default();
    pair.push(1.0, ln_atom(c), ln_atom(c2));
    // the log ratio is piecewise linear with kinks at c and c′: the points there and
    // beyond carry its extremes; quadrature weights do not matter for the sup
    let top = c.max(c2) + 40.0 * scale;
    let mut points: Vec<f64> = (1..=4000).map(|k| top * k as f64 / 4000.0).collect();
    points.extend([c, c2].into_iter().filter(|&x| x > 0.0));
    for y in points {
        pair.push(1.0, ln_density(y, c), ln_density(y, c2));
    }
    pair
}

/// Laplace noise of scale b (Δ = b at ε = 1).
pub(super) fn laplace_of(scale: f64) -> Laplace {
    Laplace::for_privacy(scale, 1.0)
        .unwrap_or_else(|_| unreachable!("scales here are finite and > 0"))
}

/// The sup and inf over outputs of ln p − ln p′ of a pair.
pub(super) fn ratio_range(pair: &Discrete) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for (&a, &b) in pair.ln_p.iter().zip(&pair.ln_q) {
        let r = if a == f64::NEG_INFINITY && b == f64::NEG_INFINITY {
            0.0
        } else {
            a - b
        };
        lo = lo.min(r);
        hi = hi.max(r);
    }
    (lo, hi)
}

/// Pure ε of a product of independent releases: the log ratio is a sum of
/// per-part log ratios, so its sup is the sum of sups (and likewise the inf).
pub(super) fn product_pure_epsilon(parts: &[Discrete]) -> f64 {
    let (mut lo, mut hi) = (0.0, 0.0);
    for p in parts {
        let (a, b) = ratio_range(p);
        lo += a;
        hi += b;
    }
    hi.max(-lo)
}

/// Foulds §3.2: Laplace(2/ε) on (n₊, n₋) clamped at zero, ε = 1; neighbours
/// (5, 5) vs (4, 6) (one record flips). `scale_factor` 0.5 is the broken variant
/// (half the scale). Exact: sup of the log ratio of the two product distributions.
pub fn laplace_counts_exact(scale_factor: f64) -> Outcome {
    let noise = counts_noise(NoiseMode::Float);
    let scale = noise.scale() * scale_factor;
    let claim = noise.event().pure_epsilon().unwrap_or(f64::INFINITY);
    let parts = [
        clamped_laplace_pair(5.0, 4.0, scale),
        clamped_laplace_pair(5.0, 6.0, scale),
    ];
    exact(
        Claim::Pure { epsilon: claim },
        format!("counts (n₊, n₋) = (5, 5) vs (4, 6), noise scale {scale}"),
        product_pure_epsilon(&parts),
    )
}

/// The Laplace noise of Foulds' counts at ε = 1 in `mode` (Δ = 2: scale 2).
pub(super) fn counts_noise(mode: NoiseMode) -> CountNoise {
    crate::expfam::mechanisms::counts_noise(mode, 1.0)
        .unwrap_or_else(|_| unreachable!("ε = 1 is valid"))
}

/// A count c released as max(0, c + Y), Y discrete Laplace of scale b on ℤ, for
/// counts c and c′: the atom at 0 holds P(Y ≤ −c), then the pmf; every integer
/// output out to 60 scales past the counts, where the log ratio is constant.
pub(super) fn clamped_discrete_laplace_pair(c: i64, c2: i64, scale: f64) -> Discrete {
    let r = (-1.0 / scale).exp();
    // ln P(Y = y) and ln P(Y ≤ −c), from the pmf (1 − r)/(1 + r)·r^|y|
    let ln_pmf = |y: i64| (1.0 - r).ln() - (1.0 + r).ln() - y.unsigned_abs() as f64 / scale;
    let ln_below = |c: i64| -(c as f64) / scale - (1.0 + r).ln();
    let mut p = Discrete::default();
    p.push(1.0, ln_below(c), ln_below(c2));
    let top = c.max(c2) + (60.0 * scale) as i64;
    for y in 1..=top {
        p.push(1.0, ln_pmf(y - c), ln_pmf(y - c2));
    }
    p
}

/// The same release in the exact mode: max(0, c + Y), Y discrete Laplace of
/// scale 2 on ℤ. Exact: every integer output enumerated (an atom at 0 holding
/// P(Y ≤ −c), then the pmf), out to 60 scales past the counts, where the log
/// ratio is already constant. `scale_factor` 0.5 is the broken variant.
pub fn laplace_counts_discrete(scale_factor: f64) -> Outcome {
    let noise = counts_noise(NoiseMode::Exact);
    let scale = noise.scale() * scale_factor;
    let claim = noise.event().pure_epsilon().unwrap_or(f64::INFINITY);
    let parts = [
        clamped_discrete_laplace_pair(5, 4, scale),
        clamped_discrete_laplace_pair(5, 6, scale),
    ];
    let mut o = exact(
        Claim::Pure { epsilon: claim },
        format!(
            "counts (n₊, n₋) = (5, 5) vs (4, 6), discrete Laplace of scale {scale} (exact mode), every integer output"
        ),
        product_pure_epsilon(&parts),
    );
    o.tolerance = 1e-12;
    o
}

/// Mironov's attack on the noisy counts (n₊, n₋) = (5, 5) vs (4, 6) at ε = 1:
/// `draws` releases from each neighbour; an output identifies its input when no
/// uniform draw of the sampler could produce that exact pair from the other
/// neighbour ([`float_attack::reachable`]). Any identifying output means an
/// infinite privacy loss (the audited ε is ∞). `float` audits privpost's float
/// Laplace (it must FAIL); otherwise the exact mode, whose integer outputs every
/// neighbour reaches — the audited ε is then the largest log ratio of the exact
/// pmfs over the outputs drawn (at most ε = 1).
pub fn float_attack(float: bool, s: &Settings, rng: &mut ChaCha8Rng) -> Outcome {
    let (d, d2) = ([5.0, 5.0], [4.0, 6.0]);
    let mode = if float {
        NoiseMode::Float
    } else {
        NoiseMode::Exact
    };
    let noise = counts_noise(mode);
    let claim = noise.event().pure_epsilon().unwrap_or(f64::INFINITY);
    let draw = |c: [f64; 2], rng: &mut ChaCha8Rng| -> [f64; 2] {
        let mut r = noise
            .rng(rng)
            .unwrap_or_else(|_| unreachable!("not secure"));
        [noise.add(c[0], &mut r), noise.add(c[1], &mut r)]
    };
    let on_d: Vec<[f64; 2]> = (0..s.draws).map(|_| draw(d, rng)).collect();
    let on_d2: Vec<[f64; 2]> = (0..s.draws).map(|_| draw(d2, rng)).collect();
    // outputs of one neighbour the other cannot produce
    let identifying = |outputs: &[[f64; 2]], other: [f64; 2]| -> usize {
        match noise {
            CountNoise::Float(lap) => outputs
                .iter()
                .filter(|y| (0..2).any(|i| !float_attack::reachable(&lap, other[i], y[i])))
                .count(),
            // the discrete Laplace reaches every integer from every count
            CountNoise::Discrete { .. } => outputs
                .iter()
                .filter(|y| y.iter().any(|v| v.fract() != 0.0))
                .count(),
        }
    };
    let (k1, k2) = (identifying(&on_d, d2), identifying(&on_d2, d));
    let n = 2 * s.draws;
    let share = (k1 + k2) as f64 / n as f64;
    let audited = if k1 + k2 > 0 {
        f64::INFINITY
    } else {
        // exact pmf log ratios of the outputs drawn: Σ (|y − c′| − |y − c|)/b
        let b = noise.scale();
        let ratio = |y: &[f64; 2], a: [f64; 2], z: [f64; 2]| -> f64 {
            (0..2)
                .map(|i| ((y[i] - z[i]).abs() - (y[i] - a[i]).abs()) / b)
                .sum()
        };
        on_d.iter()
            .map(|y| ratio(y, d, d2))
            .chain(on_d2.iter().map(|y| ratio(y, d2, d)))
            .fold(0.0, f64::max)
    };
    let lower = crate::privacy::audit::clopper_pearson_lower(k1 + k2, n, s.confidence);
    Outcome {
        claim: Claim::Pure { epsilon: claim },
        witness: format!(
            "counts (5, 5) vs (4, 6), {} noise of scale {}: {} of {n} outputs ({:.1} %, ≥ {:.1} % at {} confidence) cannot come from the other neighbour",
            mode.as_str(),
            noise.scale(),
            k1 + k2,
            100.0 * share,
            100.0 * lower,
            s.confidence
        ),
        audited,
        estimate: audited,
        ci_low: audited,
        ci_high: None,
        draws: s.draws,
        tolerance: 1e-12,
        scores: None,
    }
}

/// ln density (or ln mass at the atom 0) of max(0, c + Laplace(b)) at y.
pub(super) fn clamped_laplace_ln(y: f64, c: f64, scale: f64) -> f64 {
    if y <= 0.0 {
        laplace_of(scale).cdf(-c).ln()
    } else {
        -(2.0 * scale).ln() - (y - c).abs() / scale
    }
}

/// The same release, audited statistically: draws of the noisy counts on each
/// neighbour, scored by the exact log-likelihood ratio of the mechanism drawn from.
pub fn laplace_counts_statistical(
    scale_factor: f64,
    s: &Settings,
    rng: &mut ChaCha8Rng,
) -> Outcome {
    let noise = counts_noise(NoiseMode::Float);
    let scale = noise.scale() * scale_factor;
    let lap = laplace_of(scale);
    let claim = noise.event().pure_epsilon().unwrap_or(f64::INFINITY);
    let (d, d2) = ([5.0, 5.0], [4.0, 6.0]);
    let score = |y: [f64; 2]| {
        (0..2)
            .map(|i| clamped_laplace_ln(y[i], d[i], scale) - clamped_laplace_ln(y[i], d2[i], scale))
            .sum::<f64>()
    };
    let draw = |c: [f64; 2], rng: &mut ChaCha8Rng| {
        let y = [
            (c[0] + lap.sample(rng)).max(0.0),
            (c[1] + lap.sample(rng)).max(0.0),
        ];
        score(y)
    };
    let on_d: Vec<f64> = (0..s.draws).map(|_| draw(d, rng)).collect();
    let on_d2: Vec<f64> = (0..s.draws).map(|_| draw(d2, rng)).collect();
    statistical(
        Claim::Pure { epsilon: claim },
        format!("counts (5, 5) vs (4, 6), noise scale {scale}"),
        on_d,
        on_d2,
        s,
    )
}

/// Foulds §4.2 on the HMM: Laplace(2/ε_d) on every histogram count, ε = 1 split over
/// 5 features, clamped at zero. One event changes one value of each feature: two
/// counts per feature move by one (5 vs 4 and 5 vs 6). Exact sup of the product's
/// log ratio against the composed claim.
pub fn hmm_laplace(mode: NoiseMode) -> Outcome {
    use crate::privacy::event::Event;
    let release = crate::hmm::laplace::LaplaceRelease::even_split(1.0, 5, mode)
        .unwrap_or_else(|_| unreachable!());
    let event = release.event();
    let claim = event.pure_epsilon().unwrap_or(f64::INFINITY);
    let parts_of = |e: &Event| -> Vec<Event> {
        match e {
            Event::Compose { parts, .. } => parts.clone(),
            _ => Vec::new(),
        }
    };
    let mut scales = Vec::new();
    let mut parts = Vec::new();
    for p in parts_of(&event) {
        match p {
            Event::Laplace { scale, .. } => {
                scales.push(scale);
                parts.push(clamped_laplace_pair(5.0, 4.0, scale));
                parts.push(clamped_laplace_pair(5.0, 6.0, scale));
            }
            Event::DiscreteLaplace {
                scale_num,
                scale_den,
                ..
            } => {
                let scale = scale_num as f64 / scale_den as f64;
                scales.push(scale);
                parts.push(clamped_discrete_laplace_pair(5, 4, scale));
                parts.push(clamped_discrete_laplace_pair(5, 6, scale));
            }
            _ => {}
        }
    }
    exact(
        Claim::Pure { epsilon: claim },
        format!(
            "5 features, ε_d = 0.2 each{}; one event moves one count of each feature (5 → 4 in one cell, 5 → 6 in another); scales {:?}",
            mode_note(mode),
            scales
        ),
        product_pure_epsilon(&parts),
    )
}

/// Foulds's OPS inside the HMM Gibbs sampler: one conditional update of a feature's
/// emission φ (K = 3 values, M = 100, ε = 1 per update), drawn by the sampler's own
/// truncated-Dirichlet kernel from counts (5, 5, 5) vs (4, 6, 5) (one event moves),
/// scored by the exact log density ratio (1/T)(ln φ₂ − ln φ₁).
pub fn hmm_ops(s: &Settings, rng: &mut ChaCha8Rng) -> Outcome {
    let ops = crate::hmm::gibbs::Ops::new(&[3], 100.0, 1.0);
    let claim = ops.event().pure_epsilon().unwrap_or(f64::INFINITY);
    let t = ops.temperature;
    // the sampler's conditional: Dirichlet(1 + (β − 1 + C)/T), β = 1
    let beta = 1.0;
    let gamma = |c: [f64; 3]| c.map(|c| 1.0 + (beta - 1.0 + c) / t);
    let (d, d2) = ([5.0, 5.0, 5.0], [4.0, 6.0, 5.0]);
    let score = |phi: &[f64]| (phi[0].ln() - phi[1].ln()) / t;
    let draw = |c: [f64; 3], rng: &mut ChaCha8Rng| {
        let mut phi = vec![1.0 / 3.0; 3];
        crate::hmm::dirichlet::truncated_dirichlet(&gamma(c), ops.a0[0], &mut phi, rng);
        score(&phi)
    };
    let on_d: Vec<f64> = (0..s.draws).map(|_| draw(d, rng)).collect();
    let on_d2: Vec<f64> = (0..s.draws).map(|_| draw(d2, rng)).collect();
    statistical(
        Claim::Pure { epsilon: claim },
        format!("K = 3, a₀ = 1/300, T = {t:.4}; counts (5, 5, 5) vs (4, 6, 5)"),
        on_d,
        on_d2,
        s,
    )
}

/// The same OPS conditional audited exactly: the truncated tempered Dirichlet's log
/// density ratio between the neighbours is (1/T)(ln φ₁ − ln φ₂) + ln Z′ − ln Z, with the
/// normalisers by nested Gauss–Legendre quadrature over the truncated simplex
/// {φ ≥ a₀}; its extremes sit at the corners where φ₁/φ₂ is largest or smallest.
pub fn hmm_ops_exact() -> Outcome {
    let ops = crate::hmm::gibbs::Ops::new(&[3], 100.0, 1.0);
    let claim = ops.event().pure_epsilon().unwrap_or(f64::INFINITY);
    let (t, a0) = (ops.temperature, ops.a0[0]);
    let gamma = |c: [f64; 3]| c.map(|c| 1.0 + c / t);
    let (g, g2) = (gamma([5.0, 5.0, 5.0]), gamma([4.0, 6.0, 5.0]));
    let rule = GaussLegendre::new(16);
    let ln_z = |g: [f64; 3]| {
        let panels = 64;
        let (lo, hi) = (a0, 1.0 - 2.0 * a0);
        let h = (hi - lo) / panels as f64;
        let mut terms = Vec::new();
        for i in 0..panels {
            for (x, wx) in rule.mapped(lo + h * i as f64, lo + h * (i + 1) as f64) {
                let (ylo, yhi) = (a0, 1.0 - a0 - x);
                let hy = (yhi - ylo) / panels as f64;
                for j in 0..panels {
                    for (y, wy) in rule.mapped(ylo + hy * j as f64, ylo + hy * (j + 1) as f64) {
                        let z = 1.0 - x - y;
                        terms.push(
                            (wx * wy).ln()
                                + (g[0] - 1.0) * x.ln()
                                + (g[1] - 1.0) * y.ln()
                                + (g[2] - 1.0) * z.ln(),
                        );
                    }
                }
            }
        }
        crate::numeric::log_sum_exp(&terms)
    };
    let c = ln_z(g2) - ln_z(g);
    // (γ − γ′)·ln φ = (1/T)(ln φ₁ − ln φ₂): extremes at φ₁/φ₂ = (1 − 2a₀)/a₀ and its inverse
    let top = ((1.0 - 2.0 * a0) / a0).ln() / t;
    let value = (top + c).abs().max((-top + c).abs());
    exact(
        Claim::Pure { epsilon: claim },
        format!(
            "K = 3, a₀ = 1/300, T = {t:.4}; counts (5, 5, 5) vs (4, 6, 5); ln Z′ − ln Z = {c:.6}"
        ),
        value,
    )
}

/// Bun et al.'s smoothed-Hellinger exponential mechanism (ε = 1, δ = 10⁻⁸, prior
/// Dirichlet(1, 1, 1), n = 8): its output distribution is finite, so every pair of
/// neighbouring datasets is enumerated and the smallest ε with δ(ε) ≤ δ computed
/// exactly (both directions).
pub fn hellinger_em() -> Outcome {
    let (epsilon, delta) = (1.0, 1e-8);
    let space = Space::new(
        vec![1.0; 3],
        8,
        crate::expfam::dirichlet::HellingerVariant::Correct,
    )
    .unwrap_or_else(|_| unreachable!());
    let probs = |c: &[u32]| -> Vec<f64> {
        ExpMech::new(&space, c, epsilon, delta)
            .map(|m| m.exact().into_iter().map(|o| o.2.ln()).collect())
            .unwrap_or_default()
    };
    let (value, at) = worst_over_neighbours(&space, probs, |pair| epsilon_for_delta(pair, delta));
    exact(
        Claim::Approx { epsilon, delta },
        format!("k = 3, n = 8, prior Dirichlet(1, 1, 1), all neighbouring pairs; worst {at}"),
        value,
    )
}

/// Bun et al.'s Laplace baseline on the histogram (sensitivity 2, ε = 1, rounding to
/// the nearest count, clamped to the remaining budget): its outputs are finite, so the
/// exact pure ε is the largest |ln P(r | c) − ln P(r | c′)| over every pair.
pub fn bun_laplace(mode: NoiseMode) -> Outcome {
    let mech =
        LaplaceCounts::new(2.0, 1.0, Rounding::Nearest, mode).unwrap_or_else(|_| unreachable!());
    let claim = mech.event().pure_epsilon().unwrap_or(f64::INFINITY);
    let space = Space::new(
        vec![1.0; 3],
        8,
        crate::expfam::dirichlet::HellingerVariant::Correct,
    )
    .unwrap_or_else(|_| unreachable!());
    let mut outputs = Vec::new();
    space.for_each(|r| outputs.push(r.to_vec()));
    let probs = |c: &[u32]| -> Vec<f64> {
        outputs
            .iter()
            .map(|r| mech.probability(c, r).ln())
            .collect()
    };
    let (value, at) = worst_over_neighbours(&space, probs, Discrete::pure_epsilon);
    exact(
        Claim::Pure { epsilon: claim },
        format!(
            "k = 3, n = 8{}, all neighbouring pairs, every output; worst {at}",
            mode_note(mode)
        ),
        value,
    )
}

/// ", exact noise" in a witness (nothing for float noise, whose witnesses read
/// as before the noise modes existed).
pub(super) fn mode_note(mode: NoiseMode) -> String {
    match mode {
        NoiseMode::Float => String::new(),
        m => format!(", {} noise", m.as_str()),
    }
}

/// The worst value of `measure` over every pair (c, c′) of neighbouring count
/// vectors (one record moves from category i to j), given each dataset's log output
/// probabilities.
pub(super) fn worst_over_neighbours(
    space: &Space,
    ln_probs: impl Fn(&[u32]) -> Vec<f64>,
    measure: impl Fn(&Discrete) -> f64,
) -> (f64, String) {
    let mut datasets = Vec::new();
    space.for_each(|c| datasets.push(c.to_vec()));
    let table: Vec<Vec<f64>> = datasets.iter().map(|c| ln_probs(c)).collect();
    let (mut worst, mut at) = (0.0f64, String::new());
    for (a, c) in datasets.iter().enumerate() {
        for i in 0..c.len() {
            for j in 0..c.len() {
                if i == j || c[i] == 0 {
                    continue;
                }
                let mut nb = c.clone();
                nb[i] -= 1;
                nb[j] += 1;
                let Some(b) = datasets.iter().position(|d| *d == nb) else {
                    continue;
                };
                let pair = Discrete {
                    ln_weight: vec![0.0; table[a].len()],
                    ln_p: table[a].clone(),
                    ln_q: table[b].clone(),
                };
                let v = measure(&pair);
                if v > worst {
                    worst = v;
                    at = format!("{c:?} vs {nb:?}");
                }
            }
        }
    }
    (worst, at)
}
