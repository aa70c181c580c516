//! The three noise modes of an additive mechanism, and the count noise the
//! integer releases share (Foulds' Laplace on (n₊, n₋), the HMM and naive-Bayes
//! histograms, Bun's Laplace baseline).
//!
//! - `float`: the papers' continuous Laplace, sampled in floating point from the
//!   task's seeded stream (every output as before this mode existed).
//! - `exact`: the discrete Laplace on ℤ (CKS20, [`super::exact`]) from the same
//!   seeded stream: exactly the stated distribution, byte-reproducible, but not
//!   secret (anyone with the seed can replay the noise).
//! - `secure`: the same exact sampler fed by a ChaCha20 keyed from the operating
//!   system's CSPRNG (getrandom) for every release, as `rand`'s ThreadRng is: no
//!   seed, not reproducible. Rejection samplers still take data-independent but
//!   random time (libprio-rs #645): a timing side channel is not ruled out.

use std::convert::Infallible;

use rand::{Rng, SeedableRng, TryRng};
use rand_chacha::ChaCha20Rng;

use super::event::{Event, NoiseMode};
use super::exact::DiscreteLaplace;
use super::laplace::Laplace;

/// An error of the system's random source (secure mode only).
#[derive(Debug, thiserror::Error)]
#[error("the operating system's random source failed: {0}")]
pub struct SystemRandomError(String);

/// The generator one release draws its noise from: the task's stream, or (secure
/// mode) a ChaCha20 keyed with 32 fresh bytes from the operating system.
pub enum NoiseRng<'a, R: ?Sized> {
    Task(&'a mut R),
    System(Box<ChaCha20Rng>),
}

impl<'a, R: Rng + ?Sized> NoiseRng<'a, R> {
    pub fn new(mode: NoiseMode, task: &'a mut R) -> Result<Self, SystemRandomError> {
        if mode != NoiseMode::Secure {
            return Ok(Self::Task(task));
        }
        let mut key = [0u8; 32];
        rand::rngs::SysRng
            .try_fill_bytes(&mut key)
            .map_err(|e| SystemRandomError(e.to_string()))?;
        Ok(Self::System(Box::new(ChaCha20Rng::from_seed(key))))
    }
}

impl<R: Rng + ?Sized> TryRng for NoiseRng<'_, R> {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(match self {
            Self::Task(r) => r.next_u32(),
            Self::System(r) => r.next_u32(),
        })
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(match self {
            Self::Task(r) => r.next_u64(),
            Self::System(r) => r.next_u64(),
        })
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        match self {
            Self::Task(r) => r.fill_bytes(dst),
            Self::System(r) => r.fill_bytes(dst),
        }
        Ok(())
    }
}

/// Laplace noise on integer counts of L1 sensitivity Δ at ε, in one of the
/// three modes: Laplace(Δ/ε) in floating point, or the discrete Laplace of
/// scale Δ/ε (rounded up onto its rational grid) on ℤ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CountNoise {
    Float(Laplace),
    Discrete {
        noise: DiscreteLaplace,
        sensitivity: f64,
        secure: bool,
    },
}

impl CountNoise {
    pub fn for_privacy(
        mode: NoiseMode,
        sensitivity: f64,
        epsilon: f64,
    ) -> Result<Self, super::PrivacyError> {
        Ok(match mode {
            NoiseMode::Float => Self::Float(Laplace::for_privacy(sensitivity, epsilon)?),
            NoiseMode::Exact | NoiseMode::Secure => Self::Discrete {
                noise: DiscreteLaplace::for_privacy(sensitivity, epsilon)?,
                sensitivity,
                secure: mode == NoiseMode::Secure,
            },
        })
    }

    pub fn mode(&self) -> NoiseMode {
        match self {
            Self::Float(_) => NoiseMode::Float,
            Self::Discrete { secure: false, .. } => NoiseMode::Exact,
            Self::Discrete { secure: true, .. } => NoiseMode::Secure,
        }
    }

    /// The scale of the noise (the rounded-up rational one in the exact modes).
    pub fn scale(&self) -> f64 {
        match self {
            Self::Float(l) => l.scale(),
            Self::Discrete { noise, .. } => noise.scale().to_f64(),
        }
    }

    /// The privacy event of one release with this noise.
    pub fn event(&self) -> Event {
        match self {
            Self::Float(l) => l.event(),
            Self::Discrete {
                noise, sensitivity, ..
            } => Event::DiscreteLaplace {
                l1_sensitivity: *sensitivity,
                scale_num: noise.scale().num,
                scale_den: noise.scale().den,
                noise: self.mode(),
            },
        }
    }

    /// The generator of one release (see [`NoiseRng`]).
    pub fn rng<'a, R: Rng + ?Sized>(
        &self,
        task: &'a mut R,
    ) -> Result<NoiseRng<'a, R>, SystemRandomError> {
        NoiseRng::new(self.mode(), task)
    }

    /// `count` plus one draw of noise. In the exact modes the count must be a
    /// whole number (it is a count; |count| < 2⁵³): the sum is taken in integers,
    /// and turning it into a float afterwards is post-processing.
    pub fn add<R: Rng + ?Sized>(&self, count: f64, rng: &mut R) -> f64 {
        match self {
            Self::Float(l) => count + l.sample(rng),
            Self::Discrete { noise, .. } => {
                debug_assert!(count.fract() == 0.0 && count.abs() < 2f64.powi(53));
                (count as i128 + noise.sample(rng)) as f64
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn float_mode_draws_exactly_what_laplace_draws() {
        let lap = Laplace::for_privacy(2.0, 0.5).unwrap();
        let noise = CountNoise::for_privacy(NoiseMode::Float, 2.0, 0.5).unwrap();
        let (mut a, mut b) = (ChaCha8Rng::seed_from_u64(1), ChaCha8Rng::seed_from_u64(1));
        let mut r = noise.rng(&mut b).unwrap();
        for _ in 0..100 {
            assert_eq!(
                (7.0 + lap.sample(&mut a)).to_bits(),
                noise.add(7.0, &mut r).to_bits()
            );
        }
        assert_eq!(noise.event(), lap.event());
    }

    #[test]
    fn exact_mode_releases_integers_and_is_seeded() {
        let noise = CountNoise::for_privacy(NoiseMode::Exact, 2.0, 0.5).unwrap();
        let draw = |seed| {
            let mut task = ChaCha8Rng::seed_from_u64(seed);
            let mut r = noise.rng(&mut task).unwrap();
            (0..50).map(|_| noise.add(3.0, &mut r)).collect::<Vec<_>>()
        };
        let a = draw(3);
        assert!(a.iter().all(|x| x.fract() == 0.0));
        assert_eq!(a, draw(3));
        assert_eq!(noise.event().pure_epsilon(), Some(0.5));
    }

    #[test]
    fn secure_mode_ignores_the_seed() {
        let noise = CountNoise::for_privacy(NoiseMode::Secure, 2.0, 0.5).unwrap();
        let draw = || {
            let mut task = ChaCha8Rng::seed_from_u64(3);
            let mut r = noise.rng(&mut task).unwrap();
            (0..50).map(|_| noise.add(3.0, &mut r)).collect::<Vec<_>>()
        };
        // two releases from the same seed differ (50 draws of scale 4 agree
        // by chance with probability far below 10⁻³⁰)
        assert_ne!(draw(), draw());
        assert_eq!(noise.mode(), NoiseMode::Secure);
    }

    #[test]
    fn modes_parse_and_print() {
        for &m in NoiseMode::ALL {
            assert_eq!(NoiseMode::parse(m.as_str()), Some(m));
        }
        assert_eq!(NoiseMode::parse("fast"), None);
        assert!(!NoiseMode::Secure.reproducible());
    }
}
