//! What Figure 6 and the recovery figure share: the mechanisms of an ε sweep, their
//! task lists, and the statistics and model each Gibbs run uses.

use rand::Rng;
use serde::Deserialize;

use crate::config::{check, ParamError};
use crate::hmm::gibbs::{Model, Ops};
use crate::hmm::laplace::{LaplaceRelease, PostProcess};
use crate::hmm::{Histograms, FEATURES};
use crate::privacy::event::NoiseMode;
use crate::privacy::event::{Event, Guarantee};
use crate::privacy::ledger::{Entry, Ledger};
use crate::results::manifest::DatasetRecord;

/// Why the Dirichlet hyperparameters α, β are bounded: below 1e-6 an unseen
/// value's predictive probability underflows (held-out log-likelihood −∞),
/// above 1e6 the log-gamma terms lose every digit of the counts.
pub(crate) const DIRICHLET_RANGE: &str =
    "Dirichlet hyperparameters: smaller ones make unseen values' probability underflow, larger ones drown the counts";

/// A mechanism of the ε sweeps: `ops_m10` and `ops_m100` truncate at a₀ = 1/(M·K_d).
/// Read from a config by its name (`non_private`, `laplace`, `ops_m10`, `ops_m100`).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(from = "MechName")]
pub enum Mech {
    NonPrivate,
    Laplace,
    /// The same Laplace release, post-processed to consistent histograms
    /// ([`PostProcess::Consistent`]) instead of clamped: not in the paper.
    LaplaceConsistent,
    Ops(f64),
}

/// The model of a sweep's Gibbs run: K states and the Dirichlet hyperparameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelSettings {
    pub states: usize,
    pub alpha: f64,
    pub beta: f64,
}

/// The names a config uses for [`Mech`].
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum MechName {
    NonPrivate,
    Laplace,
    LaplaceConsistent,
    OpsM10,
    OpsM100,
}

impl From<MechName> for Mech {
    fn from(n: MechName) -> Self {
        match n {
            MechName::NonPrivate => Mech::NonPrivate,
            MechName::Laplace => Mech::Laplace,
            MechName::LaplaceConsistent => Mech::LaplaceConsistent,
            MechName::OpsM10 => Mech::Ops(10.0),
            MechName::OpsM100 => Mech::Ops(100.0),
        }
    }
}

impl Mech {
    pub fn name(self) -> String {
        match self {
            Mech::NonPrivate => "non_private".into(),
            Mech::Laplace => "laplace".into(),
            Mech::LaplaceConsistent => "laplace_consistent".into(),
            Mech::Ops(m) => format!("ops_m{m}"),
        }
    }

    /// Either Laplace release (same noise, same privacy event).
    pub fn is_laplace(self) -> bool {
        matches!(self, Mech::Laplace | Mech::LaplaceConsistent)
    }

    /// The statistics a run samples from and its model: Laplace noise on every count
    /// (ε split evenly over the features, Δ = 2 each), or OPS tempering/truncation.
    pub fn prepare(
        self,
        data: &Histograms,
        eps: Option<f64>,
        model: ModelSettings,
        noise: NoiseMode,
        rng: &mut impl Rng,
    ) -> anyhow::Result<(Histograms, Model)> {
        let ModelSettings {
            states,
            alpha,
            beta,
        } = model;
        let seen = match (self, eps) {
            (Mech::Laplace, Some(eps)) => {
                LaplaceRelease::even_split(eps, FEATURES.len(), noise)?.apply(data, rng)?
            }
            (Mech::LaplaceConsistent, Some(eps)) => LaplaceRelease::even_split(
                eps,
                FEATURES.len(),
                noise,
            )?
            .apply_with(data, rng, PostProcess::Consistent)?,
            _ => data.clone(),
        };
        let model = Model {
            states,
            alpha,
            beta: vec![beta; seen.cards.len()],
            ops: match (self, eps) {
                (Mech::Ops(m), Some(eps)) => Some(Ops::new(&seen.cards, m, eps)),
                _ => None,
            },
        };
        Ok((seen, model))
    }
}

/// The manifest record of a war-log dataset: the CSV file and its SHA-256, or the
/// generator's settings; rows = events kept after preprocessing.
pub fn record(name: &str, data: &Histograms, provenance: &serde_json::Value) -> DatasetRecord {
    let text = |k: &str| {
        provenance
            .get(k)
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    DatasetRecord {
        name: name.to_string(),
        files: text("path").into_iter().collect(),
        sha256: text("sha256").into_iter().collect(),
        rows: data.events(),
        source: provenance.clone(),
    }
}

/// The ledger entries of one HMM run under `mech` at `eps` on data whose features
/// have `cards` values: the Laplace release (once, before sampling), or OPS with
/// its claim at convergence and its worst case over `sweeps` sweeps.
pub fn ledger_entries(
    series: &str,
    mech: Mech,
    eps: Option<f64>,
    cards: &[usize],
    sweeps: usize,
    noise: NoiseMode,
) -> anyhow::Result<Ledger> {
    Ok(match (mech, eps) {
        (Mech::Laplace | Mech::LaplaceConsistent, Some(epsilon)) => vec![Entry::new(
            series,
            LaplaceRelease::even_split(epsilon, FEATURES.len(), noise)?.event(),
            Guarantee::PureDp { epsilon },
        )
        .when("noise is added once to every histogram count: cells compose in parallel (each event lies in one cell), features sequentially; the Gibbs run on the noisy counts is post-processing")],
        (Mech::Ops(m), Some(epsilon)) => {
            let ops = Ops::new(cards, m, epsilon);
            let updates = 2 * sweeps as u64;
            vec![
                Entry::new(series, ops.event(), Guarantee::PureDp { epsilon })
                    .when("only if the chain has converged: the released sample is then one sample of the tempered posterior"),
                Entry::new(
                    format!("{series}, worst case"),
                    Event::repeat(updates, ops.event()),
                    Guarantee::PureDp {
                        epsilon: updates as f64 * epsilon,
                    },
                )
                .when("if the chain has not converged, each of the 2·sweeps conditional updates may cost ε (Foulds et al. §5)"),
            ]
        }
        _ => vec![Entry::new(series, Event::NonPrivate, Guarantee::None)],
    })
}

/// The ledger of an ε sweep: for each dataset (its series prefix, e.g. `dataset=iraq`,
/// and its feature cardinalities) and mechanism, the entries at each ε — once for the
/// ε-free non-private run.
pub fn sweep_ledger<'a>(
    sets: impl Iterator<Item = (String, &'a [usize])>,
    mechs: &[Mech],
    epsilons: &[f64],
    sweeps: usize,
    noise: NoiseMode,
) -> anyhow::Result<Ledger> {
    let mut out = Vec::new();
    for (prefix, cards) in sets {
        for &m in mechs {
            if m == Mech::NonPrivate {
                let series = format!("{prefix}, mechanism={}", m.name());
                out.extend(ledger_entries(&series, m, None, cards, sweeps, noise)?);
                continue;
            }
            for &e in epsilons {
                let series = format!("{prefix}, mechanism={}, epsilon={e}", m.name());
                out.extend(ledger_entries(&series, m, Some(e), cards, sweeps, noise)?);
            }
        }
    }
    Ok(out)
}

/// A noise mode other than `float` applies to the Laplace release only: it needs
/// the Laplace mechanism among `mechs` (else nothing would use it: exit 2) and
/// every ε's per-feature scale on the exact sampler's grid.
pub fn check_noise(mode: NoiseMode, mechs: &[Mech], epsilons: &[f64]) -> Result<(), ParamError> {
    if mode == NoiseMode::Float {
        return Ok(());
    }
    if !mechs.iter().any(|m| m.is_laplace()) {
        return Err(ParamError::new(
            "noise",
            format!(
                "noise = \"{}\" applies only to the Laplace mechanism, which this run does not use (OPS and the non-private sampler are float-only)",
                mode.as_str()
            ),
            "\"float\", or add \"laplace\" to the mechanisms",
        ));
    }
    for &e in epsilons {
        LaplaceRelease::even_split(e, FEATURES.len(), mode).map_err(|err| {
            ParamError::new(
                "epsilons",
                format!("ε = {e}: {err}"),
                "ε whose per-feature Laplace scale 2·5/ε lies in [2^-30, 2^30]",
            )
        })?;
    }
    Ok(())
}

/// One line describing an ε sweep's runs, e.g. "3 panels × 10 splits × (…) = 660 Gibbs
/// runs of 200 sweeps".
pub fn describe(
    sets: (usize, &str),
    repeats: (usize, &str),
    epsilons: usize,
    mechs: &[Mech],
    tasks: usize,
    sweeps: usize,
) -> String {
    format!(
        "{} {} × {} {} × ({epsilons} ε × {} private mechanisms + non-private) = {tasks} Gibbs runs of {sweeps} sweeps",
        sets.0,
        sets.1,
        repeats.0,
        repeats.1,
        mechs.iter().filter(|m| **m != Mech::NonPrivate).count(),
    )
}

/// Estimated flops of one Gibbs run: per sweep and cell, the conditional of
/// its state (K transition terms in and out and the emissions of the five
/// features, each a ratio of Dirichlet-multinomial counts: ≈ 50K(K + 5)
/// flops), a categorical draw and the count updates (≈ 400). Calibrated
/// against measured run times (foulds2016/fig6, recovery smoke runs). The cost
/// model `--shard` balances by.
pub fn gibbs_cost(cells: usize, states: usize, sweeps: usize) -> f64 {
    let k = states as f64;
    sweeps as f64 * cells as f64 * (50.0 * k * (k + crate::hmm::FEATURES.len() as f64) + 400.0)
}

/// One Gibbs run of a sweep: (dataset, split or repeat, mechanism, ε index — None for
/// the ε-free non-private run).
pub type Task = (usize, usize, Mech, Option<usize>);

/// Every task: per dataset and split/repeat, the non-private run once and each private
/// mechanism once per ε.
pub fn tasks(datasets: usize, repeats: usize, mechs: &[Mech], epsilons: usize) -> Vec<Task> {
    let mut tasks = Vec::new();
    for d in 0..datasets {
        for r in 0..repeats {
            for &m in mechs {
                if m == Mech::NonPrivate {
                    tasks.push((d, r, m, None));
                } else {
                    tasks.extend((0..epsilons).map(|e| (d, r, m, Some(e))));
                }
            }
        }
    }
    tasks
}

/// The ε values a task's rows are written for (the non-private run repeats over the grid).
pub fn row_epsilons(eps: Option<f64>, grid: &[f64]) -> Vec<f64> {
    eps.map_or_else(|| grid.to_vec(), |x| vec![x])
}

/// Checks shared by the sweep configs.
pub fn check_common(
    epsilons: &[f64],
    alpha: f64,
    beta: f64,
    sweeps: usize,
    burn_in: usize,
) -> Result<(), ParamError> {
    check::non_empty("epsilons", epsilons)?;
    for &e in epsilons {
        check::epsilon("epsilons", e)?;
    }
    check::within("alpha", alpha, 1e-6, 1e6, DIRICHLET_RANGE)?;
    check::within("beta", beta, 1e-6, 1e6, DIRICHLET_RANGE)?;
    if sweeps == 0 || burn_in >= sweeps {
        return Err(ParamError::new(
            "burn_in",
            format!("burn_in = {burn_in} with sweeps = {sweeps}"),
            "0 ≤ burn_in < sweeps",
        ));
    }
    Ok(())
}
