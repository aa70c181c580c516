//! `privpost account`: parse the flags, call [`api::account()`],
//! [`api::account_planned`] or [`api::verify_ledger`], print the answer (text
//! or `--json`, schema `privpost-account/1`) and exit 1 where the answer says
//! a claim does not hold or no T meets the target.
//!
//! `--event FILE.json` holds one of: `{"schema": "privpost-event/1", "event":
//! EVENT}`, a bare EVENT (an object with `mechanism`), or a ledger entry as a
//! manifest's `privacy` array holds it (`series`, `event`, `guarantee`, …).
//! EVENT is the ledger's vocabulary (`privacy::ledger::Event`, tagged by
//! `mechanism`).

use std::io::IsTerminal;

use clap::builder::PossibleValue;
use serde_json::{json, Value};

use super::CommandError;
use crate::api::planned::{Mechanism, PlannedRun, Solve, OUTPUT_SCHEMA};
use crate::api::{self, AccountAnswer, AccountOptions, EventInput, LedgerCheck, Verification};
use crate::privacy::tradeoff::Target;

impl clap::ValueEnum for Mechanism {
    fn value_variants<'a>() -> &'a [Self] {
        Mechanism::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.as_str()).help(match self {
            Mechanism::Barker => {
                "DP-MCMC with the subsampled Barker test (heikkila2019 Theorem 2, Corollary 2)"
            }
            Mechanism::Sgld => "DP-SGLD (and DPVI): the Poisson-subsampled Gaussian mechanism",
            Mechanism::Penalty => "The penalty algorithm (Yildirim & Ermis 2019): one Gaussian-noised log-likelihood ratio per iteration, noise τ·n^α × its sensitivity",
            Mechanism::DpHmc => "DP-HMC (Räisä, Koskela, Honkela 2021): one noised ratio (τ_l) and L + 1 noised clipped gradients (τ_g) per iteration",
        }))
    }
}

impl clap::ValueEnum for Solve {
    fn value_variants<'a>() -> &'a [Self] {
        Solve::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.as_str()).help(match self {
            Solve::Iterations => "The largest number of iterations T",
            Solve::Sigma => "The smallest noise multiplier σ (sgld; one --iterations value)",
            Solve::Q => "The largest sampling rate q (sgld; one --iterations value)",
        }))
    }
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Orders: every valid order is searched by default (Barker: 2 ≤ α < b/5; SGLD: α ≥ 2 up to 10^6, \
ended early by a proven stop rule); --alpha-max caps the search and a warning says when the best order sits at the cap.\n\n\
Examples:\n  privpost account --n-data 1000000 --batch 1000 --iterations 1000,20000\n  \
privpost account --n-data 1000000 --batch 1000 --iterations 20000 --delta 1e-6 --n0 100 --clip 0.313\n  \
privpost account --mechanism sgld --q 1e-4 --sigma 1.19523 --iterations 100000,6000000 --delta 2e-6\n  \
privpost account --n-data 1000000 --batch 1000 --delta 1e-6 --target-epsilon 1\n  \
privpost account --mechanism sgld --q 1e-4 --iterations 6000000 --delta 2e-6 --target-epsilon 1 --solve sigma --json"
)]
pub struct AccountArgs {
    #[arg(long, value_enum, default_value = "barker")]
    pub mechanism: Mechanism,
    /// Dataset size N (Barker).
    #[arg(long, value_parser = super::integer_arg::<u64>)]
    pub n_data: Option<u64>,
    /// Minibatch size b, drawn without replacement (Barker).
    #[arg(long, value_parser = super::integer_arg::<u64>)]
    pub batch: Option<u64>,
    /// Iterations T; several separated by commas.
    #[arg(long, value_delimiter = ',', value_parser = super::integer_arg::<u64>)]
    pub iterations: Vec<u64>,
    /// δ of the (ε, δ) statement (Barker default: 1/N).
    #[arg(long)]
    pub delta: Option<f64>,
    /// Search only orders α < alpha-max (default: every valid order).
    #[arg(long, value_parser = super::integer_arg::<u32>)]
    pub alpha_max: Option<u32>,
    /// Tempering N₀, to check the clipping bound |r| ≤ √b/N₀ (with --clip).
    #[arg(long)]
    pub n0: Option<f64>,
    /// Clipping threshold of the log-likelihood ratios (with --n0).
    #[arg(long)]
    pub clip: Option<f64>,
    /// Sampling rate (SGLD).
    #[arg(long)]
    pub q: Option<f64>,
    /// Noise multiplier (SGLD).
    #[arg(long)]
    pub sigma: Option<f64>,
    /// Evaluate at this order only: Barker, an integer 2 ≤ α < b/5; SGLD, any real α > 1.
    #[arg(long)]
    pub alpha: Option<f64>,
    /// Answer the inverse question: what meets this ε (see --solve).
    #[arg(long)]
    pub target_epsilon: Option<f64>,
    /// --event: calibrate to a risk: the largest pure ε and μ-GDP, and the smallest
    /// factor on the event's noise, with which the attacker's TPR at --at-fpr is at
    /// most this (in (FPR, 1)).
    #[arg(long, requires = "at_fpr", requires = "event")]
    pub target_tpr: Option<f64>,
    /// The FPR of --target-tpr, in (0, 1).
    #[arg(long, requires = "target_tpr")]
    pub at_fpr: Option<f64>,
    /// --event: calibrate to a risk: the advantage max(TPR − FPR) at most this, in (0, 1).
    #[arg(long, conflicts_with = "target_tpr", requires = "event")]
    pub target_advantage: Option<f64>,
    /// With --target-epsilon: solve for the iterations, σ or q.
    #[arg(long, value_enum, default_value = "iterations")]
    pub solve: Solve,
    /// Penalty: τ, the noise scale relative to the ratio's sensitivity and n^α.
    #[arg(long)]
    pub tau: Option<f64>,
    /// Penalty: the exponent α of n in the noise σ = τ·n^α·c (Yildirim & Ermis recommend ½).
    #[arg(long, default_value_t = 0.5)]
    pub n_exponent: f64,
    /// DP-HMC: τ_l of the likelihood-ratio release.
    #[arg(long)]
    pub tau_l: Option<f64>,
    /// DP-HMC: τ_g of each gradient release.
    #[arg(long)]
    pub tau_g: Option<f64>,
    /// DP-HMC: leapfrog steps L per iteration (L + 1 gradient releases).
    #[arg(long, value_parser = super::integer_arg::<u64>)]
    pub leapfrog: Option<u64>,
    /// SGLD: skip the tight (privacy-loss distribution) accountant.
    #[arg(long)]
    pub no_tight: bool,
    /// ε slack η of the tight (PLD) accountants, for SGLD and --event (the answer
    /// exceeds the exact ε by at most about η) [default: 0.005].
    #[arg(long)]
    pub pld_slack: Option<f64>,
    /// --event: the false-positive rates at which to read the attacker's TPR off
    /// the event's trade-off curve, comma-separated, each in (0, 1).
    #[arg(long, value_delimiter = ',', default_values_t = crate::api::DEFAULT_FPRS)]
    pub fpr: Vec<f64>,
    /// --event: the prior of the membership attacker's Bayes risk, in (0, 1).
    #[arg(long, default_value_t = 0.5)]
    pub prior: f64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Account for your own release: a JSON file holding an event of the ledger's
    /// vocabulary, or a ledger entry (event + claim) copied from any manifest
    /// (schema: docs/bring-your-own.md, "Your privacy events").
    #[arg(long, value_name = "FILE.json", conflicts_with = "manifest")]
    pub event: Option<std::path::PathBuf>,
    /// Re-verify every ledger entry of a run's manifest.json and compose them all.
    #[arg(long, value_name = "MANIFEST.json")]
    pub manifest: Option<std::path::PathBuf>,
}

impl AccountArgs {
    /// The planned run the flags describe.
    fn planned(&self) -> PlannedRun {
        PlannedRun {
            mechanism: self.mechanism,
            n_data: self.n_data,
            batch: self.batch,
            iterations: self.iterations.clone(),
            delta: self.delta,
            alpha_max: self.alpha_max,
            n0: self.n0,
            clip: self.clip,
            q: self.q,
            sigma: self.sigma,
            alpha: self.alpha,
            target_epsilon: self.target_epsilon,
            solve: self.solve,
            tau: self.tau,
            n_exponent: self.n_exponent,
            tau_l: self.tau_l,
            tau_g: self.tau_g,
            leapfrog: self.leapfrog,
            tight: !self.no_tight,
            pld_slack: self.pld_slack,
            progress: std::io::stderr().is_terminal(),
        }
    }

    /// The accountants' settings of an event question.
    fn options(&self) -> AccountOptions {
        AccountOptions {
            delta: self.delta,
            target_epsilon: self.target_epsilon,
            tight: !self.no_tight,
            pld_slack: self.pld_slack,
            alpha_max: self.alpha_max,
            fprs: self.fpr.clone(),
            prior: self.prior,
            target_tpr: self.target_tpr,
            at_fpr: self.at_fpr,
            target_advantage: self.target_advantage,
        }
    }
}

fn input(message: impl std::fmt::Display) -> CommandError {
    CommandError::input(format!("account: {message}"))
}

/// Prints the answer: the JSON object (`--json`) or the text lines.
fn print(args_json: bool, value: Value, lines: Vec<String>) -> Result<(), CommandError> {
    if args_json {
        super::emit_json(value)?;
    } else {
        crate::outln!("{}", lines.join("\n"));
    }
    Ok(())
}

/// `privpost account`: an event file, a manifest's ledger, or a planned run.
pub fn account(a: AccountArgs) -> Result<(), CommandError> {
    if let Some(slack) = a.pld_slack {
        if !(slack > 0.0 && slack <= 1.0) {
            return Err(input(format!("--pld-slack = {slack}: 0 < η ≤ 1")));
        }
    }
    if let Some(path) = &a.event {
        if a.alpha_max.is_some_and(|m| m < 2) {
            return Err(input(format!(
                "--alpha-max = {}: ≥ 2 (--event searches the orders 1.1 … 1024 below it)",
                a.alpha_max.unwrap_or(0)
            )));
        }
        return event(&a, path);
    }
    if let Some(path) = &a.manifest {
        if a.pld_slack.is_some() || a.alpha_max.is_some() {
            return Err(input(
                "--pld-slack and --alpha-max do not apply to --manifest: a ledger entry is verified with the accountant its claim names",
            ));
        }
        return ledger(&api::verify_ledger(path)?, a.json);
    }
    planned(&a.planned(), a.json)
}

/// A planned run's answer, printed; exit 1 when no T ≥ 1 meets the target.
fn planned(run: &PlannedRun, json_out: bool) -> Result<(), CommandError> {
    let answer = api::account_planned(run)?;
    for w in &answer.warnings {
        errln!("WARNING: {w}");
    }
    for note in &answer.notes {
        errln!("note: {note}");
    }
    print(json_out, answer.document, answer.lines)?;
    match answer.unmet_target {
        Some(target) => Err(CommandError::failed(format!(
            "no T ≥ 1 meets ε ≤ {target}: one iteration already spends more (see ε(T + 1) above)"
        ))),
        None => Ok(()),
    }
}

/// The text lines of an answer.
fn lines(answer: &AccountAnswer, file: &str) -> Vec<String> {
    match answer {
        AccountAnswer::Forward {
            mechanism,
            answers,
            attack,
            ..
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
            if let Some(r) = attack {
                lines.extend(attack_lines(r));
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
        AccountAnswer::Calibrate {
            mechanism,
            target,
            pure_epsilon,
            gdp_mu,
            noise_factor,
            attack,
            ..
        } => {
            let what = match target {
                Target::Tpr { tpr, fpr } => format!("the attacker's TPR at FPR {fpr} ≤ {tpr}"),
                Target::Advantage { advantage } => format!("the advantage ≤ {advantage}"),
            };
            let mut lines = vec![
                format!("{file}: {mechanism}: calibrated to {what}"),
                format!("  pure ε-DP       ε ≤ {:.6} meets it", pure_epsilon),
                format!(
                    "  μ-GDP           μ ≤ {:.6} meets it (a Gaussian mechanism of sensitivity Δ: σ ≥ {:.6}·Δ)",
                    gdp_mu,
                    1.0 / gdp_mu
                ),
            ];
            if let Some(c) = noise_factor {
                lines.push(format!(
                    "  this event      its noise scales × {} meet it (--json: calibrated_event)",
                    crate::numeric::sig(*c)
                ));
            }
            if let Some(r) = attack {
                lines.extend(attack_lines(r));
            }
            lines
        }
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

/// What an attacker can do, under the ε lines.
fn attack_lines(r: &api::AttackRisk) -> Vec<String> {
    let mut out = vec![format!(
        "  attack risk (f-DP trade-off curve, {}):",
        r.method_description
    )];
    out.push(match (r.mu, r.regret) {
        (Some(mu), Some(regret)) => {
            format!("    μ-GDP          μ = {mu:.6} (its Gaussian curve lies below wherever FPR and FNR ≥ {:e}; regret {regret:.2e})", r.mu_rates)
        }
        _ => format!(
            "    μ-GDP          none: the attacker's miss rate is below {:e} already at FPR {:e}",
            r.mu_rates, r.mu_rates
        ),
    });
    for p in &r.tpr_at_fpr {
        out.push(format!("    TPR at FPR {:<8} {:.6}", p.fpr, p.tpr));
    }
    out.push(format!(
        "    advantage      {:.6} (max TPR − FPR)",
        r.advantage
    ));
    out.push(format!(
        "    Bayes risk     {:.6} at prior {} (attack accuracy {:.6})",
        r.bayes_risk,
        r.prior,
        1.0 - r.bayes_risk
    ));
    out
}

/// `account --event FILE.json`.
fn event(a: &AccountArgs, path: &std::path::Path) -> Result<(), CommandError> {
    let file = path.display().to_string();
    let input = api::read_event(&super::read_json(path)?, &file)?;
    if let (EventInput::Event(event), Some(_), false) =
        (&input, a.target_epsilon, a.solve == Solve::Iterations)
    {
        // σ or q solved for: the built-in DP-SGLD question
        return planned(
            &PlannedRun::solving_sgld(event, &a.planned(), &file)?,
            a.json,
        );
    }
    let answer = api::account(&input, &a.options(), &file)?;
    if let AccountAnswer::Forward { warnings, .. } | AccountAnswer::Calibrate { warnings, .. } =
        &answer
    {
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
        _ => Ok(()),
    }
}

/// `account --manifest MANIFEST.json`: the ledger's check, printed; exit 1
/// when a claim does not hold.
fn ledger(check: &LedgerCheck, json_out: bool) -> Result<(), CommandError> {
    let file = &check.file;
    let n = check.entries.len();
    let failures = check.failures();
    let mut lines = vec![format!("{file}: {n} ledger entries")];
    lines.push(format!(
        "  {} of {n} claims follow from their events{}",
        n - failures.len(),
        if failures.is_empty() {
            String::new()
        } else {
            format!("; DO NOT HOLD: {}", failures.join("; "))
        }
    ));
    lines.push(format!("releases ({}):", check.releases.len()));
    for r in &check.releases {
        lines.push(format!(
            "  {}: {}{}{}",
            r.series,
            r.guarantee.short_text(),
            match r.at {
                Some(t) if r.checkpoints > 1 => format!(
                    " (its last of {} checkpoints, iteration {}; the earlier ones are the same chain, not composed)",
                    r.checkpoints,
                    crate::numeric::sig(t)
                ),
                _ => String::new(),
            },
            if r.holds { "" } else { " — DOES NOT HOLD" }
        ));
    }
    if check.composed.is_empty() {
        lines.push(
            "composed: nothing — no entries are marked as released together (`released_with`); the releases above are alternatives, each with its own guarantee".into(),
        );
    }
    for c in &check.composed {
        lines.push(format!(
            "composed `{}` (basic composition of {} entries released together): ε = {}, δ = {}",
            c.released_with,
            c.entries.len(),
            crate::numeric::sig(c.epsilon),
            crate::numeric::sig(c.delta)
        ));
    }
    lines.push(format!(
        "attack risk of each private release ({}; μ-GDP over error rates ≥ 1e-10, the attacker's TPR at FPR 0.01, the advantage max TPR − FPR):",
        if check.attack_risk_recorded {
            "recorded in the manifest and recomputed from the events"
        } else {
            "recomputed from the events; this manifest records none"
        }
    ));
    for r in &check.attack_risk {
        let x = &r.recomputed;
        let numbers = match &x.not_computed {
            Some(why) => format!("not computed: {why}"),
            None => format!(
                "μ = {}, TPR = {}, advantage = {} ({})",
                x.mu.map_or(
                    "none (the attacker errs < 1e-10)".into(),
                    crate::numeric::sig
                ),
                x.tpr(1e-2).map_or("-".into(), crate::numeric::sig),
                x.advantage.map_or("-".into(), crate::numeric::sig),
                x.method.map_or("", |m| m.describe()),
            ),
        };
        lines.push(format!(
            "  {}: {numbers}{}",
            x.release,
            match &r.reason {
                Some(why) => format!(" — DOES NOT HOLD: {why}"),
                None if r.recorded.is_some() => " — record holds".into(),
                None => String::new(),
            }
        ));
    }
    let mut value = serde_json::to_value(check).map_err(|e| CommandError::failed(e.to_string()))?;
    value["schema"] = json!(OUTPUT_SCHEMA);
    value["question"] = json!("manifest");
    value["warnings"] = json!([]);
    print(json_out, value, lines)?;
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
}
