//! The Laplace mechanism on the HMM's histograms (Foulds et al. §4.2): noise
//! added once to every count, before the ordinary Gibbs sampler runs on them.

use rand::Rng;

use super::Histograms;
use crate::privacy::laplace::Laplace;
use crate::privacy::ledger::{Composition, Event};

/// L1 sensitivity of one feature's histogram: replace-one moves one event between
/// two values of the feature.
pub const HISTOGRAM_L1_SENSITIVITY: f64 = 2.0;

/// The Laplace mechanism on the histograms (Foulds §4.2, facts file): every count of
/// every kept cell of feature d gets Laplace(Δ_d/ε_d) noise with Δ_d = 2, then is
/// clamped at zero (post-processing). Cells compose in parallel (each event lies in
/// one cell), features sequentially: ε = Σ_d ε_d.
#[derive(Debug, Clone, PartialEq)]
pub struct LaplaceRelease {
    noise: Vec<Laplace>,
}

impl LaplaceRelease {
    /// One ε_d per feature; errors if one is not finite and positive.
    pub fn per_feature(eps_per_feature: &[f64]) -> Result<Self, crate::privacy::PrivacyError> {
        let noise = eps_per_feature
            .iter()
            .map(|&e| Laplace::for_privacy(HISTOGRAM_L1_SENSITIVITY, e))
            .collect::<Result<_, _>>()?;
        Ok(Self { noise })
    }

    /// ε split evenly over `features` features (as Foulds et al. §5 do).
    pub fn even_split(epsilon: f64, features: usize) -> Result<Self, crate::privacy::PrivacyError> {
        Self::per_feature(&vec![epsilon / features as f64; features])
    }

    /// The noisy histograms.
    pub fn apply(&self, data: &Histograms, rng: &mut impl Rng) -> Histograms {
        let mut out = data.clone();
        for (_, cells) in out.regions.iter_mut() {
            for cell in cells.iter_mut() {
                for (d, counts) in cell.counts.iter_mut().enumerate() {
                    for c in counts.iter_mut() {
                        *c = (*c + self.noise[d].sample(rng)).max(0.0);
                    }
                }
            }
        }
        out
    }

    /// The privacy event: one Laplace release per feature, composed over the features.
    pub fn event(&self) -> Event {
        Event::Compose {
            composition: Composition::SplitOverFeatures,
            parts: self.noise.iter().map(Laplace::event).collect(),
        }
    }
}

/// [`LaplaceRelease::per_feature`] applied to `data`.
pub fn laplace_histograms(
    data: &Histograms,
    eps_per_feature: &[f64],
    rng: &mut impl Rng,
) -> Result<Histograms, crate::privacy::PrivacyError> {
    Ok(LaplaceRelease::per_feature(eps_per_feature)?.apply(data, rng))
}
