//! `audit/mechanisms`: every mechanism privpost releases with, audited on worst-case
//! neighbouring datasets — exactly where its output distributions are known, by
//! sampling where they are not — plus deliberately broken variants that the audit
//! must fail. Written like any figure (one task per audit and variant, CSVs, a
//! figure, a manifest); `privpost audit` runs it.
//!
//! `data.csv` is long ("tidy"): one row per (audit, method, variant, item) with the
//! item's value (`claim_epsilon`, `audited`, …). The task rows also carry one
//! `score_d` / `score_d_prime` row per draw of a statistical audit; those go only
//! into `scores-<audit>-<method>-<variant>.csv`, the raw scores of each
//! statistical audit in the form external auditors read (`label` 1 = drawn on D,
//! 0 = drawn on D′; a high `score` suggests D), not into data.csv: written once,
//! not twice. `summary.csv` is the audit table (one row per audit).

pub mod mechanisms;
pub mod plot;
mod summary;
mod tradeoff;

use std::collections::HashMap;

use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

use self::mechanisms::{Claim, Logistic, Outcome, Settings};
use crate::config::{deserialize, ParamError};
use crate::experiments::Figure;
use crate::expfam::mechanisms::Algorithm;
use crate::privacy::curve_audit::curve_audit;
use crate::privacy::event::NoiseMode;
use crate::privacy::event::{Event, Guarantee};
use crate::privacy::ledger::{Entry, Ledger};
use crate::results::record::{columns, to_row};
use crate::results::table::{Cell, Row, Table};

mod defs;
pub use defs::{audit_ids, DEFS};
pub use summary::AuditSummary;
pub use tradeoff::{audit_curves, AuditCurve, TradeoffRow, TRADEOFF_FILE};

/// How an audit computes the privacy loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Exact,
    Statistical,
    /// Whether each output drawn can come from the other neighbour at all
    /// (the floating-point attack, [`crate::privacy::float_attack`]).
    Reachability,
}

privpost_core::names::name_table!(Method {
    Exact => "exact",
    Statistical => "statistical",
    Reachability => "reachability",
});

/// Runs one audit of a variant ("real" or a broken variant's name).
type Run = fn(&str, &Settings, &mut ChaCha8Rng) -> Outcome;

/// One audit: a mechanism, a method, its broken variants and how to run it.
pub struct Def {
    pub id: &'static str,
    pub method: Method,
    pub mechanism: &'static str,
    pub paper: &'static str,
    /// Broken variants (each must FAIL); "real" is always audited.
    pub broken: &'static [&'static str],
    run: Run,
    /// Relative work of one task (for `--shard` balancing), per draw or fixed.
    cost: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AuditConfig {
    /// audit ids (see `privpost audit --list`), or ["all"]
    audits: Vec<String>,
    /// also audit the deliberately broken variants (which must FAIL)
    broken: bool,
    /// draws per neighbour of a statistical audit
    draws: u64,
    confidence: f64,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<AuditConfig>;

/// The most draws per neighbour a statistical audit may take (memory: 16 bytes each).
pub const MAX_DRAWS: u64 = 10_000_000;

/// The audit figure: one task per (audit, variant).
pub struct Audits {
    tasks: Vec<(&'static Def, &'static str)>,
    settings: Settings,
    seed: u64,
}

pub fn build(params: &toml::Table, seed: u64) -> Result<Box<dyn Figure>, ParamError> {
    let c: AuditConfig = deserialize(params)?;
    let ids = audit_ids();
    crate::config::check::non_empty("audits", &c.audits)?;
    let all = c.audits.iter().any(|a| a == "all");
    for a in &c.audits {
        if a != "all" && !ids.contains(&a.as_str()) {
            return Err(ParamError::new(
                "audits",
                format!("{a:?}"),
                format!("\"all\" or audit ids: {}", ids.join(", ")),
            ));
        }
    }
    if !(1000..=MAX_DRAWS).contains(&c.draws) {
        return Err(ParamError::new(
            "draws",
            c.draws.to_string(),
            format!("1000 to {MAX_DRAWS} draws per neighbour"),
        ));
    }
    if !(c.confidence > 0.5 && c.confidence < 1.0) {
        return Err(ParamError::new(
            "confidence",
            c.confidence.to_string(),
            "a level in (0.5, 1), e.g. 0.95",
        ));
    }
    let mut tasks = Vec::new();
    for d in DEFS {
        if all || c.audits.iter().any(|a| a == d.id) {
            tasks.push((d, "real"));
            if c.broken {
                tasks.extend(d.broken.iter().map(|&b| (d, b)));
            }
        }
    }
    Ok(Box::new(Audits {
        tasks,
        settings: Settings {
            draws: c.draws as usize,
            confidence: c.confidence,
        },
        seed,
    }))
}

/// A row of `data.csv`, one item of an audit per row: `claim` (its kind in
/// `text`), `claim_epsilon`, `claim_delta`, `order`, `audited`, `estimate`,
/// `ci_low`, `ci_high`, `draws`, `tolerance`, `witness` (in `text`), and the draws'
/// scores (`score_d`, `score_d_prime`, moved to the scores files when written).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AuditRow {
    pub audit: String,
    pub method: String,
    pub variant: String,
    pub item: String,
    pub value: Option<Value>,
    pub text: String,
}

/// The items holding the draws' scores.
const SCORES: [&str; 2] = ["score_d", "score_d_prime"];

/// Cell `c` of a data row as text (the audit, method and variant columns).
fn text<'r>(data: &Table, row: &'r [Cell], c: usize) -> anyhow::Result<&'r str> {
    match row.get(c) {
        Some(Cell::Str(s)) => Ok(s.as_str()),
        other => anyhow::bail!("data.csv: {} is {other:?}, not text", data.header[c]),
    }
}

/// A data row's score label (1 for `score_d`, 0 for `score_d_prime`), or `None`
/// for the other items, read from the `item` cell (the fourth of [`AuditRow`]).
fn score_label(data: &Table, row: &[Cell]) -> Option<i64> {
    debug_assert_eq!(data.header.get(3).map(String::as_str), Some("item"));
    match row.get(3) {
        Some(Cell::Str(s)) if s == SCORES[0] => Some(1),
        Some(Cell::Str(s)) if s == SCORES[1] => Some(0),
        _ => None,
    }
}

/// An item's number: a count (`draws`) or a real value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Count(u64),
    Real(f64),
}

impl Value {
    pub fn get(self) -> f64 {
        match self {
            Value::Count(n) => n as f64,
            Value::Real(x) => x,
        }
    }
}

impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Value::Count(n) => s.serialize_u64(n),
            Value::Real(x) => s.serialize_f64(x),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Value;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a count or a number")
            }
            fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
                Ok(Value::Count(n))
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Value, E> {
                Ok(Value::Real(n as f64))
            }
            fn visit_f64<E>(self, x: f64) -> Result<Value, E> {
                Ok(Value::Real(x))
            }
            fn visit_str<E: serde::de::Error>(self, t: &str) -> Result<Value, E> {
                crate::results::table::parse_f64(t)
                    .map(Value::Real)
                    .ok_or_else(|| E::custom(format!("`{t}` is not a number")))
            }
        }
        d.deserialize_any(V)
    }
}

/// Every audit's items but the draws' scores (millions of rows at paper scale, not
/// read here), by (audit, method, variant).
fn items(data: &Table) -> anyhow::Result<HashMap<(String, String, String), Vec<AuditRow>>> {
    let mut items: HashMap<(String, String, String), Vec<AuditRow>> = HashMap::new();
    let others = Table {
        header: data.header.clone(),
        rows: data
            .rows
            .iter()
            .filter(|r| score_label(data, r).is_none())
            .cloned()
            .collect(),
    };
    for r in others.record_iter::<AuditRow>()? {
        let r = r?;
        items
            .entry((r.audit.clone(), r.method.clone(), r.variant.clone()))
            .or_default()
            .push(r);
    }
    Ok(items)
}

/// The claim an audit's items state (`claim`, `claim_epsilon`, `claim_delta`, `order`).
fn claim_of(items: &[AuditRow]) -> anyhow::Result<Claim> {
    let num = |name: &str| -> anyhow::Result<f64> {
        items
            .iter()
            .find(|r| r.item == name)
            .and_then(|r| r.value)
            .map(Value::get)
            .ok_or_else(|| anyhow::anyhow!("data.csv: no `{name}` row"))
    };
    let kind = items
        .iter()
        .find(|r| r.item == "claim")
        .map(|r| r.text.as_str());
    let epsilon = num("claim_epsilon")?;
    Ok(match kind {
        Some("pure") => Claim::Pure { epsilon },
        Some("approx") => Claim::Approx {
            epsilon,
            delta: num("claim_delta")?,
        },
        Some("rdp") => Claim::Rdp {
            order: num("order")?,
            epsilon,
        },
        other => anyhow::bail!("data.csv: claim {other:?} (allowed: pure, approx, rdp)"),
    })
}

/// The scores file of an audit (statistical audits only).
pub fn scores_file(audit: &str, method: &str, variant: &str) -> String {
    format!("scores-{audit}-{method}-{variant}.csv")
}

/// FAIL iff the audited value (exact, or the lower confidence bound) exceeds the
/// claim beyond the exact computation's tolerance.
pub fn verdict(audited: f64, claim: f64, tolerance: f64) -> &'static str {
    if audited > claim * (1.0 + tolerance) + 1e-12 {
        "FAIL"
    } else {
        "PASS"
    }
}

impl Figure for Audits {
    fn task_count(&self) -> usize {
        self.tasks.len()
    }

    fn grid_description(&self) -> String {
        let broken = self.tasks.iter().filter(|t| t.1 != "real").count();
        format!(
            "{} audits ({} of deliberately broken variants), {} draws per neighbour for statistical ones",
            self.tasks.len(),
            broken,
            self.settings.draws
        )
    }

    fn task_cost(&self, index: usize) -> f64 {
        let d = self.tasks[index].0;
        match d.method {
            Method::Exact => d.cost,
            Method::Statistical | Method::Reachability => d.cost * self.settings.draws as f64,
        }
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let (def, variant) = self.tasks[index];
        let o = (def.run)(variant, &self.settings, rng);
        let key = |item: &str, value: Option<Value>, text: &str| -> Row {
            to_row(&AuditRow {
                audit: def.id.into(),
                method: def.method.as_str().into(),
                variant: variant.into(),
                item: item.into(),
                value,
                text: text.into(),
            })
        };
        let real = |x: f64| Some(Value::Real(x));
        let mut rows = vec![
            key("claim", None, o.claim.kind()),
            key("claim_epsilon", real(o.claim.epsilon()), ""),
            key("claim_delta", real(o.claim.delta()), ""),
            key("order", real(o.claim.order()), ""),
            key("audited", real(o.audited), ""),
            key("estimate", real(o.estimate), ""),
            key("ci_low", real(o.ci_low), ""),
            key("draws", Some(Value::Count(o.draws as u64)), ""),
            key("tolerance", real(o.tolerance), ""),
            key("witness", None, &o.witness),
        ];
        if let Some(h) = o.ci_high {
            rows.push(key("ci_high", real(h), ""));
        }
        if let Some((on_d, on_d2)) = &o.scores {
            rows.extend(on_d.iter().map(|&v| key("score_d", real(v), "")));
            rows.extend(on_d2.iter().map(|&v| key("score_d_prime", real(v), "")));
        }
        Ok(rows)
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let items = items(data)?;
        let mut rows = Vec::new();
        for (index, (def, variant)) in self.tasks.iter().enumerate() {
            let key = (
                def.id.to_string(),
                def.method.as_str().to_string(),
                variant.to_string(),
            );
            let mine = items.get(&key).map(Vec::as_slice).unwrap_or_default();
            let find = |name: &str| mine.iter().find(|r| r.item == name);
            let num = |name: &str| find(name).map(|r| r.value.map_or(f64::NAN, Value::get));
            let txt = |name: &str| find(name).map(|r| r.text.clone()).unwrap_or_default();
            let need = |name: &str| {
                num(name).ok_or_else(|| {
                    anyhow::anyhow!("data.csv: no `{name}` row for audit {} {}", def.id, variant)
                })
            };
            let claim_eps = need("claim_epsilon")?;
            let audited = need("audited")?;
            let tolerance = need("tolerance")?;
            let expected = if *variant == "real" { "PASS" } else { "FAIL" };
            let verdict = verdict(audited, claim_eps, tolerance);
            let ratio = if claim_eps > 0.0 {
                audited / claim_eps
            } else {
                f64::INFINITY
            };
            let statistical = def.method == Method::Statistical;
            rows.push(AuditSummary {
                audit: def.id.into(),
                method: def.method.as_str().into(),
                variant: (*variant).into(),
                expected: expected.into(),
                verdict: verdict.into(),
                as_expected: (verdict == expected).to_string(),
                paper: def.paper.into(),
                mechanism: def.mechanism.into(),
                claim: txt("claim"),
                claim_epsilon: claim_eps,
                claim_delta: need("claim_delta")?,
                order: need("order")?,
                audited_epsilon: audited,
                estimate_epsilon: need("estimate")?,
                ci_low_epsilon: need("ci_low")?,
                ci_high_epsilon: num("ci_high"),
                epsilon_ratio: ratio,
                draws: need("draws")?.max(0.0) as u64,
                confidence: statistical.then_some(self.settings.confidence),
                seed: statistical.then_some(self.seed),
                stream: statistical.then_some(index as u64),
                tolerance,
                witness: txt("witness"),
                scores_file: statistical.then(|| scores_file(def.id, def.method.as_str(), variant)),
            });
        }
        Ok(Table::of_records(&rows))
    }

    /// The draws' scores are in the `scores-*.csv` files: data.csv keeps the
    /// other items (claims, audited values, witnesses), one file per score.
    fn written_data(&self, data: Table) -> Table {
        let Some(item) = data
            .header
            .iter()
            .position(|h| h == columns::<AuditRow>()[3])
        else {
            return data;
        };
        let rows = data
            .rows
            .into_iter()
            .filter(|r| !matches!(&r[item], Cell::Str(s) if SCORES.contains(&s.as_str())))
            .collect();
        Table {
            header: data.header,
            rows,
        }
    }

    fn side_tables(&self, data: &Table) -> anyhow::Result<Vec<(String, Table)>> {
        #[derive(serde::Serialize, serde::Deserialize)]
        struct Score {
            label: i64,
            score: f64,
        }
        // read cell by cell: a row per draw, millions at paper scale
        let mut scores: HashMap<(&str, &str, &str), Vec<Score>> = HashMap::new();
        for r in &data.rows {
            let Some(label) = score_label(data, r) else {
                continue;
            };
            let score = match r.get(4) {
                Some(Cell::Float(x)) => *x,
                Some(Cell::Int(n)) => *n as f64,
                Some(Cell::Empty) | None => f64::NAN,
                Some(Cell::Str(s)) => anyhow::bail!("data.csv: a score is {s:?}, not a number"),
            };
            scores
                .entry((text(data, r, 0)?, text(data, r, 1)?, text(data, r, 2)?))
                .or_default()
                .push(Score { label, score });
        }
        let items = items(data)?;
        let mut out = Vec::new();
        let mut points = Vec::new();
        for (def, variant) in &self.tasks {
            if def.method != Method::Statistical {
                continue;
            }
            let key = (def.id, def.method.as_str(), *variant);
            let rows = scores.get(&key).map(Vec::as_slice).unwrap_or_default();
            // the points `audit --samples` finds in the scores file (both orientations)
            let owned = (key.0.to_string(), key.1.to_string(), key.2.to_string());
            let claim = claim_of(items.get(&owned).map(Vec::as_slice).unwrap_or_default())
                .map_err(|e| anyhow::anyhow!("audit {} {}: {e}", def.id, variant))?;
            let pick = |label: i64| -> Vec<f64> {
                rows.iter()
                    .filter(|r| r.label == label)
                    .map(|r| r.score)
                    .collect()
            };
            let (on_d, on_d2) = (pick(1), pick(0));
            if !on_d.is_empty() && !on_d2.is_empty() {
                let found = curve_audit(
                    &on_d,
                    &on_d2,
                    &claim.curve(),
                    self.settings.confidence,
                    false,
                );
                points.extend(found.points.into_iter().map(|p| TradeoffRow {
                    audit: def.id.into(),
                    method: def.method.as_str().into(),
                    variant: (*variant).into(),
                    claim: claim.kind().into(),
                    claim_epsilon: claim.epsilon(),
                    claim_delta: claim.delta(),
                    order: claim.order(),
                    test: p.test,
                    fpr: p.fpr,
                    fpr_upper: p.fpr_upper,
                    tpr: p.tpr,
                    tpr_lower: p.tpr_lower,
                    claimed_tpr: p.claimed_tpr,
                    below_claim: p.below_claim,
                    mu_lower: p.mu_lower,
                    level_each: found.level_each,
                }));
            }
            out.push((
                scores_file(def.id, def.method.as_str(), variant),
                Table::of_records(rows),
            ));
        }
        if !points.is_empty() {
            out.push((TRADEOFF_FILE.to_string(), Table::of_records(&points)));
        }
        Ok(out)
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "draws_per_neighbour": self.settings.draws,
            "confidence": self.settings.confidence,
            "verdict": "FAIL iff the exact value (beyond its quadrature tolerance) or the statistical lower confidence bound exceeds the claim",
            "statistical": "threshold on the likelihood-ratio score chosen on the first half of the draws, Clopper–Pearson bounds on the second (Jagielski et al. 2020; Nasr et al. 2021); RDP claims: the Rényi divergence estimated from the draws with exact density ratios, normal interval",
            "scores": "scores-<audit>-<method>-<variant>.csv: label 1 = drawn on D, 0 = on D′; higher score suggests D (jax_privacy CanaryScoreAuditor: in = label 1, out = label 0)",
            "audits": self.tasks.iter().map(|(d, v)| format!("{} {} {}", d.id, d.method.as_str(), v)).collect::<Vec<_>>(),
        })
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        // an audit releases nothing about anyone: it runs each mechanism on synthetic
        // worst-case neighbouring datasets; the claims it checks are in summary.csv
        Ok(self
            .tasks
            .iter()
            .map(|(d, v)| {
                Entry::new(
                    format!("audit={}, method={}, variant={v}", d.id, d.method.as_str()),
                    Event::NonPrivate,
                    Guarantee::None,
                )
                .when("synthetic witness datasets only; the audited claim is in summary.csv")
            })
            .collect())
    }
}
