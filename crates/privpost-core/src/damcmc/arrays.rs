//! Ju et al.'s record-wise step over arrays, for models defined outside Rust (a
//! Python model proposes every record at once; this does the accept/reject).
//!
//! The records' contributions to the released statistic are an n × m row-major
//! array, and so are the proposals'; the statistic is their column sums,
//! s = Σ_j c_j (Ju et al. 2022, eq. 1: s(x) = Σ t(x_j)). For j = 1..n in order, the
//! proposal replaces record j with probability
//! min(1, η(s_dp | s − c_j + c*_j)/η(s_dp | s)) — the ratio of
//! [`super::Kernel::RecordWise`], whose model terms cancel because the proposal
//! is drawn from the model f(· | θ) given the current θ. Only the coordinates
//! where c*_j and c_j differ are touched; a proposal that changes nothing is
//! accepted without a draw, as in the engine.
//!
//! η is a [`Density`]: one of privpost's laws ([`LawDensity`], a coordinate at a
//! time) or the caller's (the Python module's user log density, the whole
//! statistic at once, fallible).

use rand::{Rng, RngExt};

use super::release::Release;

/// What one sweep did: proposals accepted (one that changes nothing counts as
/// accepted, as in the engine), and of those that would change the statistic, how
/// many there were and how many were accepted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ArraySweep {
    pub accepted: u64,
    pub changing: u64,
    pub moves: u64,
}

impl std::ops::AddAssign for ArraySweep {
    fn add_assign(&mut self, o: Self) {
        self.accepted += o.accepted;
        self.changing += o.changing;
        self.moves += o.moves;
    }
}

/// The release's log density ln η(s_dp | s) as the sweep needs it.
pub trait Density {
    type Error;
    /// Sets the state to s and returns ln η(s_dp | s).
    fn reset(&mut self, stat: &[f64]) -> Result<f64, Self::Error>;
    /// ln η(s′) − ln η(s) for s′ = s with `touched` (coordinate, new value)
    /// replaced; remembers s′'s terms for [`Density::take`].
    fn ratio(&mut self, stat: &[f64], touched: &[(usize, f64)]) -> Result<f64, Self::Error>;
    /// The last [`Density::ratio`]'s s′ is the new state.
    fn take(&mut self, touched: &[(usize, f64)]);
}

/// η from a [`Release`]: a product over coordinates, ln η cached per coordinate.
#[derive(Debug, Clone)]
pub struct LawDensity {
    pub release: Release,
    ln_eta: Vec<f64>,
    pending: Vec<f64>,
}

impl LawDensity {
    pub fn new(release: Release) -> Self {
        Self {
            release,
            ln_eta: Vec::new(),
            pending: Vec::new(),
        }
    }
}

impl Density for LawDensity {
    type Error = std::convert::Infallible;

    fn reset(&mut self, stat: &[f64]) -> Result<f64, Self::Error> {
        self.ln_eta.clear();
        self.ln_eta.extend(
            stat.iter()
                .enumerate()
                .map(|(k, &s)| self.release.ln_coordinate(k, s)),
        );
        Ok(self.ln_eta.iter().sum())
    }

    fn ratio(&mut self, _stat: &[f64], touched: &[(usize, f64)]) -> Result<f64, Self::Error> {
        self.pending.clear();
        let mut ln_r = 0.0;
        for &(k, s) in touched {
            let l = self.release.ln_coordinate(k, s);
            ln_r += l - self.ln_eta[k];
            self.pending.push(l);
        }
        Ok(ln_r)
    }

    fn take(&mut self, touched: &[(usize, f64)]) {
        for (&(k, _), &l) in touched.iter().zip(&self.pending) {
            self.ln_eta[k] = l;
        }
    }
}

/// The records' contributions and the statistic of one chain.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayState {
    /// n × m, row-major
    pub current: Vec<f64>,
    pub stat: Vec<f64>,
    m: usize,
}

impl ArrayState {
    /// The state of `current` (n × m, n ≥ 1, m ≥ 1): s = its column sums.
    /// Panics when `current` is not a whole number of rows of m (the caller
    /// checks the shapes with the user's names).
    pub fn new(current: Vec<f64>, m: usize) -> Self {
        assert!(m > 0 && current.len().is_multiple_of(m));
        let mut state = Self {
            current,
            stat: vec![0.0; m],
            m,
        };
        state.recount();
        state
    }

    /// The number of records.
    pub fn n(&self) -> usize {
        self.current.len() / self.m
    }

    /// s recomputed from the records, summed in record order (once per sweep,
    /// so sums of real contributions do not drift).
    pub fn recount(&mut self) {
        self.stat.iter_mut().for_each(|s| *s = 0.0);
        for row in self.current.chunks_exact(self.m) {
            for (s, c) in self.stat.iter_mut().zip(row) {
                *s += c;
            }
        }
    }

    /// One record-wise sweep (module docs): each accepted row of `proposed`
    /// replaces the current one, `accepted[j]` says whether row j was taken;
    /// then s is recounted and η reset to it. Panics when the shapes disagree.
    pub fn sweep<D: Density, R: Rng + ?Sized>(
        &mut self,
        density: &mut D,
        proposed: &[f64],
        accepted: &mut [bool],
        rng: &mut R,
    ) -> Result<ArraySweep, D::Error> {
        let m = self.m;
        assert!(self.current.len() == proposed.len() && proposed.len() == accepted.len() * m);
        let mut out = ArraySweep::default();
        let mut touched: Vec<(usize, f64)> = Vec::with_capacity(m);
        for (j, take) in accepted.iter_mut().enumerate() {
            let row = j * m..(j + 1) * m;
            touched.clear();
            for (k, (&c, &p)) in self.current[row.clone()]
                .iter()
                .zip(&proposed[row.clone()])
                .enumerate()
            {
                if c != p {
                    touched.push((k, self.stat[k] - c + p));
                }
            }
            if touched.is_empty() {
                *take = true;
                out.accepted += 1;
                continue;
            }
            out.changing += 1;
            let ln_r = density.ratio(&self.stat, &touched)?;
            *take = ln_r >= 0.0 || rng.random::<f64>().ln() < ln_r;
            if *take {
                density.take(&touched);
                for &(k, s) in &touched {
                    self.stat[k] = s;
                }
                self.current[row.clone()].copy_from_slice(&proposed[row]);
                out.accepted += 1;
                out.moves += 1;
            }
        }
        self.recount();
        density.reset(&self.stat)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::damcmc::{Clamp, Noise};
    use rand::SeedableRng;

    /// A Beta-Bernoulli chain written with arrays (θ | x conjugate, x* ~ Bernoulli(θ)
    /// for every record) has the built-in model's posterior: the means against the
    /// exact noise-aware posterior by brute force over the count.
    #[test]
    fn a_beta_bernoulli_over_arrays_matches_brute_force() {
        let n = 12;
        let (a, b) = (2.0, 3.0);
        let release = Release::new(
            vec![8.3],
            Noise::Laplace { scale: 1.5 },
            Clamp::default(),
            1,
        )
        .unwrap();
        // exact: p(k) ∝ C(n, k) B(a + k, b + n − k) η(8.3 | k); E[θ | k] = (a + k)/(a + b + n)
        let ln_beta = |x: f64, y: f64| {
            use statrs::function::gamma::ln_gamma;
            ln_gamma(x) + ln_gamma(y) - ln_gamma(x + y)
        };
        let ln_choose = |n: usize, k: usize| {
            use statrs::function::gamma::ln_gamma;
            ln_gamma(n as f64 + 1.0) - ln_gamma(k as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0)
        };
        let w: Vec<f64> = (0..=n)
            .map(|k| {
                (ln_choose(n, k)
                    + ln_beta(a + k as f64, b + (n - k) as f64)
                    + release.ln_coordinate(0, k as f64))
                .exp()
            })
            .collect();
        let z: f64 = w.iter().sum();
        let exact: f64 = (0..=n)
            .map(|k| w[k] / z * (a + k as f64) / (a + b + n as f64))
            .sum();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let mut density = LawDensity::new(release.clone());
        let mut state = ArrayState::new(vec![0.0; n], 1);
        density.reset(&state.stat).unwrap();
        let mut proposed = vec![0.0; n];
        let mut accepted = vec![false; n];
        let mut draws = Vec::new();
        for it in 0..60_000 {
            let ones: f64 = state.current.iter().sum();
            let theta = rand_distr::Distribution::sample(
                &rand_distr::Beta::new(a + ones, b + n as f64 - ones).unwrap(),
                &mut rng,
            );
            for p in proposed.iter_mut() {
                *p = f64::from(u8::from(rng.random::<f64>() < theta));
            }
            let Ok(sweep) = state.sweep(&mut density, &proposed, &mut accepted, &mut rng);
            assert_eq!(state.stat[0], state.current.iter().sum::<f64>());
            assert!(sweep.moves <= sweep.changing && sweep.accepted <= n as u64);
            if it >= 1000 {
                draws.push(theta);
            }
        }
        let (mean, var) = crate::stats::diagnostics::mean_var(&draws);
        let ess = crate::stats::diagnostics::ess(&[draws.clone()]);
        let se = (var / ess).sqrt();
        assert!(
            (mean - exact).abs() < 4.0 * se,
            "{mean} vs {exact} (se {se})"
        );
    }
}
