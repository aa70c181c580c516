//! Accounting for any [`Event`] of the ledger's vocabulary (`privpost account
//! --event`): a user's own release described as plain data, answered with the same
//! accountants as the built-in mechanisms — pure ε where the event has one, RDP
//! converted to (ε, δ) by the classic (Mironov 2017, Proposition 3) and improved
//! (Canonne, Kamath, Steinke 2020, Proposition 12) conversions minimised over a
//! grid of orders, the events' own (ε, δ) theorems, and the tight privacy-loss
//! distribution of repeated Poisson-subsampled Gaussian steps (`pld.rs`) and of
//! compositions of plain Gaussian mechanisms (closed form, `gaussian_pld.rs`) — and
//! the inverse question for a repeated event: the largest number of repetitions whose
//! ε stays within a target.

use super::event::{Derivation, Event, EventError, Guarantee};

use super::event::Conversion;
use super::ledger::Entry;

/// One answer of an accountant: ε at δ (0 for pure DP), the order that gave it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Answer {
    /// "pure", "rdp_classic", "rdp_improved", "theorem" or "pld"
    pub accountant: &'static str,
    pub epsilon: f64,
    pub delta: f64,
    pub order: Option<f64>,
    /// How far above the exact ε this answer may lie (the PLD grids' η; 0 for the
    /// closed forms).
    pub slack: f64,
}

/// How the accountants search: the PLD accountants on or off and their ε slack η,
/// and the largest order (exclusive) of the RDP search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    pub tight: bool,
    pub pld_slack: f64,
    pub alpha_max: Option<f64>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            tight: true,
            pld_slack: super::ledger::PLD_SLACK,
            alpha_max: None,
        }
    }
}

/// The answers with what could not be answered and why.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Forward {
    pub answers: Vec<Answer>,
    pub warnings: Vec<String>,
}

/// The orders searched: 1.1 to 10.9 in tenths (as dp-accounting's default grid),
/// every integer 11 … 256, then 288 … 1024 in steps of 32 (the RDP of a composition
/// is the sum at each order, so one grid serves every event; events whose RDP is
/// known at integer orders only — the Poisson-subsampled Gaussian, the listed points
/// of an RDP curve — answer at those).
pub fn orders() -> Vec<f64> {
    let mut v: Vec<f64> = (11..=109).map(|k| f64::from(k) / 10.0).collect();
    v.extend((11..=256).map(f64::from));
    v.extend((9..=32).map(|k| f64::from(k * 32)));
    v
}

/// The grid of [`orders`] and the orders `event` lists its own RDP points at (an
/// `rdp_curve`, the subsampled Barker test), which the grid may miss, ascending.
pub fn orders_of(event: &Event) -> Vec<f64> {
    fn listed(event: &Event, out: &mut Vec<f64>) {
        match event {
            Event::RdpCurve { points, .. } | Event::SubsampledBarker { points, .. } => {
                out.extend(points.iter().map(|&(order, _)| order));
            }
            Event::Repeat { event, .. } => listed(event, out),
            Event::Compose { parts, .. } => parts.iter().for_each(|p| listed(p, out)),
            _ => {}
        }
    }
    let mut v = orders();
    listed(event, &mut v);
    v.retain(|a| a.is_finite());
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

fn orders_below(event: &Event, alpha_max: Option<f64>) -> Vec<f64> {
    orders_of(event)
        .into_iter()
        .filter(|&a| alpha_max.is_none_or(|m| a < m))
        .collect()
}

/// Every answer the accountants give for `event` (at `delta`, where given). An
/// event with no pure ε needs a δ; `opts.tight` adds the PLD accountants where they
/// apply: the closed form of Gaussian compositions, the pessimistic grid of
/// compositions with Laplace releases ([`super::laplace_pld`]), the Poisson-subsampled
/// Gaussian's FFT accountant ([`super::pld`]), each with the slack `opts.pld_slack`.
pub fn forward(event: &Event, delta: Option<f64>, opts: &Options) -> Result<Forward, EventError> {
    event.validate()?;
    let mut out = Forward::default();
    if let Event::NonPrivate = event {
        return Err(EventError(
            "a non-private release has no privacy guarantee (ε = ∞)".to_string(),
        ));
    }
    if let Some(epsilon) = event.pure_epsilon() {
        out.answers.push(Answer {
            accountant: "pure",
            epsilon,
            delta: 0.0,
            order: None,
            slack: 0.0,
        });
    }
    let Some(delta) = delta else {
        return if out.answers.is_empty() {
            Err(EventError(
                "this event has no pure ε: give --delta for an (ε, δ) answer".to_string(),
            ))
        } else {
            Ok(out)
        };
    };
    if !(delta > 0.0 && delta < 1.0) {
        return Err(EventError(format!("--delta = {delta}: 0 < δ < 1")));
    }
    for (name, conversion) in [
        ("rdp_classic", Conversion::Classic),
        ("rdp_improved", Conversion::Improved),
    ] {
        if let Some((epsilon, order)) = best_conversion(event, delta, conversion, opts.alpha_max) {
            out.answers.push(Answer {
                accountant: name,
                epsilon,
                delta,
                order: Some(order),
                slack: 0.0,
            });
        }
    }
    let theorem = Entry::new(
        "",
        event.clone(),
        Guarantee::ApproxDp {
            epsilon: 0.0,
            delta,
            conversion: Derivation::Theorem(None),
            order: None,
        },
    );
    if !has_rdp(event) {
        if let Some(epsilon) = theorem.recomputed_epsilon().filter(|e| e.is_finite()) {
            out.answers.push(Answer {
                accountant: "theorem",
                epsilon,
                delta,
                order: None,
                slack: 0.0,
            });
        }
    }
    if opts.tight {
        if let Some(answer) = tight(event, delta, opts.pld_slack, &mut out.warnings) {
            out.answers.push(answer);
        }
    }
    if out.answers.is_empty() {
        return Err(EventError(format!(
            "no accountant gives an (ε, δ = {delta}) answer for this event"
        )));
    }
    Ok(out)
}

/// The PLD answer where one applies (a declined grid is said in `warnings`).
fn tight(event: &Event, delta: f64, slack: f64, warnings: &mut Vec<String>) -> Option<Answer> {
    let answer = |epsilon: f64, slack: f64| Answer {
        accountant: "pld",
        epsilon,
        delta,
        order: None,
        slack,
    };
    if let Some((laplace, mu)) = event.laplace_gaussian_parts() {
        if laplace.is_empty() {
            // Gaussians only: the closed form (exact, rounded up)
            return Some(answer(super::gaussian_pld::epsilon(delta, mu), 0.0));
        }
        return match super::laplace_pld::epsilon(&laplace, mu, delta, slack) {
            Ok(e) => Some(answer(e, slack)),
            Err(why) => {
                warnings.push(format!("pld: not computed: {why}"));
                None
            }
        };
    }
    let (times, inner) = match event {
        Event::Repeat { times, event } => (*times, event.as_ref()),
        e => (1, e),
    };
    let options = super::pld::PldOptions {
        epsilon_slack: slack,
        ..Default::default()
    };
    let tight = match inner {
        Event::PoissonSubsampledGaussian { q, sigma, .. } => {
            super::pld::poisson_gaussian_epsilon(*q, *sigma, times, delta, &options)
        }
        Event::SampledWithReplacementGaussian {
            batch,
            n_data,
            sigma,
        } => super::pld::with_replacement_epsilon(*batch, *n_data, *sigma, times, delta, &options),
        _ => return None,
    };
    match tight {
        Ok(t) => Some(answer(t.epsilon, t.epsilon_slack)),
        Err(e) => {
            warnings.push(format!("pld: not computed: {e}"));
            None
        }
    }
}

fn has_rdp(event: &Event) -> bool {
    orders_of(event)
        .iter()
        .any(|&a| event.rdp_epsilon(a).is_some())
}

/// The smallest ε over the orders (the grid and the event's own) below `alpha_max` by `conversion`, with its order.
fn best_conversion(
    event: &Event,
    delta: f64,
    conversion: Conversion,
    alpha_max: Option<f64>,
) -> Option<(f64, f64)> {
    orders_below(event, alpha_max)
        .into_iter()
        .filter(|&a| a > 1.0)
        .filter_map(|a| {
            let r = event.rdp_epsilon(a)?;
            let e = conversion.epsilon(r, a, delta);
            (e.is_finite() && e >= 0.0).then_some((e, a))
        })
        .min_by(|x, y| x.0.total_cmp(&y.0))
}

/// The smallest ε of the answers (the best valid bound).
pub fn best(answers: &[Answer]) -> Option<&Answer> {
    answers
        .iter()
        .min_by(|a, b| a.epsilon.total_cmp(&b.epsilon))
}

/// The largest number of repetitions T of the repeated event's part whose best
/// ε (pure, RDP classic or improved, and for a part built of plain Gaussians the
/// tight closed-form PLD; the Poisson PLD is not searched) stays ≤ `target`:
/// a forward evaluation at T holds, one at T + 1 does not. `None` when even one
/// repetition exceeds the target; capped at 10¹⁵.
pub fn largest_repeat(
    event: &Event,
    target: f64,
    delta: Option<f64>,
    alpha_max: Option<f64>,
) -> Result<Option<u64>, EventError> {
    let Event::Repeat { event: inner, .. } = event else {
        return Err(EventError("the inverse question needs a repeated event: { \"mechanism\": \"repeat\", \"times\": T, \"event\": {…} }"
                .into(),));
    };
    // the repeated event's RDP is T times the part's at each order (as
    // `Event::rdp_epsilon` computes it): the part's curve is computed once
    event.validate()?;
    let pure = inner.pure_epsilon();
    let curve: Vec<(f64, f64)> = orders_below(inner, alpha_max)
        .into_iter()
        .filter(|&a| a > 1.0)
        .filter_map(|a| inner.rdp_epsilon(a).map(|r| (a, r)))
        .collect();
    if pure.is_none() && (delta.is_none() || curve.is_empty()) {
        return Err(EventError(
            "this event has no pure ε: give --delta for an (ε, δ) answer".to_string(),
        ));
    }
    let eps = |t: u64| -> Result<f64, EventError> {
        let mut best = pure.map_or(f64::INFINITY, |e| t as f64 * e);
        if let Some(d) = delta {
            for conversion in [Conversion::Classic, Conversion::Improved] {
                for &(a, r) in &curve {
                    let e = conversion.epsilon(t as f64 * r, a, d);
                    if e.is_finite() && e < best {
                        best = e;
                    }
                }
            }
        }
        Ok(best)
    };
    // a repeated composition of plain Gaussians: the tight closed form's count,
    // never below the RDP search's (the PLD is exact)
    let pld = match (super::gaussian_pld::event_mu(inner), delta) {
        (Some(mu), Some(d)) => {
            Some(super::gaussian_pld::Accountant::Pld.max_iterations(mu, target, d))
        }
        _ => None,
    };
    let rdp = rdp_repeat(&eps, target)?;
    Ok(match (rdp, pld) {
        (r, Some(0)) | (r, None) => r,
        (r, Some(p)) => Some(r.map_or(p, |r| r.max(p))),
    })
}

/// The largest T with `eps(T)` ≤ `target` (ε grows with T), None when T = 1
/// already exceeds it; capped at 10¹⁵.
fn rdp_repeat(
    eps: &impl Fn(u64) -> Result<f64, EventError>,
    target: f64,
) -> Result<Option<u64>, EventError> {
    if eps(1)? > target {
        return Ok(None);
    }
    const CAP: u64 = 1_000_000_000_000_000;
    let (mut lo, mut hi) = (1u64, 2u64);
    while hi < CAP && eps(hi)? <= target {
        lo = hi;
        hi = hi.saturating_mul(2).min(CAP);
    }
    if hi >= CAP && eps(CAP)? <= target {
        return Ok(Some(CAP));
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if eps(mid)? <= target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(Some(lo))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO_PLD: Options = Options {
        tight: false,
        pld_slack: 0.005,
        alpha_max: None,
    };

    /// Pure events compose and convert as their closed forms; a Gaussian's classic
    /// conversion at its best order matches the minimum over α of
    /// α/(2σ²) + ln(1/δ)/(α − 1), found here by brute force on a fine grid.
    #[test]
    fn answers_match_closed_forms_and_brute_force() {
        let lap = Event::Laplace {
            l1_sensitivity: 2.0,
            scale: 20.0,
        };
        let r = Event::repeat(7, lap.clone());
        let a = forward(&r, None, &NO_PLD).unwrap().answers;
        assert_eq!(a.len(), 1);
        assert!((a[0].epsilon - 0.7).abs() < 1e-12);
        let g = Event::Gaussian {
            l2_sensitivity: 1.0,
            sigma: 5.0,
            rdp_scale: 0.5,
        };
        let a = forward(&g, Some(1e-5), &NO_PLD).unwrap().answers;
        let classic = a.iter().find(|x| x.accountant == "rdp_classic").unwrap();
        let brute = (0..200_000)
            .map(|i| 1.0 + 1e-3 * (i + 1) as f64)
            .map(|al| al / 50.0 + (1e5f64).ln() / (al - 1.0))
            .fold(f64::INFINITY, f64::min);
        // the grid is within 0.5 % of the continuous minimum, and never below it
        assert!(
            classic.epsilon >= brute - 1e-12 && classic.epsilon < brute * 1.005,
            "{} vs {brute}",
            classic.epsilon
        );
        let improved = a.iter().find(|x| x.accountant == "rdp_improved").unwrap();
        assert!(improved.epsilon < classic.epsilon);
        assert!(forward(&g, None, &NO_PLD)
            .unwrap_err()
            .0
            .contains("--delta"));
        let bad = Event::Gaussian {
            l2_sensitivity: 1.0,
            sigma: 0.0,
            rdp_scale: 0.5,
        };
        assert!(forward(&bad, Some(1e-5), &NO_PLD)
            .unwrap_err()
            .0
            .contains("sigma"));
        for scale in [0.0, 0.1, 0.49, f64::INFINITY] {
            let understated = Event::Gaussian {
                l2_sensitivity: 1.0,
                sigma: 1.0,
                rdp_scale: scale,
            };
            assert!(forward(&understated, Some(1e-5), &NO_PLD)
                .unwrap_err()
                .0
                .contains("rdp_scale"));
        }
    }

    /// An RDP curve listed at an order off the grid (Minami et al.'s logistic
    /// posterior lists λ = 226.2…) is converted at that order, repeated or not.
    #[test]
    fn listed_orders_off_the_grid_are_converted() {
        let (order, rdp) = (226.203_867_138_240_07, 0.027_168_884_541_923_604);
        let ev = Event::RdpCurve {
            posterior: "p".into(),
            parameters: serde_json::json!({}),
            points: vec![(order, rdp)],
        };
        assert!(!orders().contains(&order));
        let a = forward(&ev, Some(1e-5), &NO_PLD).unwrap().answers;
        let classic = a.iter().find(|x| x.accountant == "rdp_classic").unwrap();
        assert_eq!(classic.order, Some(order));
        let want = rdp + (1e5f64).ln() / (order - 1.0);
        assert!(
            (classic.epsilon - want).abs() < 1e-12,
            "{} vs {want}",
            classic.epsilon
        );
        let twice = forward(&Event::repeat(2, ev), Some(1e-5), &NO_PLD)
            .unwrap()
            .answers;
        assert!(twice.iter().any(|x| x.order == Some(order)));
    }

    /// The inverse answer holds and the next T does not.
    #[test]
    fn the_largest_repeat_is_tight_on_both_sides() {
        let step = Event::PoissonSubsampledGaussian {
            q: 0.01,
            sigma: 1.0,
            sample: None,
        };
        let t = largest_repeat(&Event::repeat(1, step.clone()), 2.0, Some(1e-5), None)
            .unwrap()
            .unwrap();
        let eps = |t: u64| {
            best(
                &forward(&Event::repeat(t, step.clone()), Some(1e-5), &NO_PLD)
                    .unwrap()
                    .answers,
            )
            .unwrap()
            .epsilon
        };
        assert!(eps(t) <= 2.0 && eps(t + 1) > 2.0, "T = {t}");
        let lap = Event::Laplace {
            l1_sensitivity: 1.0,
            scale: 10.0,
        };
        // pure: T·0.1 ≤ 1 → T = 10 (up to rounding of 10 × 0.1)
        let t = largest_repeat(&Event::repeat(1, lap), 1.0 + 1e-12, None, None).unwrap();
        assert_eq!(t, Some(10));
    }
}
