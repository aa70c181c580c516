//! Privacy events and the ledger a figure's manifest carries.
//!
//! As in Google's dp_accounting (`dp_event.py`), a release is described by
//! plain data — an [`Event`] — produced by the code that sets its noise (the
//! Laplace scale, the Gaussian σ, the posterior's coefficient, the Barker
//! batch). A ledger [`Entry`] pairs the event of one series or grid point with
//! the guarantee claimed for it and the conditions under which that claim
//! holds. The accountant methods here ([`Event::pure_epsilon`],
//! [`Event::rdp_epsilon`]) recompute ε from the event alone, so a test can
//! check every claim against the noise that was actually set.

use serde::{Deserialize, Serialize, Serializer};

use super::rdp::{sampled_gaussian, Conversion};

/// JSON has no infinity: an ε that is infinite (a posterior that is not RDP at
/// that order) is written as the string "inf" rather than `null`.
fn ser_number<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    if x.is_finite() {
        s.serialize_f64(*x)
    } else {
        s.serialize_str(&format!("{x}"))
    }
}

fn ser_points<S: Serializer>(v: &[(f64, f64)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    struct Num(f64);
    impl Serialize for Num {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            ser_number(&self.0, s)
        }
    }
    let mut seq = s.serialize_seq(Some(v.len()))?;
    for &(a, b) in v {
        seq.serialize_element(&(Num(a), Num(b)))?;
    }
    seq.end()
}

/// A number as [`ser_number`] writes it: a JSON number, or "inf" / "-inf" / "NaN".
fn de_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Num {
        N(f64),
        S(String),
    }
    match Num::deserialize(d)? {
        Num::N(x) => Ok(x),
        Num::S(s) => s
            .parse::<f64>()
            .map_err(|_| serde::de::Error::custom(format!("{s:?} is not a number"))),
    }
}

/// A count written as an integer or as a whole number in float notation (`1e5`, as
/// configs accept it), up to 2⁵³ where every whole float is exact.
fn de_count<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Count {
        U(u64),
        F(f64),
    }
    match Count::deserialize(d)? {
        Count::U(n) => Ok(n),
        Count::F(x)
            if x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x <= 9_007_199_254_740_992.0 =>
        {
            Ok(x as u64)
        }
        Count::F(x) => Err(serde::de::Error::custom(format!(
            "{x} is not a count: a whole number 0 … 2^53 (e.g. 100000 or 1e5)"
        ))),
    }
}

/// Points as [`ser_points`] writes them.
fn de_points<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<(f64, f64)>, D::Error> {
    #[derive(Deserialize)]
    struct Num(#[serde(deserialize_with = "de_number")] f64);
    let v: Vec<(Num, Num)> = Vec::deserialize(d)?;
    Ok(v.into_iter().map(|(a, b)| (a.0, b.0)).collect())
}

/// How the parts of a composed release relate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Composition {
    /// Each part sees the whole dataset: ε adds up (basic composition).
    Sequential,
    /// Parts see disjoint parts of each record (e.g. one histogram per feature,
    /// each record contributing one count to each) — a record's change touches
    /// every part, so ε still adds up; listed separately to say *why* the budget
    /// is split.
    SplitOverFeatures,
    /// Parts see disjoint sets of records: ε is the maximum (parallel composition).
    ParallelDisjointRecords,
}

/// One privacy-relevant release, as the code that sets its noise describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mechanism", rename_all = "snake_case")]
pub enum Event {
    /// Laplace noise of scale b on a statistic of L1 sensitivity Δ₁: ε = Δ₁/b (pure DP).
    Laplace { l1_sensitivity: f64, scale: f64 },
    /// Discrete Laplace noise (CKS20, exact sampling) of rational scale
    /// b = scale_num/scale_den on an integer statistic of L1 sensitivity Δ₁:
    /// ε = Δ₁/b (pure DP). `noise` is the mode that drew it: exact or secure.
    DiscreteLaplace {
        l1_sensitivity: f64,
        scale_num: u64,
        scale_den: u64,
        noise: super::noise::NoiseMode,
    },
    /// Discrete Gaussian noise (CKS20, exact sampling) of variance parameter
    /// σ² = sigma2_num/sigma2_den on an integer statistic whose neighbours differ
    /// by at most `shift`: the exact Rényi divergence of the shifted discrete
    /// Gaussians ([`super::exact::DiscreteGaussian::rdp_epsilon`]), at most the
    /// continuous αΔ²/(2σ²) (CKS20's bound for the discrete Gaussian).
    DiscreteGaussian {
        shift: u64,
        sigma2_num: u64,
        sigma2_den: u64,
        noise: super::noise::NoiseMode,
    },
    /// Gaussian noise of standard deviation σ on a statistic of L2 sensitivity Δ₂:
    /// (α, αΔ₂²/(2σ²))-RDP (Mironov 2017, Proposition 7). `rdp_scale` is the
    /// factor the release claims: 1/2 exact, 1 for the Geumlek paper's statement
    /// (λ, λΔ²/σ²), conservative by 2×.
    Gaussian {
        l2_sensitivity: f64,
        sigma: f64,
        rdp_scale: f64,
    },
    /// One posterior sample (Wang et al. 2015; Foulds et al. 2016, Theorem 1): a sample
    /// from a posterior whose log-likelihood ratio between neighbours is at most
    /// `log_ratio_bound` is 2·bound-DP; the posterior may be tempered and truncated
    /// to make the bound hold. Exact only when the sampler has converged.
    OnePosteriorSample {
        log_ratio_bound: f64,
        temperature: f64,
        /// The truncation a₀ of each parameter's support (empty: none).
        truncation: Vec<f64>,
        epsilon: f64,
    },
    /// A posterior (or other mechanism) whose Rényi-DP curve was computed:
    /// points (order λ, ε(λ)).
    RdpCurve {
        posterior: String,
        parameters: serde_json::Value,
        #[serde(serialize_with = "ser_points", deserialize_with = "de_points")]
        points: Vec<(f64, f64)>,
    },
    /// Gibbs posterior at inverse temperature β (Minami et al. 2016, Theorem 7):
    /// (ε, δ)-DP for a Lipschitz, bounded loss.
    GibbsPosterior { beta: f64, epsilon: f64, delta: f64 },
    /// One DP-MCMC step: the Barker test on a minibatch of b of N records drawn
    /// without replacement (Heikkilä et al. 2019, Theorem 2 and Corollary 2):
    /// per-step RDP at integer orders.
    SubsampledBarker {
        batch: u64,
        n_data: u64,
        #[serde(serialize_with = "ser_points", deserialize_with = "de_points")]
        points: Vec<(f64, f64)>,
    },
    /// One step of the Poisson-subsampled Gaussian mechanism (DP-SGD, DP-SGLD):
    /// sampling rate q, noise multiplier σ (Mironov, Talwar, Zhang 2019).
    PoissonSubsampledGaussian { q: f64, sigma: f64 },
    /// The smoothed-Hellinger exponential mechanism (Bun et al., Theorem 4.x):
    /// (ε, δ)-DP as configured.
    SmoothedHellinger { epsilon: f64, delta: f64 },
    /// A release whose mechanism states pure ε-DP itself (a user's declared event:
    /// privpost takes ε as given; it composes like any pure ε).
    PureEpsilon { epsilon: f64 },
    /// A release with no privacy protection (a baseline curve).
    NonPrivate,
    /// Parts released together.
    Compose {
        composition: Composition,
        parts: Vec<Event>,
    },
    /// The same release repeated `times` times on the same data (e.g. T MCMC steps).
    Repeat {
        #[serde(deserialize_with = "de_count")]
        times: u64,
        event: Box<Event>,
    },
}

impl Event {
    /// Checks the parameters of an event a user declared: every scale, σ and
    /// sensitivity finite and positive, rates in (0, 1], orders ≥ 1, ε ≥ 0, δ in
    /// [0, 1), a composition not empty. The message names the field.
    pub fn validate(&self) -> Result<(), String> {
        let pos = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!("{name} = {v}: must be finite and > 0"))
            }
        };
        let nonneg = |name: &str, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(format!("{name} = {v}: must be finite and ≥ 0"))
            }
        };
        let delta = |v: f64| {
            if (0.0..1.0).contains(&v) {
                Ok(())
            } else {
                Err(format!("delta = {v}: must be in [0, 1)"))
            }
        };
        let points = |pts: &[(f64, f64)]| {
            if pts.is_empty() {
                return Err("points: at least one (order, ε) pair".to_string());
            }
            for &(a, e) in pts {
                if !(a.is_finite() && a >= 1.0) {
                    return Err(format!("points: order {a} must be finite and ≥ 1"));
                }
                if e.is_nan() || e < 0.0 {
                    return Err(format!("points: ε({a}) = {e} must be ≥ 0"));
                }
            }
            Ok(())
        };
        match self {
            Event::Laplace {
                l1_sensitivity,
                scale,
            } => pos("l1_sensitivity", *l1_sensitivity).and(pos("scale", *scale)),
            Event::DiscreteLaplace {
                l1_sensitivity,
                scale_num,
                scale_den,
                ..
            } => {
                if *scale_num == 0 || *scale_den == 0 {
                    return Err(format!(
                        "scale = {scale_num}/{scale_den}: both parts must be ≥ 1"
                    ));
                }
                pos("l1_sensitivity", *l1_sensitivity)
            }
            Event::DiscreteGaussian {
                shift,
                sigma2_num,
                sigma2_den,
                ..
            } => {
                if *sigma2_num == 0 || *sigma2_den == 0 {
                    return Err(format!(
                        "sigma2 = {sigma2_num}/{sigma2_den}: both parts must be ≥ 1"
                    ));
                }
                if *shift == 0 {
                    return Err("shift = 0: must be ≥ 1".into());
                }
                Ok(())
            }
            Event::Gaussian {
                l2_sensitivity,
                sigma,
                rdp_scale,
            } => pos("l2_sensitivity", *l2_sensitivity)
                .and(pos("sigma", *sigma))
                .and(pos("rdp_scale", *rdp_scale)),
            Event::OnePosteriorSample {
                log_ratio_bound,
                temperature,
                epsilon,
                ..
            } => pos("log_ratio_bound", *log_ratio_bound)
                .and(pos("temperature", *temperature))
                .and(nonneg("epsilon", *epsilon)),
            Event::RdpCurve { points: p, .. } => points(p),
            Event::GibbsPosterior {
                beta,
                epsilon,
                delta: d,
            } => pos("beta", *beta)
                .and(nonneg("epsilon", *epsilon))
                .and(delta(*d)),
            Event::SubsampledBarker {
                batch,
                n_data,
                points: p,
            } => {
                if *batch == 0 || batch > n_data {
                    return Err(format!("batch = {batch}: must be in 1..=n_data ({n_data})"));
                }
                points(p)
            }
            Event::PoissonSubsampledGaussian { q, sigma } => {
                if !(*q > 0.0 && *q <= 1.0) {
                    return Err(format!("q = {q}: must be in (0, 1]"));
                }
                pos("sigma", *sigma)
            }
            Event::SmoothedHellinger { epsilon, delta: d } => {
                nonneg("epsilon", *epsilon).and(delta(*d))
            }
            Event::NonPrivate => Ok(()),
            Event::PureEpsilon { epsilon } => nonneg("epsilon", *epsilon),
            Event::Compose { parts, .. } => {
                if parts.is_empty() {
                    return Err("parts: at least one event".into());
                }
                parts
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, p)| p.validate().map_err(|e| format!("parts[{i}]: {e}")))
            }
            Event::Repeat { times, event } => {
                if *times == 0 {
                    return Err("times = 0: must be ≥ 1".into());
                }
                event.validate().map_err(|e| format!("event: {e}"))
            }
        }
    }

    /// Sequential composition of `parts`.
    pub fn sequential(parts: Vec<Event>) -> Event {
        Event::Compose {
            composition: Composition::Sequential,
            parts,
        }
    }

    /// `event` repeated `times` times.
    pub fn repeat(times: u64, event: Event) -> Event {
        Event::Repeat {
            times,
            event: Box::new(event),
        }
    }

    /// How the event's noise was drawn, as the ledger shows it: `float` (the
    /// papers' floating-point Laplace or Gaussian: an exact mode exists),
    /// `exact` / `secure` (CKS20 samplers), `float-only` (a draw from a
    /// continuous posterior or a test with no exact analogue here), `declared`
    /// (a user's event: privpost cannot know), `none` (no privacy); a
    /// composition of differently drawn parts is `mixed`.
    pub fn noise_label(&self) -> &'static str {
        match self {
            Event::Laplace { .. } | Event::Gaussian { .. } => "float",
            Event::DiscreteLaplace { noise, .. } | Event::DiscreteGaussian { noise, .. } => {
                noise.as_str()
            }
            Event::NonPrivate => "none",
            Event::PureEpsilon { .. } => "declared",
            Event::Compose { parts, .. } => {
                let mut labels = parts.iter().map(Event::noise_label);
                let first = labels.next().unwrap_or("none");
                if labels.all(|l| l == first) {
                    first
                } else {
                    "mixed"
                }
            }
            Event::Repeat { event, .. } => event.noise_label(),
            _ => "float-only",
        }
    }

    /// Pure ε-DP of the event, recomputed from its parameters; `None` when the
    /// event has no pure-DP guarantee (Gaussian, RDP curves, (ε, δ) events, a
    /// non-private release).
    pub fn pure_epsilon(&self) -> Option<f64> {
        match self {
            Event::Laplace {
                l1_sensitivity,
                scale,
            } => Some(l1_sensitivity / scale),
            Event::DiscreteLaplace {
                l1_sensitivity,
                scale_num,
                scale_den,
                ..
            } => Some(l1_sensitivity * *scale_den as f64 / *scale_num as f64),
            Event::OnePosteriorSample {
                log_ratio_bound, ..
            } => Some(2.0 * log_ratio_bound),
            Event::Compose { composition, parts } => {
                let eps: Option<Vec<f64>> = parts.iter().map(Event::pure_epsilon).collect();
                let eps = eps?;
                Some(match composition {
                    Composition::ParallelDisjointRecords => eps.into_iter().fold(0.0, f64::max),
                    _ => eps.into_iter().sum(),
                })
            }
            Event::Repeat { times, event } => event.pure_epsilon().map(|e| *times as f64 * e),
            Event::PureEpsilon { epsilon } => Some(*epsilon),
            _ => None,
        }
    }

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
            Event::PoissonSubsampledGaussian { q, sigma } => {
                (order >= 2.0 && order.fract() == 0.0 && order <= u32::MAX as f64)
                    .then(|| sampled_gaussian(order as u32, *q, *sigma))
            }
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

/// The guarantee a ledger entry claims.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Guarantee {
    /// ε-differential privacy.
    PureDp {
        #[serde(serialize_with = "ser_number", deserialize_with = "de_number")]
        epsilon: f64,
    },
    /// (λ, ε)-Rényi differential privacy.
    Rdp {
        order: f64,
        #[serde(serialize_with = "ser_number", deserialize_with = "de_number")]
        epsilon: f64,
    },
    /// (λ, ε(λ))-RDP at each listed order.
    RdpCurve {
        #[serde(serialize_with = "ser_points", deserialize_with = "de_points")]
        points: Vec<(f64, f64)>,
    },
    /// (ε, δ)-DP, obtained by `conversion` ("theorem" when the paper's theorem states it
    /// directly, else an RDP conversion at `order`).
    ApproxDp {
        #[serde(serialize_with = "ser_number", deserialize_with = "de_number")]
        epsilon: f64,
        delta: f64,
        conversion: String,
        order: Option<f64>,
    },
    /// No privacy (a baseline).
    None,
}

/// The conversion name of a claim made by basic composition of its parts.
pub const BASIC: &str = "basic composition of the parts";

impl Guarantee {
    /// (ε, δ) of the claim (pure DP has δ = 0; RDP and no guarantee give ε = ∞).
    pub fn epsilon_delta(&self) -> (f64, f64) {
        match self {
            Guarantee::PureDp { epsilon } => (*epsilon, 0.0),
            Guarantee::ApproxDp { epsilon, delta, .. } => (*epsilon, *delta),
            Guarantee::Rdp { .. } | Guarantee::RdpCurve { .. } | Guarantee::None => {
                (f64::INFINITY, 0.0)
            }
        }
    }

    /// The claim's own parameters are ones a guarantee can have (issue 47): ε ≥ 0,
    /// RDP orders λ ≥ 1, 0 ≤ δ < 1, and an RDP conversion (`classic`,
    /// `improved`) at an order λ > 1. Checked by [`Entry::verify`] before any
    /// recomputation — the one check behind the ledger, `account --event`,
    /// `account --manifest` and an external figure's `[[privacy]]` — so a claim
    /// at order 0.5 or δ = −1 can never "hold".
    pub fn check(&self) -> Result<(), String> {
        let eps = |e: f64| {
            if e >= 0.0 {
                Ok(())
            } else {
                Err(format!("ε = {e} (allowed: ε ≥ 0)"))
            }
        };
        // an RDP claim: λ ≥ 1 (λ = 1 is the KL limit, Mironov 2017 Def. 3; Geumlek
        // et al.'s Fig. 3 plots it); a conversion to (ε, δ) divides by λ − 1
        let rdp_order = |a: f64| {
            if a >= 1.0 && a.is_finite() {
                Ok(())
            } else {
                Err(format!("RDP order λ = {a} (allowed: a finite λ ≥ 1)"))
            }
        };
        let order = |a: f64| {
            if a > 1.0 && a.is_finite() {
                Ok(())
            } else {
                Err(format!(
                    "conversion order λ = {a} (allowed: a finite λ > 1: the conversion divides by λ − 1)"
                ))
            }
        };
        match self {
            Guarantee::PureDp { epsilon } => eps(*epsilon),
            Guarantee::Rdp { order: a, epsilon } => rdp_order(*a).and(eps(*epsilon)),
            Guarantee::RdpCurve { points } => points
                .iter()
                .try_for_each(|&(a, e)| rdp_order(a).and(eps(e))),
            Guarantee::ApproxDp {
                epsilon,
                delta,
                conversion,
                order: a,
            } => {
                eps(*epsilon)?;
                if !(*delta >= 0.0 && *delta < 1.0) {
                    return Err(format!("δ = {delta} (allowed: 0 ≤ δ < 1)"));
                }
                match (conversion.as_str(), a) {
                    ("classic" | "improved", Some(a)) => order(*a),
                    ("classic" | "improved", None) => Err(format!(
                        "conversion `{conversion}` without an order (allowed: an RDP order λ > 1)"
                    )),
                    (_, Some(a)) => order(*a),
                    (_, None) => Ok(()),
                }
            }
            Guarantee::None => Ok(()),
        }
    }

    /// (ε, δ) from RDP at `order` with a named conversion.
    pub fn converted(rdp: f64, order: f64, delta: f64, conversion: Conversion) -> Self {
        Guarantee::ApproxDp {
            epsilon: conversion.epsilon(rdp, order, delta),
            delta,
            conversion: conversion.as_str().into(),
            order: Some(order),
        }
    }
}

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
                conversion: BASIC.into(),
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
            } => match (conversion.as_str(), order) {
                (BASIC, _) => self
                    .parts
                    .iter()
                    .map(|p| p.guarantee.epsilon_delta().0)
                    .sum::<f64>()
                    .into(),
                ("classic", Some(a)) => self
                    .event
                    .rdp_epsilon(*a)
                    .map(|r| Conversion::Classic.epsilon(r, *a, *delta)),
                ("improved", Some(a)) => self
                    .event
                    .rdp_epsilon(*a)
                    .map(|r| Conversion::Improved.epsilon(r, *a, *delta)),
                ("pld", None) => self.pld_epsilon(*delta),
                _ => self.theorem_epsilon(*delta),
            },
            Guarantee::RdpCurve { .. } | Guarantee::None => None,
        }
    }

    pub fn verify(&self, rel: f64) -> Result<(), String> {
        let close = |claimed: f64, recomputed: f64| claimed >= recomputed * (1.0 - rel);
        let fail = |what: String| Err(format!("{}: {what}", self.series));
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
                if conversion == BASIC {
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
            Event::PoissonSubsampledGaussian { q, sigma } => {
                super::pld::poisson_gaussian_epsilon(*q, *sigma, times, delta, &Default::default())
                    .ok()
                    .map(|t| t.epsilon)
            }
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

    /// Issue 47: a claim whose own parameters are no guarantee never holds —
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
                    conversion: conversion.into(),
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
            assert!(why.contains("the claim is not a guarantee"), "{why}");
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
            conversion: "classic".into(),
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
        let e = Event::PoissonSubsampledGaussian { q: 1.0, sigma: 2.0 };
        // q = 1: the plain Gaussian, α/(2σ²)
        assert!((e.rdp_epsilon(4.0).unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(e.rdp_epsilon(2.5), None);
        let t = Event::repeat(
            100,
            Event::PoissonSubsampledGaussian {
                q: 0.01,
                sigma: 1.1,
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
                conversion: "theorem".into(),
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
            conversion: BASIC.into(),
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
            conversion: "theorem".into(),
            order: None,
        };
        assert!(Entry::new("g", g.clone(), claim(1e-5))
            .verify(1e-12)
            .is_ok());
        assert!(Entry::new("g", g, claim(1e-6)).verify(1e-12).is_err());
    }
}
