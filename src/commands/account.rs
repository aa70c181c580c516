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
    if let Some(path) = &a.event {
        if a.alpha_max.is_some_and(|m| m < 2) {
            return Err(input(format!(
                "--alpha-max = {}: ≥ 2 (--event searches the orders 1.1 … 1024 below it)",
                a.alpha_max.unwrap_or(0)
            )));
        }
        // an event file is answered there, or reduced to the built-in DP-SGLD question
        return match super::account_event::event(path, &a)? {
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

fn barker(a: &AccountArgs) -> Result<Answer, CommandError> {
    let need = |v: Option<u64>, flag: &str| {
        v.ok_or_else(|| input(format!("{flag} is required for --mechanism barker")))
    };
    let (n, b) = (need(a.n_data, "--n-data")?, need(a.batch, "--batch")?);
    if a.q.is_some() || a.sigma.is_some() {
        return Err(input(
            "--q and --sigma belong to --mechanism sgld; the Barker test uses --n-data and --batch",
        ));
    }
    if a.solve != Solve::Iterations {
        return Err(input(
            "--solve sigma|q belongs to --mechanism sgld; the Barker test solves for --iterations",
        ));
    }
    match (a.n0, a.clip) {
        (Some(n0), Some(clip)) => check_clipping(clip, b, n0).map_err(bad)?,
        (None, None) => {}
        _ => {
            return Err(input(
                "give both --n0 and --clip to check the clipping bound (eq. 23), or neither",
            ))
        }
    }
    let delta = a.delta.unwrap_or(1.0 / n as f64);
    let mut warnings = Vec::new();
    let base = BarkerAccount {
        n_data: n,
        batch: b,
        iterations: 0,
        delta,
        alpha_max: a.alpha_max.unwrap_or(u32::MAX),
    };
    let head = "DP-MCMC, subsampled Barker test (heikkila2019 Theorem 2, Corollary 2 / eq. 22)";
    let mut lines = vec![head.to_string()];
    let params = json!({"n_data": n, "batch": b, "q": base.q(), "delta": delta});
    if let Some(alpha) = a.alpha {
        if !(alpha.fract() == 0.0 && (2.0..=u32::MAX as f64).contains(&alpha)) {
            return Err(input(format!(
                "--alpha = {alpha}: an integer order 2 ≤ α < b/5 (Theorem 2)"
            )));
        }
        let alpha = alpha as u32;
        // one order: refused outside Theorem 2 (α < b/5)
        crate::privacy::rdp::barker_step_epsilon(alpha, b).map_err(bad)?;
        if b > n {
            return Err(input(format!("--batch = {b}: 1 ≤ b ≤ N = {n}")));
        }
        let step = base.step_rdp(alpha);
        lines.push(format!(
            "  at order α = {alpha}: per-iteration RDP ε′(α) = {step:.6e}"
        ));
        let mut rows = Vec::new();
        for &t in &a.iterations {
            let rdp = t as f64 * step;
            let (c, i) = if t == 0 {
                (0.0, 0.0)
            } else {
                (
                    Conversion::Classic.epsilon(rdp, alpha as f64, delta),
                    Conversion::Improved.epsilon(rdp, alpha as f64, delta),
                )
            };
            lines.push(format!("  T = {t}: RDP ε = {rdp:.4}; (ε, δ = {delta:e}) = {c:.4} (classic), {i:.4} (improved)"));
            rows.push(json!({"iterations": t, "rdp": rdp, "classic": {"epsilon": c, "alpha": alpha}, "improved": {"epsilon": i, "alpha": alpha}}));
        }
        let value = json!({"mechanism": "barker", "parameters": params, "alpha": alpha, "step_rdp": step, "results": rows});
        return Ok((lines, value, warnings));
    }
    let (lo, hi) = base.valid_orders(a.alpha_max);
    lines.push(format!(
        "  N = {n}, b = {b}, q = {}, δ = {delta:e}, orders {lo}..={hi} ({})",
        base.q(),
        if a.alpha_max.is_some() {
            "capped by --alpha-max"
        } else {
            "every valid order α < b/5"
        }
    ));
    if let Some(target) = a.target_epsilon {
        let mut out = json!({});
        for conv in [Conversion::Classic, Conversion::Improved] {
            let (t, found) = base
                .largest_iterations(target, conv, a.alpha_max)
                .map_err(bad)?;
            // forward checks: T meets the target over all orders; T + 1 at the winning order does not
            let check = BarkerAccount {
                iterations: t,
                ..base
            }
            .search(conv, a.alpha_max)
            .map_err(bad)?;
            let eps_t = check.map_or(0.0, |s| s.value);
            if eps_t > target {
                return Err(CommandError::failed(format!(
                    "account: internal check failed: T = {t} gives ε = {eps_t} > {target}"
                )));
            }
            let next = BarkerAccount {
                iterations: t + 1,
                ..base
            }
            .search(conv, a.alpha_max)
            .map_err(bad)?;
            let eps_next = next.map_or(0.0, |s| s.value);
            order_warnings(&mut warnings, found, a.alpha_max, conv.as_str());
            no_iterations_warning(&mut warnings, t, target, conv.as_str());
            lines.push(format!(
                "  ε ≤ {target} ({}): largest T = {t}{} — forward check ε(T) = {eps_t:.6}, ε(T + 1) = {eps_next:.6}",
                conv.as_str(),
                found.map_or(String::new(), |s| format!(" at α = {}", s.alpha)),
            ));
            out[conv.as_str()] = json!({"iterations": t, "alpha": found.map(|s| s.alpha), "epsilon_at": eps_t, "epsilon_next": eps_next});
        }
        let value = json!({"mechanism": "barker", "parameters": params, "target_epsilon": target, "solve": "iterations", "inverse": out});
        return Ok((lines, value, warnings));
    }
    let mut rows = Vec::new();
    for &t in &a.iterations {
        let acc = BarkerAccount {
            iterations: t,
            ..base
        };
        let c = acc.search(Conversion::Classic, a.alpha_max).map_err(bad)?;
        let i = acc.search(Conversion::Improved, a.alpha_max).map_err(bad)?;
        order_warnings(&mut warnings, c, a.alpha_max, &format!("T = {t}, classic"));
        order_warnings(&mut warnings, i, a.alpha_max, &format!("T = {t}, improved"));
        lines.push(format!(
            "  T = {t}: ε = {}, {}",
            fmt_rdp(c, "classic"),
            fmt_rdp(i, "improved")
        ));
        rows.push(json!({"iterations": t, "classic": rdp_json(c), "improved": rdp_json(i)}));
    }
    let value =
        json!({"mechanism": "barker", "parameters": params, "orders": [lo, hi], "results": rows});
    Ok((lines, value, warnings))
}

/// A safe-side answer of a one-dimensional inverse question.
struct Solved {
    value: f64,
    epsilon: f64,
}

/// The boundary of `ok` between `good` (ok) and `bad` (not ok) by bisection in log
/// space (`steps` halvings), rounded to 4 significant digits towards `good` and checked.
fn solve_boundary(
    mut good: f64,
    mut bad_at: f64,
    steps: usize,
    mut eps: impl FnMut(f64) -> Result<f64, CommandError>,
    target: f64,
) -> Result<Solved, CommandError> {
    let mut eps_good = eps(good)?;
    for _ in 0..steps {
        let mid = (good.ln() * 0.5 + bad_at.ln() * 0.5).exp();
        let e = eps(mid)?;
        if e <= target {
            (good, eps_good) = (mid, e);
        } else {
            bad_at = mid;
        }
    }
    // 4 significant digits, towards the good side
    let mag = 10f64.powf(good.abs().log10().floor() - 3.0);
    let rounded = if good > bad_at {
        (good / mag).ceil() * mag
    } else {
        (good / mag).floor() * mag
    };
    let e = eps(rounded)?;
    Ok(if e <= target {
        Solved {
            value: rounded,
            epsilon: e,
        }
    } else {
        Solved {
            value: good,
            epsilon: eps_good,
        }
    })
}

fn sgld(a: &AccountArgs) -> Result<Answer, CommandError> {
    if a.n_data.is_some() || a.batch.is_some() || a.n0.is_some() || a.clip.is_some() {
        return Err(input(
            "--mechanism sgld takes --q and --sigma (not --n-data, --batch, --n0, --clip)",
        ));
    }
    let delta = a
        .delta
        .ok_or_else(|| input("--delta is required for --mechanism sgld"))?;
    let solving = a.target_epsilon.map(|e| (e, a.solve));
    let q = match (a.q, solving) {
        (Some(q), _) => q,
        (None, Some((_, Solve::Q))) => 1.0,
        _ => return Err(input("--q is required for --mechanism sgld")),
    };
    let sigma = match (a.sigma, solving) {
        (Some(s), _) => s,
        (None, Some((_, Solve::Sigma))) => 1.0,
        _ => return Err(input("--sigma is required for --mechanism sgld")),
    };
    if let Some((_, solve)) = solving {
        if solve == Solve::Q && a.q.is_some() {
            return Err(input("--solve q finds q: leave out --q"));
        }
        if solve == Solve::Sigma && a.sigma.is_some() {
            return Err(input("--solve sigma finds σ: leave out --sigma"));
        }
        if solve != Solve::Iterations && a.iterations.len() != 1 {
            return Err(input(
                "--solve sigma|q needs exactly one --iterations value",
            ));
        }
    }
    let base = SgldAccount {
        q,
        sigma,
        iterations: 0,
        delta,
        alpha_max: 0,
    };
    // validate through a one-step question (the errors name q, σ or δ)
    SgldAccount {
        iterations: 1,
        ..base
    }
    .search(Conversion::Classic, Some(3))
    .map_err(bad)?;
    let cap = a.alpha_max;
    if let Some(alpha) = a.alpha {
        if !(alpha > 1.0 && alpha <= 1e6) || a.target_epsilon.is_some() {
            return Err(input(format!(
                "--alpha = {alpha}: a real order 1 < α ≤ 10^6, without --target-epsilon"
            )));
        }
        let step = crate::privacy::rdp::sampled_gaussian_real(alpha, q, sigma);
        let mut lines = vec![format!("DP-SGLD/DPVI at order α = {alpha}: per-step RDP ε(α) = {step:.10e} (q = {q}, σ = {sigma})")];
        let mut rows = Vec::new();
        for &t in &a.iterations {
            let rdp = t as f64 * step;
            let (c, i) = if t == 0 {
                (0.0, 0.0)
            } else {
                (
                    Conversion::Classic.epsilon(rdp, alpha, delta),
                    Conversion::Improved.epsilon(rdp, alpha, delta),
                )
            };
            lines.push(format!("  T = {t}: RDP ε = {rdp:.4}; (ε, δ = {delta:e}) = {c:.4} (classic), {i:.4} (improved)"));
            rows.push(json!({"iterations": t, "rdp": rdp, "classic": {"epsilon": c, "alpha": alpha}, "improved": {"epsilon": i, "alpha": alpha}}));
        }
        let value = json!({"mechanism": "sgld", "parameters": {"q": q, "sigma": sigma, "delta": delta}, "alpha": alpha, "step_rdp": step, "results": rows});
        lines.shrink_to_fit();
        return Ok((lines, value, Vec::new()));
    }
    let opts = PldOptions {
        epsilon_slack: a.pld_slack.unwrap_or(crate::privacy::ledger::PLD_SLACK),
        ..PldOptions::default()
    };
    let head = "DP-SGLD/DPVI, Poisson-subsampled Gaussian mechanism (RDP: Mironov, Talwar, Zhang 2019; tight: privacy-loss distribution)";
    let mut lines = vec![head.to_string()];
    let mut warnings = Vec::new();
    let tight_json = |t: &Result<TightEpsilon, AccountError>| match t {
        Ok(t) => json!(t),
        Err(e) => json!({"error": e.to_string()}),
    };
    let fmt_tight = |t: &Result<TightEpsilon, AccountError>| match t {
        Ok(t) => format!(
            "{:.4} (tight PLD upper bound, slack η = {})",
            t.epsilon, t.epsilon_slack
        ),
        Err(e) => format!("tight not computed ({e})"),
    };
    let rdp_eps = |q: f64, sigma: f64, t: u64, conv: Conversion| -> Result<f64, CommandError> {
        Ok(SgldAccount {
            q,
            sigma,
            iterations: t,
            ..base
        }
        .search(conv, cap)
        .map_err(bad)?
        .map_or(0.0, |s| s.value))
    };
    // a setting the tight accountant cannot evaluate within its memory bound counts as
    // not meeting the target (it cannot be certified)
    let tight_eps = |q: f64, sigma: f64, t: u64| -> Result<f64, CommandError> {
        match poisson_gaussian_epsilon(q, sigma, t, delta, &opts) {
            Ok(x) => Ok(x.epsilon),
            Err(AccountError::Invalid {
                name: "points" | "grid",
                ..
            }) => Ok(f64::INFINITY),
            Err(e) => Err(bad(e)),
        }
    };
    if let Some((target, solve)) = solving {
        let mut out = json!({});
        let mut accountants: Vec<&str> = vec!["classic", "improved"];
        if !a.no_tight {
            accountants.push("tight");
        }
        let mut improved_answer: Option<f64> = None;
        for name in accountants {
            let conv = match name {
                "classic" => Some(Conversion::Classic),
                "improved" => Some(Conversion::Improved),
                _ => None,
            };
            let eps_of = |q: f64, s: f64, t: u64| match conv {
                Some(c) => rdp_eps(q, s, t, c),
                None => tight_eps(q, s, t),
            };
            let (what, answer, check) = match solve {
                Solve::Iterations => {
                    let t = match conv {
                        Some(c) => {
                            let (t, found) = SgldAccount { q, sigma, ..base }
                                .largest_iterations(target, c, cap)
                                .map_err(bad)?;
                            order_warnings(&mut warnings, found, cap, name);
                            t
                        }
                        None => {
                            let (start, _) = SgldAccount { q, sigma, ..base }
                                .largest_iterations(target, Conversion::Improved, cap)
                                .map_err(bad)?;
                            largest_tight_iterations(q, sigma, target, start, &tight_eps)?
                        }
                    };
                    no_iterations_warning(&mut warnings, t, target, name);
                    let e = eps_of(q, sigma, t)?;
                    ("T", t as f64, e)
                }
                Solve::Sigma => {
                    let t = a.iterations[0];
                    let start = if conv.is_none() {
                        improved_answer.unwrap_or(sigma)
                    } else {
                        sigma
                    };
                    let (good, bad_at) = bracket(start, true, |s| Ok(eps_of(q, s, t)? <= target))?;
                    let s = solve_boundary(
                        good,
                        bad_at,
                        if conv.is_some() { 40 } else { 16 },
                        |s| eps_of(q, s, t),
                        target,
                    )?;
                    ("σ", s.value, s.epsilon)
                }
                Solve::Q => {
                    let t = a.iterations[0];
                    if eps_of(1.0, sigma, t)? <= target {
                        ("q", 1.0, eps_of(1.0, sigma, t)?)
                    } else {
                        let start = if conv.is_none() {
                            improved_answer.unwrap_or(1.0)
                        } else {
                            1.0
                        };
                        let (good, bad_at) =
                            bracket(start, false, |x| Ok(eps_of(x, sigma, t)? <= target))?;
                        let s = solve_boundary(
                            good,
                            bad_at,
                            if conv.is_some() { 40 } else { 16 },
                            |x| eps_of(x, sigma, t),
                            target,
                        )?;
                        ("q", s.value, s.epsilon)
                    }
                }
            };
            if check > target {
                return Err(CommandError::failed(format!(
                    "account: internal check failed: {what} = {answer} gives ε = {check} > {target}"
                )));
            }
            if name == "improved" {
                improved_answer = Some(answer);
            }
            let shown = if what == "T" {
                format!("{answer}")
            } else {
                format!("{answer:.4e}")
            };
            lines.push(format!(
                "  ε ≤ {target} ({name}): {} {what} = {shown} — forward check ε = {check:.6}",
                match (solve, what) {
                    (Solve::Sigma, _) => "smallest",
                    _ => "largest",
                }
            ));
            out[name] = if solve == Solve::Iterations {
                json!({"value": answer as u64, "epsilon_at": check})
            } else {
                json!({"value": answer, "epsilon_at": check})
            };
        }
        let solve_name = match solve {
            Solve::Iterations => "iterations",
            Solve::Sigma => "sigma",
            Solve::Q => "q",
        };
        let mut params = json!({"delta": delta});
        if solve != Solve::Q {
            params["q"] = json!(q);
        }
        if solve != Solve::Sigma {
            params["sigma"] = json!(sigma);
        }
        if solve != Solve::Iterations {
            params["iterations"] = json!(a.iterations[0]);
        }
        let value = json!({"mechanism": "sgld", "parameters": params, "target_epsilon": target, "solve": solve_name, "inverse": out});
        return Ok((lines, value, warnings));
    }
    lines.push(format!(
        "  q = {q}, σ = {sigma}, δ = {delta:e}, orders 2..={} ({})",
        cap.map_or(crate::privacy::accountant::SGLD_ORDER_CAP, |c| c - 1),
        if cap.is_some() {
            "capped by --alpha-max"
        } else {
            "ended early by the monotone stop rule"
        }
    ));
    let mut rows = Vec::new();
    for &t in &a.iterations {
        let acc = SgldAccount {
            iterations: t,
            ..base
        };
        let c = acc.search(Conversion::Classic, cap).map_err(bad)?;
        let i = acc.search(Conversion::Improved, cap).map_err(bad)?;
        order_warnings(&mut warnings, c, cap, &format!("T = {t}, classic"));
        order_warnings(&mut warnings, i, cap, &format!("T = {t}, improved"));
        let mut row = json!({"iterations": t, "classic": rdp_json(c), "improved": rdp_json(i)});
        let mut line = format!(
            "  T = {t}: ε = {}, {}",
            fmt_rdp(c, "RDP classic"),
            fmt_rdp(i, "RDP improved")
        );
        if !a.no_tight {
            let tight = poisson_gaussian_epsilon(q, sigma, t, delta, &opts);
            line.push_str(&format!(", {}", fmt_tight(&tight)));
            row["tight"] = tight_json(&tight);
        }
        lines.push(line);
        rows.push(row);
    }
    let value = json!({"mechanism": "sgld", "parameters": {"q": q, "sigma": sigma, "delta": delta}, "results": rows});
    Ok((lines, value, warnings))
}

/// A (good, bad) pair around the boundary of `ok`, searching by factors of 2 from `start`;
/// `good_is_large`: ok holds for large values (σ) rather than small ones (q ≤ 1).
fn bracket(
    start: f64,
    good_is_large: bool,
    mut ok: impl FnMut(f64) -> Result<bool, CommandError>,
) -> Result<(f64, f64), CommandError> {
    let (grow, shrink) = if good_is_large {
        (2.0, 0.5)
    } else {
        (0.5, 2.0)
    };
    let mut x = start;
    if ok(x)? {
        // move towards the bad side until it fails
        for _ in 0..80 {
            let y = x * shrink;
            if good_is_large && y < 1e-6 || !good_is_large && y > 1.0 {
                return Ok((x, if good_is_large { y } else { 1.0 }));
            }
            if !ok(y)? {
                return Ok((x, y));
            }
            x = y;
        }
        Ok((x, x * shrink))
    } else {
        for _ in 0..80 {
            let y = x * grow;
            if ok(y)? {
                return Ok((y, x));
            }
            x = y;
        }
        Err(input(format!(
            "no {} meets the target ε (tried up to {x:e})",
            if good_is_large { "σ" } else { "q" }
        )))
    }
}

/// The largest T whose tight ε meets the target, to 3 significant digits, rounded down
/// and checked: a bracket by factors of 2 from `start` (the improved-RDP answer), then
/// bisection.
fn largest_tight_iterations(
    q: f64,
    sigma: f64,
    target: f64,
    start: u64,
    tight: &impl Fn(f64, f64, u64) -> Result<f64, CommandError>,
) -> Result<u64, CommandError> {
    use std::io::IsTerminal;
    let show = std::io::stderr().is_terminal();
    let eps = |t: u64| -> Result<f64, CommandError> {
        let e = if t == 0 { 0.0 } else { tight(q, sigma, t)? };
        if show {
            errln!("  tight accountant: ε(T = {t}) = {e:.6}");
        }
        Ok(e)
    };
    // a bracket: good (ε ≤ target) and bad (ε > target), by doubling or halving
    let mut x = start.max(1);
    let ex = eps(x)?;
    let (mut good, mut e_good, mut bad_at, mut e_bad) = if ex <= target {
        let (mut g, mut eg) = (x, ex);
        loop {
            // the next trial: where ε ∝ √T (the subsampled Gaussian's regime at small
            // q) would reach the target, 10 % beyond, at least 5 % and at most 2× on
            let ratio = if eg > 0.0 {
                (1.1 * (target / eg).powi(2)).clamp(1.05, 2.0)
            } else {
                2.0
            };
            let y = ((g as f64 * ratio).ceil() as u64).max(g + 1);
            if y >= 1 << 40 {
                return Err(input(
                    "the tight accountant's answer exceeds 2^40 iterations; use the RDP answers",
                ));
            }
            let ey = eps(y)?;
            if ey > target {
                break (g, eg, y, ey);
            }
            (g, eg) = (y, ey);
        }
    } else {
        let mut ex = ex;
        loop {
            let y = x / 2;
            let ey = eps(y)?;
            if ey <= target {
                break (y, ey, x, ex);
            }
            (x, ex) = (y, ey);
        }
    };
    // Illinois regula falsi on ε(T) − target in ln T (ε is smooth in ln T), each
    // step kept strictly inside the bracket: a handful of evaluations instead of
    // a bisection's dozen. Ends when the bracket is within 0.1 % (or adjacent).
    let (mut w_good, mut w_bad) = (1.0, 1.0);
    let mut last_side = 0i8;
    while bad_at - good > 1 && (bad_at - good) as f64 > 1e-3 * good as f64 {
        let (lg, lb) = ((good.max(1) as f64).ln(), (bad_at as f64).ln());
        let (fg, fb) = (w_good * (e_good - target), w_bad * (e_bad - target));
        let frac = if fb > fg { -fg / (fb - fg) } else { 0.5 };
        let guess = (lg + frac.clamp(0.0, 1.0) * (lb - lg)).exp().round() as u64;
        let mid = guess.clamp(good + 1, bad_at - 1);
        let e = eps(mid)?;
        if e <= target {
            (good, e_good) = (mid, e);
            w_good = 1.0;
            if last_side == 1 {
                w_bad *= 0.5;
            }
            last_side = 1;
        } else {
            (bad_at, e_bad) = (mid, e);
            w_bad = 1.0;
            if last_side == -1 {
                w_good *= 0.5;
            }
            last_side = -1;
        }
    }
    Ok(good)
}
