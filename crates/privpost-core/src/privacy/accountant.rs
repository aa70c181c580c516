//! Budget questions: the total (ε, δ) of T steps of a DP-MCMC chain (the subsampled
//! Barker test, Heikkilä et al. Theorem 2 and Corollary 2) or of DP-SGLD/DPVI (the
//! Poisson-subsampled Gaussian), minimised over integer orders, and their ledger entries.

use super::event::{Derivation, Event, Guarantee};

use super::event::Conversion;
use super::ledger::Entry;
use super::rdp::{
    barker_step_epsilon, invalid, sampled_gaussian, subsampled_without_replacement, AccountError,
};

/// (ε, δ) of a composed mechanism: the minimum over integer orders of the converted RDP.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spent {
    pub epsilon: f64,
    pub best_alpha: u32,
}

impl Spent {
    /// The (ε, δ) claim of this answer at `delta`, converted at its best order.
    pub fn claim(&self, delta: f64, conversion: Conversion) -> Guarantee {
        Guarantee::ApproxDp {
            epsilon: self.epsilon,
            delta,
            conversion: Derivation::Rdp(conversion),
            order: Some(self.best_alpha as f64),
        }
    }
}

/// Minimises `conversion(iterations · rdp(α))` over α ∈ orders.
pub fn best_over_orders(
    orders: impl IntoIterator<Item = u32>,
    iterations: f64,
    delta: f64,
    conversion: Conversion,
    rdp: impl Fn(u32) -> f64,
) -> Option<Spent> {
    orders
        .into_iter()
        .map(|a| Spent {
            epsilon: conversion.epsilon(iterations * rdp(a), a as f64, delta),
            best_alpha: a,
        })
        .filter(|s| s.epsilon.is_finite())
        .min_by(|x, y| x.epsilon.total_cmp(&y.epsilon))
}

/// The result of an order search: the best order found and how the search went.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Searched {
    /// The best order and the objective there.
    pub alpha: u32,
    pub value: f64,
    /// The range searched, lo ≤ α ≤ hi.
    pub lo: u32,
    pub hi: u32,
    /// Orders evaluated.
    pub evaluated: usize,
    /// The search stopped before `hi` (its work bound, or a proven stop rule).
    pub stopped_at: Option<u32>,
}

impl Searched {
    /// The best order sits at the top of the searched range (a larger range might do better).
    pub fn at_edge(&self) -> bool {
        self.alpha == self.hi && self.stopped_at.is_none()
    }
}

/// Orders every integer up to 256 above `lo`, then a 1% geometric grid to `hi`, then
/// every integer between the grid neighbours of the best grid order: minimises
/// `objective` over lo ≤ α ≤ hi without evaluating all of a huge range. Every
/// evaluated order gives a valid bound, so the minimum found is always a valid (if
/// possibly not the smallest) answer. `stop(α, best)` may end the upward sweep when no
/// larger order can win (a proven monotonicity); the sweep also ends once the summed
/// orders (the cost of the RDP formulas, O(α) each) exceed 10⁸, and the refinement
/// within the same work bound.
pub fn search_orders(
    lo: u32,
    hi: u32,
    objective: impl Fn(u32) -> f64,
    stop: impl Fn(u32, f64) -> bool,
) -> Option<Searched> {
    if lo > hi {
        return None;
    }
    const WORK: f64 = 1e8;
    let mut grid: Vec<(u32, f64)> = Vec::new();
    let mut best: Option<(u32, f64)> = None;
    let mut work = 0.0;
    let mut stopped_at = None;
    let mut alpha = lo;
    loop {
        let v = objective(alpha);
        work += alpha as f64;
        if !v.is_nan() {
            grid.push((alpha, v));
            if best.is_none_or(|b| v < b.1) {
                best = Some((alpha, v));
            }
        }
        if alpha == hi {
            break;
        }
        if best.is_some_and(|b| stop(alpha, b.1)) || work > WORK {
            stopped_at = Some(alpha);
            break;
        }
        let next = if alpha < lo.saturating_add(256) {
            alpha + 1
        } else {
            ((alpha as f64 * 1.01).ceil() as u64).min(hi as u64) as u32
        };
        alpha = next.max(alpha + 1).min(hi);
    }
    let (mut ba, mut bv) = best?;
    let mut evaluated = grid.len();
    // refine between the grid neighbours of the best grid order
    if let Some(i) = grid.iter().position(|g| g.0 == ba) {
        let left = if i > 0 { grid[i - 1].0 } else { ba };
        let right = grid.get(i + 1).map_or(ba, |g| g.0);
        for a in (left + 1)..right {
            if a == ba {
                continue;
            }
            work += a as f64;
            if work > 2.0 * WORK {
                break;
            }
            let v = objective(a);
            evaluated += 1;
            if v < bv {
                (ba, bv) = (a, v);
            }
        }
    }
    Some(Searched {
        alpha: ba,
        value: bv,
        lo,
        hi,
        evaluated,
        stopped_at,
    })
}

/// The largest T with `conversion(T·rdp(α), α, δ) ≤ target` at some searched order:
/// per order T(α) = ⌊(target − conversion(0, α, δ)) / rdp(α)⌋, maximised over orders,
/// then checked forward (decremented until the forward evaluation meets the target).
/// `None` when no T ≥ 0 meets it (T = 0 always spends nothing, so target ≥ 0 gives Some).
pub fn largest_iterations(
    lo: u32,
    hi: u32,
    target: f64,
    delta: f64,
    conversion: Conversion,
    rdp: impl Fn(u32) -> f64,
) -> Option<(u64, Option<Searched>)> {
    if target.is_nan() || target < 0.0 {
        return None;
    }
    let steps = |a: u32| {
        let room = target - conversion.epsilon(0.0, a as f64, delta);
        let r = rdp(a);
        if room < 0.0 || r.is_nan() || r.is_infinite() {
            -1.0
        } else if r <= 0.0 {
            f64::MAX
        } else {
            (room / r).floor().min(1e18)
        }
    };
    // maximise T(α): minimise −T(α); stop when the order's conversion term alone is
    // beyond the target at every larger order (it is not: it decreases), so no stop rule
    let s = search_orders(lo, hi, |a| -steps(a), |_, _| false)?;
    let t = (-s.value).max(-1.0);
    if t < 0.0 {
        return Some((0, None));
    }
    let r = rdp(s.alpha);
    let mut iterations = t as u64;
    // forward check at the winning order, rounding to the safe side
    while iterations > 0
        && conversion.epsilon(iterations as f64 * r, s.alpha as f64, delta) > target
    {
        iterations -= 1;
    }
    Some((iterations, Some(s)))
}

/// A DP-MCMC (subsampled Barker) budget question: N, b, T, δ and the largest order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarkerAccount {
    pub n_data: u64,
    pub batch: u64,
    pub iterations: u64,
    pub delta: f64,
    /// Orders are the integers 3 ≤ α < min(alpha_max, b/5 − 1) (the authors' range).
    pub alpha_max: u32,
}

impl BarkerAccount {
    /// The question in the authors' order range (3 ≤ α < min(alpha_max, b/5 − 1)).
    pub fn validate(&self) -> Result<(), AccountError> {
        self.validate_question()?;
        if self.batch < 21 {
            return Err(invalid(
                "batch",
                self.batch,
                "b ≥ 21, so that some order 3 ≤ α < b/5 − 1 exists (Theorem 2, eq. 20)",
            ));
        }
        if self.alpha_max < 4 {
            return Err(invalid(
                "alpha_max",
                self.alpha_max,
                "≥ 4 (orders run from 3 to alpha_max − 1)",
            ));
        }
        Ok(())
    }

    /// The orders searched: integers 3 ≤ α < min(alpha_max, b/5 − 1), as in the
    /// authors' code — one order short of Theorem 2's α < b/5, so never looser.
    pub fn orders(&self) -> std::ops::RangeInclusive<u32> {
        let limit = (self.alpha_max as f64).min(self.batch as f64 / 5.0 - 1.0);
        let top = (limit.ceil() as i64 - 1).max(2) as u32;
        3..=top
    }

    pub fn q(&self) -> f64 {
        self.batch as f64 / self.n_data as f64
    }

    /// Per-iteration RDP after subsampling, ε′(α) of eq. (22).
    pub fn step_rdp(&self, alpha: u32) -> f64 {
        let b = self.batch;
        subsampled_without_replacement(alpha, self.q(), |j| {
            barker_step_epsilon(j, b).unwrap_or(f64::INFINITY)
        })
    }

    /// (ε, δ) after each of several iteration counts, computing ε′(α) once.
    pub fn curve(
        &self,
        iterations: &[u64],
        conversion: Conversion,
    ) -> Result<Vec<Spent>, AccountError> {
        self.validate()?;
        let table: Vec<(u32, f64)> = self.orders().map(|a| (a, self.step_rdp(a))).collect();
        iterations
            .iter()
            .map(|&t| {
                best_over_orders(
                    table.iter().map(|x| x.0),
                    t as f64,
                    self.delta,
                    conversion,
                    |a| table[(a - 3) as usize].1,
                )
                .ok_or_else(|| {
                    invalid(
                        "batch",
                        self.batch,
                        "a batch large enough for some order 3 ≤ α < b/5",
                    )
                })
            })
            .collect()
    }

    /// The privacy event of one step, listing its RDP at `alpha`.
    pub fn step_event(&self, alpha: u32) -> Event {
        Event::SubsampledBarker {
            batch: self.batch,
            n_data: self.n_data,
            points: vec![(alpha as f64, self.step_rdp(alpha))],
        }
    }

    /// Ledger entries after each of several iteration counts (per-step RDP computed
    /// once, as [`Self::curve`]), named by `series(T)`.
    pub fn entries(
        &self,
        iterations: &[u64],
        conversion: Conversion,
        series: impl Fn(u64) -> String,
    ) -> Result<Vec<Entry>, AccountError> {
        let spent = self.curve(iterations, conversion)?;
        Ok(iterations
            .iter()
            .zip(spent)
            .map(|(&t, s)| {
                Entry::new(
                    series(t),
                    Event::repeat(t, self.step_event(s.best_alpha)),
                    s.claim(self.delta, conversion),
                )
            })
            .collect())
    }

    /// The ledger entry of the whole run: T steps, (ε, δ) at the best order.
    pub fn entry(
        &self,
        series: impl Into<String>,
        conversion: Conversion,
    ) -> Result<Entry, AccountError> {
        let series = series.into();
        let mut one = self.entries(&[self.iterations], conversion, |_| series.clone())?;
        Ok(one.remove(0))
    }

    pub fn spent(&self, conversion: Conversion) -> Result<Spent, AccountError> {
        self.validate()?;
        best_over_orders(
            self.orders(),
            self.iterations as f64,
            self.delta,
            conversion,
            |a| self.step_rdp(a),
        )
        .ok_or_else(|| {
            invalid(
                "batch",
                self.batch,
                "a batch large enough for some order 3 ≤ α < b/5",
            )
        })
    }
}

impl BarkerAccount {
    /// Checks the question without the authors' order range (see [`Self::search`]).
    fn validate_question(&self) -> Result<(), AccountError> {
        if self.n_data == 0 {
            return Err(invalid("n_data", self.n_data, "N ≥ 1"));
        }
        if self.batch == 0 || self.batch > self.n_data {
            return Err(invalid(
                "batch",
                self.batch,
                format!("1 ≤ b ≤ N = {}", self.n_data),
            ));
        }
        if self.batch < 11 {
            return Err(invalid(
                "batch",
                self.batch,
                "b ≥ 11, so that some order 2 ≤ α < b/5 exists (Theorem 2, eq. 20)",
            ));
        }
        if !(self.delta > 0.0 && self.delta < 1.0) {
            return Err(invalid("delta", self.delta, "0 < δ < 1"));
        }
        Ok(())
    }

    /// Every order Theorem 2 allows, 2 ≤ α < b/5, below `cap` if given.
    pub fn valid_orders(&self, cap: Option<u32>) -> (u32, u32) {
        let below = ((self.batch as f64 / 5.0).ceil() - 1.0).min(u32::MAX as f64 - 1.0) as u32;
        let hi = cap.map_or(below, |c| below.min(c.saturating_sub(1)));
        (2, hi)
    }

    /// (ε, δ) after T steps minimised over every valid order (or those below `cap`);
    /// `None` for T = 0, which releases nothing (ε = 0).
    pub fn search(
        &self,
        conversion: Conversion,
        cap: Option<u32>,
    ) -> Result<Option<Searched>, AccountError> {
        self.validate_question()?;
        if self.iterations == 0 {
            return Ok(None);
        }
        let (lo, hi) = self.valid_orders(cap);
        if hi < lo {
            return Err(invalid(
                "alpha_max",
                cap.unwrap_or(0),
                "≥ 3 (orders run from 2 to alpha_max − 1)",
            ));
        }
        let t = self.iterations as f64;
        Ok(search_orders(
            lo,
            hi,
            |a| conversion.epsilon(t * self.step_rdp(a), a as f64, self.delta),
            |_, _| false,
        ))
    }

    /// The largest T whose (ε, δ) is at most `target`, checked forward.
    pub fn largest_iterations(
        &self,
        target: f64,
        conversion: Conversion,
        cap: Option<u32>,
    ) -> Result<(u64, Option<Searched>), AccountError> {
        self.validate_question()?;
        let (lo, hi) = self.valid_orders(cap);
        largest_iterations(lo, hi, target, self.delta, conversion, |a| self.step_rdp(a))
            .ok_or_else(|| invalid("target_epsilon", target, "a target ε ≥ 0"))
    }
}

/// Stop rule for an RDP curve known to be nondecreasing in α (an exact RDP, such as the
/// subsampled Gaussian's): for α′ ≥ α both conversions give ε(α′) ≥ T·ρ(α) − (1 + ln α)/(α − 1),
/// so once that is at least the best ε found no larger order can win.
fn monotone_stop(t: f64, rdp: impl Fn(u32) -> f64) -> impl Fn(u32, f64) -> bool {
    move |a, best| {
        let af = a as f64;
        t * rdp(a) - (1.0 + af.ln()) / (af - 1.0) >= best
    }
}

/// Default largest order of the subsampled-Gaussian search (the stop rule usually ends
/// the search far below it).
pub const SGLD_ORDER_CAP: u32 = 1_000_000;

/// A DP-SGLD budget question (Poisson-subsampled Gaussian), orders 2..=alpha_max.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SgldAccount {
    pub q: f64,
    pub sigma: f64,
    pub iterations: u64,
    pub delta: f64,
    pub alpha_max: u32,
}

impl SgldAccount {
    /// (ε, δ) after each of several step counts, the RDP of every order computed
    /// once: O(orders) evaluations of the subsampled Gaussian, then O(orders) per count.
    pub fn curve(
        &self,
        iterations: &[u64],
        conversion: Conversion,
    ) -> Result<Vec<Spent>, AccountError> {
        self.validate_question()?;
        if self.alpha_max < 2 {
            return Err(invalid("alpha_max", self.alpha_max, "≥ 2"));
        }
        let table: Vec<f64> = (2..=self.alpha_max)
            .map(|a| sampled_gaussian(a, self.q, self.sigma))
            .collect();
        iterations
            .iter()
            .map(|&t| {
                best_over_orders(2..=self.alpha_max, t as f64, self.delta, conversion, |a| {
                    table[(a - 2) as usize]
                })
                .ok_or_else(|| invalid("sigma", self.sigma, "a finite RDP at some order"))
            })
            .collect()
    }

    /// Ledger entries after each of several step counts (the RDP of every order
    /// computed once, as [`Self::curve`]), named by `series(T)`.
    pub fn entries(
        &self,
        iterations: &[u64],
        conversion: Conversion,
        series: impl Fn(u64) -> String,
    ) -> Result<Vec<Entry>, AccountError> {
        let spent = self.curve(iterations, conversion)?;
        iterations
            .iter()
            .zip(spent)
            .map(|(&t, s)| {
                Ok(Entry::new(
                    series(t),
                    Event::repeat(
                        t,
                        Event::PoissonSubsampledGaussian {
                            q: self.q,
                            sigma: self.sigma,
                            sample: None,
                        },
                    ),
                    s.claim(self.delta, conversion),
                ))
            })
            .collect()
    }

    /// The ledger entry of the whole run: T Poisson-subsampled Gaussian steps,
    /// (ε, δ) at the best order.
    pub fn entry(
        &self,
        series: impl Into<String>,
        conversion: Conversion,
    ) -> Result<Entry, AccountError> {
        let series = series.into();
        let mut one = self.entries(&[self.iterations], conversion, |_| series.clone())?;
        Ok(one.remove(0))
    }

    /// (ε, δ) after T steps minimised over orders 2 ≤ α < `cap` (default: up to
    /// [`SGLD_ORDER_CAP`]), ending early by the monotone stop rule; `None` for T = 0.
    pub fn search(
        &self,
        conversion: Conversion,
        cap: Option<u32>,
    ) -> Result<Option<Searched>, AccountError> {
        self.validate_question()?;
        if self.iterations == 0 {
            return Ok(None);
        }
        let t = self.iterations as f64;
        let rdp = |a: u32| sampled_gaussian(a, self.q, self.sigma);
        Ok(search_orders(
            2,
            cap.map_or(SGLD_ORDER_CAP, |c| c.saturating_sub(1)).max(2),
            |a| conversion.epsilon(t * rdp(a), a as f64, self.delta),
            monotone_stop(t, rdp),
        ))
    }

    /// The largest T whose (ε, δ) is at most `target`, checked forward.
    pub fn largest_iterations(
        &self,
        target: f64,
        conversion: Conversion,
        cap: Option<u32>,
    ) -> Result<(u64, Option<Searched>), AccountError> {
        self.validate_question()?;
        largest_iterations(
            2,
            cap.map_or(SGLD_ORDER_CAP, |c| c.saturating_sub(1)).max(2),
            target,
            self.delta,
            conversion,
            |a| sampled_gaussian(a, self.q, self.sigma),
        )
        .ok_or_else(|| invalid("target_epsilon", target, "a target ε ≥ 0"))
    }

    fn validate_question(&self) -> Result<(), AccountError> {
        if !(self.q > 0.0 && self.q <= 1.0) {
            return Err(invalid("q", self.q, "0 < q ≤ 1"));
        }
        if !(self.sigma > 0.0 && self.sigma.is_finite()) {
            return Err(invalid("sigma", self.sigma, "σ > 0"));
        }
        if !(self.delta > 0.0 && self.delta < 1.0) {
            return Err(invalid("delta", self.delta, "0 < δ < 1"));
        }
        Ok(())
    }

    pub fn spent(&self, conversion: Conversion) -> Result<Spent, AccountError> {
        self.validate_question()?;
        if self.alpha_max < 2 {
            return Err(invalid("alpha_max", self.alpha_max, "≥ 2"));
        }
        best_over_orders(
            2..=self.alpha_max,
            self.iterations as f64,
            self.delta,
            conversion,
            |a| sampled_gaussian(a, self.q, self.sigma),
        )
        .ok_or_else(|| invalid("sigma", self.sigma, "a finite RDP at some order"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::assert_rel;

    fn account(n: u64, b: u64, t: u64, alpha_max: u32) -> BarkerAccount {
        BarkerAccount {
            n_data: n,
            batch: b,
            iterations: t,
            delta: 1.0 / n as f64,
            alpha_max,
        }
    }

    /// T-step budgets (classic conversion, δ = 1/N, the authors' order range)
    /// against a 40-digit evaluation (tests/reference/heikkila_budgets.py, its CSV).
    /// Its first and third rows (N = 10⁶, so δ = 10⁻⁶) are the DP-MCMC chain's ε
    /// after the 1000 burn-in iterations (0.2306) and after all 20,000 (1.0004) of
    /// heikkila2019's Figs 2 and 3.
    #[test]
    fn matches_the_papers_budget_numbers() {
        let text = include_str!("../../../../tests/reference/heikkila_budgets.csv");
        let mut checked = 0;
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("n_data"))
        {
            let f: Vec<&str> = line.split(',').collect();
            let (n, b, t, amax): (u64, u64, u64, u32) = (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
            );
            let want: f64 = f[4].parse().unwrap();
            let got = account(n, b, t, amax)
                .spent(Conversion::Classic)
                .unwrap()
                .epsilon;
            assert_rel(got, want, 1e-9);
            checked += 1;
        }
        assert_eq!(checked, 5);
        // the figures' numbers at δ = 1e-6 given explicitly (not only as 1/N)
        let mut a = account(1_000_000, 1000, 20_000, 100);
        a.delta = 1e-6;
        assert!((a.spent(Conversion::Classic).unwrap().epsilon - 1.0004).abs() < 5e-5);
        a.iterations = 1000;
        assert!((a.spent(Conversion::Classic).unwrap().epsilon - 0.2306).abs() < 5e-5);
    }

    #[test]
    fn figure_one_reference_points() {
        // Fig 1(b): q = 0.001, α < min(200, b/5 − 1), δ = 1/N
        for (b, t, want) in [
            (100, 10, 0.677),
            (100, 10_000, 0.894),
            (100, 99_990, 2.473),
            (1000, 10_000, 0.706),
            (1000, 99_990, 2.277),
            (10_000, 10, 0.083),
            (10_000, 10_000, 0.749),
            (10_000, 99_990, 2.408),
        ] {
            let got = account(b * 1000, b, t, 200)
                .spent(Conversion::Classic)
                .unwrap()
                .epsilon;
            assert!((got - want).abs() < 1.5e-3, "b={b} T={t}: {got} vs {want}");
        }
        // b = 1000, T = 10: the authors report 0.078. Their plain-float sum overflows
        // (e^{(j−1)ε(j)} > 1.8e308) from order 182 on, silently dropping those orders;
        // restricted to α ≤ 181 we reproduce 0.078, and the log-space sum over all
        // valid orders gives the tighter, still valid 0.0753.
        let a = account(1_000_000, 1000, 10, 200);
        let truncated = best_over_orders(3..=181, 10.0, a.delta, Conversion::Classic, |o| {
            a.step_rdp(o)
        })
        .unwrap();
        assert!((truncated.epsilon - 0.078).abs() < 5e-4, "{truncated:?}");
        let full = a.spent(Conversion::Classic).unwrap().epsilon;
        assert!((full - 0.0753).abs() < 5e-4 && full < truncated.epsilon);
        assert!((181.0 * barker_step_epsilon(182, 1000).unwrap()) > f64::MAX.ln());
        // Fig 1(a): T = 5000, q from 0.001 to 0.01
        for (n, q, want) in [
            (100_000u64, 0.001, 0.786),
            (100_000, 0.01, 4.94),
            (1_000_000, 0.001, 0.499),
            (1_000_000, 0.01, 5.29),
            (10_000_000, 0.001, 0.531),
            (10_000_000, 0.01, 5.67),
        ] {
            let b = (q * n as f64).floor() as u64;
            let got = account(n, b, 5000, 200)
                .spent(Conversion::Classic)
                .unwrap()
                .epsilon;
            assert!(
                (got - want).abs() / want < 2e-3,
                "N={n} q={q}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn sgld_reference_values() {
        let a = |t: u64| SgldAccount {
            q: 1e-4,
            sigma: 1.1952,
            iterations: t,
            delta: 2e-6,
            alpha_max: 499,
        };
        for (t, want) in [(100_000, 0.5595), (1_000_000, 0.674), (6_000_000, 1.2958)] {
            let got = a(t).spent(Conversion::Classic).unwrap();
            assert!((got.epsilon - want).abs() < 5e-4, "T={t}: {got:?}");
        }
        assert_eq!(
            a(6_000_000).spent(Conversion::Classic).unwrap().best_alpha,
            22
        );
    }

    #[test]
    fn properties_of_the_budget() {
        let base = account(1_000_000, 1000, 10_000, 100);
        // monotone in T and in q
        let mut last = 0.0;
        for t in [1, 10, 100, 1000, 10_000, 100_000] {
            let e = BarkerAccount {
                iterations: t,
                ..base
            }
            .spent(Conversion::Classic)
            .unwrap()
            .epsilon;
            assert!(e > last);
            last = e;
        }
        // monotone in q at a fixed batch (and fixed δ): N shrinks, q grows
        let mut last = 0.0;
        for n in [100_000_000u64, 10_000_000, 1_000_000, 100_000, 10_000] {
            let e = BarkerAccount {
                n_data: n,
                delta: 1e-6,
                ..base
            }
            .spent(Conversion::Classic)
            .unwrap()
            .epsilon;
            assert!(e > last, "N = {n}");
            last = e;
        }
        // the searched orders respect Theorem 2
        for b in [21u64, 100, 101, 1000, 10_000] {
            let a = BarkerAccount {
                batch: b,
                n_data: 100_000,
                ..base
            };
            assert!(
                a.orders().all(|o| (o as f64) < b as f64 / 5.0 && o >= 3),
                "b = {b}"
            );
        }
        // the improved conversion is never looser
        let c = base.spent(Conversion::Classic).unwrap().epsilon;
        let i = base.spent(Conversion::Improved).unwrap().epsilon;
        assert!(i <= c && i > 0.0);
        // composition adds up at a fixed order
        assert_rel(
            3.0 * base.step_rdp(10),
            base.step_rdp(10) + base.step_rdp(10) + base.step_rdp(10),
            1e-15,
        );
        // the cached curve equals one-off answers
        let curve = base.curve(&[10, 10_000], Conversion::Improved).unwrap();
        assert_eq!(curve[1], base.spent(Conversion::Improved).unwrap());
        // invalid questions
        assert!(BarkerAccount {
            batch: 2_000_000,
            ..base
        }
        .spent(Conversion::Classic)
        .is_err());
        assert!(BarkerAccount { delta: 1.0, ..base }
            .spent(Conversion::Classic)
            .is_err());
        assert!(BarkerAccount { batch: 15, ..base }
            .spent(Conversion::Classic)
            .is_err());
    }
}
