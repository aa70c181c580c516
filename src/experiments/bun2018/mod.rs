//! bun2018 (smoothed-Hellinger exponential mechanism poster): Figures 2 and 3.
//!
//! Figures 2 and 3 (one file each) and their plots (`plot.rs`). Shared here: the three
//! released-posterior mechanisms, their distance draws and their ledger entries.

mod fig2;
mod fig3;
pub mod plot;

pub use fig2::{build_fig2, Fig2, Fig2Row, Fig2Summary, FIG2_SCHEMA};
pub use fig3::{build_fig3, Fig3, Fig3Row, FIG3_SCHEMA};

use crate::config::{check, ParamError};
use crate::expfam::dirichlet::HellingerVariant;
use crate::hellinger::laplace::{poster_sensitivity, LaplaceCounts, Rounding};
use crate::hellinger::{candidate_count, ExpMech, Space};
use crate::privacy::event::NoiseMode;
use crate::privacy::event::{Derivation, Guarantee};
use crate::privacy::ledger::{Entry, Ledger};
use crate::stats::quantile;
use rand_chacha::ChaCha8Rng;

/// The three released-posterior mechanisms compared on the poster.
pub const MECHANISMS: [&str; 3] = ["hellinger_em", "laplace_hist", "laplace_dim"];

/// (mean, q25, q50, q75) of distances.
/// Estimated flops of a task on the simplex of histograms of `n` records in
/// `k` categories (C(n + k − 1, k − 1) candidate posteriors): the exponential
/// mechanism scores every candidate (its Hellinger distance and smoothed
/// sensitivity, ≈ 100k flops each) and each of `draws` releases costs ≈ 50k;
/// a Laplace release only the draws. The cost model `--shard` balances by.
fn task_cost(mechanism: &str, n: u32, k: usize, draws: usize) -> f64 {
    let k_f = k as f64;
    let draws_cost = draws as f64 * 50.0 * k_f;
    if mechanism != "hellinger_em" {
        return draws_cost;
    }
    // C(n + k − 1, k − 1), as a float (k ≤ 8)
    let candidates = (1..k).fold(1.0, |c, j| c * (f64::from(n) + j as f64) / j as f64);
    candidates * 100.0 * k_f + draws_cost
}

/// The standard error of the mean of distances (sample sd / √n; 0 for one).
fn standard_error(d: &[f64]) -> f64 {
    let n = d.len() as f64;
    if d.len() < 2 {
        return 0.0;
    }
    let mean = d.iter().sum::<f64>() / n;
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (var / n).sqrt()
}

fn describe(mut d: Vec<f64>) -> (f64, f64, f64, f64) {
    d.sort_by(f64::total_cmp);
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    (
        mean,
        quantile(&d, 0.25),
        quantile(&d, 0.5),
        quantile(&d, 0.75),
    )
}

/// `draws` distances H(BI(c), release) of one mechanism, and the noise scale used
/// (S(c) for the exponential mechanism, s for Laplace).
fn draw_distances(
    space: &Space,
    data: &[u32],
    mechanism: &str,
    common: &Common,
    draws: usize,
    rng: &mut ChaCha8Rng,
) -> anyhow::Result<(Vec<f64>, f64)> {
    let (epsilon, delta, rounding) = (common.epsilon, common.delta, common.laplace_rounding);
    let noise = common.noise;
    if mechanism == "hellinger_em" {
        let m = ExpMech::new(space, data, epsilon, delta)?;
        Ok((m.sample_distances(draws, rng), m.smooth_sensitivity()))
    } else {
        let s = poster_sensitivity(mechanism, space.k());
        let m = LaplaceCounts::new(s, epsilon, rounding, noise)?;
        let d = space.from_data(data);
        let distances = (0..draws)
            .map(|_| Ok(d.hellinger(&m.sample(data, rng)?)))
            .collect::<anyhow::Result<_>>()?;
        Ok((distances, s))
    }
}

/// The ledger entry of one poster series at dimension k: the smoothed-Hellinger EM
/// at (ε, δ), or Laplace(s/ε) with the series' sensitivity s.
fn ledger_entry(common: &Common, mechanism: &str, k: usize) -> anyhow::Result<Entry> {
    let series = format!("k={k}, mechanism={mechanism}");
    Ok(if mechanism == "hellinger_em" {
        Entry::new(
            series,
            crate::hellinger::privacy_event(common.epsilon, common.delta),
            Guarantee::ApproxDp {
                epsilon: common.epsilon,
                delta: common.delta,
                conversion: Derivation::theorem("smooth-sensitivity exponential mechanism"),
                order: None,
            },
        )
        .when(match common.hellinger {
            HellingerVariant::Correct => "scores are Hellinger distances and S their γ-smooth sensitivity, computed exactly over all count vectors",
            HellingerVariant::AsPublished => "scores are the authors' (mistyped) log-Beta 'distance'; S is its exact γ-smooth sensitivity, so (ε, δ) still holds for that score",
        })
    } else {
        let m = LaplaceCounts::new(
            poster_sensitivity(mechanism, k),
            common.epsilon,
            common.laplace_rounding,
            common.noise,
        )?;
        Entry::new(
            series,
            m.event(),
            Guarantee::PureDp {
                epsilon: common.epsilon,
            },
        )
    })
}

/// Entries for each distinct (k, mechanism) in order of first appearance.
fn ledger_of(
    common: &Common,
    pairs: impl Iterator<Item = (usize, usize)>,
) -> anyhow::Result<Ledger> {
    let mut seen = Vec::new();
    for p in pairs {
        if !seen.contains(&p) {
            seen.push(p);
        }
    }
    seen.into_iter()
        .map(|(k, m)| ledger_entry(common, MECHANISMS[m], k))
        .collect()
}

#[derive(Debug)]
struct Common {
    epsilon: f64,
    delta: f64,
    hellinger: HellingerVariant,
    laplace_rounding: Rounding,
    noise: NoiseMode,
}

impl Common {
    /// ε, δ and the non-default variants, for [`Figure::parameters`].
    fn parameters(&self) -> Vec<(String, String)> {
        let mut p = vec![
            crate::experiments::parameter("ε", self.epsilon),
            crate::experiments::parameter("δ", format!("{:e}", self.delta)),
        ];
        if self.laplace_rounding == Rounding::Floor {
            p.push(crate::experiments::parameter(
                "Laplace rounded down (as the authors' code)",
                "",
            ));
        }
        p.extend(crate::experiments::noise_parameter(self.noise));
        p
    }
}

fn check_common(c: &Common) -> Result<(), ParamError> {
    check::epsilon("epsilon", c.epsilon)?;
    if c.noise != NoiseMode::Float {
        if c.laplace_rounding == Rounding::Floor {
            return Err(ParamError::new(
                "laplace_rounding",
                format!(
                    "\"floor\" with noise = \"{}\": the discrete Laplace already releases integers, so there is nothing to round",
                    c.noise.as_str()
                ),
                "\"nearest\" (or noise = \"float\" to reproduce the authors' rounding)",
            ));
        }
        // the largest sensitivity is k = 8 (laplace_dim), the smallest 1
        for s in [1.0, 8.0] {
            LaplaceCounts::new(s, c.epsilon, c.laplace_rounding, c.noise).map_err(|e| {
                ParamError::new(
                    "epsilon",
                    format!("{e} (noise = \"{}\")", c.noise.as_str()),
                    "an ε whose Laplace scales s/ε (s = 1 … 8) lie in [2^-30, 2^30]",
                )
            })?;
        }
    }
    if !(c.delta > 0.0 && c.delta < 1.0) {
        return Err(ParamError::new(
            "delta",
            format!("invalid δ = {}", c.delta),
            "0 < δ < 1",
        ));
    }
    Ok(())
}

fn check_dimensions(key: &str, ks: &[u64]) -> Result<(), ParamError> {
    check::non_empty(key, ks)?;
    for &k in ks {
        if !(2..=8).contains(&k) {
            return Err(ParamError::new(
                key,
                format!("invalid dimension {k}"),
                "2 ≤ k ≤ 8",
            ));
        }
    }
    Ok(())
}

/// Why Beta(a, a) priors are bounded: log-gamma of larger a (or the log of smaller)
/// leaves no digits for the exact output probabilities.
const PRIOR_RANGE: &str = "a Beta(a, a) prior whose exact probabilities stay finite";

fn check_size(key: &str, n: u64, k: u64) -> Result<u32, ParamError> {
    check::at_least(key, n, 1)?;
    if candidate_count(n.min(u32::MAX as u64) as u32, k as usize) > 2_000_000_000 || n > 100_000 {
        return Err(ParamError::new(
            key,
            format!("n = {n} with k = {k} gives too many candidate posteriors"),
            "at most 2·10⁹ candidates C(n+k−1, k−1)",
        ));
    }
    Ok(n as u32)
}

#[cfg(test)]
mod cost_tests {
    #[test]
    fn candidate_counts_are_binomials() {
        // C(10 + 2, 2) = 66 candidates for k = 3, n = 10
        assert_eq!(super::task_cost("hellinger_em", 10, 3, 0), 66.0 * 300.0);
        assert_eq!(super::task_cost("laplace_hist", 10, 3, 2), 300.0);
    }
}
