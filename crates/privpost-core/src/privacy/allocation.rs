//! Random allocation ("balls in bins", k-out-of-t): each record's clipped
//! contribution enters exactly `k` of `t` Gaussian steps, the steps chosen uniformly
//! at random; a record's L2 contribution to a step is at most 1 and the noise
//! multiplier is σ. DP-SGD over shuffled epochs with one record per batch slot is
//! close to this sampler; Poisson sampling is not (it uses a record in a random
//! number of steps).
//!
//! Why RDP and not a PLD: the tight accountants for this sampler (Feldman &
//! Shenfeld 2026, "Efficient privacy loss accounting for subsampling and random
//! allocation", arXiv 2602.17284; Google dp_accounting's `RandomAllocationDpEvent`)
//! build its PLD from a t-fold convolution of a step's likelihood ratio. privpost
//! states the Rényi-DP bounds below instead, each valid on its own, and takes the
//! smallest at every order; `tests/reference/random_allocation.py` measures how
//! far the resulting ε sits above the PLD_accounting 2.0 bounds.
//!
//! The bounds, for the pair P (the record allocated) and Q (the record absent),
//! both directions (remove: D_α(P‖Q), add: D_α(Q‖P)); the event's ε(α) is the
//! larger direction:
//! - no amplification: given the allocation the record is k Gaussian releases,
//!   kα/(2σ²) (Mironov 2017, Proposition 7, composed), a mixture over allocations
//!   only lowers it (joint convexity);
//! - Dong, Chen & Özgür 2025 ("Leveraging randomness in model and data partitioning
//!   for privacy amplification", arXiv 2503.03043), Theorem 3.1, as random_allocation
//!   1.0.5 implements it (`allocation_RDP_DCO_add` / `_remove`), for orders ≥ 2;
//! - k = 1, remove direction, exact at integer orders n ≤ 256: with L the
//!   likelihood ratio (1/t) Σⱼ exp((yⱼ − ½)/σ²),
//!   E_Q(Lⁿ) = t⁻ⁿ n! · (the coefficient of zⁿ in) (Σₘ zᵐ e^{m(m−1)/(2σ²)} / m!)ᵗ (the multinomial
//!   expansion; each step's factor is the Gaussian moment E[e^{m(y−½)/σ²}]),
//!   a power series raised to the t-th power in log space.
//!
//! Rényi divergence does not decrease with the order, so an order below 2 (or
//! between integers) takes the bound of the next order that has one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use statrs::function::gamma::ln_gamma;

/// The most k for which the remove direction sums Theorem 3.1's k + 1 terms.
pub const MAX_SUM_TERMS: u64 = 100_000;

/// The highest integer order of the exact k = 1 remove-direction curve.
pub const EXACT_ORDERS: u32 = 256;

fn ln_choose(n: u64, k: u64) -> f64 {
    if k > n {
        return f64::NEG_INFINITY;
    }
    ln_gamma(n as f64 + 1.0) - ln_gamma(k as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0)
}

fn log_add(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    let m = a.max(b);
    m + ((a - m).exp() + (b - m).exp()).ln()
}

/// Dong, Chen & Özgür 2025, Theorem 3.1, remove direction: the log of the moment
/// generating function of the overlap I of two uniform k-subsets of t steps
/// (hypergeometric), ln E[e^{Iα/(2σ²)}]. Needs α ≥ 2.
pub fn dco_remove(sigma: f64, steps: u64, selected: u64, alpha: f64) -> f64 {
    let (t, k) = (steps, selected);
    let mut acc = f64::NEG_INFINITY;
    for i in 0..=k {
        let term =
            ln_choose(k, i) + ln_choose(t - k, k - i) + i as f64 * alpha / (2.0 * sigma * sigma);
        acc = log_add(acc, term);
    }
    acc - ln_choose(t, k)
}

/// Dong, Chen & Özgür 2025, Theorem 3.1, add direction, with x = k(t − k)/(σ²t²):
/// αk²/(2σ²t) + αk(t − k)/(2σ²t(α − 1)) − t·ln(α eˣ − (α − 1))/(2(α − 1)). Needs α ≥ 2.
pub fn dco_add(sigma: f64, steps: u64, selected: u64, alpha: f64) -> f64 {
    let (t, k, s2) = (steps as f64, selected as f64, sigma * sigma);
    let x = k * (t - k) / (s2 * t * t);
    // ln(α eˣ − (α − 1)) = ln(1 + α(eˣ − 1)), accurate for small x
    let ln_term = (alpha * x.exp_m1()).ln_1p();
    alpha * k * k / (2.0 * s2 * t) + alpha * k * (t - k) / (2.0 * s2 * t * (alpha - 1.0))
        - t * ln_term / (2.0 * (alpha - 1.0))
}

/// Log-space product of two power series truncated at degree `n`.
fn mul(p: &[f64], q: &[f64], n: usize) -> Vec<f64> {
    (0..=n)
        .map(|i| {
            let terms: Vec<f64> = (0..=i).map(|j| p[j] + q[i - j]).collect();
            crate::numeric::log_sum_exp(&terms)
        })
        .collect()
}

/// ln of the coefficient of zⁿ in (Σₘ zᵐ e^{m(m−1)/(2σ²)}/m!)ᵗ for n = 0 … [`EXACT_ORDERS`] (square and
/// multiply), cached per (σ, t).
fn power_series(sigma: f64, steps: u64) -> Arc<Vec<f64>> {
    type Cache = Mutex<HashMap<(u64, u64), Arc<Vec<f64>>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let key = (sigma.to_bits(), steps);
    let cache = CACHE.get_or_init(Default::default);
    if let Some(v) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return v;
    }
    let n = EXACT_ORDERS as usize;
    let base: Vec<f64> = (0..=n)
        .map(|m| {
            let m = m as f64;
            m * (m - 1.0) / (2.0 * sigma * sigma) - ln_gamma(m + 1.0)
        })
        .collect();
    let mut result: Vec<f64> = (0..=n)
        .map(|i| if i == 0 { 0.0 } else { f64::NEG_INFINITY })
        .collect();
    let (mut b, mut e) = (base, steps);
    while e > 0 {
        if e & 1 == 1 {
            result = mul(&result, &b, n);
        }
        e >>= 1;
        if e > 0 {
            b = mul(&b, &b, n);
        }
    }
    let v = Arc::new(result);
    if let Ok(mut c) = cache.lock() {
        if c.len() >= 64 {
            c.clear();
        }
        c.insert(key, v.clone());
    }
    v
}

/// The exact remove-direction Rényi divergence of 1-out-of-t allocation at an
/// integer order 2 ≤ n ≤ [`EXACT_ORDERS`] (module docs).
pub fn exact_remove_one(sigma: f64, steps: u64, order: u32) -> f64 {
    assert!(
        (2..=EXACT_ORDERS).contains(&order),
        "order {order} outside 2..=256"
    );
    let series = power_series(sigma, steps);
    let n = f64::from(order);
    (ln_gamma(n + 1.0) + series[order as usize] - n * (steps as f64).ln()) / (n - 1.0)
}

/// Rényi-DP ε at `order` (≥ 1) of one round of k-out-of-t random allocation with
/// noise multiplier σ: the larger direction, each the smallest of the module's bounds.
pub fn rdp(sigma: f64, steps: u64, selected: u64, order: f64) -> Option<f64> {
    if !(order >= 1.0 && order.is_finite()) {
        return None;
    }
    let gauss = selected as f64 * order / (2.0 * sigma * sigma);
    let at = order.max(2.0);
    // the hypergeometric sum has k + 1 terms: past 10⁵ the remove direction keeps
    // the unamplified bound (valid, and no count makes this loop long)
    let mut remove = if selected <= MAX_SUM_TERMS {
        gauss.min(dco_remove(sigma, steps, selected, at))
    } else {
        gauss
    };
    let add = gauss.min(dco_add(sigma, steps, selected, at));
    if selected == 1 && at.ceil() <= f64::from(EXACT_ORDERS) {
        remove = remove.min(exact_remove_one(sigma, steps, at.ceil() as u32));
    }
    Some(remove.max(add).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// E_Q(Lⁿ) by brute force over every allocation sequence (j₁ … jₙ) ∈ {1 … t}ⁿ:
    /// Π over steps of e^{c(c−1)/(2σ²)} with c the step's count.
    fn brute_remove_one(sigma: f64, steps: u64, order: u32) -> f64 {
        let t = steps as usize;
        let mut total = 0.0;
        let seqs = t.pow(order);
        for code in 0..seqs {
            let mut counts = vec![0u32; t];
            let mut c = code;
            for _ in 0..order {
                counts[c % t] += 1;
                c /= t;
            }
            let ln: f64 = counts
                .iter()
                .map(|&m| f64::from(m) * (f64::from(m) - 1.0) / (2.0 * sigma * sigma))
                .sum();
            total += ln.exp();
        }
        (total / seqs as f64).ln() / (f64::from(order) - 1.0)
    }

    #[test]
    fn the_exact_series_matches_brute_force_enumeration() {
        for &(sigma, t) in &[(1.0, 3u64), (0.7, 4), (2.0, 2), (1.3, 5)] {
            for order in 2..=6u32 {
                let fast = exact_remove_one(sigma, t, order);
                let brute = brute_remove_one(sigma, t, order);
                assert!(
                    (fast - brute).abs() <= 1e-12 * brute.abs().max(1.0),
                    "σ {sigma} t {t} order {order}: {fast} vs {brute}"
                );
            }
        }
    }

    #[test]
    fn dong_et_al_remove_is_exact_at_order_two_and_above_it_beyond() {
        for &(sigma, t) in &[(1.0, 100u64), (2.0, 1000), (0.6, 7)] {
            let exact2 = exact_remove_one(sigma, t, 2);
            let dco2 = dco_remove(sigma, t, 1, 2.0);
            assert!((exact2 - dco2).abs() <= 1e-11, "{exact2} vs {dco2}");
            for order in [3u32, 5, 8, 16, 32, 100, 256] {
                let exact = exact_remove_one(sigma, t, order);
                let dco = dco_remove(sigma, t, 1, f64::from(order));
                assert!(
                    exact <= dco + 1e-11,
                    "σ {sigma} t {t} α {order}: {exact} > {dco}"
                );
            }
        }
    }

    #[test]
    fn all_steps_allocated_is_the_plain_gaussian_composition() {
        // k = t: the record is in every step, t Gaussian releases: tα/(2σ²)
        for alpha in [2.0, 3.5, 10.0] {
            let g = 4.0 * alpha / (2.0 * 1.5 * 1.5);
            assert!((dco_add(1.5, 4, 4, alpha) - g).abs() < 1e-12);
            assert!((rdp(1.5, 4, 4, alpha).unwrap() - g).abs() < 1e-9 * g);
        }
        // one step: the Gaussian mechanism itself
        assert!((rdp(2.0, 1, 1, 5.0).unwrap() - 5.0 / 8.0).abs() < 1e-12);
        // counts up to 2⁵³ answer at once, never below the add direction
        let huge = 1u64 << 53;
        let e = rdp(1.0, huge, huge / 2, 4.0).unwrap();
        assert!(
            e.is_finite() && e >= dco_add(1.0, huge, huge / 2, 4.0) - 1e-9,
            "{e}"
        );
        assert!(rdp(1.0, huge, 1, 300.0).unwrap().is_finite());
    }

    #[test]
    fn the_bound_does_not_decrease_with_the_order_and_amplifies() {
        let mut last = 0.0;
        for k in 11..200 {
            let a = f64::from(k) / 10.0;
            let e = rdp(1.0, 1000, 1, a).unwrap();
            assert!(e >= last - 1e-15, "order {a}: {e} < {last}");
            last = e;
        }
        // far below the unamplified α/(2σ²) at moderate orders
        assert!(rdp(2.0, 1000, 1, 8.0).unwrap() < 0.01 * 8.0 / 8.0);
    }

    /// `tests/reference/allocation_rdp.tsv` (module docs; `allocation_rdp.py`).
    #[test]
    fn random_allocation_matches_its_references() {
        use crate::privacy::event::Event;
        use crate::privacy::event_account::{forward, Options};
        let text = include_str!("../../../../tests/reference/allocation_rdp.tsv");
        let (mut dco, mut quad, mut pld) = (0, 0, 0);
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("kind"))
        {
            let f: Vec<&str> = line.split('\t').collect();
            let num = |i: usize| f[i].parse::<f64>().unwrap();
            let (sigma, t, k, x, a, b) =
                (num(1), num(2) as u64, num(3) as u64, num(4), num(5), num(6));
            match f[0] {
                "dco" => {
                    dco += 1;
                    let (add, rem) = (dco_add(sigma, t, k, x), dco_remove(sigma, t, k, x));
                    assert!(
                        (add - a).abs() <= 1e-9 * a.abs() + 1e-13,
                        "{line}: add {add}"
                    );
                    assert!(
                        (rem - b).abs() <= 1e-9 * b.abs() + 1e-13,
                        "{line}: remove {rem}"
                    );
                }
                "quad" => {
                    quad += 1;
                    let ours = rdp(sigma, t, k, x).unwrap();
                    assert!(
                        ours >= a.max(b) * (1.0 - 1e-9),
                        "{line}: {ours} below the quadrature"
                    );
                }
                "pld" => {
                    pld += 1;
                    let event = Event::RandomAllocation {
                        steps: t,
                        selected: k,
                        sigma,
                    };
                    let answers = forward(&event, Some(x), &Options::default())
                        .unwrap()
                        .answers;
                    let eps = answers
                        .iter()
                        .map(|a| a.epsilon)
                        .fold(f64::INFINITY, f64::min);
                    // never below what the PLD accountant proves is attainable
                    assert!(eps >= b, "{line}: ε {eps} below the PLD lower bound {b}");
                    // the price of RDP over a PLD, as the docs state it
                    assert!(eps <= 3.0 * a, "{line}: ε {eps} more than 3× the PLD {a}");
                    eprintln!(
                        "σ {sigma} t {t} k {k}: ε {eps:.4} vs PLD [{b:.4}, {a:.4}]: {:.3}×",
                        eps / a
                    );
                }
                other => panic!("unknown row kind {other}"),
            }
        }
        assert_eq!((dco, quad, pld), (25, 15, 4));
    }
}
