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
use crate::privacy::event::Event;
use crate::privacy::event_account::{self, Answer};
use crate::privacy::ledger::Entry;

/// The version of the event file format.
pub const EVENT_SCHEMA: &str = "privpost-event/1";

/// What an event file holds.
enum Holding {
    Event(Event),
    Entry(Box<Entry>),
}

/// The first key of `input` (a path like `event.parts[1].scale`) that the parsed
/// value does not hold: a key serde skipped, i.e. one the vocabulary does not know.
fn unknown_key(input: &Value, parsed: &Value, at: &str) -> Option<String> {
    match (input, parsed) {
        (Value::Object(i), Value::Object(p)) => i.iter().find_map(|(k, v)| {
            let here = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            match p.get(k) {
                None => Some(here),
                Some(pv) => unknown_key(v, pv, &here),
            }
        }),
        (Value::Array(i), Value::Array(p)) => i
            .iter()
            .zip(p)
            .enumerate()
            .find_map(|(j, (a, b))| unknown_key(a, b, &format!("{at}[{j}]"))),
        _ => None,
    }
}

/// Refuses keys the parsed `value` (re-serialised) does not hold, naming the key.
fn refuse_unknown<T: serde::Serialize>(
    path: &Path,
    input: &Value,
    value: &T,
    prefix: &str,
) -> Result<(), CommandError> {
    let parsed = serde_json::to_value(value).map_err(|e| CommandError::failed(e.to_string()))?;
    match unknown_key(input, &parsed, prefix) {
        Some(k) => Err(CommandError::input(format!(
            "{}: key `{k}`: unknown (a misspelt key would be ignored; the event vocabulary's keys: docs/bring-your-own.md, \"Your privacy events\")",
            path.display()
        ))),
        None => Ok(()),
    }
}

/// The key of serde's "missing field `x`" message.
fn missing_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("missing field `")?;
    rest.split('`').next().filter(|k| !k.is_empty())
}

fn parse_event(v: Value, path: &Path) -> Result<Holding, CommandError> {
    let bad = |key: &str, m: String| {
        CommandError::input(format!(
            "{}: key `{key}`: {m} (allowed: {{\"schema\": \"{EVENT_SCHEMA}\", \"event\": EVENT}}, a bare EVENT with `mechanism`, or a ledger entry from a manifest; docs/bring-your-own.md, \"Your privacy events\")",
            path.display()
        ))
    };
    if let Some(s) = v.get("schema") {
        if s.as_str() != Some(EVENT_SCHEMA) {
            return Err(bad(
                "schema",
                format!("{s}, this privpost reads \"{EVENT_SCHEMA}\""),
            ));
        }
    }
    // a bare event first: a `repeat` event has an `event` field of its own
    let (key, value) = if v.get("mechanism").is_some() {
        ("mechanism", v.clone())
    } else if v.get("guarantee").is_some() {
        let entry: Entry =
            serde_json::from_value(v.clone()).map_err(|e| bad("guarantee", e.to_string()))?;
        refuse_unknown(path, &v, &entry, "")?;
        entry
            .event
            .validate()
            .map_err(|e| bad("event", e.to_string()))?;
        return Ok(Holding::Entry(Box::new(entry)));
    } else if let Some(e) = v.get("event") {
        ("event", e.clone())
    } else {
        return Err(bad("event", "missing".into()));
    };
    let event: Event = serde_json::from_value(value.clone()).map_err(|e| {
        let m = e.to_string();
        // serde names a missing key only in its message: name it as the key
        match missing_field(&m) {
            Some(f) if key == "event" => bad(&format!("event.{f}"), "missing".into()),
            Some(f) => bad(f, "missing".into()),
            None => bad(key, m),
        }
    })?;
    if key == "mechanism" {
        refuse_unknown(path, &value, &event, "")?;
    } else {
        if let Some(k) = v
            .as_object()
            .and_then(|o| o.keys().find(|k| *k != "schema" && *k != "event"))
        {
            return Err(bad(k, "unknown (allowed at the top: schema, event)".into()));
        }
        refuse_unknown(path, &value, &event, "event")?;
    }
    event.validate().map_err(|e| bad(key, e.to_string()))?;
    Ok(Holding::Event(event))
}

fn mechanism_name(e: &Event) -> String {
    serde_json::to_value(e)
        .ok()
        .and_then(|v| {
            v.get("mechanism")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_default()
}

fn answer_json(a: &Answer, iterations: Option<u64>) -> Value {
    json!({
        "accountant": a.accountant,
        "epsilon": a.epsilon,
        "delta": a.delta,
        "order": a.order,
        "slack": a.slack,
        "iterations": iterations,
    })
}

/// The accountants' settings from the command line.
fn options(a: &AccountArgs) -> event_account::Options {
    event_account::Options {
        tight: !a.no_tight,
        pld_slack: a.pld_slack.unwrap_or(crate::privacy::ledger::PLD_SLACK),
        alpha_max: a.alpha_max.map(f64::from),
    }
}

/// `account --event FILE.json`, or an event given as a value (`event_value`).
pub fn event(a: &AccountArgs) -> Result<Option<AccountArgs>, CommandError> {
    let (v, path) = match (&a.event_value, &a.event) {
        (Some((v, name)), _) => (v.clone(), std::path::PathBuf::from(name)),
        (None, Some(path)) => (super::read_json(path)?, path.clone()),
        (None, None) => return Err(CommandError::input("account: no event given")),
    };
    let file = path.display().to_string();
    let done = match parse_event(v, &path)? {
        Holding::Entry(entry) => verify_entry(&entry, a.json, &file),
        Holding::Event(event) => {
            let mechanism = mechanism_name(&event);
            if a.target_epsilon.is_some() && a.solve != Solve::Iterations {
                return solve_sgld(&event, a, &file).map(Some);
            }
            if let Some(target) = a.target_epsilon {
                if !(target.is_finite() && target > 0.0) {
                    return Err(CommandError::input(format!(
                        "account: --target-epsilon = {target}: a finite ε > 0"
                    )));
                }
                let t = event_account::largest_repeat(
                    &event,
                    target,
                    a.delta,
                    a.alpha_max.map(f64::from),
                )
                .map_err(|e| CommandError::input(format!("{file}: {e}")))?;
                let (lines, answers) = match t {
                    Some(t) => {
                        let e = Event::repeat(
                            t,
                            match &event {
                                Event::Repeat { event, .. } => (**event).clone(),
                                other => other.clone(),
                            },
                        );
                        // the inverse search covers the Gaussian closed form, not the
                        // grids: check forward with the same accountants
                        let gaussian = crate::privacy::gaussian_pld::event_mu(&e).is_some();
                        let opts = event_account::Options {
                            tight: gaussian && !a.no_tight,
                            ..options(a)
                        };
                        let fwd = event_account::forward(&e, a.delta, &opts)
                            .map_err(|m| CommandError::input(format!("{file}: {m}")))?;
                        let best = event_account::best(&fwd.answers).cloned();
                        (
                            vec![format!(
                                "{mechanism}: largest T with ε ≤ {target}: {t} (checked forward: ε = {:.6} by {})",
                                best.as_ref().map_or(f64::NAN, |b| b.epsilon),
                                best.as_ref().map_or("", |b| b.accountant)
                            )],
                            best.iter().map(|b| answer_json(b, Some(t))).collect::<Vec<_>>(),
                        )
                    }
                    None => (
                        vec![format!("{mechanism}: even T = 1 exceeds ε = {target}")],
                        Vec::new(),
                    ),
                };
                return print(
                    a.json,
                    json!({"schema": OUTPUT_SCHEMA, "question": "inverse", "mechanism": mechanism,
                           "target_epsilon": target, "answers": answers, "warnings": []}),
                    lines,
                )
                .map(|()| None);
            }
            let fwd = event_account::forward(&event, a.delta, &options(a))
                .map_err(|m| CommandError::input(format!("{file}: {m}")))?;
            let answers = fwd.answers;
            let iterations = match &event {
                Event::Repeat { times, .. } => Some(*times),
                _ => None,
            };
            let mut lines = vec![format!("{file}: {mechanism}")];
            for x in &answers {
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
            for w in &fwd.warnings {
                errln!("WARNING: {w}");
            }
            print(
                a.json,
                json!({"schema": OUTPUT_SCHEMA, "question": "forward", "mechanism": mechanism,
                       "answers": answers.iter().map(|x| answer_json(x, iterations)).collect::<Vec<_>>(),
                       "warnings": fwd.warnings}),
                lines,
            )
        }
    };
    done.map(|()| None)
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
    args.event_value = None;
    args.mechanism = AccountMechanism::Sgld;
    // the solved-for value comes from the search, not from the event
    args.q = (a.solve != Solve::Q).then_some(q);
    args.sigma = (a.solve != Solve::Sigma).then_some(sigma);
    args.iterations = vec![*times];
    Ok(args)
}

/// A ledger entry: its claim, recomputed from its event; exit 1 when it does not hold.
fn verify_entry(entry: &Entry, json_out: bool, file: &str) -> Result<(), CommandError> {
    let (ce, cd) = entry.guarantee.epsilon_delta();
    let recomputed = entry.recomputed_epsilon();
    let holds = entry.verify(1e-9);
    let value = json!({
        "schema": OUTPUT_SCHEMA,
        "question": "verify",
        "series": entry.series,
        "claim": entry.guarantee,
        "claim_epsilon": ce,
        "claim_delta": cd,
        "recomputed_epsilon": recomputed,
        "holds": holds.is_ok(),
        "warnings": [],
    });
    let line = format!(
        "{file}: {}: claim {} ; recomputed from the event: {} — {}",
        entry.series,
        serde_json::to_string(&entry.guarantee).unwrap_or_default(),
        recomputed.map_or("—".into(), |e| format!("{e}")),
        match &holds {
            Ok(()) => "holds".to_string(),
            Err(e) => format!("DOES NOT HOLD: {e}"),
        }
    );
    print(json_out, value, vec![line])?;
    holds.map_err(|e| {
        CommandError::failed(format!(
            "{file}: the claim does not follow from its event: {e}"
        ))
    })
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
    let in_folder = path.join("manifest.json");
    let path = if path.is_dir() {
        // found by name: a regular file only (a pipe there would be waited on forever)
        crate::input::read_regular(&in_folder, crate::input::MAX_JSON_BYTES)
            .map_err(CommandError::input)?;
        in_folder.as_path()
    } else {
        path
    };
    let v = super::read_json(path)?;
    let file = path.display().to_string();
    let entries: Vec<Entry> =
        serde_json::from_value(v.get("privacy").cloned().ok_or_else(|| {
            CommandError::input(format!(
                "{file}: no `privacy` ledger (allowed: a manifest.json written by `privpost run`)"
            ))
        })?)
        .map_err(|e| CommandError::input(format!("{file}: key `privacy`: {e}")))?;
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
