//! ESS per CPU-second of foulds2016/fig6's data-augmentation chain
//! (`laplace_noise_aware_da`) on the `iraq` preset (5 regions × 72 months,
//! ≈ 390,000 events; every 10th region-month held out), for the two ways of
//! moving the records: Ju et al.'s record-wise kernel and the count kernel
//! (exact draws of randomly paired counts), at ε ∈ {0.1, 1, 10}.
//!
//! Per (ε, kernel): 2 chains of `SWEEPS` iterations after `WARMUP`, one thread,
//! from the same release and seeds. Printed: seconds per iteration, and for the
//! held-out log-likelihood per event (what the figure averages) and for the
//! records' distance from the release (Σ (h − ỹ)² over every training count,
//! a summary of x) the mean, ESS and ESS per CPU-second.
//!
//! `cargo bench --bench hmm_da` (a few minutes); `-- SWEEPS` changes the length,
//! `-- counts` or `-- record_wise` runs one kernel.

use std::time::Instant;

use privpost::damcmc::models::{CellKernel, PerCellHmm};
use privpost::damcmc::Noise;
use privpost::hmm::generate::{generate, Preset};
use privpost::hmm::gibbs::Model;
use privpost::hmm::laplace::LaplaceRelease;
use privpost::hmm::Histograms;
use privpost::privacy::event::NoiseMode;
use privpost::stats::diagnostics::ess;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const WARMUP: usize = 100;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sweeps: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(600);
    // `counts` or `record_wise` runs that kernel only
    let only = |k: CellKernel| {
        let named = |n: &str| args.iter().any(|a| a == n);
        match k {
            CellKernel::RecordWise => !named("counts"),
            CellKernel::Counts => !named("record_wise"),
        }
    };
    let p = Preset::named("iraq").unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let (_, records) = generate(&p, &mut rng);
    let data = Histograms::aggregate(&records, p.regions(), p.months, &p.cards(), 500);
    let held_out: Vec<Vec<bool>> = data
        .regions
        .iter()
        .map(|(_, cells)| (0..cells.len()).map(|i| i % 10 == 3).collect())
        .collect();
    let held_events: usize = data
        .regions
        .iter()
        .zip(&held_out)
        .flat_map(|((_, c), m)| c.iter().zip(m).filter(|(_, &h)| h).map(|(c, _)| c.events))
        .sum();
    println!(
        "iraq: {} events, {} cells; {WARMUP} + {sweeps} iterations, 2 chains, 1 thread",
        data.events(),
        data.cells()
    );
    println!(
        "{:>5} {:>11} {:>10} | {:>9} {:>7} {:>8} | {:>11} {:>7} {:>8}",
        "eps", "kernel", "s/iter", "loglik", "ESS", "ESS/s", "distance", "ESS", "ESS/s"
    );
    for eps in [0.1, 1.0, 10.0] {
        let release = LaplaceRelease::even_split(eps, data.cards.len(), NoiseMode::Float).unwrap();
        let released = release.apply(&data, &mut rng).unwrap();
        let laws: Vec<Noise> = (0..data.cards.len())
            .map(|d| Noise::of_counts(release.noise(d)))
            .collect();
        for kernel in [CellKernel::RecordWise, CellKernel::Counts] {
            if !only(kernel) {
                continue;
            }
            let model = Model {
                states: 10,
                alpha: 1.0,
                beta: vec![0.1; 5],
                ops: None,
            };
            let da = PerCellHmm::new(&released, &held_out, &laws, model)
                .unwrap()
                .with_kernel(kernel);
            let (mut ll, mut dist) = (Vec::new(), Vec::new());
            let mut seconds = 0.0;
            for chain in 0..2u64 {
                let mut rng = ChaCha8Rng::seed_from_u64(100 + chain);
                let mut s = da.start(&data, &mut rng);
                let (mut l, mut x) = (Vec::new(), Vec::new());
                let t = Instant::now();
                for it in 0..WARMUP + sweeps {
                    da.iterate(&mut s, &mut rng);
                    if it >= WARMUP {
                        let v = da.gibbs(&s).held_out_loglik(&s.state, &data);
                        l.push(v.iter().sum::<f64>() / held_events as f64);
                        x.push(distance(&s.hist, &released, &held_out));
                    }
                }
                seconds += t.elapsed().as_secs_f64();
                ll.push(l);
                dist.push(x);
            }
            let per = seconds / (2 * (WARMUP + sweeps)) as f64;
            let (el, ex) = (ess(&ll), ess(&dist));
            println!(
                "{eps:>5} {:>11} {per:>10.2e} | {:>9.4} {el:>7.0} {:>8.1} | {:>11.4e} {ex:>7.0} {:>8.1}",
                format!("{kernel:?}"),
                mean(&ll),
                el / seconds,
                mean(&dist),
                ex / seconds
            );
        }
    }
}

/// Σ (h − ỹ)² over every training count of every feature.
fn distance(hist: &Histograms, released: &Histograms, held_out: &[Vec<bool>]) -> f64 {
    let mut total = 0.0;
    for (r, ((_, cells), (_, rel))) in hist.regions.iter().zip(&released.regions).enumerate() {
        for (i, (c, y)) in cells.iter().zip(rel).enumerate() {
            if held_out[r][i] {
                continue;
            }
            for (h, y) in c.counts.iter().zip(&y.counts) {
                total += h.iter().zip(y).map(|(a, b)| (a - b).powi(2)).sum::<f64>();
            }
        }
    }
    total
}

fn mean(chains: &[Vec<f64>]) -> f64 {
    let n: usize = chains.iter().map(Vec::len).sum();
    chains.iter().flatten().sum::<f64>() / n as f64
}
