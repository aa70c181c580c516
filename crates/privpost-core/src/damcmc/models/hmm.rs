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
//!    That is [`CellKernel::RecordWise`]. [`CellKernel::Counts`] (the default)
//!    uses that the events of one cell share their state, so they are
//!    exchangeable: only the cell's histogram matters, and the step moves
//!    counts. Per cell and feature, the values are paired at random (a binary
//!    feature's two values every sweep) and each pair's split
//!    (h_a, h_b), h_a + h_b = s fixed, is drawn exactly from its conditional
//!    p(j) ∝ C(s, j) φ_a^j φ_b^{s−j} η_d(ỹ_a | j) η_d(ỹ_b | s − j) — the
//!    multinomial's and the release's factors of the two counts
//!    ([`crate::damcmc::log_concave`], log-concave for every law read here).
//!    Each pair step is a Gibbs step of the target on the histogram, so the
//!    kernel leaves it invariant; over sweeps the random pairings connect every
//!    value with every other.
//!
//! One record-wise iteration costs at most the number of training events times
//! the number of features (each proposal O(1): an alias-table draw and two
//! coordinates of the density; a binary feature's proposals that would not move
//! are skipped, see [`scan_binary`]); one count-level iteration about ⌈K_d/2⌉
//! exact pair draws per cell and feature, O(log s) density evaluations each.
//! Both add one Gibbs sweep over the cells.

use rand::seq::SliceRandom;
use rand::{Rng, RngExt};
use rand_distr::weighted::WeightedAliasIndex;
use rand_distr::{Distribution, Geometric};

use crate::damcmc::{Clamp, Noise, Release, ReleaseError};
use crate::hmm::gibbs::{Gibbs, Model, State};
use crate::hmm::Histograms;

/// How [`PerCellHmm::iterate`] moves the training events' features.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CellKernel {
    /// Ju et al.'s record-wise kernel: one proposal per event and feature.
    RecordWise,
    /// Exact Gibbs draws of randomly paired counts of each cell's histogram.
    #[default]
    Counts,
}

/// The per-cell release of an HMM's histograms and the model that reads it.
#[derive(Debug, Clone)]
pub struct PerCellHmm {
    model: Model,
    kernel: CellKernel,
    /// ln j! for j up to the largest training cell's number of events
    ln_fact: Vec<f64>,
    held_out: Vec<Vec<bool>>,
    cards: Vec<usize>,
    /// the training cells (region, cell), in region and time order
    cells: Vec<(usize, usize)>,
    /// per feature: the released histograms of the training cells, cell t's
    /// value v at coordinate t·K_d + v
    releases: Vec<Release>,
}

/// One chain's state: θ (the HMM state), the augmented histograms it was drawn
/// from (whose training cells hold the records' counts), the values of every
/// training event's features of more than two values (record-wise kernel
/// only), and ln η per released count.
#[derive(Debug, Clone)]
pub struct AugmentedState {
    /// the confidential histograms as the chain imagines them (held-out cells
    /// are zeros: the sampler never reads them)
    pub hist: Histograms,
    pub state: State,
    /// per training cell t and feature d (index t·D + d), each event's value;
    /// empty for a binary feature, whose counts say all there is, and for
    /// every feature under the count kernel
    values: Vec<Vec<u32>>,
    /// per feature, ln η of each released count given `hist`
    ln_eta: Vec<Vec<f64>>,
}

/// What the record updates of one or more iterations did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Moves {
    /// (event, feature) proposals; under the count kernel, pair draws
    pub proposals: u64,
    /// proposals of a different value (the others leave the statistic as it
    /// is); pair draws of a non-empty pair
    pub changing: u64,
    /// accepted proposals of a different value; pair draws that changed the split
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
        let mut most = 0;
        let mut values: Vec<Vec<f64>> = vec![Vec::new(); released.cards.len()];
        for (r, (_, row)) in released.regions.iter().enumerate() {
            for (i, cell) in row.iter().enumerate() {
                if held_out[r][i] {
                    continue;
                }
                cells.push((r, i));
                most = most.max(cell.events);
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
        let mut ln_fact = Vec::with_capacity(most + 1);
        ln_fact.push(0.0);
        for j in 1..=most {
            ln_fact.push(ln_fact[j - 1] + (j as f64).ln());
        }
        Ok(Self {
            model,
            kernel: CellKernel::default(),
            ln_fact,
            held_out: held_out.to_vec(),
            cards: released.cards.clone(),
            cells,
            releases,
        })
    }

    /// The same sampler with `kernel` moving the records.
    pub fn with_kernel(mut self, kernel: CellKernel) -> Self {
        self.kernel = kernel;
        self
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
    /// ([`State::random`]); each training cell's histogram of feature d is the
    /// release read as counts — its clamped noisy values, scaled to the cell's
    /// events and rounded by largest remainder (uniform where every value is 0) —
    /// so the records start where the release points rather than at noise.
    pub fn start(&self, layout: &Histograms, rng: &mut impl Rng) -> AugmentedState {
        let state = State::random(layout, self.model.states, rng);
        let mut hist = layout.clone();
        for (_, row) in hist.regions.iter_mut() {
            for cell in row.iter_mut() {
                cell.counts.iter_mut().for_each(|c| c.fill(0.0));
            }
        }
        let mut values = Vec::with_capacity(self.cells.len() * self.cards.len());
        for (t, &(r, i)) in self.cells.iter().enumerate() {
            let cell = &mut hist.regions[r].1[i];
            for (d, &k) in self.cards.iter().enumerate() {
                let released = &self.releases[d].values[t * k..(t + 1) * k];
                let h = largest_remainder(released, cell.events);
                let mut v = Vec::new();
                for (x, &c) in h.iter().enumerate() {
                    if k > 2 && self.kernel == CellKernel::RecordWise {
                        v.extend(std::iter::repeat_n(x as u32, c));
                    }
                    cell.counts[d][x] = c as f64;
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
    /// features by the sampler's kernel ([`CellKernel`]).
    pub fn iterate(&self, s: &mut AugmentedState, rng: &mut impl Rng) -> Moves {
        self.gibbs_on(&s.hist).sweep(&mut s.state, rng);
        match self.kernel {
            CellKernel::RecordWise => self.record_sweep(s, rng),
            CellKernel::Counts => self.count_sweep(s, rng),
        }
    }

    /// The count kernel: per training cell and feature, the values in a random
    /// order taken two at a time (an odd one out rests this sweep), each pair's
    /// split drawn exactly from its conditional ([`CellFeature::pair`]).
    fn count_sweep(&self, s: &mut AugmentedState, rng: &mut impl Rng) -> Moves {
        let ln_phi = s.state.ln_phi();
        let mut m = Moves::default();
        let mut order: Vec<usize> = Vec::new();
        self.each_cell_feature(s, |_, z, d, cf, _| {
            let k = cf.counts.len();
            order.clear();
            order.extend(0..k);
            if k > 2 {
                order.shuffle(rng);
            }
            for p in order.chunks_exact(2) {
                cf.pair(p[0], p[1], &ln_phi[z][d], &self.ln_fact, &mut m, rng);
            }
        });
        m
    }

    /// Calls `f(θ, z, d, cell feature, values)` for every training cell (in
    /// order) and feature d, z the cell's state and `values` its events' values
    /// of d (empty unless the record-wise kernel keeps them).
    fn each_cell_feature(
        &self,
        s: &mut AugmentedState,
        mut f: impl FnMut(&State, usize, usize, &mut CellFeature, &mut Vec<u32>),
    ) {
        let features = self.cards.len();
        for (t, &(r, i)) in self.cells.iter().enumerate() {
            let z = s.state.z[r][i];
            for (d, &k) in self.cards.iter().enumerate() {
                let base = t * k;
                let mut cf = CellFeature {
                    release: &self.releases[d],
                    base,
                    counts: &mut s.hist.regions[r].1[i].counts[d],
                    ln_eta: &mut s.ln_eta[d][base..base + k],
                };
                f(&s.state, z, d, &mut cf, &mut s.values[t * features + d]);
            }
        }
    }

    /// The record-wise kernel over every (event, feature) of the training cells:
    /// a feature of more than two values by a systematic scan over the events
    /// ([`scan_events`]), a binary one by as many random-scan updates
    /// ([`scan_binary`]), whose proposals that would not move are skipped.
    fn record_sweep(&self, s: &mut AugmentedState, rng: &mut impl Rng) -> Moves {
        // φ_{k,d} per state and feature as alias tables (Walker's method,
        // rand_distr's WeightedAliasIndex): one proposal in O(1)
        let alias: Vec<Vec<Option<WeightedAliasIndex<f64>>>> = s
            .state
            .phi
            .iter()
            .map(|pk| {
                pk.iter()
                    .map(|p| {
                        if p.len() > 2 {
                            WeightedAliasIndex::new(p.clone()).ok()
                        } else {
                            None
                        }
                    })
                    .collect()
            })
            .collect();
        let mut m = Moves::default();
        self.each_cell_feature(s, |state, z, d, cf, values| {
            if cf.counts.len() == 2 {
                scan_binary(cf, &state.phi[z][d], &mut m, rng);
            } else if let Some(table) = &alias[z][d] {
                scan_events(cf, values, table, &mut m, rng);
            } else {
                // φ is a probability vector (the Dirichlet sampler normalises,
                // or falls back to a vertex), so its table exists; were it
                // not, the records would stay as they are this sweep
                m.proposals += values.len() as u64;
            }
        });
        m
    }
}

/// One training cell's histogram of one feature, its release and ln η.
struct CellFeature<'a> {
    release: &'a Release,
    /// the release coordinate of value 0
    base: usize,
    counts: &'a mut [f64],
    ln_eta: &'a mut [f64],
}

impl CellFeature<'_> {
    /// The Metropolis step moving one event from value a to b ≠ a: accepted
    /// with min(1, η(ỹ | h − e_a + e_b) / η(ỹ | h)).
    fn step(&mut self, a: usize, b: usize, rng: &mut impl Rng) -> bool {
        let la = self
            .release
            .ln_coordinate(self.base + a, self.counts[a] - 1.0);
        let lb = self
            .release
            .ln_coordinate(self.base + b, self.counts[b] + 1.0);
        let ln_r = la - self.ln_eta[a] + lb - self.ln_eta[b];
        if ln_r >= 0.0 || rng.random::<f64>().ln() < ln_r {
            self.counts[a] -= 1.0;
            self.counts[b] += 1.0;
            self.ln_eta[a] = la;
            self.ln_eta[b] = lb;
            true
        } else {
            false
        }
    }

    /// The count kernel's step: the s events of values a and b split anew,
    /// h_a = j with probability ∝ C(s, j) φ_a^j φ_b^{s−j} η(ỹ_a | j) η(ỹ_b | s − j)
    /// (`ln_phi` = ln φ of the cell's state; `ln_fact`[j] = ln j!). A value of
    /// φ = 0 gets none of the pair's events.
    fn pair(
        &mut self,
        a: usize,
        b: usize,
        ln_phi: &[f64],
        ln_fact: &[f64],
        m: &mut Moves,
        rng: &mut impl Rng,
    ) {
        m.proposals += 1;
        let s = (self.counts[a] + self.counts[b]) as usize;
        if s == 0 {
            return;
        }
        m.changing += 1;
        let (pa, pb) = (ln_phi[a], ln_phi[b]);
        let now = self.counts[a] as usize;
        let j = match (pa == f64::NEG_INFINITY, pb == f64::NEG_INFINITY) {
            (true, true) => now,
            (true, false) => 0,
            (false, true) => s,
            (false, false) => {
                let (rel, ya, yb) = (self.release, self.base + a, self.base + b);
                let ln_p = |j: usize| {
                    let (jf, rest) = (j as f64, (s - j) as f64);
                    jf * pa + rest * pb - ln_fact[j] - ln_fact[s - j]
                        + rel.ln_coordinate(ya, jf)
                        + rel.ln_coordinate(yb, rest)
                };
                crate::damcmc::log_concave::draw(s, now, ln_p, rng)
            }
        };
        if j != now {
            m.moves += 1;
            let (ja, jb) = (j as f64, (s - j) as f64);
            self.counts[a] = ja;
            self.counts[b] = jb;
            self.ln_eta[a] = self.release.ln_coordinate(self.base + a, ja);
            self.ln_eta[b] = self.release.ln_coordinate(self.base + b, jb);
        }
    }
}

/// Ju et al.'s record-wise kernel, a systematic scan: each event in turn
/// proposes v* ~ φ (`table`); a proposal of its own value leaves the counts as
/// they are.
fn scan_events(
    cf: &mut CellFeature,
    values: &mut [u32],
    table: &WeightedAliasIndex<f64>,
    m: &mut Moves,
    rng: &mut impl Rng,
) {
    m.proposals += values.len() as u64;
    for x in values.iter_mut() {
        let b = table.sample(rng);
        let a = *x as usize;
        if a == b {
            continue;
        }
        m.changing += 1;
        if cf.step(a, b, rng) {
            *x = b as u32;
            m.moves += 1;
        }
    }
}

/// The record-wise kernel on a binary feature by random scan: n updates, each
/// of a uniformly chosen event (value a with probability h_a/n) proposing
/// v* ~ φ. A proposal moves only when v* ≠ a, with probability
/// p = (h₀φ₁ + h₁φ₀)/n given the counts, so the updates that would not move are
/// skipped in one Geometric(p) draw, and a moving one is a → 1 − a with a = 0
/// with probability h₀φ₁/(np): the same law as n single updates (the choice
/// of event does not depend on the values, as a scan grouped by value would).
/// p is recomputed after every update that could move.
fn scan_binary(cf: &mut CellFeature, phi: &[f64], m: &mut Moves, rng: &mut impl Rng) {
    let n = (cf.counts[0] + cf.counts[1]) as u64;
    m.proposals += n;
    let mut left = n;
    while left > 0 {
        let (w0, w1) = (cf.counts[0] * phi[1], cf.counts[1] * phi[0]);
        let p = (w0 + w1) / n as f64;
        // p is 0 when no update can move (or NaN from a degenerate φ): stop
        if p.is_nan() || p <= 0.0 {
            break;
        }
        let skip = if p >= 1.0 {
            0
        } else {
            Geometric::new(p).map_or(u64::MAX, |g| g.sample(rng))
        };
        if skip >= left {
            break;
        }
        left -= skip + 1;
        m.changing += 1;
        let a = usize::from(rng.random::<f64>() * (w0 + w1) >= w0);
        if cf.step(a, 1 - a, rng) {
            m.moves += 1;
        }
    }
}

/// `n` split over the values in proportion to `weights` (clamped at 0; equal
/// where they sum to 0), rounded by largest remainder (ties to the lower value):
/// the counts sum to `n`.
fn largest_remainder(weights: &[f64], n: usize) -> Vec<usize> {
    let w: Vec<f64> = weights.iter().map(|&x| x.max(0.0)).collect();
    let total: f64 = w.iter().sum();
    let share: Vec<f64> = if total > 0.0 {
        w.iter().map(|x| x / total * n as f64).collect()
    } else {
        vec![n as f64 / w.len() as f64; w.len()]
    };
    let mut h: Vec<usize> = share.iter().map(|s| s.floor() as usize).collect();
    let mut left = n.saturating_sub(h.iter().sum());
    let mut order: Vec<usize> = (0..w.len()).collect();
    order.sort_by(|&a, &b| {
        (share[b] - share[b].floor())
            .total_cmp(&(share[a] - share[a].floor()))
            .then(a.cmp(&b))
    });
    for &x in order.iter().cycle() {
        if left == 0 {
            break;
        }
        h[x] += 1;
        left -= 1;
    }
    h
}

#[cfg(test)]
mod tests;
