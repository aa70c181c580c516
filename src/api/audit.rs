//! `api::audit_samples`: a user's own mechanism audited from its outputs on a
//! neighbouring pair D, D′ (scores, or exact log density ratios), with the
//! built-in statistical audits' method ([`crate::privacy::audit::audit_scores`]).
//! A FAIL is an answer (`Verdict::passed` false), not an error. The CLI's
//! `audit --samples` and the Python module's `privpost.audit_samples` call it.

use std::path::Path;

use serde::{Serialize, Serializer};

use super::error::ApiError;
use crate::privacy::audit::{audit_scores, ScoreClaim, SCORE_TOLERANCE};
use crate::privacy::curve_audit::{curve_audit, CurveAudit};
use crate::results::table::parse_f64;

/// The fewest outputs of each of D and D′ an audit takes (the test is chosen
/// on one half and bounded on the other).
pub const MIN_PER_CLASS: usize = 20;

/// A mechanism's outputs: scores of the draws on D and on D′.
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    pub on_d: Vec<f64>,
    pub on_d_prime: Vec<f64>,
    /// How messages and the verdict name them (a file's path, or `samples`).
    pub source: String,
}

impl Samples {
    /// `label,score` CSV rows (label 1: drawn on D, 0: on D′), read from a file.
    pub fn read(path: &Path, log_ratio: bool) -> Result<Samples, ApiError> {
        if std::fs::symlink_metadata(path).is_err() {
            return Err(ApiError::not_found(
                "samples",
                path.to_path_buf(),
                format!(
                    "{}: no such file (allowed: a CSV file with columns label and score)",
                    path.display()
                ),
            ));
        }
        let bytes = crate::input::read_input(path, crate::input::MAX_TABLE_BYTES)
            .map_err(|e| ApiError::input("samples", e.to_string()))?;
        Samples::from_csv(&bytes, &path.display().to_string(), log_ratio)
    }

    /// `label,score` CSV bytes named `shown` in messages (line numbers are the file's own).
    pub fn from_csv(bytes: &[u8], shown: &str, log_ratio: bool) -> Result<Samples, ApiError> {
        let (on_d, on_d_prime) =
            parse_samples(bytes, shown, log_ratio).map_err(|m| ApiError::input("samples", m))?;
        Ok(Samples {
            on_d,
            on_d_prime,
            source: shown.to_string(),
        })
    }

    /// Two columns of equal length: `labels` (1 or true: drawn on D; 0 or
    /// false: on D′) and `scores`; a fault names its row (from 0).
    pub fn from_columns(
        labels: &[f64],
        scores: &[f64],
        log_ratio: bool,
    ) -> Result<Samples, ApiError> {
        if labels.len() != scores.len() {
            return Err(ApiError::input(
                "samples",
                format!(
                    "samples: {} labels but {} scores (allowed: columns of one length)",
                    labels.len(),
                    scores.len()
                ),
            ));
        }
        let (mut on_d, mut on_d_prime) = (Vec::new(), Vec::new());
        for (row, (&label, &score)) in labels.iter().zip(scores).enumerate() {
            let at = |column: &str, m: String| {
                ApiError::input(
                    "samples",
                    format!("samples: row {row}: column `{column}` = {m}"),
                )
                .with_key(column)
            };
            if score.is_nan() {
                return Err(at("score", "NaN; allowed: a number".into()));
            }
            let impossible = |on: &str, zero: &str| {
                at(
                    "score",
                    format!("{score} on {on}: a log ratio ln p(x)/p′(x) of a draw on {on} cannot have {zero} = 0; allowed: a finite log ratio, or {}", -score),
                )
            };
            match label {
                1.0 if log_ratio && score == f64::NEG_INFINITY => {
                    return Err(impossible("D", "p(x)"))
                }
                0.0 if log_ratio && score == f64::INFINITY => {
                    return Err(impossible("D′", "p′(x)"))
                }
                1.0 => on_d.push(score),
                0.0 => on_d_prime.push(score),
                other => {
                    return Err(at(
                        "label",
                        format!("{other}; allowed: 1 (drawn on D) or 0 (on D′)"),
                    ))
                }
            }
        }
        let s = Samples {
            on_d,
            on_d_prime,
            source: "samples".into(),
        };
        enough(&s.on_d, &s.on_d_prime, "samples").map_err(|m| ApiError::input("samples", m))?;
        Ok(s)
    }
}

/// At least [`MIN_PER_CLASS`] outputs of each class.
fn enough(on_d: &[f64], on_d2: &[f64], shown: &str) -> Result<(), String> {
    for (v, which) in [(on_d, "1 (outputs on D)"), (on_d2, "0 (outputs on D′)")] {
        if v.len() < MIN_PER_CLASS {
            return Err(format!(
                "{shown}: {} rows with label {which}; at least {MIN_PER_CLASS} of each class are needed (the test is chosen on one half and bounded on the other)",
                v.len()
            ));
        }
    }
    Ok(())
}

/// `label,score` rows of CSV bytes named `shown` in messages: scores on D
/// (label 1) and on D′ (label 0), in file order. Line numbers are the file's own
/// (blank lines counted). With `log_ratio` the scores are exact log density
/// ratios ln p(x)/p′(x), and a value no draw can have is refused: −∞ on D
/// (p(x) = 0 at a draw from p) or +∞ on D′.
fn parse_samples(
    bytes: &[u8],
    shown: &str,
    log_ratio: bool,
) -> Result<(Vec<f64>, Vec<f64>), String> {
    let mut r = csv::ReaderBuilder::new().flexible(true).from_reader(bytes);
    let header: Vec<String> = r
        .headers()
        .map_err(|e| format!("{shown}: line 1: {e}"))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let col = |n: &str| {
        header.iter().position(|h| h == n).ok_or_else(|| {
            format!("{shown}: line 1: no column `{n}` (the header has {}); allowed: columns label (1 = drawn on D, 0 = on D′) and score", header.join(","))
        })
    };
    let (lc, sc) = (col("label")?, col("score")?);
    let (mut on_d, mut on_d2) = (Vec::new(), Vec::new());
    for rec in r.records() {
        let rec = rec.map_err(|e| match e.position() {
            Some(p) => format!("{shown}: line {}: {e}", p.line()),
            None => format!("{shown}: {e}"),
        })?;
        let line = rec.position().map_or(0, |p| p.line());
        if rec.len() != header.len() {
            return Err(format!(
                "{shown}: line {line}: {} fields, expected {}",
                rec.len(),
                header.len()
            ));
        }
        let score = parse_f64(rec.get(sc).unwrap_or_default().trim())
            .filter(|x| !x.is_nan())
            .ok_or_else(|| {
                format!(
                    "{shown}: line {line}: column `score` = {:?} is not a number",
                    rec.get(sc).unwrap_or_default()
                )
            })?;
        let impossible = |inf: f64, on: &str, zero: &str| {
            format!(
                "{shown}: line {line}: column `score` = {inf} on {on}: with --log-ratio a score is ln p(x)/p′(x), and a draw on {on} cannot have {zero} = 0; allowed: a finite log ratio, or {} (the other density vanishes there)",
                -inf
            )
        };
        match rec.get(lc).unwrap_or_default().trim() {
            "1" if log_ratio && score == f64::NEG_INFINITY => {
                return Err(impossible(score, "D", "p(x)"))
            }
            "0" if log_ratio && score == f64::INFINITY => {
                return Err(impossible(score, "D′", "p′(x)"))
            }
            "1" => on_d.push(score),
            "0" => on_d2.push(score),
            other => return Err(format!("{shown}: line {line}: column `label` = {other:?}; allowed: 1 (drawn on D) or 0 (on D′)")),
        }
    }
    enough(&on_d, &on_d2, shown)?;
    Ok((on_d, on_d2))
}

/// A claim from its numbers: pure ε; (ε, δ) with `delta`; (α, ε)-RDP with
/// `order` (which needs `log_ratio`: Rényi divergence is audited from exact log
/// density ratios).
pub fn score_claim(
    epsilon: f64,
    delta: Option<f64>,
    order: Option<f64>,
    log_ratio: bool,
) -> Result<ScoreClaim, ApiError> {
    if !(epsilon.is_finite() && epsilon >= 0.0) {
        return Err(ApiError::input(
            "epsilon",
            format!("epsilon = {epsilon}: a finite ε ≥ 0"),
        ));
    }
    match (delta, order) {
        (Some(_), Some(_)) => Err(ApiError::input(
            "order",
            "delta and order together: a claim is (ε, δ) or (α, ε)-RDP, not both",
        )),
        (Some(d), None) if !(0.0..1.0).contains(&d) => {
            Err(ApiError::input("delta", format!("delta = {d}: 0 ≤ δ < 1")))
        }
        (Some(delta), None) => Ok(ScoreClaim::Approx { epsilon, delta }),
        (None, Some(a)) if !(a.is_finite() && a > 1.0) => {
            Err(ApiError::input("order", format!("order = {a}: a finite order > 1")))
        }
        (None, Some(_)) if !log_ratio => Err(ApiError::input(
            "order",
            "a Rényi claim (order) is audited from exact log density ratios: the scores must be ln p(x)/p′(x), said with log_ratio",
        )),
        (None, Some(order)) => Ok(ScoreClaim::Rdp { order, epsilon }),
        (None, None) => Ok(ScoreClaim::Pure { epsilon }),
    }
}

/// A number for JSON: infinities as the strings "inf" / "-inf" (JSON has no
/// infinity, and `null` would read as "no value").
fn finite_or_text<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    if x.is_finite() {
        s.serialize_f64(*x)
    } else {
        s.serialize_str(if *x > 0.0 { "inf" } else { "-inf" })
    }
}

/// What [`audit_samples`] found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// The samples' name (a file's path, or `samples`).
    pub file: String,
    pub claim: ScoreClaim,
    /// The audited lower confidence bound on ε (or on the Rényi divergence).
    #[serde(rename = "audited_epsilon", serialize_with = "finite_or_text")]
    pub audited: f64,
    /// The point estimate in the audited direction.
    #[serde(rename = "estimate_epsilon", serialize_with = "finite_or_text")]
    pub estimate: f64,
    pub method: String,
    /// Which order of the pair (D ‖ D′ or D′ ‖ D) and which test gave the bound.
    pub direction: String,
    pub draws_d: usize,
    pub draws_d_prime: usize,
    pub confidence: f64,
    /// `PASS`, or `FAIL` when the audited value exceeds the claim or a trade-off
    /// point lies below the claimed curve (each test at the stated confidence: a
    /// correct claim fails one or the other with probability at most twice its
    /// error).
    pub verdict: &'static str,
    /// Scores within this of each other count as one value.
    pub score_tolerance: f64,
    /// The audited value with scores compared exactly (no tolerance).
    #[serde(
        rename = "audited_epsilon_exact_comparison",
        serialize_with = "finite_or_text"
    )]
    pub audited_exact: f64,
    #[serde(rename = "verdict_exact_comparison")]
    pub verdict_exact: &'static str,
    /// The audit on the claimed trade-off curve: threshold tests' (FPR, TPR) points
    /// with Clopper–Pearson bounds, those below the claimed curve, and the empirical
    /// μ-GDP lower bound ([`crate::privacy::curve_audit`]).
    pub tradeoff: CurveAudit,
}

impl Verdict {
    /// The claim's ε.
    pub fn claim_epsilon(&self) -> f64 {
        self.claim.epsilon()
    }

    pub fn passed(&self) -> bool {
        self.verdict == "PASS"
    }

    /// Whether the ε bound alone is within the claim.
    pub fn epsilon_passed(&self) -> bool {
        self.audited <= self.claim_epsilon()
    }
}

/// Audits `claim` from `samples` at the two-sided `confidence` level.
pub fn audit_samples(
    samples: &Samples,
    claim: ScoreClaim,
    log_ratio: bool,
    confidence: f64,
) -> Result<Verdict, ApiError> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(ApiError::input(
            "confidence",
            format!("confidence = {confidence}: 0 < level < 1"),
        ));
    }
    if let (ScoreClaim::Rdp { .. }, false) = (claim, log_ratio) {
        return Err(score_claim(1.0, None, Some(2.0), false).unwrap_err());
    }
    enough(&samples.on_d, &samples.on_d_prime, &samples.source)
        .map_err(|m| ApiError::input("samples", m))?;
    let a = audit_scores(
        &samples.on_d,
        &samples.on_d_prime,
        claim,
        confidence,
        log_ratio,
    );
    let claim_eps = claim.epsilon();
    let exact = a.exact_comparison.unwrap_or(a.audited);
    let tradeoff = curve_audit(
        &samples.on_d,
        &samples.on_d_prime,
        &claim.curve(),
        confidence,
        log_ratio,
    );
    Ok(Verdict {
        file: samples.source.clone(),
        claim,
        audited: a.audited,
        estimate: a.estimate,
        verdict: if tradeoff.violations > 0 {
            "FAIL"
        } else {
            crate::experiments::audit::verdict(a.audited, claim_eps, 0.0)
        },
        verdict_exact: crate::experiments::audit::verdict(exact, claim_eps, 0.0),
        audited_exact: exact,
        method: a.method,
        direction: a.direction,
        draws_d: a.draws_d,
        draws_d_prime: a.draws_d_prime,
        confidence,
        score_tolerance: SCORE_TOLERANCE,
        tradeoff,
    })
}

#[cfg(test)]
mod tests {
    use super::{audit_samples, score_claim, Samples};

    #[test]
    fn columns_and_csv_give_the_same_samples() {
        let labels: Vec<f64> = (0..60).map(|i| (i % 2) as f64).collect();
        let scores: Vec<f64> = (0..60).map(|i| (i as f64 * 0.37).sin()).collect();
        let mut csv = String::from("label,score\n");
        for (l, s) in labels.iter().zip(&scores) {
            csv.push_str(&format!("{l},{s:?}\n"));
        }
        let a = Samples::from_columns(&labels, &scores, false).unwrap();
        let b = Samples::from_csv(csv.as_bytes(), "samples", false).unwrap();
        assert_eq!(a, b);
        let claim = score_claim(1.0, None, None, false).unwrap();
        assert_eq!(
            audit_samples(&a, claim, false, 0.95).unwrap(),
            audit_samples(&b, claim, false, 0.95).unwrap()
        );
    }

    #[test]
    fn faults_name_their_row_and_column() {
        let e = Samples::from_columns(&[1.0, 2.0], &[0.0, 0.0], false).unwrap_err();
        assert!(e.message.contains("row 1: column `label` = 2"), "{e}");
        assert_eq!(e.key.as_deref(), Some("label"));
        let e = Samples::from_columns(&[1.0], &[f64::NEG_INFINITY], true).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("score"));
        assert_eq!(
            score_claim(1.0, None, Some(2.0), false)
                .unwrap_err()
                .argument,
            Some("order")
        );
        assert_eq!(
            score_claim(-1.0, None, None, false).unwrap_err().argument,
            Some("epsilon")
        );
    }
}
