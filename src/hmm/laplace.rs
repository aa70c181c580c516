//! The Laplace mechanism on the HMM's histograms (Foulds et al. §4.2): noise
//! added once to every count, before the ordinary Gibbs sampler runs on them.

use rand::Rng;

use super::Histograms;
use crate::privacy::ledger::{Composition, Event};
use crate::privacy::noise::{CountNoise, NoiseMode};

/// L1 sensitivity of one feature's histogram: replace-one moves one event between
/// two values of the feature.
pub const HISTOGRAM_L1_SENSITIVITY: f64 = 2.0;

/// The Laplace mechanism on the histograms (Foulds §4.2, facts file): every count of
/// every kept cell of feature d gets Laplace(Δ_d/ε_d) noise with Δ_d = 2, then is
/// clamped at zero (post-processing). Cells compose in parallel (each event lies in
/// one cell), features sequentially: ε = Σ_d ε_d. In the exact modes the noise is
/// the discrete Laplace of the same scale ([`CountNoise`]).
#[derive(Debug, Clone, PartialEq)]
pub struct LaplaceRelease {
    noise: Vec<CountNoise>,
}

impl LaplaceRelease {
    /// One ε_d per feature; errors if one is not finite and positive (or, in the
    /// exact modes, if its scale leaves the sampler's rational grid).
    pub fn per_feature(
        eps_per_feature: &[f64],
        mode: NoiseMode,
    ) -> Result<Self, crate::privacy::PrivacyError> {
        let noise = eps_per_feature
            .iter()
            .map(|&e| CountNoise::for_privacy(mode, HISTOGRAM_L1_SENSITIVITY, e))
            .collect::<Result<_, _>>()?;
        Ok(Self { noise })
    }

    /// ε split evenly over `features` features (as Foulds et al. §5 do).
    pub fn even_split(
        epsilon: f64,
        features: usize,
        mode: NoiseMode,
    ) -> Result<Self, crate::privacy::PrivacyError> {
        Self::per_feature(&vec![epsilon / features as f64; features], mode)
    }

    /// The noisy histograms.
    pub fn apply<R: Rng + ?Sized>(
        &self,
        data: &Histograms,
        rng: &mut R,
    ) -> Result<Histograms, crate::privacy::noise::SystemRandomError> {
        let mut out = data.clone();
        let mode = self
            .noise
            .first()
            .map_or(NoiseMode::Float, CountNoise::mode);
        let mut r = crate::privacy::noise::NoiseRng::new(mode, rng)?;
        for (_, cells) in out.regions.iter_mut() {
            for cell in cells.iter_mut() {
                for (d, counts) in cell.counts.iter_mut().enumerate() {
                    for c in counts.iter_mut() {
                        *c = self.noise[d].add(*c, &mut r).max(0.0);
                    }
                }
            }
        }
        Ok(out)
    }

    /// The privacy event: one Laplace release per feature, composed over the features.
    pub fn event(&self) -> Event {
        Event::Compose {
            composition: Composition::SplitOverFeatures,
            parts: self.noise.iter().map(CountNoise::event).collect(),
        }
    }
}

/// [`LaplaceRelease::per_feature`] (float noise) applied to `data`.
pub fn laplace_histograms(
    data: &Histograms,
    eps_per_feature: &[f64],
    rng: &mut impl Rng,
) -> anyhow::Result<Histograms> {
    Ok(LaplaceRelease::per_feature(eps_per_feature, NoiseMode::Float)?.apply(data, rng)?)
}
