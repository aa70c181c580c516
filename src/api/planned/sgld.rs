//! `account` for DP-SGLD (Heikkilä et al.'s baseline, the subsampled Gaussian): ε of a run, or the largest number of iterations within a target, by RDP (the authors' moments accountant among them) and the tight PLD.

use super::barker::solve_boundary;
use super::{
    bad, fmt_rdp, input, json, no_iterations_warning, order_warnings, poisson_gaussian_epsilon,
    rdp_json, AccountError, Answer, ApiError, Conversion, PlannedRun, PldOptions, SgldAccount,
    Solve, TightEpsilon,
};

pub(super) fn sgld(a: &PlannedRun) -> Result<Answer, ApiError> {
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
    let rdp_eps = |q: f64, sigma: f64, t: u64, conv: Conversion| -> Result<f64, ApiError> {
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
    let tight_eps = |q: f64, sigma: f64, t: u64| -> Result<f64, ApiError> {
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
        if a.tight {
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
                            largest_tight_iterations(
                                q, sigma, target, start, &tight_eps, a.progress,
                            )?
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
                return Err(ApiError::failed(format!(
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
        if a.tight {
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
pub(super) fn bracket(
    start: f64,
    good_is_large: bool,
    mut ok: impl FnMut(f64) -> Result<bool, ApiError>,
) -> Result<(f64, f64), ApiError> {
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
pub(super) fn largest_tight_iterations(
    q: f64,
    sigma: f64,
    target: f64,
    start: u64,
    tight: &impl Fn(f64, f64, u64) -> Result<f64, ApiError>,
    show: bool,
) -> Result<u64, ApiError> {
    let eps = |t: u64| -> Result<f64, ApiError> {
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
