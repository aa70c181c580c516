//! `privpost account`: the privacy budget of a planned DP-MCMC (subsampled
//! Barker test) or DP-SGLD/DPVI (Poisson-subsampled Gaussian) run, before anything
//! runs; and the inverse questions (the largest T, smallest σ or largest q that meets
//! a target ε), always rounded to the safe side and checked by a forward evaluation.

use serde_json::{json, Value};

use super::account_types::{
    input, print, AccountArgs, AccountMechanism, Answer, Solve, OUTPUT_SCHEMA,
};
use super::CommandError;
use crate::privacy::accountant::{BarkerAccount, SgldAccount};
use crate::privacy::event::Conversion;
use crate::privacy::pld::{poisson_gaussian_epsilon, PldOptions, TightEpsilon};
use crate::privacy::rdp::{check_clipping, AccountError};

mod sgld;
use sgld::sgld;

mod barker;
use barker::barker;

fn bad(e: AccountError) -> CommandError {
    CommandError::input(format!("account: {e}"))
}

/// One forward answer as JSON: ε and the order (absent for T = 0).
fn rdp_json(found: Option<crate::privacy::accountant::Searched>) -> Value {
    match found {
        None => json!({"epsilon": 0.0, "alpha": null}),
        Some(s) => json!({"epsilon": s.value, "alpha": s.alpha, "orders": [s.lo, s.hi],
            "orders_evaluated": s.evaluated, "stopped_at": s.stopped_at}),
    }
}

fn fmt_rdp(found: Option<crate::privacy::accountant::Searched>, label: &str) -> String {
    match found {
        None => format!("0 ({label})"),
        Some(s) => format!("{:.4} ({label}, α = {})", s.value, s.alpha),
    }
}

/// Collects the loud warnings: the best order at a user cap, or a search cut short.
fn order_warnings(
    warnings: &mut Vec<String>,
    found: Option<crate::privacy::accountant::Searched>,
    cap: Option<u32>,
    what: &str,
) {
    let Some(s) = found else { return };
    if let (true, Some(c)) = (s.at_edge(), cap) {
        warnings.push(format!(
            "{what}: the best order α = {} is the largest searched (--alpha-max {c}); a larger --alpha-max may give a smaller ε",
            s.alpha
        ));
    }
    if let Some(at) = s.stopped_at {
        if s.alpha == at {
            warnings.push(format!(
                "{what}: the order search stopped at α = {at} (its work bound) with the best order there; the answer is valid but may not be the smallest"
            ));
        }
    }
}

/// Privacy budget of a planned DP-MCMC or DP-SGLD run, or the inverse question.
pub fn account(a: AccountArgs) -> Result<(), CommandError> {
    if let Some(slack) = a.pld_slack {
        if !(slack > 0.0 && slack <= 1.0) {
            return Err(input(format!("--pld-slack = {slack}: 0 < η ≤ 1")));
        }
    }
    if a.event.is_some() {
        if a.alpha_max.is_some_and(|m| m < 2) {
            return Err(input(format!(
                "--alpha-max = {}: ≥ 2 (--event searches the orders 1.1 … 1024 below it)",
                a.alpha_max.unwrap_or(0)
            )));
        }
        // an event file is answered there, or reduced to the built-in DP-SGLD question
        return match super::account_event::event(&a)? {
            Some(reduced) => account(reduced),
            None => Ok(()),
        };
    }
    if let Some(path) = &a.manifest {
        if a.pld_slack.is_some() || a.alpha_max.is_some() {
            return Err(input(
                "--pld-slack and --alpha-max do not apply to --manifest: a ledger entry is verified with the accountant its claim names",
            ));
        }
        return super::account_event::manifest(path, a.json);
    }
    for (name, v) in [
        ("--delta", a.delta),
        ("--n0", a.n0),
        ("--clip", a.clip),
        ("--q", a.q),
        ("--sigma", a.sigma),
        ("--target-epsilon", a.target_epsilon),
        ("--tau", a.tau),
        ("--tau-l", a.tau_l),
        ("--tau-g", a.tau_g),
        ("--n-exponent", Some(a.n_exponent)),
    ] {
        if let Some(v) = v {
            if !v.is_finite() {
                return Err(input(format!("{name} = {v}: a finite number")));
            }
        }
    }
    if let Some(e) = a.target_epsilon {
        if !(0.0..=1e4).contains(&e) {
            return Err(input(format!("--target-epsilon = {e}: 0 ≤ ε ≤ 10⁴")));
        }
        if a.solve == Solve::Iterations && !a.iterations.is_empty() {
            return Err(input(
                "--iterations with --target-epsilon: the inverse question solves for the iterations; give --iterations (the forward question) or --target-epsilon, not both (with --solve sigma|q, --iterations is the fixed T)",
            ));
        }
    } else if a.iterations.is_empty() {
        return Err(input(
            "--iterations is required (e.g. --iterations 1000,20000), or --target-epsilon for the inverse question",
        ));
    }
    if a.alpha_max.is_some_and(|m| m < 3) {
        return Err(input(format!(
            "--alpha-max = {}: ≥ 3 (orders run from 2 to alpha-max − 1)",
            a.alpha_max.unwrap_or(0)
        )));
    }
    if matches!(
        a.mechanism,
        AccountMechanism::Barker | AccountMechanism::Sgld
    ) && (a.tau.is_some() || a.tau_l.is_some() || a.tau_g.is_some() || a.leapfrog.is_some())
    {
        return Err(input(
            "--tau, --tau-l, --tau-g and --leapfrog belong to --mechanism penalty | dp-hmc",
        ));
    }
    let (lines, value, warnings) = match a.mechanism {
        AccountMechanism::Barker => barker(&a)?,
        AccountMechanism::Sgld => sgld(&a)?,
        AccountMechanism::Penalty | AccountMechanism::DpHmc => super::account_mh::account(&a)?,
    };
    for w in &warnings {
        errln!("WARNING: {w}");
    }
    let mut value = value;
    uniform(&mut value);
    value["warnings"] = json!(warnings);
    // δ ≥ 1/N: said beside the answer (a note, not a warning: the paper's own choice)
    if let (AccountMechanism::Barker, Some(n)) = (a.mechanism, a.n_data) {
        let delta = a.delta.unwrap_or(1.0 / n as f64);
        if delta >= 1.0 / n as f64 {
            let note = format!(
                "δ = {delta:e} ≥ 1/N = {:e}: a weak guarantee (releasing one record in the clear is (0, 1/N)-DP); δ ≪ 1/N is the usual choice",
                1.0 / n as f64
            );
            errln!("note: {note}");
            value["notes"] = json!([note]);
        }
    }
    // an inverse question no T ≥ 1 answers: said in the output (the warning), and exit 1
    let none = value["question"] == "inverse"
        && value["solve"] == "iterations"
        && value["answers"]
            .as_array()
            .is_some_and(|v| !v.is_empty() && v.iter().all(|x| x["iterations"] == 0));
    print(a.json, value, lines)?;
    if none {
        return Err(CommandError::failed(format!(
            "no T ≥ 1 meets ε ≤ {}: one iteration already spends more (see ε(T + 1) above)",
            a.target_epsilon.unwrap_or_default()
        )));
    }
    Ok(())
}

/// The warning of an inverse question whose answer is T = 0.
fn no_iterations_warning(warnings: &mut Vec<String>, t: u64, target: f64, accountant: &str) {
    if t == 0 {
        warnings.push(format!(
            "{accountant}: no T ≥ 1 meets ε ≤ {target} (T = 0 releases nothing)"
        ));
    }
}

/// Adds the fields every `account --json` output shares (the schema of
/// `account --event` too): `schema`, `question` ("forward" or "inverse") and
/// `answers`, one per accountant and T — `accountant` (rdp_classic, rdp_improved,
/// pld), `epsilon`, `delta`, `order`, `iterations` (an integer), and `sigma` or
/// `q` where the question solved for them. The mechanism's own fields stay beside.
fn uniform(v: &mut Value) {
    let delta = v["parameters"]["delta"].clone();
    let name = |conv: &str| match conv {
        "classic" => "rdp_classic",
        "improved" => "rdp_improved",
        "zcdp" => "zcdp",
        _ => "pld",
    };
    let mut answers = Vec::new();
    if let Some(rows) = v["results"].as_array() {
        for r in rows {
            for conv in ["classic", "improved", "tight", "zcdp"] {
                let x = &r[conv];
                if x.is_null() || x.get("error").is_some() {
                    continue;
                }
                answers.push(json!({
                    "accountant": name(conv),
                    "epsilon": x["epsilon"],
                    "delta": delta,
                    "order": x["alpha"],
                    "iterations": r["iterations"].as_u64(),
                }));
            }
        }
        v["question"] = json!("forward");
    }
    if let Some(inv) = v["inverse"].as_object() {
        let solve = v["solve"].as_str().unwrap_or("iterations").to_string();
        for conv in ["classic", "improved", "tight", "zcdp"] {
            let Some(x) = inv.get(conv) else { continue };
            let mut a = json!({
                "accountant": name(conv),
                "epsilon": x.get("epsilon_at").cloned().unwrap_or(Value::Null),
                "delta": delta,
                "order": x.get("alpha").cloned().unwrap_or(Value::Null),
                "iterations": v["parameters"]["iterations"].as_u64(),
            });
            let value = x.get("iterations").or_else(|| x.get("value"));
            match solve.as_str() {
                "iterations" => {
                    a["iterations"] = json!(value.and_then(|t| t.as_f64()).map(|t| t as u64));
                }
                other => a[other] = value.cloned().unwrap_or(Value::Null),
            }
            answers.push(a);
        }
        v["question"] = json!("inverse");
    }
    v["schema"] = json!(OUTPUT_SCHEMA);
    v["answers"] = json!(answers);
}
