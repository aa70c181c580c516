//! The ledger a figure's manifest carries, and the accounting of events.
//!
//! The events and guarantees themselves are plain data in [`super::event`]. A
//! ledger [`Entry`] pairs the event of one series or grid point with
//! the guarantee claimed for it and the conditions under which that claim
//! holds. The accountant methods here ([`Event::pure_epsilon`],
//! [`Event::rdp_epsilon`]) recompute ε from the event alone, so a test can
//! check every claim against the noise that was actually set.

use serde::{Deserialize, Serialize};

use super::event::{Composition, Derivation, Event, Guarantee};
use super::rdp::sampled_gaussian;

/// A ledger entry whose claim does not hold for its event (or is no guarantee);
/// the message names the series.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ClaimError(pub String);

impl Event {
    /// The event as Laplace releases (pure ε of each, with its repetitions) and
    /// Gaussian releases of total μ = Σ Δ²/(2σ²), composed sequentially; `None` when
    /// it holds anything else (or a parallel composition that involves a Laplace
    /// release). The input of the Laplace–Gaussian PLD ([`super::laplace_pld`]).
    pub fn laplace_gaussian_parts(&self) -> Option<(Vec<(f64, u64)>, f64)> {
        match self {
            Event::Laplace { .. } => Some((vec![(self.pure_epsilon()?, 1)], 0.0)),
            Event::Gaussian { .. } => Some((Vec::new(), super::gaussian_pld::event_mu(self)?)),
            Event::Repeat { times, event } => {
                let (lap, mu) = event.laplace_gaussian_parts()?;
                let lap = lap
                    .into_iter()
                    .map(|(e, t)| Some((e, t.checked_mul(*times)?)))
                    .collect::<Option<Vec<_>>>()?;
                Some((lap, mu * *times as f64))
            }
            Event::Compose { composition, parts } => {
                if *composition == Composition::ParallelDisjointRecords {
                    // Gaussians only: the worst part's μ (gaussian_pld::event_mu)
                    return Some((Vec::new(), super::gaussian_pld::event_mu(self)?));
                }
                let (mut lap, mut mu) = (Vec::new(), 0.0);
                for p in parts {
                    let (l, m) = p.laplace_gaussian_parts()?;
                    lap.extend(l);
                    mu += m;
                }
                Some((lap, mu))
            }
            _ => None,
        }
    }

    /// ε of (λ, ε)-RDP at `order`, recomputed from the event's parameters; `None`
    /// when the event has no RDP statement at that order.
    pub fn rdp_epsilon(&self, order: f64) -> Option<f64> {
        match self {
            // Mironov 2017, Proposition 6: the exact curve, below the pure ε at every
            // finite order
            Event::Laplace {
                l1_sensitivity,
                scale,
            } => (order >= 1.0)
                .then(|| super::laplace_pld::laplace_rdp(l1_sensitivity / scale, order)),
            Event::Gaussian {
                l2_sensitivity,
                sigma,
                rdp_scale,
            } => Some(order * l2_sensitivity * l2_sensitivity * rdp_scale / (sigma * sigma)),
            Event::DiscreteGaussian {
                shift,
                sigma2_num,
                sigma2_den,
                ..
            } => (order > 1.0 && order.is_finite()).then(|| {
                super::exact::DiscreteGaussian::with_variance(super::exact::Ratio::new(
                    *sigma2_num,
                    *sigma2_den,
                ))
                .rdp_epsilon(order, *shift)
            }),
            Event::RdpCurve { points, .. } | Event::SubsampledBarker { points, .. } => {
                points.iter().find(|(l, _)| *l == order).map(|&(_, e)| e)
            }
            Event::PoissonSubsampledGaussian { q, sigma, .. } => {
                (order >= 2.0 && order.fract() == 0.0 && order <= u32::MAX as f64)
                    .then(|| sampled_gaussian(order as u32, *q, *sigma))
            }
            Event::RandomAllocation {
                steps,
                selected,
                sigma,
            } => super::allocation::rdp(*sigma, *steps, *selected, order),
            Event::Compose { composition, parts } => {
                let eps: Option<Vec<f64>> = parts.iter().map(|p| p.rdp_epsilon(order)).collect();
                let eps = eps?;
                Some(match composition {
                    Composition::ParallelDisjointRecords => eps.into_iter().fold(0.0, f64::max),
                    _ => eps.into_iter().sum(),
                })
            }
            Event::Repeat { times, event } => event.rdp_epsilon(order).map(|e| *times as f64 * e),
            // pure ε-DP implies (λ, ε)-RDP for every λ
            other => other.pure_epsilon(),
        }
    }
}

/// The ε slack of the PLD accountants when a ledger entry is verified (their answer
/// exceeds the exact ε by at most this much).
pub const PLD_SLACK: f64 = 0.005;

/// One series or grid point of a figure: what was released, how it composes,
/// and what is claimed under which conditions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The series or grid point, e.g. `mechanism=laplace, epsilon=0.5`.
    pub series: String,
    pub event: Event,
    pub guarantee: Guarantee,
    /// How the event's noise was drawn ([`Event::noise_label`]).
    #[serde(default)]
    pub noise: String,
    /// When the claim holds (e.g. "only once the sampler has converged").
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub conditions: Vec<String>,
    /// For a claim made by basic composition of (ε, δ) statements: the parts, each
    /// with its own claim (the entry's ε and δ are their sums).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub parts: Vec<Entry>,
    /// Entries with the same tag are released together on the same data, so their
    /// guarantees compose (`account --manifest`); untagged entries are alternatives
    /// (other methods, ε, data or checkpoints of one chain) and are not composed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub released_with: Option<String>,
}

impl Entry {
    pub fn new(series: impl Into<String>, event: Event, guarantee: Guarantee) -> Self {
        Self {
            series: series.into(),
            noise: event.noise_label().into(),
            event,
            guarantee,
            conditions: Vec::new(),
            parts: Vec::new(),
            released_with: None,
        }
    }

    /// Basic composition (Dwork et al.): ε and δ of the parts add up. The event is
    /// the sequential composition of the parts' events.
    pub fn basic_composition(series: impl Into<String>, parts: Vec<Entry>) -> Self {
        let (mut epsilon, mut delta) = (0.0, 0.0);
        for p in &parts {
            let (e, d) = p.guarantee.epsilon_delta();
            epsilon += e;
            delta += d;
        }
        let event = Event::sequential(parts.iter().map(|p| p.event.clone()).collect());
        Self {
            series: series.into(),
            noise: event.noise_label().into(),
            event,
            guarantee: Guarantee::ApproxDp {
                epsilon,
                delta,
                conversion: Derivation::BasicComposition,
                order: None,
            },
            conditions: Vec::new(),
            parts,
            released_with: None,
        }
    }

    pub fn when(mut self, condition: impl Into<String>) -> Self {
        self.conditions.push(condition.into());
        self
    }

    /// Recomputes the guarantee from the event alone and checks that the claim is
    /// no looser than it (a conservative claim passes; `rel` is the relative
    /// tolerance for rounding). Claims that rest on a theorem's own (ε, δ)
    /// statement (Gibbs posterior, smoothed Hellinger) are checked for their δ;
    /// their ε is recomputed by the figure's tests from the theorem.
    /// The ε of this entry's kind of claim, recomputed from its event alone with
    /// the claim's own order, δ and conversion (a basic composition: its parts'
    /// claims added up); `None` where the event cannot give it (and for an RDP
    /// curve or no guarantee, which have no single ε).
    pub fn recomputed_epsilon(&self) -> Option<f64> {
        // nothing is recomputed for a claim that is no guarantee (an RDP
        // conversion at order 0.5 would give ε = 0)
        self.guarantee.check().ok()?;
        match &self.guarantee {
            Guarantee::PureDp { .. } => self.event.pure_epsilon(),
            Guarantee::Rdp { order, .. } => self.event.rdp_epsilon(*order),
            Guarantee::ApproxDp {
                delta,
                conversion,
                order,
                ..
            } => match (conversion, order) {
                (Derivation::BasicComposition, _) => self
                    .parts
                    .iter()
                    .map(|p| p.guarantee.epsilon_delta().0)
                    .sum::<f64>()
                    .into(),
                (Derivation::Rdp(c), Some(a)) => {
                    self.event.rdp_epsilon(*a).map(|r| c.epsilon(r, *a, *delta))
                }
                (Derivation::Pld, None) => self.pld_epsilon(*delta),
                // an RDP conversion without an order, or the PLD at an order: no
                // guarantee (refused by `Guarantee::check` above)
                (Derivation::Rdp(_), None) | (Derivation::Pld, Some(_)) => None,
                (Derivation::Theorem(_), _) => self.theorem_epsilon(*delta),
            },
            Guarantee::RdpCurve { .. } | Guarantee::None => None,
        }
    }

    pub fn verify(&self, rel: f64) -> Result<(), ClaimError> {
        let close = |claimed: f64, recomputed: f64| claimed >= recomputed * (1.0 - rel);
        let fail = |what: String| Err(ClaimError(format!("{}: {what}", self.series)));
        if let Err(what) = self.guarantee.check() {
            return fail(format!("the claim is not a guarantee: {what}"));
        }
        match &self.guarantee {
            Guarantee::None => match self.event {
                Event::NonPrivate => Ok(()),
                _ => fail("a private event claims no guarantee".into()),
            },
            Guarantee::PureDp { epsilon } => match self.event.pure_epsilon() {
                Some(e) if close(*epsilon, e) => Ok(()),
                Some(e) => fail(format!("claims ε = {epsilon}, event gives {e}")),
                None => fail("claims pure DP for an event without one".into()),
            },
            Guarantee::Rdp { order, epsilon } => match self.event.rdp_epsilon(*order) {
                Some(e) if *epsilon >= e * (1.0 - rel) => Ok(()),
                Some(e) => fail(format!(
                    "claims (λ = {order}, ε = {epsilon})-RDP, event gives {e}"
                )),
                None => fail(format!("no RDP of order {order} in the event")),
            },
            Guarantee::RdpCurve { points } => {
                for &(order, epsilon) in points {
                    match self.event.rdp_epsilon(order) {
                        Some(e) if epsilon >= e * (1.0 - rel) => {}
                        Some(e) => {
                            return fail(format!(
                                "claims (λ = {order}, ε = {epsilon})-RDP, event gives {e}"
                            ))
                        }
                        None => return fail(format!("no RDP of order {order} in the event")),
                    }
                }
                Ok(())
            }
            Guarantee::ApproxDp {
                epsilon,
                delta,
                conversion,
                ..
            } => {
                if *conversion == Derivation::BasicComposition {
                    let mut sum = (0.0, 0.0);
                    for p in &self.parts {
                        p.verify(rel)?;
                        let (e, d) = p.guarantee.epsilon_delta();
                        sum = (sum.0 + e, sum.1 + d);
                    }
                    return if self.parts.is_empty() {
                        fail("basic composition of no parts".into())
                    } else if close(*epsilon, sum.0) && close(*delta, sum.1) {
                        Ok(())
                    } else {
                        fail(format!(
                            "claims ({epsilon}, {delta}), parts add up to {sum:?}"
                        ))
                    };
                }
                match self.recomputed_epsilon() {
                    Some(e) if close(*epsilon, e) => Ok(()),
                    Some(e) => fail(format!(
                        "claims ε = {epsilon} at δ = {delta}, event gives {e}"
                    )),
                    None => fail(format!("cannot recompute ({conversion}) from the event")),
                }
            }
        }
    }

    /// The tight ε of T Poisson-subsampled Gaussian steps (privacy::pld, default options).
    fn pld_epsilon(&self, delta: f64) -> Option<f64> {
        // compositions of plain Gaussian mechanisms: the closed form, exact
        if let Some(mu) = super::gaussian_pld::event_mu(&self.event) {
            return Some(super::gaussian_pld::epsilon(delta, mu));
        }
        // with Laplace releases: the pessimistic grid, within the default slack
        if let Some((laplace, mu)) = self.event.laplace_gaussian_parts() {
            return super::laplace_pld::epsilon(&laplace, mu, delta, PLD_SLACK).ok();
        }
        let (times, event) = match &self.event {
            Event::Repeat { times, event } => (*times, event.as_ref()),
            e => (1, e),
        };
        match event {
            Event::PoissonSubsampledGaussian { q, sigma, .. } => {
                super::pld::poisson_gaussian_epsilon(*q, *sigma, times, delta, &Default::default())
                    .ok()
                    .map(|t| t.epsilon)
            }
            Event::SampledWithReplacementGaussian {
                batch,
                n_data,
                sigma,
            } => super::pld::with_replacement_epsilon(
                *batch,
                *n_data,
                *sigma,
                times,
                delta,
                &Default::default(),
            )
            .ok()
            .map(|t| t.epsilon),
            _ => None,
        }
    }

    /// ε of events whose (ε, δ) statement is their theorem's, composed sequentially.
    fn theorem_epsilon(&self, delta: f64) -> Option<f64> {
        fn eps(e: &Event, delta: f64) -> Option<f64> {
            match e {
                Event::GibbsPosterior {
                    epsilon, delta: d, ..
                }
                | Event::SmoothedHellinger { epsilon, delta: d } => {
                    (*d <= delta).then_some(*epsilon)
                }
                Event::Compose { parts, .. } => parts.iter().map(|p| eps(p, delta)).sum(),
                other => other.pure_epsilon(),
            }
        }
        eps(&self.event, delta)
    }
}

/// The ledger of a figure: one entry per series or grid point.
pub type Ledger = Vec<Entry>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::event::Conversion;

    #[test]
    fn infinite_epsilons_are_written_as_text() {
        let g = Guarantee::RdpCurve {
            points: vec![(2.0, 0.5), (30.0, f64::INFINITY)],
        };
        assert_eq!(
            serde_json::to_string(&g).unwrap(),
            r#"{"kind":"rdp_curve","points":[[2.0,0.5],[30.0,"inf"]]}"#
        );
    }

    /// A claim whose own parameters are no guarantee never holds —
    /// a conversion at order 0.5 recomputed to ε = 0, an RDP order −3, δ = −1.
    #[test]
    fn claims_outside_the_guarantees_domain_never_hold() {
        let g = Event::Gaussian {
            l2_sensitivity: 1.0,
            sigma: 1.0,
            rdp_scale: 0.5,
        };
        let approx = |conversion: &str, order: Option<f64>, delta: f64| {
            Entry::new(
                "x",
                g.clone(),
                Guarantee::ApproxDp {
                    epsilon: 0.001,
                    delta,
                    conversion: conversion.parse().unwrap(),
                    order,
                },
            )
        };
        for e in [
            approx("classic", Some(0.5), 1e-5),
            approx("improved", Some(0.5), 1e-5),
            approx("classic", None, 1e-5),
            approx("pld", None, -1.0),
            approx("classic", Some(2.0), 1.0),
            Entry::new(
                "x",
                g.clone(),
                Guarantee::Rdp {
                    order: -3.0,
                    epsilon: 0.0,
                },
            ),
            Entry::new(
                "x",
                g.clone(),
                Guarantee::RdpCurve {
                    points: vec![(2.0, 1.0), (0.5, 0.0)],
                },
            ),
            Entry::new("x", g.clone(), Guarantee::PureDp { epsilon: -1.0 }),
        ] {
            let why = e.verify(1e-9).unwrap_err();
            assert!(why.0.contains("the claim is not a guarantee"), "{why}");
        }
        // λ = 1 is an RDP order (the KL limit; Geumlek et al.'s Fig. 3 plots it),
        // though no conversion can use it
        assert!(Guarantee::Rdp {
            order: 1.0,
            epsilon: 0.1
        }
        .check()
        .is_ok());
        // the honest claim at a valid order still holds: ε(λ = 20) classic ≈ 0.5 + ln(1e5)/19
        let rdp = g.rdp_epsilon(20.0).unwrap();
        let honest = Conversion::Classic.epsilon(rdp, 20.0, 1e-5);
        let mut ok = approx("classic", Some(20.0), 1e-5);
        ok.guarantee = Guarantee::ApproxDp {
            epsilon: honest,
            delta: 1e-5,
            conversion: Derivation::Rdp(Conversion::Classic),
            order: Some(20.0),
        };
        assert!(ok.verify(1e-9).is_ok());
    }

    #[test]
    fn laplace_is_sensitivity_over_scale() {
        let e = Event::Laplace {
            l1_sensitivity: 2.0,
            scale: 4.0,
        };
        assert_eq!(e.pure_epsilon(), Some(0.5));
        // RDP: Mironov's exact curve, below the pure ε at finite orders
        let r = e.rdp_epsilon(7.0).unwrap();
        assert_eq!(r, super::super::laplace_pld::laplace_rdp(0.5, 7.0));
        assert!(r < 0.5 && r > 0.35, "{r}");
        let ok = Entry::new("x", e.clone(), Guarantee::PureDp { epsilon: 0.5 });
        assert!(ok.verify(1e-12).is_ok());
        let loose = Entry::new("x", e, Guarantee::PureDp { epsilon: 0.25 });
        assert!(loose.verify(1e-12).is_err());
    }

    #[test]
    fn composition_adds_sequentially_and_maxes_in_parallel() {
        let l = |s: f64| Event::Laplace {
            l1_sensitivity: 1.0,
            scale: s,
        };
        let seq = Event::Compose {
            composition: Composition::SplitOverFeatures,
            parts: vec![l(2.0), l(4.0)],
        };
        assert_eq!(seq.pure_epsilon(), Some(0.75));
        let par = Event::Compose {
            composition: Composition::ParallelDisjointRecords,
            parts: vec![l(2.0), l(4.0)],
        };
        assert_eq!(par.pure_epsilon(), Some(0.5));
        assert_eq!(Event::repeat(10, l(2.0)).pure_epsilon(), Some(5.0));
        assert_eq!(Event::NonPrivate.pure_epsilon(), None);
    }

    #[test]
    fn gaussian_rdp_is_mironovs_closed_form() {
        let g = Event::Gaussian {
            l2_sensitivity: 1.0,
            sigma: 2.0,
            rdp_scale: 0.5,
        };
        // α Δ² / (2σ²) = 3 / 8
        assert!((g.rdp_epsilon(3.0).unwrap() - 0.375).abs() < 1e-15);
        let paper = crate::privacy::gaussian::GaussianCalibration::Tight.rdp_epsilon(3.0, 2.0, 1.0);
        assert!((g.rdp_epsilon(3.0).unwrap() - paper).abs() < 1e-15);
        assert_eq!(g.pure_epsilon(), None);
    }

    #[test]
    fn poisson_gaussian_matches_the_accountant_and_its_q1_limit() {
        let e = Event::PoissonSubsampledGaussian {
            q: 1.0,
            sigma: 2.0,
            sample: None,
        };
        // q = 1: the plain Gaussian, α/(2σ²)
        assert!((e.rdp_epsilon(4.0).unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(e.rdp_epsilon(2.5), None);
        let t = Event::repeat(
            100,
            Event::PoissonSubsampledGaussian {
                q: 0.01,
                sigma: 1.1,
                sample: None,
            },
        );
        let claim = Guarantee::converted(
            100.0 * sampled_gaussian(8, 0.01, 1.1),
            8.0,
            1e-5,
            Conversion::Classic,
        );
        assert!(Entry::new("sgld", t, claim).verify(1e-12).is_ok());
    }

    #[test]
    fn basic_composition_adds_epsilon_and_delta() {
        let a = Entry::new(
            "a",
            Event::Laplace {
                l1_sensitivity: 1.0,
                scale: 2.0,
            },
            Guarantee::PureDp { epsilon: 0.5 },
        );
        let b = Entry::new(
            "b",
            Event::SmoothedHellinger {
                epsilon: 1.0,
                delta: 1e-6,
            },
            Guarantee::ApproxDp {
                epsilon: 1.0,
                delta: 1e-6,
                conversion: Derivation::Theorem(None),
                order: None,
            },
        );
        let c = Entry::basic_composition("a+b", vec![a, b]);
        assert_eq!(c.guarantee.epsilon_delta(), (1.5, 1e-6));
        assert!(c.verify(1e-12).is_ok());
        let mut wrong = c.clone();
        wrong.guarantee = Guarantee::ApproxDp {
            epsilon: 1.0,
            delta: 1e-6,
            conversion: Derivation::BasicComposition,
            order: None,
        };
        assert!(wrong.verify(1e-12).is_err());
    }

    #[test]
    fn theorem_claims_need_their_delta() {
        let g = Event::GibbsPosterior {
            beta: 0.1,
            epsilon: 1.0,
            delta: 1e-5,
        };
        let claim = |delta: f64| Guarantee::ApproxDp {
            epsilon: 1.0,
            delta,
            conversion: Derivation::Theorem(None),
            order: None,
        };
        assert!(Entry::new("g", g.clone(), claim(1e-5))
            .verify(1e-12)
            .is_ok());
        assert!(Entry::new("g", g, claim(1e-6)).verify(1e-12).is_err());
    }
}
