//! Ju et al.'s record-wise step over arrays, for models defined outside Rust (a
//! Python model proposes every record at once; this does the accept/reject).
//!
//! The records' contributions to the released statistic are an n × m row-major
//! array, and so are the proposals'. For j = 1..n in order, the proposal replaces
//! record j with probability min(1, η(s_dp | s − c_j + c*_j)/η(s_dp | s)) — the same
//! ratio as [`super::Kernel::RecordWise`], whose model terms cancel because the
//! proposal is drawn from the model f(· | θ). Only the coordinates where c*_j and
//! c_j differ are evaluated. WIP (issue 67 part 3): not yet wired to Python.

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

/// The statistic's state: s and ln η per coordinate.
#[derive(Debug, Clone, PartialEq)]
pub struct Statistic {
    pub stat: Vec<f64>,
    pub ln_eta: Vec<f64>,
}

impl Statistic {
    /// s = the column sums of `current` (n × m), summed in record order.
    pub fn of(release: &Release, current: &[f64], m: usize) -> Self {
        let mut stat = vec![0.0; m];
        for row in current.chunks_exact(m) {
            for (s, c) in stat.iter_mut().zip(row) {
                *s += c;
            }
        }
        let ln_eta = stat
            .iter()
            .enumerate()
            .map(|(k, &s)| release.ln_coordinate(k, s))
            .collect();
        Self { stat, ln_eta }
    }
}

/// One record-wise sweep (module docs): `current` takes each accepted row of
/// `proposed`, `accepted[j]` says whether row j was taken, `state` follows.
/// Panics when the shapes disagree (the caller checks them with the user's names).
pub fn record_wise<R: Rng + ?Sized>(
    release: &Release,
    state: &mut Statistic,
    current: &mut [f64],
    proposed: &[f64],
    accepted: &mut [bool],
    rng: &mut R,
) -> ArraySweep {
    let m = state.stat.len();
    assert!(m > 0 && current.len() == proposed.len() && current.len() == accepted.len() * m);
    let mut out = ArraySweep::default();
    let mut touched: Vec<(usize, f64)> = Vec::with_capacity(m);
    for (j, take) in accepted.iter_mut().enumerate() {
        let row = j * m..(j + 1) * m;
        touched.clear();
        let mut ln_r = 0.0;
        for (k, (&c, &p)) in current[row.clone()]
            .iter()
            .zip(&proposed[row.clone()])
            .enumerate()
        {
            if c != p {
                let s = state.stat[k] - c + p;
                let l = release.ln_coordinate(k, s);
                ln_r += l - state.ln_eta[k];
                touched.push((k, s));
            }
        }
        let changes = !touched.is_empty();
        out.changing += u64::from(changes);
        *take = ln_r >= 0.0 || rng.random::<f64>().ln() < ln_r;
        if *take {
            for &(k, s) in &touched {
                state.stat[k] = s;
                state.ln_eta[k] = release.ln_coordinate(k, s);
            }
            current[row.clone()].copy_from_slice(&proposed[row]);
            out.accepted += 1;
            out.moves += u64::from(changes);
        }
    }
    out
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
        let mut current = vec![0.0; n];
        let mut state = Statistic::of(&release, &current, 1);
        let mut proposed = vec![0.0; n];
        let mut accepted = vec![false; n];
        let mut draws = Vec::new();
        for it in 0..60_000 {
            let ones: f64 = current.iter().sum();
            let theta = rand_distr::Distribution::sample(
                &rand_distr::Beta::new(a + ones, b + n as f64 - ones).unwrap(),
                &mut rng,
            );
            for p in proposed.iter_mut() {
                *p = f64::from(u8::from(rng.random::<f64>() < theta));
            }
            record_wise(
                &release,
                &mut state,
                &mut current,
                &proposed,
                &mut accepted,
                &mut rng,
            );
            assert_eq!(state.stat[0], current.iter().sum::<f64>());
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
