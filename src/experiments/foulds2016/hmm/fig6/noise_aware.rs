//! Fig. 6's noise-aware series (beyond the paper): the Laplace release read by
//! a sampler that integrates the noise — the pooled naive-Bayes release by a
//! Gibbs sampler per feature ([`NOISE_AWARE`]), the per-cell release of the HMM
//! panels (and of naive Bayes with `naive_bayes_laplace = "per_cell"`) by
//! data-augmentation MCMC ([`NOISE_AWARE_DA`], [`crate::damcmc::models::PerCellHmm`])
//! — where each applies, their checks and their held-out log-likelihoods.

use super::{
    check, gibbs_clamped_histogram, ChaCha8Rng, Deserialize, Fig6Config, GibbsSettings, Histograms,
    Mech, NoiseMode, ParamError, NOISE_AWARE,
};
use crate::damcmc::models::{CellKernel, Moves, PerCellHmm};
use crate::hmm::gibbs::Model;

/// The series name of the data-augmentation posterior of a per-cell release.
pub const NOISE_AWARE_DA: &str = "laplace_noise_aware_da";

/// How the data-augmentation series moves the training events' features
/// (config key `da_kernel`; [`CellKernel`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum DaKernel {
    /// exact Gibbs draws of randomly paired counts of each cell's histogram
    #[default]
    Counts,
    /// Ju et al.'s record-wise kernel, one proposal per event and feature
    RecordWise,
}

impl DaKernel {
    pub(super) fn cell(self) -> CellKernel {
        match self {
            Self::Counts => CellKernel::Counts,
            Self::RecordWise => CellKernel::RecordWise,
        }
    }

    /// The manifest's description of one iteration.
    pub(super) fn describe(self) -> &'static str {
        match self {
            Self::Counts => "data-augmentation MCMC (Ju et al. 2022) with privpost's count kernel (da_kernel = \"counts\"): per sweep the HMM's Gibbs sweep on the augmented histograms, then per training cell and feature the values paired at random and each pair's split of the cell's events drawn exactly from its conditional (multinomial × release density, log-concave; crates/privpost-core/src/damcmc/log_concave.rs); the figure's sweeps and burn-in, likelihoods averaged over the kept sweeps",
            Self::RecordWise => "data-augmentation MCMC (Ju et al. 2022, da_kernel = \"record_wise\"): per sweep the HMM's Gibbs sweep on the augmented histograms, then each training event's value of each feature by the record-wise kernel; the figure's sweeps and burn-in, likelihoods averaged over the kept sweeps; stops if the records are pinned",
        }
    }
}

/// Which sampler reads a panel's Laplace release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reader {
    /// the pooled naive-Bayes release, by [`gibbs_clamped_histogram`] per feature
    Pooled,
    /// a per-cell release, by data augmentation ([`PerCellHmm`])
    PerCell,
}

impl Reader {
    pub(super) fn series(self) -> &'static str {
        match self {
            Self::Pooled => NOISE_AWARE,
            Self::PerCell => NOISE_AWARE_DA,
        }
    }
}

/// The noise-aware reader of the Laplace run on a panel of `model`, if any:
/// the pooled naive-Bayes release when drawn from the continuous law (its
/// sampler models that law), every per-cell release (the HMM's, or naive
/// Bayes's with `per_cell`) in every noise mode (data augmentation reads the
/// discrete Laplace too).
pub(super) fn reader(c: &Fig6Config, model: &str, mech: Mech) -> Option<Reader> {
    if !c.noise_aware || mech != Mech::Laplace {
        return None;
    }
    if model == "naive_bayes" && c.naive_bayes_laplace == NaiveBayesLaplace::Pooled {
        return (c.noise == NoiseMode::Float).then_some(Reader::Pooled);
    }
    Some(Reader::PerCell)
}

/// Whether any panel of `models` gets `which` reader.
pub(super) fn any_reader<'a>(
    c: &Fig6Config,
    mechs: &[Mech],
    models: impl IntoIterator<Item = &'a str>,
    which: Reader,
) -> bool {
    mechs.contains(&Mech::Laplace)
        && models
            .into_iter()
            .any(|m| reader(c, m, Mech::Laplace) == Some(which))
}

/// The held-out log-likelihood per event under the data-augmentation posterior
/// of the per-cell release `released` (every cell's noisy, clamped histograms,
/// as the Laplace series read them): `sweeps` iterations of
/// [`PerCellHmm::iterate`] from its start with `kernel`, the predictive of every
/// held-out cell evaluated as the Laplace series does after each iteration past
/// `burn_in` and averaged over them ([`mean_predictive`]). The record-wise
/// kernel stops with [`crate::damcmc::DaError::NoMixing`] when the records were
/// pinned (the count kernel's draws are exact Gibbs steps, which cannot be).
pub(super) fn per_cell_loglik(
    data: &Histograms,
    (released, held_out): (&Histograms, &[Vec<bool>]),
    (eps, noise): (f64, NoiseMode),
    (model, kernel): (Model, DaKernel),
    (sweeps, burn_in): (usize, usize),
    rng: &mut ChaCha8Rng,
) -> anyhow::Result<f64> {
    let release = crate::hmm::laplace::LaplaceRelease::even_split(eps, data.cards.len(), noise)?;
    let laws: Vec<crate::damcmc::Noise> = (0..data.cards.len())
        .map(|d| crate::damcmc::Noise::of_counts(release.noise(d)))
        .collect();
    let da = PerCellHmm::new(released, held_out, &laws, model)?.with_kernel(kernel.cell());
    let mut s = da.start(data, rng);
    let mut moves = Moves::default();
    let mut acc: Vec<Vec<f64>> = Vec::new();
    for sweep in 0..sweeps {
        let m = da.iterate(&mut s, rng);
        if sweep >= burn_in {
            moves += m;
            let ll = da.gibbs(&s).held_out_loglik(&s.state, data);
            push_predictive(&mut acc, ll);
        }
    }
    if kernel == DaKernel::RecordWise {
        crate::damcmc::check_moves(moves.changing, moves.moves)?;
    }
    Ok(mean_predictive(&acc, held_events(data, held_out)))
}

/// Appends one kept sample's held-out log-likelihoods (one per held-out cell).
pub(super) fn push_predictive(acc: &mut Vec<Vec<f64>>, ll: Vec<f64>) {
    if acc.is_empty() {
        *acc = ll.into_iter().map(|x| vec![x]).collect();
    } else {
        acc.iter_mut().zip(ll).for_each(|(a, x)| a.push(x));
    }
}

/// Σ over held-out cells of ln (mean over kept samples of the likelihood), per
/// held-out event (NaN without held-out events).
pub(super) fn mean_predictive(acc: &[Vec<f64>], held_events: usize) -> f64 {
    let total: f64 = acc
        .iter()
        .map(|v| crate::numeric::log_sum_exp(v) - (v.len() as f64).ln())
        .sum();
    if held_events > 0 {
        total / held_events as f64
    } else {
        f64::NAN
    }
}

/// The events of the held-out cells.
pub(super) fn held_events(data: &Histograms, held_out: &[Vec<bool>]) -> usize {
    data.regions
        .iter()
        .zip(held_out)
        .flat_map(|((_, cells), mask)| {
            cells
                .iter()
                .zip(mask)
                .filter(|(_, &m)| m)
                .map(|(c, _)| c.events)
        })
        .sum()
}

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

/// Where a noise-aware series runs, ε its sampler cannot take are refused up
/// front: a per-feature Laplace scale 2·D/ε above 10⁶ (ε = 1e-300 hung the
/// pooled sampler), and for a per-cell release ε above 50 — the record-wise
/// kernel accepts a move with probability ≥ e^{−ε/D} (Ju et al.'s bound per
/// feature), which stays above 10⁻⁵ there, so its no-mixing check (below
/// 10⁻⁶) cannot be met by a release the figure accepts.
pub(super) fn check_noise_aware(c: &Fig6Config, models: &[&str]) -> Result<(), ParamError> {
    let any = |w| any_reader(c, &c.mechanisms, models.iter().copied(), w);
    let (pooled, per_cell) = (any(Reader::Pooled), any(Reader::PerCell));
    if !(pooled || per_cell) {
        return Ok(());
    }
    let features = crate::hmm::FEATURES.len() as f64;
    for &e in &c.epsilons {
        if 2.0 * features / e > MAX_NOISE_AWARE_SCALE {
            return Err(ParamError::new(
                "epsilons",
                check::short(e),
                format!(
                    "ε ≥ {} when noise_aware = true (the noise-aware samplers handle per-feature Laplace scales 2·{features}/ε up to 10⁶)",
                    2.0 * features / MAX_NOISE_AWARE_SCALE
                ),
            ));
        }
        if per_cell && c.da_kernel == DaKernel::RecordWise && e > MAX_PER_CELL_EPSILON {
            return Err(ParamError::new(
                "epsilons",
                check::short(e),
                format!(
                    "ε ≤ {MAX_PER_CELL_EPSILON} when noise_aware = true reads a per-cell release (an HMM panel, or naive_bayes_laplace = \"per_cell\") with da_kernel = \"record_wise\": its record-wise moves are accepted with probability ≥ e^(−ε/{features}); or set da_kernel = \"counts\" or noise_aware = false"
                ),
            ));
        }
    }
    Ok(())
}

/// Largest per-feature Laplace scale the noise-aware series accept.
pub(super) const MAX_NOISE_AWARE_SCALE: f64 = 1e6;

/// Largest ε the data-augmentation series accepts with the record-wise kernel
/// (e^{−50/5} ≈ 4.5·10⁻⁵).
pub(super) const MAX_PER_CELL_EPSILON: f64 = 50.0;
