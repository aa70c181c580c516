//! Two coupled chains and the iteration at which they meet: Xiong & Ju 2025's
//! convergence benchmark of SOMA against random- and systematic-scan IMwG (their
//! `regression.py`: `update_data_coupling`, `conjugate_update_theta_coupling`).
//! Each chain on its own is an ordinary chain of its kernel; the coupling only
//! shares randomness, so that the chains, started apart, become equal and stay
//! so (Jacob, O'Leary & Atchadé 2020 make meeting times a convergence diagnostic).
//!
//! Each iteration, as theirs: the records, then θ.
//! - **Proposals**: for each record, a pair drawn from a maximal coupling of
//!   f(· | θ₁) and f(· | θ₂) ([`CoupledModel::draw_record_pair`]).
//! - **IMwG** (random or systematic scan): both chains update the same index with
//!   one common uniform for acceptance.
//! - **SOMA**: each chain weighs the offer against each of its records (weights
//!   normalised over the n records); the index each replaces comes from a maximal
//!   coupling of the two weight vectors (the shared mass min(w₁, w₂) first, else
//!   each chain's residual by inverse CDF at one common uniform); acceptance at
//!   one common uniform, with probability 1/(1 + w_cur − w_I), w_cur the current
//!   state's normalised weight (G/G′ of `super::Chain::soma_sweep`). When both
//!   accept and the records still differ somewhere, each chain moves the record at
//!   the first such place into the replaced slot and puts the offer there (their
//!   relabelling: the target is exchangeable in the records, so each chain's law is
//!   unchanged, and the offers, equal with the coupling's probability, land in the
//!   same place).
//! - **θ**: a pair from a maximal coupling of the two conditionals
//!   ([`CoupledModel::draw_theta_pair`]).
//!
//! The chains have met when θ and every record are equal.

use rand::{Rng, RngExt};

use super::{AugmentedModel, Release};

/// A model whose record and θ draws can be coupled.
pub trait CoupledModel: AugmentedModel
where
    Self::Record: PartialEq,
    Self::Theta: PartialEq,
{
    /// A pair from a maximal coupling of f(· | θ₁) and f(· | θ₂).
    fn draw_record_pair<R: Rng + ?Sized>(
        &self,
        t1: &Self::Theta,
        t2: &Self::Theta,
        rng: &mut R,
    ) -> (Self::Record, Self::Record);
    /// A pair from a maximal coupling of p(θ | x₁) and p(θ | x₂).
    fn draw_theta_pair<R: Rng + ?Sized>(
        &self,
        x1: &[Self::Record],
        x2: &[Self::Record],
        rng: &mut R,
    ) -> (Self::Theta, Self::Theta);
}

/// A pair (X, Y), X ~ p and Y ~ q, equal with the largest probability any
/// coupling allows, 1 − TV(p, q) (Thorisson's algorithm, as Xiong & Ju's code):
/// X ~ p, and Y = X when W·p(X) ≤ q(X) for W uniform; otherwise Y ~ q redrawn
/// until W′·q(Y) > p(Y). The redraws cost 1 in expectation.
pub fn maximal<T: Clone, R: Rng + ?Sized>(
    rng: &mut R,
    draw_p: impl FnMut(&mut R) -> T,
    ln_p: impl Fn(&T) -> f64,
    draw_q: impl FnMut(&mut R) -> T,
    ln_q: impl Fn(&T) -> f64,
) -> (T, T) {
    maximal_giving_up(rng, draw_p, ln_p, draw_q, ln_q, None)
}

/// [`maximal`], but after `give_up` failed redraws Y = X. This is Xiong & Ju's
/// proposal coupling (`update_data_coupling` stops after 100 rounds and copies
/// chain 1's response). It is not a coupling of p and q: Y's law leans to p by
/// up to TV(p, q)·(1 − TV(p, q))^give_up, and the pair is equal more often than
/// 1 − TV allows. None redraws until done, which is [`maximal`].
pub fn maximal_giving_up<T: Clone, R: Rng + ?Sized>(
    rng: &mut R,
    mut draw_p: impl FnMut(&mut R) -> T,
    ln_p: impl Fn(&T) -> f64,
    mut draw_q: impl FnMut(&mut R) -> T,
    ln_q: impl Fn(&T) -> f64,
    give_up: Option<u32>,
) -> (T, T) {
    let x = draw_p(rng);
    if rng.random::<f64>().ln() + ln_p(&x) <= ln_q(&x) {
        return (x.clone(), x);
    }
    let mut failed = 0u32;
    loop {
        if give_up.is_some_and(|g| failed >= g) {
            return (x.clone(), x);
        }
        let y = draw_q(rng);
        if rng.random::<f64>().ln() + ln_q(&y) > ln_p(&y) {
            return (x, y);
        }
        failed += 1;
    }
}

/// The record kernel of a coupled run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoupledKernel {
    /// Xiong & Ju's single offer, multiple attempts.
    Soma,
    /// Independent MH within Gibbs at n uniformly drawn indices.
    RandomScan,
    /// Independent MH within Gibbs at indices 1..n in order (Ju et al.'s
    /// record-wise kernel).
    SystematicScan,
}

crate::names::name_table!(CoupledKernel {
    Soma => "soma",
    RandomScan => "random_scan",
    SystematicScan => "systematic_scan",
});

/// One chain of a pair: θ, the records, their contributions (n × d) and the
/// statistic with its ln η.
#[derive(Debug, Clone)]
pub struct ChainState<M: AugmentedModel> {
    pub theta: M::Theta,
    pub records: Vec<M::Record>,
    contrib: Vec<f64>,
    stat: Vec<f64>,
    ln_eta: f64,
}

impl<M: AugmentedModel> ChainState<M> {
    /// The state of θ and `records` under `release`.
    pub fn new(model: &M, release: &Release, theta: M::Theta, records: Vec<M::Record>) -> Self {
        let d = model.statistic_len();
        let mut s = Self {
            theta,
            contrib: vec![0.0; records.len() * d],
            records,
            stat: vec![0.0; d],
            ln_eta: 0.0,
        };
        for j in 0..s.records.len() {
            let c = dense(model, &s.records[j]);
            s.contrib[j * d..(j + 1) * d].copy_from_slice(&c);
        }
        s.recount(release, d);
        s
    }

    /// θ from the prior and records from f(· | θ): the chains' start in Xiong &
    /// Ju's code (and in the engine).
    pub fn from_prior<R: Rng + ?Sized>(model: &M, release: &Release, rng: &mut R) -> Self {
        let theta = model.draw_prior(rng);
        let records = (0..model.n())
            .map(|_| model.draw_record(&theta, rng))
            .collect();
        Self::new(model, release, theta, records)
    }

    fn recount(&mut self, release: &Release, d: usize) {
        self.stat.iter_mut().for_each(|s| *s = 0.0);
        for row in self.contrib.chunks_exact(d) {
            for (s, c) in self.stat.iter_mut().zip(row) {
                *s += c;
            }
        }
        self.ln_eta = release.ln_density(&self.stat);
    }

    /// ln η at the statistic with record j's contribution replaced by `c`.
    fn ln_eta_replacing(&self, release: &Release, j: usize, c: &[f64], scratch: &mut [f64]) -> f64 {
        let d = c.len();
        let row = &self.contrib[j * d..(j + 1) * d];
        for (k, out) in scratch.iter_mut().enumerate() {
            *out = self.stat[k] - row[k] + c[k];
        }
        release.ln_density(scratch)
    }

    /// Record j becomes `x` (contribution `c`), ln η its new value.
    fn replace(&mut self, j: usize, x: M::Record, c: &[f64], ln_eta: f64) {
        let d = c.len();
        let row = &mut self.contrib[j * d..(j + 1) * d];
        for ((s, new), old) in self.stat.iter_mut().zip(c).zip(row.iter()) {
            *s += new - old;
        }
        row.copy_from_slice(c);
        self.records[j] = x;
        self.ln_eta = ln_eta;
    }

    /// Records i and j trade places (the statistic is unchanged).
    fn swap(&mut self, i: usize, j: usize, d: usize) {
        self.records.swap(i, j);
        for k in 0..d {
            self.contrib.swap(i * d + k, j * d + k);
        }
    }
}

/// A record's contribution as a dense vector.
fn dense<M: AugmentedModel>(model: &M, x: &M::Record) -> Vec<f64> {
    let mut cells = Vec::new();
    model.contribution(x, &mut cells);
    let mut c = vec![0.0; model.statistic_len()];
    for (k, v) in cells {
        c[k] += v;
    }
    c
}

/// What a coupled run found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Meeting {
    /// The iteration (from 0) after which the chains were equal, or None when
    /// they had not met within the cap.
    pub at: Option<usize>,
    /// Each chain's record acceptance over the run.
    pub acceptance: [f64; 2],
}

/// Two chains run coupled: the records, then θ, each iteration.
pub struct CoupledPair<'a, M: AugmentedModel> {
    pub model: &'a M,
    pub release: &'a Release,
    pub kernel: CoupledKernel,
    pub chains: [ChainState<M>; 2],
    accepted: [u64; 2],
    proposals: u64,
}

impl<'a, M> CoupledPair<'a, M>
where
    M: CoupledModel,
    M::Record: PartialEq,
    M::Theta: PartialEq,
{
    pub fn new(
        model: &'a M,
        release: &'a Release,
        kernel: CoupledKernel,
        chains: [ChainState<M>; 2],
    ) -> Self {
        Self {
            model,
            release,
            kernel,
            chains,
            accepted: [0; 2],
            proposals: 0,
        }
    }

    /// Whether θ and every record are equal.
    pub fn met(&self) -> bool {
        let [a, b] = &self.chains;
        a.theta == b.theta && a.records == b.records
    }

    /// One iteration: the records by the kernel, then θ.
    pub fn step<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        match self.kernel {
            CoupledKernel::Soma => self.soma_sweep(rng),
            CoupledKernel::RandomScan | CoupledKernel::SystematicScan => self.imwg_sweep(rng),
        }
        let d = self.model.statistic_len();
        for c in &mut self.chains {
            c.recount(self.release, d);
        }
        let (t1, t2) =
            self.model
                .draw_theta_pair(&self.chains[0].records, &self.chains[1].records, rng);
        self.chains[0].theta = t1;
        self.chains[1].theta = t2;
    }

    /// Runs until the chains meet or `cap` iterations have passed.
    pub fn run<R: Rng + ?Sized>(mut self, cap: usize, rng: &mut R) -> Meeting {
        let mut at = None;
        for i in 0..cap {
            self.step(rng);
            if self.met() {
                at = Some(i);
                break;
            }
        }
        let n = self.proposals.max(1) as f64;
        Meeting {
            at,
            acceptance: [self.accepted[0] as f64 / n, self.accepted[1] as f64 / n],
        }
    }

    /// IMwG: the same index in both chains, one common uniform.
    fn imwg_sweep<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        let n = self.chains[0].records.len();
        let d = self.model.statistic_len();
        let mut scratch = vec![0.0; d];
        for i in 0..n {
            let j = match self.kernel {
                CoupledKernel::RandomScan => crate::rng::index_below(rng, n),
                _ => i,
            };
            let (y1, y2) =
                self.model
                    .draw_record_pair(&self.chains[0].theta, &self.chains[1].theta, rng);
            let ln_u = rng.random::<f64>().ln();
            self.proposals += 1;
            for (c, y) in [(0, y1), (1, y2)] {
                let cy = dense(self.model, &y);
                let chain = &mut self.chains[c];
                let l = chain.ln_eta_replacing(self.release, j, &cy, &mut scratch);
                if ln_u < l - chain.ln_eta {
                    chain.replace(j, y, &cy, l);
                    self.accepted[c] += 1;
                }
            }
        }
    }

    /// SOMA: n offers, each index from a maximal coupling of the chains'
    /// normalised weights (module docs).
    fn soma_sweep<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        let n = self.chains[0].records.len();
        let d = self.model.statistic_len();
        let mut scratch = vec![0.0; d];
        let mut lw = [vec![0.0; n], vec![0.0; n]];
        let mut w = [vec![0.0; n], vec![0.0; n]];
        for _ in 0..n {
            let (y1, y2) =
                self.model
                    .draw_record_pair(&self.chains[0].theta, &self.chains[1].theta, rng);
            let offers = [y1, y2];
            let cy = [dense(self.model, &offers[0]), dense(self.model, &offers[1])];
            let mut norm = [0.0; 2];
            // equal chains weigh alike: the second copies the first's weights
            // (the same numbers, computed once)
            let twins = self.met();
            for c in 0..2 {
                if c == 1 && twins {
                    let [first, second] = &mut lw;
                    second.copy_from_slice(first);
                    let [first, second] = &mut w;
                    second.copy_from_slice(first);
                    norm[1] = norm[0];
                    continue;
                }
                for (j, l) in lw[c].iter_mut().enumerate() {
                    *l = self.chains[c].ln_eta_replacing(self.release, j, &cy[c], &mut scratch);
                }
                norm[c] = crate::numeric::log_sum_exp(&lw[c]);
                for j in 0..n {
                    w[c][j] = (lw[c][j] - norm[c]).exp();
                }
            }
            // the index: shared mass first, else each residual at one uniform
            let u: f64 = rng.random();
            let shared: Vec<f64> = (0..n).map(|j| w[0][j].min(w[1][j])).collect();
            let total: f64 = shared.iter().sum();
            let picks = if u < total {
                let k = pick(&shared, u);
                [k, k]
            } else {
                let resid = |c: usize| -> usize {
                    let mut acc = total;
                    for j in 0..n {
                        acc += w[c][j] - shared[j];
                        if acc >= u {
                            return j;
                        }
                    }
                    n - 1
                };
                [resid(0), resid(1)]
            };
            let ln_u = rng.random::<f64>().ln();
            self.proposals += 1;
            let mut took = [false; 2];
            for c in 0..2 {
                let chain = &mut self.chains[c];
                let at = picks[c];
                // accept with probability 1/(1 + w_cur − w_I), normalised weights
                let w_cur = (chain.ln_eta - norm[c]).exp();
                let accept = lw[c][at] >= chain.ln_eta || ln_u < -(1.0 + w_cur - w[c][at]).ln();
                if accept {
                    chain.replace(at, offers[c].clone(), &cy[c], lw[c][at]);
                    self.accepted[c] += 1;
                    took[c] = true;
                }
            }
            if took[0] && took[1] {
                let [a, b] = &self.chains;
                if let Some(first) = (0..n).find(|&j| a.records[j] != b.records[j]) {
                    for (chain, &at) in self.chains.iter_mut().zip(&picks) {
                        // the offer moves to `first`, the record there to the replaced slot
                        chain.swap(at, first, d);
                    }
                }
            }
        }
    }
}

/// The index at which the cumulative sum of `weights` first reaches `u` (in
/// [0, Σ weights)); the last index if rounding leaves it short.
fn pick(weights: &[f64], u: f64) -> usize {
    let mut acc = 0.0;
    for (j, &w) in weights.iter().enumerate() {
        acc += w;
        if acc > u {
            return j;
        }
    }
    weights.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::damcmc::models::NigRegression;
    use crate::damcmc::{Clamp, Kernel, Noise, Settings};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Two normals a unit apart: the pair is equal with probability 1 − TV =
    /// 2(1 − Φ(½)) = 0.61708, and Y keeps its own law.
    #[test]
    fn a_maximal_coupling_meets_as_often_as_tv_allows() {
        use rand_distr::StandardNormal;
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let n = 200_000;
        let (mut equal, mut sum, mut sq) = (0usize, 0.0, 0.0);
        for _ in 0..n {
            let (x, y) = maximal(
                &mut rng,
                |r: &mut ChaCha8Rng| r.sample::<f64, _>(StandardNormal),
                |x: &f64| -0.5 * x * x,
                |r: &mut ChaCha8Rng| 1.0 + r.sample::<f64, _>(StandardNormal),
                |y: &f64| -0.5 * (y - 1.0) * (y - 1.0),
            );
            equal += usize::from(x == y);
            sum += y;
            sq += y * y;
        }
        let p = equal as f64 / n as f64;
        let exact = 2.0 * (1.0 - 0.691_462_461_274_013_1);
        assert!(
            (p - exact).abs() < 4.0 * (exact * (1.0 - exact) / n as f64).sqrt(),
            "{p}"
        );
        let mean = sum / n as f64;
        let var = sq / n as f64 - mean * mean;
        assert!((mean - 1.0).abs() < 4.0 / (n as f64).sqrt(), "{mean}");
        assert!((var - 1.0).abs() < 4.0 * (2.0 / n as f64).sqrt(), "{var}");
    }

    /// Giving up after g redraws adds the residual's failures to the equal
    /// pairs: P(X = Y) = 1 − TV + TV·(1 − TV)^g, each redraw succeeding with
    /// probability TV; g = 0 always copies.
    #[test]
    fn giving_up_couples_more_than_tv_allows() {
        use rand_distr::StandardNormal;
        let tv: f64 = 1.0 - 2.0 * (1.0 - 0.691_462_461_274_013_1);
        for g in [0u32, 1, 3] {
            let mut rng = ChaCha8Rng::seed_from_u64(2);
            let n = 100_000;
            let equal = (0..n)
                .filter(|_| {
                    let (x, y) = maximal_giving_up(
                        &mut rng,
                        |r: &mut ChaCha8Rng| r.sample::<f64, _>(StandardNormal),
                        |x: &f64| -0.5 * x * x,
                        |r: &mut ChaCha8Rng| 1.0 + r.sample::<f64, _>(StandardNormal),
                        |y: &f64| -0.5 * (y - 1.0) * (y - 1.0),
                        Some(g),
                    );
                    x == y
                })
                .count();
            let p = equal as f64 / n as f64;
            let exact = 1.0 - tv + tv * (1.0 - tv).powi(g as i32);
            let se = (exact * (1.0 - exact) / n as f64).sqrt().max(1e-9);
            assert!((p - exact).abs() <= 4.0 * se, "g = {g}: {p} vs {exact}");
        }
    }

    fn theirs(n: usize) -> NigRegression {
        NigRegression::xiong_ju(n).unwrap()
    }

    /// A release of n records drawn at their true θ, with Laplace noise at ε.
    fn released(model: &NigRegression, epsilon: f64, seed: u64) -> Release {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let truth = vec![-1.79, -2.89, -0.66, 1.13];
        let records: Vec<Vec<f64>> = (0..model.n())
            .map(|_| model.draw_record(&truth, &mut rng))
            .collect();
        let s = crate::damcmc::statistic(model, &records);
        let b = model.l1_sensitivity() / epsilon;
        let values = s
            .iter()
            .map(|v| {
                let u: f64 = rng.random::<f64>() - 0.5;
                v - b * u.signum() * (1.0 - 2.0 * u.abs()).ln()
            })
            .collect();
        Release::new(
            values,
            Noise::Laplace { scale: b },
            Clamp::NONE,
            model.statistic_len(),
        )
        .unwrap()
    }

    const KERNELS: [CoupledKernel; 3] = [
        CoupledKernel::Soma,
        CoupledKernel::RandomScan,
        CoupledKernel::SystematicScan,
    ];

    /// Chains that start equal stay equal (the couplings are faithful), and
    /// chains started apart meet under each kernel at a large ε.
    #[test]
    fn equal_chains_stay_equal_and_apart_ones_meet() {
        let model = theirs(10);
        let release = released(&model, 30.0, 3);
        for kernel in KERNELS {
            let mut rng = ChaCha8Rng::seed_from_u64(5);
            let start = ChainState::from_prior(&model, &release, &mut rng);
            let mut pair = CoupledPair::new(&model, &release, kernel, [start.clone(), start]);
            for _ in 0..30 {
                pair.step(&mut rng);
                assert!(pair.met(), "{kernel:?}");
            }
            let a = ChainState::from_prior(&model, &release, &mut rng);
            let b = ChainState::from_prior(&model, &release, &mut rng);
            let pair = CoupledPair::new(&model, &release, kernel, [a, b]);
            assert!(!pair.met());
            let m = pair.run(5000, &mut rng);
            assert!(m.at.is_some(), "{kernel:?}: {m:?}");
        }
    }

    /// Each chain of a coupled run is a chain of its kernel: the second chain's
    /// θ, averaged over a long coupled run, agrees with the engine's record-wise
    /// posterior (4 batch-means s.e. combined).
    #[test]
    fn a_coupled_chain_has_the_engines_posterior() {
        let model = theirs(10);
        let release = released(&model, 3.0, 8);
        let engine = crate::damcmc::sample(
            &model,
            &release,
            &Settings {
                warmup: 2000,
                draws: 40_000,
                chains: 1,
                kernel: Kernel::RecordWise,
                seed: 1,
            },
        )
        .unwrap();
        let reference: Vec<Vec<f64>> = (0..4).map(|p| engine.parameter(p).concat()).collect();
        for kernel in KERNELS {
            let mut rng = ChaCha8Rng::seed_from_u64(11);
            let a = ChainState::from_prior(&model, &release, &mut rng);
            let b = ChainState::from_prior(&model, &release, &mut rng);
            let mut pair = CoupledPair::new(&model, &release, kernel, [a, b]);
            let mut kept: Vec<Vec<f64>> = vec![Vec::new(); 4];
            for it in 0..22_000 {
                pair.step(&mut rng);
                if it >= 2000 {
                    for (p, k) in kept.iter_mut().enumerate() {
                        k.push(pair.chains[1].theta[p]);
                    }
                }
            }
            for p in 0..4 {
                let se = |x: &[f64]| {
                    let (m, v) = crate::stats::diagnostics::mean_var(x);
                    (
                        m,
                        (v / crate::stats::diagnostics::ess(&[x.to_vec()])).sqrt(),
                    )
                };
                let (m1, s1) = se(&kept[p]);
                let (m2, s2) = se(&reference[p]);
                assert!(
                    (m1 - m2).abs() < 4.0 * s1.hypot(s2),
                    "{kernel:?} θ{p}: {m1} ± {s1} vs {m2} ± {s2}"
                );
            }
        }
    }
}
