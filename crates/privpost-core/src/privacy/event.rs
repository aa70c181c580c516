//! The vocabulary of privacy accounting, as plain data: what a release did (an
//! [`Event`]), what is claimed for it (a [`Guarantee`]), how an RDP curve becomes
//! (ε, δ) ([`Conversion`]), how a claim was derived ([`Derivation`]) and how an
//! additive mechanism draws its noise ([`NoiseMode`]).
//!
//! As in Google's dp_accounting (`dp_event.py`), a release is described by
//! plain data produced by the code that sets its noise (the Laplace scale, the
//! Gaussian σ, the posterior's coefficient, the Barker batch). This file imports
//! nothing of the crate: the mechanisms (`laplace`, `gaussian`, `noise`) and the
//! accountants (`ledger`, `rdp`, `pld`, `accountant`) sit above it.

use serde::{Deserialize, Serialize, Serializer};

/// An event or claim whose parameters no release can have, or an unknown name;
/// the message names the field and what is allowed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct EventError(pub String);

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

/// The Gaussian mechanism's own RDP factor, ½ in (α, αΔ₂²/(2σ²)) (Mironov 2017,
/// Proposition 7): `rdp_scale` when an event file does not give one.
fn gaussian_rdp_scale() -> f64 {
    0.5
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
        noise: NoiseMode,
    },
    /// Discrete Gaussian noise (CKS20, exact sampling) of variance parameter
    /// σ² = sigma2_num/sigma2_den on an integer statistic whose neighbours differ
    /// by at most `shift`: the exact Rényi divergence of the shifted discrete
    /// Gaussians (`exact::DiscreteGaussian::rdp_epsilon`), at most the
    /// continuous αΔ²/(2σ²) (CKS20's bound for the discrete Gaussian).
    DiscreteGaussian {
        shift: u64,
        sigma2_num: u64,
        sigma2_den: u64,
        noise: NoiseMode,
    },
    /// Gaussian noise of standard deviation σ on a statistic of L2 sensitivity Δ₂:
    /// (α, αΔ₂²/(2σ²))-RDP (Mironov 2017, Proposition 7). `rdp_scale` is the
    /// factor the release claims: 1/2 exact (the default when an event file omits
    /// it: the mechanism's own factor, the only one other accountants know), 1 for
    /// the Geumlek paper's statement (λ, λΔ²/σ²), conservative by 2×.
    Gaussian {
        l2_sensitivity: f64,
        sigma: f64,
        #[serde(default = "gaussian_rdp_scale")]
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
    ///
    /// Each step draws its own sample, so steps compose as independent
    /// amplified releases. Releases computed on one and the same sample do not
    /// (OpenDP #2933): they carry the same `sample` name, and
    /// [`Event::resolve_samples`] accounts them as one amplified Gaussian whose
    /// 1/σ² is the sum of theirs (the sample is amplified once); [`Event::validate`]
    /// refuses a shared name left unresolved.
    PoissonSubsampledGaussian {
        q: f64,
        sigma: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sample: Option<String>,
    },
    /// One Gaussian step over a batch of `batch` records drawn uniformly with
    /// replacement from `n_data` (noise multiplier σ per clipped record), under
    /// substitution: a record appears K ~ Binomial(b, 1/N) times and displaces K
    /// others, so the Poisson pair does not bound it; `pld.rs`
    /// (`with_replacement_step`) states the pair that does (PLD only, no RDP).
    SampledWithReplacementGaussian {
        #[serde(deserialize_with = "de_count")]
        batch: u64,
        #[serde(deserialize_with = "de_count")]
        n_data: u64,
        sigma: f64,
    },
    /// One round of random allocation ("balls in bins"): each record's clipped
    /// contribution (L2 ≤ 1) enters exactly `selected` of `steps` Gaussian steps
    /// of noise multiplier σ, the steps chosen uniformly (`allocation.rs`: Rényi-DP
    /// bounds of Dong, Chen & Özgür 2025, Theorem 3.1, and an exact k = 1 curve).
    /// Repeat it for several epochs.
    RandomAllocation {
        #[serde(deserialize_with = "de_count")]
        steps: u64,
        #[serde(deserialize_with = "de_count")]
        selected: u64,
        sigma: f64,
    },
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

/// `v` finite and > 0, else an error naming `name`.
fn positive(name: &str, v: f64) -> Result<(), EventError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(EventError(format!("{name} = {v}: must be finite and > 0")))
    }
}

/// `v` finite and ≥ 0, else an error naming `name`.
fn nonnegative(name: &str, v: f64) -> Result<(), EventError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(EventError(format!("{name} = {v}: must be finite and ≥ 0")))
    }
}

/// A δ in [0, 1).
fn below_one(v: f64) -> Result<(), EventError> {
    if (0.0..1.0).contains(&v) {
        Ok(())
    } else {
        Err(EventError(format!("delta = {v}: must be in [0, 1)")))
    }
}

/// An RDP curve's points: at least one, orders finite and ≥ 1, ε ≥ 0.
fn rdp_points(pts: &[(f64, f64)]) -> Result<(), EventError> {
    if pts.is_empty() {
        return Err(EventError(
            "points: at least one (order, ε) pair".to_string(),
        ));
    }
    for &(a, e) in pts {
        if !(a.is_finite() && a >= 1.0) {
            return Err(EventError(format!(
                "points: order {a} must be finite and ≥ 1"
            )));
        }
        if e.is_nan() || e < 0.0 {
            return Err(EventError(format!("points: ε({a}) = {e} must be ≥ 0")));
        }
    }
    Ok(())
}

impl Event {
    /// Checks the parameters of an event a user declared: every scale, σ and
    /// sensitivity finite and positive, rates in (0, 1], orders ≥ 1, ε ≥ 0, δ in
    /// [0, 1), a composition not empty. The message names the field.
    pub fn validate(&self) -> Result<(), EventError> {
        if let Some(name) = self.shared_sample() {
            return Err(EventError(format!(
                "sample = {name:?} names more than one poisson_subsampled_gaussian release: \
                 releases on one sample do not compose as independent samples (OpenDP #2933); \
                 privpost accounts them together when the event is read (Event::resolve_samples)"
            )));
        }
        self.validate_parts()
    }

    /// The first `sample` name that more than one release (or a repeated one) carries.
    fn shared_sample(&self) -> Option<String> {
        let mut seen: Vec<(String, f64)> = Vec::new();
        self.tagged(1.0, false, &mut |name, _, _, times, _| {
            if let Some(e) = seen.iter_mut().find(|(n, _)| n == name) {
                e.1 += times;
            } else {
                seen.push((name.to_string(), times));
            }
        });
        seen.into_iter().find(|&(_, t)| t > 1.0).map(|(n, _)| n)
    }

    /// Calls `f(name, q, σ, multiplicity, under_parallel)` for every sample-tagged
    /// Poisson release, its multiplicity the product of the repeats around it.
    fn tagged(&self, times: f64, parallel: bool, f: &mut impl FnMut(&str, f64, f64, f64, bool)) {
        match self {
            Event::PoissonSubsampledGaussian {
                q,
                sigma,
                sample: Some(name),
            } => f(name, *q, *sigma, times, parallel),
            Event::Repeat { times: t, event } => event.tagged(times * *t as f64, parallel, f),
            Event::Compose { composition, parts } => {
                let parallel = parallel || *composition == Composition::ParallelDisjointRecords;
                parts.iter().for_each(|p| p.tagged(times, parallel, f));
            }
            _ => {}
        }
    }

    /// The event with every group of Poisson releases that name one `sample`
    /// accounted as computed on that one sample: k Gaussian releases of noise
    /// multipliers σᵢ on one Poisson sample of rate q are, rotated, one Gaussian of
    /// 1/σ² = Σ 1/σᵢ² on that sample (the record shifts every release at once), so
    /// the group becomes one `poisson_subsampled_gaussian` step with that σ, composed
    /// after the untagged rest. Refused: one name with two rates, a name inside a
    /// `parallel_disjoint_records` composition. A name used once is kept.
    pub fn resolve_samples(&self) -> Result<Event, EventError> {
        // name, q, Σ m/σ², Σ m
        let mut groups: Vec<(String, f64, f64, f64)> = Vec::new();
        let mut err = None;
        self.tagged(1.0, false, &mut |name, q, sigma, times, parallel| {
            if parallel && err.is_none() {
                err = Some(format!(
                    "sample = {name:?}: a named sample inside a parallel_disjoint_records \
                     composition (parts on disjoint records cannot share a sample)"
                ));
            }
            match groups.iter_mut().find(|g| g.0 == name) {
                Some(g) if g.1 != q => {
                    err.get_or_insert(format!(
                        "sample = {name:?}: releases on one sample share its rate, here q = {} and q = {q}",
                        g.1
                    ));
                }
                Some(g) => {
                    g.2 += times / (sigma * sigma);
                    g.3 += times;
                }
                None => groups.push((name.to_string(), q, times / (sigma * sigma), times)),
            }
        });
        if let Some(e) = err {
            return Err(EventError(e));
        }
        let shared: Vec<&(String, f64, f64, f64)> = groups.iter().filter(|g| g.3 > 1.0).collect();
        if shared.is_empty() {
            return Ok(self.clone());
        }
        let names: Vec<&str> = shared.iter().map(|g| g.0.as_str()).collect();
        let mut parts: Vec<Event> = self.without_samples(&names).into_iter().collect();
        parts.extend(shared.iter().map(|g| Event::PoissonSubsampledGaussian {
            q: g.1,
            sigma: 1.0 / g.2.sqrt(),
            sample: None,
        }));
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            Event::sequential(parts)
        })
    }

    /// The event without the releases tagged with one of `names` (`None`: nothing left).
    fn without_samples(&self, names: &[&str]) -> Option<Event> {
        match self {
            Event::PoissonSubsampledGaussian {
                sample: Some(n), ..
            } if names.contains(&n.as_str()) => None,
            Event::Repeat { times, event } => event
                .without_samples(names)
                .map(|e| Event::repeat(*times, e)),
            Event::Compose { composition, parts } => {
                let parts: Vec<Event> = parts
                    .iter()
                    .filter_map(|p| p.without_samples(names))
                    .collect();
                (!parts.is_empty()).then_some(Event::Compose {
                    composition: *composition,
                    parts,
                })
            }
            other => Some(other.clone()),
        }
    }

    /// [`Event::validate`] without the shared-sample check.
    fn validate_parts(&self) -> Result<(), EventError> {
        let (pos, nonneg, delta, points) = (positive, nonnegative, below_one, rdp_points);

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
                    return Err(EventError(format!(
                        "scale = {scale_num}/{scale_den}: both parts must be ≥ 1"
                    )));
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
                    return Err(EventError(format!(
                        "sigma2 = {sigma2_num}/{sigma2_den}: both parts must be ≥ 1"
                    )));
                }
                if *shift == 0 {
                    return Err(EventError("shift = 0: must be ≥ 1".to_string()));
                }
                Ok(())
            }
            Event::Gaussian {
                l2_sensitivity,
                sigma,
                rdp_scale,
            } => {
                // Gaussian noise is (α, αΔ²/(2σ²))-RDP and no less (Mironov 2017,
                // Proposition 7): a factor below ½ would claim less than the noise gives.
                if !(*rdp_scale >= 0.5 && rdp_scale.is_finite()) {
                    return Err(EventError(format!(
                        "rdp_scale = {rdp_scale}: must be ≥ 0.5 (Gaussian noise is \
                         (α, αΔ²/(2σ²))-RDP: 0.5 is exact, larger is conservative)"
                    )));
                }
                pos("l2_sensitivity", *l2_sensitivity).and(pos("sigma", *sigma))
            }
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
                    return Err(EventError(format!(
                        "batch = {batch}: must be in 1..=n_data ({n_data})"
                    )));
                }
                points(p)
            }
            Event::PoissonSubsampledGaussian { q, sigma, sample } => {
                if sample.as_deref() == Some("") {
                    return Err(EventError(
                        "sample = \"\": a sample name is not empty".to_string(),
                    ));
                }
                if !(*q > 0.0 && *q <= 1.0) {
                    return Err(EventError(format!("q = {q}: must be in (0, 1]")));
                }
                pos("sigma", *sigma)
            }
            Event::SampledWithReplacementGaussian {
                batch,
                n_data,
                sigma,
            } => {
                if *batch == 0 {
                    return Err(EventError("batch = 0: must be ≥ 1".to_string()));
                }
                if *n_data < 2 {
                    return Err(EventError(format!("n_data = {n_data}: must be ≥ 2")));
                }
                pos("sigma", *sigma)
            }
            Event::RandomAllocation {
                steps,
                selected,
                sigma,
            } => {
                if *steps == 0 {
                    return Err(EventError("steps = 0: must be ≥ 1".to_string()));
                }
                if *selected == 0 || selected > steps {
                    return Err(EventError(format!(
                        "selected = {selected}: must be in 1..=steps ({steps})"
                    )));
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
                    return Err(EventError("parts: at least one event".to_string()));
                }
                parts.iter().enumerate().try_for_each(|(i, p)| {
                    p.validate_parts()
                        .map_err(|e| EventError(format!("parts[{i}]: {e}")))
                })
            }
            Event::Repeat { times, event } => {
                if *times == 0 {
                    return Err(EventError("times = 0: must be ≥ 1".to_string()));
                }
                event
                    .validate_parts()
                    .map_err(|e| EventError(format!("event: {e}")))
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
}

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
    /// (ε, δ)-DP, obtained as `conversion` says (a theorem that states it
    /// directly, an RDP conversion at `order`, the PLD accountant, or basic
    /// composition of the entry's parts).
    ApproxDp {
        #[serde(serialize_with = "ser_number", deserialize_with = "de_number")]
        epsilon: f64,
        delta: f64,
        conversion: Derivation,
        order: Option<f64>,
    },
    /// No privacy (a baseline).
    None,
}

impl Guarantee {
    /// What the claim says, in words and short numbers (`ε = 0.5`,
    /// `ε = 1.2, δ = 1e-5`, `RDP ε(8) = 0.3`, `not private`).
    pub fn short_text(&self) -> String {
        use crate::numeric::sig;
        match self {
            Guarantee::None => "not private".into(),
            Guarantee::PureDp { epsilon } => format!("ε = {}", sig(*epsilon)),
            Guarantee::ApproxDp { epsilon, delta, .. } => {
                format!("ε = {}, δ = {}", sig(*epsilon), sig(*delta))
            }
            Guarantee::Rdp { order, epsilon } => {
                format!("RDP ε({}) = {}", sig(*order), sig(*epsilon))
            }
            Guarantee::RdpCurve { points } => format!("an RDP curve at {} orders", points.len()),
        }
    }
}

/// How an (ε, δ) claim was derived: a ledger entry's `conversion`, written as
/// one string (`classic`, `improved`, `pld`, `theorem`, `theorem (SOURCE)`,
/// `basic composition of the parts`); any other string is refused when read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Derivation {
    /// An RDP curve converted at the claim's order.
    Rdp(Conversion),
    /// The privacy-loss-distribution accountant (within the slack `PLD_SLACK`).
    Pld,
    /// The paper's theorem states (ε, δ) directly; its source, when named.
    Theorem(Option<String>),
    /// Basic composition of the entry's parts' claims (ε and δ add up).
    BasicComposition,
}

impl Derivation {
    const BASIC: &'static str = "basic composition of the parts";
    /// What a ledger accepts, for messages.
    pub const ALLOWED: &'static str =
        "classic, improved, pld, theorem, theorem (SOURCE), basic composition of the parts";

    /// A theorem named by its source, e.g. `theorem (Minami et al. 2016, Theorem 7)`.
    pub fn theorem(source: &str) -> Self {
        Self::Theorem(Some(source.to_string()))
    }
}

impl std::fmt::Display for Derivation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Rdp(c) => f.write_str(c.as_str()),
            Self::Pld => f.write_str("pld"),
            Self::Theorem(None) => f.write_str("theorem"),
            Self::Theorem(Some(source)) => write!(f, "theorem ({source})"),
            Self::BasicComposition => f.write_str(Self::BASIC),
        }
    }
}

impl std::str::FromStr for Derivation {
    type Err = EventError;
    fn from_str(s: &str) -> Result<Self, EventError> {
        Ok(match s {
            "classic" => Self::Rdp(Conversion::Classic),
            "improved" => Self::Rdp(Conversion::Improved),
            "pld" => Self::Pld,
            "theorem" => Self::Theorem(None),
            Self::BASIC => Self::BasicComposition,
            _ => match s
                .strip_prefix("theorem (")
                .and_then(|r| r.strip_suffix(')'))
            {
                Some(source) if !source.trim().is_empty() => Self::theorem(source),
                _ => {
                    return Err(EventError(format!(
                        "unknown conversion {s:?} (allowed: {})",
                        Self::ALLOWED
                    )))
                }
            },
        })
    }
}

impl Serialize for Derivation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Derivation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

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

    /// The claim's own parameters are ones a guarantee can have: ε ≥ 0,
    /// RDP orders λ ≥ 1, 0 ≤ δ < 1, and an RDP conversion (`classic`,
    /// `improved`) at an order λ > 1. Checked by [`crate::privacy::ledger::Entry::verify`] before any
    /// recomputation — the one check behind the ledger, `account --event`,
    /// `account --manifest` and an external figure's `[[privacy]]` — so a claim
    /// at order 0.5 or δ = −1 can never "hold".
    pub fn check(&self) -> Result<(), EventError> {
        let eps = |e: f64| {
            if e >= 0.0 {
                Ok(())
            } else {
                Err(EventError(format!("ε = {e} (allowed: ε ≥ 0)")))
            }
        };
        // an RDP claim: λ ≥ 1 (λ = 1 is the KL limit, Mironov 2017 Def. 3; Geumlek
        // et al.'s Fig. 3 plots it); a conversion to (ε, δ) divides by λ − 1
        let rdp_order = |a: f64| {
            if a >= 1.0 && a.is_finite() {
                Ok(())
            } else {
                Err(EventError(format!(
                    "RDP order λ = {a} (allowed: a finite λ ≥ 1)"
                )))
            }
        };
        let order = |a: f64| {
            if a > 1.0 && a.is_finite() {
                Ok(())
            } else {
                Err(EventError(format!(
                    "conversion order λ = {a} (allowed: a finite λ > 1: the conversion divides by λ − 1)"
                )))
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
                    return Err(EventError(format!("δ = {delta} (allowed: 0 ≤ δ < 1)")));
                }
                match (conversion, a) {
                    (Derivation::Rdp(_), Some(a)) => order(*a),
                    (Derivation::Rdp(_), None) => Err(EventError(format!(
                        "conversion `{conversion}` without an order (allowed: an RDP order λ > 1)"
                    ))),
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
            conversion: Derivation::Rdp(conversion),
            order: Some(order),
        }
    }
}

/// How an RDP curve becomes (ε, δ)-DP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Conversion {
    /// Mironov 2017, Proposition 3: ε = ε_RDP(α) + ln(1/δ)/(α − 1) (as the authors).
    Classic,
    /// Canonne, Kamath, Steinke 2020 (Proposition 12; also Asoodeh et al.):
    /// ε = ε_RDP(α) + ln((α − 1)/α) − (ln δ + ln α)/(α − 1). Never larger than classic
    /// for the α ≥ 2 used here.
    Improved,
}

crate::names::name_table!(Conversion {
    Classic => "classic",
    Improved => "improved",
});

impl Conversion {
    /// ε ≥ 0 (the improved formula can dip below 0 for a tiny RDP; ε = 0 then holds).
    pub fn epsilon(self, rdp: f64, alpha: f64, delta: f64) -> f64 {
        let e = match self {
            Self::Classic => rdp + (1.0 / delta).ln() / (alpha - 1.0),
            Self::Improved => {
                rdp + ((alpha - 1.0) / alpha).ln() - (delta.ln() + alpha.ln()) / (alpha - 1.0)
            }
        };
        e.max(0.0)
    }
}

/// How an additive mechanism draws its noise (config key `noise`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoiseMode {
    #[default]
    Float,
    Exact,
    Secure,
}

crate::names::name_table!(NoiseMode {
    Float => "float",
    Exact => "exact",
    Secure => "secure",
});

impl NoiseMode {
    /// Whether the same seed gives the same noise.
    pub fn reproducible(self) -> bool {
        self != Self::Secure
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every derivation a ledger writes reads back as itself; a typo is refused
    /// (it once fell through to "theorem" and was recomputed as such).
    #[test]
    fn derivations_round_trip_and_typos_are_refused() {
        for d in [
            Derivation::Rdp(Conversion::Classic),
            Derivation::Rdp(Conversion::Improved),
            Derivation::Pld,
            Derivation::Theorem(None),
            Derivation::theorem("Minami et al. 2016, Theorem 7"),
            Derivation::BasicComposition,
        ] {
            let json = serde_json::to_string(&d).unwrap();
            assert_eq!(
                serde_json::from_str::<Derivation>(&json).unwrap(),
                d,
                "{json}"
            );
        }
        assert_eq!(
            serde_json::to_string(&Derivation::theorem("Minami et al. 2016, Theorem 7")).unwrap(),
            r#""theorem (Minami et al. 2016, Theorem 7)""#
        );
        for typo in ["clasic", "PLD", "theorem ()", "theorem (x", "basic", ""] {
            let err = typo.parse::<Derivation>().unwrap_err();
            assert!(
                err.0.contains("allowed: classic, improved, pld"),
                "{typo}: {err}"
            );
        }
    }

    fn tagged(q: f64, sigma: f64, sample: Option<&str>) -> Event {
        Event::PoissonSubsampledGaussian {
            q,
            sigma,
            sample: sample.map(str::to_string),
        }
    }

    /// OpenDP #2933: two Gaussian releases on one Poisson sample are one amplified
    /// 2-D Gaussian. Its order-2 Rényi divergence in closed form (the χ² of the
    /// mixture (1 − q)N(0, I) + qN(v, I) against N(0, I) is q²(e^{‖v‖²} − 1), v =
    /// (1/σ₁, 1/σ₂)) is what the resolved event gives, and above what composing
    /// them as independent samples would claim.
    #[test]
    fn releases_on_one_sample_are_amplified_once() {
        let (q, s1, s2) = (0.01, 1.0, 2.0);
        let event = Event::sequential(vec![
            tagged(q, s1, Some("batch")),
            tagged(q, s2, Some("batch")),
        ]);
        let err = event.validate().unwrap_err().0;
        assert!(err.contains("\"batch\"") && err.contains("#2933"), "{err}");
        let resolved = event.resolve_samples().unwrap();
        resolved.validate().unwrap();
        let closed = (q * q * (1.0 / (s1 * s1) + 1.0 / (s2 * s2)).exp_m1()).ln_1p();
        let ours = resolved.rdp_epsilon(2.0).unwrap();
        assert!((ours - closed).abs() < 1e-12 * closed, "{ours} vs {closed}");
        let independent = Event::sequential(vec![tagged(q, s1, None), tagged(q, s2, None)]);
        let naive = independent.rdp_epsilon(2.0).unwrap();
        assert!(
            ours > 1.2 * naive,
            "one sample {ours} vs independent {naive}"
        );
    }

    #[test]
    fn repeats_on_one_sample_merge_and_the_rest_is_kept() {
        let laplace = Event::Laplace {
            l1_sensitivity: 1.0,
            scale: 4.0,
        };
        let event = Event::sequential(vec![
            laplace.clone(),
            Event::repeat(3, tagged(0.1, 2.0, Some("s"))),
            tagged(0.1, 2.0, Some("s")),
            tagged(0.2, 1.0, Some("alone")),
        ]);
        let resolved = event.resolve_samples().unwrap();
        let Event::Compose { parts, .. } = &resolved else {
            panic!("{resolved:?}")
        };
        assert_eq!(parts.len(), 2, "{parts:?}");
        // the untagged rest, with the singly used name kept as it was
        assert_eq!(
            parts[0],
            Event::sequential(vec![laplace, tagged(0.2, 1.0, Some("alone"))])
        );
        // 4 releases of σ 2 on one sample: σ = 2/√4 = 1
        assert_eq!(parts[1], tagged(0.1, 1.0, None));
        // a repeated named release alone is a shared sample too
        let r = Event::repeat(4, tagged(0.1, 2.0, Some("s")))
            .resolve_samples()
            .unwrap();
        assert_eq!(r, tagged(0.1, 1.0, None));
        // nothing named twice: unchanged
        let single = Event::repeat(4, tagged(0.1, 2.0, None));
        assert_eq!(single.resolve_samples().unwrap(), single);
    }

    #[test]
    fn a_sample_with_two_rates_or_on_disjoint_records_is_refused() {
        let two_rates = Event::sequential(vec![
            tagged(0.1, 1.0, Some("s")),
            tagged(0.2, 1.0, Some("s")),
        ]);
        let e = two_rates.resolve_samples().unwrap_err().0;
        assert!(e.contains("q = 0.1 and q = 0.2"), "{e}");
        let parallel = Event::Compose {
            composition: Composition::ParallelDisjointRecords,
            parts: vec![tagged(0.1, 1.0, Some("s")), tagged(0.1, 1.0, Some("s"))],
        };
        let e = parallel.resolve_samples().unwrap_err().0;
        assert!(e.contains("parallel_disjoint_records"), "{e}");
        let e = tagged(0.1, 1.0, Some("")).validate().unwrap_err().0;
        assert!(e.contains("sample"), "{e}");
        // the name round-trips through JSON, and is absent when not given
        let v = serde_json::to_value(tagged(0.1, 1.0, Some("s"))).unwrap();
        assert_eq!(v["sample"], "s");
        let v = serde_json::to_value(tagged(0.1, 1.0, None)).unwrap();
        assert!(v.get("sample").is_none());
    }
}
