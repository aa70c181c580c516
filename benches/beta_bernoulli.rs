//! Hot kernels of the Beta-Bernoulli figures: the r/m search (geumlek2017 §3.1)
//! and the Gaussian-mechanism KL quadrature (Figure 2 a, b).

use criterion::{criterion_group, criterion_main, Criterion};
use privpost::expfam::beta::BetaDist;
use privpost::expfam::mechanisms::{Algorithm, BetaBernoulli, GaussianCount};
use std::hint::black_box;

fn problem() -> BetaBernoulli {
    BetaBernoulli::new(BetaDist::new(6.0, 18.0).unwrap(), 100)
}

fn search(c: &mut Criterion) {
    let p = problem();
    let mut g = c.benchmark_group("coefficient_search");
    for (name, algorithm, lambda, eps) in [
        ("diffused_l2_eps0.1", Algorithm::Diffused, 2.0, 0.1),
        (
            "concentrated_l15_eps1e-5",
            Algorithm::Concentrated,
            15.0,
            1e-5,
        ),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                p.calibrate(algorithm, black_box(lambda), black_box(eps))
                    .unwrap()
            })
        });
    }
    g.finish();
}

fn gaussian_kl(c: &mut Criterion) {
    let p = problem();
    let mut g = c.benchmark_group("gaussian_mechanism_kl");
    for sigma in [0.5, 10.0, 200.0] {
        let mech = GaussianCount {
            problem: p,
            sigma,
            calibration: privpost::privacy::gaussian::GaussianCalibration::Tight,
            discrete: None,
        };
        g.bench_function(format!("sigma_{sigma}"), |b| {
            b.iter(|| mech.kl_from_truth(black_box(38.0)))
        });
    }
    g.finish();
}

criterion_group!(benches, search, gaussian_kl);
criterion_main!(benches);
