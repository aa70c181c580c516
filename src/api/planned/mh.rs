//! `account` for `--mechanism penalty | dp-hmc`: the budget of the exact private
//! MH samplers whose every iteration is a composition of Gaussian mechanisms with
//! data-independent sensitivity: ε after T iterations, or the largest T
//! for a target ε, by the tight Gaussian PLD (closed form) and by zCDP
//! (`privacy::gaussian_pld`).

use serde_json::json;

use super::{input, Answer, ApiError, Mechanism, PlannedRun, Solve};
use crate::privacy::gaussian_pld::{hmc_mu, penalty_mu, Accountant};

/// The accountants reported, with the names `account --json` uses for them.
const ACCOUNTANTS: [(Accountant, &str); 2] =
    [(Accountant::Pld, "tight"), (Accountant::Zcdp, "zcdp")];

fn positive(flag: &str, v: Option<f64>, mechanism: &str) -> Result<f64, ApiError> {
    let v = v.ok_or_else(|| input(format!("{flag} is required for --mechanism {mechanism}")))?;
    if v > 0.0 && v.is_finite() {
        Ok(v)
    } else {
        Err(input(format!("{flag} = {v}: a finite number > 0")))
    }
}

/// The per-iteration μ and the text describing it.
fn setting(a: &PlannedRun) -> Result<(f64, serde_json::Value, String), ApiError> {
    let foreign = [
        ("--batch", a.batch.is_some()),
        ("--q", a.q.is_some()),
        ("--sigma", a.sigma.is_some()),
        ("--n0", a.n0.is_some()),
        ("--clip", a.clip.is_some()),
        ("--alpha", a.alpha.is_some()),
        ("--alpha-max", a.alpha_max.is_some()),
    ];
    let name = match a.mechanism {
        Mechanism::Penalty => "penalty",
        _ => "dp-hmc",
    };
    if let Some((flag, _)) = foreign.iter().find(|(_, given)| *given) {
        return Err(input(format!(
            "{flag} does not belong to --mechanism {name} (it takes --n-data, {}, --delta and --iterations or --target-epsilon)",
            if name == "penalty" { "--tau, --n-exponent" } else { "--tau-l, --tau-g, --leapfrog" }
        )));
    }
    if a.solve != Solve::Iterations {
        return Err(input(format!(
            "--solve sigma|q belongs to --mechanism sgld; {name} solves for --iterations"
        )));
    }
    let n = a
        .n_data
        .ok_or_else(|| input(format!("--n-data is required for --mechanism {name}")))?;
    if n == 0 {
        return Err(input("--n-data = 0: at least 1 record"));
    }
    Ok(match a.mechanism {
        Mechanism::Penalty => {
            if a.tau_l.is_some() || a.tau_g.is_some() || a.leapfrog.is_some() {
                return Err(input("--tau-l, --tau-g and --leapfrog belong to --mechanism dp-hmc; the penalty algorithm takes --tau"));
            }
            let tau = positive("--tau", a.tau, name)?;
            if !(0.0..=1.0).contains(&a.n_exponent) {
                return Err(input(format!(
                    "--n-exponent = {}: 0 ≤ α ≤ 1 (Yildirim & Ermis use ½)",
                    a.n_exponent
                )));
            }
            let mu = penalty_mu(tau, n, a.n_exponent);
            (
                mu,
                json!({"n_data": n, "tau": tau, "n_exponent": a.n_exponent}),
                format!("penalty algorithm (Yildirim & Ermis 2019): σ = τ·n^α·c, τ = {tau}, n = {n}, α = {}; μ per iteration = 1/(2τ²n^(2α)) = {mu:.6e}", a.n_exponent),
            )
        }
        _ => {
            if a.tau.is_some() {
                return Err(input(
                    "--tau belongs to --mechanism penalty; DP-HMC takes --tau-l and --tau-g",
                ));
            }
            let (tl, tg) = (
                positive("--tau-l", a.tau_l, name)?,
                positive("--tau-g", a.tau_g, name)?,
            );
            let l = a
                .leapfrog
                .ok_or_else(|| input("--leapfrog is required for --mechanism dp-hmc"))?;
            if l == 0 {
                return Err(input("--leapfrog = 0: at least 1 leapfrog step"));
            }
            let mu = hmc_mu(tl, tg, l, n);
            (
                mu,
                json!({"n_data": n, "tau_l": tl, "tau_g": tg, "leapfrog": l}),
                format!("DP-HMC (Räisä et al. 2021): 1 ratio release (τ_l = {tl}) + {} gradient releases (τ_g = {tg}), n = {n}; μ per iteration = 1/(2τ_l²n) + (L+1)/(2τ_g²n) = {mu:.6e}", l + 1),
            )
        }
    })
}

/// ε after each of `--iterations`, or the largest T for `--target-epsilon`, by the
/// tight Gaussian PLD and by zCDP; each inverse answer is checked forward (T meets
/// the target, T + 1 does not).
pub(super) fn account(a: &PlannedRun) -> Result<Answer, ApiError> {
    let (mu, mut params, head) = setting(a)?;
    let delta = a
        .delta
        .ok_or_else(|| input("--delta is required (e.g. --delta 1e-6)"))?;
    if !(delta > 0.0 && delta < 1.0) {
        return Err(input(format!("--delta = {delta}: 0 < δ < 1")));
    }
    params["delta"] = json!(delta);
    params["mu_per_iteration"] = json!(mu);
    let mechanism = match a.mechanism {
        Mechanism::Penalty => "penalty",
        _ => "dp_hmc",
    };
    let mut lines = vec![head];
    let mut warnings = Vec::new();
    if let Some(target) = a.target_epsilon {
        let mut inverse = json!({});
        for (acc, key) in ACCOUNTANTS {
            let t = acc.max_iterations(mu, target, delta);
            let at = acc.epsilon(t, mu, delta);
            let next = acc.epsilon(t + 1, mu, delta);
            if at > target || next <= target {
                return Err(ApiError::failed(format!(
                    "account: internal check failed ({}): T = {t} gives ε = {at}, T + 1 gives {next}, target {target}",
                    acc.as_str()
                )));
            }
            if t == 0 {
                warnings.push(format!(
                    "{}: no T ≥ 1 meets ε ≤ {target} (T = 0 releases nothing)",
                    acc.as_str()
                ));
            }
            lines.push(format!(
                "  largest T with ε ≤ {target} at δ = {delta:e}: {t} ({}; ε(T) = {at:.6}, ε(T + 1) = {next:.6})",
                describe(acc)
            ));
            inverse[key] = json!({"iterations": t, "epsilon_at": at, "epsilon_next": next});
        }
        let value = json!({"mechanism": mechanism, "parameters": params, "solve": "iterations",
                           "target_epsilon": target, "inverse": inverse});
        return Ok((lines, value, warnings));
    }
    let mut rows = Vec::new();
    for &t in &a.iterations {
        let mut row = json!({"iterations": t});
        let mut parts = Vec::new();
        for (acc, key) in ACCOUNTANTS {
            let e = acc.epsilon(t, mu, delta);
            row[key] = json!({"epsilon": e, "alpha": null});
            parts.push(format!("{e:.4} ({})", describe(acc)));
        }
        lines.push(format!(
            "  T = {t}: (ε, δ = {delta:e}) = {}",
            parts.join(", ")
        ));
        rows.push(row);
    }
    let value = json!({"mechanism": mechanism, "parameters": params, "results": rows});
    Ok((lines, value, warnings))
}

fn describe(acc: Accountant) -> &'static str {
    match acc {
        Accountant::Pld => "tight Gaussian PLD, closed form",
        Accountant::Zcdp => "zCDP",
    }
}
