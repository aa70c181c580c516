//! Effective samples per CPU-second of the default sampler (whitened multi-chain
//! HMC) on the true posteriors of Geumlek et al. §5.2 (prior N(0, (nβ₀)⁻¹I),
//! β₀ = 1e-3): Adult, MNIST 3-vs-8 and Abalone. ESS is the minimum over coordinates
//! (BDA3 multi-chain ESS); the time counts everything: mode, Hessian, whitening,
//! step-size tuning, burn-in and draws, on one thread. Compare with
//! `benches/numpyro_nuts.sh`, which reports the same numbers for NumPyro's NUTS.
//! Needs the datasets (`privpost data fetch`); skips the ones that are missing.

use std::path::Path;
use std::time::Instant;

use privpost::data;
use privpost::glm::Posterior;
use privpost::samplers::{hmc, LinearTarget};
use privpost::stats::diagnostics;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let chains: usize = std::env::var("PRIVPOST_BENCH_CHAINS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16);
    let tasks: Vec<(&str, Result<data::Task, data::DataError>)> = vec![
        ("adult", data::adult(&dir)),
        ("mnist", data::mnist38(&dir, 1)),
        ("abalone", data::abalone(&dir, 1)),
    ];
    println!(
        "dataset  n      d    chains  draws  ESS_min  ESS_median  R-hat_max  seconds  ESS_min/s"
    );
    for (name, task) in tasks {
        let task = match task {
            Ok(t) => t,
            Err(e) => {
                println!("{name}: skipped ({e})");
                continue;
            }
        };
        let n = task.train_x.nrows();
        let post = Posterior {
            x: &task.train_x,
            y: &task.train_y,
            rho: 1.0,
            precision: n as f64 * 1e-3,
            radius: None,
        };
        let draws = 200;
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let t0 = Instant::now();
        let target = LinearTarget::whitened(&post).expect("mode");
        let t_setup = t0.elapsed().as_secs_f64();
        let s = hmc::tune(&target, 8, 40, 1.5, &mut rng);
        eprintln!("{name}: setup {t_setup:.2} s, step {:.3}", s.step);
        let recorded = hmc::sample(&target, chains, 20, draws, s, &mut rng);
        let secs = t0.elapsed().as_secs_f64();
        let c = diagnostics::convergence(&recorded);
        println!(
            "{name:8} {n:6} {:4} {chains:6}  {draws:5}  {:7.0}  {:10.0}  {:9.4}  {secs:7.2}  {:9.1}",
            task.dim(),
            c.ess_min,
            c.ess_median,
            c.rhat_max,
            c.ess_min / secs
        );
    }
}
