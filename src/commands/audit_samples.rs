//! `privpost audit --samples FILE.csv --claim "…"`: a user's own mechanism
//! audited from its outputs on a neighbouring pair, with the built-in statistical
//! audits' method ([`crate::privacy::audit::audit_scores`]). Exit 0 on PASS, 1 on
//! FAIL (the audited value exceeds the claim), 2 on bad input.

use super::ArgError;
use std::path::Path;

use serde_json::json;

use super::CommandError;
use crate::privacy::audit::{audit_scores, ScoreClaim};
use crate::results::table::parse_f64;

/// Parses `epsilon=E[,delta=D][,order=A]`.
pub fn parse_claim(text: &str, log_ratio: bool) -> Result<ScoreClaim, ArgError> {
    let allowed = "allowed: \"epsilon=E\" (pure DP), \"epsilon=E,delta=D\", \"epsilon=E,order=A\" (Rényi DP, with --log-ratio)";
    let (mut eps, mut delta, mut order) = (None, None, None);
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').ok_or_else(|| {
            ArgError(format!(
                "--claim {text:?}: {part:?} is not KEY=VALUE; {allowed}"
            ))
        })?;
        let x: f64 = v.trim().parse().map_err(|_| {
            ArgError(format!(
                "--claim {text:?}: {k} = {v:?} is not a number; {allowed}"
            ))
        })?;
        let slot = match k.trim() {
            "epsilon" | "eps" => &mut eps,
            "delta" => &mut delta,
            "order" | "alpha" => &mut order,
            other => {
                return Err(ArgError(format!(
                    "--claim {text:?}: unknown key {other:?}; {allowed}"
                )))
            }
        };
        if slot.is_some() {
            return Err(ArgError(format!(
                "--claim {text:?}: {} given twice; {allowed}",
                k.trim()
            )));
        }
        *slot = Some(x);
    }
    let epsilon =
        eps.ok_or_else(|| ArgError(format!("--claim {text:?}: no epsilon; {allowed}")))?;
    if !(epsilon.is_finite() && epsilon >= 0.0) {
        return Err(ArgError(format!(
            "--claim {text:?}: epsilon = {epsilon}: a finite ε ≥ 0"
        )));
    }
    match (delta, order) {
        (Some(_), Some(_)) => Err(ArgError(format!("--claim {text:?}: delta and order together; {allowed}"))),
        (Some(d), None) if !(0.0..1.0).contains(&d) => {
            Err(ArgError(format!("--claim {text:?}: delta = {d}: 0 ≤ δ < 1")))
        }
        (Some(delta), None) => Ok(ScoreClaim::Approx { epsilon, delta }),
        (None, Some(a)) if !(a.is_finite() && a > 1.0) => {
            Err(ArgError(format!("--claim {text:?}: order = {a}: a finite order > 1")))
        }
        (None, Some(_)) if !log_ratio => Err(ArgError(format!(
            "--claim {text:?}: a Rényi claim is audited from exact log density ratios: add --log-ratio (the score column must be ln p(x)/p′(x))"
        ))),
        (None, Some(order)) => Ok(ScoreClaim::Rdp { order, epsilon }),
        (None, None) => Ok(ScoreClaim::Pure { epsilon }),
    }
}

/// Reads `label,score` rows: scores on D (label 1) and on D′ (label 0), in file order.
/// Line numbers are the file's own (blank lines counted). With `log_ratio` the
/// scores are exact log density ratios ln p(x)/p′(x), and a value no draw can have
/// is refused: −∞ on D (p(x) = 0 at a draw from p) or +∞ on D′.
pub fn read_samples(path: &Path, log_ratio: bool) -> Result<(Vec<f64>, Vec<f64>), String> {
    let bytes =
        crate::input::read_input(path, crate::input::MAX_TABLE_BYTES).map_err(|e| e.to_string())?;
    parse_samples(&bytes, &path.display().to_string(), log_ratio)
}

/// [`read_samples`] of the bytes of a CSV named `shown` in messages.
pub fn parse_samples(
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
    for (v, which) in [(&on_d, "1 (outputs on D)"), (&on_d2, "0 (outputs on D′)")] {
        if v.len() < 20 {
            return Err(format!(
                "{shown}: {} rows with label {which}; at least 20 of each class are needed (the test is chosen on one half and bounded on the other)",
                v.len()
            ));
        }
    }
    Ok((on_d, on_d2))
}

/// A number for JSON: infinities as the strings "inf" / "-inf" (JSON has no
/// infinity, and `null` would read as "no value").
fn number(x: f64) -> serde_json::Value {
    if x.is_finite() {
        json!(x)
    } else {
        json!(if x > 0.0 { "inf" } else { "-inf" })
    }
}

/// `privpost audit --samples FILE --claim …`.
pub fn audit_samples(
    path: &Path,
    claim: &str,
    log_ratio: bool,
    confidence: f64,
    json_out: bool,
) -> Result<(), CommandError> {
    check_confidence(confidence)?;
    let claim =
        parse_claim(claim, log_ratio).map_err(|e| CommandError::input(format!("audit: {e}")))?;
    let (on_d, on_d2) = read_samples(path, log_ratio).map_err(CommandError::input)?;
    let shown = path.display().to_string();
    let r = audited(&on_d, &on_d2, claim, log_ratio, confidence);
    if json_out {
        super::emit_json(r.json(&shown))?;
    } else {
        crate::outln!(
            "{shown}: claim {}; audited ε = {:.6} (estimate {:.6}; from {}; {}; {} + {} draws) — {}",
            serde_json::to_string(&claim).unwrap_or_default(),
            r.a.audited,
            r.a.estimate,
            r.a.direction,
            r.a.method,
            r.a.draws_d,
            r.a.draws_d_prime,
            r.verdict
        );
        if let Some(raw) = r.a.exact_comparison {
            crate::outln!(
                "note: compared exactly (no tolerance), the scores give ε = {raw:.6} — {}{}: scores within {:e} of each other (float rounding) are one value here",
                r.exact_verdict,
                if r.exact_verdict == r.verdict { "" } else { ", a different verdict" },
                crate::privacy::audit::SCORE_TOLERANCE
            );
        }
    }
    r.outcome(&shown)
}

/// The audit of scores given as CSV bytes (the Python package's
/// `audit_samples`): the JSON `--json` prints, `file` naming them `shown`.
pub fn audit_samples_value(
    bytes: &[u8],
    shown: &str,
    claim: &str,
    log_ratio: bool,
    confidence: f64,
) -> Result<serde_json::Value, CommandError> {
    check_confidence(confidence)?;
    let claim =
        parse_claim(claim, log_ratio).map_err(|e| CommandError::input(format!("audit: {e}")))?;
    let (on_d, on_d2) = parse_samples(bytes, shown, log_ratio).map_err(CommandError::input)?;
    Ok(audited(&on_d, &on_d2, claim, log_ratio, confidence).json(shown))
}

fn check_confidence(confidence: f64) -> Result<(), CommandError> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(CommandError::input(format!(
            "audit: --confidence = {confidence}: 0 < level < 1"
        )));
    }
    Ok(())
}

/// An audit of scores and its verdicts.
struct Audited {
    a: crate::privacy::audit::ScoreAudit,
    claim: ScoreClaim,
    claim_eps: f64,
    confidence: f64,
    verdict: &'static str,
    exact_verdict: &'static str,
}

fn audited(
    on_d: &[f64],
    on_d2: &[f64],
    claim: ScoreClaim,
    log_ratio: bool,
    confidence: f64,
) -> Audited {
    let a = audit_scores(on_d, on_d2, claim, confidence, log_ratio);
    let claim_eps = match claim {
        ScoreClaim::Pure { epsilon }
        | ScoreClaim::Approx { epsilon, .. }
        | ScoreClaim::Rdp { epsilon, .. } => epsilon,
    };
    let verdict = crate::experiments::audit::verdict(a.audited, claim_eps, 0.0);
    let exact_verdict =
        crate::experiments::audit::verdict(a.exact_comparison.unwrap_or(a.audited), claim_eps, 0.0);
    Audited {
        a,
        claim,
        claim_eps,
        confidence,
        verdict,
        exact_verdict,
    }
}

impl Audited {
    fn json(&self, shown: &str) -> serde_json::Value {
        let a = &self.a;
        json!({
            "schema": "privpost-audit-samples/1",
            "file": shown,
            "claim": self.claim,
            "audited_epsilon": number(a.audited),
            "estimate_epsilon": number(a.estimate),
            "method": a.method,
            "direction": a.direction,
            "draws_d": a.draws_d,
            "draws_d_prime": a.draws_d_prime,
            "confidence": self.confidence,
            "verdict": self.verdict,
            "score_tolerance": crate::privacy::audit::SCORE_TOLERANCE,
            "audited_epsilon_exact_comparison": number(a.exact_comparison.unwrap_or(a.audited)),
            "verdict_exact_comparison": self.exact_verdict,
        })
    }

    /// Exit 0 on PASS, a failure (exit 1) on FAIL.
    fn outcome(&self, shown: &str) -> Result<(), CommandError> {
        if self.verdict == "PASS" {
            Ok(())
        } else {
            Err(CommandError::failed(format!(
                "{shown}: FAIL: the audited ε = {} exceeds the claimed {}",
                self.a.audited, self.claim_eps
            )))
        }
    }
}
