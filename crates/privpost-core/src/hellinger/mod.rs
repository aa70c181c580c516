//! Smoothed-Hellinger exponential mechanism for Beta/Dirichlet posteriors
//! (bun2018-smoothed-hellinger-bayesian-inference-poster) and its Laplace baselines.
//!
//! Data are a count vector c over k categories with Σc = n; the candidate
//! outputs are every posterior Dirichlet(prior + c′) with Σc′ = n
//! (C(n + k − 1, k − 1) of them: 36 million for k = 4, n = 600). Everything here
//! streams over the candidates in a fixed order with O(k) work each:
//! * H(c, r): ln BC = Σᵢ [T(cᵢ + rᵢ) − ½T(2cᵢ) − ½T(2rᵢ)] with the table
//!   T(x) = ln Γ(priorᵢ + x/2) (the ln Γ(Σ) terms cancel for equal totals);
//! * LS(c′): a neighbour moves one record from i to j, which changes only
//!   coordinates i and j, so ln BC = −[u_i(c′_i) + v_j(c′_j)] with one-variable
//!   tables, and LS is a top-2 search over i ≠ j;
//! * S(c) = max over c′ of LS(c′) e^{−γ d(c, c′)}: one pass;
//! * sampling: total weight in one pass, then sorted uniforms matched against
//!   the running sum in a second pass — the same draws as a cumulative table,
//!   in O(draws) memory.

pub mod laplace;

use crate::privacy::event::Event;
use rand::{Rng, RngExt};
use statrs::function::gamma::ln_gamma;

use crate::expfam::dirichlet::{hellinger_from_ln_bc, HellingerVariant};
use crate::expfam::{check, FamilyError};
use crate::numeric::ln_gamma_remainder;

/// γ = ln(1 − ε / (2 ln(δ / (2(n + 1))))), the smoothing rate on the poster.
pub fn gamma(epsilon: f64, delta: f64, n: u32) -> f64 {
    (1.0 - epsilon / (2.0 * (delta / (2.0 * (n as f64 + 1.0))).ln())).ln()
}

/// Number of candidates C(n + k − 1, k − 1).
pub fn candidate_count(n: u32, k: usize) -> u64 {
    let mut c: u128 = 1;
    for i in 1..k as u128 {
        c = c * (n as u128 + i) / i;
    }
    c as u64
}

/// Calls `f` on every c′ ∈ ℕ^k with Σc′ = n, in lexicographic order.
pub fn for_each_count(n: u32, k: usize, mut f: impl FnMut(&[u32])) {
    fn rec(pos: usize, remaining: u32, buf: &mut [u32], f: &mut impl FnMut(&[u32])) {
        if pos + 1 == buf.len() {
            buf[pos] = remaining;
            f(buf);
            return;
        }
        for x in 0..=remaining {
            buf[pos] = x;
            rec(pos + 1, remaining - x, buf, f);
        }
    }
    let mut buf = vec![0; k];
    rec(0, n, &mut buf, &mut f);
}

/// Balanced data: each bin ⌊n/k⌋, the remainder to the last.
pub fn balanced_counts(n: u32, k: usize) -> Vec<u32> {
    let base = n / k as u32;
    let mut c = vec![base; k];
    c[k - 1] = n - base * (k as u32 - 1);
    c
}

/// The candidate posteriors for a prior and data size, with lookup tables.
#[derive(Debug, Clone)]
pub struct Space {
    k: usize,
    n: u32,
    prior: Vec<f64>,
    variant: HellingerVariant,
    /// 1 (correct) or 1/ln(Σprior + n) (as published) applied to ln BC.
    scale: f64,
    /// half[i][x] = ln Γ(priorᵢ + x/2), x = 0..=2n
    half: Vec<Vec<f64>>,
    /// take[i][c] = −ln BC (unscaled) of moving one record out of coordinate i holding c ≥ 1
    take: Vec<Vec<f64>>,
    /// give[i][c] = the same for moving one record into coordinate i holding c
    give: Vec<Vec<f64>>,
}

impl Space {
    pub fn new(prior: Vec<f64>, n: u32, variant: HellingerVariant) -> Result<Self, FamilyError> {
        let k = prior.len();
        check("k", k as f64, (2..=8).contains(&k), "2 to 8 categories")?;
        for &a in &prior {
            check("prior", a, a > 0.0 && a.is_finite(), "finite values > 0")?;
        }
        let half = prior
            .iter()
            .map(|&a| (0..=2 * n).map(|x| ln_gamma(a + 0.5 * x as f64)).collect())
            .collect();
        // −ln BC of a unit move, from second-order remainders (no cancellation):
        // out of a (to a − 1): ½[φ(a − ½, ½) + φ(a − ½, −½)]; into a: ½[φ(a + ½, ½) + φ(a + ½, −½)].
        let pair = |m: f64| 0.5 * (ln_gamma_remainder(m, 0.5) + ln_gamma_remainder(m, -0.5));
        let take = prior
            .iter()
            .map(|&a| {
                (0..=n)
                    .map(|c| {
                        if c == 0 {
                            f64::NEG_INFINITY
                        } else {
                            pair(a + c as f64 - 0.5)
                        }
                    })
                    .collect()
            })
            .collect();
        let give = prior
            .iter()
            .map(|&a| (0..=n).map(|c| pair(a + c as f64 + 0.5)).collect())
            .collect();
        let total: f64 = prior.iter().sum::<f64>() + n as f64;
        let scale = match variant {
            HellingerVariant::Correct => 1.0,
            HellingerVariant::AsPublished => 1.0 / total.ln(),
        };
        Ok(Self {
            k,
            n,
            prior,
            variant,
            scale,
            half,
            take,
            give,
        })
    }

    pub fn k(&self) -> usize {
        self.k
    }
    pub fn n(&self) -> u32 {
        self.n
    }
    pub fn prior(&self) -> &[f64] {
        &self.prior
    }
    pub fn variant(&self) -> HellingerVariant {
        self.variant
    }
    pub fn count(&self) -> u64 {
        candidate_count(self.n, self.k)
    }

    pub fn for_each(&self, f: impl FnMut(&[u32])) {
        for_each_count(self.n, self.k, f)
    }

    /// H(BI(c), BI(r)) for two count vectors with the same total n.
    pub fn hellinger(&self, c: &[u32], r: &[u32]) -> f64 {
        let mut ln_bc = 0.0;
        for i in 0..self.k {
            let t = &self.half[i];
            let (ci, ri) = (c[i] as usize, r[i] as usize);
            ln_bc += t[ci + ri] - 0.5 * (t[2 * ci] + t[2 * ri]);
        }
        hellinger_from_ln_bc(self.scale * ln_bc)
    }

    /// Distances from c to every candidate, pre-bound to c: ln BC = `Σᵢ row[i][rᵢ]`.
    pub fn from_data(&self, c: &[u32]) -> Distances {
        let rows = (0..self.k)
            .map(|i| {
                let t = &self.half[i];
                let ci = c[i] as usize;
                (0..=self.n as usize)
                    .map(|r| self.scale * (t[ci + r] - 0.5 * (t[2 * ci] + t[2 * r])))
                    .collect()
            })
            .collect();
        Distances { rows }
    }

    /// Local sensitivity LS(c′) = max over neighbours c″ (one record moved from
    /// i to j) of H(BI(c′), BI(c″)); by the triangle inequality this equals the
    /// poster's max over c″ and candidates r of |H(c′, r) − H(c″, r)|.
    pub fn local_sensitivity(&self, c: &[u32]) -> f64 {
        let (mut u1, mut u2, mut iu) = (f64::NEG_INFINITY, f64::NEG_INFINITY, usize::MAX);
        let (mut v1, mut v2, mut iv) = (f64::NEG_INFINITY, f64::NEG_INFINITY, usize::MAX);
        for (i, (&ci, (take, give))) in c.iter().zip(self.take.iter().zip(&self.give)).enumerate() {
            let u = take[ci as usize];
            if u > u1 {
                (u2, u1, iu) = (u1, u, i);
            } else if u > u2 {
                u2 = u;
            }
            let v = give[ci as usize];
            if v > v1 {
                (v2, v1, iv) = (v1, v, i);
            } else if v > v2 {
                v2 = v;
            }
        }
        if u1 == f64::NEG_INFINITY {
            return 0.0; // n = 0: no record to move
        }
        let best = if iu != iv {
            u1 + v1
        } else {
            (u1 + v2).max(u2 + v1)
        };
        hellinger_from_ln_bc(-self.scale * best)
    }

    /// Smooth sensitivity S(c) = max over all candidates c′ of LS(c′) e^{−γ d(c, c′)},
    /// d = records to change = ½‖c − c′‖₁. One pass.
    pub fn smooth_sensitivity(&self, c: &[u32], gamma: f64) -> f64 {
        let mut best: f64 = 0.0;
        self.for_each(|r| {
            let d: u32 = c.iter().zip(r).map(|(&a, &b)| a.abs_diff(b)).sum::<u32>() / 2;
            best = best.max(self.local_sensitivity(r) * (-gamma * d as f64).exp());
        });
        best
    }
}

/// Distances from fixed data c to candidates, in O(k) table lookups each.
pub struct Distances {
    rows: Vec<Vec<f64>>,
}

impl Distances {
    #[inline]
    pub fn hellinger(&self, r: &[u32]) -> f64 {
        let ln_bc: f64 = r
            .iter()
            .zip(&self.rows)
            .map(|(&x, row)| row[x as usize])
            .sum();
        hellinger_from_ln_bc(ln_bc)
    }
}

/// The smoothed-Hellinger exponential mechanism M_H^B for data c: outputs
/// candidate r with probability ∝ exp(−ε H(BI(c), r) / (2 S(c))).
/// The privacy event of the smoothed-Hellinger exponential mechanism at (ε, δ):
/// scores scaled by ε/(2·S), S the γ-smooth sensitivity with γ from (ε, δ) (Bun et
/// al., Theorem on smooth-sensitivity exponential mechanisms) — (ε, δ)-DP.
pub fn privacy_event(epsilon: f64, delta: f64) -> Event {
    Event::SmoothedHellinger { epsilon, delta }
}

pub struct ExpMech<'a> {
    space: &'a Space,
    data: Vec<u32>,
    distances: Distances,
    epsilon: f64,
    smooth: f64,
    gamma: f64,
}

impl<'a> ExpMech<'a> {
    pub fn new(
        space: &'a Space,
        data: &[u32],
        epsilon: f64,
        delta: f64,
    ) -> Result<Self, FamilyError> {
        check(
            "epsilon",
            epsilon,
            epsilon > 0.0 && epsilon.is_finite(),
            "a finite value > 0",
        )?;
        check("delta", delta, delta > 0.0 && delta < 1.0, "0 < δ < 1")?;
        check(
            "k",
            data.len() as f64,
            data.len() == space.k,
            "the space's dimension",
        )?;
        let total: u32 = data.iter().sum();
        check(
            "n",
            total as f64,
            total == space.n && total > 0,
            "counts summing to the space's n ≥ 1",
        )?;
        let gamma = gamma(epsilon, delta, space.n);
        let smooth = space.smooth_sensitivity(data, gamma);
        Ok(Self {
            space,
            data: data.to_vec(),
            distances: space.from_data(data),
            epsilon,
            smooth,
            gamma,
        })
    }

    pub fn smooth_sensitivity(&self) -> f64 {
        self.smooth
    }

    /// The privacy event of one draw: [`privacy_event`] at this mechanism's (ε, δ).
    pub fn event(&self, delta: f64) -> Event {
        privacy_event(self.epsilon, delta)
    }
    pub fn gamma(&self) -> f64 {
        self.gamma
    }
    pub fn data(&self) -> &[u32] {
        &self.data
    }

    #[inline]
    fn weight(&self, h: f64) -> f64 {
        // the true posterior has H = 0 and weight 1, so every weight is in (0, 1]
        (-self.epsilon * h / (2.0 * self.smooth)).exp()
    }

    /// `draws` samples of H(BI(c), output), by two streaming passes.
    /// Returned in candidate order (a multiset: order carries no information).
    pub fn sample_distances<R: Rng + ?Sized>(&self, draws: usize, rng: &mut R) -> Vec<f64> {
        let mut total = 0.0;
        self.space
            .for_each(|r| total += self.weight(self.distances.hellinger(r)));
        let mut targets: Vec<f64> = (0..draws).map(|_| rng.random::<f64>() * total).collect();
        targets.sort_by(f64::total_cmp);
        let mut out = Vec::with_capacity(draws);
        let (mut acc, mut next, mut last) = (0.0, 0, 0.0);
        self.space.for_each(|r| {
            if next == draws {
                return;
            }
            let h = self.distances.hellinger(r);
            acc += self.weight(h);
            last = h;
            while next < draws && targets[next] < acc {
                out.push(h);
                next += 1;
            }
        });
        // rounding can leave a target at the very top of the range
        out.resize(draws, last);
        out
    }

    /// One output: a candidate count vector drawn with weight exp(−ε H/(2S)), by
    /// two streaming passes (O(k) memory, not the candidate list of [`Self::exact`]).
    pub fn sample_candidate<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<u32> {
        let mut total = 0.0;
        self.space
            .for_each(|r| total += self.weight(self.distances.hellinger(r)));
        let target = rng.random::<f64>() * total;
        let (mut acc, mut out): (f64, Option<Vec<u32>>) = (0.0, None);
        let mut last = Vec::new();
        self.space.for_each(|r| {
            if out.is_some() {
                return;
            }
            acc += self.weight(self.distances.hellinger(r));
            if target < acc {
                out = Some(r.to_vec());
            } else {
                last.clear();
                last.extend_from_slice(r);
            }
        });
        // rounding can leave the target at the very top of the range
        out.unwrap_or(last)
    }

    /// Exact output probabilities (candidate, H, probability), in candidate order.
    pub fn exact(&self) -> Vec<(Vec<u32>, f64, f64)> {
        let mut out = Vec::with_capacity(self.space.count() as usize);
        let mut total = 0.0;
        self.space.for_each(|r| {
            let h = self.distances.hellinger(r);
            let w = self.weight(h);
            total += w;
            out.push((r.to_vec(), h, w));
        });
        for o in &mut out {
            o.2 /= total;
        }
        out
    }
}

/// Worst privacy loss of the exponential mechanism over every pair of
/// neighbouring datasets of size n (exhaustive; for small n).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrivacyAudit {
    /// max over neighbours and outputs of ln(P_c(r) / P_c″(r))
    pub worst_ln_ratio: f64,
    /// max over neighbours of Σ_r max(0, P_c(r) − e^ε P_c″(r)) (the δ actually needed at ε)
    pub worst_delta: f64,
    pub pairs: usize,
}

pub fn audit(space: &Space, epsilon: f64, delta: f64) -> Result<PrivacyAudit, FamilyError> {
    let mut datasets = Vec::new();
    space.for_each(|c| datasets.push(c.to_vec()));
    let probs: Vec<Vec<f64>> = datasets
        .iter()
        .map(|c| {
            Ok(ExpMech::new(space, c, epsilon, delta)?
                .exact()
                .into_iter()
                .map(|o| o.2)
                .collect())
        })
        .collect::<Result<_, FamilyError>>()?;
    let index = |c: &[u32]| datasets.iter().position(|d| d == c);
    let mut result = PrivacyAudit {
        worst_ln_ratio: 0.0,
        worst_delta: 0.0,
        pairs: 0,
    };
    for (a, c) in datasets.iter().enumerate() {
        for i in 0..space.k {
            for j in 0..space.k {
                if i == j || c[i] == 0 {
                    continue;
                }
                let mut nb = c.clone();
                nb[i] -= 1;
                nb[j] += 1;
                let Some(b) = index(&nb) else { continue };
                result.pairs += 1;
                let mut hockey = 0.0;
                for (p, q) in probs[a].iter().zip(&probs[b]) {
                    result.worst_ln_ratio = result.worst_ln_ratio.max((p / q).ln());
                    hockey += (p - epsilon.exp() * q).max(0.0);
                }
                result.worst_delta = result.worst_delta.max(hockey);
            }
        }
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expfam::dirichlet::{hellinger, Dirichlet};
    use crate::testutil::assert_rel;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn space(k: usize, n: u32) -> Space {
        Space::new(vec![1.0; k], n, HellingerVariant::Correct).unwrap()
    }

    fn dir(prior: &[f64], c: &[u32]) -> Dirichlet {
        Dirichlet::new(prior.iter().zip(c).map(|(a, &x)| a + x as f64).collect()).unwrap()
    }

    #[test]
    fn counts_and_enumeration() {
        assert_eq!(candidate_count(600, 4), 36_361_101); // 603·602·601/6
        assert_eq!(candidate_count(100, 2), 101);
        let mut seen = 0;
        for_each_count(7, 3, |c| {
            assert_eq!(c.iter().sum::<u32>(), 7);
            seen += 1;
        });
        assert_eq!(seen, candidate_count(7, 3));
        assert_eq!(balanced_counts(100, 3), vec![33, 33, 34]);
    }

    /// The streaming one-draw sampler against the exact output probabilities:
    /// 20 000 draws at k = 3, n = 6 (28 candidates), every frequency within 4.5
    /// binomial standard errors of its probability.
    #[test]
    fn sample_candidate_follows_the_exact_probabilities() {
        let space = Space::new(vec![2.0, 3.0, 1.5], 6, HellingerVariant::Correct).unwrap();
        let em = ExpMech::new(&space, &[1, 4, 1], 0.8, 1e-6).unwrap();
        let exact = em.exact();
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let draws = 20_000;
        let mut freq = vec![0usize; exact.len()];
        for _ in 0..draws {
            let r = em.sample_candidate(&mut rng);
            freq[exact.iter().position(|o| o.0 == r).unwrap()] += 1;
        }
        for ((r, _, p), f) in exact.iter().zip(&freq) {
            let se = (p * (1.0 - p) / draws as f64).sqrt();
            let got = *f as f64 / draws as f64;
            assert!((got - p).abs() < 4.5 * se + 1e-12, "{r:?}: {got} vs {p}");
        }
    }

    #[test]
    fn gamma_matches_the_poster_formula() {
        // ε = 1, δ = 1e-8, n = 100: ln(δ / 202) = −23.73…, γ = ln(1 + 1/47.47…)
        let g = gamma(1.0, 1e-8, 100);
        let expected = (1.0 + 1.0 / (2.0 * (202.0f64 / 1e-8).ln())).ln();
        assert_rel(g, expected, 1e-15);
        assert!(g > 0.02 && g < 0.022, "{g}");
    }

    #[test]
    fn table_distances_match_the_general_formula() {
        for variant in [HellingerVariant::Correct, HellingerVariant::AsPublished] {
            let prior = [1.0, 2.5, 0.7];
            let s = Space::new(prior.to_vec(), 30, variant).unwrap();
            let c = [10u32, 5, 15];
            let d = s.from_data(&c);
            for_each_count(30, 3, |r| {
                let want = hellinger(&dir(&prior, &c), &dir(&prior, r), variant);
                assert!((s.hellinger(&c, r) - want).abs() < 1e-9, "{r:?}");
                assert!((d.hellinger(r) - want).abs() < 1e-9);
            });
        }
    }

    #[test]
    fn local_and_smooth_sensitivity_match_brute_force() {
        for (k, n, variant) in [
            (2, 12, HellingerVariant::Correct),
            (3, 8, HellingerVariant::Correct),
            (3, 8, HellingerVariant::AsPublished),
            (4, 5, HellingerVariant::Correct),
        ] {
            let s = Space::new((0..k).map(|i| 1.0 + 0.5 * i as f64).collect(), n, variant).unwrap();
            let mut all = Vec::new();
            s.for_each(|c| all.push(c.to_vec()));
            let neighbours = |c: &[u32]| {
                let mut out = Vec::new();
                for i in 0..k {
                    for j in 0..k {
                        if i != j && c[i] > 0 {
                            let mut x = c.to_vec();
                            x[i] -= 1;
                            x[j] += 1;
                            out.push(x);
                        }
                    }
                }
                out
            };
            for c in &all {
                // the poster's definition: max over neighbours c″ and candidates r
                let mut poster: f64 = 0.0;
                for nb in neighbours(c) {
                    for r in &all {
                        poster = poster.max((s.hellinger(c, r) - s.hellinger(&nb, r)).abs());
                    }
                }
                assert!((s.local_sensitivity(c) - poster).abs() < 1e-9, "{c:?}");
            }
            let g = gamma(1.0, 1e-8, n);
            for c in &all {
                let brute = all
                    .iter()
                    .map(|x| {
                        let d = c.iter().zip(x).map(|(a, b)| a.abs_diff(*b)).sum::<u32>() / 2;
                        s.local_sensitivity(x) * (-g * d as f64).exp()
                    })
                    .fold(0.0, f64::max);
                assert_eq!(s.smooth_sensitivity(c, g), brute);
            }
        }
    }

    #[test]
    fn exact_probabilities_sum_to_one_and_sampling_matches_them() {
        let s = space(3, 12);
        let m = ExpMech::new(&s, &balanced_counts(12, 3), 1.0, 1e-8).unwrap();
        let exact = m.exact();
        assert_rel(exact.iter().map(|o| o.2).sum::<f64>(), 1.0, 1e-12);
        // χ² goodness of fit over distance groups, fixed seed
        let mut groups: Vec<(f64, f64)> = Vec::new();
        for (_, h, p) in &exact {
            match groups.iter_mut().find(|g| (g.0 - h).abs() < 1e-12) {
                Some(g) => g.1 += p,
                None => groups.push((*h, *p)),
            }
        }
        let draws = 20_000;
        let sample = m.sample_distances(draws, &mut ChaCha8Rng::seed_from_u64(11));
        assert_eq!(sample.len(), draws);
        let (mut chi2, mut cells) = (0.0, 0);
        for (h, p) in &groups {
            let expected = p * draws as f64;
            if expected < 5.0 {
                continue;
            }
            let observed = sample.iter().filter(|x| (*x - h).abs() < 1e-12).count() as f64;
            chi2 += (observed - expected).powi(2) / expected;
            cells += 1;
        }
        // 99.9% quantile of χ² with (cells − 1) degrees of freedom, Wilson–Hilferty
        let df = (cells - 1) as f64;
        let crit = df * (1.0 - 2.0 / (9.0 * df) + 3.09 * (2.0 / (9.0 * df)).sqrt()).powi(3);
        assert!(
            chi2 < crit,
            "χ² = {chi2} over {cells} cells (critical {crit})"
        );
    }

    #[test]
    fn mechanism_meets_its_privacy_claim_on_small_n() {
        let published =
            |k: usize, n: u32| Space::new(vec![1.0; k], n, HellingerVariant::AsPublished).unwrap();
        for (k, n, s) in [
            (2, 10, space(2, 10)),
            (3, 6, space(3, 6)),
            (2, 10, published(2, 10)),
            (3, 6, published(3, 6)),
        ] {
            let a = audit(&s, 1.0, 1e-8).unwrap();
            assert!(a.pairs > 0);
            assert!(a.worst_delta <= 1e-8, "{k}, {n}: {a:?}");
            errln!("audit k = {k}, n = {n}: {a:?}");
        }
    }
}
