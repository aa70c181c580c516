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
    /// the task grid: KEY = [values]; one task per combination (keys in sorted order)
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

/// The largest number of tasks a grid may have.
pub const MAX_TASKS: usize = 1_000_000;

fn check_grid(c: &Config) -> Result<(), ParamError> {
    let mut tasks: usize = 1;
    for (k, v) in &c.grid {
        let key = format!("grid.{k}");
        if !simple(k) {
            return Err(ParamError::new(
                key,
                "not a plain name",
                "letters, digits, `_`, `-`, `.`",
            ));
        }
        let toml::Value::Array(values) = v else {
            return Err(ParamError::new(
                key,
                format!("a {}", v.type_str()),
                "a list of values, e.g. [0.1, 1.0]",
            ));
        };
        if values.is_empty() {
            return Err(ParamError::new(key, "empty list", "at least one value"));
        }
        if let Some(bad) = values.iter().find(|x| grid_cell(x).is_none()) {
            return Err(ParamError::new(
                key,
                format!("value {bad}"),
                "numbers, strings or booleans (finite numbers)",
            ));
        }
        tasks = tasks.saturating_mul(values.len());
    }
    if tasks > MAX_TASKS {
        return Err(ParamError::new(
            "grid",
            format!("{tasks} tasks"),
            format!("at most {MAX_TASKS} grid points"),
        ));
    }
    if let Some(k) = c.params.keys().find(|k| c.grid.contains_key(*k)) {
        return Err(ParamError::new(
            format!("params.{k}"),
            "also a grid key",
            "a key in either [grid] or [params]",
        ));
    }
    Ok(())
}

/// A grid value as a CSV cell.
fn grid_cell(v: &toml::Value) -> Option<Cell> {
    match v {
        toml::Value::Integer(i) => Some(Cell::Int(*i)),
        toml::Value::Float(f) if f.is_finite() => Some(Cell::Float(*f)),
        toml::Value::String(s) if !s.contains(['\n', '\r']) => Some(Cell::Str(s.clone())),
        toml::Value::Boolean(b) => Some(Cell::Str(b.to_string())),
        _ => None,
    }
}

fn check_columns(c: &Config) -> Result<(), ParamError> {
    if c.columns.is_empty() {
        return Err(ParamError::new(
            "columns",
            "empty",
            "[[columns]] tables with name and type (float, int or string)",
        ));
    }
    let mut seen: Vec<&str> = Vec::new();
    for (i, col) in c.columns.iter().enumerate() {
        let key = format!("columns[{i}].name");
        if !simple(&col.name)
            || col.name == "runs"
            || col.name.ends_with("_mean")
            || col.name.ends_with("_se")
        {
            return Err(ParamError::new(
                key,
                format!("\"{}\"", col.name),
                "letters, digits, `_`, `-`, `.`; not `runs` nor ending in `_mean` / `_se` (summary names)",
            ));
        }
        if seen.contains(&col.name.as_str()) || c.grid.contains_key(&col.name) {
            return Err(ParamError::new(
                key,
                format!(
                    "\"{}\" named twice (columns and grid keys share data.csv)",
                    col.name
                ),
                "distinct names",
            ));
        }
        seen.push(&col.name);
    }
    if c.numeric_columns().is_empty() {
        return Err(ParamError::new(
            "columns",
            "no float or int column",
            "at least one numeric column to summarise and draw",
        ));
    }
    Ok(())
}

fn check_plot(c: &Config) -> Result<(), ParamError> {
    let p = &c.plot;
    let numeric_grid = |k: &str| {
        c.grid.get(k).is_some_and(|v| {
            v.as_array()
                .is_some_and(|a| a.iter().all(|x| x.is_integer() || x.is_float()))
        })
    };
    if !numeric_grid(&p.x) {
        return Err(ParamError::new(
            "plot.x",
            format!("\"{}\"", p.x),
            format!("a grid key with numeric values, one of {:?}", c.grid_keys()),
        ));
    }
    if !c.numeric_columns().contains(&p.y.as_str()) {
        return Err(ParamError::new(
            "plot.y",
            format!("\"{}\"", p.y),
            format!("a float or int column, one of {:?}", c.numeric_columns()),
        ));
    }
    let groups = c.group_columns();
    for (key, v) in [("plot.series", &p.series), ("plot.facet", &p.facet)] {
        if let Some(v) = v {
            if !groups.contains(v) || *v == p.x {
                return Err(ParamError::new(
                    key,
                    format!("\"{v}\""),
                    format!("a grid key or string column other than plot.x, one of {groups:?}"),
                ));
            }
        }
    }
    if p.series.is_some() && p.series == p.facet {
        return Err(ParamError::new(
            "plot.facet",
            "equal to plot.series",
            "another column",
        ));
    }
    if p.log_x {
        let positive = c.grid[&p.x].as_array().is_some_and(|a| {
            a.iter().all(|x| {
                x.as_float()
                    .or(x.as_integer().map(|i| i as f64))
                    .is_some_and(|f| f > 0.0)
            })
        });
        if !positive {
            return Err(ParamError::new(
                "plot.log_x",
                "true with x values ≤ 0",
                "log_x only with positive x values",
            ));
        }
    }
    Ok(())
}

/// The ledger of the declared events, each checked: its parameters valid, its
/// claim following from the event. A claim is needed unless the event has a pure ε.
pub fn ledger_of(c: &Config) -> Result<Ledger, ParamError> {
    if c.privacy.is_empty() {
        return Err(ParamError::new(
            "privacy",
            "missing",
            "[[privacy]] tables with series and event (e.g. event = { mechanism = \"laplace\", l1_sensitivity = 1.0, scale = 10.0 }; mechanism = \"non_private\" for a baseline)",
        ));
    }
    let mut entries = Vec::new();
    for (i, d) in c.privacy.iter().enumerate() {
        let key = format!("privacy[{i}]");
        let event_table = substitute(&d.event, &c.params)
            .map_err(|e| ParamError::new(format!("{key}.event"), e.0, "numbers, or products and quotients of numbers and $KEYs of [params], e.g. \"2/$epsilon\""))?;
        let event: Event = from_toml(&event_table).map_err(|e| {
            ParamError::new(
                format!("{key}.event"),
                e.0,
                "an event of the ledger's vocabulary (README, \"Your privacy events\"): mechanism = laplace, gaussian, poisson_subsampled_gaussian, subsampled_barker, rdp_curve, gibbs_posterior, one_posterior_sample, smoothed_hellinger, pure_epsilon, non_private, compose, repeat",
            )
        })?;
        event.validate().map_err(|e| {
            ParamError::new(
                format!("{key}.event"),
                e.to_string(),
                "valid event parameters",
            )
        })?;
        let guarantee = match &d.claim {
            Some(t) => substitute(t, &c.params).and_then(|t| from_toml::<Guarantee>(&t)).map_err(|e| {
                ParamError::new(
                    format!("{key}.claim"),
                    e.0,
                    "kind = pure_dp (epsilon), rdp (order, epsilon), rdp_curve (points), approx_dp (epsilon, delta, conversion = classic/improved/pld/theorem, order), none",
                )
            })?,
            None => match (&event, event.pure_epsilon()) {
                (Event::NonPrivate, _) => Guarantee::None,
                (_, Some(epsilon)) => Guarantee::PureDp { epsilon },
                _ => {
                    return Err(ParamError::new(
                        format!("{key}.claim"),
                        "missing: this event has no pure ε",
                        "a claim, e.g. { kind = \"rdp\", order = 2.0, epsilon = 0.5 } or { kind = \"approx_dp\", epsilon = 1.0, delta = 1e-5, conversion = \"improved\", order = 10.0 }",
                    ))
                }
            },
        };
        check_series(c, &key, &d.series)?;
        let mut entry = Entry::new(d.series.clone(), event, guarantee);
        entry.conditions.push(DECLARED.into());
        entry.conditions.extend(d.conditions.iter().cloned());
        entry.verify(1e-9).map_err(|e| {
            ParamError::new(
                format!("{key}.claim"),
                format!("not implied by the declared event: {e}"),
                "a claim no tighter than the event gives",
            )
        })?;
        entries.push(entry);
    }
    Ok(entries)
}

/// The `KEY=VALUE` pairs of a `[[privacy]]` series (`"mechanism=mine, epsilon=0.1"`).
fn series_pairs(series: &str) -> Vec<(&str, &str)> {
    series
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (p, ""),
        })
        .collect()
}

/// Whether a series value names a TOML value: equal text, or equal numbers.
fn names_value(text: &str, v: &toml::Value) -> bool {
    let shown = match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if shown == text {
        return true;
    }
    let number = |v: &toml::Value| match v {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        _ => None,
    };
    matches!((text.parse::<f64>(), number(v)), (Ok(a), Some(b)) if a == b)
}

/// A `[[privacy]]` series must name what the figure draws: `KEY=VALUE` pairs whose
/// keys are grid keys, `[params]` keys or string columns, a grid key's value one of
/// its grid values and a parameter's its value (a string column's values are known
/// only from the command's rows: [`check_series_rows`]). A misspelt series would
/// leave the real series without a ledger entry.
fn check_series(c: &Config, key: &str, series: &str) -> Result<(), ParamError> {
    let strings: Vec<&str> = c
        .columns
        .iter()
        .filter(|col| col.kind == ColumnType::String)
        .map(|col| col.name.as_str())
        .collect();
    let allowed = || {
        let mut keys: Vec<String> = c.grid.keys().cloned().collect();
        keys.extend(c.params.keys().cloned());
        keys.extend(strings.iter().map(|s| s.to_string()));
        format!(
            "KEY=VALUE pairs separated by commas, KEY one of: {} (grid keys, [params] keys, string columns)",
            keys.join(", ")
        )
    };
    let bad = |what: String| ParamError::new(format!("{key}.series"), what, allowed());
    let pairs = series_pairs(series);
    if pairs.is_empty() {
        return Err(bad("empty".into()));
    }
    for (k, v) in pairs {
        if v.is_empty() {
            return Err(bad(format!("{k:?} is not KEY=VALUE")));
        }
        if let Some(values) = c.grid.get(k) {
            let listed = values
                .as_array()
                .map(|a| a.iter().any(|x| names_value(v, x)));
            if listed == Some(false) {
                return Err(bad(format!("{k} = {v} is not a value of grid.{k}")));
            }
        } else if let Some(p) = c.params.get(k) {
            if !names_value(v, p) {
                return Err(bad(format!("{k} = {v}, but params.{k} = {p}")));
            }
        } else if !strings.contains(&k) {
            return Err(bad(format!(
                "{k:?} names no grid key, parameter or string column"
            )));
        }
    }
    Ok(())
}

/// A declaration the command's rows contradict (a `[[privacy]]` series naming a
/// value no row has): bad input, exit 2; found before anything is written.
#[derive(Debug, thiserror::Error)]
#[error("{key}: {message}")]
pub struct DeclarationError {
    pub key: String,
    pub message: String,
}

/// Every string-column value a `[[privacy]]` series names appears in the rows, and
/// every value of the plotted series column is covered by some entry (else its
/// curve would be drawn without a ledger entry).
fn check_series_rows(c: &Config, data: &Table) -> Result<(), DeclarationError> {
    let values = |col: &str| -> Option<std::collections::BTreeSet<String>> {
        let j = data.col(col).ok()?;
        Some((0..data.rows.len()).map(|i| data.s(i, j)).collect())
    };
    for (i, d) in c.privacy.iter().enumerate() {
        for (k, v) in series_pairs(&d.series) {
            if c.grid.contains_key(k) || c.params.contains_key(k) {
                continue;
            }
            if let Some(seen) = values(k) {
                if !seen.contains(v) {
                    return Err(DeclarationError {
                        key: format!("privacy[{i}].series"),
                        message: format!(
                            "{:?} names {k} = {v:?}, which no row of the command has (its values: {}); a misspelt series would leave the real one without a ledger entry",
                            d.series,
                            seen.into_iter().collect::<Vec<_>>().join(", ")
                        ),
                    });
                }
            }
        }
    }
    if let Some(col) = &c.plot.series {
        if c.columns
            .iter()
            .any(|x| &x.name == col && x.kind == ColumnType::String)
        {
            for value in values(col).unwrap_or_default() {
                let covered = c.privacy.iter().any(|d| {
                    let pairs = series_pairs(&d.series);
                    !pairs.iter().any(|(k, _)| k == col)
                        || pairs.iter().any(|(k, v)| k == col && *v == value)
                });
                if !covered {
                    return Err(DeclarationError {
                        key: "privacy".into(),
                        message: format!(
                            "the series {col} = {value:?} has no [[privacy]] entry (series = \"{col}={value}\"; mechanism = \"non_private\" for a baseline)"
                        ),
                    });
                }
            }
        }
    }
    Ok(())
}

/// An external figure's `[[privacy]]` template that cannot be filled from a run's parameters.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct TemplateError(pub String);

fn from_toml<T: serde::de::DeserializeOwned>(t: &toml::Table) -> Result<T, TemplateError> {
    let json = serde_json::to_value(t).map_err(|e| TemplateError(e.to_string()))?;
    serde_json::from_value(json).map_err(|e| TemplateError(e.to_string()))
}

/// Replaces every string value of an event or claim that is a product or
/// quotient of numbers and `$KEY`s of `[params]` (e.g. `"2/$epsilon"`,
/// `"$epsilon"`) by its value, so a declared event follows a `--set` of the
/// parameters it depends on. Other strings (a conversion's name) stay as they are.
fn substitute(t: &toml::Table, params: &toml::Table) -> Result<toml::Table, TemplateError> {
    fn value(v: &toml::Value, params: &toml::Table) -> Result<toml::Value, TemplateError> {
        Ok(match v {
            toml::Value::String(s) if s.contains('$') => toml::Value::Float(expr(s, params)?),
            toml::Value::Table(t) => toml::Value::Table(substitute(t, params)?),
            toml::Value::Array(a) => toml::Value::Array(
                a.iter()
                    .map(|x| value(x, params))
                    .collect::<Result<_, _>>()?,
            ),
            other => other.clone(),
        })
    }
    t.iter()
        .map(|(k, v)| Ok((k.clone(), value(v, params)?)))
        .collect()
}

/// `a * b / c …` of numbers and `$KEY`s, left to right.
fn expr(s: &str, params: &toml::Table) -> Result<f64, TemplateError> {
    let term = |t: &str| -> Result<f64, TemplateError> {
        let t = t.trim();
        if let Some(k) = t.strip_prefix('$') {
            match params.get(k) {
                Some(toml::Value::Float(f)) => Ok(*f),
                Some(toml::Value::Integer(i)) => Ok(*i as f64),
                _ => Err(TemplateError(format!(
                    "\"{s}\": `${k}` is not a number in [params]"
                ))),
            }
        } else {
            t.parse::<f64>()
                .map_err(|_| TemplateError(format!("\"{s}\": `{t}` is neither a number nor $KEY")))
        }
    };
    let mut acc = 1.0;
    let mut op = '*';
    let mut start = 0;
    for (i, ch) in s.char_indices().chain([(s.len(), '*')]) {
        if ch == '*' || ch == '/' {
            let x = term(&s[start..i])?;
            acc = if op == '*' { acc * x } else { acc / x };
            op = ch;
            start = i + 1;
        }
    }
    Ok(acc)
}

/// Registered external specs, by id and columns: a `Spec` is `'static`, so each
/// distinct external figure of a process is leaked once (a few hundred bytes).
static SPECS: OnceLock<Mutex<Vec<&'static Spec>>> = OnceLock::new();

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn leak_list(v: Vec<String>) -> &'static [&'static str] {
    Box::leak(
        v.into_iter()
            .map(leak)
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    )
}

/// The registry row of an external figure: its id, columns, overlay and notes.
pub fn spec(c: &Config, id: &str) -> &'static Spec {
    let data = c.data_columns();
    let summary = c.summary_columns();
    let title = c
        .title
        .clone()
        .unwrap_or_else(|| format!("{id} (external)"));
    let mut specs = SPECS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(s) = specs.iter().find(|s| {
        s.id == id
            && s.title == title
            && s.data_columns
                .get()
                .iter()
                .copied()
                .eq(data.iter().map(String::as_str))
            && s.summary_columns
                .get()
                .iter()
                .copied()
                .eq(summary.iter().map(String::as_str))
            && s.overlay
                .series
                .iter()
                .copied()
                .eq(c.plot.series.iter().map(String::as_str))
            && s.overlay.x == c.plot.x
    }) {
        return s;
    }
    let notes = toml::to_string(&toml::toml! {
        paper = "your own mechanism (external figure)"
        figure = "beyond the papers"
        label = (id)
        status = "external: rows from the user's command"
        claim = (format!("Rows written by `{}`; privacy as declared in the config (marked \"declared by the user\" in the ledger).", c.command.join(" ")))
        matches = (match &c.compare { Some(cmp) => format!("Drawn beside privpost's {} with the same seed.", cmp.figure), None => "—".to_string() })
        differs = "—"
    })
    .unwrap_or_default();
    let spec: &'static Spec = Box::leak(Box::new(Spec {
        id: leak(id.to_string()),
        title: leak(title),
        config: "",
        config_text: "",
        notes: leak(notes),
        validate,
        schema: SCHEMA,
        plot: plot::draw,
        data_columns: Columns::Listed(leak_list(data)),
        summary_columns: Columns::Listed(leak_list(summary)),
        overlay: Overlay {
            x: leak(c.plot.x.clone()),
            y: leak(format!("{}_mean", c.plot.y)),
            series: leak_list(c.plot.series.iter().cloned().collect()),
            x_label: leak(c.plot.x.clone()),
            y_label: leak(format!("{} (mean)", c.plot.y)),
        },
        rate: None,
    }));
    specs.push(spec);
    spec
}

/// The registry row of an external figure folder, from its manifest's resolved config.
pub fn spec_of_manifest(manifest: &serde_json::Value) -> Option<&'static Spec> {
    if manifest.pointer("/details/kind")?.as_str()? != KIND {
        return None;
    }
    let id = manifest.get("figure")?.as_str()?;
    let table: toml::Table =
        serde_json::from_value(manifest.get("resolved_config")?.clone()).ok()?;
    let c: Config = deserialize(&table).ok()?;
    Some(spec(&c, id))
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
            std::fs::read(f)
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
