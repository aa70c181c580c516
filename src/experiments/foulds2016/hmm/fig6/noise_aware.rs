//! Fig. 6's noise-aware series (beyond the paper): the pooled naive-Bayes Laplace release read by a Gibbs sampler that integrates the noise, when it applies, its checks and its held-out log-likelihood.

use super::*;

/// How the Laplace mechanism releases a naive-Bayes panel's statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum NaiveBayesLaplace {
    #[default]
    Pooled,
    PerCell,
}

/// The naive-Bayes model's statistics are the training counts summed over every
/// region-month: Laplace(Δ/ε_d) (Δ = 2, ε split evenly over the features) is added once
/// to each value of each feature's pooled histogram and clamped at zero. Returned as
/// histograms the 1-state sampler reads: the noisy pooled counts in the first training
/// cell, zeros in the other training cells (held-out cells keep their true counts,
/// which only the evaluation reads). One record changes one pooled count per feature
/// by −1 and another by +1, as for a cell: the same event and ε as the per-cell release.
pub(super) fn pooled_naive_bayes(
    data: &Histograms,
    held_out: &[Vec<bool>],
    eps: f64,
    noise: NoiseMode,
    rng: &mut impl rand::Rng,
) -> anyhow::Result<(Histograms, PooledRelease)> {
    let release = crate::hmm::laplace::LaplaceRelease::even_split(eps, data.cards.len(), noise)?;
    let mut pooled = Histograms {
        cards: data.cards.clone(),
        regions: Vec::new(),
    };
    let mut totals: Vec<Vec<f64>> = data.cards.iter().map(|&k| vec![0.0; k]).collect();
    for (r, (_, cells)) in data.regions.iter().enumerate() {
        for (i, cell) in cells.iter().enumerate() {
            if !held_out[r][i] {
                for (t, c) in totals.iter_mut().zip(&cell.counts) {
                    t.iter_mut().zip(c).for_each(|(a, b)| *a += b);
                }
            }
        }
    }
    // the noisy pooled histograms, through the same release as the per-cell variant
    let one = Histograms {
        cards: data.cards.clone(),
        regions: vec![(
            0,
            vec![crate::hmm::Cell {
                month: 0,
                events: 0,
                counts: totals,
            }],
        )],
    };
    let noisy = release.apply(&one, rng)?.regions[0].1[0].counts.clone();
    let mut first = true;
    let mut out = data.clone();
    for (r, (_, cells)) in out.regions.iter_mut().enumerate() {
        for (i, cell) in cells.iter_mut().enumerate() {
            if held_out[r][i] {
                continue;
            }
            if first {
                cell.counts = noisy.clone();
                first = false;
            } else {
                cell.counts.iter_mut().for_each(|c| c.fill(0.0));
            }
        }
    }
    pooled.regions = out.regions;
    let scales = (0..data.cards.len()).map(|d| release.scale(d)).collect();
    let events = one.regions[0].1[0].counts[0].iter().sum();
    Ok((
        pooled,
        PooledRelease {
            noisy,
            scales,
            events,
        },
    ))
}

/// What the noise-aware posterior reads of a pooled release: the clamped noisy
/// counts per feature, their Laplace scales, and the number of training events
/// (public under replace-one neighbours, as the release's Δ = 2 assumes).
pub(super) struct PooledRelease {
    pub(super) noisy: Vec<Vec<f64>>,
    pub(super) scales: Vec<f64>,
    pub(super) events: f64,
}

/// The held-out log-likelihood per event of the naive-Bayes model under the
/// noise-aware posterior of the pooled release: for each feature,
/// [`gibbs_clamped_histogram`] (prior Dirichlet(β), the config's burn-in, then as
/// many kept draws as the other series average over), and per held-out cell the
/// log of the mean over draws of Π_d Π_v φ_dv^{c_dv} (a one-state model has no
/// transition term), summed over cells, divided by the held-out events.
pub(super) fn noise_aware_loglik(
    data: &Histograms,
    held_out: &[Vec<bool>],
    release: &PooledRelease,
    (beta, settings): (f64, GibbsSettings),
    rng: &mut ChaCha8Rng,
) -> f64 {
    let per_feature: Vec<Vec<Vec<f64>>> = data
        .cards
        .iter()
        .enumerate()
        .map(|(d, &card)| {
            gibbs_clamped_histogram(
                &vec![beta; card],
                release.events.round() as u64,
                &release.noisy[d],
                release.scales[d],
                settings,
                rng,
            )
        })
        .collect();
    let ln_phi: Vec<Vec<Vec<f64>>> = (0..settings.draws)
        .map(|i| {
            per_feature
                .iter()
                .map(|draws| draws[i].iter().map(|p| p.ln()).collect())
                .collect()
        })
        .collect();
    let (mut total, mut events) = (0.0, 0usize);
    for (r, (_, cells)) in data.regions.iter().enumerate() {
        for (i, cell) in cells.iter().enumerate() {
            if !held_out[r][i] {
                continue;
            }
            events += cell.events;
            let per_draw: Vec<f64> = ln_phi
                .iter()
                .map(|lp| {
                    cell.counts
                        .iter()
                        .zip(lp)
                        .map(|(counts, l)| {
                            counts
                                .iter()
                                .zip(l)
                                .filter(|(&c, _)| c != 0.0)
                                .map(|(c, l)| c * l)
                                .sum::<f64>()
                        })
                        .sum()
                })
                .collect();
            total += crate::numeric::log_sum_exp(&per_draw) - (per_draw.len() as f64).ln();
        }
    }
    if events > 0 {
        total / events as f64
    } else {
        f64::NAN
    }
}

/// Whether the noise-aware series can read this run's release: the pooled
/// naive-Bayes release drawn from the continuous Laplace law (its sampler models
/// that law). Elsewhere the series is absent and the manifest says why.
pub(super) fn noise_aware_applies(c: &Fig6Config) -> bool {
    c.noise_aware
        && c.naive_bayes_laplace == NaiveBayesLaplace::Pooled
        && c.noise == NoiseMode::Float
}

/// Where the series runs, ε whose per-feature Laplace scale its floating-point
/// sampler cannot hold are refused up front (ε = 1e-300 hung it).
pub(super) fn check_noise_aware(c: &Fig6Config) -> Result<(), ParamError> {
    if !noise_aware_applies(c) {
        return Ok(());
    }
    let features = crate::hmm::FEATURES.len() as f64;
    for &e in &c.epsilons {
        if 2.0 * features / e > MAX_NOISE_AWARE_SCALE {
            return Err(ParamError::new(
                "epsilons",
                check::short(e),
                format!(
                    "ε ≥ {} when noise_aware = true (the noise-aware sampler handles per-feature Laplace scales 2·{features}/ε up to 10⁶)",
                    2.0 * features / MAX_NOISE_AWARE_SCALE
                ),
            ));
        }
    }
    Ok(())
}

/// Largest per-feature Laplace scale the noise-aware series accepts.
pub(super) const MAX_NOISE_AWARE_SCALE: f64 = 1e6;
