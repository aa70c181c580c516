//! The built-in accounting questions of `api::account`: the privacy budget of a
//! planned DP-MCMC (subsampled Barker test), DP-SGLD/DPVI (Poisson-subsampled
//! Gaussian), penalty or DP-HMC run, before anything runs; and the inverse
//! questions (the largest T, smallest σ or largest q that meets a target ε),
//! always rounded to the safe side and checked by a forward evaluation. The
//! CLI's `account --mechanism …` fills a [`PlannedRun`] from its flags and
//! prints the [`PlannedAnswer`]; the messages name the options by their flags.

use serde_json::{json, Value};

use super::error::ApiError;
use crate::privacy::accountant::{BarkerAccount, SgldAccount};
use crate::privacy::event::{Conversion, Event};
use crate::privacy::pld::{poisson_gaussian_epsilon, PldOptions, TightEpsilon};
use crate::privacy::rdp::{check_clipping, AccountError};

mod sgld;
use sgld::sgld;

mod barker;
use barker::barker;

mod mh;

/// The schema of `account --json` output.
pub const OUTPUT_SCHEMA: &str = "privpost-account/1";

/// Which planned run a [`PlannedRun`] accounts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// DP-MCMC with the subsampled Barker test (heikkila2019 Theorem 2, Corollary 2).
    Barker,
    /// DP-SGLD (and DPVI): the Poisson-subsampled Gaussian mechanism.
    Sgld,
    /// The penalty algorithm (Yildirim & Ermis 2019): one Gaussian-noised
    /// log-likelihood ratio per iteration, noise τ·n^α × its sensitivity.
    Penalty,
    /// DP-HMC (Räisä, Koskela, Honkela 2021): one noised ratio (τ_l) and L + 1
    /// noised clipped gradients (τ_g) per iteration.
    DpHmc,
}

privpost_core::names::name_table!(Mechanism {
    Barker => "barker",
    Sgld => "sgld",
    Penalty => "penalty",
    DpHmc => "dp-hmc",
});

/// What an inverse question (`target_epsilon`) solves for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Solve {
    /// The largest number of iterations T.
    Iterations,
    /// The smallest noise multiplier σ (sgld; one iterations value).
    Sigma,
    /// The largest sampling rate q (sgld; one iterations value).
    Q,
}

privpost_core::names::name_table!(Solve {
    Iterations => "iterations",
    Sigma => "sigma",
    Q => "q",
});

/// A planned run's settings: each field is the CLI flag of the same name.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedRun {
    pub mechanism: Mechanism,
    /// Dataset size N (Barker, penalty, DP-HMC).
    pub n_data: Option<u64>,
    /// Minibatch size b, drawn without replacement (Barker).
    pub batch: Option<u64>,
    /// The numbers of iterations T of the forward question.
    pub iterations: Vec<u64>,
    /// δ of the (ε, δ) statement (Barker default: 1/N).
    pub delta: Option<f64>,
    /// Search only orders α < alpha_max (default: every valid order).
    pub alpha_max: Option<u32>,
    /// Tempering N₀, to check the clipping bound |r| ≤ √b/N₀ (with `clip`).
    pub n0: Option<f64>,
    /// Clipping threshold of the log-likelihood ratios (with `n0`).
    pub clip: Option<f64>,
    /// Sampling rate (SGLD).
    pub q: Option<f64>,
    /// Noise multiplier (SGLD).
    pub sigma: Option<f64>,
    /// Evaluate at this order only.
    pub alpha: Option<f64>,
    /// The inverse question: what meets this ε (see `solve`).
    pub target_epsilon: Option<f64>,
    pub solve: Solve,
    /// Penalty: τ, the noise scale relative to the ratio's sensitivity and n^α.
    pub tau: Option<f64>,
    /// Penalty: the exponent α of n in the noise σ = τ·n^α·c.
    pub n_exponent: f64,
    /// DP-HMC: τ_l of the likelihood-ratio release.
    pub tau_l: Option<f64>,
    /// DP-HMC: τ_g of each gradient release.
    pub tau_g: Option<f64>,
    /// DP-HMC: leapfrog steps L per iteration (L + 1 gradient releases).
    pub leapfrog: Option<u64>,
    /// SGLD: run the tight (privacy-loss distribution) accountant too.
    pub tight: bool,
    /// ε slack η of the tight (PLD) accountant (default 0.005).
    pub pld_slack: Option<f64>,
    /// Show the steps of the tight accountant's search for T on stderr (the
    /// CLI on a terminal: each step can take seconds).
    pub progress: bool,
}

impl PlannedRun {
    /// A run of `mechanism` with nothing else set (the CLI's defaults).
    pub fn new(mechanism: Mechanism) -> Self {
        PlannedRun {
            mechanism,
            n_data: None,
            batch: None,
            iterations: Vec::new(),
            delta: None,
            alpha_max: None,
            n0: None,
            clip: None,
            q: None,
            sigma: None,
            alpha: None,
            target_epsilon: None,
            solve: Solve::Iterations,
            tau: None,
            n_exponent: 0.5,
            tau_l: None,
            tau_g: None,
            leapfrog: None,
            tight: true,
            pld_slack: None,
            progress: false,
        }
    }

    /// `solve` (σ or q) on an event of T repeated Poisson-subsampled Gaussian
    /// steps, as the built-in DP-SGLD question: the solved-for value comes
    /// from the search, not from the event. `source` names the event in messages.
    pub fn solving_sgld(event: &Event, base: &PlannedRun, source: &str) -> Result<Self, ApiError> {
        let Event::Repeat {
            times,
            event: inner,
        } = event
        else {
            return Err(ApiError::input("event", format!(
                "account: {source}: --solve sigma/q needs {{\"mechanism\": \"repeat\", \"times\": T, \"event\": {{\"mechanism\": \"poisson_subsampled_gaussian\", …}}}}"
            )));
        };
        let Event::PoissonSubsampledGaussian { q, sigma, .. } = **inner else {
            return Err(ApiError::input("event", format!(
                "account: {source}: --solve sigma/q applies to repeated poisson_subsampled_gaussian steps only"
            )));
        };
        Ok(PlannedRun {
            mechanism: Mechanism::Sgld,
            q: (base.solve != Solve::Q).then_some(q),
            sigma: (base.solve != Solve::Sigma).then_some(sigma),
            iterations: vec![*times],
            ..base.clone()
        })
    }
}

/// The answer of [`account_planned`]: the `account --json` document, its text
/// rendering, and what the CLI says on stderr.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedAnswer {
    /// The `privpost-account/1` document (`question`, `answers`, the mechanism's own fields).
    pub document: Value,
    /// The text answer, one line per element (the intermediate quantities
    /// shown beside the answers).
    pub lines: Vec<String>,
    /// Loud warnings: an order at the cap, a search cut short, an inverse answer of T = 0.
    pub warnings: Vec<String>,
    /// Notes that qualify the answer without a fault (δ ≥ 1/N).
    pub notes: Vec<String>,
    /// For an inverse question on the iterations that no T ≥ 1 meets: the target ε.
    pub unmet_target: Option<f64>,
}

/// The answer of one mechanism: its text lines, its JSON document, its warnings.
type Answer = (Vec<String>, Value, Vec<String>);

/// A value of the planned run that is not allowed (its flag named in `message`).
fn input(message: impl std::fmt::Display) -> ApiError {
    ApiError::input("run", format!("account: {message}"))
}

fn bad(e: AccountError) -> ApiError {
    input(e)
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

/// The privacy budget of a planned run, or its inverse question (see the module header).
pub fn account_planned(a: &PlannedRun) -> Result<PlannedAnswer, ApiError> {
    if let Some(slack) = a.pld_slack {
        if !(slack > 0.0 && slack <= 1.0) {
            return Err(input(format!("--pld-slack = {slack}: 0 < η ≤ 1")));
        }
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
    if matches!(a.mechanism, Mechanism::Barker | Mechanism::Sgld)
        && (a.tau.is_some() || a.tau_l.is_some() || a.tau_g.is_some() || a.leapfrog.is_some())
    {
        return Err(input(
            "--tau, --tau-l, --tau-g and --leapfrog belong to --mechanism penalty | dp-hmc",
        ));
    }
    let (lines, mut value, warnings) = match a.mechanism {
        Mechanism::Barker => barker(a)?,
        Mechanism::Sgld => sgld(a)?,
        Mechanism::Penalty | Mechanism::DpHmc => mh::account(a)?,
    };
    uniform(&mut value);
    value["warnings"] = json!(warnings);
    // δ ≥ 1/N: said beside the answer (a note, not a warning: the paper's own choice)
    let mut notes = Vec::new();
    if let (Mechanism::Barker, Some(n)) = (a.mechanism, a.n_data) {
        let delta = a.delta.unwrap_or(1.0 / n as f64);
        if delta >= 1.0 / n as f64 {
            notes.push(format!(
                "δ = {delta:e} ≥ 1/N = {:e}: a weak guarantee (releasing one record in the clear is (0, 1/N)-DP); δ ≪ 1/N is the usual choice",
                1.0 / n as f64
            ));
            value["notes"] = json!(notes);
        }
    }
    // an inverse question no T ≥ 1 answers: said in the output (the warning)
    let none = value["question"] == "inverse"
        && value["solve"] == "iterations"
        && value["answers"]
            .as_array()
            .is_some_and(|v| !v.is_empty() && v.iter().all(|x| x["iterations"] == 0));
    Ok(PlannedAnswer {
        document: value,
        lines,
        warnings,
        notes,
        unmet_target: none.then(|| a.target_epsilon.unwrap_or_default()),
    })
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

#[cfg(test)]
mod tests {
    use super::{account_planned, Mechanism, PlannedRun, Solve};
    use crate::api::ErrorKind;
    use crate::privacy::event::Event;

    #[test]
    fn a_forward_question_has_one_answer_per_accountant_and_t() {
        let run = PlannedRun {
            n_data: Some(1000),
            tau: Some(0.1),
            delta: Some(1e-5),
            iterations: vec![100, 1000],
            ..PlannedRun::new(Mechanism::Penalty)
        };
        let a = account_planned(&run).expect("answers");
        let answers = a.document["answers"].as_array().expect("answers");
        assert_eq!(answers.len(), 4);
        assert_eq!(a.document["question"], "forward");
        assert!(a.unmet_target.is_none());
        // ε grows with T, by each accountant
        assert!(answers[2]["epsilon"].as_f64() > answers[0]["epsilon"].as_f64());
    }

    #[test]
    fn an_unmet_target_is_in_the_answer_not_an_error() {
        let run = PlannedRun {
            n_data: Some(1_000_000),
            batch: Some(1000),
            delta: Some(1e-6),
            target_epsilon: Some(1e-4),
            ..PlannedRun::new(Mechanism::Barker)
        };
        let a = account_planned(&run).expect("answers");
        assert_eq!(a.unmet_target, Some(1e-4));
        assert!(!a.warnings.is_empty());
        let e = account_planned(&PlannedRun::new(Mechanism::Barker)).expect_err("no T");
        assert_eq!((e.kind, e.argument), (ErrorKind::Input, Some("run")));
        assert!(e.message.contains("--iterations is required"), "{e}");
    }

    #[test]
    fn solving_sigma_on_an_event_keeps_its_q_and_t() {
        let event = Event::repeat(
            1000,
            Event::PoissonSubsampledGaussian {
                q: 0.01,
                sigma: 1.1,
                sample: None,
            },
        );
        let base = PlannedRun {
            solve: Solve::Sigma,
            ..PlannedRun::new(Mechanism::Barker)
        };
        let run = PlannedRun::solving_sgld(&event, &base, "e.json").expect("sgld");
        assert_eq!(
            (run.mechanism, run.q, run.sigma, run.iterations),
            (Mechanism::Sgld, Some(0.01), None, vec![1000])
        );
        let bare = Event::PoissonSubsampledGaussian {
            q: 0.1,
            sigma: 1.0,
            sample: None,
        };
        assert!(PlannedRun::solving_sgld(&bare, &base, "e.json").is_err());
    }
}
