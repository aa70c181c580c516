//! Throughput of privpost's noise samplers, one core: float Laplace and Gaussian
//! (the papers' `float` mode) vs the CKS20 exact discrete Laplace and Gaussian
//! (`exact` mode), on the task stream's generator (ChaCha8), at the scales
//! benches/noise-peers.sh gives OpenDP. Prints one JSON line per (sampler,
//! scale): nanoseconds per draw, best of 5 runs of 2·10⁶ draws.
//!   cargo bench --bench noise

use std::hint::black_box;
use std::time::Instant;

use privpost::privacy::exact::{DiscreteGaussian, DiscreteLaplace, Ratio};
use privpost::privacy::laplace::Laplace;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

const DRAWS: usize = 2_000_000;

fn time(mut draw: impl FnMut() -> f64) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        let mut acc = 0.0;
        for _ in 0..DRAWS {
            acc += draw();
        }
        black_box(acc);
        best = best.min(t.elapsed().as_secs_f64() * 1e9 / DRAWS as f64);
    }
    best
}

fn main() {
    // `cargo bench` passes --bench; nothing else is taken
    for scale in [1u64, 10, 100, 1000] {
        let b = scale as f64;
        let mut rng = ChaCha8Rng::seed_from_u64(scale);
        let lap = Laplace::for_privacy(b, 1.0).expect("valid scale");
        let float_laplace = time(|| 5.0 + lap.sample(&mut rng));
        let dl = DiscreteLaplace::with_scale(Ratio::new(scale, 1));
        let exact_laplace = time(|| (5 + dl.sample(&mut rng) as i64) as f64);
        let normal = Normal::new(0.0, b).expect("valid σ");
        let float_gaussian = time(|| 5.0 + normal.sample(&mut rng));
        let dg = DiscreteGaussian::with_variance(Ratio::new(scale * scale, 1));
        let exact_gaussian = time(|| (5 + dg.sample(&mut rng) as i64) as f64);
        for (sampler, ns) in [
            ("float_laplace", float_laplace),
            ("exact_laplace", exact_laplace),
            ("float_gaussian", float_gaussian),
            ("exact_gaussian", exact_gaussian),
        ] {
            println!(r#"{{"sampler": "{sampler}", "scale": {scale}, "ns_per_draw": {ns:.2}}}"#);
        }
    }
}
