//! Nanoseconds per draw of the `prio` crate's CKS20 samplers (0.18.1, on
//! `Ratio<BigUint>`) on ChaCha8, one core, at the scales of privpost's
//! benches/noise.rs; one JSON line per (sampler, scale). Built outside the
//! repository by benches/noise-peers.sh (prio is not a privpost dependency).
use prio::dp::distributions::{DiscreteGaussian, DiscreteLaplace};
use prio::dp::Rational;
use rand::distr::Distribution;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;

const DRAWS: usize = 200_000;

fn time(mut draw: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..DRAWS {
            draw();
        }
        best = best.min(t.elapsed().as_secs_f64() * 1e9 / DRAWS as f64);
    }
    best
}

fn main() {
    for scale in [1u32, 10, 100, 1000] {
        let mut rng = ChaCha8Rng::seed_from_u64(scale as u64);
        let r = Rational::from_unsigned(scale, 1).unwrap();
        let lap = DiscreteLaplace::new(r.clone()).unwrap();
        let l = time(|| {
            black_box(lap.sample(&mut rng));
        });
        let g = DiscreteGaussian::new(r).unwrap();
        let gg = time(|| {
            black_box(g.sample(&mut rng));
        });
        println!(r#"{{"sampler": "prio_laplace", "scale": {scale}, "ns_per_draw": {l:.2}}}"#);
        println!(r#"{{"sampler": "prio_gaussian", "scale": {scale}, "ns_per_draw": {gg:.2}}}"#);
    }
}
