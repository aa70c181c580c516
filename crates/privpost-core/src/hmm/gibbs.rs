//! Gibbs sampling for the K-state HMM with naive-Bayes emissions (Foulds et al. 2016
//! §5): one chain per region, transition rows ~ Dirichlet(α) collapsed out
//! (Goldwater & Griffiths 2007), emissions φ_{k,d} ~ Dirichlet(β_d) per state and
//! feature, not collapsed. A sweep draws every φ_{k,d} given the states, then every
//! state z_{r,i} in time order given its neighbours and φ.
//!
//! Privacy variants: the Laplace mechanism perturbs the histograms once
//! ([`crate::hmm::laplace::laplace_histograms`]) and the ordinary sampler runs on them; OPS tempers every
//! conditional by T = 2Δ/ε (eq. 19) and truncates each φ_{k,d} to {φ_v ≥ a₀_d}.

use rand::{Rng, RngExt};

use super::dirichlet::{dirichlet, truncated_dirichlet};
use super::Histograms;
use crate::numeric::log_sum_exp;
use crate::privacy::event::Event;

/// OPS settings: truncation per feature and the temperature of every conditional.
#[derive(Debug, Clone, PartialEq)]
pub struct Ops {
    pub a0: Vec<f64>,
    pub temperature: f64,
    /// ε each conditional update releases: 2Δ/T.
    pub epsilon: f64,
    /// Δ: the bound on one event's log-likelihood change.
    pub sensitivity: f64,
}

impl Ops {
    /// a₀_d = 1/(M·K_d); Δ = Σ_d ln[(1 − (K_d − 1)a₀_d)/a₀_d] bounds the change of one
    /// event's log-likelihood (the largest over the smallest emission probability);
    /// T = 2Δ/ε (Foulds eq. 14/19).
    pub fn new(cards: &[usize], m: f64, epsilon: f64) -> Self {
        let a0: Vec<f64> = cards.iter().map(|&k| 1.0 / (m * k as f64)).collect();
        let delta = Self::delta(cards, &a0);
        Self {
            a0,
            temperature: 2.0 * delta / epsilon,
            epsilon,
            sensitivity: delta,
        }
    }

    /// The privacy event of releasing one conditional sample (Foulds et al. 2016,
    /// Theorem 1 with eq. 14/19): log-likelihood ratio bounded by Δ/T, ε = 2Δ/T.
    pub fn event(&self) -> Event {
        Event::OnePosteriorSample {
            log_ratio_bound: self.sensitivity / self.temperature,
            temperature: self.temperature,
            truncation: self.a0.clone(),
            epsilon: self.epsilon,
        }
    }

    pub fn delta(cards: &[usize], a0: &[f64]) -> f64 {
        cards
            .iter()
            .zip(a0)
            .map(|(&k, &a)| ((1.0 - (k as f64 - 1.0) * a) / a).ln())
            .sum()
    }
}

/// Model hyperparameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub states: usize,
    /// symmetric Dirichlet parameter of each transition row
    pub alpha: f64,
    /// symmetric Dirichlet parameter of each feature's emission distribution
    pub beta: Vec<f64>,
    pub ops: Option<Ops>,
}

/// Sampler state.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// `z[r][i]`: state of the i-th kept cell of region r
    pub z: Vec<Vec<usize>>,
    /// `n[a][b]`: transitions a → b over all regions
    pub trans: Vec<Vec<f64>>,
    /// `φ[k][d][v]`
    pub phi: Vec<Vec<Vec<f64>>>,
}

impl State {
    /// `ln φ[k][d][v]`, as the state and held-out conditionals use it.
    pub fn ln_phi(&self) -> Vec<Vec<Vec<f64>>> {
        self.phi
            .iter()
            .map(|pk| {
                pk.iter()
                    .map(|p| p.iter().map(|x| x.ln()).collect())
                    .collect()
            })
            .collect()
    }

    /// Uniformly random states; φ uniform (inside every OPS truncation).
    pub fn random(data: &Histograms, k: usize, rng: &mut impl Rng) -> Self {
        let z: Vec<Vec<usize>> = data
            .regions
            .iter()
            .map(|(_, cells)| cells.iter().map(|_| rng.random_range(0..k)).collect())
            .collect();
        let mut trans = vec![vec![0.0; k]; k];
        for chain in &z {
            for w in chain.windows(2) {
                trans[w[0]][w[1]] += 1.0;
            }
        }
        let phi = (0..k)
            .map(|_| {
                data.cards
                    .iter()
                    .map(|&c| vec![1.0 / c as f64; c])
                    .collect()
            })
            .collect();
        Self { z, trans, phi }
    }
}

/// A Gibbs sampler over `data`; `held_out[r][i]` cells contribute no emission term
/// (their states are still sampled, from the transitions only).
pub struct Gibbs<'a> {
    pub data: &'a Histograms,
    pub model: Model,
    pub held_out: Vec<Vec<bool>>,
    /// per region and cell, its nonzero counts (d, v, c) in (d, v) order: the sparse
    /// form of `cell.counts` that the emission term sums over
    nonzero: Vec<Vec<Vec<(usize, usize, f64)>>>,
}

impl<'a> Gibbs<'a> {
    pub fn new(data: &'a Histograms, model: Model) -> Self {
        let held_out = data
            .regions
            .iter()
            .map(|(_, c)| vec![false; c.len()])
            .collect();
        let nonzero = data
            .regions
            .iter()
            .map(|(_, cells)| {
                cells
                    .iter()
                    .map(|cell| {
                        let mut nz = Vec::new();
                        for (d, counts) in cell.counts.iter().enumerate() {
                            for (v, &c) in counts.iter().enumerate() {
                                if c != 0.0 {
                                    nz.push((d, v, c));
                                }
                            }
                        }
                        nz
                    })
                    .collect()
            })
            .collect();
        Self {
            data,
            model,
            held_out,
            nonzero,
        }
    }

    /// Collapsed transition factor for z_i = k between a = z_{i−1} and b = z_{i+1}, with
    /// `trans` holding the counts of every other transition:
    /// (n(a,k) + α)/(n(a) + Kα) · (n(k,b) + 1[a = k = b] + α)/(n(k) + 1[a = k] + Kα);
    /// a missing neighbour drops its factor.
    pub fn transition_term(
        &self,
        trans: &[Vec<f64>],
        a: Option<usize>,
        k: usize,
        b: Option<usize>,
    ) -> f64 {
        let (alpha, kk) = (self.model.alpha, self.model.states as f64);
        let row = |s: usize| trans[s].iter().sum::<f64>();
        let mut t = 1.0;
        if let Some(a) = a {
            t *= (trans[a][k] + alpha) / (row(a) + kk * alpha);
        }
        if let Some(b) = b {
            let same = a == Some(k);
            let extra = f64::from(same && k == b);
            t *= (trans[k][b] + extra + alpha) / (row(k) + f64::from(same) + kk * alpha);
        }
        t
    }

    /// Unnormalised log conditional of z_{r,i} for every state (tempered by 1/T under OPS),
    /// given `state` with the transitions into and out of (r, i) already removed.
    pub fn log_weights(
        &self,
        state: &State,
        r: usize,
        i: usize,
        ln_phi: &[Vec<Vec<f64>>],
    ) -> Vec<f64> {
        let chain = &state.z[r];
        let a = (i > 0).then(|| chain[i - 1]);
        let b = (i + 1 < chain.len()).then(|| chain[i + 1]);
        let temp = self.model.ops.as_ref().map_or(1.0, |o| o.temperature);
        let nonzero = &self.nonzero[r][i];
        (0..self.model.states)
            .map(|k| {
                let mut w = self.transition_term(&state.trans, a, k, b).ln();
                if !self.held_out[r][i] {
                    // Σ_d Σ_v c·ln φ_{k,d,v} over the nonzero counts, in (d, v) order
                    for &(d, v, c) in nonzero {
                        w += c * ln_phi[k][d][v];
                    }
                }
                w / temp
            })
            .collect()
    }

    /// Draws every φ_{k,d} given the states.
    pub fn update_phi(&self, state: &mut State, rng: &mut impl Rng) {
        let k = self.model.states;
        let mut stats: Vec<Vec<Vec<f64>>> = (0..k)
            .map(|_| self.data.cards.iter().map(|&c| vec![0.0; c]).collect())
            .collect();
        for (r, (_, cells)) in self.data.regions.iter().enumerate() {
            for (i, cell) in cells.iter().enumerate() {
                if self.held_out[r][i] {
                    continue;
                }
                let s = &mut stats[state.z[r][i]];
                for (d, counts) in cell.counts.iter().enumerate() {
                    for (v, &c) in counts.iter().enumerate() {
                        s[d][v] += c;
                    }
                }
            }
        }
        for (kk, st) in stats.iter().enumerate() {
            for (d, s) in st.iter().enumerate() {
                let beta = self.model.beta[d];
                match &self.model.ops {
                    None => {
                        let g: Vec<f64> = s.iter().map(|&c| beta + c).collect();
                        state.phi[kk][d] = dirichlet(&g, rng);
                    }
                    Some(o) => {
                        // posterior^{1/T}: Dirichlet(1 + (β − 1 + C)/T) on φ ≥ a₀
                        let g: Vec<f64> = s
                            .iter()
                            .map(|&c| 1.0 + (beta - 1.0 + c) / o.temperature)
                            .collect();
                        truncated_dirichlet(&g, o.a0[d], &mut state.phi[kk][d], rng);
                    }
                }
            }
        }
    }

    /// Draws every state in time order, region by region.
    pub fn update_z(&self, state: &mut State, rng: &mut impl Rng) {
        let ln_phi = state.ln_phi();
        for r in 0..state.z.len() {
            let len = state.z[r].len();
            for i in 0..len {
                let cur = state.z[r][i];
                if i > 0 {
                    state.trans[state.z[r][i - 1]][cur] -= 1.0;
                }
                if i + 1 < len {
                    state.trans[cur][state.z[r][i + 1]] -= 1.0;
                }
                let lw = self.log_weights(state, r, i, &ln_phi);
                let total = log_sum_exp(&lw);
                let mut u: f64 = rng.random::<f64>();
                let mut k = lw.len() - 1;
                for (j, w) in lw.iter().enumerate() {
                    let p = (w - total).exp();
                    if u < p {
                        k = j;
                        break;
                    }
                    u -= p;
                }
                state.z[r][i] = k;
                if i > 0 {
                    state.trans[state.z[r][i - 1]][k] += 1.0;
                }
                if i + 1 < len {
                    state.trans[k][state.z[r][i + 1]] += 1.0;
                }
            }
        }
    }

    /// One sweep: emissions, then states.
    pub fn sweep(&self, state: &mut State, rng: &mut impl Rng) {
        self.update_phi(state, rng);
        self.update_z(state, rng);
    }
}

impl Gibbs<'_> {
    /// Runs `sweeps` sweeps from a random state; returns, per region and cell, how
    /// often each state was visited after `burn_in` sweeps, and the last state.
    pub fn run(
        &self,
        sweeps: usize,
        burn_in: usize,
        rng: &mut impl Rng,
    ) -> (Vec<Vec<Vec<usize>>>, State) {
        let k = self.model.states;
        let mut state = State::random(self.data, k, rng);
        let mut tallies: Vec<Vec<Vec<usize>>> = self
            .data
            .regions
            .iter()
            .map(|(_, cells)| vec![vec![0; k]; cells.len()])
            .collect();
        for sweep in 0..sweeps {
            self.sweep(&mut state, rng);
            if sweep >= burn_in {
                for (r, chain) in state.z.iter().enumerate() {
                    for (i, &z) in chain.iter().enumerate() {
                        tallies[r][i][z] += 1;
                    }
                }
            }
        }
        (tallies, state)
    }
}

/// Posterior mean of `φ[k][d]` given the states `z`: (β + counts in state k) normalised.
pub fn posterior_mean_phi(
    data: &Histograms,
    z: &[Vec<usize>],
    states: usize,
    beta: f64,
) -> Vec<Vec<Vec<f64>>> {
    let mut stats: Vec<Vec<Vec<f64>>> = (0..states)
        .map(|_| data.cards.iter().map(|&k| vec![beta; k]).collect())
        .collect();
    for (r, (_, cells)) in data.regions.iter().enumerate() {
        for (i, cell) in cells.iter().enumerate() {
            for (d, h) in cell.counts.iter().enumerate() {
                for (v, &x) in h.iter().enumerate() {
                    stats[z[r][i]][d][v] += x;
                }
            }
        }
    }
    for sk in &mut stats {
        for s in sk.iter_mut() {
            let t: f64 = s.iter().sum();
            s.iter_mut().for_each(|x| *x /= t);
        }
    }
    stats
}

/// Modal state of each cell from its tallies (ties to the lower state).
pub fn modal(tallies: &[usize]) -> usize {
    (0..tallies.len())
        .max_by_key(|&k| (tallies[k], usize::MAX - k))
        .unwrap_or(0)
}

impl Gibbs<'_> {
    /// ln of the held-out likelihood of every held-out cell under the current sample
    /// (Foulds et al. 2016 §5's predictive): Σ_k p(z = k | neighbours, other transitions) · Π_events Π_d φ_{k,d,x_d},
    /// evaluated on `truth` (the un-noised histograms, same cell layout). Returns one
    /// value per held-out cell, in region/time order.
    pub fn held_out_loglik(&self, state: &State, truth: &Histograms) -> Vec<f64> {
        let ln_phi = state.ln_phi();
        let mut out = Vec::new();
        let mut trans = state.trans.clone();
        for (r, chain) in state.z.iter().enumerate() {
            for i in 0..chain.len() {
                if !self.held_out[r][i] {
                    continue;
                }
                let cur = chain[i];
                let a = (i > 0).then(|| chain[i - 1]);
                let b = (i + 1 < chain.len()).then(|| chain[i + 1]);
                if let Some(a) = a {
                    trans[a][cur] -= 1.0;
                }
                if let Some(b) = b {
                    trans[cur][b] -= 1.0;
                }
                let prior: Vec<f64> = (0..self.model.states)
                    .map(|k| self.transition_term(&trans, a, k, b))
                    .collect();
                let z: f64 = prior.iter().sum();
                let cell = &truth.regions[r].1[i];
                let terms: Vec<f64> = (0..self.model.states)
                    .map(|k| {
                        let mut l = (prior[k] / z).ln();
                        for (d, counts) in cell.counts.iter().enumerate() {
                            for (v, &c) in counts.iter().enumerate() {
                                if c != 0.0 {
                                    l += c * ln_phi[k][d][v];
                                }
                            }
                        }
                        l
                    })
                    .collect();
                out.push(log_sum_exp(&terms));
                if let Some(a) = a {
                    trans[a][cur] += 1.0;
                }
                if let Some(b) = b {
                    trans[cur][b] += 1.0;
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hmm::laplace::laplace_histograms;
    use crate::hmm::{Cell, Histograms};
    use rand::SeedableRng;
    use statrs::function::gamma::ln_gamma;

    fn tiny() -> Histograms {
        let cell = |month, a: f64, b: f64| Cell {
            month,
            events: (a + b) as usize,
            counts: vec![vec![a, b], vec![b, a, 1.0]],
        };
        Histograms {
            cards: vec![2, 3],
            regions: vec![
                (
                    0,
                    vec![
                        cell(0, 3.0, 1.0),
                        cell(1, 0.0, 4.0),
                        cell(2, 2.0, 2.0),
                        cell(3, 5.0, 0.0),
                    ],
                ),
                (1, vec![cell(0, 1.0, 1.0), cell(2, 0.0, 2.0)]),
            ],
        }
    }

    /// ln p(z) with the transition rows integrated out (Dirichlet–multinomial per row),
    /// plus the emission log-likelihood — the joint the conditionals must follow.
    fn ln_joint(g: &Gibbs, z: &[Vec<usize>], phi: &[Vec<Vec<f64>>]) -> f64 {
        let k = g.model.states;
        let a = g.model.alpha;
        let mut n = vec![vec![0.0; k]; k];
        for chain in z {
            for w in chain.windows(2) {
                n[w[0]][w[1]] += 1.0;
            }
        }
        let mut lp = 0.0;
        for row in &n {
            let tot: f64 = row.iter().sum();
            lp += ln_gamma(k as f64 * a) - ln_gamma(tot + k as f64 * a);
            for &c in row {
                lp += ln_gamma(c + a) - ln_gamma(a);
            }
        }
        for (r, (_, cells)) in g.data.regions.iter().enumerate() {
            for (i, cell) in cells.iter().enumerate() {
                for (d, counts) in cell.counts.iter().enumerate() {
                    for (v, &c) in counts.iter().enumerate() {
                        lp += c * phi[z[r][i]][d][v].ln();
                    }
                }
            }
        }
        lp
    }

    /// Every conditional (and hence the collapsed transition term) equals the ratio of
    /// joints computed by direct counting, for every position and 3 states.
    #[test]
    fn conditionals_match_brute_force_joint() {
        let data = tiny();
        let g = Gibbs::new(
            &data,
            Model {
                states: 3,
                alpha: 0.7,
                beta: vec![1.0, 1.0],
                ops: None,
            },
        );
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        let mut state = State::random(&data, 3, &mut rng);
        g.update_phi(&mut state, &mut rng);
        let ln_phi = state.ln_phi();
        for r in 0..2 {
            for i in 0..state.z[r].len() {
                let mut s = state.clone();
                let len = s.z[r].len();
                let cur = s.z[r][i];
                if i > 0 {
                    s.trans[s.z[r][i - 1]][cur] -= 1.0;
                }
                if i + 1 < len {
                    s.trans[cur][s.z[r][i + 1]] -= 1.0;
                }
                let lw = g.log_weights(&s, r, i, &ln_phi);
                let joints: Vec<f64> = (0..3)
                    .map(|k| {
                        let mut z = state.z.clone();
                        z[r][i] = k;
                        ln_joint(&g, &z, &state.phi)
                    })
                    .collect();
                for k in 1..3 {
                    let want = joints[k] - joints[0];
                    let got = lw[k] - lw[0];
                    assert!(
                        (want - got).abs() < 1e-10,
                        "r {r} i {i} k {k}: {got} vs {want}"
                    );
                }
            }
        }
    }

    /// Tempering divides every log weight by T; the OPS constants follow Foulds et
    /// al. 2016, Theorem 1 (ε = 2·bound/T of the truncated, tempered posterior).
    #[test]
    fn ops_tempers_and_truncates() {
        let cards = [10usize, 100, 2, 2, 2];
        let o = Ops::new(&cards, 10.0, 1.0);
        let want: f64 = cards
            .iter()
            .map(|&k| {
                let a = 1.0 / (10.0 * k as f64);
                ((1.0 - (k as f64 - 1.0) * a) / a).ln()
            })
            .sum();
        assert!((o.temperature - 2.0 * want).abs() < 1e-12);
        assert!((o.a0[1] - 1e-3).abs() < 1e-18);
        let data = tiny();
        let model = Model {
            states: 2,
            alpha: 1.0,
            beta: vec![1.0, 1.0],
            ops: None,
        };
        let plain = Gibbs::new(&data, model.clone());
        let ops = Gibbs::new(
            &data,
            Model {
                ops: Some(Ops {
                    a0: vec![0.1, 0.05],
                    temperature: 3.0,
                    epsilon: 1.0,
                    sensitivity: 1.5,
                }),
                ..model
            },
        );
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut state = State::random(&data, 2, &mut rng);
        for _ in 0..20 {
            ops.sweep(&mut state, &mut rng);
            for pk in &state.phi {
                assert!(
                    pk[0].iter().all(|&p| p >= 0.1 - 1e-12)
                        && pk[1].iter().all(|&p| p >= 0.05 - 1e-12)
                );
            }
        }
        let ln_phi = state.ln_phi();
        let a = plain.log_weights(&state, 0, 3, &ln_phi);
        let b = ops.log_weights(&state, 0, 3, &ln_phi);
        for k in 0..2 {
            assert!((a[k] / 3.0 - b[k]).abs() < 1e-12);
        }
    }

    /// Noise scale b = 2/ε (ε = 0.5: b = 4) and clamping at zero: a zero count is clamped
    /// half of the time; for a count of 5, E[|noise| given the result is > 0] is
    /// (b − ½e^{−5/b}(5 + b))/(1 − ½e^{−5/b}) = 3.163 (closed form).
    #[test]
    fn laplace_noise_has_scale_two_over_epsilon_and_is_clamped() {
        let data = tiny();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let (mut dev5, mut n5, mut zero_clamped, mut n0) = (0.0, 0.0, 0.0, 0.0);
        for _ in 0..4000 {
            let noisy = laplace_histograms(&data, &[0.5, 0.5], &mut rng).unwrap();
            for (orig, nz) in data.regions.iter().zip(&noisy.regions) {
                for (c0, c1) in orig.1.iter().zip(&nz.1) {
                    for (h0, h1) in c0.counts.iter().zip(&c1.counts) {
                        for (&x0, &x1) in h0.iter().zip(h1) {
                            assert!(x1 >= 0.0);
                            if x0 == 0.0 {
                                n0 += 1.0;
                                zero_clamped += f64::from(x1 == 0.0);
                            }
                            if x0 == 5.0 && x1 > 0.0 {
                                dev5 += (x1 - x0).abs();
                                n5 += 1.0;
                            }
                        }
                    }
                }
            }
        }
        let b: f64 = 4.0;
        let tail = 0.5 * (-5.0 / b).exp();
        let want = (b - tail * (5.0 + b)) / (1.0 - tail);
        assert!((dev5 / n5 - want).abs() < 0.15, "{} vs {want}", dev5 / n5);
        assert!(
            (zero_clamped / n0 - 0.5).abs() < 0.02,
            "{}",
            zero_clamped / n0
        );
        assert!(laplace_histograms(&data, &[0.0, 1.0], &mut rng).is_err());
    }
}
