//! privpost-core: the math of privpost — mechanisms and their privacy events,
//! accountants, exponential-family and logistic posteriors, the Hellinger
//! mechanism, DP-MCMC, data-augmentation MCMC from a private release, the
//! samplers, the HMM, and the numerics and random streams beneath them.
//!
//! No config files, file system, plots or command line: the harness crate
//! `privpost` reads configs, fans tasks out, writes tables and draws figures,
//! and the compiler keeps this boundary (this crate does not depend on clap,
//! toml, csv, plotters, indicatif or pyo3). Threads: `damcmc` runs its chains
//! and `privacy::exact` its enumeration on rayon's pool of the caller.
//!
//! Layers, from the bottom (`tests/module_graph.rs` enforces them):
//! - leaves: `names` (the name tables of closed sets), `numeric`, `rng` (every random stream), `stats` (moments,
//!   quantiles, MCMC diagnostics), `jax_random` (JAX's PRNG, bit for bit);
//! - math: `privacy` (mechanisms, accountants, the privacy ledger's events),
//!   `expfam`, `glm`, `hellinger`, `dpmcmc`, `samplers`, `hmm`, `damcmc`.

/// `eprintln!` for the unit tests' diagnostics (the harness has its own
/// never-panicking `errln!` for user-facing output).
#[cfg(test)]
macro_rules! errln {
    ($($t:tt)*) => {
        eprintln!($($t)*)
    };
}

pub mod damcmc;
pub mod dpmcmc;
pub mod expfam;
pub mod glm;
pub mod hellinger;
pub mod hmm;
pub mod jax_random;
pub mod names;
pub mod numeric;
pub mod privacy;
pub mod rng;
pub mod samplers;
pub mod stats;

#[cfg(any(test, feature = "testutil"))]
pub mod testutil;
