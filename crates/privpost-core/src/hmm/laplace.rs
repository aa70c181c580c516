//! The Laplace mechanism on the HMM's histograms (Foulds et al. §4.2): noise
//! added once to every count, before the ordinary Gibbs sampler runs on them.

use rand::Rng;

use super::Histograms;
use crate::privacy::event::NoiseMode;
use crate::privacy::event::{Composition, Event};
use crate::privacy::noise::CountNoise;

/// L1 sensitivity of one feature's histogram: replace-one moves one event between
/// two values of the feature.
pub const HISTOGRAM_L1_SENSITIVITY: f64 = 2.0;

/// The Laplace mechanism on the histograms (Foulds et al. 2016 §4.2): every count of
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

    /// The Laplace scale of feature `d`'s noise.
    pub fn scale(&self, d: usize) -> f64 {
        self.noise[d].scale()
    }

    /// The noise law of feature `d`'s counts.
    pub fn noise(&self, d: usize) -> &CountNoise {
        &self.noise[d]
    }

    /// The noisy histograms, clamped at zero (the papers' post-processing).
    pub fn apply<R: Rng + ?Sized>(
        &self,
        data: &Histograms,
        rng: &mut R,
    ) -> Result<Histograms, crate::privacy::noise::SystemRandomError> {
        self.apply_with(data, rng, PostProcess::Clamp)
    }

    /// The noisy histograms with the chosen post-processing (no privacy cost
    /// either way: it reads only the noisy counts).
    pub fn apply_with<R: Rng + ?Sized>(
        &self,
        data: &Histograms,
        rng: &mut R,
        post: PostProcess,
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
                        *c = self.noise[d].add(*c, &mut r);
                    }
                    match post {
                        PostProcess::Clamp => counts.iter_mut().for_each(|c| *c = c.max(0.0)),
                        PostProcess::Consistent => project_to_total(counts),
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

/// How the noisy counts of a histogram are made non-negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostProcess {
    /// Each count clamped at zero (Foulds et al. 2016 §4.2): an empty
    /// value gains Laplace(b)'s positive part, b/2 on average, so a histogram of
    /// K values gains about K·b/2 counts in all.
    Clamp,
    /// The Euclidean projection onto non-negative histograms whose total is the
    /// noisy total max(0, Σ c̃_v): keeps the release's total, and zeroes the
    /// values whose noisy count is below a common threshold instead of adding
    /// the positive part of every empty value's noise.
    Consistent,
}

/// Projects `y` onto {x ≥ 0, Σ x = max(0, Σ y)} (sort, threshold τ: x = max(y − τ, 0)).
pub fn project_to_total(y: &mut [f64]) {
    let total = y.iter().sum::<f64>().max(0.0);
    if total == 0.0 {
        y.fill(0.0);
        return;
    }
    let mut sorted = y.to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let (mut sum, mut tau) = (0.0, 0.0);
    for (j, &v) in sorted.iter().enumerate() {
        sum += v;
        let t = (sum - total) / (j + 1) as f64;
        if v - t > 0.0 {
            tau = t;
        }
    }
    y.iter_mut().for_each(|v| *v = (*v - tau).max(0.0));
}

/// [`LaplaceRelease::per_feature`] (float noise) applied to `data`.
pub fn laplace_histograms(
    data: &Histograms,
    eps_per_feature: &[f64],
    rng: &mut impl Rng,
) -> anyhow::Result<Histograms> {
    Ok(LaplaceRelease::per_feature(eps_per_feature, NoiseMode::Float)?.apply(data, rng)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The projection keeps the noisy total, is non-negative, and equals a
    /// brute-force search for the threshold.
    #[test]
    fn projection_keeps_the_total_and_matches_a_brute_force_threshold() {
        for y in [
            vec![5.0, -3.0, 2.0, 0.5],
            vec![100.0, -40.0, -40.0, 10.0, 3.0],
            vec![-1.0, -2.0],
            vec![1.0, 2.0, 3.0],
        ] {
            let mut x = y.clone();
            project_to_total(&mut x);
            let total = y.iter().sum::<f64>().max(0.0);
            assert!(
                (x.iter().sum::<f64>() - total).abs() < 1e-9,
                "{y:?} → {x:?}"
            );
            assert!(x.iter().all(|&v| v >= 0.0));
            // brute force: the τ on a fine grid whose clipped sum is closest
            let f = |t: f64| y.iter().map(|v| (v - t).max(0.0)).sum::<f64>();
            if total > 0.0 {
                let (lo, hi) = (-200.0, 200.0);
                let t = (0..400_001)
                    .map(|i| lo + (hi - lo) * i as f64 / 400_000.0)
                    .min_by(|a, b| (f(*a) - total).abs().total_cmp(&(f(*b) - total).abs()))
                    .unwrap();
                for (a, b) in x.iter().zip(&y) {
                    assert!(
                        (a - (b - t).max(0.0)).abs() < 1e-2,
                        "{y:?}: {x:?} vs τ = {t}"
                    );
                }
            }
        }
    }
}
