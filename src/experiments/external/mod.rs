//! The external figure kind: a researcher's own mechanism as a privpost figure.
//!
//! A config with `experiment = "external"` names a command run once per task
//! (one task per point of its `[grid]`). The task reads one JSON object on
//! standard input — `{"figure", "task", "seed", "repeats", "params", "columns"}`,
//! `params` being the fixed `[params]` merged with the task's grid point — and
//! writes CSV on standard output: a header equal to the declared `[[columns]]`
//! names, then rows of those types. privpost adds the grid coordinates in front,
//! checks every row, and from then on treats the figure like a built-in one:
//! task cache (keyed also by the command and the SHA-256 of the `code` files),
//! resume, sweeps, shards, merge, combine, the gallery. The summary is the mean
//! and standard error of each numeric column per group (the grid coordinates and
//! the string columns), and the figure is drawn from a declared `[plot]`.
//!
//! Privacy is declared (`[[privacy]]`, events in the ledger's own vocabulary):
//! privpost cannot see the mechanism, so each entry is marked "declared by the
//! user", and what can be checked — the claim against the event's own
//! parameters — is checked before anything runs.
//!
//! A failing task (exit status, time-out, malformed or mistyped rows, a wrong
//! header) is a [`UserTaskError`]: the command exits 2 with the task index, the
//! row and the tail of the task's stderr, and no row of that task is stored.

pub mod plot;
mod process;
pub mod reaper;

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

use rand::Rng as _;
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

use crate::config::{deserialize, ParamError};
use crate::experiments::{parameter, Columns, Figure, Plan, Spec};
use crate::plot::overlay::Overlay;
use crate::privacy::event::{Event, Guarantee};
use crate::privacy::ledger::{Entry, Ledger};
use crate::results::manifest::DatasetRecord;
use crate::results::table::{Cell, Row, Table};

pub use process::UserTaskError;

mod checks;
use checks::{check_columns, check_grid, check_plot, check_series_rows, grid_cell};
pub use checks::{ledger_of, DeclarationError, MAX_TASKS};

mod spec;
pub use spec::{spec, spec_of_manifest, TemplateError};

/// The `experiment` value of an external figure's config.
pub const KIND: &str = "external";

/// The side table holding the drawing's declaration, read by [`plot::draw`].
pub const PLOT_SPEC: &str = "plot_spec.csv";

fn default_timeout() -> f64 {
    600.0
}
fn one() -> usize {
    1
}

/// The config of an external figure.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// `group/name`: the output folder `<out>/group/name` (default `external/<config file stem>`)
    pub id: Option<String>,
    /// the figure's title
    pub title: Option<String>,
    /// the program and its arguments, run once per task (no shell)
    pub command: Vec<String>,
    /// files whose SHA-256 keys the task cache (the task's code)
    #[serde(default)]
    pub code: Vec<String>,
    /// a task running longer is killed and fails
    #[serde(default = "default_timeout")]
    pub timeout_seconds: f64,
    /// passed to every task as `repeats`
    #[serde(default = "one")]
    pub repeats: usize,
    /// the task grid: `KEY = [values]`; one task per combination (keys in sorted order)
    #[serde(default)]
    pub grid: toml::Table,
    /// fixed values passed to every task
    #[serde(default)]
    pub params: toml::Table,
    /// the columns the command writes, in order
    pub columns: Vec<ColumnDecl>,
    pub plot: PlotDecl,
    /// the privacy events of the mechanism, per series
    pub privacy: Vec<PrivacyDecl>,
    /// draw a built-in figure's series on the same axes
    pub compare: Option<CompareDecl>,
}

/// The parameters' schema, asked by `--set` whether a key takes a list
/// ([`crate::config::shape`]).
pub const SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Config>;

/// One declared output column.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ColumnDecl {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: ColumnType,
}

/// The type of a declared column.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ColumnType {
    /// a finite number
    Float,
    /// an integer (i64)
    Int,
    /// text (a series name, a label): a grouping column of the summary
    String,
}

/// What the figure draws.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PlotDecl {
    /// a numeric grid key
    pub x: String,
    /// a numeric declared column: its mean ± se is drawn
    pub y: String,
    /// a grid key or string column: one curve per value
    pub series: Option<String>,
    /// a grid key or string column: one panel per value
    pub facet: Option<String>,
    #[serde(default)]
    pub log_x: bool,
    #[serde(default)]
    pub log_y: bool,
    pub x_label: Option<String>,
    pub y_label: Option<String>,
}

/// A declared privacy event.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrivacyDecl {
    /// the series or grid point it covers, e.g. "mechanism=my_laplace, epsilon=0.1"
    pub series: String,
    /// the event, in the ledger's vocabulary (`mechanism = "laplace"`, …)
    pub event: toml::Table,
    /// the guarantee claimed (`kind = "pure_dp"`, …); default: the event's pure ε
    pub claim: Option<toml::Table>,
    #[serde(default)]
    pub conditions: Vec<String>,
}

/// A built-in figure drawn beside the external rows.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CompareDecl {
    /// a built-in figure id with an overlay metric (e.g. `foulds2016/fig2`)
    pub figure: String,
    /// its config (default `configs/<figure>.toml`)
    pub config: Option<String>,
    /// values set in its config (after the profile), e.g. { n_values = [10, 100], epsilon = 0.1 }
    #[serde(default)]
    pub set: toml::Table,
    /// the sweep label of its output folder `<out>/<figure>@<label>` (default:
    /// `for=<this figure's id and sweep point>`, set when the config is planned)
    pub label: Option<String>,
}

/// The condition every declared ledger entry carries.
pub const DECLARED: &str = "declared by the user: privpost ran the command but cannot see the mechanism; it checked only that the claim follows from the declared event";

impl Config {
    /// The figure id (`group/name`).
    pub fn id(&self, file_stem: &str) -> String {
        self.id
            .clone()
            .unwrap_or_else(|| format!("external/{file_stem}"))
    }

    fn grid_keys(&self) -> Vec<String> {
        self.grid.keys().cloned().collect()
    }

    fn numeric_columns(&self) -> Vec<&str> {
        self.columns
            .iter()
            .filter(|c| c.kind != ColumnType::String)
            .map(|c| c.name.as_str())
            .collect()
    }

    /// data.csv: the grid keys, then the declared columns.
    pub fn data_columns(&self) -> Vec<String> {
        let mut v = self.grid_keys();
        v.extend(self.columns.iter().map(|c| c.name.clone()));
        v
    }

    /// The grouping columns of the summary: the grid keys and the string columns.
    fn group_columns(&self) -> Vec<String> {
        let mut v = self.grid_keys();
        v.extend(
            self.columns
                .iter()
                .filter(|c| c.kind == ColumnType::String)
                .map(|c| c.name.clone()),
        );
        v
    }

    /// summary.csv: the groups, `C_mean` and `C_se` of each numeric column, `runs`.
    pub fn summary_columns(&self) -> Vec<String> {
        let mut v = self.group_columns();
        for c in self.numeric_columns() {
            v.push(format!("{c}_mean"));
            v.push(format!("{c}_se"));
        }
        v.push("runs".into());
        v
    }
}

/// Parses and checks an external config (no side effects: nothing run or read
/// but the PATH lookup of the command).
pub fn parse(params: &toml::Table) -> Result<Config, ParamError> {
    let c: Config = deserialize(params)?;
    if let Some(id) = &c.id {
        let parts: Vec<&str> = id.split('/').collect();
        let ok = parts.len() == 2 && parts.iter().all(|p| simple(p));
        if !ok || crate::experiments::REGISTRY.iter().any(|s| s.id == id) {
            return Err(ParamError::new(
                "id",
                format!("\"{id}\""),
                "GROUP/NAME of letters, digits, `_`, `-`, `.`, not a built-in figure's id",
            ));
        }
    }
    if c.command.is_empty() || c.command[0].trim().is_empty() {
        return Err(ParamError::new(
            "command",
            "empty",
            "[\"program\", \"arg\", …], e.g. [\"python3\", \"my_mech.py\"]",
        ));
    }
    process::find_program(&c.command[0]).map_err(|m| {
        ParamError::new(
            "command",
            m,
            "a program on PATH or a path to an executable file",
        )
    })?;
    if !(c.timeout_seconds.is_finite() && c.timeout_seconds > 0.0 && c.timeout_seconds <= 86_400.0)
    {
        return Err(ParamError::new(
            "timeout_seconds",
            format!("{}", c.timeout_seconds),
            "0 < timeout_seconds ≤ 86400",
        ));
    }
    if c.repeats == 0 || c.repeats > 10_000_000 {
        return Err(ParamError::new(
            "repeats",
            format!("{}", c.repeats),
            "1 ≤ repeats ≤ 10,000,000",
        ));
    }
    check_grid(&c)?;
    check_columns(&c)?;
    check_plot(&c)?;
    ledger_of(&c)?;
    if let Some(cmp) = &c.compare {
        if crate::experiments::find(&cmp.figure).is_none() {
            return Err(ParamError::new(
                "compare.figure",
                format!("unknown figure \"{}\"", cmp.figure),
                crate::experiments::known_ids(),
            ));
        }
    }
    Ok(c)
}

fn simple(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Validates an external config into a ready figure; the code files are read
/// when the figure is prepared.
pub fn validate(params: &toml::Table, _seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let c = parse(params)?;
    let tasks = task_count(&c);
    Ok(Box::new(crate::experiments::Deferred {
        description: format!(
            "external: {} tasks ({} grid keys) × {} repeats each, `{}`",
            tasks,
            c.grid.len(),
            c.repeats,
            c.command.join(" ")
        ),
        config: c,
        prepare,
    }))
}

fn task_count(c: &Config) -> usize {
    c.grid
        .values()
        .map(|v| v.as_array().map_or(1, Vec::len))
        .product()
}

fn prepare(c: Config) -> Result<Box<dyn Figure>, ParamError> {
    let code = c
        .code
        .iter()
        .enumerate()
        .map(|(i, f)| {
            crate::input::read_found(std::path::Path::new(f))
                .map(|b| (f.clone(), crate::data::sha256_hex(&b)))
                .map_err(|e| {
                    ParamError::new(
                        format!("code[{i}]"),
                        format!("{f}: {e}"),
                        "files that exist (the task's code, hashed into the cache key)",
                    )
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let ledger = ledger_of(&c)?;
    let points = grid_points(&c);
    Ok(Box::new(External {
        c,
        code,
        points,
        ledger,
    }))
}

/// Every grid point, the last key varying fastest (keys sorted).
fn grid_points(c: &Config) -> Vec<Vec<(String, toml::Value)>> {
    let mut points: Vec<Vec<(String, toml::Value)>> = vec![Vec::new()];
    for (k, v) in &c.grid {
        let values = v.as_array().cloned().unwrap_or_default();
        points = points
            .into_iter()
            .flat_map(|p| {
                values.iter().map(move |x| {
                    let mut q = p.clone();
                    q.push((k.clone(), x.clone()));
                    q
                })
            })
            .collect();
    }
    points
}

/// A prepared external figure.
pub struct External {
    c: Config,
    /// (file, SHA-256) of the declared code files
    code: Vec<(String, String)>,
    points: Vec<Vec<(String, toml::Value)>>,
    ledger: Ledger,
}

impl External {
    /// The JSON a task reads on stdin.
    fn input(&self, index: usize, task_seed: u64) -> serde_json::Value {
        let mut params = self.c.params.clone();
        for (k, v) in &self.points[index] {
            params.insert(k.clone(), v.clone());
        }
        serde_json::json!({
            "figure": self.id(),
            "task": index,
            "seed": task_seed,
            "repeats": self.c.repeats,
            "params": params,
            "columns": self.c.columns.iter().map(|c| &c.name).collect::<Vec<_>>(),
        })
    }

    fn id(&self) -> String {
        self.c.id.clone().unwrap_or_default()
    }
}

impl Figure for External {
    fn task_count(&self) -> usize {
        self.points.len()
    }

    fn grid_description(&self) -> String {
        format!(
            "external: {} grid points × {} repeats, `{}`",
            self.points.len(),
            self.c.repeats,
            self.c.command.join(" ")
        )
    }

    /// Runs the command on the task's JSON; the task seed is the first draw of
    /// the task's stream, below 2⁵³ (exact in every JSON reader).
    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let task_seed = rng.next_u64() >> 11;
        let input = self.input(index, task_seed);
        let out = process::run(&self.c.command, &input, self.c.timeout_seconds, index)?;
        let parsed = process::parse_rows(&out, &self.c.columns, index)?;
        let prefix: Vec<Cell> = self.points[index]
            .iter()
            .map(|(_, v)| grid_cell(v).unwrap_or(Cell::Empty))
            .collect();
        Ok(parsed
            .into_iter()
            .map(|r| prefix.iter().cloned().chain(r).collect())
            .collect())
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        check_series_rows(&self.c, data)?;
        summarize(&self.c, data)
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({
            "kind": KIND,
            "command": self.c.command,
            "code": self.code.iter().map(|(f, h)| serde_json::json!({"file": f, "sha256": h})).collect::<Vec<_>>(),
            "timeout_seconds": self.c.timeout_seconds,
            "task_input": "JSON on stdin: figure, task, seed (first draw of the task's ChaCha8 stream, >> 11), repeats, params (params + grid point), columns",
            "compare": self.c.compare.as_ref().map(|c| &c.figure),
        })
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        Ok(self.ledger.clone())
    }

    /// `plot_spec.csv`: the drawing's declaration, so `privpost plot` re-renders
    /// from the folder alone.
    fn side_tables(&self, _data: &Table) -> anyhow::Result<Vec<(String, Table)>> {
        let p = &self.c.plot;
        let mut rows: Vec<(String, String)> = vec![
            (
                "title".into(),
                self.c.title.clone().unwrap_or_else(|| self.id()),
            ),
            ("x".into(), p.x.clone()),
            ("y".into(), p.y.clone()),
            ("series".into(), p.series.clone().unwrap_or_default()),
            ("facet".into(), p.facet.clone().unwrap_or_default()),
            ("log_x".into(), p.log_x.to_string()),
            ("log_y".into(), p.log_y.to_string()),
            (
                "x_label".into(),
                p.x_label.clone().unwrap_or_else(|| p.x.clone()),
            ),
            (
                "y_label".into(),
                p.y_label
                    .clone()
                    .unwrap_or_else(|| format!("{} (mean ± se)", p.y)),
            ),
        ];
        if let Some(cmp) = &self.c.compare {
            if let Some(spec) = crate::experiments::find(&cmp.figure) {
                rows.push(("compare_figure".into(), cmp.figure.clone()));
                rows.push(("compare_x".into(), spec.overlay.x.into()));
                rows.push(("compare_y".into(), spec.overlay.y.into()));
                rows.push(("compare_series".into(), spec.overlay.series.join("+")));
                rows.push((
                    "compare_dir".into(),
                    format!(
                        "../../{}@{}",
                        cmp.figure,
                        cmp.label.clone().unwrap_or_default()
                    ),
                ));
            }
        }
        Ok(vec![(
            PLOT_SPEC.into(),
            Table::new(
                &["key", "value"],
                rows.into_iter()
                    .map(|(k, v)| vec![Cell::Str(k), Cell::Str(v)])
                    .collect(),
            ),
        )])
    }

    fn parameters(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> =
            self.c.params.iter().map(|(k, x)| parameter(k, x)).collect();
        v.push(parameter("repeats", self.c.repeats));
        v.push(parameter("command", self.c.command.join(" ")));
        v
    }

    fn datasets(&self) -> Vec<DatasetRecord> {
        // the task's code: its SHA-256 keys the cache as a dataset's would
        self.code
            .iter()
            .map(|(f, h)| DatasetRecord {
                name: format!("code:{f}"),
                files: vec![f.clone()],
                sha256: vec![h.clone()],
                rows: 0,
                source: serde_json::json!({"kind": "task code (external figure)"}),
            })
            .collect()
    }

    fn task_cost(&self, _index: usize) -> f64 {
        1e8 // a process start and a script: milliseconds at least
    }
}

/// Mean and standard error of each numeric column per group, groups in order
/// of first appearance.
fn summarize(c: &Config, data: &Table) -> anyhow::Result<Table> {
    let groups = c.group_columns();
    let gcols: Vec<usize> = groups
        .iter()
        .map(|g| data.col(g))
        .collect::<Result<_, _>>()?;
    let numeric = c.numeric_columns();
    let ncols: Vec<usize> = numeric
        .iter()
        .map(|n| data.col(n))
        .collect::<Result<_, _>>()?;
    let mut order: Vec<Vec<String>> = Vec::new();
    let mut members: BTreeMap<Vec<String>, Vec<usize>> = BTreeMap::new();
    for i in 0..data.rows.len() {
        let key: Vec<String> = gcols.iter().map(|&g| data.s(i, g)).collect();
        let entry = members.entry(key.clone()).or_default();
        if entry.is_empty() {
            order.push(key);
        }
        entry.push(i);
    }
    let header = c.summary_columns();
    let mut rows = Vec::new();
    for key in order {
        let idx = &members[&key];
        let mut row: Row = gcols
            .iter()
            .map(|&g| data.rows[idx[0]][g].clone())
            .collect();
        for &n in &ncols {
            let values: Vec<f64> = idx.iter().map(|&i| data.f(i, n)).collect();
            let (mean, se) = crate::stats::mean_se(&values);
            row.push(mean.into());
            row.push(if values.len() > 1 {
                Cell::Float(se)
            } else {
                Cell::Empty
            });
        }
        row.push(idx.len().into());
        rows.push(row);
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    Ok(Table::new(&header, rows))
}
