//! The `--set` grammar: a value, a comma list, `[…]`, `range`/`linspace`/`geomspace`, parsed once into overrides (each a plain value, a sweep, or a list whose role the figure's schema decides); and how an override's value is compared with and spelled beside the config's.

use super::NOISE_KEY;
use crate::config::ConfigError;

/// One `--set dotted.key=value` override.
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    pub key: Vec<String>,
    pub value: SetValue,
    /// The argument as given, `KEY=VALUE`.
    pub text: String,
}

/// What a `--set` value means.
#[derive(Debug, Clone, PartialEq)]
pub enum SetValue {
    /// One value for the key.
    Value(toml::Value),
    /// A sweep: `a,b,c`, `range(…)`, `linspace(…)`, `geomspace(…)`.
    Sweep(Vec<toml::Value>),
    /// `[a, b]`: a sweep over the elements if the key takes one value of their
    /// shape, else the list as the key's value (decided in [`super::ConfigFile::resolve`]).
    ListOrSweep(Vec<toml::Value>),
}

/// Most values one sweep axis may have, and most points a grid may have: a
/// typo in a range step is refused instead of planning millions of runs.
pub const MAX_AXIS_VALUES: usize = 1000;

pub const MAX_GRID_POINTS: usize = 10_000;

pub(super) const SET_FORMS: &str =
    "KEY=VALUE: a TOML value (0.5, \"text\" or text, [1, 2]), a sweep \
a,b,c or [a,b,c], range(start,stop,step), linspace(start,stop,n) or geomspace(start,stop,n)";

impl Override {
    /// Parses `key=value`. The value is a TOML value (a plain word is a
    /// string: `tight`), a comma list `a,b` (a sweep), a TOML list (a sweep or
    /// a list value), or `range(start, stop[, step])` (stop excluded, as in
    /// Python and Hydra), `linspace(start, stop, n)`, `geomspace(start, stop, n)`
    /// (n log-spaced values, both ends included).
    pub fn parse(arg: &str) -> Result<Self, ConfigError> {
        let err = |message: String| ConfigError {
            file: format!("--set {arg}"),
            key: None,
            message,
            allowed: Some(SET_FORMS.into()),
        };
        let (key, value) = arg
            .split_once('=')
            .ok_or_else(|| {
                err(format!(
                    "has no `=`: write --set {}=VALUE (one argument; `--set KEY VALUE` reads VALUE as a config or figure id)",
                    arg.trim()
                ))
            })?;
        let key = key.trim();
        if key.is_empty() || key.split('.').any(|p| p.trim().is_empty()) {
            return Err(err("has an empty key".to_string()));
        }
        let value_text = value.trim();
        if value_text.is_empty() {
            return Err(err("has an empty value".to_string()));
        }
        let value = parse_set_value(value_text).map_err(|e| err(e.0))?;
        Ok(Self {
            key: key.split('.').map(|s| s.trim().to_string()).collect(),
            value,
            text: arg.to_string(),
        })
    }

    pub fn dotted(&self) -> String {
        self.key.join(".")
    }

    /// An error about this override: `--set KEY=VALUE: …`.
    pub fn error(&self, message: impl Into<String>, allowed: Option<String>) -> ConfigError {
        ConfigError {
            file: format!("--set {}", self.text),
            key: None,
            message: message.into(),
            allowed,
        }
    }
}

/// Refuses the same key twice (or a key and a key inside it): the second would
/// silently multiply or replace the first.
pub fn check_distinct(overrides: &[Override]) -> Result<(), ConfigError> {
    for (i, a) in overrides.iter().enumerate() {
        for b in &overrides[..i] {
            let n = a.key.len().min(b.key.len());
            if a.key[..n] == b.key[..n] {
                return Err(a.error(
                    format!("`{}` is already set by --set {}", a.dotted(), b.text),
                    Some("each key once; put every value of a sweep in one list, e.g. epsilon=[0.1,0.5,1,2]".into()),
                ));
            }
        }
    }
    Ok(())
}

/// A TOML value, or a plain string when the text is not valid TOML.
pub(super) fn toml_or_string(text: &str) -> toml::Value {
    match toml::from_str::<toml::Table>(&format!("v = {text}")) {
        Ok(mut t) => t.remove("v").unwrap_or(toml::Value::String(text.into())),
        Err(_) => toml::Value::String(text.into()),
    }
}

/// Splits at commas outside brackets, braces, parentheses and quotes.
pub(super) fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<char>, 0);
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{' | '(') => depth += 1,
            (None, ']' | '}' | ')') => depth -= 1,
            (None, ',') if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// A `--set` value or sweep form that cannot be read (the message says what is allowed).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct SetError(pub String);

pub(super) fn parse_set_value(text: &str) -> Result<SetValue, SetError> {
    if let Some((name, args)) = text
        .strip_suffix(')')
        .and_then(|t| t.split_once('('))
        .filter(|(name, _)| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    {
        return sweep_function(name.trim(), args).map(SetValue::Sweep);
    }
    let parts = split_top_level(text);
    if parts.len() > 1 {
        if parts.len() > MAX_AXIS_VALUES {
            return Err(SetError(format!(
                "a sweep of {} values is more than {MAX_AXIS_VALUES}",
                parts.len()
            )));
        }
        let mut values = Vec::new();
        for p in parts {
            let p = p.trim();
            if p.is_empty() {
                return Err(SetError("an empty value in the comma list".into()));
            }
            values.push(toml_or_string(p));
        }
        return Ok(SetValue::Sweep(values));
    }
    // `[paper,tight]`: a list of bare words (not TOML), read like `paper,tight`
    let value = match toml_or_string(text) {
        toml::Value::String(s) if s.starts_with('[') && s.ends_with(']') && s.len() > 2 => {
            let inner = &s[1..s.len() - 1];
            let mut items = Vec::new();
            for p in split_top_level(inner) {
                let p = p.trim();
                if p.is_empty() {
                    return Err(SetError("an empty value in the list".into()));
                }
                items.push(toml_or_string(p));
            }
            toml::Value::Array(items)
        }
        v => v,
    };
    Ok(match value {
        toml::Value::Array(items) => {
            if items.len() > MAX_AXIS_VALUES {
                return Err(SetError(format!(
                    "a list of {} values is more than {MAX_AXIS_VALUES}",
                    items.len()
                )));
            }
            SetValue::ListOrSweep(items)
        }
        v => SetValue::Value(v),
    })
}

/// Rounds to 12 significant digits, so that `range(0.1, 1, 0.1)` gives 0.3, not
/// 0.30000000000000004 (labels, folder names and the values run are the same).
pub(super) fn tidy(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    format!("{x:.11e}").parse().unwrap_or(x)
}

pub(super) fn sweep_function(name: &str, args: &str) -> Result<Vec<toml::Value>, SetError> {
    let args: Vec<&str> = args.split(',').map(str::trim).collect();
    let number = |s: &str| -> Result<f64, SetError> {
        match toml_or_string(s) {
            toml::Value::Integer(i) => Ok(i as f64),
            toml::Value::Float(x) if x.is_finite() => Ok(x),
            _ => Err(SetError(format!("{name}(…): `{s}` is not a finite number"))),
        }
    };
    let is_int = |s: &str| matches!(toml_or_string(s), toml::Value::Integer(_));
    let count = |s: &str| -> Result<usize, SetError> {
        match toml_or_string(s) {
            toml::Value::Integer(n) if (2..=MAX_AXIS_VALUES as i64).contains(&n) => Ok(n as usize),
            _ => Err(SetError(format!(
                "{name}(…): the count `{s}` must be an integer from 2 to {MAX_AXIS_VALUES}"
            ))),
        }
    };
    match (name, args.len()) {
        ("range", 2 | 3) => {
            let (start, stop) = (number(args[0])?, number(args[1])?);
            let step = if args.len() == 3 {
                number(args[2])?
            } else {
                1.0
            };
            if step == 0.0 {
                return Err(SetError("range(…): the step must not be 0".to_string()));
            }
            let steps = (stop - start) / step;
            if args.len() == 2 && steps > 0.0 && steps <= 1.0 {
                // printed where the override is parsed: once per command
                // (`plan::Selection::parse`)
                errln!(
                    "warning: range({}, {}) has the default step 1 and gives the one value {start}; for a grid write range({}, {}, STEP) or linspace({}, {}, N)",
                    args[0], args[1], args[0], args[1], args[0], args[1]
                );
            }
            if steps <= 0.0 {
                return Err(SetError(format!(
                    "range({start:?}, {stop:?}, {step:?}) is empty: stop must lie beyond start in the step's direction"
                )));
            }
            // stop is excluded; a stop within rounding of a grid point is excluded too
            let n = (steps - 1e-9).ceil();
            if n > MAX_AXIS_VALUES as f64 {
                let count = if n < 1e15 {
                    format!("{}", n as u64)
                } else {
                    format!("{n:e}")
                };
                return Err(SetError(format!(
                    "range({start:?}, {stop:?}, {step:?}) has {count} values, more than {MAX_AXIS_VALUES}"
                )));
            }
            let ints = args.iter().all(|a| is_int(a));
            Ok((0..n as usize)
                .map(|k| {
                    let x = start + k as f64 * step;
                    if ints {
                        toml::Value::Integer(x as i64)
                    } else {
                        toml::Value::Float(tidy(x))
                    }
                })
                .collect())
        }
        ("linspace", 3) | ("geomspace", 3) => {
            let (a, b, n) = (number(args[0])?, number(args[1])?, count(args[2])?);
            if name == "geomspace" && (a <= 0.0 || b <= 0.0) {
                return Err(SetError(
                    "geomspace(…): start and stop must be > 0".to_string(),
                ));
            }
            Ok((0..n)
                .map(|k| {
                    let t = k as f64 / (n - 1) as f64;
                    let x = if name == "linspace" {
                        a + t * (b - a)
                    } else {
                        (a.ln() + t * (b.ln() - a.ln())).exp()
                    };
                    toml::Value::Float(tidy(x))
                })
                .collect())
        }
        ("range" | "linspace" | "geomspace", k) => Err(SetError(format!(
            "{name}(…) takes {} arguments, found {k}",
            if name == "range" { "2 or 3" } else { "3" }
        ))),
        _ => Err(SetError(format!("unknown sweep function `{name}`"))),
    }
}

/// The nesting depth of lists: 0 for a scalar, 1 for `[1, 2]`, 2 for `[[1], [2]]`.
pub(super) fn list_depth(v: &toml::Value) -> usize {
    match v {
        toml::Value::Array(items) => 1 + items.first().map_or(0, list_depth),
        _ => 0,
    }
}

/// How a sweep point's value is shown: strings without quotes.
/// Whether a plain override leaves the config's value as it is (numbers
/// compared as numbers; an absent `noise` is `"float"`).
pub(super) fn unchanged(old: Option<&toml::Value>, key: &[String], new: &toml::Value) -> bool {
    match (old, new) {
        (Some(a), b) => same_value(a, b),
        (None, toml::Value::String(s)) => key == [NOISE_KEY] && s == "float",
        (None, _) => false,
    }
}

/// An override's value in the type of the config's value it replaces: an
/// integer where the config has a float becomes that float (`epsilon=1` over
/// `epsilon = 0.1` runs, keys the cache and labels exactly like `epsilon=1.0`).
pub(super) fn like(old: Option<&toml::Value>, new: toml::Value) -> toml::Value {
    use toml::Value::{Array, Float, Integer};
    match (old, new) {
        (Some(Float(_)), Integer(i)) => Float(i as f64),
        (Some(Array(o)), Array(items)) if !o.is_empty() => {
            Array(items.into_iter().map(|x| like(o.first(), x)).collect())
        }
        (_, new) => new,
    }
}

/// Equal as config values: numbers as numbers, lists item by item.
pub(super) fn same_value(a: &toml::Value, b: &toml::Value) -> bool {
    use toml::Value::{Array, Float, Integer};
    match (a, b) {
        (Integer(i), Float(f)) | (Float(f), Integer(i)) => *i as f64 == *f,
        (Array(x), Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q))
        }
        (toml::Value::Table(x), toml::Value::Table(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, p)| y.get(k).is_some_and(|q| same_value(p, q)))
        }
        _ => a == b,
    }
}

/// A plain override's value in its run's folder label: strings bare, lists
/// as `[a,b]` without spaces.
pub(super) fn compact(v: &toml::Value) -> String {
    match v {
        toml::Value::Array(items) => {
            format!(
                "[{}]",
                items.iter().map(compact).collect::<Vec<_>>().join(",")
            )
        }
        other => show(other),
    }
}

/// A value as a label shows it, one spelling per number: an integral float
/// is written like the integer (`1.0` and `1` label the same point).
pub(super) fn show(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Float(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{x:.0}"),
        toml::Value::Array(items) => {
            // numbers as above, strings quoted as TOML writes them
            let item = |v: &toml::Value| match v {
                toml::Value::String(_) => v.to_string(),
                other => show(other),
            };
            format!(
                "[{}]",
                items.iter().map(item).collect::<Vec<_>>().join(", ")
            )
        }
        // a float far from 1 in scientific form (1e-300, not 300 digits)
        toml::Value::Float(x) if *x != 0.0 && !(1e-4..1e15).contains(&x.abs()) => format!("{x:e}"),
        other => other.to_string(),
    }
}
