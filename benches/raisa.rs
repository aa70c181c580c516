//! The per-record kernels of Räisä et al.'s targets: one full-data pass
//! of clipped gradients and of clipped ratios (n = 10⁵, the paper's size), and one
//! gathered DP-SGLD batch of 1000, and 1000 DP-SGLD steps (batch drawn, gathered,
//! clipped, noised); ÷ 10⁵ (or 10³, 10⁶) gives ns per record.

use criterion::{criterion_group, criterion_main, Criterion};
use privpost::dpmcmc::model::RecordModel;
use privpost::dpmcmc::raisa_models::{Banana, Gauss};
use privpost::dpmcmc::sg_mcmc::{SgKind, SgMcmc};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn kernels(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(43247);
    let banana = Banana::paper(100_000, &mut rng);
    let gauss = Gauss::paper(100_000, &mut rng).unwrap();
    let batch: Vec<usize> = (0..1000).map(|i| (i * 7919) % 100_000).collect();
    let mut g = c.benchmark_group("raisa_kernels");
    g.sample_size(20);
    let theta = [0.01, 2.95];
    g.bench_function("banana_grad_pass_1e5", |b| {
        b.iter(|| banana.clipped_grad_sum(&theta, 0.05))
    });
    g.bench_function("banana_batch_1000", |b| {
        b.iter(|| banana.clipped_batch_grad_sum(&theta, 0.05, &batch))
    });
    let mut scratch = Vec::new();
    g.bench_function("banana_ratio_pass_1e5", |b| {
        b.iter(|| banana.clipped_ratio_sum(&theta, &[0.02, 2.9], 0.1 * 0.05, &mut scratch))
    });
    let mut tg = [0.0; 10];
    tg[1] = 3.0;
    g.bench_function("gauss_grad_pass_1e5", |b| {
        b.iter(|| gauss.clipped_grad_sum(&tg, 10.0))
    });
    let sgld = SgMcmc {
        batch: 1000,
        clip: 0.2,
        eta: 1.0,
        kind: SgKind::Sgld {
            variance_factor: 2.0,
        },
    };
    let mut chain_rng = ChaCha8Rng::seed_from_u64(7);
    g.bench_function("banana_sgld_1000_steps", |b| {
        b.iter(|| {
            let mut t = theta;
            sgld.run(&banana, &mut t, 1000, &mut chain_rng, |_, _| {})
        })
    });
    g.finish();
}

criterion_group!(benches, kernels);
criterion_main!(benches);
