//! One full Gibbs sweep (emissions + states) of the 10-state HMM on the `iraq` preset
//! (5 kept regions × 72 months, ≈ 390,000 events aggregated into histograms), non-private
//! and OPS (M = 10, ε = 1).

use criterion::{criterion_group, criterion_main, Criterion};
use privpost::hmm::generate::{generate, Preset};
use privpost::hmm::gibbs::{Gibbs, Model, Ops, State};
use privpost::hmm::Histograms;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn sweeps(c: &mut Criterion) {
    let p = Preset::named("iraq").unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let (_, records) = generate(&p, &mut rng);
    let h = Histograms::aggregate(&records, p.regions(), p.months, &p.cards(), 500);
    let mut g = c.benchmark_group("hmm_sweep_iraq_k10");
    for (name, ops) in [
        ("non_private", None),
        ("ops_m10", Some(Ops::new(&h.cards, 10.0, 1.0))),
    ] {
        let gibbs = Gibbs::new(
            &h,
            Model {
                states: 10,
                alpha: 1.0,
                beta: vec![0.1; 5],
                ops,
            },
        );
        let mut s = State::random(&h, 10, &mut rng);
        g.bench_function(name, |b| b.iter(|| gibbs.sweep(&mut s, &mut rng)));
    }
    g.finish();
}

criterion_group!(benches, sweeps);
criterion_main!(benches);
