//! Data-augmentation MCMC: the posterior of θ given a private release s_dp of a
//! statistic of confidential records x (Ju, Awan, Gong & Rao, "Data
//! Augmentation MCMC for Bayesian Inference from Privatized Data", NeurIPS 2022).
//!
//! The chain samples (θ, x) from π(θ) Π_j f(x_j | θ) η(s_dp | s(x)), where η is
//! the release's density ([`release::Release`]). One iteration:
//! 1. θ | x with the model's ordinary sampler (conjugate for the models here);
//! 2. the records, by one of two kernels ([`Kernel`]):
//!    - **record-wise** (Ju et al.): for each j, propose
//!      x_j* ~ f(· | θ) and accept with min(1, η(s_dp | s(x*)) / η(s_dp | s(x))).
//!      The model's terms cancel because the proposal is the model itself, and
//!      only the coordinates of s that x_j and x_j* touch change, so one update
//!      costs the size of one record's contribution, not n. For a release that
//!      is ε-DP under replacing one record, every proposal is accepted with
//!      probability ≥ e^{−ε} (Ju et al.'s bound);
//!    - **SOMA** (Xiong & Ju 2025, arXiv 2505.00635, "single offer, multiple
//!      attempts"): n times per iteration, one offer y ~ f(· | θ) is weighed
//!      against every record it could replace: record i with weight
//!      g_i = η(s_dp | s(x with x_i → y)); index I is chosen with probability
//!      g_I / G, G = Σ_i g_i, and the move accepted with min(1, G / G′), where
//!      G′ is the same sum for the reverse offer x_I from the new state. The
//!      proposal density is f(y)·g_I/G and its reverse f(x_I)·η(s_dp | s(x))/G′;
//!      with the target's f(y)η(s′)/(f(x_I)η(s)) the MH ratio is G/G′ — the
//!      detailed-balance argument written out here is ours; the unit tests check
//!      the stationary law against the exact posteriors. Records with equal
//!      [`AugmentedModel::group`] keys contribute alike, so an offer costs the
//!      number of distinct groups, not n.
//!
//! Several chains run in parallel, each from its own stream ([`crate::rng::task_rng`]
//! of the seed and the chain's index), so the draws do not depend on the thread
//! count. The summary gives split-R̂ and bulk/tail ESS
//! ([`crate::stats::diagnostics::rank_diagnostics`]) and the record acceptance
//! rate beside its e^{−ε} bound. Inference is post-processing of the release:
//! it costs no privacy.

pub mod arrays;
pub mod coupling;
#[cfg(any(test, feature = "testutil"))]
pub mod exact;
pub mod log_concave;
pub mod models;
pub mod randomized_response;
pub mod release;
pub mod rr_logistic;
mod run;
#[cfg(test)]
pub(crate) mod tests;

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;

use rand::{Rng, RngExt};
use rayon::prelude::*;

pub use release::{Clamp, Noise, Release, ReleaseError};
pub use run::{check_moves, DaError, Draws, Kernel, ParameterSummary, Settings};

/// A model of n exchangeable records whose statistic is released.
pub trait AugmentedModel: Sync {
    type Record: Clone + Send + Sync;
    type Theta: Clone + Send;

    /// The number of confidential records.
    fn n(&self) -> usize;
    /// The length of the released statistic s(x) = Σ_j c(x_j).
    fn statistic_len(&self) -> usize;
    /// c(x): one record's contribution to the statistic, pushed as (coordinate,
    /// amount) pairs (coordinates not pushed are 0).
    fn contribution(&self, x: &Self::Record, out: &mut Vec<(usize, f64)>);
    /// A key shared only by records with equal contributions (SOMA weighs each
    /// group once).
    fn group(&self, x: &Self::Record) -> u64;
    /// θ from the prior (the chains' start).
    fn draw_prior<R: Rng + ?Sized>(&self, rng: &mut R) -> Self::Theta;
    /// One record from f(· | θ).
    fn draw_record<R: Rng + ?Sized>(&self, theta: &Self::Theta, rng: &mut R) -> Self::Record;
    /// θ | x: a draw from the posterior given the complete records.
    fn draw_theta<R: Rng + ?Sized>(&self, records: &[Self::Record], rng: &mut R) -> Self::Theta;
    /// The names of the reported parameters.
    fn parameter_names(&self) -> Vec<String>;
    /// The reported parameters of θ, in the order of [`Self::parameter_names`].
    fn parameters(&self, theta: &Self::Theta) -> Vec<f64>;
    /// The largest L1 change of the statistic when one record is replaced (the
    /// release's sensitivity, for the acceptance bound e^{−Δ₁/b}).
    fn l1_sensitivity(&self) -> f64;
}

/// The acceptance bound of the record-wise kernel: e^{−Δ₁/b} for a Laplace
/// release of scale b (ε = Δ₁/b under replacing one record, the bound Ju et al.
/// state); `None` for the Gaussian laws, which are not ε-DP for any finite ε.
pub fn acceptance_bound(noise: &Noise, l1_sensitivity: f64) -> Option<f64> {
    match *noise {
        Noise::Laplace { scale } | Noise::DiscreteLaplace { scale } => {
            Some((-l1_sensitivity / scale).exp())
        }
        Noise::Gaussian { .. } | Noise::DiscreteGaussian { .. } => None,
    }
}

/// The statistic s(x) = Σ_j c(x_j) of `records`, summed in record order.
pub fn statistic<M: AugmentedModel>(model: &M, records: &[M::Record]) -> Vec<f64> {
    let mut stat = vec![0.0; model.statistic_len()];
    let mut cells = Vec::new();
    for x in records {
        cells.clear();
        model.contribution(x, &mut cells);
        for &(k, v) in &cells {
            stat[k] += v;
        }
    }
    stat
}

/// One chain on an unclamped Laplace release of `values` with scale `scale`
/// (Ju et al.'s releases), started from `seed`'s stream: the release checked
/// against the model's statistic, the chain run, then [`Draws::check_mixing`].
pub fn laplace_chain<M: AugmentedModel>(
    model: &M,
    (values, scale): (Vec<f64>, f64),
    kernel: Kernel,
    (warmup, draws): (usize, usize),
    seed: u64,
) -> Result<Draws, DaError> {
    let release = Release::new(
        values,
        Noise::Laplace { scale },
        Clamp::NONE,
        model.statistic_len(),
    )?;
    let settings = Settings {
        warmup,
        draws,
        chains: 1,
        kernel,
        seed,
    };
    let draws = sample(model, &release, &settings)?;
    draws.check_mixing()?;
    Ok(draws)
}

/// Runs the chains. Refuses settings of zero iterations or chains and a release
/// of the wrong length; [`Draws::check_mixing`] then says whether the records moved.
pub fn sample<M: AugmentedModel>(
    model: &M,
    release: &Release,
    settings: &Settings,
) -> Result<Draws, DaError> {
    sample_until(model, release, settings, &AtomicBool::new(false))
}

/// [`sample`], ended early with [`DaError::Interrupted`] once `stop` is set: each
/// chain looks at it once per sweep of the records (a caller that cannot kill the
/// process, such as the Python package on Ctrl-C, sets it). Draws are the same as
/// [`sample`]'s when `stop` is never set.
pub fn sample_until<M: AugmentedModel>(
    model: &M,
    release: &Release,
    settings: &Settings,
    stop: &AtomicBool,
) -> Result<Draws, DaError> {
    check_settings(model, release, settings)?;
    let runs: Vec<Result<ChainRun, DaError>> = (0..settings.chains)
        .into_par_iter()
        .map(|c| {
            let mut rng = crate::rng::task_rng(settings.seed, c);
            Chain::start(model, release, c, &mut rng)?.run(settings, &mut rng, stop)
        })
        .collect();
    let mut draws = Draws {
        names: model.parameter_names(),
        chains: Vec::with_capacity(settings.chains),
        proposals: 0,
        accepted: 0,
        changing: 0,
        moves: 0,
    };
    for run in runs {
        let run = run?;
        draws.chains.push(run.draws);
        draws.proposals += run.proposals;
        draws.accepted += run.accepted;
        draws.changing += run.changing;
        draws.moves += run.moves;
    }
    Ok(draws)
}

fn check_settings<M: AugmentedModel>(
    model: &M,
    release: &Release,
    s: &Settings,
) -> Result<(), DaError> {
    let setting = |key: &'static str, found: usize, allowed: &str| DaError::Setting {
        key,
        found: found.to_string(),
        allowed: allowed.to_string(),
    };
    if s.draws == 0 {
        return Err(setting("draws", 0, "at least 1 draw per chain"));
    }
    if s.chains == 0 {
        return Err(setting("chains", 0, "at least 1 chain"));
    }
    if model.n() == 0 {
        return Err(setting("n", 0, "at least 1 record"));
    }
    if release.values.len() != model.statistic_len() {
        return Err(ReleaseError::new(
            "values",
            format!("{} values", release.values.len()),
            format!(
                "{} values, one per coordinate of the model's statistic",
                model.statistic_len()
            ),
        )
        .into());
    }
    Ok(())
}

struct ChainRun {
    draws: Vec<Vec<f64>>,
    proposals: u64,
    accepted: u64,
    changing: u64,
    moves: u64,
}

/// What one sweep of the records' kernel did.
#[derive(Default)]
struct Sweep {
    accepted: u64,
    changing: u64,
    moves: u64,
}

/// One chain's state: θ, the records, the statistic and ln η per coordinate.
struct Chain<'a, M: AugmentedModel> {
    model: &'a M,
    release: &'a Release,
    theta: M::Theta,
    records: Vec<M::Record>,
    stat: Vec<f64>,
    ln_eta: Vec<f64>,
    /// scratch: a proposal's change of the statistic
    delta: Vec<(usize, f64)>,
    /// SOMA's groups: key → member indices, and each record's place in its group
    groups: BTreeMap<u64, Vec<usize>>,
    place: Vec<usize>,
}

impl<'a, M: AugmentedModel> Chain<'a, M> {
    /// θ from the prior and records from f(· | θ) (as Ju et al.'s scripts start).
    fn start<R: Rng + ?Sized>(
        model: &'a M,
        release: &'a Release,
        chain: usize,
        rng: &mut R,
    ) -> Result<Self, DaError> {
        let theta = model.draw_prior(rng);
        let records: Vec<M::Record> = (0..model.n())
            .map(|_| model.draw_record(&theta, rng))
            .collect();
        let mut c = Self {
            model,
            release,
            theta,
            records,
            stat: Vec::new(),
            ln_eta: Vec::new(),
            delta: Vec::new(),
            groups: BTreeMap::new(),
            place: Vec::new(),
        };
        c.recount();
        if let Some(k) = c.ln_eta.iter().position(|x| *x == f64::NEG_INFINITY) {
            return Err(DaError::ImpossibleStart {
                chain,
                coordinate: k + 1,
            });
        }
        Ok(c)
    }

    /// The statistic and ln η recomputed from the records (once per iteration,
    /// so sums of real contributions do not drift).
    fn recount(&mut self) {
        self.stat = statistic(self.model, &self.records);
        self.ln_eta = (0..self.stat.len())
            .map(|k| self.release.ln_coordinate(k, self.stat[k]))
            .collect();
    }

    fn run<R: Rng + ?Sized>(
        mut self,
        s: &Settings,
        rng: &mut R,
        stop: &AtomicBool,
    ) -> Result<ChainRun, DaError> {
        if s.kernel == Kernel::Soma {
            self.build_groups();
        }
        let mut out = ChainRun {
            draws: Vec::with_capacity(s.draws),
            proposals: 0,
            accepted: 0,
            changing: 0,
            moves: 0,
        };
        for it in 0..s.warmup + s.draws {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(DaError::Interrupted);
            }
            self.theta = self.model.draw_theta(&self.records, rng);
            let sweep = match s.kernel {
                Kernel::RecordWise => self.record_sweep(rng),
                Kernel::Soma => self.soma_sweep(rng),
            };
            self.recount();
            if it >= s.warmup {
                out.proposals += self.records.len() as u64;
                out.accepted += sweep.accepted;
                out.changing += sweep.changing;
                out.moves += sweep.moves;
                out.draws.push(self.model.parameters(&self.theta));
            }
        }
        Ok(out)
    }

    /// ln η(s + Δ) − ln η(s) for the merged change Δ in `delta`.
    fn ln_ratio(&self, delta: &[(usize, f64)]) -> f64 {
        delta
            .iter()
            .map(|&(k, d)| self.release.ln_coordinate(k, self.stat[k] + d) - self.ln_eta[k])
            .sum()
    }

    /// Applies the merged change in `self.delta` to the statistic.
    fn apply(&mut self) {
        for &(k, d) in &self.delta {
            self.stat[k] += d;
            self.ln_eta[k] = self.release.ln_coordinate(k, self.stat[k]);
        }
    }

    /// Ju et al.'s sweep: one independent Metropolis proposal per record.
    fn record_sweep<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Sweep {
        let mut out = Sweep::default();
        for j in 0..self.records.len() {
            let new = self.model.draw_record(&self.theta, rng);
            replacement(self.model, &mut self.delta, &self.records[j], &new);
            let changes = !self.delta.is_empty();
            out.changing += u64::from(changes);
            let ln_r = self.ln_ratio(&self.delta);
            if ln_r >= 0.0 || rng.random::<f64>().ln() < ln_r {
                self.apply();
                self.records[j] = new;
                out.accepted += 1;
                out.moves += u64::from(changes);
            }
        }
        out
    }

    fn build_groups(&mut self) {
        self.groups.clear();
        self.place = vec![0; self.records.len()];
        for (i, x) in self.records.iter().enumerate() {
            let members = self.groups.entry(self.model.group(x)).or_default();
            self.place[i] = members.len();
            members.push(i);
        }
    }

    /// Moves record `i` from group `from` to group `to`.
    fn regroup(&mut self, i: usize, from: u64, to: u64) {
        if from == to {
            return;
        }
        let members = self.groups.get_mut(&from).expect("a record's group exists");
        let at = self.place[i];
        members.swap_remove(at);
        if let Some(&moved) = members.get(at) {
            self.place[moved] = at;
        }
        if members.is_empty() {
            self.groups.remove(&from);
        }
        let members = self.groups.entry(to).or_default();
        self.place[i] = members.len();
        members.push(i);
    }

    /// Xiong & Ju's sweep: n single offers, each weighed against every group
    /// (module docs).
    ///
    /// An offer costs one ratio per group. The reverse sum G′ needs no more:
    /// from the new state s′ = s + c(y) − c(x_I), the reverse offer x_I replacing
    /// a member m of group u gives s′ + c(x_I) − c(m) = s + c(y) − c(m), the
    /// forward argument of u; and replacing the record now holding y gives s. So
    /// G′ = G − g_from + η(s): the forward weights with one member moved from the
    /// chosen group to the offer's.
    fn soma_sweep<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Sweep {
        let mut out = Sweep::default();
        // scratch kept across offers: (key, size, a member's index), ln g/η(s), terms
        let mut units: Vec<(u64, f64, usize)> = Vec::with_capacity(self.groups.len() + 1);
        let mut lw: Vec<f64> = Vec::with_capacity(self.groups.len() + 1);
        let mut terms: Vec<f64> = Vec::with_capacity(self.groups.len() + 1);
        for _ in 0..self.records.len() {
            let offer = self.model.draw_record(&self.theta, rng);
            units.clear();
            units.extend(self.groups.iter().map(|(k, m)| (*k, m.len() as f64, m[0])));
            lw.clear();
            for &(_, _, member) in &units {
                replacement(self.model, &mut self.delta, &self.records[member], &offer);
                lw.push(self.ln_ratio(&self.delta));
            }
            terms.clear();
            terms.extend(
                units
                    .iter()
                    .zip(&lw)
                    .map(|((_, count, _), w)| count.ln() + w),
            );
            let ln_g = crate::numeric::log_sum_exp(&terms);
            if ln_g == f64::NEG_INFINITY {
                continue; // no record can take the offer
            }
            // the replaced record: a group with probability |group|·g/G, then
            // one of its members uniformly
            let mut pick = rng.random::<f64>();
            let mut chosen = units.len() - 1;
            for (u, ((_, count, _), w)) in units.iter().zip(&lw).enumerate() {
                let p = count * (w - ln_g).exp();
                if pick < p {
                    chosen = u;
                    break;
                }
                pick -= p;
            }
            let from = units[chosen].0;
            let members = &self.groups[&from];
            let i = members[crate::rng::index_below(rng, members.len())];
            // the forward change stays in self.delta until it is applied
            replacement(self.model, &mut self.delta, &self.records[i], &offer);
            let changes = !self.delta.is_empty();
            out.changing += u64::from(changes);
            // G′ relative to η(s): each group's forward weight with the sizes
            // after the move; the offer's group weighs η(s)/η(s) = 1
            let to = self.model.group(&offer);
            terms.clear();
            for ((k, count, _), w) in units.iter().zip(&lw) {
                let c = count - f64::from(u8::from(*k == from)) + f64::from(u8::from(*k == to));
                if c > 0.0 {
                    terms.push(c.ln() + w);
                }
            }
            if !units.iter().any(|u| u.0 == to) {
                terms.push(0.0);
            }
            let ln_g_back = crate::numeric::log_sum_exp(&terms);
            let ln_r = ln_g - ln_g_back;
            if ln_r >= 0.0 || rng.random::<f64>().ln() < ln_r {
                self.apply();
                self.records[i] = offer;
                self.regroup(i, from, to);
                out.accepted += 1;
                out.moves += u64::from(changes);
            }
        }
        out
    }
}

/// Sums the entries of each coordinate into one, dropping zeros.
/// The change of the statistic when record `old` is replaced by `new`, merged
/// per coordinate, into `delta`.
fn replacement<M: AugmentedModel>(
    model: &M,
    delta: &mut Vec<(usize, f64)>,
    old: &M::Record,
    new: &M::Record,
) {
    delta.clear();
    model.contribution(new, delta);
    let added = delta.len();
    model.contribution(old, delta);
    for e in &mut delta[added..] {
        e.1 = -e.1;
    }
    merge(delta);
}

fn merge(delta: &mut Vec<(usize, f64)>) {
    let mut i = 0;
    while i < delta.len() {
        let mut j = i + 1;
        while j < delta.len() {
            if delta[j].0 == delta[i].0 {
                delta[i].1 += delta[j].1;
                delta.swap_remove(j);
            } else {
                j += 1;
            }
        }
        if delta[i].1 == 0.0 {
            delta.swap_remove(i);
        } else {
            i += 1;
        }
    }
}
