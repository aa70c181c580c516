//! Record-level randomized response: the release is the records themselves, each
//! categorical attribute reported truthfully with probability `keep` and otherwise
//! as one of its other k − 1 categories, uniformly (Warner 1965; the k-ary channel
//! of Kairouz, Oh & Viswanath 2016). Replacing one record changes each attribute's
//! report law by at most the factor keep·(k − 1)/(1 − keep), so the release is
//! ε-DP with ε = Σ_a ln(keep_a (k_a − 1)/(1 − keep_a)) (infinite when a keep is 1).
//! dapper 1.1's randomized-response vignette keeps two binary attributes with
//! probability 3/4 each: ε = 2 ln 3.
//!
//! **The model.** Each record's attributes are jointly categorical over the
//! C = Π_a k_a cells (the contingency table; cells in mixed radix, the first
//! attribute most significant), with θ ~ Dirichlet(α).
//!
//! **The sampler.** RR acts on each record alone, so the table of released cells
//! n_y is sufficient and the likelihood is Π_y (Mθ)_y^{n_y}, with the channel
//! M(y, x) = Π_a P_a(y_a | x_a). Data augmentation with each record's true cell:
//! - given θ, the true cells of the n_y records released as y are i.i.d. with
//!   P(x) ∝ θ_x M(y, x): one multinomial per released cell, drawn exactly by
//!   sequential binomials, so a sweep costs O(C²) whatever n;
//! - given the true table c, θ ~ Dirichlet(α + c).
//!
//! Both steps are full conditionals (Gibbs): there is no accept/reject, where Ju et
//! al.'s record-wise step (dapper's) proposes each record from f(· | θ) and accepts
//! with M(y, x*)/M(y, x). [`exact_moments`] enumerates the posterior, a Dirichlet
//! mixture over the tables of true cells, for small n; the tests hold the sampler
//! to it.

use std::sync::atomic::AtomicBool;

use rand::Rng;
use rand_distr::{Binomial, Distribution};
use rayon::prelude::*;

use super::models::ModelError;
use super::run::{DaError, Draws, Settings};
use crate::expfam::noise_aware_dirichlet::sample_dirichlet;

/// Most cells of a table (the channel holds C² probabilities: 8 MB at 1024).
pub const MAX_CELLS: usize = 1024;

/// One attribute's k-ary randomized response.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RrAttribute {
    levels: usize,
    keep: f64,
}

impl RrAttribute {
    /// `levels` categories, the truth reported with probability `keep` ∈ (1/k, 1].
    pub fn new(levels: usize, keep: f64) -> Result<Self, ModelError> {
        if levels < 2 {
            return Err(ModelError {
                key: "levels",
                found: levels.to_string(),
                allowed: "at least 2 categories",
            });
        }
        if !(keep > 1.0 / levels as f64 && keep <= 1.0) {
            return Err(ModelError {
                key: "keep",
                found: format!("{keep} with {levels} categories"),
                allowed: "a keep probability in (1/k, 1] (at 1/k the report says nothing)",
            });
        }
        Ok(Self { levels, keep })
    }

    /// The channel of ε-DP: keep = e^ε/(e^ε + k − 1), ε > 0 (∞: keep = 1).
    pub fn with_epsilon(levels: usize, epsilon: f64) -> Result<Self, ModelError> {
        if epsilon.is_nan() || epsilon <= 0.0 {
            return Err(ModelError {
                key: "epsilon",
                found: epsilon.to_string(),
                allowed: "ε > 0",
            });
        }
        let keep = if epsilon.is_infinite() {
            1.0
        } else {
            1.0 / (1.0 + (levels as f64 - 1.0) * (-epsilon).exp())
        };
        Self::new(levels, keep)
    }

    pub fn levels(&self) -> usize {
        self.levels
    }

    pub fn keep(&self) -> f64 {
        self.keep
    }

    /// ln(keep·(k − 1)/(1 − keep)): the largest log ratio of a report's
    /// probabilities under two true categories.
    pub fn epsilon(&self) -> f64 {
        if self.keep >= 1.0 {
            return f64::INFINITY;
        }
        (self.keep * (self.levels as f64 - 1.0) / (1.0 - self.keep)).ln()
    }

    /// P(report | truth).
    pub fn probability(&self, reported: usize, truth: usize) -> f64 {
        if reported == truth {
            self.keep
        } else {
            (1.0 - self.keep) / (self.levels as f64 - 1.0)
        }
    }
}

/// The contingency-table model of records released by randomized response
/// (module docs): the attributes' channels, the Dirichlet prior on the cells and
/// the released table.
#[derive(Debug, Clone)]
pub struct RrTable {
    attributes: Vec<RrAttribute>,
    alpha: Vec<f64>,
    released: Vec<u64>,
    /// M(y, x), row-major
    channel: Vec<f64>,
    /// the reported parameters' names (default: [`RrTable::parameter_names`]'s)
    names: Option<Vec<String>>,
}

impl RrTable {
    /// The model of `released` (the number of released records in each cell),
    /// Dirichlet(`alpha`) on the cells.
    pub fn new(
        attributes: Vec<RrAttribute>,
        alpha: Vec<f64>,
        released: Vec<u64>,
    ) -> Result<Self, ModelError> {
        if attributes.is_empty() {
            return Err(ModelError {
                key: "attributes",
                found: "none".into(),
                allowed: "at least one attribute",
            });
        }
        let cells = attributes
            .iter()
            .try_fold(1usize, |c, a| c.checked_mul(a.levels))
            .filter(|&c| c <= MAX_CELLS);
        let Some(cells) = cells else {
            return Err(ModelError {
                key: "attributes",
                found: format!(
                    "{} cells",
                    attributes
                        .iter()
                        .map(|a| a.levels.to_string())
                        .collect::<Vec<_>>()
                        .join(" × ")
                ),
                allowed: "at most 1024 cells (the product of the attributes' categories)",
            });
        };
        if alpha.len() != cells || alpha.iter().any(|a| !(a.is_finite() && *a > 0.0)) {
            return Err(ModelError {
                key: "alpha",
                found: format!("{} values", alpha.len()),
                allowed: "one finite value > 0 per cell",
            });
        }
        if released.len() != cells {
            return Err(ModelError {
                key: "released",
                found: format!("{} cells", released.len()),
                allowed: "one count per cell",
            });
        }
        let mut table = Self {
            attributes,
            alpha,
            released,
            channel: Vec::new(),
            names: None,
        };
        table.channel = (0..cells * cells)
            .map(|i| table.probability(i / cells, i % cells))
            .collect();
        Ok(table)
    }

    /// The number of cells C.
    pub fn cells(&self) -> usize {
        self.alpha.len()
    }

    /// The number of released records.
    pub fn n(&self) -> u64 {
        self.released.iter().sum()
    }

    /// The release's ε under replacing one record: the attributes' ε summed.
    pub fn epsilon(&self) -> f64 {
        self.attributes.iter().map(RrAttribute::epsilon).sum()
    }

    /// Each attribute's category in `cell` (mixed radix, the first most significant).
    pub fn categories(&self, cell: usize) -> Vec<usize> {
        let mut out = vec![0; self.attributes.len()];
        let mut rest = cell;
        for (a, attr) in self.attributes.iter().enumerate().rev() {
            out[a] = rest % attr.levels;
            rest /= attr.levels;
        }
        out
    }

    /// The cell of one category per attribute.
    pub fn cell(&self, categories: &[usize]) -> usize {
        self.attributes
            .iter()
            .zip(categories)
            .fold(0, |c, (a, &k)| c * a.levels + k)
    }

    /// M(y, x) = Π_a P_a(y_a | x_a).
    fn probability(&self, reported: usize, truth: usize) -> f64 {
        let (y, x) = (self.categories(reported), self.categories(truth));
        self.attributes
            .iter()
            .zip(y.iter().zip(&x))
            .map(|(a, (&r, &t))| a.probability(r, t))
            .product()
    }

    /// Names the cells' parameters (one name per cell).
    pub fn set_names(&mut self, names: Vec<String>) -> Result<(), ModelError> {
        if names.len() != self.cells() {
            return Err(ModelError {
                key: "names",
                found: format!("{} names", names.len()),
                allowed: "one name per cell",
            });
        }
        self.names = Some(names);
        Ok(())
    }

    /// The names of the reported parameters: those set, else `p_` and each
    /// attribute's category (from 1), joined by `_`: `p_1_2`.
    pub fn parameter_names(&self) -> Vec<String> {
        if let Some(names) = &self.names {
            return names.clone();
        }
        (0..self.cells())
            .map(|c| {
                let k: Vec<String> = self
                    .categories(c)
                    .iter()
                    .map(|k| (k + 1).to_string())
                    .collect();
                format!("p_{}", k.join("_"))
            })
            .collect()
    }

    /// One Gibbs sweep (module docs): the true table given θ, then θ.
    fn sweep<R: Rng + ?Sized>(&self, theta: &[f64], rng: &mut R) -> Vec<f64> {
        let cells = self.cells();
        let mut post = self.alpha.clone();
        let mut w = vec![0.0; cells];
        for (y, &n_y) in self.released.iter().enumerate() {
            if n_y == 0 {
                continue;
            }
            let row = &self.channel[y * cells..(y + 1) * cells];
            for x in 0..cells {
                w[x] = theta[x] * row[x];
            }
            let mut mass: f64 = w.iter().sum();
            let mut left = n_y;
            let last = (0..cells).rev().find(|&x| w[x] > 0.0).unwrap_or(cells - 1);
            for x in 0..cells {
                if left == 0 {
                    break;
                }
                let k = if x == last || mass <= 0.0 {
                    left
                } else {
                    let p = (w[x] / mass).clamp(0.0, 1.0);
                    Binomial::new(left, p).map_or(0, |b| b.sample(rng))
                };
                post[x] += k as f64;
                left -= k;
                mass -= w[x];
            }
        }
        sample_dirichlet(&post, rng)
    }

    /// The chains (θ from the prior; `settings.kernel` is not used: the record
    /// step is exact), each on its own stream ([`crate::rng::task_rng`] of the
    /// seed and the chain), so the draws do not depend on the thread count; ended
    /// with [`DaError::Interrupted`] once `stop` is set (looked at every sweep).
    pub fn sample(&self, settings: &Settings, stop: &AtomicBool) -> Result<Draws, DaError> {
        settings.check_counts()?;
        let chains: Vec<Result<Vec<Vec<f64>>, DaError>> = (0..settings.chains)
            .into_par_iter()
            .map(|c| {
                let mut rng = crate::rng::task_rng(settings.seed, c);
                let mut theta = sample_dirichlet(&self.alpha, &mut rng);
                let mut kept = Vec::with_capacity(settings.draws);
                for it in 0..settings.warmup + settings.draws {
                    if stop.load(std::sync::atomic::Ordering::Relaxed) {
                        return Err(DaError::Interrupted);
                    }
                    theta = self.sweep(&theta, &mut rng);
                    if it >= settings.warmup {
                        kept.push(theta.clone());
                    }
                }
                Ok(kept)
            })
            .collect();
        // every record is drawn from its full conditional
        Draws::gibbs(self.parameter_names(), chains, self.n(), settings)
    }
}

/// Most tables of true cells [`exact_moments`] enumerates.
pub const MAX_TABLES: f64 = 5e6;

/// The posterior mean and sd of each cell's θ by enumeration (module docs): the
/// posterior is Σ_T w_T Dirichlet(α + c_T) over the tables T of true cells with
/// the released row sums, w_T = Π_y multinomial(n_y; T_y·) Π_{y,x} M(y, x)^{T_yx}
/// · B(α + c_T)/B(α). `None` past [`MAX_TABLES`] tables.
pub fn exact_moments(table: &RrTable) -> Option<(Vec<f64>, Vec<f64>)> {
    use statrs::function::gamma::ln_gamma;
    let cells = table.cells();
    let ln_choose_parts = |n: u64, parts: &[u64]| {
        ln_gamma(n as f64 + 1.0) - parts.iter().map(|&k| ln_gamma(k as f64 + 1.0)).sum::<f64>()
    };
    let count: f64 = table
        .released
        .iter()
        .map(|&n| {
            // compositions of n into C parts: C(n + C − 1, C − 1)
            (ln_gamma((n + cells as u64) as f64)
                - ln_gamma(n as f64 + 1.0)
                - ln_gamma(cells as f64))
            .exp()
        })
        .product();
    if count > MAX_TABLES {
        return None;
    }
    let a_sum: f64 = table.alpha.iter().sum();
    let n = table.n() as f64;
    let ln_beta =
        |a: &[f64]| a.iter().map(|&x| ln_gamma(x)).sum::<f64>() - ln_gamma(a.iter().sum::<f64>());
    // running sums scaled by e^{−top}: Σw, Σw·E[θ_x | T], Σw·E[θ_x² | T]
    struct Acc {
        top: f64,
        w: f64,
        m1: Vec<f64>,
        m2: Vec<f64>,
    }
    let mut acc = Acc {
        top: f64::NEG_INFINITY,
        w: 0.0,
        m1: vec![0.0; cells],
        m2: vec![0.0; cells],
    };
    fn compositions(n: u64, parts: usize, out: &mut Vec<u64>, f: &mut dyn FnMut(&[u64])) {
        if parts == 1 {
            out.push(n);
            f(out);
            out.pop();
            return;
        }
        for k in 0..=n {
            out.push(k);
            compositions(n - k, parts - 1, out, f);
            out.pop();
        }
    }
    #[allow(clippy::too_many_arguments)]
    fn walk(
        t: &RrTable,
        y: usize,
        lw: f64,
        c: &mut Vec<f64>,
        leaf: &mut dyn FnMut(f64, &[f64]),
        ln_choose_parts: &dyn Fn(u64, &[u64]) -> f64,
    ) {
        let cells = t.cells();
        if y == cells {
            leaf(lw, c);
            return;
        }
        let n_y = t.released[y];
        let row = &t.channel[y * cells..(y + 1) * cells];
        let mut parts = Vec::with_capacity(cells);
        compositions(n_y, cells, &mut parts, &mut |p: &[u64]| {
            let mut w = lw + ln_choose_parts(n_y, p);
            for x in 0..cells {
                if p[x] > 0 {
                    w += p[x] as f64 * row[x].ln();
                }
            }
            if w == f64::NEG_INFINITY {
                return;
            }
            for x in 0..cells {
                c[x] += p[x] as f64;
            }
            walk(t, y + 1, w, c, leaf, ln_choose_parts);
            for x in 0..cells {
                c[x] -= p[x] as f64;
            }
        });
    }
    let base = ln_beta(&table.alpha);
    let mut c = vec![0.0; cells];
    let mut leaf = |lw: f64, c: &[f64]| {
        let post: Vec<f64> = table.alpha.iter().zip(c).map(|(a, k)| a + k).collect();
        let w_ln = lw + ln_beta(&post) - base;
        if w_ln > acc.top {
            let scale = (acc.top - w_ln).exp();
            acc.w *= scale;
            acc.m1.iter_mut().for_each(|v| *v *= scale);
            acc.m2.iter_mut().for_each(|v| *v *= scale);
            acc.top = w_ln;
        }
        let w = (w_ln - acc.top).exp();
        acc.w += w;
        let s = a_sum + n;
        for ((m1, m2), &p) in acc.m1.iter_mut().zip(&mut acc.m2).zip(&post) {
            *m1 += w * p / s;
            *m2 += w * p * (p + 1.0) / (s * (s + 1.0));
        }
    };
    walk(table, 0, 0.0, &mut c, &mut leaf, &ln_choose_parts);
    let mean: Vec<f64> = acc.m1.iter().map(|v| v / acc.w).collect();
    let sd: Vec<f64> = acc
        .m2
        .iter()
        .zip(&mean)
        .map(|(v, m)| (v / acc.w - m * m).max(0.0).sqrt())
        .collect();
    Some((mean, sd))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::damcmc::Kernel;

    fn settings(chains: usize, draws: usize, seed: u64) -> Settings {
        Settings {
            warmup: 200,
            draws,
            chains,
            kernel: Kernel::RecordWise,
            seed,
        }
    }

    /// The channel's rows sum to 1 and its largest log ratio of a report's
    /// probabilities under two truths is the stated ε (brute force); keep 3/4 on a
    /// binary attribute is ln 3, and `with_epsilon` inverts `epsilon`.
    #[test]
    fn the_channel_is_epsilon_dp_with_the_stated_epsilon() {
        for (k, keep) in [(2, 0.75), (3, 0.6), (5, 0.9), (4, 0.26)] {
            let a = RrAttribute::new(k, keep).unwrap();
            let mut worst: f64 = 0.0;
            for x in 0..k {
                let total: f64 = (0..k).map(|y| a.probability(y, x)).sum();
                assert!((total - 1.0).abs() < 1e-12);
                for x2 in 0..k {
                    for y in 0..k {
                        worst = worst.max((a.probability(y, x) / a.probability(y, x2)).ln());
                    }
                }
            }
            assert!((worst - a.epsilon()).abs() < 1e-12, "k {k} keep {keep}");
            let b = RrAttribute::with_epsilon(k, a.epsilon()).unwrap();
            assert!((b.keep() - keep).abs() < 1e-12);
        }
        let a = RrAttribute::new(2, 0.75).unwrap();
        assert!((a.epsilon() - 3f64.ln()).abs() < 1e-15);
        let t = RrTable::new(vec![a, a], vec![1.0; 4], vec![1, 2, 3, 4]).unwrap();
        assert!((t.epsilon() - 2.0 * 3f64.ln()).abs() < 1e-15);
        assert_eq!(RrAttribute::new(2, 1.0).unwrap().epsilon(), f64::INFINITY);
    }

    #[test]
    fn bad_attributes_and_tables_are_refused_naming_the_key() {
        assert_eq!(RrAttribute::new(1, 0.9).unwrap_err().key, "levels");
        assert_eq!(RrAttribute::new(2, 0.5).unwrap_err().key, "keep");
        assert_eq!(RrAttribute::new(3, 1.0 / 3.0).unwrap_err().key, "keep");
        assert_eq!(RrAttribute::new(2, 1.1).unwrap_err().key, "keep");
        assert_eq!(RrAttribute::new(2, f64::NAN).unwrap_err().key, "keep");
        assert_eq!(
            RrAttribute::with_epsilon(2, 0.0).unwrap_err().key,
            "epsilon"
        );
        let a = RrAttribute::new(2, 0.75).unwrap();
        let table = |alpha: Vec<f64>, released: Vec<u64>| RrTable::new(vec![a, a], alpha, released);
        assert_eq!(table(vec![1.0; 3], vec![0; 4]).unwrap_err().key, "alpha");
        assert_eq!(
            table(vec![1.0, 1.0, 0.0, 1.0], vec![0; 4]).unwrap_err().key,
            "alpha"
        );
        assert_eq!(table(vec![1.0; 4], vec![0; 5]).unwrap_err().key, "released");
        let big = RrAttribute::new(40, 0.5).unwrap();
        assert_eq!(
            RrTable::new(vec![big, big], vec![1.0; 1600], vec![0; 1600])
                .unwrap_err()
                .key,
            "attributes"
        );
    }

    /// Cells are mixed radix, the first attribute most significant, and the
    /// channel is the product of the attributes'.
    #[test]
    fn cells_and_channel_follow_the_attributes() {
        let a = RrAttribute::new(3, 0.6).unwrap();
        let b = RrAttribute::new(2, 0.9).unwrap();
        let t = RrTable::new(vec![a, b], vec![1.0; 6], vec![0; 6]).unwrap();
        assert_eq!(t.categories(5), vec![2, 1]);
        assert_eq!(t.cell(&[1, 0]), 2);
        assert_eq!(t.parameter_names()[3], "p_2_2");
        let m = t.probability(t.cell(&[0, 1]), t.cell(&[2, 1]));
        assert!((m - a.probability(0, 2) * b.probability(1, 1)).abs() < 1e-15);
    }

    /// The Gibbs sampler's means within 4 Monte Carlo standard errors (sd/√ESS) of
    /// the enumerated posterior and its sds within 10 %, on two small tables: two
    /// binary attributes kept with probability 3/4 (dapper's vignette's channel),
    /// and a 3 × 2 table with unequal keeps and prior.
    #[test]
    fn gibbs_draws_match_the_enumerated_posterior() {
        let binary = RrAttribute::new(2, 0.75).unwrap();
        let cases = [
            RrTable::new(vec![binary, binary], vec![1.0; 4], vec![3, 1, 2, 2]).unwrap(),
            RrTable::new(
                vec![
                    RrAttribute::new(3, 0.6).unwrap(),
                    RrAttribute::new(2, 0.9).unwrap(),
                ],
                vec![0.5, 1.0, 2.0, 0.5, 1.0, 1.5],
                vec![2, 0, 1, 3, 0, 1],
            )
            .unwrap(),
        ];
        for (i, t) in cases.iter().enumerate() {
            let (mean, sd) = exact_moments(t).expect("small enough");
            let draws = t
                .sample(&settings(4, 5000, 7 + i as u64), &AtomicBool::new(false))
                .unwrap();
            for s in draws.summary().iter().zip(mean.iter().zip(&sd)) {
                let (got, (&m, &d)) = s;
                let se = got.sd / got.ess_bulk.unwrap().sqrt();
                assert!(
                    (got.mean - m).abs() < 4.0 * se,
                    "case {i} {}: mean {} against {m} (se {se})",
                    got.parameter,
                    got.mean
                );
                assert!(
                    (got.sd - d).abs() < 0.1 * d,
                    "case {i} {}: sd {} against {d}",
                    got.parameter,
                    got.sd
                );
            }
        }
    }

    /// The enumeration against the likelihood written directly, Π_y (Mθ)_y^{n_y},
    /// by importance sampling from the prior (2·10⁵ draws; means within 4 of the
    /// weighted estimate's standard errors).
    #[test]
    fn enumeration_matches_importance_sampling_of_the_likelihood() {
        use rand::SeedableRng;
        let t = RrTable::new(
            vec![
                RrAttribute::new(3, 0.6).unwrap(),
                RrAttribute::new(2, 0.9).unwrap(),
            ],
            vec![0.5, 1.0, 2.0, 0.5, 1.0, 1.5],
            vec![2, 0, 1, 3, 0, 1],
        )
        .unwrap();
        let (mean, _) = exact_moments(&t).unwrap();
        let cells = t.cells();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let draws: Vec<(f64, Vec<f64>)> = (0..200_000)
            .map(|_| {
                let theta = sample_dirichlet(&t.alpha, &mut rng);
                let ln_w: f64 = (0..cells)
                    .map(|y| {
                        let p: f64 = (0..cells).map(|x| t.probability(y, x) * theta[x]).sum();
                        t.released[y] as f64 * p.ln()
                    })
                    .sum();
                (ln_w.exp(), theta)
            })
            .collect();
        let w_sum: f64 = draws.iter().map(|d| d.0).sum();
        for x in 0..cells {
            let est = draws.iter().map(|(w, th)| w * th[x]).sum::<f64>() / w_sum;
            // the self-normalised estimate's standard error (delta method)
            let var = draws
                .iter()
                .map(|(w, th)| (w * (th[x] - est)).powi(2))
                .sum::<f64>()
                / (w_sum * w_sum);
            assert!(
                (est - mean[x]).abs() < 4.0 * var.sqrt(),
                "cell {x}: importance sampling {est} ± {} against the enumeration {}",
                var.sqrt(),
                mean[x]
            );
        }
    }

    /// With every attribute kept for sure the release is the table itself and the
    /// posterior is Dirichlet(α + released): the enumeration says so exactly.
    #[test]
    fn a_sure_keep_gives_the_conjugate_posterior() {
        let a = RrAttribute::new(2, 1.0).unwrap();
        let t = RrTable::new(vec![a, a], vec![1.0, 2.0, 0.5, 1.5], vec![4, 0, 2, 3]).unwrap();
        let (mean, _) = exact_moments(&t).unwrap();
        let post = [5.0, 2.0, 2.5, 4.5];
        for (m, p) in mean.iter().zip(post) {
            assert!((m - p / 14.0).abs() < 1e-12);
        }
    }

    /// The same seed gives the same draws on one thread or two.
    #[test]
    fn draws_do_not_depend_on_the_thread_count() {
        let a = RrAttribute::new(2, 0.75).unwrap();
        let t = RrTable::new(vec![a, a], vec![1.0; 4], vec![30, 10, 20, 40]).unwrap();
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    t.sample(&settings(3, 50, 1), &AtomicBool::new(false))
                        .unwrap()
                })
        };
        assert_eq!(run(1), run(2));
        let stop = AtomicBool::new(true);
        assert_eq!(
            t.sample(&settings(1, 5, 1), &stop),
            Err(DaError::Interrupted)
        );
    }
}
