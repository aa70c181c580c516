//! One module per paper: each figure validates its config into a plan, prepares
//! what its tasks share (datasets, a DPVI fit), runs a task as a pure function of
//! (parameters, RNG), aggregates the task rows into the figure's summary, draws
//! its plot from the CSVs, and states the privacy it spent as a ledger.
//!
//! [`REGISTRY`] has one row per figure; nothing else in the crate lists figures.

pub mod audit;
pub mod bun2018;
pub mod calibration;
pub mod external;
pub mod foulds2016;
pub mod geumlek2017;
pub mod heikkila2019;
pub mod logreg;
pub mod minami2016;
pub mod raisa2021;

use std::path::Path;

use crate::config::ParamError;
use crate::plot::overlay::Overlay;
use crate::plot::DrawError;
use crate::privacy::ledger::Ledger;
use crate::results::manifest::DatasetRecord;
use crate::results::record::columns;
use crate::results::table::{Row, Table};
use rand_chacha::ChaCha8Rng;

/// A prepared experiment, ready to run. Implementations are immutable and
/// shared across worker threads.
pub trait Figure: Send + Sync {
    /// Number of tasks in the plan; tasks are indexed 0..task_count().
    fn task_count(&self) -> usize;
    /// One line describing the grid, for `privpost check` and the progress line.
    fn grid_description(&self) -> String;
    /// Rows of task `index` (columns: the registry row's `data_columns`), using
    /// only `rng` for randomness.
    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>>;
    /// `summary.csv` (columns: the registry row's `summary_columns`) from the
    /// data rows, in task order.
    fn summarize(&self, data: &Table) -> anyhow::Result<Table>;
    /// Facts for the manifest that are not privacy claims: methods, settings, accuracies.
    fn manifest_details(&self) -> serde_json::Value;
    /// The privacy spent, one entry per series or grid point, from the mechanisms.
    fn ledger(&self) -> anyhow::Result<Ledger>;
    /// Further CSV files written beside `data.csv` and `summary.csv`, built from
    /// the data rows: (file name, table). The default writes none.
    fn side_tables(&self, _data: &Table) -> anyhow::Result<Vec<(String, Table)>> {
        Ok(Vec::new())
    }
    /// `data.csv` as written, from the task rows after the summary and the side
    /// tables were built from them. The default writes every row; a figure whose
    /// side tables already hold some rows in their own form (the audit's score
    /// files) leaves them out, so nothing is written twice.
    fn written_data(&self, data: Table) -> Table {
        data
    }
    /// The fixed parameters a reader needs beside the figure (ε, N, the prior,
    /// δ, "synthetic data", …) as (name, value) pairs, from the resolved config
    /// of this run (so a `--set` changes them too). The run writes them to
    /// `parameters.csv`, and the plot shows them under the title
    /// ([`crate::plot::parameters`]); an empty value shows the name alone. The
    /// default has none.
    fn parameters(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    /// The datasets the figure read or generated.
    fn datasets(&self) -> Vec<DatasetRecord> {
        Vec::new()
    }
    /// Estimated work of task `index`, in floating-point operations (order of
    /// magnitude is what matters): `--shard` balances shards by it, across
    /// figures. The default suits a closed-form task (microseconds).
    fn task_cost(&self, _index: usize) -> f64 {
        1e4
    }
    /// The most memory task `index` holds at once, in bytes, where it grows with the
    /// config (draws kept, matrices of the data's dimension); 0 where it is small.
    /// `run` and `check` refuse a plan whose tasks, one per worker, would not fit
    /// ([`Footprint`]).
    fn task_memory(&self, _index: usize) -> f64 {
        0.0
    }
}

/// What the limits of `run` and `check` look at: the task count, the estimated
/// work and the largest task's memory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Footprint {
    pub tasks: usize,
    pub flops: f64,
    pub memory: f64,
}

impl Footprint {
    /// Over the tasks `tasks` of `figure` (its task count is all of its tasks).
    pub fn of(figure: &dyn Figure, tasks: impl IntoIterator<Item = usize>) -> Footprint {
        tasks.into_iter().fold(
            Footprint {
                tasks: figure.task_count(),
                flops: 0.0,
                memory: 0.0,
            },
            |f, i| Footprint {
                flops: f.flops + figure.task_cost(i),
                memory: f.memory.max(figure.task_memory(i)),
                ..f
            },
        )
    }
}

/// The cost model's view of a figure (used by `runner::estimate`): the sum and the largest of its
/// tasks' costs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cost {
    pub total: f64,
    pub max: f64,
}

impl Cost {
    /// Over the tasks `tasks` of `figure`.
    pub fn of(figure: &dyn Figure, tasks: impl IntoIterator<Item = usize>) -> Cost {
        tasks.into_iter().fold(
            Cost {
                total: 0.0,
                max: 0.0,
            },
            |c, i| {
                let x = figure.task_cost(i);
                Cost {
                    total: c.total + x,
                    max: c.max.max(x),
                }
            },
        )
    }

    /// Over every task of `figure`.
    pub fn all(figure: &dyn Figure) -> Cost {
        Cost::of(figure, 0..figure.task_count())
    }
}

/// One entry of [`Figure::parameters`]: a name and its value as shown.
pub fn parameter(name: &str, value: impl std::fmt::Display) -> (String, String) {
    (name.to_string(), value.to_string())
}

/// The noise mode as a [`Figure::parameters`] entry: none for `float` (the
/// papers' noise, so a float run's parameters are as before), else what the
/// additive releases drew from.
pub fn noise_parameter(mode: crate::privacy::event::NoiseMode) -> Option<(String, String)> {
    use crate::privacy::event::NoiseMode;
    match mode {
        NoiseMode::Float => None,
        NoiseMode::Exact => Some(parameter("noise", "exact (CKS20 discrete noise, seeded)")),
        NoiseMode::Secure => Some(parameter(
            "noise",
            "secure (CKS20 discrete noise, OS randomness: not reproducible)",
        )),
    }
}

/// A validated config that has not touched the world: no downloads, no dataset
/// generation, no fits, no files. `privpost check` stops here.
pub trait Plan {
    /// One line describing the grid and, when known without preparing, the task count.
    fn describe(&self) -> String;
    /// Prepares what the tasks share (fetching missing datasets, generating or
    /// reading data, fitting an initialisation). Called by `privpost run` only.
    fn prepare(self: Box<Self>) -> Result<Box<dyn Figure>, ParamError>;
    /// The cost of every task ([`Cost`]) where it is
    /// known without preparing; `None` where data or fits decide it.
    fn cost(&self) -> Option<Cost> {
        None
    }
    /// The plan's [`Footprint`] where it is known without preparing (`check`
    /// applies `run`'s limits to it); `None` where data decide it.
    fn footprint(&self) -> Option<Footprint> {
        None
    }
}

/// A figure whose validation already is its preparation (pure computation on
/// the config).
pub struct Ready(pub Box<dyn Figure>);

impl Plan for Ready {
    fn describe(&self) -> String {
        format!(
            "{}; {} tasks",
            self.0.grid_description(),
            self.0.task_count()
        )
    }

    fn prepare(self: Box<Self>) -> Result<Box<dyn Figure>, ParamError> {
        Ok(self.0)
    }

    fn cost(&self) -> Option<Cost> {
        Some(Cost::all(self.0.as_ref()))
    }

    fn footprint(&self) -> Option<Footprint> {
        Some(Footprint::of(self.0.as_ref(), 0..self.0.task_count()))
    }
}

/// A validated config whose preparation has side effects or costs: `prepare`
/// runs only under `privpost run`.
pub struct Deferred<C> {
    pub description: String,
    pub config: C,
    pub prepare: fn(C) -> Result<Box<dyn Figure>, ParamError>,
}

impl<C> Plan for Deferred<C> {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn prepare(self: Box<Self>) -> Result<Box<dyn Figure>, ParamError> {
        (self.prepare)(self.config)
    }
}

/// Validates parameters into a plan; the seed feeds set-up streams.
pub type Validate = fn(&toml::Table, u64) -> Result<Box<dyn Plan>, ParamError>;
/// Draws a figure's plots into its output folder from the CSVs there.
pub type Draw = fn(&Path) -> Result<(), DrawError>;

/// A figure this build can reproduce: everything the rest of the crate needs to
/// know about it.
pub struct Spec {
    pub id: &'static str,
    pub title: &'static str,
    /// Default config, relative to the repository root.
    pub config: &'static str,
    /// The default config's text as shipped: a config that differs from it
    /// is the user's own (its runs never land in the paper's folder).
    pub config_text: &'static str,
    /// The figure's notes (`docs/figures/<id>.toml`: paper, figure number, the
    /// paper's claim, what matches and what differs), shown by the gallery and
    /// shared with the README's figure table; parsed by [`Notes::parse`].
    pub notes: &'static str,
    /// Validates parameters into a plan.
    pub validate: Validate,
    /// The parameters' schema: which keys take a list (`--set key=[a, b]` on a key
    /// the config does not set is a list value there, a sweep elsewhere).
    pub schema: crate::config::shape::Schema,
    /// Renders `figure.png`/`figure.svg` (and any further figures) from the CSVs.
    pub plot: Draw,
    /// Columns of `data.csv`, in order.
    pub data_columns: Columns,
    /// Columns of `summary.csv`, in order.
    pub summary_columns: Columns,
    /// The main metric, for `privpost combine`'s overlay of sweep points.
    pub overlay: Overlay,
    /// The wall-time model's calibration (`runner::estimate`), measured on a
    /// paper-scale run and printed for this row by `scripts/calibrate-estimates.sh`;
    /// `None` for an external figure.
    pub rate: Option<Rate>,
}

/// A CSV's columns: listed by hand, or declared by a typed row
/// (`results::record`: the struct's fields, in order) — the one declaration the
/// writer, the readers, the manifest and `docs/outputs.md` share.
#[derive(Debug, Clone, Copy)]
pub enum Columns {
    Listed(&'static [&'static str]),
    Record(fn() -> &'static [&'static str]),
}

impl Columns {
    pub fn get(self) -> &'static [&'static str] {
        match self {
            Columns::Listed(c) => c,
            Columns::Record(f) => f(),
        }
    }
}

/// A figure's calibration for the wall-time model (`runner::estimate`): from the
/// manifest of its paper-scale run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// seconds per cost unit on one core
    pub per_unit: f64,
    /// seconds outside the tasks: preparing, summary, plot, manifest
    pub fixed: f64,
    /// the paper-scale run's cost (every task), for a plan whose cost is only
    /// known once prepared
    pub paper: Cost,
}

/// Wraps a figure whose validation is its preparation.
fn ready(f: Result<Box<dyn Figure>, ParamError>) -> Result<Box<dyn Plan>, ParamError> {
    Ok(Box::new(Ready(f?)))
}

/// A registry row of a built-in figure: its config (`configs/ID.toml`) and its
/// notes (`docs/figures/ID.toml`) are found from its id, so the id is spelled
/// once.
macro_rules! figure {
    (id: $id:expr, $($field:ident: $value:expr),+ $(,)?) => {
        Spec {
            id: $id,
            config: concat!("configs/", $id, ".toml"),
            config_text: include_str!(concat!("../../configs/", $id, ".toml")),
            notes: include_str!(concat!("../../docs/figures/", $id, ".toml")),
            $($field: $value),+
        }
    };
}

/// The id of the figure `privpost audit` runs (a macro, so that the registry row
/// can find its config and notes from it at compile time).
macro_rules! audit_figure {
    () => {
        "audit/mechanisms"
    };
}
pub const AUDIT_FIGURE: &str = audit_figure!();

/// One row per figure: the only list of figures in the crate.
pub const REGISTRY: &[Spec] = &[
    figure! {
        id: "geumlek2017/fig1",
        title: "Achievable (λ, ε)-RDP curves of the diffused and concentrated posteriors",
        validate: |p, s| ready(geumlek2017::build_fig1(p, s)),
        schema: geumlek2017::FIG1_SCHEMA,
        plot: geumlek2017::plot::fig1,
        data_columns: Columns::Record(columns::<geumlek2017::Fig1Row>),
        summary_columns: Columns::Record(columns::<geumlek2017::Fig1Row>),
        overlay: Overlay {
            x: "lambda",
            y: "epsilon",
            series: &["algorithm", "coefficient"],
            x_label: "order λ",
            y_label: "RDP ε(λ)",
        },
        rate: Some(Rate {
            per_unit: 1.1499e-08,
            fixed: 0.522,
            paper: Cost {
                total: 4.560000e+08,
                max: 1.000000e+04,
            },
        }),
    },
    figure! {
        id: "geumlek2017/fig2",
        title: "KL to the true posterior and held-out −ln p vs ln ε, Beta-Bernoulli",
        validate: |p, s| ready(geumlek2017::build_fig2(p, s)),
        schema: geumlek2017::FIG2_SCHEMA,
        plot: geumlek2017::plot::fig2,
        data_columns: Columns::Record(columns::<geumlek2017::Fig2Row>),
        summary_columns: Columns::Record(columns::<geumlek2017::Fig2Summary>),
        overlay: Overlay {
            x: "ln_epsilon",
            y: "mean",
            series: &["panel", "lambda", "algorithm"],
            x_label: "ln ε",
            y_label: "KL to the true posterior, or −ln p(X_H | θ)",
        },
        rate: Some(Rate {
            per_unit: 8.1882e-11,
            fixed: 0.0474,
            paper: Cost {
                total: 2.311140e+10,
                max: 1.500000e+07,
            },
        }),
    },
    figure! {
        id: "geumlek2017/fig3",
        title: "Test error and log-likelihood of (λ, ε)-RDP logistic-regression posteriors",
        validate: geumlek2017::validate_fig3,
        schema: geumlek2017::FIG3_SCHEMA,
        plot: logreg::plot::draw_fig3,
        data_columns: Columns::Record(columns::<geumlek2017::Fig3Row>),
        summary_columns: Columns::Record(columns::<geumlek2017::Fig3Summary>),
        overlay: Overlay {
            x: "ln_epsilon",
            y: "test_error_mean",
            series: &["dataset", "lambda", "mechanism"],
            x_label: "ln ε",
            y_label: "test error",
        },
        rate: Some(Rate {
            per_unit: 2.4829e-11,
            fixed: 0.439,
            paper: Cost {
                total: 1.864318e+13,
                max: 3.710044e+11,
            },
        }),
    },
    figure! {
        id: "geumlek2017/samplers",
        title: "Sampler validation: HMC and the paper's slice sampler vs a reference chain",
        validate: geumlek2017::samplers::validate,
        schema: geumlek2017::samplers::SCHEMA,
        plot: logreg::plot::draw_samplers,
        data_columns: Columns::Record(columns::<geumlek2017::samplers::SamplerRow>),
        summary_columns: Columns::Record(columns::<geumlek2017::samplers::SamplerSummary>),
        overlay: Overlay {
            x: "draws",
            y: "ess_min_per_1000_gradients",
            series: &["dataset", "sampler"],
            x_label: "draws",
            y_label: "min ESS per 1000 gradients",
        },
        // refitted after `logreg::SLICE_FLOP_COST` (the samplers-only run of
        // 2026-11-25, 142 s, per-task seconds from $PRIVPOST_TASK_TIMES)
        rate: Some(Rate {
            per_unit: 2.0824e-11,
            fixed: 0.47,
            paper: Cost {
                total: 1.362017e+13,
                max: 2.045476e+12,
            },
        }),
    },
    figure! {
        id: "foulds2016/fig1",
        title: "True, OPS and Laplace-mechanism posteriors (ε = 1, N = 20)",
        validate: |p, s| ready(foulds2016::build_fig1(p, s)),
        schema: foulds2016::FIG1_SCHEMA,
        plot: foulds2016::plot::fig1,
        data_columns: Columns::Record(columns::<foulds2016::Fig1Row>),
        summary_columns: Columns::Record(columns::<foulds2016::Fig1Summary>),
        overlay: Overlay {
            x: "theta",
            y: "density",
            series: &["curve", "draw"],
            x_label: "θ",
            y_label: "density",
        },
        rate: Some(Rate {
            per_unit: 1.3361e-08,
            fixed: 0.153,
            paper: Cost {
                total: 3.200000e+05,
                max: 1.000000e+04,
            },
        }),
    },
    figure! {
        id: "foulds2016/fig2",
        title: "L1 error of one private posterior sample vs N",
        validate: |p, s| ready(foulds2016::build_fig2(p, s)),
        schema: foulds2016::FIG2_SCHEMA,
        plot: foulds2016::plot::fig2,
        data_columns: Columns::Record(columns::<foulds2016::Fig2Row>),
        summary_columns: Columns::Record(columns::<foulds2016::Fig2Summary>),
        overlay: Overlay {
            x: "n",
            y: "mean",
            series: &["mechanism"],
            x_label: "N (data points)",
            y_label: "mean L1 error",
        },
        rate: Some(Rate {
            per_unit: 1.0086e-08,
            fixed: 0.0304,
            paper: Cost {
                total: 1.600000e+08,
                max: 1.000000e+04,
            },
        }),
    },
    figure! {
        id: "minami2016/logreg",
        title: "Logistic regression at (ε, δ = 1e-5): Gibbs posterior vs OPS, Concentrated, Diffuse",
        validate: minami2016::validate,
        schema: minami2016::SCHEMA,
        plot: logreg::plot::draw_minami,
        data_columns: Columns::Record(columns::<minami2016::LogregRow>),
        summary_columns: Columns::Record(columns::<minami2016::LogregSummary>),
        overlay: Overlay {
            x: "ln_epsilon",
            y: "test_error_mean",
            series: &["dataset", "mechanism"],
            x_label: "ln ε",
            y_label: "test error",
        },
        rate: Some(Rate {
            per_unit: 1.6545e-11,
            fixed: 0.585,
            paper: Cost {
                total: 9.070254e+12,
                max: 3.710044e+11,
            },
        }),
    },
    figure! {
        id: "foulds2016/fig3",
        title: "HMM state assignments per region over time (Laplace, ε = 5, synthetic Iraq)",
        validate: foulds2016::hmm::validate_fig3,
        schema: foulds2016::hmm::RUN_SCHEMA,
        plot: foulds2016::hmm::plot::draw_fig3,
        data_columns: Columns::Record(columns::<foulds2016::hmm::StateRow>),
        summary_columns: Columns::Record(columns::<foulds2016::hmm::StateRow>),
        overlay: Overlay {
            x: "month",
            y: "modal_share",
            series: &["region_name"],
            x_label: "month",
            y_label: "share of regions in the modal state",
        },
        rate: Some(Rate {
            per_unit: 7.0052e-10,
            fixed: 0.0755,
            paper: Cost {
                total: 7.920000e+07,
                max: 7.920000e+07,
            },
        }),
    },
    figure! {
        id: "foulds2016/fig4_5",
        title: "HMM per-state emission distributions (same run as foulds2016/fig3)",
        validate: foulds2016::hmm::validate_fig4_5,
        schema: foulds2016::hmm::RUN_SCHEMA,
        plot: foulds2016::hmm::plot::draw_fig4_5,
        data_columns: Columns::Record(columns::<foulds2016::hmm::Fig45Row>),
        summary_columns: Columns::Record(columns::<foulds2016::hmm::Fig45Row>),
        overlay: Overlay {
            x: "value",
            y: "probability",
            series: &["state", "feature"],
            x_label: "value",
            y_label: "probability",
        },
        rate: Some(Rate {
            per_unit: 6.8831e-10,
            fixed: 0.0737,
            paper: Cost {
                total: 7.920000e+07,
                max: 7.920000e+07,
            },
        }),
    },
    figure! {
        id: "foulds2016/fig6",
        title: "HMM test log-likelihood vs ε: non-private, Laplace, OPS (M = 10, 100)",
        validate: foulds2016::hmm::validate_fig6,
        schema: foulds2016::hmm::FIG6_SCHEMA,
        plot: foulds2016::hmm::plot::draw_fig6,
        data_columns: Columns::Record(columns::<foulds2016::hmm::Fig6Row>),
        summary_columns: Columns::Record(columns::<foulds2016::hmm::Fig6Summary>),
        overlay: Overlay {
            x: "epsilon",
            y: "mean",
            series: &["dataset", "model", "mechanism"],
            x_label: "ε",
            y_label: "test log-likelihood per held-out event",
        },
        rate: Some(Rate {
            per_unit: 3.1287e-10,
            fixed: 0.0838,
            paper: Cost {
                total: 2.605724e+11,
                max: 5.688000e+08,
            },
        }),
    },
    figure! {
        id: "foulds2016/fig7",
        title: "HMM state assignments under OPS (ε = 5, M = 100, synthetic Afghanistan): last 100 samples vs last sample",
        validate: foulds2016::hmm::validate_fig3,
        schema: foulds2016::hmm::RUN_SCHEMA,
        plot: foulds2016::hmm::plot::draw_fig7,
        data_columns: Columns::Record(columns::<foulds2016::hmm::StateRow>),
        summary_columns: Columns::Record(columns::<foulds2016::hmm::StateRow>),
        overlay: Overlay {
            x: "month",
            y: "modal_share",
            series: &["region_name"],
            x_label: "month",
            y_label: "share of regions in the modal state",
        },
        rate: Some(Rate {
            per_unit: 5.9798e-10,
            fixed: 0.0207,
            paper: Cost {
                total: 1.148800e+08,
                max: 1.148800e+08,
            },
        }),
    },
    figure! {
        id: "foulds2016/recovery",
        title: "HMM recovery of the planted states (ARI) and emissions (TV) vs ε, per mechanism (beyond the paper)",
        validate: foulds2016::hmm::recovery::validate,
        schema: foulds2016::hmm::recovery::SCHEMA,
        plot: foulds2016::hmm::plot::draw_recovery,
        data_columns: Columns::Record(columns::<foulds2016::hmm::recovery::RecoveryRow>),
        summary_columns: Columns::Record(columns::<foulds2016::hmm::recovery::RecoverySummary>),
        overlay: Overlay {
            x: "epsilon",
            y: "ari_modal_mean",
            series: &["dataset", "mechanism"],
            x_label: "ε",
            y_label: "ARI of the modal states (mean)",
        },
        rate: Some(Rate {
            per_unit: 6.1882e-10,
            fixed: 0.074,
            paper: Cost {
                total: 4.269760e+10,
                max: 1.148800e+08,
            },
        }),
    },
    figure! {
        id: "bun2018/fig2",
        title: "Mean Hellinger distance to the true posterior vs n (k = 2, 3, 4)",
        validate: |p, s| ready(bun2018::build_fig2(p, s)),
        schema: bun2018::FIG2_SCHEMA,
        plot: bun2018::plot::fig2,
        data_columns: Columns::Record(columns::<bun2018::Fig2Row>),
        summary_columns: Columns::Record(columns::<bun2018::Fig2Summary>),
        overlay: Overlay {
            x: "n",
            y: "mean",
            series: &["k", "mechanism"],
            x_label: "n (data size)",
            y_label: "mean Hellinger distance",
        },
        rate: Some(Rate {
            per_unit: 3.6255e-10,
            fixed: 0.025,
            paper: Cost {
                total: 9.546397e+10,
                max: 1.454644e+10,
            },
        }),
    },
    figure! {
        id: "bun2018/fig3",
        title: "Distance quartiles vs prior strength; exact output distributions",
        validate: |p, s| ready(bun2018::build_fig3(p, s)),
        schema: bun2018::FIG3_SCHEMA,
        plot: bun2018::plot::fig3,
        data_columns: Columns::Record(columns::<bun2018::Fig3Row>),
        summary_columns: Columns::Record(columns::<bun2018::Fig3Row>),
        overlay: Overlay {
            x: "prior",
            y: "mean",
            series: &["panel", "k", "mechanism"],
            x_label: "prior a",
            y_label: "mean Hellinger distance",
        },
        rate: Some(Rate {
            per_unit: 8.3040e-10,
            fixed: 0.141,
            paper: Cost {
                total: 8.729723e+08,
                max: 1.085406e+08,
            },
        }),
    },
    figure! {
        id: "heikkila2019/fig1",
        title: "DP-MCMC privacy budget vs q and T; clipped ratios vs proposal variance",
        validate: heikkila2019::validate_fig1,
        schema: heikkila2019::FIG1_SCHEMA,
        plot: heikkila2019::plot::fig1,
        data_columns: Columns::Record(columns::<heikkila2019::Fig1Row>),
        summary_columns: Columns::Record(columns::<heikkila2019::Fig1Row>),
        overlay: Overlay {
            x: "q",
            y: "epsilon",
            series: &["panel", "iterations", "conversion"],
            x_label: "sampling ratio q",
            y_label: "ε",
        },
        rate: Some(Rate {
            per_unit: 2.0898e-10,
            fixed: 0.61,
            paper: Cost {
                total: 2.799940e+10,
                max: 1.600000e+09,
            },
        }),
    },
    figure! {
        id: "heikkila2019/fig2",
        title: "Non-private vs private (DP-MCMC) tempered posterior samples, GMM",
        validate: heikkila2019::validate_fig2,
        schema: heikkila2019::FIG2_SCHEMA,
        plot: heikkila2019::plot::fig2,
        data_columns: Columns::Record(columns::<heikkila2019::Fig2Row>),
        summary_columns: Columns::Record(columns::<heikkila2019::Fig2Row>),
        overlay: Overlay {
            x: "theta1",
            y: "theta2",
            series: &["chain"],
            x_label: "θ₁",
            y_label: "θ₂",
        },
        rate: Some(Rate {
            per_unit: 1.7181e-10,
            fixed: 0.304,
            paper: Cost {
                total: 9.600000e+09,
                max: 6.400000e+09,
            },
        }),
    },
    figure! {
        id: "heikkila2019/fig3",
        title: "Running posterior mean/variance error vs ε: DP-MCMC vs DP-SGLD",
        validate: heikkila2019::validate_fig3,
        schema: heikkila2019::FIG3_SCHEMA,
        plot: heikkila2019::plot::fig3,
        data_columns: Columns::Record(columns::<heikkila2019::Fig3Row>),
        summary_columns: Columns::Record(columns::<heikkila2019::Fig3Summary>),
        overlay: Overlay {
            x: "iteration",
            y: "mean_error",
            series: &["method", "epsilon", "parameter"],
            x_label: "iteration",
            y_label: "|error of the posterior mean|",
        },
        rate: Some(Rate {
            per_unit: 2.6145e-10,
            fixed: 19.9,
            paper: Cost {
                total: 9.984000e+11,
                max: 2.400000e+10,
            },
        }),
    },
    figure! {
        id: audit_figure!(),
        title: "Privacy audit: every mechanism's claim against its exact or sampled privacy loss",
        validate: |p, s| ready(audit::build(p, s)),
        schema: audit::SCHEMA,
        plot: audit::plot::draw,
        data_columns: Columns::Record(columns::<audit::AuditRow>),
        summary_columns: Columns::Record(columns::<audit::AuditSummary>),
        overlay: Overlay {
            x: "draws",
            y: "epsilon_ratio",
            series: &["audit", "method", "variant"],
            x_label: "draws per neighbour",
            y_label: "audited ε / claimed ε",
        },
        rate: Some(Rate {
            per_unit: 2.9682e-09,
            fixed: 5.48,
            paper: Cost {
                total: 1.941540e+10,
                max: 4.000000e+09,
            },
        }),
    },
    figure! {
        id: "calibration/beta_bernoulli",
        title: "Calibration of naive, noise-aware and OPS posteriors (Beta-Bernoulli)",
        validate: |p, s| ready(calibration::build(p, s)),
        schema: calibration::SCHEMA,
        plot: calibration::plot::draw,
        data_columns: Columns::Listed(&calibration::DATA_COLUMNS),
        summary_columns: Columns::Listed(&calibration::SUMMARY_COLUMNS),
        overlay: Overlay {
            x: "epsilon",
            y: "max_coverage_deviation",
            series: &["method", "n"],
            x_label: "ε",
            y_label: "largest coverage deviation",
        },
        // calibrated on its own paper-scale run of 2026-11-26 (2 jobs, 5.7 s, while
        // a CI build ran on the same cores: conservative)
        rate: Some(Rate {
            per_unit: 1.4475e-09,
            fixed: 0.808,
            paper: Cost {
                total: 6.762000e+09,
                max: 7.840000e+07,
            },
        }),
    },
    figure! {
        id: "calibration/dirichlet",
        title: "Calibration of naive and noise-aware posteriors (Dirichlet-Categorical, TARP)",
        validate: |p, s| ready(calibration::dirichlet::build(p, s)),
        schema: calibration::dirichlet::SCHEMA,
        plot: calibration::plot::draw_dirichlet,
        data_columns: Columns::Listed(&calibration::dirichlet::DATA_COLUMNS),
        summary_columns: Columns::Listed(&calibration::dirichlet::SUMMARY_COLUMNS),
        overlay: Overlay {
            x: "epsilon",
            y: "max_coverage_deviation",
            series: &["method", "n", "quantity"],
            x_label: "ε",
            y_label: "largest coverage deviation",
        },
        // calibrated on its own paper-scale run of 2026-11-26 (2 jobs, 96.6 s, idle)
        rate: Some(Rate {
            per_unit: 1.3441e-09,
            fixed: 1.008,
            paper: Cost {
                total: 1.420531e+11,
                max: 1.608573e+09,
            },
        }),
    },
    figure! {
        id: "calibration/logistic",
        title: "Calibration of the Concentrated, Diffuse, Gibbs and OPS posteriors (logistic regression, TARP)",
        validate: |p, s| ready(calibration::logistic::build(p, s)),
        schema: calibration::logistic::SCHEMA,
        plot: calibration::plot::draw_logistic,
        data_columns: Columns::Listed(&calibration::logistic::DATA_COLUMNS),
        summary_columns: Columns::Listed(&calibration::logistic::SUMMARY_COLUMNS),
        overlay: Overlay {
            x: "epsilon",
            y: "max_coverage_deviation",
            series: &["method", "n", "quantity"],
            x_label: "ε",
            y_label: "largest coverage deviation",
        },
        // calibrated on its own paper-scale run of 2026-11-26 (2 jobs, 111.7 s, idle)
        rate: Some(Rate {
            per_unit: 1.4931e-10,
            fixed: 0.749,
            paper: Cost {
                total: 1.484514e+12,
                max: 1.671750e+10,
            },
        }),
    },
    figure! {
        id: "raisa2021/banana",
        title: "DP-HMC vs the penalty algorithm, DP-SGLD and DP-SGNHT on the banana (MMD, errors, R̂ vs ε)",
        validate: |p, s| ready(raisa2021::build_banana(p, s)),
        schema: raisa2021::SCHEMA,
        plot: raisa2021::plot::banana,
        data_columns: Columns::Listed(&raisa2021::DATA),
        summary_columns: Columns::Listed(&raisa2021::SUMMARY),
        overlay: Overlay {
            x: "epsilon",
            y: "mmd_mean",
            series: &["method"],
            x_label: "ε",
            y_label: "MMD to exact posterior draws",
        },
        // calibrated on a 2-repeat paper-scale run of 2026-11-26 with the AVX2 kernels
        // (2 jobs, 441 s, a build sharing the cores part of the time: conservative);
        // the paper's 10 repeats cost 5× the units
        rate: Some(Rate {
            per_unit: 2.3312e-09,
            fixed: 0.138,
            paper: Cost {
                total: 1.892310e+12,
                max: 3.004187e+10,
            },
        }),
    },
    figure! {
        id: "raisa2021/gauss",
        title: "DP-HMC vs the penalty algorithm, DP-SGLD and DP-SGNHT on the ill-conditioned 10-d Gaussian",
        validate: |p, s| ready(raisa2021::build_gauss(p, s)),
        schema: raisa2021::SCHEMA,
        plot: raisa2021::plot::gauss,
        data_columns: Columns::Listed(&raisa2021::DATA),
        summary_columns: Columns::Listed(&raisa2021::SUMMARY),
        overlay: Overlay {
            x: "epsilon",
            y: "mmd_mean",
            series: &["method"],
            x_label: "ε",
            y_label: "MMD to exact posterior draws",
        },
        // calibrated on its paper-scale run of 2026-11-26 with the AVX2 kernels (10
        // repeats, 2 jobs, 738 s, idle)
        rate: Some(Rate {
            per_unit: 1.3040e-09,
            fixed: 0.137,
            paper: Cost {
                total: 1.131466e+12,
                max: 3.019600e+10,
            },
        }),
    },
    figure! {
        id: "raisa2021/gmm",
        title: "Heikkilä's GMM: the penalty algorithm, DP-HMC and DP-SGNHT beside DP-MCMC and DP-SGLD (running error vs ε)",
        validate: raisa2021::gmm::validate,
        schema: raisa2021::gmm::schema,
        plot: raisa2021::plot::gmm,
        data_columns: Columns::Record(columns::<heikkila2019::Fig3Row>),
        summary_columns: Columns::Record(columns::<heikkila2019::Fig3Summary>),
        overlay: Overlay {
            x: "iteration",
            y: "mean_error",
            series: &["method", "epsilon", "parameter"],
            x_label: "iteration",
            y_label: "|error of the posterior mean|",
        },
        // a paper-scale run of 2026-11-26 (2 jobs, 1354 s) shared the 2 cores with
        // another 2-job run: its DP-SGLD tasks ran at 2.1× heikkila2019/fig3's idle
        // seconds per unit, so the measured 4.617e-10 s/unit and 34.1 s are divided by 2.1
        rate: Some(Rate {
            per_unit: 2.1986e-10,
            fixed: 16.2,
            paper: Cost {
                total: 5.718400e+12,
                max: 9.600000e+10,
            },
        }),
    },
];

pub fn find(id: &str) -> Option<&'static Spec> {
    REGISTRY.iter().find(|s| s.id == id)
}

/// The registry row of a figure folder's `id` and manifest: a built-in figure, or
/// an external figure described by its manifest's resolved config.
pub fn find_for(id: &str, manifest: Option<&serde_json::Value>) -> Option<&'static Spec> {
    find(id).or_else(|| manifest.and_then(external::spec_of_manifest))
}

/// A figure's notes (`docs/figures/<id>.toml`), embedded in the binary.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Notes {
    /// The paper, e.g. "Geumlek et al. 2017".
    pub paper: String,
    /// Its figure number ("Fig. 1"), or "beyond the paper".
    pub figure: String,
    /// The README figure table's first column.
    pub label: String,
    /// The README figure table's last column.
    pub status: String,
    /// The paper's claim or caption, in a sentence.
    pub claim: String,
    /// What privpost's output reproduces.
    pub matches: String,
    /// What differs from the paper, and why.
    pub differs: String,
    /// Optional longer notes (settings, evidence, what was measured): the
    /// gallery shows them under "Details".
    #[serde(default)]
    pub details: Option<String>,
}

/// The file name of a figure's README thumbnail (`docs/figures/thumbs/`):
/// `geumlek2017/fig1` → `geumlek2017-fig1.png`.
pub fn thumbnail_file(id: &str) -> String {
    format!("{}.png", id.replace('/', "-"))
}

/// A figure's notes file (`docs/figures/ID.toml`) that does not parse.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct NotesError(pub String);

/// `docs/figures/README.md`: the notes of every figure as one page (the field
/// guide, then a section per figure), rendered from the notes files so the page
/// and the gallery cannot disagree; `tests/docs.rs` checks the file is current.
pub fn notes_markdown() -> Result<String, NotesError> {
    use std::fmt::Write as _;
    let mut md = String::from(NOTES_PAGE_HEAD);
    for spec in REGISTRY {
        let n = spec.notes()?;
        let thumb = thumbnail_file(spec.id);
        let _ = write!(
            md,
            "\n<a id=\"{}\"></a>\n\n## {} — {} (`{}`)\n\n![{}](thumbs/{thumb})\n\n\
             **Status at the paper's scale:** {}\n\n\
             **The paper.** {}\n\n**What matches.** {}\n\n**What differs, and why.** {}\n",
            thumb.trim_end_matches(".png"),
            n.paper,
            n.figure,
            spec.id,
            spec.id,
            n.status,
            n.claim,
            n.matches,
            n.differs
        );
        if let Some(d) = &n.details {
            let _ = writeln!(md, "\n**Details.** {d}");
        }
    }
    Ok(md)
}

const NOTES_PAGE_HEAD: &str = "# Figure notes

<!-- Rendered from docs/figures/<paper>/<figure>.toml by `privpost gallery --notes-page`;
     edit those files, not this page (tests/docs.rs checks it is current). -->

One file per figure of the registry (`<paper>/<figure>.toml`, named by its registry id).
The binary embeds them: `privpost gallery` and the gallery written after every run show
them beside each figure, and the README's figure table takes its first and last columns
from `label` and `status` (`tests/docs.rs` checks both ways). Quotations in `claim` are
checked against the papers' texts (`tests/claims.rs`); a figure beyond the papers says
\"Not in the paper\". The pictures are thumbnails of a paper-scale run
(`privpost gallery results --thumbnails docs/figures/thumbs`; its date is in the README).

| field | meaning |
|---|---|
| `paper` | the paper, e.g. \"Geumlek et al. 2017\" |
| `figure` | its figure number (\"Fig. 1\"), or \"beyond the paper\" |
| `label` | the README table's first column |
| `status` | the README table's last column |
| `claim` | the paper's claim, quoted with its location, or \"Not in the paper…\" |
| `matches` | what privpost's output reproduces, with numbers |
| `differs` | what differs from the paper, and why, with numbers |
| `details` | optional: settings, evidence and measurements beyond the summary |
";

impl Spec {
    /// The figure's parsed notes. The files are part of the build and a unit test
    /// parses every one, so this cannot fail in a tested binary; it still
    /// returns the parse error rather than panicking.
    pub fn notes(&self) -> Result<Notes, NotesError> {
        toml::from_str(self.notes)
            .map_err(|e| NotesError(format!("docs/figures/{}.toml: {e}", self.id)))
    }
}

pub fn known_ids() -> String {
    REGISTRY.iter().map(|s| s.id).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUN_TIME_TYPED: [&str; 4] = ["data", "datasets", "prior", "start"];

    /// Each figure's schema knows every key its shipped config sets (every profile),
    /// and says "list" exactly where the config writes a list: the schema, not a
    /// probe, decides whether `--set key=[a, b]` is a list or a sweep.
    #[test]
    fn every_schema_knows_its_configs_keys_and_their_shapes() {
        use crate::config::shape::Shape;
        fn walk(
            table: &toml::Table,
            path: &mut Vec<String>,
            f: &mut dyn FnMut(&[String], &toml::Value),
        ) {
            for (k, v) in table {
                path.push(k.clone());
                f(path, v);
                if let toml::Value::Table(t) = v {
                    walk(t, path, f);
                }
                path.pop();
            }
        }
        let mut checked = 0;
        for s in REGISTRY {
            let mut file: toml::Table = toml::from_str(s.config_text).unwrap();
            let profiles = match file.remove("profile") {
                Some(toml::Value::Table(p)) => p,
                _ => toml::Table::new(),
            };
            let mut tables = vec![file];
            tables.extend(profiles.into_iter().filter_map(|(_, p)| match p {
                toml::Value::Table(t) => Some(t),
                _ => None,
            }));
            for t in &tables {
                walk(t, &mut Vec::new(), &mut |path, v| {
                    if ["experiment", "seed", "description"].contains(&path[0].as_str()) {
                        return;
                    }
                    let want = if v.is_array() {
                        Shape::List
                    } else {
                        Shape::Single
                    };
                    let got = (s.schema)(path);
                    // the fields a figure parses itself (a data source, a prior
                    // in either form, a start point or "dpvi") are typed at run time
                    if got == Shape::Unknown && RUN_TIME_TYPED.contains(&path[0].as_str()) {
                        return;
                    }
                    assert_eq!(got, want, "{}: key {}", s.id, path.join("."));
                    checked += 1;
                });
            }
        }
        assert!(checked > 200, "keys checked: {checked}");
    }

    /// Every figure has notes with every field filled in.
    #[test]
    fn every_figure_has_notes() {
        for s in REGISTRY {
            let n = s.notes().unwrap();
            for (field, v) in [
                ("paper", &n.paper),
                ("figure", &n.figure),
                ("label", &n.label),
                ("status", &n.status),
                ("claim", &n.claim),
                ("matches", &n.matches),
                ("differs", &n.differs),
            ] {
                assert!(!v.trim().is_empty(), "{}: empty `{field}`", s.id);
            }
        }
    }

    /// A status is what was reproduced, never a measurement that goes stale
    /// ("1.7 min" stayed after the kernels made it 100 s); wall
    /// times come from each run's manifest.
    #[test]
    fn statuses_carry_no_wall_times() {
        for s in REGISTRY {
            let status = s.notes().unwrap().status;
            let words: Vec<&str> = status
                .split(|c: char| !c.is_alphanumeric() && c != '.')
                .collect();
            for w in words.windows(2) {
                let number = w[0].parse::<f64>().is_ok();
                let unit = ["s", "sec", "seconds", "min", "minutes", "h", "hours"].contains(&w[1]);
                assert!(
                    !(number && unit),
                    "{}: status {status:?} holds a time",
                    s.id
                );
            }
        }
    }

    /// Each figure's shipped config is embedded as it is on disk (a copy of
    /// it is the paper's config; anything else is the user's own).
    #[test]
    fn shipped_configs_are_embedded() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for s in REGISTRY {
            let disk = std::fs::read_to_string(root.join(s.config)).unwrap();
            assert_eq!(disk, s.config_text, "{}", s.id);
        }
    }

    /// `privpost combine` draws the overlay from summary columns the figure writes.
    #[test]
    fn overlays_name_summary_columns() {
        for s in REGISTRY {
            let o = &s.overlay;
            for c in [o.x, o.y].iter().chain(o.series) {
                assert!(
                    s.summary_columns.get().contains(c),
                    "{}: overlay column `{c}`",
                    s.id
                );
            }
        }
    }
}
