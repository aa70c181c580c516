//! An external figure's registry row, built once per config (its columns, overlay and plot from the declarations) and kept for the process; the row a manifest names; and the templates of its command and rows.

use super::{
    deserialize, plot, validate, Columns, Config, Mutex, OnceLock, Overlay, Spec, KIND, SCHEMA,
};
use crate::results::manifest::Manifest;

/// Registered external specs, by id and columns: a `Spec` is `'static`, so each
/// distinct external figure of a process is leaked once (a few hundred bytes).
pub(super) static SPECS: OnceLock<Mutex<Vec<&'static Spec>>> = OnceLock::new();

pub(super) fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

pub(super) fn leak_list(v: Vec<String>) -> &'static [&'static str] {
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
pub fn spec_of_manifest(manifest: &Manifest) -> Option<&'static Spec> {
    if manifest.details.pointer("/kind")?.as_str()? != KIND {
        return None;
    }
    let id = manifest.figure.as_str();
    let table: toml::Table = serde_json::from_value(manifest.resolved_config.clone()).ok()?;
    let c: Config = deserialize(&table).ok()?;
    Some(spec(&c, id))
}

/// An external figure's `[[privacy]]` template that cannot be filled from a run's parameters.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct TemplateError(pub String);

pub(super) fn from_toml<T: serde::de::DeserializeOwned>(
    t: &toml::Table,
) -> Result<T, TemplateError> {
    let json = serde_json::to_value(t).map_err(|e| TemplateError(e.to_string()))?;
    serde_json::from_value(json).map_err(|e| TemplateError(e.to_string()))
}

/// Replaces every string value of an event or claim that is a product or
/// quotient of numbers and `$KEY`s of `[params]` (e.g. `"2/$epsilon"`,
/// `"$epsilon"`) by its value, so a declared event follows a `--set` of the
/// parameters it depends on. Other strings (a conversion's name) stay as they are.
pub(super) fn substitute(
    t: &toml::Table,
    params: &toml::Table,
) -> Result<toml::Table, TemplateError> {
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
pub(super) fn expr(s: &str, params: &toml::Table) -> Result<f64, TemplateError> {
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
