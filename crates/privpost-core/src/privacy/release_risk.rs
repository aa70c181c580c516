//! The attack risk a figure's manifest records beside its ledger: for each release
//! (a series at its last checkpoint), what a membership attacker can do against it —
//! the μ-GDP of its trade-off curve with the regret of that fit, the TPR at FPR 10⁻³,
//! 10⁻² and 10⁻¹, and the advantage ([`super::tradeoff`]). `privpost run` writes them;
//! `account --manifest` recomputes them from the events and refuses a record that
//! shows the attacker weaker than the recomputed curve does.
//!
//! Why per release and not per entry: a chain's checkpoints are entries of one
//! release (the ledger's own grouping, [`release_of`]), and a paper-scale ledger can
//! hold thousands of them (heikkila2019 fig3: 1,838 entries, 5 releases), each curve
//! costing up to seconds. Releases with the same event share one curve.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::event::Event;
use super::ledger::Entry;
use super::tradeoff::{Curve, Method, TprAtFpr};

/// The FPRs whose TPR a manifest records.
pub const RECORDED_FPRS: [f64; 3] = [1e-3, 1e-2, 1e-1];

/// The relative tolerance of the recheck (the numbers are recomputed by the same
/// code; the tolerance allows another platform's last bits).
pub const RECHECK_TOLERANCE: f64 = 1e-6;

/// The key of a series label that marks a running checkpoint of one chain: the
/// entries that differ only in it are one release, made at the last checkpoint.
const CHECKPOINT_KEYS: [&str; 1] = ["iteration"];

/// A series label without its checkpoint pair, and the checkpoint's value.
pub fn release_of(series: &str) -> (String, Option<f64>) {
    let mut at = None;
    let kept: Vec<&str> = series
        .split(',')
        .map(str::trim)
        .filter(|p| {
            let checkpoint = p.split_once('=').and_then(|(k, v)| {
                CHECKPOINT_KEYS
                    .contains(&k.trim())
                    .then(|| v.trim().parse::<f64>().ok())
                    .flatten()
            });
            if let Some(v) = checkpoint {
                at = Some(v);
            }
            checkpoint.is_none()
        })
        .collect();
    (kept.join(", "), at)
}

/// The releases of a ledger in order of first appearance: each release's label and
/// the index of the entry that stands for it (its last checkpoint; of equal
/// checkpoints, the later entry).
pub fn releases(entries: &[Entry]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize, Option<f64>)> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let (series, at) = release_of(&e.series);
        match out.iter_mut().find(|r| r.0 == series) {
            Some(r) => {
                if at.unwrap_or(f64::NEG_INFINITY) >= r.2.unwrap_or(f64::NEG_INFINITY) {
                    (r.1, r.2) = (i, at);
                }
            }
            None => out.push((series, i, at)),
        }
    }
    out.into_iter().map(|(s, i, _)| (s, i)).collect()
}

/// The attack risk of one release, as a manifest records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReleaseRisk {
    /// The release (its series without the checkpoint).
    pub release: String,
    /// The ledger entry that stands for it.
    pub entry: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<Method>,
    /// The safe μ over error rates ≥ 10⁻¹⁰; absent when the curve is already below
    /// 10⁻¹⁰ there (an attacker that almost never errs) or not computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mu: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regret: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tpr_at_fpr: Vec<TprAtFpr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advantage: Option<f64>,
    /// Why there is no curve (the numbers above are then absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_computed: Option<String>,
}

impl ReleaseRisk {
    fn of(release: String, entry: String, event: &Event) -> Self {
        let mut r = ReleaseRisk {
            release,
            entry,
            method: None,
            mu: None,
            regret: None,
            tpr_at_fpr: Vec::new(),
            advantage: None,
            not_computed: None,
        };
        match Curve::of_event(event) {
            Ok(curve) => {
                let mu = curve.mu();
                r.method = Some(curve.method);
                r.mu = mu;
                r.regret = mu.map(|m| curve.regret(m));
                r.tpr_at_fpr = RECORDED_FPRS
                    .iter()
                    .map(|&fpr| TprAtFpr {
                        fpr,
                        tpr: curve.tpr(fpr),
                    })
                    .collect();
                r.advantage = Some(curve.advantage());
            }
            Err(why) => r.not_computed = Some(why.0),
        }
        r
    }

    /// The TPR recorded at `fpr`.
    pub fn tpr(&self, fpr: f64) -> Option<f64> {
        self.tpr_at_fpr.iter().find(|t| t.fpr == fpr).map(|t| t.tpr)
    }

    /// Why this record shows the attacker weaker than `recomputed` does (a smaller
    /// TPR, advantage or μ beyond [`RECHECK_TOLERANCE`]), or cannot be rechecked;
    /// `None` when it holds. A record that claims nothing (not computed) holds.
    pub fn understates(&self, recomputed: &ReleaseRisk) -> Option<String> {
        if self.not_computed.is_some() {
            return None;
        }
        if let Some(why) = &recomputed.not_computed {
            return Some(format!(
                "{}: its recorded attack risk cannot be rechecked: {why}",
                self.release
            ));
        }
        let below = |recorded: f64, again: f64| {
            again > recorded * (1.0 + RECHECK_TOLERANCE) + RECHECK_TOLERANCE * 1e-6
        };
        let mut short = Vec::new();
        for t in &recomputed.tpr_at_fpr {
            match self.tpr(t.fpr) {
                Some(r) if !below(r, t.tpr) => {}
                r => short.push(format!(
                    "TPR at FPR {} recorded {}, recomputed {}",
                    t.fpr,
                    r.map_or("nothing".into(), |v| v.to_string()),
                    t.tpr
                )),
            }
        }
        if let (Some(r), Some(a)) = (self.advantage, recomputed.advantage) {
            if below(r, a) {
                short.push(format!("advantage recorded {r}, recomputed {a}"));
            }
        }
        // an absent μ is the largest claim (the attacker almost never errs)
        if let (Some(r), Some(a)) = (self.mu, recomputed.mu) {
            if below(r, a) {
                short.push(format!("μ recorded {r}, recomputed {a}"));
            }
        }
        (!short.is_empty()).then(|| {
            format!(
                "{}: the recorded attack risk shows the attacker weaker than its event allows ({})",
                self.release,
                short.join("; ")
            )
        })
    }
}

/// The attack risk of every private release of `entries` (non-private baselines have
/// none), in release order; releases with the same event share one curve, and the
/// curves are computed in parallel (the order of the answer does not depend on it).
pub fn release_risks(entries: &[Entry]) -> Vec<ReleaseRisk> {
    let private: Vec<(String, usize)> = releases(entries)
        .into_iter()
        .filter(|(_, i)| !matches!(entries[*i].event, Event::NonPrivate))
        .collect();
    let key = |i: usize| serde_json::to_string(&entries[i].event).unwrap_or_default();
    let mut distinct: Vec<(String, usize)> = Vec::new();
    for (_, i) in &private {
        let k = key(*i);
        if !distinct.iter().any(|(d, _)| *d == k) {
            distinct.push((k, *i));
        }
    }
    let computed: Vec<ReleaseRisk> = distinct
        .par_iter()
        .map(|(_, i)| ReleaseRisk::of(String::new(), String::new(), &entries[*i].event))
        .collect();
    private
        .into_iter()
        .map(|(release, i)| {
            let k = key(i);
            let at = distinct.iter().position(|(d, _)| *d == k).expect("listed");
            ReleaseRisk {
                release,
                entry: entries[i].series.clone(),
                ..computed[at].clone()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::event::Guarantee;

    fn entry(series: &str, sigma: f64) -> Entry {
        let event = Event::Gaussian {
            l2_sensitivity: 1.0,
            sigma,
            rdp_scale: 0.5,
        };
        Entry::new(series, event, Guarantee::PureDp { epsilon: 1.0 })
    }

    #[test]
    fn checkpoints_are_one_release() {
        assert_eq!(
            release_of("method=dp_mcmc, iteration=200"),
            ("method=dp_mcmc".into(), Some(200.0))
        );
        assert_eq!(
            release_of("method=x, epsilon=1"),
            ("method=x, epsilon=1".into(), None)
        );
        let entries = vec![
            entry("m=a, iteration=10", 4.0),
            entry("m=b", 2.0),
            entry("m=a, iteration=20", 3.0),
            entry("m=a, iteration=15", 1.0),
        ];
        assert_eq!(
            releases(&entries),
            vec![("m=a".to_string(), 2), ("m=b".to_string(), 1)]
        );
    }

    /// The recorded numbers are the curve's; shared events share them; a record that
    /// understates the attacker is named, one that overstates it holds.
    #[test]
    fn risks_are_recorded_per_release_and_rechecked() {
        let mut entries = vec![
            entry("m=a, iteration=10", 4.0),
            entry("m=b", 2.0),
            entry("m=a, iteration=20", 2.0),
        ];
        entries.push(Entry::new(
            "m=none",
            Event::NonPrivate,
            Guarantee::PureDp { epsilon: 0.0 },
        ));
        let risks = release_risks(&entries);
        assert_eq!(risks.len(), 2);
        assert_eq!(risks[0].entry, "m=a, iteration=20");
        assert_eq!(risks[0].mu, Some(0.5));
        assert_eq!(risks[0].method, Some(Method::GaussianExact));
        let tpr = risks[0].tpr(1e-2).expect("recorded");
        assert!((tpr - (1.0 - super::super::tradeoff::gaussian_beta(0.5, 1e-2))).abs() < 1e-15);
        assert_eq!(risks[1].tpr_at_fpr, risks[0].tpr_at_fpr);
        assert!(risks[0].understates(&risks[1]).is_none());
        let mut low = risks[0].clone();
        low.tpr_at_fpr[1].tpr *= 0.99;
        low.mu = Some(0.4);
        let why = low.understates(&risks[0]).expect("understated");
        assert!(
            why.contains("TPR at FPR 0.01") && why.contains("μ recorded 0.4"),
            "{why}"
        );
        let mut high = risks[0].clone();
        high.advantage = Some(0.9);
        assert!(high.understates(&risks[0]).is_none());
        // serialised and read back bit for bit
        let text = serde_json::to_string(&risks).expect("json");
        let back: Vec<ReleaseRisk> = serde_json::from_str(&text).expect("reads");
        assert_eq!(back, risks);
    }
}
