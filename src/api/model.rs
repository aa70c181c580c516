//! Models defined outside Rust (the Python module's `infer_model`): the typed
//! parts the caller's loop needs around its own θ-step and record proposals.
//!
//! - [`model_release`] reads the mechanism's law from a release table (the keys
//!   of a release file's `[release]` table: `mechanism`, `scale`, `values`,
//!   `clamp`), checked as `privpost infer` checks them.
//! - [`ModelChain`] is one chain's record-wise accept/reject over the arrays of
//!   contributions the caller proposes (`damcmc::arrays`), from its own ChaCha
//!   stream ([`accept_rng`]).
//! - [`summarize`] gives the draws' summary, the mixing check and the
//!   convergence warning of `privpost infer`.

use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use crate::config::release::ReleaseSpec;
use crate::damcmc::arrays::{ArrayState, ArraySweep, Density};
use crate::damcmc::{Draws, ParameterSummary, Release};

use super::error::ApiError;
use super::infer::{convergence_warning, Warning, WarningKind};

/// The release table `value` (a `[release]` table's keys) as a release of a
/// statistic of `m` coordinates; errors name `release.<key>`.
pub fn model_release(value: &Value, m: usize) -> Result<Release, ApiError> {
    let bad = |message: String| ApiError::input("release", message);
    let text = toml::to_string(value).map_err(|e| {
        bad(format!(
            "release: not a table of the keys mechanism, scale, values and clamp: {e}"
        ))
    })?;
    let spec: ReleaseSpec =
        toml::from_str(&text).map_err(|e| bad(format!("release: {}", e.message().trim_end())))?;
    spec.release(m).map_err(|e| {
        let key = e.key.clone();
        bad(e.to_string()).with_key(key)
    })
}

/// The stream of chain `chain`'s accept/reject uniforms: keyed by the seed and
/// the chain, apart from every stream of the built-in models (which draw their
/// chains from `task_rng(seed, chain)`).
pub fn accept_rng(seed: u64, chain: usize) -> ChaCha8Rng {
    crate::rng::keyed_rng(seed, format!("infer_model accept chain={chain}").as_bytes())
}

/// One chain of a model defined outside Rust: its records' contributions, the
/// statistic, its stream, and what its sweeps did.
#[derive(Debug, Clone)]
pub struct ModelChain {
    pub state: ArrayState,
    pub rng: ChaCha8Rng,
    pub chain: usize,
    /// sweeps since the start, and what they did (the caller keeps only those
    /// after warm-up by the difference of two readings)
    pub sweeps: u64,
    pub done: ArraySweep,
}

impl ModelChain {
    /// Chain `chain` (of seed `seed`) from the contributions `current` (n × m,
    /// row-major) of its first records. `ln_eta` is ln η at their statistic:
    /// the caller's density, already reset to it; it must be above −∞.
    pub fn start(
        current: Vec<f64>,
        m: usize,
        seed: u64,
        chain: usize,
        ln_eta: impl FnOnce(&[f64]) -> Result<f64, ApiError>,
    ) -> Result<Self, ApiError> {
        let state = ArrayState::new(current, m);
        let l = ln_eta(&state.stat)?;
        if l == f64::NEG_INFINITY {
            return Err(ApiError::input(
                "release",
                format!(
                    "release: the released values have probability (or density) 0 at chain {chain}'s first records (statistic {:?}): the proposals drawn from the model's first θ must give a statistic the mechanism could have released them from",
                    state.stat
                ),
            ));
        }
        Ok(Self {
            state,
            rng: accept_rng(seed, chain),
            chain,
            sweeps: 0,
            done: ArraySweep::default(),
        })
    }

    /// One sweep against `density`: `accepted[j]` says whether proposal j
    /// replaced record j.
    pub fn sweep<D: Density>(
        &mut self,
        density: &mut D,
        proposed: &[f64],
        accepted: &mut [bool],
    ) -> Result<ArraySweep, D::Error> {
        let s = self
            .state
            .sweep(density, proposed, accepted, &mut self.rng)?;
        self.sweeps += 1;
        self.done += s;
        Ok(s)
    }
}

/// The draws' summary and the warnings `privpost infer` gives.
#[derive(Debug, Clone)]
pub struct ModelSummary {
    pub summary: Vec<ParameterSummary>,
    pub warnings: Vec<Warning>,
    pub acceptance: f64,
    pub move_rate: f64,
}

/// `chains` (chains × draws × parameters) named `names`, with what the chains'
/// sweeps after warm-up did (`done`) over `proposals` record proposals:
/// the summary (mean, sd, quantiles, R̂, ESS), or [`crate::damcmc::DaError::NoMixing`]
/// as a failure when fewer than one in a million of the proposals that would
/// have changed the statistic were accepted.
pub fn summarize(
    names: Vec<String>,
    chains: Vec<Vec<Vec<f64>>>,
    done: ArraySweep,
    proposals: u64,
) -> Result<ModelSummary, ApiError> {
    let p = names.len();
    if chains.is_empty()
        || chains
            .iter()
            .any(|c| c.is_empty() || c.iter().any(|d| d.len() != p))
    {
        return Err(ApiError::input(
            "draws",
            format!("draws: at least one chain of at least one draw, each of {p} parameters"),
        ));
    }
    let draws = Draws {
        names,
        chains,
        proposals,
        accepted: done.accepted,
        changing: done.changing,
        moves: done.moves,
    };
    draws
        .check_mixing()
        .map_err(|e| ApiError::failed(format!("infer_model: {e}")))?;
    let summary = draws.summary();
    let warnings = convergence_warning(&summary, "draws=")
        .map(|message| Warning {
            kind: WarningKind::Convergence,
            message,
        })
        .into_iter()
        .collect();
    Ok(ModelSummary {
        summary,
        warnings,
        acceptance: draws.acceptance(),
        move_rate: draws.move_rate(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::damcmc::arrays::LawDensity;
    use serde_json::json;

    fn law(value: Value, m: usize) -> Result<Release, ApiError> {
        model_release(&value, m)
    }

    #[test]
    fn a_release_table_is_checked_as_infer_checks_it() {
        let ok = law(
            json!({"mechanism": "gaussian", "scale": 1.5, "values": [3.0, 4.0]}),
            2,
        )
        .unwrap();
        assert_eq!(ok.values, vec![3.0, 4.0]);
        for (value, m, key, says) in [
            (
                json!({"mechanism": "laplace", "scale": 0.0, "values": [1.0]}),
                1,
                "release.scale",
                "a finite number > 0",
            ),
            (
                json!({"mechanism": "cauchy", "scale": 1.0, "values": [1.0]}),
                1,
                "release.mechanism",
                "laplace, gaussian",
            ),
            (
                json!({"mechanism": "laplace", "scale": 1.0, "values": [1.0]}),
                2,
                "release.values",
                "2 values, one per coordinate",
            ),
            (
                json!({"mechanism": "discrete_laplace", "scale": 1.0, "values": [1.0], "clamp": {"lower": 0.5}}),
                1,
                "release.clamp.lower",
                "an integer",
            ),
            (
                json!({"mechanism": "laplace", "scale": 1.0, "values": [1.0], "clamp": {"lower": 2.0, "upper": 1.0}}),
                1,
                "release.clamp",
                "lower < upper",
            ),
            (
                json!({"mechanism": "laplace", "scale": 1.0, "values": [-1.0], "clamp": {"lower": 0.0}}),
                1,
                "release.values",
                "inside the clamp",
            ),
        ] {
            let e = law(value.clone(), m).unwrap_err();
            assert_eq!(e.kind, crate::api::ErrorKind::Input, "{value}");
            assert_eq!(e.key.as_deref(), Some(key), "{value}: {}", e.message);
            assert!(
                e.message.starts_with(key) && e.message.contains(says),
                "{}",
                e.message
            );
        }
        let e = law(
            json!({"mechanism": "laplace", "scale": 1.0, "value": [1.0]}),
            1,
        )
        .unwrap_err();
        assert!(
            e.message.starts_with("release: unknown field `value`"),
            "{}",
            e.message
        );
        assert!(!e.message.contains('\n'), "{}", e.message);
    }

    /// A start the release cannot have come from is refused; the chain's
    /// stream is its own (two chains, two streams; a seed, the same stream).
    #[test]
    fn a_chain_starts_only_where_the_release_is_possible() {
        let release = law(
            json!({"mechanism": "discrete_laplace", "scale": 1.0, "values": [3.0]}),
            1,
        )
        .unwrap();
        let mut density = LawDensity::new(release);
        let start = |c: Vec<f64>, density: &mut LawDensity| {
            ModelChain::start(c, 1, 7, 0, |s| {
                let Ok(l) = density.reset(s);
                Ok(l)
            })
        };
        let e = start(vec![0.5; 3], &mut density).unwrap_err();
        assert!(
            e.message.contains(
                "probability (or density) 0 at chain 0's first records (statistic [1.5])"
            ),
            "{}",
            e.message
        );
        let mut chain = start(vec![1.0, 0.0, 1.0], &mut density).unwrap();
        assert_eq!(chain.state.stat, vec![2.0]);
        let mut accepted = vec![false; 3];
        let Ok(s) = chain.sweep(&mut density, &[1.0, 1.0, 1.0], &mut accepted);
        assert_eq!((s.changing, chain.sweeps), (1, 1));
        assert!(accepted[0] && accepted[2], "unchanged rows are taken");
        use rand::RngExt;
        let draw = |seed, c| accept_rng(seed, c).random::<u64>();
        assert_ne!(draw(7, 0), draw(7, 1));
        assert_eq!(draw(7, 1), draw(7, 1));
        assert_ne!(draw(7, 0), crate::rng::task_rng(7, 0).random::<u64>());
    }

    #[test]
    fn the_summary_checks_shapes_and_mixing() {
        let names = vec!["a".to_string()];
        let chains = vec![
            (0..400)
                .map(|i| vec![(i as f64 * 0.7).sin()])
                .collect::<Vec<_>>();
            2
        ];
        let done = ArraySweep {
            accepted: 90,
            changing: 50,
            moves: 40,
        };
        let s = summarize(names.clone(), chains.clone(), done, 100).unwrap();
        assert_eq!(s.summary.len(), 1);
        assert!((s.acceptance - 0.9).abs() < 1e-12 && (s.move_rate - 0.8).abs() < 1e-12);
        let stuck = ArraySweep {
            accepted: 10,
            changing: 50_000_000,
            moves: 0,
        };
        let e = summarize(names.clone(), chains.clone(), stuck, 60_000_000).unwrap_err();
        assert_eq!(e.kind, crate::api::ErrorKind::Failed);
        assert!(e.message.contains("cannot mix"), "{}", e.message);
        let e = summarize(vec!["a".into(), "b".into()], chains, done, 100).unwrap_err();
        assert!(e.message.contains("each of 2 parameters"), "{}", e.message);
    }
}
