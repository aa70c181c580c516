//! Hot kernels of the Bun et al. figures: smooth sensitivity (one pass over all
//! candidates) and exponential-mechanism sampling (two passes), at k = 4.

use criterion::{criterion_group, criterion_main, Criterion};
use privpost::expfam::dirichlet::HellingerVariant;
use privpost::hellinger::{balanced_counts, gamma, ExpMech, Space};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

fn kernels(c: &mut Criterion) {
    let mut g = c.benchmark_group("hellinger_k4");
    g.sample_size(10);
    for n in [100u32, 300] {
        let space = Space::new(vec![1.0; 4], n, HellingerVariant::Correct).unwrap();
        let data = balanced_counts(n, 4);
        let gam = gamma(1.0, 1e-8, n);
        g.bench_function(format!("smooth_sensitivity_n{n}"), |b| {
            b.iter(|| space.smooth_sensitivity(black_box(&data), gam))
        });
        let mech = ExpMech::new(&space, &data, 1.0, 1e-8).unwrap();
        g.bench_function(format!("em_10000_draws_n{n}"), |b| {
            b.iter(|| mech.sample_distances(10_000, &mut ChaCha8Rng::seed_from_u64(1)))
        });
    }
    g.finish();
}

criterion_group!(benches, kernels);
criterion_main!(benches);
