//! Effective samples per CPU-second of the logistic samplers — whitened multi-chain
//! HMC (the default) and independence MH from a t around the Laplace approximation
//! (`sampler = "imh"`, [`imh`]; here `chains` chains recording every step, as HMC's,
//! where the figures keep only the last state of short chains) — on the true posteriors of Geumlek et al. §5.2 (prior N(0, (nβ₀)⁻¹I),
//! β₀ = 1e-3): Adult, MNIST 3-vs-8 and Abalone. ESS is the minimum over coordinates,
//! both the BDA3 multi-chain ESS and the rank-normalised bulk/tail ESS of Vehtari et
//! al. 2021 (`stats::diagnostics::rank_diagnostics`, equal to ArviZ's); the time counts
//! everything: mode, Hessian, whitening, step-size tuning, burn-in and draws, on one
//! thread, as the process's CPU seconds. `benches/peers.sh` runs it beside NumPyro,
//! nutpie and Stan (PRIVPOST_BENCH_JSON=1: one JSON line per dataset;
//! PRIVPOST_BENCH_DATASETS=adult,mnist selects). Needs the datasets (`privpost data
//! fetch`); skips the ones that are missing.

use std::path::Path;
use std::time::Instant;

use privpost::data;
use privpost::glm::Posterior;
use privpost::samplers::{hmc, imh, LinearTarget};
use privpost::stats::diagnostics;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let chains: usize = std::env::var("PRIVPOST_BENCH_CHAINS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16);
    let json = std::env::var("PRIVPOST_BENCH_JSON").is_ok_and(|v| v == "1");
    let wanted =
        std::env::var("PRIVPOST_BENCH_DATASETS").unwrap_or_else(|_| "adult,mnist,abalone".into());
    let mut tasks: Vec<(&str, Result<data::Task, data::DataError>)> = Vec::new();
    for name in wanted.split(',') {
        match name {
            "adult" => tasks.push(("adult", data::adult(&dir))),
            "mnist" => tasks.push(("mnist", data::mnist38(&dir, 1))),
            "abalone" => tasks.push(("abalone", data::abalone(&dir, 1))),
            other => {
                eprintln!("PRIVPOST_BENCH_DATASETS: unknown dataset {other:?} (allowed: adult, mnist, abalone, comma-separated)");
                std::process::exit(2);
            }
        }
    }
    if !json {
        println!(
            "dataset  sampler n      d    chains  draws  ESS_min  ESS_median  R-hat_max  bulk_min  tail_min  R̂_rank  CPU-s  ESS_bulk/CPU-s"
        );
    }
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
        let cpu0 = cpu_seconds();
        let target = LinearTarget::whitened(&post).expect("mode");
        let t_setup = t0.elapsed().as_secs_f64();
        let s = hmc::tune(&target, 8, 40, 1.5, &mut rng);
        eprintln!("{name}: setup {t_setup:.2} s, step {:.3}", s.step);
        let mut ch = hmc::start(&target, chains, &mut rng);
        for _ in 0..20 {
            hmc::step(&target, &mut ch, s, &mut rng);
        }
        let recorded: Vec<_> = (0..draws)
            .map(|_| {
                hmc::step(&target, &mut ch, s, &mut rng);
                target.to_w(&ch.u)
            })
            .collect();
        let cpu = cpu_seconds() - cpu0;
        report(
            name,
            &task,
            chains,
            draws,
            &recorded,
            cpu,
            "hmc",
            json,
            ch.gradients * chains,
        );
        // independence MH: `chains` chains of `draws` recorded steps, the whitening timed too
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let cpu0 = cpu_seconds();
        let target = LinearTarget::whitened(&post).expect("mode");
        let settings = imh::Settings {
            df: 1000.0,
            scale: 1.0,
            tv_target: 0.01,
            min_steps: 10,
            max_steps: 500,
        };
        let (recorded, diag) =
            imh::traces(&target, chains, draws, settings, &mut rng).expect("draws");
        let cpu = cpu_seconds() - cpu0;
        eprintln!("{name}: imh {diag:?}");
        let evaluations = chains * (draws + 1);
        report(
            name,
            &task,
            chains,
            draws,
            &recorded,
            cpu,
            "imh",
            json,
            evaluations,
        );
    }
}

/// Prints one sampler's line: ESS (BDA3 and rank-normalised, minimum over
/// coordinates), R̂ and CPU seconds; `work` counts gradients (HMC) or likelihood
/// evaluations (IMH).
#[allow(clippy::too_many_arguments)]
fn report(
    name: &str,
    task: &data::Task,
    chains: usize,
    draws: usize,
    recorded: &[nalgebra::DMatrix<f64>],
    cpu: f64,
    sampler: &str,
    json: bool,
    work: usize,
) {
    let n = task.train_x.nrows();
    let c = diagnostics::convergence(recorded);
    // the rank-normalised diagnostics, coordinate by coordinate (not timed)
    let (mut bulk, mut tail, mut rhat) = (f64::INFINITY, f64::INFINITY, 0.0f64);
    for j in 0..task.dim() {
        let traces: Vec<Vec<f64>> = (0..chains)
            .map(|k| recorded.iter().map(|m| m[(j, k)]).collect())
            .collect();
        let r = diagnostics::rank_diagnostics(&traces).expect("finite draws");
        bulk = bulk.min(r.ess_bulk);
        tail = tail.min(r.ess_tail);
        rhat = rhat.max(r.rhat.unwrap_or(f64::NAN));
    }
    if json {
        println!(
            "{{\"dataset\": \"{name}\", \"sampler\": \"{sampler}\", \"ess_bulk_min\": {bulk:.1}, \"ess_tail_min\": {tail:.1}, \"rhat_max\": {rhat:.5}, \"cpu_total\": {cpu:.3}, \"draws\": {}, \"work\": {work}}}",
            chains * draws,
        );
    } else {
        println!(
            "{name:8} {sampler:4} {n:6} {:4} {chains:6}  {draws:5}  {:7.0}  {:10.0}  {:9.4}  {bulk:8.0}  {tail:8.0}  {rhat:6.4}  {cpu:5.2}  {:9.1}",
            task.dim(),
            c.ess_min,
            c.ess_median,
            c.rhat_max,
            bulk / cpu
        );
    }
}

/// CPU seconds of this process (user + system), from getrusage.
fn cpu_seconds() -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct it is given
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    t(u.ru_utime) + t(u.ru_stime)
}
