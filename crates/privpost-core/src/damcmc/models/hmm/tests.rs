//! The per-cell HMM sampler against a brute-force posterior: every state
//! sequence z and every training histogram enumerated, the transition rows and
//! the emissions integrated out, so p(z, h | release) ∝
//! Polya(z) Π_d Π_k B(β + H_{k,d}) / B(β) Π_c multinomial(h_{c,d}) η_d(ỹ_{c,d} | h_{c,d}).

use rand::SeedableRng;
use statrs::function::gamma::ln_gamma;

use super::*;
use crate::hmm::Cell;

/// One region of four cells (events 2, 1, 3, 2; the third held out), two
/// features with 2 and 3 values; the release (every cell, the held-out one
/// included, which the sampler must ignore) has clamped zeros.
fn data() -> (Histograms, Histograms, Vec<Vec<bool>>) {
    let cell = |month, events, a: Vec<f64>, b: Vec<f64>| Cell {
        month,
        events,
        counts: vec![a, b],
    };
    let layout = Histograms {
        cards: vec![2, 3],
        regions: vec![(
            0,
            vec![
                cell(0, 2, vec![0.0; 2], vec![0.0; 3]),
                cell(1, 1, vec![0.0; 2], vec![0.0; 3]),
                cell(2, 3, vec![0.0; 2], vec![0.0; 3]),
                cell(3, 2, vec![0.0; 2], vec![0.0; 3]),
            ],
        )],
    };
    let mut released = layout.clone();
    let noisy = [
        (vec![2.4, 0.0], vec![0.0, 1.6, 0.3]),
        (vec![0.0, 1.2], vec![0.9, 0.0, 0.0]),
        (vec![9.0, 9.0], vec![9.0, 9.0, 9.0]),
        (vec![0.3, 1.9], vec![0.0, 0.0, 2.2]),
    ];
    for (c, (a, b)) in released.regions[0].1.iter_mut().zip(noisy) {
        c.counts = vec![a, b];
    }
    (layout, released, vec![vec![false, false, true, false]])
}

/// The compositions of n into k parts.
fn compositions(n: usize, k: usize) -> Vec<Vec<usize>> {
    if k == 1 {
        return vec![vec![n]];
    }
    (0..=n)
        .flat_map(|first| {
            compositions(n - first, k - 1)
                .into_iter()
                .map(move |mut rest| {
                    rest.insert(0, first);
                    rest
                })
        })
        .collect()
}

fn ln_multinomial(h: &[usize]) -> f64 {
    let n: usize = h.iter().sum();
    ln_gamma(n as f64 + 1.0) - h.iter().map(|&x| ln_gamma(x as f64 + 1.0)).sum::<f64>()
}

fn ln_beta_fn(a: &[f64]) -> f64 {
    a.iter().map(|&x| ln_gamma(x)).sum::<f64>() - ln_gamma(a.iter().sum())
}

/// The exact posterior: E[h_{t,d,v}] per training cell t (in `PerCellHmm`'s
/// order), P(z₀ = z₁) and P(z₁ = z₃), and (one state) E[φ_{d,v}].
struct Exact {
    counts: Vec<Vec<Vec<f64>>>,
    same: [f64; 2],
    phi: Vec<Vec<f64>>,
}

fn brute_force(
    released: &Histograms,
    held_out: &[bool],
    laws: &[Noise],
    states: usize,
    (alpha, beta): (f64, f64),
) -> Exact {
    let cells = &released.regions[0].1;
    let train: Vec<usize> = (0..cells.len()).filter(|&i| !held_out[i]).collect();
    let cards = &released.cards;
    let rels: Vec<Release> = (0..cards.len())
        .map(|d| {
            let v: Vec<f64> = train
                .iter()
                .flat_map(|&i| cells[i].counts[d].clone())
                .collect();
            let len = v.len();
            Release::new(v, laws[d], Clamp::NON_NEGATIVE, len).unwrap()
        })
        .collect();
    let mut total = f64::NEG_INFINITY;
    // per state sequence: ln weight, z, E[h | z] per feature, E[φ | z] per feature
    type Term = (f64, Vec<usize>, Vec<Vec<Vec<f64>>>, Vec<Vec<f64>>);
    let mut terms: Vec<Term> = Vec::new();
    for code in 0..states.pow(cells.len() as u32) {
        let z: Vec<usize> = (0..cells.len())
            .map(|i| code / states.pow(i as u32) % states)
            .collect();
        // the transition rows integrated out (a Dirichlet-multinomial per row)
        let mut n = vec![vec![0.0; states]; states];
        for w in z.windows(2) {
            n[w[0]][w[1]] += 1.0;
        }
        let ka = states as f64 * alpha;
        let mut lw: f64 = n
            .iter()
            .map(|row| {
                ln_gamma(ka) - ln_gamma(row.iter().sum::<f64>() + ka)
                    + row
                        .iter()
                        .map(|&c| ln_gamma(c + alpha) - ln_gamma(alpha))
                        .sum::<f64>()
            })
            .sum();
        let mut counts = Vec::new();
        let mut phi = Vec::new();
        for (d, &k) in cards.iter().enumerate() {
            let zt: Vec<usize> = train.iter().map(|&i| z[i]).collect();
            let events: Vec<usize> = train.iter().map(|&i| cells[i].events).collect();
            let (ln_l, e, ephi) = feature_posterior(&events, &zt, &rels[d], (k, states, beta));
            lw += ln_l;
            counts.push(e);
            phi.push(ephi);
        }
        total = crate::numeric::log_sum_exp(&[total, lw]);
        terms.push((lw, z, counts, phi));
    }
    let mut out = Exact {
        counts: (0..train.len())
            .map(|_| cards.iter().map(|&k| vec![0.0; k]).collect())
            .collect(),
        same: [0.0; 2],
        phi: cards.iter().map(|&k| vec![0.0; k]).collect(),
    };
    for (lw, z, counts, phi) in terms {
        let w = (lw - total).exp();
        out.same[0] += w * f64::from(z[0] == z[1]);
        out.same[1] += w * f64::from(z[1] == z[3]);
        for (d, e) in counts.iter().enumerate() {
            for (t, et) in e.iter().enumerate() {
                for (v, x) in et.iter().enumerate() {
                    out.counts[t][d][v] += w * x;
                }
            }
            for (v, x) in phi[d].iter().enumerate() {
                out.phi[d][v] += w * x;
            }
        }
    }
    out
}

/// Feature d given the states `z` of the training cells (with `events` each):
/// ln Σ over every joint training histogram of multinomial · release density ·
/// Π_k B(β + H_k)/B(β), and under that law E[h_{t,v}] and (for one state)
/// E[φ_v].
fn feature_posterior(
    events: &[usize],
    z: &[usize],
    rel: &Release,
    (k, states, beta): (usize, usize, f64),
) -> (f64, Vec<Vec<f64>>, Vec<f64>) {
    let options: Vec<Vec<Vec<usize>>> = events.iter().map(|&n| compositions(n, k)).collect();
    let mut idx = vec![0usize; events.len()];
    let mut ln_l = f64::NEG_INFINITY;
    let mut acc: Vec<(f64, Vec<Vec<usize>>)> = Vec::new();
    loop {
        let hs: Vec<Vec<usize>> = idx
            .iter()
            .zip(&options)
            .map(|(&j, o)| o[j].clone())
            .collect();
        let mut l = 0.0;
        let mut big_h = vec![vec![beta; k]; states];
        for (t, h) in hs.iter().enumerate() {
            l += ln_multinomial(h);
            for (v, &x) in h.iter().enumerate() {
                l += rel.ln_coordinate(t * k + v, x as f64);
                big_h[z[t]][v] += x as f64;
            }
        }
        for row in &big_h {
            l += ln_beta_fn(row) - ln_beta_fn(&vec![beta; k]);
        }
        ln_l = crate::numeric::log_sum_exp(&[ln_l, l]);
        acc.push((l, hs));
        // the next combination, in mixed radix
        let mut p = 0;
        while p < idx.len() {
            idx[p] += 1;
            if idx[p] < options[p].len() {
                break;
            }
            idx[p] = 0;
            p += 1;
        }
        if p == idx.len() {
            break;
        }
    }
    let mut e = vec![vec![0.0; k]; events.len()];
    let mut ephi = vec![0.0; k];
    for (l, hs) in &acc {
        let w = (l - ln_l).exp();
        let mut tot = vec![beta; k];
        for (t, h) in hs.iter().enumerate() {
            for (v, &x) in h.iter().enumerate() {
                e[t][v] += w * x as f64;
                tot[v] += x as f64;
            }
        }
        let s: f64 = tot.iter().sum();
        for v in 0..k {
            ephi[v] += w * tot[v] / s;
        }
    }
    (ln_l, e, ephi)
}

/// Mean and batch-means standard error over chains (20 batches per chain).
fn mean_se(chains: &[Vec<f64>]) -> (f64, f64) {
    let batches: Vec<f64> = chains
        .iter()
        .flat_map(|c| {
            let size = c.len() / 20;
            (0..20).map(move |b| c[b * size..(b + 1) * size].iter().sum::<f64>() / size as f64)
        })
        .collect();
    let (m, v) = crate::stats::diagnostics::mean_var(&batches);
    (m, (v / batches.len() as f64).sqrt())
}

/// The sampler's averages against the brute force, within 4.5 batch-means
/// standard errors; `rounded` rounds the release to integers (the exact modes').
fn check(states: usize, laws: [Noise; 2], seed: u64, rounded: bool) {
    for kernel in [CellKernel::RecordWise, CellKernel::Counts] {
        check_kernel(kernel, states, laws, seed, rounded);
    }
}

fn check_kernel(kernel: CellKernel, states: usize, laws: [Noise; 2], seed: u64, rounded: bool) {
    let (layout, mut released, held_out) = data();
    if rounded {
        for c in released.regions[0].1.iter_mut() {
            c.counts.iter_mut().flatten().for_each(|x| *x = x.round());
        }
    }
    let (alpha, beta) = (0.8, 0.7);
    let model = Model {
        states,
        alpha,
        beta: vec![beta; 2],
        ops: None,
    };
    let da = PerCellHmm::new(&released, &held_out, &laws, model)
        .unwrap()
        .with_kernel(kernel);
    let exact = brute_force(&released, &held_out[0], &laws, states, (alpha, beta));
    let (warmup, kept) = (1_000, 40_000);
    let mut series: Vec<Vec<Vec<f64>>> = Vec::new(); // quantity × chain × draw
    for chain in 0..4 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed + chain);
        let mut s = da.start(&layout, &mut rng);
        let mut rows: Vec<Vec<f64>> = Vec::new();
        for it in 0..warmup + kept {
            da.iterate(&mut s, &mut rng);
            if it < warmup {
                continue;
            }
            let z = &s.state.z[0];
            let mut q = vec![f64::from(z[0] == z[1]), f64::from(z[1] == z[3])];
            for &i in &[0usize, 1, 3] {
                for h in &s.hist.regions[0].1[i].counts {
                    q.extend_from_slice(h);
                }
            }
            if states == 1 {
                for p in &s.state.phi[0] {
                    q.extend_from_slice(p);
                }
            }
            rows.push(q);
        }
        for (j, _) in rows[0].iter().enumerate() {
            if series.len() <= j {
                series.push(Vec::new());
            }
            series[j].push(rows.iter().map(|r| r[j]).collect());
        }
    }
    let mut want = exact.same.to_vec();
    for t in &exact.counts {
        for h in t {
            want.extend_from_slice(h);
        }
    }
    if states == 1 {
        for p in &exact.phi {
            want.extend_from_slice(p);
        }
    }
    assert_eq!(want.len(), series.len());
    // the check has power: the released counts, read as the true ones, are
    // many standard errors from the sampler's averages
    let mut naive_z: f64 = 0.0;
    let released_counts = [0usize, 1, 3]
        .iter()
        .flat_map(|&i| released.regions[0].1[i].counts.iter().flatten().copied());
    for (r, chains) in released_counts.zip(&series[2..]) {
        let (m, se) = mean_se(chains);
        naive_z = naive_z.max((m - r).abs() / se);
    }
    assert!(
        naive_z > 20.0,
        "the released counts are within {naive_z} s.e."
    );
    for (j, (w, chains)) in want.iter().zip(&series).enumerate() {
        let (m, se) = mean_se(chains);
        if se == 0.0 {
            assert!((m - w).abs() < 1e-12, "quantity {j}: {m} vs {w}");
            continue;
        }
        let z = (m - w) / se;
        assert!(
            z.abs() < 4.5,
            "{kernel:?}, states {states}, quantity {j}: {m} ± {se} vs exact {w} (z = {z})"
        );
    }
}

#[test]
fn one_state_matches_brute_force() {
    let laplace = Noise::new("laplace", 1.0).unwrap();
    check(1, [laplace, Noise::new("laplace", 0.6).unwrap()], 11, false);
}

#[test]
fn two_states_match_brute_force() {
    let laplace = Noise::new("laplace", 1.0).unwrap();
    check(2, [laplace, Noise::new("laplace", 0.6).unwrap()], 21, false);
}

/// The exact modes' release: the discrete Laplace, integer values.
#[test]
fn discrete_laplace_matches_brute_force() {
    let law = Noise::new("discrete_laplace", 1.0).unwrap();
    check(2, [law, law], 31, true);
}

#[test]
fn acceptance_bound_is_per_feature() {
    let (_, released, held_out) = data();
    let model = Model {
        states: 2,
        alpha: 1.0,
        beta: vec![1.0; 2],
        ops: None,
    };
    let laws = [
        Noise::new("laplace", 2.0).unwrap(),
        Noise::new("laplace", 0.5).unwrap(),
    ];
    let da = PerCellHmm::new(&released, &held_out, &laws, model).unwrap();
    assert_eq!(da.acceptance_bound(), Some((-4.0f64).exp()));
}
