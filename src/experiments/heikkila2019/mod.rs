//! heikkila2019-dp-mcmc: Figures 1–3 (one file each) and their plots (`plot.rs`).
//! The chains start at `start`: "dpvi" (our DPVI fit, as the authors ran it, its
//! cost composed into the ledger) or a fixed point.
//!
//! Shared by the figures: the private test of the paper's set-up, where the chains
//! start (DPVI or a point) and its cost, the GMM data record.

mod fig1;
mod fig2;
pub mod fig3;
pub mod plot;

pub use fig1::{validate_fig1, Fig1, Fig1Row, FIG1_SCHEMA};
pub use fig2::{validate_fig2, Fig2, Fig2Row, FIG2_SCHEMA};
pub use fig3::{validate_fig3, Fig3, Fig3Row, Fig3Summary, FIG3_SCHEMA};

use crate::config::ParamError;
use crate::dpmcmc::barker::PrivateTest;
use crate::dpmcmc::gmm::Gmm;
use crate::privacy::accountant::SgldAccount;
use crate::privacy::event::Conversion;
use crate::privacy::ledger::Entry;
use crate::results::manifest::DatasetRecord;
use crate::rng::{setup_rng, Purpose};
use serde::Deserialize;

/// The private test of the paper's set-up (C = 2) from validated config values;
/// `keys` name the batch and data-size keys in error messages.
fn private_test(
    [key, n_key]: [&str; 2],
    n_data: u64,
    batch: u64,
    n0: f64,
    clip_factor: f64,
) -> Result<PrivateTest, ParamError> {
    // N₀ tempers the likelihood (N₀·mean r): at most N, which also keeps N₀²
    // (in s²) finite
    if !(n0 > 0.0 && n0 <= n_data as f64) {
        return Err(ParamError::new(
            "n0",
            format!(
                "N₀ = {} with {n_key} = {n_data}",
                crate::config::check::short(n0)
            ),
            format!("0 < N₀ ≤ {n_key} (the likelihood is tempered to N₀ records)"),
        ));
    }
    if !(clip_factor > 0.0 && clip_factor <= 1.0) {
        return Err(ParamError::new(
            "clip_factor",
            format!("{clip_factor}"),
            "0 < clip_factor ≤ 1 (clip = clip_factor·√b/N₀, eq. 23)",
        ));
    }
    if batch < 21 || batch > n_data || n_data > 100_000_000 {
        return Err(ParamError::new(
            key,
            format!("{key} = {batch} with {n_key} = {n_data}"),
            format!("21 ≤ {key} ≤ {n_key} ≤ 10⁸"),
        ));
    }
    Ok(PrivateTest {
        batch: batch as usize,
        n0,
        clip: clip_factor * (batch as f64).sqrt() / n0,
        c: 2.0,
    })
}

/// The manifest record of the synthetic GMM data.
fn gmm_record(data: &[f64]) -> DatasetRecord {
    DatasetRecord {
        name: "gmm".into(),
        files: Vec::new(),
        sha256: Vec::new(),
        rows: data.len(),
        source: serde_json::json!({
            "generator": "xᵢ ~ ½N(θ₁, 2) + ½N(θ₁ + θ₂, 2) at θ = (0, 1) (Welling & Teh 2011)",
            "rng": "set-up stream SharedData of the config seed",
        }),
    }
}

/// `start = "dpvi"` or `start = [θ₁, θ₂]` in a config.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum StartSpec {
    Point(Vec<f64>),
    Method(String),
}

/// Where the chains start, and what DPVI cost if it chose the point.
#[derive(Debug, Clone, Copy)]
struct Start {
    theta: [f64; 2],
    /// The accounting of the DPVI initialisation, composed with the chain's budget
    dpvi: Option<SgldAccount>,
}

/// δ of the DPVI initialisation (as the authors).
const DPVI_DELTA: f64 = 1e-6;

/// Checks a `start` setting without fitting anything (validation).
/// A random-walk proposal variance: the GMM's means lie within a few units of 0,
/// so one outside [1e-12, 1e6] accepts nothing or never moves (and 1e300 is
/// refused before it is written to a plotted column).
fn check_proposal(key: &str, v: f64) -> Result<f64, ParamError> {
    crate::config::check::within(
        key,
        v,
        1e-12,
        1e6,
        "a random-walk proposal variance on the GMM's scale",
    )
}

/// Largest order an RDP search of these figures may be given: the subsampled
/// Gaussian's RDP at order α costs O(α), so a curve costs O(alpha_max²).
const MAX_ORDER: u32 = 10_000;

fn check_alpha_max(key: &str, v: u32, min: u32) -> Result<u32, ParamError> {
    if (min..=MAX_ORDER).contains(&v) {
        Ok(v)
    } else {
        Err(ParamError::new(
            key,
            format!("{v}"),
            format!("an integer order {min} ≤ alpha_max ≤ {MAX_ORDER}"),
        ))
    }
}

/// An accounting error named by the config key it comes from: the accountant's
/// `delta` and `alpha_max` are `delta{suffix}` and `alpha_max{suffix}` in the
/// config (fig3 has one of each per method); σ and q follow from `n_data`.
fn account_error(e: crate::privacy::rdp::AccountError, suffix: &str) -> ParamError {
    let crate::privacy::rdp::AccountError::Invalid {
        name,
        value,
        allowed,
    } = e;
    let key = match name {
        "delta" | "alpha_max" => format!("{name}{suffix}"),
        "sigma" | "q" => "n_data".to_string(),
        other => other.to_string(),
    };
    ParamError::new(key, format!("{name} = {value}"), allowed)
}

fn check_start(spec: &StartSpec) -> Result<(), ParamError> {
    match spec {
        StartSpec::Point(v) if matches!(v.as_slice(), [a, b] if a.is_finite() && b.is_finite()) => {
            Ok(())
        }
        StartSpec::Method(m) if m == "dpvi" => Ok(()),
        StartSpec::Point(v) => Err(ParamError::new(
            "start",
            format!("{v:?}"),
            "\"dpvi\" or [θ₁, θ₂]",
        )),
        StartSpec::Method(m) => Err(ParamError::new(
            "start",
            format!("\"{m}\""),
            "\"dpvi\" or [θ₁, θ₂]",
        )),
    }
}

/// Where the chains start: the configured point, or a DPVI fit (preparation).
fn resolve_start(spec: &StartSpec, data: &[f64], seed: u64) -> Result<Start, ParamError> {
    use crate::dpmcmc::dpvi::Dpvi;
    match spec {
        StartSpec::Point(v) => match v.as_slice() {
            [a, b] if a.is_finite() && b.is_finite() => Ok(Start {
                theta: [*a, *b],
                dpvi: None,
            }),
            _ => Err(ParamError::new(
                "start",
                format!("{v:?}"),
                "\"dpvi\" or [θ₁, θ₂]",
            )),
        },
        StartSpec::Method(m) if m == "dpvi" => {
            let dpvi = Dpvi::paper();
            let mut rng = setup_rng(seed, Purpose::DpviInit);
            let init = Dpvi::initial(&mut rng);
            let fit = dpvi.fit(&Gmm::untempered(data), init, &mut rng);
            // the authors' moments accountant stops at moment 64 (order 65)
            let account = SgldAccount {
                q: dpvi.batch as f64 / data.len() as f64,
                sigma: dpvi.noise_multiplier,
                iterations: dpvi.iterations as u64,
                delta: DPVI_DELTA,
                alpha_max: 65,
            };
            account
                .spent(Conversion::Classic)
                .map_err(|e| ParamError::new("start", e.to_string(), "\"dpvi\" or [θ₁, θ₂]"))?;
            Ok(Start {
                theta: [fit[0], fit[1]],
                dpvi: Some(account),
            })
        }
        StartSpec::Method(m) => Err(ParamError::new(
            "start",
            format!("\"{m}\""),
            "\"dpvi\" or [θ₁, θ₂]",
        )),
    }
}

fn start_json(s: &Start) -> serde_json::Value {
    match s.dpvi {
        Some(_) => {
            serde_json::json!({ "theta": s.theta, "source": "DPVI (mean-field Gaussian, b = 100, C = 1, σ = 10, T = 1000, Adam 1e-3; its cost is in the privacy ledger)" })
        }
        None => serde_json::json!({ "theta": s.theta, "source": "config" }),
    }
}

impl Start {
    /// ε of the DPVI initialisation (classic conversion, as the authors), 0 without one.
    fn dpvi_epsilon(&self) -> f64 {
        self.dpvi
            .and_then(|a| a.spent(Conversion::Classic).ok())
            .map_or(0.0, |s| s.epsilon)
    }

    /// The DPVI initialisation's ledger entry, if there is one.
    fn dpvi_entry(&self) -> anyhow::Result<Option<Entry>> {
        Ok(match self.dpvi {
            Some(dpvi) => Some(dpvi.entry("DPVI initialisation", Conversion::Classic)?),
            None => None,
        })
    }

    /// A chain's ledger entry, composed with the DPVI initialisation's when there is one.
    fn compose(&self, series: String, chain: Entry) -> anyhow::Result<Entry> {
        Ok(compose(series, chain, &self.dpvi_entry()?))
    }
}

/// `chain` composed with the DPVI initialisation's entry when there is one (basic
/// composition: ε and δ add up).
fn compose(series: String, chain: Entry, dpvi: &Option<Entry>) -> Entry {
    match dpvi {
        Some(d) => Entry::basic_composition(series, vec![chain, d.clone()]),
        None => chain,
    }
}
