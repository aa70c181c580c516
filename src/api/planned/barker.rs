//! `account` for the subsampled Barker test (Heikkilä et al. Theorem 2): ε of a run, or the largest number of iterations within a target, with the boundary of the test's assumptions.

use super::{
    bad, check_clipping, fmt_rdp, input, json, no_iterations_warning, order_warnings, rdp_json,
    Answer, ApiError, BarkerAccount, Conversion, PlannedRun, Solve,
};
use serde_json::Value;

/// `--mechanism barker`'s own arguments: (N, b), refusing the other
/// mechanisms' options and a partial clipping check.
fn barker_args(a: &PlannedRun) -> Result<(u64, u64), ApiError> {
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
    Ok((n, b))
}

/// The answer at one order α (`--alpha`): per-iteration RDP and, per T, the
/// converted (ε, δ).
fn at_order(
    a: &PlannedRun,
    base: &BarkerAccount,
    alpha: f64,
    params: Value,
    mut lines: Vec<String>,
    warnings: Vec<String>,
) -> Result<Answer, ApiError> {
    let n = base.n_data;
    let b = base.batch;
    let delta = base.delta;
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
        lines.push(format!(
            "  T = {t}: RDP ε = {rdp:.4}; (ε, δ = {delta:e}) = {c:.4} (classic), {i:.4} (improved)"
        ));
        rows.push(json!({"iterations": t, "rdp": rdp, "classic": {"epsilon": c, "alpha": alpha}, "improved": {"epsilon": i, "alpha": alpha}}));
    }
    let value = json!({"mechanism": "barker", "parameters": params, "alpha": alpha, "step_rdp": step, "results": rows});
    Ok((lines, value, warnings))
}

pub(super) fn barker(a: &PlannedRun) -> Result<Answer, ApiError> {
    let (n, b) = barker_args(a)?;
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
        return at_order(a, &base, alpha, params, lines, warnings);
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
                return Err(ApiError::failed(format!(
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
pub(super) struct Solved {
    pub(super) value: f64,
    pub(super) epsilon: f64,
}

/// The boundary of `ok` between `good` (ok) and `bad` (not ok) by bisection in log
/// space (`steps` halvings), rounded to 4 significant digits towards `good` and checked.
pub(super) fn solve_boundary(
    mut good: f64,
    mut bad_at: f64,
    steps: usize,
    mut eps: impl FnMut(f64) -> Result<f64, ApiError>,
    target: f64,
) -> Result<Solved, ApiError> {
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
