//! The audits of the logistic-regression posteriors (Geumlek et al.'s and Minami et al.'s, one posterior sample): exact on a small grid of neighbouring datasets and statistical.

use super::{
    epsilon_for_delta, exact, quadrature, renyi_audit, statistical, Calibrated, ChaCha8Rng, Claim,
    DMatrix, DVector, Discrete, Outcome, Posterior, Setting, Settings,
};
use crate::experiments::logreg::Sampler;

/// The logistic-regression posteriors of Geumlek §5.2 (and Minami's Gibbs posterior)
/// on a one-dimensional worst case: n = 20 records with x = 1, y = +1 (D); in D′ the
/// last label is −1 (‖x‖ = c = 1, the largest change of one record's log-likelihood).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Logistic {
    Concentrated,
    Diffuse,
    Ops,
    Gibbs,
}

pub(super) const LOGISTIC_N: usize = 20;

pub(super) const LOGISTIC_BETA0: f64 = 0.1;

pub(super) const GIBBS_DELTA: f64 = 1e-3;

impl Logistic {
    fn setting() -> Setting {
        Setting {
            n: LOGISTIC_N,
            c: 1.0,
            b: 1.0,
            beta0: LOGISTIC_BETA0,
        }
    }

    /// The calibrated posterior and its claim: Concentrated/Diffuse for (λ = 10, ε = 1)-RDP
    /// (claim at λ = 10), OPS for ε = 1, Gibbs for (ε = 1, δ = 10⁻³).
    pub(super) fn calibrated(self) -> (Calibrated, Claim) {
        let st = Self::setting();
        match self {
            Logistic::Concentrated | Logistic::Diffuse => {
                let cal = if self == Logistic::Concentrated {
                    st.concentrated(10.0, 1.0)
                } else {
                    st.diffuse(10.0, 1.0)
                };
                let eps = 10.0 * st.rdp_slope(cal.beta, cal.rho);
                (
                    cal,
                    Claim::Rdp {
                        order: 10.0,
                        epsilon: eps,
                    },
                )
            }
            Logistic::Ops => {
                let cal = st.ops(1.0);
                (
                    cal,
                    Claim::Pure {
                        epsilon: st.ops_epsilon(cal.rho),
                    },
                )
            }
            Logistic::Gibbs => (
                st.gibbs(1.0, GIBBS_DELTA),
                Claim::Approx {
                    epsilon: 1.0,
                    delta: GIBBS_DELTA,
                },
            ),
        }
    }

    fn data() -> (DMatrix<f64>, DVector<f64>, DVector<f64>) {
        let x = DMatrix::from_element(LOGISTIC_N, 1, 1.0);
        let y = DVector::from_element(LOGISTIC_N, 1.0);
        let mut y2 = y.clone();
        y2[LOGISTIC_N - 1] = -1.0;
        (x, y, y2)
    }

    fn witness(self, cal: &Calibrated) -> String {
        format!(
            "d = 1, n = {LOGISTIC_N}, x = 1, all y = +1 vs the last y = −1; prior precision nβ = {:.4}, ρ = {:.4}{}",
            cal.precision(LOGISTIC_N),
            cal.rho,
            cal.radius.map(|r| format!(", |w| ≤ {r}")).unwrap_or_default()
        )
    }
}

pub(super) fn posterior<'a>(
    cal: &Calibrated,
    x: &'a DMatrix<f64>,
    y: &'a DVector<f64>,
) -> Posterior<'a> {
    Posterior {
        x,
        y,
        rho: cal.rho,
        precision: cal.precision(LOGISTIC_N),
        radius: cal.radius,
    }
}

/// The two normalised log densities of a logistic audit on a grid, by quadrature.
pub(super) fn logistic_pair(cal: &Calibrated) -> (Discrete, f64, f64) {
    let (x, y, y2) = Logistic::data();
    let (p, q) = (posterior(cal, &x, &y), posterior(cal, &x, &y2));
    let sd = 1.0 / cal.precision(LOGISTIC_N).sqrt();
    let (lo, hi) = match cal.radius {
        Some(r) => (-r, r),
        None => (-40.0 * sd - 10.0, 40.0 * sd + 10.0),
    };
    let w = |v: f64| DVector::from_element(1, v);
    let raw = quadrature(lo, hi, 4000, |v| {
        (1.0, p.log_density(&w(v)), q.log_density(&w(v)))
    });
    // normalise: ln Z by the same quadrature
    let lz = |l: &[f64]| {
        let v: Vec<f64> = raw.ln_weight.iter().zip(l).map(|(a, b)| a + b).collect();
        crate::numeric::log_sum_exp(&v)
    };
    let (zp, zq) = (lz(&raw.ln_p), lz(&raw.ln_q));
    let pair = Discrete {
        ln_weight: raw.ln_weight.clone(),
        ln_p: raw.ln_p.iter().map(|v| v - zp).collect(),
        ln_q: raw.ln_q.iter().map(|v| v - zq).collect(),
    };
    (pair, zp, zq)
}

/// Exact audit of a logistic posterior: Rényi divergence (both directions) at the
/// claimed order, pure ε (sup of the log ratio, support ends included), or the
/// smallest ε with hockey-stick δ(ε) ≤ δ, of the two normalised 1-d densities.
pub fn logistic_exact(kind: Logistic) -> Outcome {
    let (cal, claim) = kind.calibrated();
    let (pair, _, _) = logistic_pair(&cal);
    let value = match claim {
        Claim::Rdp { order, .. } => pair.renyi(order).max(pair.swapped().renyi(order)),
        Claim::Pure { .. } => {
            // the log ratio ρ·w + const is monotone: add the support's ends
            let mut p = pair.clone();
            if let Some(r) = cal.radius {
                let (x, y, y2) = Logistic::data();
                let (zp, zq) = {
                    let (_, a, b) = logistic_pair(&cal);
                    (a, b)
                };
                for v in [-r, r] {
                    let w = DVector::from_element(1, v);
                    let dens = |y: &DVector<f64>| posterior(&cal, &x, y).log_density(&w);
                    p.push(1.0, dens(&y) - zp, dens(&y2) - zq);
                }
            }
            p.pure_epsilon()
        }
        Claim::Approx { delta, .. } => epsilon_for_delta(&pair, delta),
    };
    exact(claim, kind.witness(&cal), value)
}

/// Statistical audit of a logistic posterior: `draws` independent draws per
/// neighbour by the sampler the logistic figures ship with ([`Sampler::shipped`]:
/// independence MH, each draw the last state of its own chain of K steps, K from its
/// pilot; until 2026-12-03 whitened HMC, 60 iterations a chain, which the figures
/// no longer use by default), scored by the exact normalised log density ratio. RDP
/// claims: the Rényi divergence estimated from the draws on D and on D′ (both
/// directions), reporting the lower end of its interval;
/// pure and (ε, δ) claims: ε_lcb.
pub fn logistic_statistical(kind: Logistic, s: &Settings, rng: &mut ChaCha8Rng) -> Outcome {
    let (cal, claim) = kind.calibrated();
    let (_, zp, zq) = logistic_pair(&cal);
    let (x, y, y2) = Logistic::data();
    let (p, q) = (posterior(&cal, &x, &y), posterior(&cal, &x, &y2));
    let ratio = |v: f64| {
        let w = DVector::from_element(1, v);
        (p.log_density(&w) - zp) - (q.log_density(&w) - zq)
    };
    let sampler = Sampler::shipped();
    let mut steps = Vec::new();
    let mut draw = |post: &Posterior, rng: &mut ChaCha8Rng| -> Vec<f64> {
        let (w, diagnostics) = sampler
            .draws(post, s.draws, rng)
            .expect("the 1-d audit posteriors have a mode and a Hessian");
        steps.push(
            diagnostics.map_or_else(|| "slice fallback".into(), |d| format!("K = {}", d.steps)),
        );
        w.iter().map(|v| ratio(v[0])).collect()
    };
    let on_d = draw(&p, rng);
    let on_d2 = draw(&q, rng);
    let witness = format!(
        "{}; independence MH as the logistic figures draw ({} on D, {} on D′), one chain per draw",
        kind.witness(&cal),
        steps[0],
        steps[1]
    );
    match claim {
        Claim::Rdp { order, .. } => {
            let r = renyi_audit(&on_d, &on_d2, order, s.confidence);
            Outcome {
                claim,
                witness: format!("{witness}; {}", r.method),
                audited: r.audited,
                estimate: r.estimate,
                ci_low: r.audited,
                ci_high: Some(r.interval.1),
                draws: on_d.len(),
                tolerance: 0.0,
                scores: Some((on_d, on_d2)),
            }
        }
        _ => statistical(claim, witness, on_d, on_d2, s),
    }
}
