//! An external figure's declarations checked before anything runs: the grid (its size and cells), the declared columns, the plot and its series, and the privacy blocks (the ledger they declare); and the rows a task wrote, checked against the declared series.

use super::{
    simple, Cell, ColumnType, Config, Entry, Event, Guarantee, Ledger, ParamError, Table, DECLARED,
};

use super::spec::{from_toml, substitute};

/// The largest number of tasks a grid may have.
pub const MAX_TASKS: usize = 1_000_000;

pub(super) fn check_grid(c: &Config) -> Result<(), ParamError> {
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
pub(super) fn grid_cell(v: &toml::Value) -> Option<Cell> {
    match v {
        toml::Value::Integer(i) => Some(Cell::Int(*i)),
        toml::Value::Float(f) if f.is_finite() => Some(Cell::Float(*f)),
        toml::Value::String(s) if !s.contains(['\n', '\r']) => Some(Cell::Str(s.clone())),
        toml::Value::Boolean(b) => Some(Cell::Str(b.to_string())),
        _ => None,
    }
}

pub(super) fn check_columns(c: &Config) -> Result<(), ParamError> {
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

pub(super) fn check_plot(c: &Config) -> Result<(), ParamError> {
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
                "an event of the ledger's vocabulary (docs/bring-your-own.md, \"Your privacy events\"): mechanism = laplace, gaussian, poisson_subsampled_gaussian, random_allocation, sampled_with_replacement_gaussian, subsampled_barker, rdp_curve, gibbs_posterior, one_posterior_sample, smoothed_hellinger, pure_epsilon, non_private, compose, repeat",
            )
        })?;
        let event = event
            .resolve_samples()
            .and_then(|e| e.validate().map(|()| e))
            .map_err(|e| {
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
pub(super) fn series_pairs(series: &str) -> Vec<(&str, &str)> {
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
pub(super) fn names_value(text: &str, v: &toml::Value) -> bool {
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
pub(super) fn check_series(c: &Config, key: &str, series: &str) -> Result<(), ParamError> {
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
pub(super) fn check_series_rows(c: &Config, data: &Table) -> Result<(), DeclarationError> {
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
