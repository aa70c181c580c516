//! `privpost account --event FILE.json` and `--manifest MANIFEST.json`: accounting
//! for a user's own privacy events, and re-verifying a run's ledger.
//!
//! The event file (schema `privpost-event/1`) holds one of: `{"schema":
//! "privpost-event/1", "event": EVENT}`, a bare EVENT (an object with
//! `mechanism`), or a ledger entry as a manifest's `privacy` array holds it
//! (`series`, `event`, `guarantee`, …). EVENT is the ledger's vocabulary
//! (`privacy::ledger::Event`, tagged by `mechanism`).

use std::path::Path;

use serde_json::{json, Value};

use super::account_types::{print, AccountArgs, AccountMechanism, Solve, OUTPUT_SCHEMA};
use super::CommandError;
use crate::api::{self, AccountAnswer, AccountOptions, EventInput, Verification};
use crate::privacy::event::Event;
use crate::privacy::ledger::Entry;
use crate::results::manifest::{read_value, Manifest};

/// The accountants' settings from the command line.
fn options(a: &AccountArgs) -> AccountOptions {
    AccountOptions {
        delta: a.delta,
        target_epsilon: a.target_epsilon,
        tight: !a.no_tight,
        pld_slack: a.pld_slack,
        alpha_max: a.alpha_max,
    }
}

/// The text lines of an answer.
fn lines(answer: &AccountAnswer, file: &str) -> Vec<String> {
    match answer {
        AccountAnswer::Forward {
            mechanism, answers, ..
        } => {
            let mut lines = vec![format!("{file}: {mechanism}")];
            for x in answers {
                lines.push(format!(
                    "  {:<13} ε = {:.6}{}{}",
                    x.accountant,
                    x.epsilon,
                    if x.delta > 0.0 {
                        format!(" at δ = {:e}", x.delta)
                    } else {
                        String::new()
                    },
                    match (x.order, x.slack > 0.0) {
                        (Some(o), _) => format!(" (α = {o})"),
                        (None, true) =>
                            format!(" (an upper bound within {} of the exact ε)", x.slack),
                        (None, false) => String::new(),
                    }
                ));
            }
            lines
        }
        AccountAnswer::Inverse {
            mechanism,
            target_epsilon,
            largest_repeat,
            answers,
            ..
        } => vec![match largest_repeat {
            Some(t) => format!(
                "{mechanism}: largest T with ε ≤ {target_epsilon}: {t} (checked forward: ε = {:.6} by {})",
                answers.first().map_or(f64::NAN, |b| b.epsilon),
                answers.first().map_or("", |b| b.accountant)
            ),
            None => format!("{mechanism}: even T = 1 exceeds ε = {target_epsilon}"),
        }],
        AccountAnswer::Verify { verification: v, .. } => vec![format!(
            "{file}: {}: claim {} ; recomputed from the event: {} — {}",
            v.series,
            serde_json::to_string(&v.claim).unwrap_or_default(),
            v.recomputed_epsilon.map_or("—".into(), |e| format!("{e}")),
            match &v.reason {
                None => "holds".to_string(),
                Some(e) => format!("DOES NOT HOLD: {e}"),
            }
        )],
    }
}

/// `account --event FILE.json`.
pub fn event(a: &AccountArgs) -> Result<Option<AccountArgs>, CommandError> {
    let Some(path) = &a.event else {
        return Err(CommandError::input("account: no event given"));
    };
    let file = path.display().to_string();
    let input = api::read_event(&super::read_json(path)?, &file)?;
    if let (EventInput::Event(event), Some(_), false) =
        (&input, a.target_epsilon, a.solve == Solve::Iterations)
    {
        return solve_sgld(event, a, &file).map(Some);
    }
    let answer = api::account(&input, &options(a), &file)?;
    if let AccountAnswer::Forward { warnings, .. } = &answer {
        for w in warnings {
            errln!("WARNING: {w}");
        }
    }
    let text = lines(&answer, &file);
    let mut value =
        serde_json::to_value(&answer).map_err(|e| CommandError::failed(e.to_string()))?;
    value["schema"] = json!(OUTPUT_SCHEMA);
    print(a.json, value, text)?;
    match answer {
        AccountAnswer::Verify {
            verification: Verification {
                reason: Some(e), ..
            },
            ..
        } => Err(CommandError::failed(format!(
            "{file}: the claim does not follow from its event: {e}"
        ))),
        _ => Ok(None),
    }
}

/// `--solve sigma` or `--solve q` on T repeated Poisson-subsampled Gaussian steps:
/// the built-in DP-SGLD question (`--mechanism sgld`), returned for the
/// dispatcher to answer with the same code.
fn solve_sgld(event: &Event, a: &AccountArgs, file: &str) -> Result<AccountArgs, CommandError> {
    let Event::Repeat {
        times,
        event: inner,
    } = event
    else {
        return Err(CommandError::input(format!(
            "{file}: --solve sigma/q needs {{\"mechanism\": \"repeat\", \"times\": T, \"event\": {{\"mechanism\": \"poisson_subsampled_gaussian\", …}}}}"
        )));
    };
    let Event::PoissonSubsampledGaussian { q, sigma } = **inner else {
        return Err(CommandError::input(format!(
            "{file}: --solve sigma/q applies to repeated poisson_subsampled_gaussian steps only"
        )));
    };
    let mut args = a.clone();
    args.event = None;
    args.mechanism = AccountMechanism::Sgld;
    // the solved-for value comes from the search, not from the event
    args.q = (a.solve != Solve::Q).then_some(q);
    args.sigma = (a.solve != Solve::Sigma).then_some(sigma);
    args.iterations = vec![*times];
    Ok(args)
}

/// The key of a series label that marks a running checkpoint of one chain: the
/// entries that differ only in it are one release, made at the last checkpoint.
const CHECKPOINT_KEYS: [&str; 1] = ["iteration"];

/// A series label without its checkpoint pair, and the checkpoint's value.
fn release_of(series: &str) -> (String, Option<f64>) {
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

/// `account --manifest MANIFEST.json`: every ledger entry re-verified, then the
/// figure's releases: entries that differ only in a running checkpoint (`iteration`)
/// are one chain, released at its last checkpoint (earlier checkpoints are not
/// composed with it); other entries are alternatives (methods, ε, data) and are not
/// composed with each other. Entries the manifest tags as released together
/// (`released_with`) are composed by basic composition.
pub fn manifest(path: &Path, json_out: bool) -> Result<(), CommandError> {
    // a figure's folder stands for its manifest, as `show` and `infer` take it
    let file = if path.is_dir() {
        path.join("manifest.json")
    } else {
        path.to_path_buf()
    }
    .display()
    .to_string();
    // read as a manifest is (a size cap, no pipe found in a folder, no key
    // twice), then typed: a whole manifest, or a ledger alone (`{"privacy": [...]}`)
    let (_, value) = read_value(path).map_err(CommandError::input)?;
    let entries = match serde_json::from_value::<Manifest>(value.clone()) {
        Ok(manifest) => manifest.privacy,
        Err(_) => {
            #[derive(serde::Deserialize)]
            struct Ledger {
                privacy: Option<Vec<Entry>>,
            }
            let ledger: Ledger = serde_json::from_value(value)
                .map_err(|e| CommandError::input(format!("{file}: key `privacy`: {e}")))?;
            ledger.privacy.ok_or_else(|| {
                CommandError::input(format!(
                    "{file}: no `privacy` ledger (allowed: a manifest.json written by `privpost run`, or an object with its `privacy` list)"
                ))
            })?
        }
    };
    let mut rows = Vec::new();
    let mut lines = vec![format!("{file}: {} ledger entries", entries.len())];
    let mut failures = Vec::new();
    // releases in order of first appearance: (series, index of the last checkpoint's entry, checkpoints)
    let mut releases: Vec<(String, usize, usize, Option<f64>)> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let holds = e.verify(1e-9);
        let (ce, cd) = e.guarantee.epsilon_delta();
        if let Err(m) = &holds {
            failures.push(m.to_string());
        }
        rows.push(
            json!({"series": e.series, "claim": e.guarantee, "claim_epsilon": ce,
                         "claim_delta": cd, "recomputed_epsilon": e.recomputed_epsilon(),
                         "holds": holds.is_ok(), "released_with": e.released_with}),
        );
        let (series, at) = release_of(&e.series);
        match releases.iter_mut().find(|r| r.0 == series) {
            Some(r) => {
                r.2 += 1;
                if at.unwrap_or(f64::NEG_INFINITY) >= r.3.unwrap_or(f64::NEG_INFINITY) {
                    (r.1, r.3) = (i, at);
                }
            }
            None => releases.push((series, i, 1, at)),
        }
    }
    let checked = entries.len() - failures.len();
    lines.push(format!(
        "  {checked} of {} claims follow from their events{}",
        entries.len(),
        if failures.is_empty() {
            String::new()
        } else {
            format!("; DO NOT HOLD: {}", failures.join("; "))
        }
    ));
    lines.push(format!("releases ({}):", releases.len()));
    let mut release_rows = Vec::new();
    for (series, last, checkpoints, at) in &releases {
        let e = &entries[*last];
        let (ce, cd) = e.guarantee.epsilon_delta();
        let private = !matches!(e.event, Event::NonPrivate);
        lines.push(format!(
            "  {series}: {}{}{}",
            e.guarantee.short_text(),
            match at {
                Some(t) if *checkpoints > 1 => format!(
                    " (its last of {checkpoints} checkpoints, iteration {}; the earlier ones are the same chain, not composed)",
                    crate::numeric::sig(*t)
                ),
                _ => String::new(),
            },
            if e.verify(1e-9).is_ok() { "" } else { " — DOES NOT HOLD" }
        ));
        release_rows.push(
            json!({"series": series, "entry": e.series, "checkpoints": checkpoints,
                                 "private": private, "guarantee": e.guarantee,
                                 "epsilon": if private { json!(ce) } else { Value::Null },
                                 "delta": cd}),
        );
    }
    // compositions: only across entries tagged as released together
    let mut groups: Vec<(String, Vec<&Entry>)> = Vec::new();
    for e in &entries {
        if let Some(tag) = &e.released_with {
            match groups.iter_mut().find(|g| &g.0 == tag) {
                Some(g) => g.1.push(e),
                None => groups.push((tag.clone(), vec![e])),
            }
        }
    }
    let mut composed = Vec::new();
    if groups.is_empty() {
        lines.push(
            "composed: nothing — no entries are marked as released together (`released_with`); the releases above are alternatives, each with its own guarantee".into(),
        );
    }
    for (tag, members) in &groups {
        let (mut eps, mut delta) = (0.0, 0.0);
        for m in members {
            let (e, d) = m.guarantee.epsilon_delta();
            eps += e;
            delta += d;
        }
        lines.push(format!(
            "composed `{tag}` (basic composition of {} entries released together): ε = {}, δ = {}",
            members.len(),
            crate::numeric::sig(eps),
            crate::numeric::sig(delta)
        ));
        composed.push(json!({"released_with": tag, "entries": members.iter().map(|m| &m.series).collect::<Vec<_>>(),
                             "epsilon": eps, "delta": delta}));
    }
    print(
        json_out,
        json!({"schema": OUTPUT_SCHEMA, "question": "manifest", "entries": rows,
               "releases": release_rows, "composed": composed, "warnings": []}),
        lines,
    )?;
    if failures.is_empty() {
        Ok(())
    } else {
        Err(CommandError::failed(format!(
            "{file}: {} ledger entries do not hold: {}",
            failures.len(),
            failures.join("; ")
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_have_six_significant_digits() {
        assert_eq!(crate::numeric::sig(3.6739999999998896e-3), "0.003674");
        assert_eq!(crate::numeric::sig(1694.123456789), "1694.12");
        assert_eq!(crate::numeric::sig(2e-6), "2e-6");
        assert_eq!(crate::numeric::sig(1.2643345355950448), "1.26433");
        assert_eq!(crate::numeric::sig(1e-5), "1e-5");
        assert_eq!(crate::numeric::sig(0.5), "0.5");
        assert_eq!(crate::numeric::sig(f64::INFINITY), "inf");
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
    }
}
