//! `api::verify_ledger`: a run's privacy ledger re-verified. Every entry's
//! claim is recomputed from its event; the entries are then grouped into the
//! figure's releases and the compositions its manifest declares. The CLI's
//! `account --manifest` prints the answer; a claim that does not hold is in
//! the answer (`holds: false`), not an error, so that every entry is shown.
//!
//! Releases: entries that differ only in a running checkpoint (`iteration`)
//! are one chain, released at its last checkpoint (earlier checkpoints are not
//! composed with it); other entries are alternatives (methods, ε, data) and
//! are not composed with each other. Entries the manifest tags as released
//! together (`released_with`) are composed by basic composition.
//!
//! Attack risk: each private release's trade-off numbers (μ, TPR at FPR,
//! advantage; `privacy::release_risk`) are recomputed from its event and
//! set beside the ones the manifest recorded; a record that shows the attacker
//! weaker than the recomputed curve does not hold.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::account::{verify, Verification};
use super::error::ApiError;
use crate::privacy::event::{Event, Guarantee};
use crate::privacy::ledger::Entry;
use crate::privacy::release_risk::{release_of, release_risks, ReleaseRisk};
use crate::results::manifest::{read_value, Manifest};

/// One ledger entry: its claim beside the ε recomputed from its event (the
/// check `account` makes of one entry), and its composition tag.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntryCheck {
    #[serde(flatten)]
    pub verification: Verification,
    pub released_with: Option<String>,
}

/// One release of the figure: a series, at its last checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Release {
    /// The series label without its checkpoint.
    pub series: String,
    /// The label of the entry that stands for the release (its last checkpoint).
    pub entry: String,
    /// How many entries (checkpoints of one chain) the release has.
    pub checkpoints: usize,
    /// The iteration of the last checkpoint, when the series has one.
    #[serde(skip)]
    pub at: Option<f64>,
    /// False for a non-private baseline.
    pub private: bool,
    pub guarantee: Guarantee,
    /// ε of the guarantee (absent for a non-private baseline).
    pub epsilon: Option<f64>,
    pub delta: f64,
    /// Whether its claim holds.
    #[serde(skip)]
    pub holds: bool,
}

/// The basic composition of the entries tagged as released together.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Composed {
    pub released_with: String,
    /// The series labels of its entries.
    pub entries: Vec<String>,
    pub epsilon: f64,
    pub delta: f64,
}

/// One private release's attack risk: recomputed from its event, beside the record
/// the manifest holds for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RiskCheck {
    #[serde(flatten)]
    pub recomputed: ReleaseRisk,
    /// What the manifest recorded (absent in manifests written before privpost
    /// recorded attack risks).
    pub recorded: Option<ReleaseRisk>,
    /// False when the record shows the attacker weaker than the recomputed curve, or
    /// a manifest that records attack risks has none for this release.
    pub holds: bool,
    pub reason: Option<String>,
}

/// The answer of [`verify_ledger`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgerCheck {
    /// The manifest file read.
    #[serde(skip)]
    pub file: String,
    pub entries: Vec<EntryCheck>,
    pub releases: Vec<Release>,
    pub composed: Vec<Composed>,
    /// Whether the manifest records attack risks at all.
    pub attack_risk_recorded: bool,
    pub attack_risk: Vec<RiskCheck>,
}

impl LedgerCheck {
    /// The reasons of the claims that do not hold, in ledger order, then those of
    /// the attack-risk records.
    pub fn failures(&self) -> Vec<&str> {
        self.entries
            .iter()
            .filter_map(|e| e.verification.reason.as_deref())
            .chain(self.attack_risk.iter().filter_map(|r| r.reason.as_deref()))
            .collect()
    }
}

/// The recomputed attack risks beside the recorded ones (`recorded` is `None` for a
/// manifest that records none).
fn check_risks(entries: &[Entry], recorded: Option<&[ReleaseRisk]>) -> Vec<RiskCheck> {
    release_risks(entries)
        .into_iter()
        .map(|recomputed| {
            let record = recorded.and_then(|r| r.iter().find(|x| x.entry == recomputed.entry));
            let reason = match (recorded, record) {
                (None, _) => None,
                (Some(_), None) => Some(format!(
                    "{}: the manifest records attack risks but none for this release",
                    recomputed.release
                )),
                (Some(_), Some(r)) => r.understates(&recomputed),
            };
            RiskCheck {
                holds: reason.is_none(),
                reason,
                recorded: record.cloned(),
                recomputed,
            }
        })
        .collect()
}

/// The ledger entries of a manifest file or folder: read as a manifest is (a
/// size cap, no pipe found in a folder, no key twice), then typed — a whole
/// manifest, or a ledger alone (`{"privacy": [...]}`) — with the attack risks it
/// records (`None` when it records none).
type Read = (Vec<Entry>, Option<Vec<ReleaseRisk>>);

fn read_entries(path: &Path, file: &str) -> Result<Read, ApiError> {
    let (_, value) = read_value(path).map_err(|e| {
        if e.missing {
            ApiError::not_found("manifest", e.path.clone(), e.to_string())
        } else {
            ApiError::input("manifest", e.to_string())
        }
    })?;
    if let Ok(manifest) = serde_json::from_value::<Manifest>(value.clone()) {
        let risks = (!manifest.attack_risk.is_empty()).then_some(manifest.attack_risk);
        return Ok((manifest.privacy, risks));
    }
    #[derive(Deserialize)]
    struct Ledger {
        privacy: Option<Vec<Entry>>,
        attack_risk: Option<Vec<ReleaseRisk>>,
    }
    let ledger: Ledger = serde_json::from_value(value).map_err(|e| {
        ApiError::input("manifest", format!("{file}: key `privacy`: {e}")).with_key("privacy")
    })?;
    let risks = ledger.attack_risk.filter(|r| !r.is_empty());
    let entries = ledger.privacy.ok_or_else(|| {
        ApiError::input("manifest", format!(
            "{file}: no `privacy` ledger (allowed: a manifest.json written by `privpost run`, or an object with its `privacy` list)"
        )).with_key("privacy")
    })?;
    Ok((entries, risks))
}

/// Every ledger entry of the manifest at `path` (a file, or a figure's folder)
/// re-verified, its releases and declared compositions (see the module header).
pub fn verify_ledger(path: &Path) -> Result<LedgerCheck, ApiError> {
    // a figure's folder stands for its manifest, as `show` and `infer` take it
    let file = if path.is_dir() {
        path.join("manifest.json")
    } else {
        path.to_path_buf()
    }
    .display()
    .to_string();
    let (entries, recorded) = read_entries(path, &file)?;
    let mut checks = Vec::new();
    // releases in order of first appearance
    let mut releases: Vec<Release> = Vec::new();
    for e in &entries {
        let verification = verify(e);
        let (ce, cd) = (verification.claim_epsilon, verification.claim_delta);
        let holds = verification.holds;
        checks.push(EntryCheck {
            verification,
            released_with: e.released_with.clone(),
        });
        let (series, at) = release_of(&e.series);
        let private = !matches!(e.event, Event::NonPrivate);
        let release = Release {
            series: series.clone(),
            entry: e.series.clone(),
            checkpoints: 1,
            at,
            private,
            guarantee: e.guarantee.clone(),
            epsilon: private.then_some(ce),
            delta: cd,
            holds,
        };
        match releases.iter_mut().find(|r| r.series == series) {
            Some(r) => {
                let checkpoints = r.checkpoints + 1;
                if at.unwrap_or(f64::NEG_INFINITY) >= r.at.unwrap_or(f64::NEG_INFINITY) {
                    *r = release;
                }
                r.checkpoints = checkpoints;
            }
            None => releases.push(release),
        }
    }
    // compositions: only across entries tagged as released together
    let mut composed: Vec<Composed> = Vec::new();
    for e in &entries {
        let Some(tag) = &e.released_with else {
            continue;
        };
        let (eps, delta) = e.guarantee.epsilon_delta();
        match composed.iter_mut().find(|g| &g.released_with == tag) {
            Some(g) => {
                g.entries.push(e.series.clone());
                g.epsilon += eps;
                g.delta += delta;
            }
            None => composed.push(Composed {
                released_with: tag.clone(),
                entries: vec![e.series.clone()],
                epsilon: eps,
                delta,
            }),
        }
    }
    Ok(LedgerCheck {
        file,
        attack_risk_recorded: recorded.is_some(),
        attack_risk: check_risks(&entries, recorded.as_deref()),
        entries: checks,
        releases,
        composed,
    })
}

#[cfg(test)]
mod tests {
    use super::verify_ledger;

    #[test]
    fn a_reference_manifest_verifies_typed() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/reference/manifests/e1b8e2a-foulds2016-fig2.json");
        let check = verify_ledger(&path).expect("reads");
        assert!(!check.entries.is_empty());
        assert!(check
            .entries
            .iter()
            .all(|e| e.verification.holds && e.verification.reason.is_none()));
        assert!(check.failures().is_empty());
        // no checkpoints: one release per entry, and nothing composed
        assert_eq!(check.releases.len(), check.entries.len());
        assert!(check.composed.is_empty());
        // written before attack risks were recorded: recomputed, nothing to hold against
        assert!(!check.attack_risk_recorded);
        assert!(!check.attack_risk.is_empty());
        assert!(check
            .attack_risk
            .iter()
            .all(|r| r.holds && r.recorded.is_none() && r.recomputed.advantage.is_some()));
        // an infer manifest has no figure ledger: refused, naming the key
        let infer = path.with_file_name("e1b8e2a-infer.json");
        let e = verify_ledger(&infer).expect_err("no figure ledger");
        assert_eq!(e.argument, Some("manifest"));
        let missing = verify_ledger(&path.with_file_name("none.json")).expect_err("missing");
        assert_eq!(missing.kind, crate::api::ErrorKind::NotFound);
    }
}
