//! The batched logistic kernels of `numeric::vmath` against the standard library's
//! scalar `exp`/`ln_1p` on the same 30,162 margins (the Adult training set's size):
//! Σ ln σ(tᵢ + δaᵢ) (a slice-sampling line), and the gradient terms σ(−mᵢ) with Σ ln σ(mᵢ).

use criterion::{criterion_group, criterion_main, Criterion};
use privpost::glm::log_sigmoid;
use privpost::numeric::vmath;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn kernels(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let n = 30_162;
    let t: Vec<f64> = (0..n).map(|_| rng.random_range(-8.0..8.0)).collect();
    let a: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let mut g = c.benchmark_group("logistic_30162");
    g.bench_function("line_libm", |b| {
        b.iter(|| {
            t.iter()
                .zip(&a)
                .map(|(&t, &a)| log_sigmoid(t + 0.3 * a))
                .sum::<f64>()
        })
    });
    g.bench_function("line_vmath", |b| {
        b.iter(|| vmath::log_sigmoid_line(&t, &a, 0.3))
    });
    let mut buf = t.clone();
    g.bench_function("gradient_terms_vmath", |b| {
        b.iter(|| {
            buf.copy_from_slice(&t);
            vmath::logistic(&mut buf, &a, None, true)
        })
    });
    g.finish();
}

criterion_group!(benches, kernels);
criterion_main!(benches);
