//! `api::account`: the privacy of an event of the ledger's vocabulary (forward:
//! ε at δ by each accountant; inverse: the largest number of repeats that meets
//! a target ε), or the re-verification of a ledger entry's claim. The CLI's
//! `account --event` and the Python module's `privpost.account` both call it;
//! the CLI prints the answer, Python returns it as an `AccountAnswer`.

use serde::Serialize;
use serde_json::Value;

use super::error::ApiError;
use crate::privacy::event::Event;
use crate::privacy::event_account::{self, Answer};
use crate::privacy::ledger::{Entry, PLD_SLACK};
pub use crate::privacy::tradeoff::TprAtFpr;
use crate::privacy::tradeoff::{noise_factor, scale_noise, Curve, Method, Target};

/// The version of the event file format.
pub const EVENT_SCHEMA: &str = "privpost-event/1";

/// What an event value holds: an event, or a ledger entry to verify.
#[derive(Debug, Clone)]
pub enum EventInput {
    Event(Event),
    Entry(Box<Entry>),
}

/// How `account` accounts.
#[derive(Debug, Clone, PartialEq)]
pub struct AccountOptions {
    /// δ of the (ε, δ) statement (default: the event's own, else each accountant's).
    pub delta: Option<f64>,
    /// The inverse question: the largest number of repeats with ε ≤ this.
    pub target_epsilon: Option<f64>,
    /// Run the tight (privacy-loss distribution) accountant where there is one.
    pub tight: bool,
    /// ε slack η of the PLD accountant (0 < η ≤ 1; default 0.005).
    pub pld_slack: Option<f64>,
    /// Search Rényi orders below this (≥ 2; default: every order 1.1 … 1024).
    pub alpha_max: Option<u32>,
    /// The false-positive rates at which the attacker's TPR is read off the
    /// trade-off curve (each in (0, 1); default 10⁻³, 10⁻², 10⁻¹).
    pub fprs: Vec<f64>,
    /// The prior of the membership attacker's Bayes risk (in (0, 1); default ½).
    pub prior: f64,
    /// Calibration to a risk: the attacker's TPR at FPR `at_fpr` at most this.
    pub target_tpr: Option<f64>,
    /// The FPR of `target_tpr`.
    pub at_fpr: Option<f64>,
    /// Calibration to a risk: the advantage max(TPR − FPR) at most this.
    pub target_advantage: Option<f64>,
}

/// The FPRs at which `account` reads the attacker's TPR by default.
pub const DEFAULT_FPRS: [f64; 3] = [1e-3, 1e-2, 1e-1];

/// What an attacker can do against an event: its f-DP trade-off curve and the
/// numbers read off it (`privacy::tradeoff`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttackRisk {
    /// How the curve was computed (`gaussian_exact`, `laplace_quadrature`,
    /// `pld_grid`, `pld_connect_dots`, `epsilon_delta`).
    pub method: Method,
    pub method_description: &'static str,
    /// The smallest μ whose Gaussian curve lies below the event's wherever the FPR
    /// and the miss rate are at least `mu_rates` (gdpnum's convention); `None` when
    /// the miss rate is below that already at that FPR.
    pub mu: Option<f64>,
    /// The smallest FPR and miss rate μ covers (10⁻¹⁰, gdpnum's convention): μ's
    /// Gaussian curve lies below the event's wherever both rates are at least this.
    pub mu_rates: f64,
    /// gdpnum's regret of that fit (0 for a Gaussian curve).
    pub regret: Option<f64>,
    /// The attacker's largest TPR at each requested FPR.
    pub tpr_at_fpr: Vec<TprAtFpr>,
    /// max over tests of TPR − FPR.
    pub advantage: f64,
    pub prior: f64,
    /// The smallest error of a membership attacker with that prior.
    pub bayes_risk: f64,
    /// The curve: (α, β(α)) at 100 α from 10⁻⁶ to 1.
    pub curve: Vec<[f64; 2]>,
}

/// The attack risk of `event` (see [`AttackRisk`]), or why there is none.
pub fn attack_risk(event: &Event, fprs: &[f64], prior: f64) -> Result<AttackRisk, String> {
    let curve = Curve::of_event(event).map_err(|e| e.0)?;
    let mu = curve.mu();
    Ok(AttackRisk {
        method: curve.method,
        method_description: curve.method.describe(),
        mu,
        mu_rates: crate::privacy::tradeoff::MU_RATES,
        regret: mu.map(|m| curve.regret(m)),
        tpr_at_fpr: fprs
            .iter()
            .map(|&fpr| TprAtFpr {
                fpr,
                tpr: curve.tpr(fpr),
            })
            .collect(),
        advantage: curve.advantage(),
        prior,
        bayes_risk: curve.bayes_risk(prior),
        curve: curve.table(100).into_iter().map(|(a, b)| [a, b]).collect(),
    })
}

impl Default for AccountOptions {
    fn default() -> Self {
        AccountOptions {
            delta: None,
            target_epsilon: None,
            tight: true,
            pld_slack: None,
            alpha_max: None,
            fprs: DEFAULT_FPRS.to_vec(),
            prior: 0.5,
            target_tpr: None,
            at_fpr: None,
            target_advantage: None,
        }
    }
}

/// One accountant's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Accounted {
    /// `rdp`, `pld`, `zcdp`, `pure`, … (privacy::event_account).
    pub accountant: &'static str,
    pub epsilon: f64,
    pub delta: f64,
    /// The Rényi order the bound was taken at, for an RDP accountant.
    pub order: Option<f64>,
    /// For a PLD answer: the most by which it may exceed the exact ε.
    pub slack: f64,
    /// The number of repeats the answer is for (a `repeat` event, or the inverse answer).
    pub iterations: Option<u64>,
}

impl Accounted {
    fn of(a: &Answer, iterations: Option<u64>) -> Self {
        Accounted {
            accountant: a.accountant,
            epsilon: a.epsilon,
            delta: a.delta,
            order: a.order,
            slack: a.slack,
            iterations,
        }
    }
}

/// A ledger entry's claim beside the ε recomputed from its event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verification {
    pub series: String,
    /// The claim as the entry states it.
    pub claim: Value,
    pub claim_epsilon: f64,
    pub claim_delta: f64,
    pub recomputed_epsilon: Option<f64>,
    /// Whether the claim follows from the event (within 10⁻⁹ relative).
    pub holds: bool,
    /// Why it does not, when it does not.
    #[serde(skip)]
    pub reason: Option<String>,
}

/// The answer of [`account`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "question", rename_all = "lowercase")]
pub enum AccountAnswer {
    /// ε at δ of the event, by each accountant, and what an attacker can do.
    Forward {
        mechanism: String,
        answers: Vec<Accounted>,
        /// The trade-off curve and the numbers read off it; `None` (with a
        /// warning) where privpost has no curve for the event.
        attack: Option<AttackRisk>,
        warnings: Vec<String>,
    },
    /// The largest number of repeats T with ε ≤ the target (`answers`: the
    /// forward check at T, empty when even T = 1 exceeds it).
    Inverse {
        mechanism: String,
        target_epsilon: f64,
        #[serde(skip)]
        largest_repeat: Option<u64>,
        answers: Vec<Accounted>,
        warnings: Vec<String>,
    },
    /// Calibration to a target attack risk: the largest pure ε and μ-GDP that meet
    /// it, and the smallest factor on the event's noise scales that does.
    Calibrate {
        mechanism: String,
        target: Target,
        /// The largest pure ε whose trade-off curve meets the target.
        pure_epsilon: f64,
        /// The largest μ whose Gaussian curve meets it (a Gaussian mechanism of
        /// sensitivity Δ meets it at σ = Δ/μ).
        gdp_mu: f64,
        /// The smallest factor (10⁻³ relative, rounded up) on every noise scale of
        /// the event that meets the target; `None` when the event's noise cannot be
        /// scaled or even 10⁶ times it does not meet it (see `warnings`).
        noise_factor: Option<f64>,
        /// The event with its noise scaled by `noise_factor`.
        calibrated_event: Option<Event>,
        /// The calibrated event's attack risk (it meets the target).
        attack: Option<AttackRisk>,
        warnings: Vec<String>,
    },
    /// A ledger entry re-verified.
    Verify {
        #[serde(flatten)]
        verification: Verification,
        warnings: Vec<String>,
    },
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
fn refuse_unknown<T: Serialize>(
    source: &str,
    input: &Value,
    value: &T,
    prefix: &str,
) -> Result<(), ApiError> {
    let parsed = serde_json::to_value(value).map_err(|e| ApiError::failed(e.to_string()))?;
    match unknown_key(input, &parsed, prefix) {
        Some(k) => Err(ApiError::input(
            "event",
            format!(
                "{source}: key `{k}`: unknown (a misspelt key would be ignored; the event vocabulary's keys: docs/bring-your-own.md, \"Your privacy events\")"
            ),
        )
        .with_key(k)),
        None => Ok(()),
    }
}

/// The key of serde's "missing field `x`" message.
fn missing_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("missing field `")?;
    rest.split('`').next().filter(|k| !k.is_empty())
}

/// An event value (an event file's content, or the Python dict), checked: `{"schema":
/// "privpost-event/1", "event": EVENT}`, a bare EVENT (with `mechanism`), or a
/// ledger entry from a manifest. Messages name it `source`.
pub fn read_event(v: &Value, source: &str) -> Result<EventInput, ApiError> {
    let bad = |key: &str, m: String| {
        ApiError::input(
            "event",
            format!(
                "{source}: key `{key}`: {m} (allowed: {{\"schema\": \"{EVENT_SCHEMA}\", \"event\": EVENT}}, a bare EVENT with `mechanism`, or a ledger entry from a manifest; docs/bring-your-own.md, \"Your privacy events\")"
            ),
        )
        .with_key(key)
    };
    if !v.is_object() {
        return Err(ApiError::input(
            "event",
            format!("{source}: an object (a JSON object, a Python dict) with `mechanism`, `event` or `guarantee`"),
        ));
    }
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
        refuse_unknown(source, v, &entry, "")?;
        let mut entry = entry;
        entry.event = entry
            .event
            .resolve_samples()
            .map_err(|e| bad("event", e.to_string()))?;
        entry
            .event
            .validate()
            .map_err(|e| bad("event", e.to_string()))?;
        return Ok(EventInput::Entry(Box::new(entry)));
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
        refuse_unknown(source, &value, &event, "")?;
    } else {
        if let Some(k) = v
            .as_object()
            .and_then(|o| o.keys().find(|k| *k != "schema" && *k != "event"))
        {
            return Err(bad(k, "unknown (allowed at the top: schema, event)".into()));
        }
        refuse_unknown(source, &value, &event, "event")?;
    }
    // releases named on one sample are accounted on that sample (OpenDP #2933)
    let event = event
        .resolve_samples()
        .map_err(|e| bad(key, e.to_string()))?;
    event.validate().map_err(|e| bad(key, e.to_string()))?;
    Ok(EventInput::Event(event))
}

/// The event's `mechanism` name, as its JSON tags it.
pub fn mechanism_name(e: &Event) -> String {
    serde_json::to_value(e)
        .ok()
        .and_then(|v| {
            v.get("mechanism")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_default()
}

/// Checks the options every question shares.
fn check(o: &AccountOptions) -> Result<(), ApiError> {
    if let Some(slack) = o.pld_slack {
        if !(slack > 0.0 && slack <= 1.0) {
            return Err(ApiError::input(
                "pld_slack",
                format!("pld_slack = {slack}: 0 < η ≤ 1"),
            ));
        }
    }
    if let Some(m) = o.alpha_max.filter(|m| *m < 2) {
        return Err(ApiError::input(
            "alpha_max",
            format!("alpha_max = {m}: ≥ 2 (the orders 1.1 … 1024 below it are searched)"),
        ));
    }
    if let Some(d) = o
        .delta
        .filter(|d| !(d.is_finite() && (0.0..1.0).contains(d)))
    {
        return Err(ApiError::input("delta", format!("delta = {d}: 0 ≤ δ < 1")));
    }
    if o.fprs.is_empty() {
        return Err(ApiError::input(
            "fpr",
            "fpr: at least one false-positive rate in (0, 1)",
        ));
    }
    if let Some(f) = o.fprs.iter().find(|f| !(**f > 0.0 && **f < 1.0)) {
        return Err(ApiError::input(
            "fpr",
            format!("fpr = {f}: a false-positive rate in (0, 1)"),
        ));
    }
    if !(o.prior > 0.0 && o.prior < 1.0) {
        return Err(ApiError::input(
            "prior",
            format!("prior = {}: a probability in (0, 1)", o.prior),
        ));
    }
    if let Some(t) = o.target_epsilon.filter(|t| !(t.is_finite() && *t > 0.0)) {
        return Err(ApiError::input(
            "target_epsilon",
            format!("target_epsilon = {t}: a finite ε > 0"),
        ));
    }
    risk_target(o)?;
    Ok(())
}

/// The calibration target the options ask for, checked (`None`: no calibration).
fn risk_target(o: &AccountOptions) -> Result<Option<Target>, ApiError> {
    let target = match (o.target_tpr, o.at_fpr, o.target_advantage) {
        (None, None, None) => return Ok(None),
        (Some(tpr), Some(fpr), None) => Target::Tpr { tpr, fpr },
        (None, None, Some(advantage)) => Target::Advantage { advantage },
        (Some(_), None, _) => {
            return Err(ApiError::input(
                "at_fpr",
                "target_tpr needs at_fpr: the FPR at which the attacker's TPR is bounded",
            ))
        }
        (None, Some(_), _) => {
            return Err(ApiError::input(
                "target_tpr",
                "at_fpr needs target_tpr: the TPR bound at that FPR",
            ))
        }
        (Some(_), Some(_), Some(_)) => {
            return Err(ApiError::input(
                "target_advantage",
                "target_advantage with target_tpr: one target at a time",
            ))
        }
    };
    if o.target_epsilon.is_some() {
        return Err(ApiError::input(
            "target_epsilon",
            "target_epsilon with a target attack risk: one target at a time",
        ));
    }
    let argument = match target {
        Target::Tpr { tpr, fpr } if !(fpr > 0.0 && fpr < 1.0) => {
            let _ = tpr;
            "at_fpr"
        }
        Target::Tpr { .. } => "target_tpr",
        Target::Advantage { .. } => "target_advantage",
    };
    target
        .check()
        .map(Some)
        .map_err(|m| ApiError::input(argument, m))
}

fn settings(o: &AccountOptions) -> event_account::Options {
    event_account::Options {
        tight: o.tight,
        pld_slack: o.pld_slack.unwrap_or(PLD_SLACK),
        alpha_max: o.alpha_max.map(f64::from),
    }
}

/// The privacy of `input` (see the module header); `source` names it in messages.
pub fn account(
    input: &EventInput,
    options: &AccountOptions,
    source: &str,
) -> Result<AccountAnswer, ApiError> {
    check(options)?;
    let event = match input {
        EventInput::Entry(entry) => {
            if risk_target(options)?.is_some() {
                return Err(ApiError::input(
                    if options.target_advantage.is_some() { "target_advantage" } else { "target_tpr" },
                    "a target attack risk with a ledger entry: an entry is verified, not calibrated (allowed: a bare event)",
                ));
            }
            if options.target_epsilon.is_some() {
                return Err(ApiError::input(
                    "target_epsilon",
                    "target_epsilon with a ledger entry: an entry is verified, not solved for (allowed: a bare event)",
                ));
            }
            return Ok(AccountAnswer::Verify {
                verification: verify(entry),
                warnings: Vec::new(),
            });
        }
        EventInput::Event(e) => e,
    };
    let in_source = |m: String| ApiError::input("event", format!("{source}: {m}"));
    let mechanism = mechanism_name(event);
    if let Some(target) = risk_target(options)? {
        return Ok(calibrate(event, target, mechanism, options));
    }
    if let Some(target) = options.target_epsilon {
        let t = event_account::largest_repeat(
            event,
            target,
            options.delta,
            options.alpha_max.map(f64::from),
        )
        .map_err(|e| in_source(e.to_string()))?;
        let mut answers = Vec::new();
        if let Some(t) = t {
            let e = Event::repeat(
                t,
                match event {
                    Event::Repeat { event, .. } => (**event).clone(),
                    other => other.clone(),
                },
            );
            // the inverse search covers the Gaussian closed form, not the
            // grids: check forward with the same accountants
            let gaussian = crate::privacy::gaussian_pld::event_mu(&e).is_some();
            let opts = event_account::Options {
                tight: gaussian && options.tight,
                ..settings(options)
            };
            let fwd = event_account::forward(&e, options.delta, &opts)
                .map_err(|m| in_source(m.to_string()))?;
            answers.extend(event_account::best(&fwd.answers).map(|b| Accounted::of(b, Some(t))));
        }
        return Ok(AccountAnswer::Inverse {
            mechanism,
            target_epsilon: target,
            largest_repeat: t,
            answers,
            warnings: Vec::new(),
        });
    }
    let mut fwd = event_account::forward(event, options.delta, &settings(options))
        .map_err(|m| in_source(m.to_string()))?;
    let iterations = match event {
        Event::Repeat { times, .. } => Some(*times),
        _ => None,
    };
    let attack = match attack_risk(event, &options.fprs, options.prior) {
        Ok(a) => Some(a),
        Err(why) => {
            fwd.warnings
                .push(format!("attack risk: not computed: {why}"));
            None
        }
    };
    Ok(AccountAnswer::Forward {
        mechanism,
        answers: fwd
            .answers
            .iter()
            .map(|a| Accounted::of(a, iterations))
            .collect(),
        attack,
        warnings: fwd.warnings,
    })
}

/// The calibration answer (see [`AccountAnswer::Calibrate`]).
fn calibrate(
    event: &Event,
    target: Target,
    mechanism: String,
    options: &AccountOptions,
) -> AccountAnswer {
    let mut warnings = Vec::new();
    let factor = match noise_factor(event, target) {
        Ok(Some(c)) => Some(c),
        Ok(None) => {
            warnings.push(
                "noise factor: even 10⁶ times the event's noise does not meet the target".into(),
            );
            None
        }
        Err(why) => {
            warnings.push(format!("noise factor: not computed: {why}"));
            None
        }
    };
    let calibrated_event = factor.and_then(|c| scale_noise(event, c).ok());
    let attack = calibrated_event
        .as_ref()
        .and_then(|e| attack_risk(e, &options.fprs, options.prior).ok());
    AccountAnswer::Calibrate {
        mechanism,
        target,
        pure_epsilon: target.pure_epsilon(),
        gdp_mu: target.gdp_mu(),
        noise_factor: factor,
        calibrated_event,
        attack,
        warnings,
    }
}

/// A ledger entry's claim, recomputed from its event.
pub fn verify(entry: &Entry) -> Verification {
    let (claim_epsilon, claim_delta) = entry.guarantee.epsilon_delta();
    let holds = entry.verify(1e-9);
    Verification {
        series: entry.series.clone(),
        claim: serde_json::to_value(&entry.guarantee).unwrap_or(Value::Null),
        claim_epsilon,
        claim_delta,
        recomputed_epsilon: entry.recomputed_epsilon(),
        holds: holds.is_ok(),
        reason: holds.err().map(|e| e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::{account, read_event, AccountAnswer, AccountOptions, EventInput};
    use crate::api::error::ErrorKind;
    use serde_json::json;

    fn event(v: serde_json::Value) -> EventInput {
        read_event(&v, "event").unwrap()
    }

    #[test]
    fn a_laplace_event_is_pure_dp_at_its_epsilon() {
        let e = event(json!({"mechanism": "laplace", "l1_sensitivity": 1.0, "scale": 2.0}));
        let AccountAnswer::Forward { answers, .. } =
            account(&e, &AccountOptions::default(), "event").unwrap()
        else {
            panic!("a forward answer")
        };
        let best = answers
            .iter()
            .map(|a| a.epsilon)
            .fold(f64::INFINITY, f64::min);
        assert!((best - 0.5).abs() < 1e-12, "{answers:?}");
    }

    #[test]
    fn unknown_and_missing_keys_are_named() {
        let e = read_event(
            &json!({"mechanism": "laplace", "l1_sensitivity": 1.0, "scale": 2.0, "scael": 1}),
            "event",
        )
        .unwrap_err();
        assert_eq!(
            (e.kind, e.key.as_deref()),
            (ErrorKind::Input, Some("scael"))
        );
        let e = read_event(
            &json!({"event": {"mechanism": "laplace", "scale": 2.0}}),
            "x",
        )
        .unwrap_err();
        assert_eq!(e.key.as_deref(), Some("event.l1_sensitivity"), "{e}");
        let e = read_event(&json!([1, 2]), "x").unwrap_err();
        assert_eq!(e.argument, Some("event"));
    }

    #[test]
    fn options_are_checked_naming_the_argument() {
        let e = event(json!({"mechanism": "laplace", "l1_sensitivity": 1.0, "scale": 2.0}));
        for (o, arg) in [
            (
                AccountOptions {
                    delta: Some(1.5),
                    ..Default::default()
                },
                "delta",
            ),
            (
                AccountOptions {
                    pld_slack: Some(0.0),
                    ..Default::default()
                },
                "pld_slack",
            ),
            (
                AccountOptions {
                    alpha_max: Some(1),
                    ..Default::default()
                },
                "alpha_max",
            ),
            (
                AccountOptions {
                    target_epsilon: Some(f64::NAN),
                    ..Default::default()
                },
                "target_epsilon",
            ),
        ] {
            assert_eq!(account(&e, &o, "event").unwrap_err().argument, Some(arg));
        }
    }
}
