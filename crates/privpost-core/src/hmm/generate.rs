//! A synthetic war-log generator with a known ground truth (the leaked logs are not
//! available): events of the structure Foulds et al. §5 describes, drawn from a planted
//! HMM with naive-Bayes emissions, at the scale Foulds et al. §5 reports for the
//! preprocessed logs (the presets' numbers are in `presets_reproduce_their_statistics`).
//!
//! Presets (every field can be overridden from a config):
//! - `iraq`: 5 regions kept + 2 near-empty ones (dropped by preprocessing, like MND-S and
//!   MND-NE), 72 months, 10 types, 100 categories, median ≈ 972 events per region-month,
//!   ≈ 390,000 events; 2 planted states with a regime change from "hazard" (explosive
//!   hazards dominate) to "friendly action" between months 30 and 42 (region-specific).
//! - `afghanistan`: 5 regions, 72 months, 10 types, 60 categories, events growing
//!   e^{5.8} over the period (median ≈ 58, ≈ 75,000 events); 3 planted states
//!   ("enemy action" → "hazard" → "friendly action") with region-specific change months.

use rand::{Rng, RngExt};
use rand_distr::{Distribution, Poisson};

use super::dirichlet::dirichlet;
use super::Record;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Preset {
    pub name: String,
    pub region_names: Vec<String>,
    pub months: usize,
    pub types: usize,
    pub categories: usize,
    /// expected events per cell at mid-period, before the region factor
    pub base_events: f64,
    /// per-region multiplier of the event rate (near-empty regions have a tiny one)
    pub region_factors: Vec<f64>,
    /// rate multiplier e^{growth·(t/(months−1) − ½)}
    pub growth: f64,
    /// planted states (each with a signature type: the type index it favours)
    pub signature_types: Vec<usize>,
    /// per region, the months at which the planted state advances to the next one
    pub change_months: Vec<Vec<usize>>,
    /// casualty probabilities (friendly/host nation, civilian, enemy) per planted state
    pub casualty_probs: Vec<[f64; 3]>,
}

/// A war-log generator preset whose sizes cannot make data (the message names the field).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct PresetError(pub String);

impl Preset {
    pub fn named(name: &str) -> Option<Self> {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        match name {
            "iraq" => Some(Self {
                name: "iraq".into(),
                region_names: names(&[
                    "MND-BAGHDAD",
                    "MND-N",
                    "MNF-W",
                    "MND-C",
                    "MND-SE",
                    "MND-S",
                    "MND-NE",
                ]),
                months: 72,
                types: 10,
                categories: 100,
                base_events: 972.0,
                region_factors: vec![2.0, 1.4, 1.0, 0.7, 0.5, 0.0005, 0.0008],
                growth: 0.0,
                // 0 = friendly action, 1 = explosive hazard
                signature_types: vec![1, 0],
                // month 0 = January 2004: the regime changes in September 2007 –
                // January 2008 (months 44–48), after the troop surge peaked, as Foulds
                // et al. §5 read their Fig. 3
                change_months: vec![
                    vec![44],
                    vec![45],
                    vec![46],
                    vec![48],
                    vec![47],
                    vec![46],
                    vec![46],
                ],
                // hazard state: civilian casualties lead (as in the paper's hazard state);
                // friendly-action state: enemy casualties/detentions lead
                casualty_probs: vec![[0.06, 0.12, 0.05], [0.03, 0.02, 0.25]],
            }),
            "afghanistan" => Some(Self {
                name: "afghanistan".into(),
                region_names: names(&["RC-EAST", "RC-SOUTH", "RC-NORTH", "RC-WEST", "RC-CAPITAL"]),
                months: 72,
                types: 10,
                categories: 60,
                base_events: 58.0,
                region_factors: vec![1.6, 1.4, 1.0, 0.8, 0.6],
                growth: 5.8,
                // 2 = enemy action, 1 = explosive hazard, 0 = friendly action
                signature_types: vec![2, 1, 0],
                change_months: vec![
                    vec![20, 44],
                    vec![24, 48],
                    vec![28, 52],
                    vec![22, 50],
                    vec![26, 46],
                ],
                casualty_probs: vec![[0.15, 0.05, 0.10], [0.10, 0.08, 0.05], [0.03, 0.02, 0.25]],
            }),
            _ => None,
        }
    }

    pub fn regions(&self) -> usize {
        self.region_names.len()
    }

    pub fn states(&self) -> usize {
        self.signature_types.len()
    }

    /// Expected number of generated events (all regions and months).
    pub fn expected_events(&self) -> f64 {
        let per_month: f64 = (0..self.months)
            .map(|t| {
                let u = t as f64 / (self.months - 1).max(1) as f64 - 0.5;
                (self.growth * u).exp()
            })
            .sum();
        self.base_events * self.region_factors.iter().sum::<f64>() * per_month
    }

    /// Cardinalities of the five features.
    pub fn cards(&self) -> Vec<usize> {
        vec![self.types, self.categories, 2, 2, 2]
    }

    /// Checks shapes and ranges; the message names the offending field.
    pub fn validate(&self) -> Result<(), PresetError> {
        let r = self.regions();
        if r == 0 || r > 1000 || !(2..=1200).contains(&self.months) {
            return Err(PresetError(
                "1 ≤ regions (region_names) ≤ 1000 and 2 ≤ months ≤ 1200 needed".to_string(),
            ));
        }
        if !(2..=10_000).contains(&self.types) || !(2..=10_000).contains(&self.categories) {
            return Err(PresetError(
                "types and categories must lie in 2..=10000".to_string(),
            ));
        }
        if self.region_factors.len() != r || self.change_months.len() != r {
            return Err(PresetError(format!(
                "region_factors and change_months need one entry per region ({r})"
            )));
        }
        if self.casualty_probs.len() != self.states() || self.states() == 0 {
            return Err(PresetError(
                "casualty_probs needs one triple per planted state".to_string(),
            ));
        }
        if self.signature_types.iter().any(|&t| t >= self.types) {
            return Err(PresetError(format!(
                "signature_types must be < types ({})",
                self.types
            )));
        }
        if self.change_months.iter().any(|c| {
            c.len() + 1 != self.states()
                || c.windows(2).any(|w| w[0] >= w[1])
                || c.iter().any(|&m| m >= self.months)
        }) {
            return Err(PresetError(format!(
                "change_months: each region needs {} increasing months < months ({})",
                self.states() - 1,
                self.months
            )));
        }
        if !(self.base_events > 0.0 && self.base_events.is_finite())
            || self
                .region_factors
                .iter()
                .any(|f| !(*f >= 0.0 && f.is_finite()))
            || !self.growth.is_finite()
        {
            return Err(PresetError(
                "base_events > 0, region_factors ≥ 0 and growth must be finite".to_string(),
            ));
        }
        if self
            .casualty_probs
            .iter()
            .flatten()
            .any(|p| !(0.0..=1.0).contains(p))
        {
            return Err(PresetError("casualty_probs must lie in [0, 1]".to_string()));
        }
        Ok(())
    }
}

/// The planted model: states per (region, month) and emission distributions.
#[derive(Debug, Clone, PartialEq)]
pub struct Truth {
    pub states: Vec<Vec<usize>>,
    /// `φ[k][d][v]`
    pub phi: Vec<Vec<Vec<f64>>>,
}

/// Draws the planted emissions and the events. Deterministic given the RNG.
pub fn generate(p: &Preset, rng: &mut impl Rng) -> (Truth, Vec<Record>) {
    let cards = p.cards();
    let phi: Vec<Vec<Vec<f64>>> = (0..p.states())
        .map(|k| {
            let mut t = dirichlet(&vec![0.5; p.types], rng);
            // the state's signature type carries half of the mass
            t.iter_mut().for_each(|x| *x *= 0.5);
            t[p.signature_types[k]] += 0.5;
            let c = dirichlet(&vec![0.3; p.categories], rng);
            let mut feats = vec![t, c];
            for &q in &p.casualty_probs[k] {
                feats.push(vec![1.0 - q, q]);
            }
            feats
        })
        .collect();
    let states: Vec<Vec<usize>> = p
        .change_months
        .iter()
        .map(|changes| {
            (0..p.months)
                .map(|t| changes.iter().filter(|&&c| t >= c).count())
                .collect()
        })
        .collect();
    let mut records = Vec::new();
    for (r, (region_states, factor)) in states.iter().zip(&p.region_factors).enumerate() {
        for (t, &k) in region_states.iter().enumerate() {
            let u = t as f64 / (p.months - 1) as f64 - 0.5;
            let mean = p.base_events * factor * (p.growth * u).exp();
            let n = if mean > 0.0 {
                Poisson::new(mean)
                    .map(|d| d.sample(rng) as usize)
                    .unwrap_or(0)
            } else {
                0
            };
            for _ in 0..n {
                let mut values = [0usize; 5];
                for (d, v) in values.iter_mut().enumerate() {
                    *v = categorical(&phi[k][d], rng);
                }
                records.push(Record {
                    region: r,
                    month: t,
                    values,
                });
            }
        }
    }
    debug_assert!(records
        .iter()
        .all(|rec| rec.values.iter().zip(&cards).all(|(v, c)| v < c)));
    (Truth { states, phi }, records)
}

fn categorical(p: &[f64], rng: &mut impl Rng) -> usize {
    let mut u: f64 = rng.random::<f64>();
    for (i, &x) in p.iter().enumerate() {
        if u < x {
            return i;
        }
        u -= x;
    }
    p.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hmm::gibbs::{Gibbs, Model, State};
    use crate::hmm::Histograms;
    use rand::SeedableRng;

    /// The presets reproduce the scale of Foulds et al. 2016 §5's preprocessed logs:
    /// ∼390,000 and ∼75,000 entries, median 972 and 58 per region/month pair.
    #[test]
    fn presets_reproduce_their_statistics() {
        for (name, events, median, regions) in [
            ("iraq", 390_000.0, 972.0, 5),
            ("afghanistan", 75_000.0, 58.0, 5),
        ] {
            let p = Preset::named(name).unwrap();
            p.validate().unwrap();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
            let (truth, records) = generate(&p, &mut rng);
            let h = Histograms::aggregate(&records, p.regions(), p.months, &p.cards(), 500);
            assert_eq!(h.regions.len(), regions, "{name}");
            let rel = |a: f64, b: f64| (a / b - 1.0).abs();
            assert!(
                rel(h.events() as f64, events) < 0.1,
                "{name}: {} events",
                h.events()
            );
            assert!(
                rel(h.median_events(), median) < 0.1,
                "{name}: median {}",
                h.median_events()
            );
            assert_eq!(truth.states[0].len(), 72);
            assert_eq!(*truth.states[0].iter().max().unwrap(), p.states() - 1);
        }
        let mut bad = Preset::named("iraq").unwrap();
        bad.change_months.pop();
        assert!(bad.validate().unwrap_err().0.contains("change_months"));
    }

    /// Non-private Gibbs on plenty of data finds the planted states (up to relabelling).
    #[test]
    fn gibbs_recovers_the_planted_states() {
        let mut p = Preset::named("iraq").unwrap();
        p.base_events = 60.0; // small but informative
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let (truth, records) = generate(&p, &mut rng);
        let h = Histograms::aggregate(&records, p.regions(), p.months, &p.cards(), 50);
        let g = Gibbs::new(
            &h,
            Model {
                states: 2,
                alpha: 1.0,
                beta: vec![0.1; 5],
                ops: None,
            },
        );
        let mut s = State::random(&h, 2, &mut rng);
        for _ in 0..50 {
            g.sweep(&mut s, &mut rng);
        }
        let (mut agree, mut total) = (0usize, 0usize);
        for (ri, (r, cells)) in h.regions.iter().enumerate() {
            for (i, c) in cells.iter().enumerate() {
                agree += usize::from(s.z[ri][i] == truth.states[*r][c.month]);
                total += 1;
            }
        }
        let acc = agree.max(total - agree) as f64 / total as f64;
        assert!(acc > 0.98, "accuracy {acc}");
    }
}
