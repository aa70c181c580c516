//! One private DP-MCMC step (b = 1000, N = 10⁶, the paper's GMM problem) and a
//! 20,000-iteration run (the target set for it: under 1 s; the authors' Python: 47 s),
//! and 10,000 DP-SGLD steps (b = 100).

use criterion::{criterion_group, criterion_main, Criterion};
use privpost::dpmcmc::barker::{private_step, PrivateTest, Stats, SubsetSampler};
use privpost::dpmcmc::gmm::generate;
use privpost::dpmcmc::gmm::Gmm;
use privpost::dpmcmc::sgld::{Noise, Sgld};
use privpost::dpmcmc::vcor::VCor;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn steps(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let data = privpost::numeric::pages::HugePageSlice::new(&generate(1_000_000, &mut rng));
    let vcor = VCor::stored(2.0).unwrap();
    let test = PrivateTest::paper();
    let mut g = c.benchmark_group("dp_mcmc");
    g.sample_size(10);
    let (mut theta, mut stats) = ([0.5, 0.0], Stats::default());
    let mut subsets = SubsetSampler::new(data.len());
    let model = Gmm::untempered(&data);
    g.bench_function("one_step_b1000", |b| {
        b.iter(|| {
            private_step(
                &model,
                &mut subsets,
                &mut theta,
                0.1,
                &test,
                &vcor,
                &mut stats,
                &mut rng,
            )
            .unwrap()
        })
    });
    g.bench_function("run_20000_steps", |b| {
        b.iter(|| {
            let (mut theta, mut stats) = ([0.5, 0.0], Stats::default());
            for _ in 0..20_000 {
                private_step(
                    &model,
                    &mut subsets,
                    &mut theta,
                    0.1,
                    &test,
                    &vcor,
                    &mut stats,
                    &mut rng,
                )
                .unwrap();
            }
            theta
        })
    });
    let sgld = Sgld::paper(Noise::Published);
    let tempered = Gmm::new(&data, sgld.n0);
    let mut theta2 = [0.5, 0.0];
    // a run of 10,000 steps (the figure's loop, prefetching the next minibatch); ÷ 10⁴ per step
    g.bench_function("dp_sgld_10000_steps_b100", |b| {
        b.iter(|| sgld.run(&tempered, &mut theta2, 10_000, &mut rng, |_, _, _| {}))
    });
    g.finish();
}

criterion_group!(benches, steps);
criterion_main!(benches);
