//! Foulds et al. 2016 §4.2's per-cell Laplace release of the war-log HMM's
//! histograms, read by data-augmentation MCMC (Ju, Awan, Gong & Rao 2022).
//!
//! The release ([`crate::hmm::laplace::LaplaceRelease`]): for every kept
//! (region, month) cell and feature d, each count of the cell's histogram plus
//! Laplace(2/ε_d) noise (the discrete Laplace of that scale in the exact
//! modes), clamped at 0 (Foulds et al. eq. 16). The confidential records are
//! the events of the training cells; a cell's number of events is public, as
//! the release's replace-one sensitivity Δ_d = 2 assumes. θ is the HMM's
//! state: every cell's latent state z, the emissions φ and the transition
//! counts (the transition rows are integrated out, as in
//! [`crate::hmm::gibbs::Gibbs`]).
//!
//! The target is p(θ) Π_cells Π_events Π_d φ_{z_c,d}(x_{e,d}) ·
//! Π_cells Π_d η_d(ỹ_{c,d} | h_{c,d}(x)), h_{c,d} the cell's feature-d
//! histogram. One iteration:
//! 1. θ | x: one sweep of the HMM's Gibbs sampler on the augmented histograms
//!    (φ | z, x, then each z | the rest). That sweep leaves θ | x invariant but is
//!    not an exact draw, so this chain runs here rather than in
//!    [`crate::damcmc::sample`], whose models draw θ | x exactly; it reads the
//!    same release densities ([`crate::damcmc::Release`]).
//! 2. x | θ, release — Ju et al.'s record-wise kernel. Given z, an event's
//!    features are independent draws from φ_{z_c,d}, and feature d's release
//!    reads only feature d's counts, so each (event, feature) value is updated
//!    on its own: propose v* ~ φ_{z_c,d} and accept with
//!    min(1, η_d(ỹ_{c,d} | h − e_v + e_{v*}) / η_d(ỹ_{c,d} | h)) (the model's
//!    factors cancel because the proposal is the model). A move shifts one
//!    unit between two counts of one histogram (L1 change 2 = Δ_d), so it is
//!    accepted with probability ≥ e^{−2/b_d} = e^{−ε_d}: Ju et al.'s bound,
//!    per feature.
//!
//! One iteration costs the number of training events times the number of
//! features (each proposal O(log K_d) for the categorical draw, O(1) for the
//! density ratio), plus one Gibbs sweep over the cells.

use rand::{Rng, RngExt};

use crate::damcmc::{Clamp, Noise, Release, ReleaseError};
use crate::hmm::gibbs::{Gibbs, Model, State};
use crate::hmm::Histograms;

/// The per-cell release of an HMM's histograms and the model that reads it.
#[derive(Debug, Clone)]
pub struct PerCellHmm {
    model: Model,
    held_out: Vec<Vec<bool>>,
    cards: Vec<usize>,
    /// the training cells (region, cell), in region and time order
    cells: Vec<(usize, usize)>,
    /// per feature: the released histograms of the training cells, cell t's
    /// value v at coordinate t·K_d + v
    releases: Vec<Release>,
}

/// One chain's state: θ (the HMM state), the augmented histograms it was drawn
/// from, every training event's feature values and ln η per released count.
#[derive(Debug, Clone)]
pub struct AugmentedState {
    /// the confidential histograms as the chain imagines them (held-out cells
    /// are zeros: the sampler never reads them)
    pub hist: Histograms,
    pub state: State,
    /// per training cell t and feature d (index t·D + d), each event's value
    values: Vec<Vec<u32>>,
    /// per feature, ln η of each released count given `hist`
    ln_eta: Vec<Vec<f64>>,
}

/// What the record updates of one or more iterations did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Moves {
    /// (event, feature) proposals
    pub proposals: u64,
    /// proposals of a different value (the others leave the statistic as it is)
    pub changing: u64,
    /// accepted proposals of a different value
    pub moves: u64,
}

impl std::ops::AddAssign for Moves {
    fn add_assign(&mut self, o: Self) {
        self.proposals += o.proposals;
        self.changing += o.changing;
        self.moves += o.moves;
    }
}

impl PerCellHmm {
    /// `released` holds the noisy, clamped histograms of every cell (and each
    /// cell's public event count); `noise[d]` is feature d's law. Held-out cells'
    /// releases are not read. Errors name the release coordinate that is not a
    /// possible output of the mechanism.
    pub fn new(
        released: &Histograms,
        held_out: &[Vec<bool>],
        noise: &[Noise],
        model: Model,
    ) -> Result<Self, ReleaseError> {
        if noise.len() != released.cards.len() {
            return Err(ReleaseError::new(
                "noise",
                format!("{} laws", noise.len()),
                format!("one per feature ({})", released.cards.len()),
            ));
        }
        let mut cells = Vec::new();
        let mut values: Vec<Vec<f64>> = vec![Vec::new(); released.cards.len()];
        for (r, (_, row)) in released.regions.iter().enumerate() {
            for (i, cell) in row.iter().enumerate() {
                if held_out[r][i] {
                    continue;
                }
                cells.push((r, i));
                for (d, counts) in cell.counts.iter().enumerate() {
                    values[d].extend_from_slice(counts);
                }
            }
        }
        let releases = values
            .into_iter()
            .zip(noise)
            .map(|(v, &law)| {
                let len = v.len();
                Release::new(v, law, Clamp::NON_NEGATIVE, len)
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            model,
            held_out: held_out.to_vec(),
            cards: released.cards.clone(),
            cells,
            releases,
        })
    }

    /// The smallest per-proposal acceptance bound over the features, e^{−2/b_d}
    /// (`None` for a Gaussian law, which no ε bounds).
    pub fn acceptance_bound(&self) -> Option<f64> {
        self.releases
            .iter()
            .map(|r| crate::damcmc::acceptance_bound(&r.noise, 2.0))
            .try_fold(1.0_f64, |m, b| b.map(|b| m.min(b)))
    }

    /// The chain's start: states uniform at random and φ uniform
    /// ([`State::random`]), every training event's values drawn from that φ.
    pub fn start(&self, layout: &Histograms, rng: &mut impl Rng) -> AugmentedState {
        let state = State::random(layout, self.model.states, rng);
        let mut hist = layout.clone();
        for (_, row) in hist.regions.iter_mut() {
            for cell in row.iter_mut() {
                cell.counts.iter_mut().for_each(|c| c.fill(0.0));
            }
        }
        let mut values = Vec::with_capacity(self.cells.len() * self.cards.len());
        for &(r, i) in &self.cells {
            let cell = &mut hist.regions[r].1[i];
            for (d, &k) in self.cards.iter().enumerate() {
                let v: Vec<u32> = (0..cell.events)
                    .map(|_| rng.random_range(0..k as u32))
                    .collect();
                for &x in &v {
                    cell.counts[d][x as usize] += 1.0;
                }
                values.push(v);
            }
        }
        let mut s = AugmentedState {
            hist,
            state,
            values,
            ln_eta: Vec::new(),
        };
        s.ln_eta = self
            .releases
            .iter()
            .enumerate()
            .map(|(d, rel)| {
                let k = self.cards[d];
                (0..rel.values.len())
                    .map(|j| {
                        let (r, i) = self.cells[j / k];
                        rel.ln_coordinate(j, s.hist.regions[r].1[i].counts[d][j % k])
                    })
                    .collect()
            })
            .collect();
        s
    }

    /// The HMM's Gibbs sampler on the augmented histograms (held-out cells
    /// masked): the θ step, and the held-out likelihood's evaluator.
    pub fn gibbs<'s>(&self, s: &'s AugmentedState) -> Gibbs<'s> {
        self.gibbs_on(&s.hist)
    }

    fn gibbs_on<'h>(&self, hist: &'h Histograms) -> Gibbs<'h> {
        let mut g = Gibbs::new(hist, self.model.clone());
        g.held_out = self.held_out.clone();
        g
    }

    /// One iteration: θ | x by a Gibbs sweep, then every training event's
    /// features by the record-wise kernel.
    pub fn iterate(&self, s: &mut AugmentedState, rng: &mut impl Rng) -> Moves {
        self.gibbs_on(&s.hist).sweep(&mut s.state, rng);
        self.record_sweep(s, rng)
    }

    /// The record-wise kernel over every (event, feature) of the training cells.
    fn record_sweep(&self, s: &mut AugmentedState, rng: &mut impl Rng) -> Moves {
        // cumulative φ_{k,d} per state and feature, for the proposals
        let cdf: Vec<Vec<Vec<f64>>> = s
            .state
            .phi
            .iter()
            .map(|pk| {
                pk.iter()
                    .map(|p| {
                        p.iter()
                            .scan(0.0, |acc, &x| {
                                *acc += x;
                                Some(*acc)
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let mut m = Moves::default();
        let features = self.cards.len();
        for (t, &(r, i)) in self.cells.iter().enumerate() {
            let z = s.state.z[r][i];
            for (d, &k) in self.cards.iter().enumerate() {
                let rel = &self.releases[d];
                let base = t * k;
                let cdf = &cdf[z][d];
                let counts = &mut s.hist.regions[r].1[i].counts[d];
                let ln_eta = &mut s.ln_eta[d][base..base + k];
                let values = &mut s.values[t * features + d];
                m.proposals += values.len() as u64;
                for x in values.iter_mut() {
                    // v* ~ φ_{z,d}: the first value whose cumulative weight exceeds u
                    let u = rng.random::<f64>() * cdf[k - 1];
                    let b = cdf.partition_point(|&c| c <= u).min(k - 1);
                    let a = *x as usize;
                    if a == b {
                        continue;
                    }
                    m.changing += 1;
                    let la = rel.ln_coordinate(base + a, counts[a] - 1.0);
                    let lb = rel.ln_coordinate(base + b, counts[b] + 1.0);
                    let ln_r = la - ln_eta[a] + lb - ln_eta[b];
                    if ln_r >= 0.0 || rng.random::<f64>().ln() < ln_r {
                        counts[a] -= 1.0;
                        counts[b] += 1.0;
                        ln_eta[a] = la;
                        ln_eta[b] = lb;
                        *x = b as u32;
                        m.moves += 1;
                    }
                }
            }
        }
        m
    }
}

#[cfg(test)]
mod tests;
