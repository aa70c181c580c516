//! `privpost audit --samples FILE.csv --claim "…"`: a user's own mechanism
//! audited from its outputs on a neighbouring pair, with the built-in statistical
//! audits' method ([`crate::privacy::audit::audit_scores`]). Exit 0 on PASS, 1 on
//! FAIL (the audited value exceeds the claim), 2 on bad input.

use super::ArgError;
use std::path::Path;

use serde_json::json;

use super::CommandError;
use crate::api::{self, Samples};
use crate::privacy::audit::ScoreClaim;

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

/// `privpost audit --samples FILE --claim …`.
pub fn audit_samples(
    path: &Path,
    claim: &str,
    log_ratio: bool,
    confidence: f64,
    json_out: bool,
    plot: Option<&Path>,
) -> Result<(), CommandError> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(CommandError::input(format!(
            "audit: --confidence = {confidence}: 0 < level < 1"
        )));
    }
    if let Some(dir) = plot.filter(|d| !d.is_dir()) {
        return Err(CommandError::input(format!(
            "audit: --plot {}: not a folder (allowed: an existing folder; audit-tradeoff.png and .svg are written into it)",
            dir.display()
        )));
    }
    let claim =
        parse_claim(claim, log_ratio).map_err(|e| CommandError::input(format!("audit: {e}")))?;
    let samples = Samples::read(path, log_ratio)?;
    let r = api::audit_samples(&samples, claim, log_ratio, confidence)?;
    if let Some(dir) = plot {
        let figure = crate::plot::tradeoff::AuditFigure {
            title: format!(
                "{} of {} threshold tests below the claimed curve; μ-GDP ≥ {:.3}",
                r.tradeoff.violations,
                r.tradeoff.points.len(),
                r.tradeoff.mu_lower
            ),
            panels: vec![crate::plot::tradeoff::AuditPanel::new(
                String::new(),
                &claim,
                r.tradeoff.points.clone(),
            )],
        };
        crate::plot::render_as_in(&figure, dir, "audit-tradeoff")
            .map_err(|e| CommandError::failed(e.to_string()))?;
    }
    if json_out {
        let mut v = serde_json::to_value(&r).map_err(|e| CommandError::failed(e.to_string()))?;
        v["schema"] = json!("privpost-audit-samples/1");
        super::emit_json(v)?;
    } else {
        crate::outln!(
            "{}: claim {}; audited ε = {:.6} (estimate {:.6}; from {}; {}; {} + {} draws) — {}",
            r.file,
            serde_json::to_string(&r.claim).unwrap_or_default(),
            r.audited,
            r.estimate,
            r.direction,
            r.method,
            r.draws_d,
            r.draws_d_prime,
            r.verdict
        );
        let t = &r.tradeoff;
        crate::outln!(
            "trade-off curve: {} threshold tests' (FPR, TPR) points with Clopper–Pearson bounds (each at {:.6}); {} below the claimed curve; empirical μ-GDP ≥ {:.4}",
            t.points.len(),
            t.level_each,
            t.violations,
            t.mu_lower
        );
        for p in t.points.iter().filter(|p| p.below_claim).take(5) {
            crate::outln!(
                "  below the claim: {}: TPR ≥ {:.4} at FPR ≤ {:.4}, where the claim allows TPR ≤ {:.4}",
                p.test,
                p.tpr_lower,
                p.fpr_upper,
                p.claimed_tpr
            );
        }
        if r.audited_exact != r.audited {
            crate::outln!(
                "note: compared exactly (no tolerance), the scores give ε = {:.6} — {}{}: scores within {:e} of each other (float rounding) are one value here",
                r.audited_exact,
                r.verdict_exact,
                if r.verdict_exact == r.verdict { "" } else { ", a different verdict" },
                r.score_tolerance
            );
        }
    }
    if r.passed() {
        Ok(())
    } else if !r.epsilon_passed() {
        Err(CommandError::failed(format!(
            "{}: FAIL: the audited ε = {} exceeds the claimed {}",
            r.file,
            r.audited,
            r.claim_epsilon()
        )))
    } else {
        Err(CommandError::failed(format!(
            "{}: FAIL: {} trade-off points lie below the claimed curve",
            r.file, r.tradeoff.violations
        )))
    }
}
