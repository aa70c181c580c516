//! The traits every figure implements — [`Plan`] (a validated config, no side
//! effects) and [`Figure`] (prepared: tasks, summary, ledger) — and what they
//! report to the runner's limits and estimates ([`Footprint`], [`Cost`]). A
//! leaf of `experiments`: the figures import it, it imports none of them.

use crate::config::ParamError;
use crate::privacy::ledger::Ledger;
use crate::results::manifest::DatasetRecord;
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
    /// Task `index`'s rows split into its data rows and the rows of posterior
    /// draws it keeps ([`crate::results::draws`]), which go to `draws.csv`
    /// instead of `data.csv`. The default keeps no draws.
    fn split_task_rows(&self, rows: Vec<Row>) -> (Vec<Row>, Vec<Row>) {
        (rows, Vec::new())
    }
    /// The posterior draws the run keeps, in the layout of
    /// [`crate::results::draws`]: from the draw rows split off the tasks (in
    /// task order), or from the data rows. The default keeps none.
    fn kept_draws(
        &self,
        _data: &Table,
        _draw_rows: Vec<Row>,
    ) -> anyhow::Result<Option<crate::results::draws::KeptDraws>> {
        Ok(None)
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
