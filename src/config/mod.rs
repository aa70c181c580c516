//! Experiment configs: one TOML file per paper figure.
//!
//! Two stages, as in ripgrep's low/high args: the file and the `--set`
//! overrides are merged as plain TOML (profile first, then overrides, then
//! sweep expansion), and only then deserialised into an experiment's own
//! schema (`deny_unknown_fields`) and range-checked. Nothing downstream sees
//! raw TOML; every error names the file, the key and what is allowed.
//!
//! Layout of a config:
//! ```toml
//! experiment = "geumlek2017/fig1"   # which figure (see `privpost list`)
//! seed = 2017                        # every random stream derives from it
//! description = "…"                  # optional
//! n = 100                            # experiment parameters at top level
//! [profile.smoke]                    # overrides that keep the figure's shape
//! n = 10
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// A config problem: which file, which key, what is wrong, what is allowed.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    pub file: String,
    pub key: Option<String>,
    pub message: String,
    pub allowed: Option<String>,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(key) = &self.key {
            write!(f, ": key `{key}`")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(allowed) = &self.allowed {
            write!(f, " (allowed: {allowed})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

/// A parameter problem found by an experiment's validation, before the file is known.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamError {
    pub key: String,
    pub message: String,
    pub allowed: Option<String>,
}

impl ParamError {
    /// An unknown top-level key's error from a schema that another figure extends
    /// with its own `keys` (validated apart): those keys are allowed too.
    pub fn also_allowing(mut self, keys: &[&str]) -> Self {
        if self.message == UNKNOWN_KEY {
            if let Some(allowed) = self.allowed.as_mut().filter(|a| !a.contains("\nin `")) {
                for k in keys {
                    allowed.push_str(&format!(", `{k}`"));
                }
            }
        }
        self
    }

    pub fn new(
        key: impl Into<String>,
        message: impl Into<String>,
        allowed: impl Into<String>,
    ) -> Self {
        let mut message: String = message.into();
        // a value such as 1e308 printed by `{}` runs to 309 digits
        if message.len() > 24 {
            if let Ok(x) = message.parse::<f64>() {
                message = format!("{x:e}");
            }
        }
        Self {
            key: key.into(),
            message,
            allowed: Some(allowed.into()),
        }
    }

    pub fn in_file(self, file: &str) -> ConfigError {
        ConfigError {
            file: file.to_string(),
            key: Some(self.key),
            message: self.message,
            allowed: self.allowed,
        }
    }
}

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
    /// shape, else the list as the key's value (decided in [`ConfigFile::resolve`]).
    ListOrSweep(Vec<toml::Value>),
}

/// Most values one sweep axis may have, and most points a grid may have: a
/// typo in a range step is refused instead of planning millions of runs.
pub const MAX_AXIS_VALUES: usize = 1000;
pub const MAX_GRID_POINTS: usize = 10_000;

const SET_FORMS: &str = "KEY=VALUE: a TOML value (0.5, \"text\" or text, [1, 2]), a sweep \
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
fn toml_or_string(text: &str) -> toml::Value {
    match toml::from_str::<toml::Table>(&format!("v = {text}")) {
        Ok(mut t) => t.remove("v").unwrap_or(toml::Value::String(text.into())),
        Err(_) => toml::Value::String(text.into()),
    }
}

/// Splits at commas outside brackets, braces, parentheses and quotes.
fn split_top_level(text: &str) -> Vec<&str> {
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

fn parse_set_value(text: &str) -> Result<SetValue, SetError> {
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
fn tidy(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    format!("{x:.11e}").parse().unwrap_or(x)
}

fn sweep_function(name: &str, args: &str) -> Result<Vec<toml::Value>, SetError> {
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
fn list_depth(v: &toml::Value) -> usize {
    match v {
        toml::Value::Array(items) => 1 + items.first().map_or(0, list_depth),
        _ => 0,
    }
}

/// How a sweep point's value is shown: strings without quotes.
/// Whether a plain override leaves the config's value as it is (numbers
/// compared as numbers; an absent `noise` is `"float"`).
fn unchanged(old: Option<&toml::Value>, key: &[String], new: &toml::Value) -> bool {
    match (old, new) {
        (Some(a), b) => same_value(a, b),
        (None, toml::Value::String(s)) => key == [NOISE_KEY] && s == "float",
        (None, _) => false,
    }
}

/// An override's value in the type of the config's value it replaces: an
/// integer where the config has a float becomes that float (`epsilon=1` over
/// `epsilon = 0.1` runs, keys the cache and labels exactly like `epsilon=1.0`).
fn like(old: Option<&toml::Value>, new: toml::Value) -> toml::Value {
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
fn same_value(a: &toml::Value, b: &toml::Value) -> bool {
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
fn compact(v: &toml::Value) -> String {
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
fn show(v: &toml::Value) -> String {
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

/// A config file as read: the experiment id, and the merged-but-untyped table.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub experiment: String,
    table: toml::Table,
    profiles: BTreeMap<String, toml::Table>,
    /// The figure's shipped config, when known ([`ConfigFile::set_shipped`]):
    /// a config that differs from it is the user's own, and its runs are
    /// labelled so (never written to the paper's folder).
    shipped: Option<Box<ConfigFile>>,
}

/// A fully resolved run: profile and overrides applied, one point of a sweep.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub path: PathBuf,
    pub experiment: String,
    pub seed: u64,
    pub description: Option<String>,
    pub profile: Option<String>,
    pub overrides: Vec<String>,
    /// `key=value,…` for a sweep point, `None` for a plain run.
    pub sweep_label: Option<String>,
    /// The swept keys and this point's values (as shown in the label).
    pub sweep: Vec<(String, String)>,
    /// Experiment parameters (everything but experiment/seed/description/id).
    pub params: toml::Table,
    /// The config's own `id` (`GROUP/NAME`): its output folder instead of the
    /// figure's. For an external figure the caller moves it into `params`.
    pub id: Option<String>,
    /// The config's file stem when it differs from the figure's shipped
    /// config and declares no `id`: the folder is labelled `config=<stem>`.
    pub own_config: Option<String>,
    /// How this run departs from the paper's setting, one line each (its own
    /// config, a profile, values changed from the config's); empty for a run
    /// of the shipped config as it is. Written to the manifest and to
    /// [`DEPARTURES`], shown by the gallery and on the figure.
    pub departures: Vec<String>,
    /// The external figure this run is drawn beside (`[compare]`): a helper
    /// folder, not a sweep point of its own figure.
    pub compare_for: Option<String>,
}

/// The file of a figure folder listing its run's departures from the paper's
/// setting (absent for a paper-scale run): read by the plots and the gallery.
pub const DEPARTURES: &str = "departures.txt";

impl Resolved {
    pub fn file(&self) -> String {
        self.path.display().to_string()
    }

    /// The folder label after `@`: `config=<stem>` for an own config without
    /// an `id`, then the profile's name, then the sweep point (`key=value,…`);
    /// `None` for the shipped config at the paper's setting.
    pub fn folder_label(&self) -> Option<String> {
        let mut parts: Vec<String> = Vec::new();
        if self.id.is_none() {
            if let Some(stem) = &self.own_config {
                parts.push(format!("config={stem}"));
            }
        }
        parts.extend(self.profile.clone());
        parts.extend(self.sweep_label.clone());
        (!parts.is_empty()).then(|| parts.join(","))
    }

    /// `<id or figure>[@label]`: the folder below the output root.
    pub fn name(&self) -> String {
        let base = self.id.as_deref().unwrap_or(&self.experiment);
        match self.folder_label() {
            Some(l) => format!("{base}@{l}"),
            None => base.to_string(),
        }
    }
}

const RESERVED: [&str; 5] = ["experiment", "seed", "description", "profile", "id"];

/// The shared profiles file's name (see [`ConfigFile::shared_profiles_path`]).
pub const SHARED_PROFILES: &str = "profiles.toml";

/// The closest of `candidates` to `name`, if close enough to be a likely typo.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(name, c), c))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

impl ConfigFile {
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let file = path.display().to_string();
        let text =
            crate::input::read_input_text(path, crate::input::MAX_JSON_BYTES).map_err(|e| {
                ConfigError {
                    file: file.clone(),
                    key: None,
                    message: format!("cannot read the config: {}", e.message),
                    allowed: None,
                }
            })?;
        let mut config = Self::parse(&text, path)?;
        config.add_shared_profiles()?;
        Ok(config)
    }

    /// The shared profiles file of a configs folder: `profiles.toml` beside the
    /// paper folders (`configs/profiles.toml` for `configs/<paper>/<figure>.toml`).
    pub fn shared_profiles_path(&self) -> Option<PathBuf> {
        let dir = self.path.parent()?.parent()?;
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        Some(dir.join(SHARED_PROFILES))
    }

    /// Adds the profiles the shared file defines for this config's figure,
    /// `[NAME."<figure id>"]` tables, so that e.g. `--profile ci` need not be
    /// copied into every config. A profile of the config itself wins.
    fn add_shared_profiles(&mut self) -> Result<(), ConfigError> {
        let Some(path) = self.shared_profiles_path().filter(|p| p.is_file()) else {
            return Ok(());
        };
        let file = path.display().to_string();
        let err = |key: Option<String>, message: String| {
            ConfigError {
            file: file.clone(),
            key,
            message,
            allowed: Some(
                "[NAME.\"<figure id>\"] tables of parameter overrides, e.g. [ci.\"foulds2016/fig2\"]"
                    .into(),
            ),
        }
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| err(None, format!("cannot read the shared profiles: {e}")))?;
        let table: toml::Table = toml::from_str(&text)
            .map_err(|e| err(None, format!("not valid TOML: {}", e.to_string().trim())))?;
        for (name, figures) in table {
            let toml::Value::Table(figures) = figures else {
                return Err(err(Some(name), "expected a table of figures".into()));
            };
            for (id, overrides) in figures {
                let toml::Value::Table(overrides) = overrides else {
                    return Err(err(
                        Some(format!("{name}.\"{id}\"")),
                        "expected a table of parameter overrides".into(),
                    ));
                };
                if id == self.experiment {
                    self.profiles.entry(name.clone()).or_insert(overrides);
                }
            }
        }
        Ok(())
    }

    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let file = path.display().to_string();
        let mut table: toml::Table = toml::from_str(text).map_err(|e| ConfigError {
            file: file.clone(),
            key: None,
            message: format!("not valid TOML: {}", e.to_string().trim()),
            allowed: None,
        })?;
        let experiment = match table.get("experiment") {
            Some(toml::Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(ConfigError {
                    file,
                    key: Some("experiment".into()),
                    message: format!("expected a string, found {}", other.type_str()),
                    allowed: Some(
                        "an id listed by `privpost list`, e.g. \"geumlek2017/fig1\"".into(),
                    ),
                })
            }
            None => {
                return Err(ConfigError {
                    file,
                    key: Some("experiment".into()),
                    message: "missing".into(),
                    allowed: Some(
                        "an id listed by `privpost list`, e.g. \"geumlek2017/fig1\"".into(),
                    ),
                })
            }
        };
        let mut profiles = BTreeMap::new();
        match table.remove("profile") {
            None => {}
            Some(toml::Value::Table(t)) => {
                for (name, value) in t {
                    match value {
                        toml::Value::Table(p) => {
                            profiles.insert(name, p);
                        }
                        other => {
                            return Err(ConfigError {
                                file,
                                key: Some(format!("profile.{name}")),
                                message: format!("expected a table, found {}", other.type_str()),
                                allowed: Some(
                                    "[profile.NAME] tables of parameter overrides".into(),
                                ),
                            })
                        }
                    }
                }
            }
            Some(other) => {
                return Err(ConfigError {
                    file,
                    key: Some("profile".into()),
                    message: format!("expected a table, found {}", other.type_str()),
                    allowed: Some("[profile.NAME] tables of parameter overrides".into()),
                })
            }
        }
        Ok(Self {
            path: path.to_path_buf(),
            experiment,
            table,
            profiles,
            shipped: None,
        })
    }

    /// Sets the figure's shipped config (its text and the path it ships as),
    /// against which [`ConfigFile::resolve`] tells the user's own config from
    /// the paper's. Profiles the user's file gained from a shared profiles file
    /// are given to the shipped one too, so they compare equal.
    pub fn set_shipped(&mut self, text: &str, path: &Path) -> Result<(), ConfigError> {
        let mut shipped = Self::parse(text, path)?;
        for (name, p) in &self.profiles {
            shipped
                .profiles
                .entry(name.clone())
                .or_insert_with(|| p.clone());
        }
        self.shipped = Some(Box::new(shipped));
        Ok(())
    }

    /// The top-level keys (with `profile` applied to both) in which this
    /// config differs from the shipped one, sorted; `None` without one.
    fn differs_from_shipped(
        &self,
        table: &toml::Table,
        profile: Option<&str>,
    ) -> Option<Vec<String>> {
        let shipped = self.shipped.as_ref()?;
        let mut theirs = shipped.table.clone();
        if let Some(p) = profile.and_then(|name| shipped.profiles.get(name)) {
            for (k, v) in p {
                merge(&mut theirs, k, v);
            }
        }
        let ignore = |t: &toml::Table| -> toml::Table {
            t.iter()
                .filter(|(k, v)| {
                    let bookkeeping = ["description", "id", "profile"].contains(&k.as_str());
                    let default_noise = k.as_str() == NOISE_KEY && v.as_str() == Some("float");
                    !bookkeeping && !default_noise
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        };
        let (ours, theirs) = (ignore(table), ignore(&theirs));
        let mut keys: Vec<String> = ours
            .keys()
            .chain(theirs.keys())
            .filter(|k| match (ours.get(*k), theirs.get(*k)) {
                (Some(a), Some(b)) => !same_value(a, b),
                _ => true,
            })
            .cloned()
            .collect();
        keys.sort();
        keys.dedup();
        Some(keys)
    }

    pub fn profile_names(&self) -> impl Iterator<Item = &String> {
        self.profiles.keys()
    }

    /// Applies a profile and the overrides, then expands sweeps (the Cartesian
    /// product of the axes, in the order given). A `[a, b]` value sweeps when
    /// the key's value is not a list of that shape: for a key the config sets,
    /// its value decides (`epsilon = 1` → a sweep; `lambdas = [2, 15]` → a
    /// replacement, `[[2], [15]]` → a sweep); for a key it does not set,
    /// `takes_list` asks the figure's schema ([`shape`]).
    pub fn resolve(
        &self,
        profile: Option<&str>,
        overrides: &[Override],
        takes_list: &dyn Fn(&Override) -> bool,
    ) -> Result<Vec<Resolved>, ConfigError> {
        let file = self.path.display().to_string();
        let mut table = self.table.clone();
        if let Some(name) = profile {
            let p = self.profiles.get(name).ok_or_else(|| ConfigError {
                file: file.clone(),
                key: Some(format!("profile.{name}")),
                message: format!(
                    "this config has no such profile{}",
                    closest(name, self.profiles.keys().map(String::as_str))
                        .map(|c| format!(" (did you mean `{c}`?)"))
                        .unwrap_or_default()
                ),
                allowed: Some(format!(
                    "[{}]",
                    self.profiles.keys().cloned().collect::<Vec<_>>().join(", ")
                )),
            })?;
            for (k, v) in p {
                if RESERVED.contains(&k.as_str()) && k != "seed" {
                    return Err(ConfigError {
                        file,
                        key: Some(format!("profile.{name}.{k}")),
                        message: "cannot be changed by a profile".into(),
                        allowed: Some("experiment parameters and seed".into()),
                    });
                }
                merge(&mut table, k, v);
            }
        }
        check_distinct(overrides)?;
        let own = self.differs_from_shipped(&table, profile);
        // the config's values (profile applied), against which an override
        // or a sweep point is a departure
        let config_table = table.clone();
        // Plain overrides first; sweeps become axes. A plain override that
        // changes the config's value labels the run like a sweep point, so it
        // never replaces the figure's default folder.
        let mut fixed: Vec<(String, String)> = Vec::new();
        let mut set_plain = |table: &mut toml::Table, o: &Override, v: toml::Value| {
            let v = like(lookup(table, &o.key), v);
            if !unchanged(lookup(table, &o.key), &o.key, &v) {
                fixed.push((o.dotted(), compact(&v)));
            }
            insert(table, &o.key, v).map_err(|m| o.error(m.0, None))
        };
        let mut axes: Vec<(&Override, Vec<toml::Value>)> = Vec::new();
        for o in overrides {
            if ["experiment", "profile", "description"].contains(&o.key[0].as_str()) {
                return Err(o.error(
                    format!("`{}` cannot be set from the command line", o.dotted()),
                    Some("experiment parameters and seed".into()),
                ));
            }
            let sweep = match &o.value {
                SetValue::Value(v) => {
                    set_plain(&mut table, o, v.clone())?;
                    continue;
                }
                SetValue::Sweep(values) => values.clone(),
                SetValue::ListOrSweep(items) => {
                    let whole = toml::Value::Array(items.clone());
                    let is_sweep = match lookup(&table, &o.key) {
                        Some(existing @ toml::Value::Array(_)) => {
                            items.iter().all(|i| i.is_array())
                                && list_depth(&whole) == list_depth(existing) + 1
                        }
                        Some(_) => true,
                        None => !takes_list(o),
                    };
                    if !is_sweep {
                        set_plain(&mut table, o, whole)?;
                        continue;
                    }
                    items.clone()
                }
            };
            if sweep.is_empty() {
                return Err(o.error(
                    "a sweep needs at least one value",
                    Some("a non-empty list, e.g. [0.1, 1]".into()),
                ));
            }
            axes.push((o, sweep));
        }
        let points: usize = axes
            .iter()
            .try_fold(1usize, |acc, (_, v)| acc.checked_mul(v.len()))
            .unwrap_or(usize::MAX);
        if points > MAX_GRID_POINTS {
            return Err(ConfigError {
                file: "--set".into(),
                key: None,
                message: format!("the sweep has {points} points, more than {MAX_GRID_POINTS}"),
                allowed: Some("fewer values per key, or several commands".into()),
            });
        }
        let n_fixed = fixed.len();
        let mut grid: Vec<(toml::Table, Vec<(String, String)>)> = vec![(table, fixed)];
        for (o, values) in &axes {
            let mut next = Vec::new();
            for (t, labels) in &grid {
                for v in values {
                    let mut t = t.clone();
                    let v = &like(lookup(&t, &o.key), v.clone());
                    insert(&mut t, &o.key, v.clone()).map_err(|m| o.error(m.0, None))?;
                    let mut labels = labels.clone();
                    labels.push((o.dotted(), show(v)));
                    next.push((t, labels));
                }
            }
            grid = next;
        }
        grid.into_iter()
            .map(|(t, labels)| {
                let mut departures = Vec::new();
                if let Some(keys) = own.as_ref().filter(|k| !k.is_empty()) {
                    let shipped = self.shipped.as_ref().map(|s| s.path.display().to_string());
                    departures.push(format!(
                        "own config {}: differs from the shipped {} in {}",
                        self.path.display(),
                        shipped.unwrap_or_default(),
                        keys.iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                if let Some(p) = profile {
                    departures.push(format!("{p} profile (reduced, not the paper's scale)"));
                }
                // plain overrides that changed a value, then the swept values
                // that differ from the config's (a point equal to it is not a departure)
                for (k, shown) in
                    labels
                        .iter()
                        .take(n_fixed)
                        .chain(labels.iter().skip(n_fixed).filter(|(k, _)| {
                            let key: Vec<String> = k.split('.').map(str::to_string).collect();
                            match (lookup(&config_table, &key), lookup(&t, &key)) {
                                (old, Some(new)) => !unchanged(old, &key, new),
                                _ => true,
                            }
                        }))
                {
                    let key: Vec<String> = k.split('.').map(str::to_string).collect();
                    let was = lookup(&config_table, &key)
                        .map_or_else(|| "its default".to_string(), compact);
                    departures.push(format!("{k} = {shown} (config: {was})"));
                }
                let own_stem = own.as_ref().filter(|k| !k.is_empty()).map(|_| {
                    self.path
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default()
                });
                let mut r = self.finish(t, profile, overrides, labels)?;
                r.own_config = own_stem;
                r.departures = departures;
                Ok(r)
            })
            .collect()
    }

    /// The resolved config of a point as TOML text (what `check --resolved` prints).
    pub fn to_toml(resolved: &Resolved) -> String {
        let mut t = toml::Table::new();
        t.insert(
            "experiment".into(),
            toml::Value::String(resolved.experiment.clone()),
        );
        t.insert("seed".into(), toml::Value::Integer(resolved.seed as i64));
        if let Some(d) = &resolved.description {
            t.insert("description".into(), toml::Value::String(d.clone()));
        }
        for (k, v) in &resolved.params {
            t.insert(k.clone(), v.clone());
        }
        toml::to_string(&t).unwrap_or_default()
    }

    fn finish(
        &self,
        mut table: toml::Table,
        profile: Option<&str>,
        overrides: &[Override],
        labels: Vec<(String, String)>,
    ) -> Result<Resolved, ConfigError> {
        // a bad seed from --set is blamed on the --set
        let file = overrides.iter().find(|o| o.key == ["seed"]).map_or_else(
            || self.path.display().to_string(),
            |o| format!("--set {}", o.text),
        );
        table.remove("experiment");
        let seed = match table.remove("seed") {
            Some(toml::Value::Integer(s)) if s >= 0 => s as u64,
            Some(other) => {
                return Err(ConfigError {
                    file,
                    key: Some("seed".into()),
                    message: format!("invalid value {other}"),
                    allowed: Some("an integer ≥ 0".into()),
                })
            }
            None => {
                return Err(ConfigError {
                    file,
                    key: Some("seed".into()),
                    message: "missing".into(),
                    allowed: Some("an integer ≥ 0".into()),
                })
            }
        };
        let noise_file = overrides
            .iter()
            .find(|o| o.key == [NOISE_KEY])
            .map_or_else(|| file.clone(), |o| format!("--set {}", o.text));
        check_noise(&mut table, &noise_file)?;
        let id = match table.remove("id") {
            None => None,
            Some(toml::Value::String(s))
                if s.split('/').count() == 2
                    && s.split('/').all(|p| {
                        !p.is_empty()
                            && !p.starts_with('.')
                            && p.chars()
                                .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
                    }) =>
            {
                Some(s)
            }
            Some(other) => {
                return Err(ConfigError {
                    file,
                    key: Some("id".into()),
                    message: format!("invalid value {other}"),
                    allowed: Some(
                        "\"GROUP/NAME\" of letters, digits, `_`, `-`, `.` (the output folder <out>/GROUP/NAME)"
                            .into(),
                    ),
                })
            }
        };
        let description = match table.remove("description") {
            None => None,
            Some(toml::Value::String(s)) => Some(s),
            Some(other) => {
                return Err(ConfigError {
                    file,
                    key: Some("description".into()),
                    message: format!("expected a string, found {}", other.type_str()),
                    allowed: Some("a string".into()),
                })
            }
        };
        Ok(Resolved {
            path: self.path.clone(),
            experiment: self.experiment.clone(),
            seed,
            description,
            profile: profile.map(str::to_string),
            overrides: overrides.iter().map(|o| o.text.clone()).collect(),
            sweep_label: if labels.is_empty() {
                None
            } else {
                Some(
                    labels
                        .iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect::<Vec<_>>()
                        .join(","),
                )
            },
            sweep: labels,
            params: table,
            id,
            own_config: None,
            departures: Vec::new(),
            compare_for: None,
        })
    }
}

/// The `noise` key every figure takes ([`NoiseMode`]): one of the three modes,
/// else exit 2 naming the key; `"float"` (the default) is removed, so that a
/// config that spells out the default has the same run key and outputs.
fn check_noise(table: &mut toml::Table, file: &str) -> Result<(), ConfigError> {
    use crate::privacy::event::NoiseMode;
    let Some(value) = table.get(NOISE_KEY) else {
        return Ok(());
    };
    let allowed = Some("\"float\" (default, the papers' noise), \"exact\" (CKS20 discrete noise from the seeded stream) or \"secure\" (the same from the operating system's random source)".to_string());
    let mode = match value {
        toml::Value::String(s) => NoiseMode::parse(s).ok_or_else(|| ConfigError {
            file: file.to_string(),
            key: Some(NOISE_KEY.into()),
            message: format!(
                "unknown noise mode \"{s}\"{}",
                closest(s, NoiseMode::ALL.iter().map(|m| m.as_str()))
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default()
            ),
            allowed: allowed.clone(),
        })?,
        other => {
            return Err(ConfigError {
                file: file.to_string(),
                key: Some(NOISE_KEY.into()),
                message: format!("expected a string, found {}", other.type_str()),
                allowed,
            })
        }
    };
    if mode == NoiseMode::Float {
        table.remove(NOISE_KEY);
    }
    Ok(())
}

/// The key of the noise mode ([`check_noise`]).
pub const NOISE_KEY: &str = "noise";

/// The noise mode of resolved parameters (after [`check_noise`]).
pub fn noise_mode(params: &toml::Table) -> crate::privacy::event::NoiseMode {
    params
        .get(NOISE_KEY)
        .and_then(|v| v.as_str())
        .and_then(crate::privacy::event::NoiseMode::parse)
        .unwrap_or_default()
}

fn lookup<'a>(table: &'a toml::Table, key: &[String]) -> Option<&'a toml::Value> {
    let (first, rest) = key.split_first()?;
    let v = table.get(first)?;
    if rest.is_empty() {
        Some(v)
    } else {
        v.as_table().and_then(|t| lookup(t, rest))
    }
}

/// Sets a dotted key, creating the tables on the way.
pub fn insert(table: &mut toml::Table, key: &[String], value: toml::Value) -> Result<(), SetError> {
    let Some((first, rest)) = key.split_first() else {
        return Err(SetError("empty key".to_string()));
    };
    if rest.is_empty() {
        table.insert(first.clone(), value);
        return Ok(());
    }
    let entry = table
        .entry(first.clone())
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    match entry {
        toml::Value::Table(t) => insert(t, rest, value),
        _ => Err(SetError(format!("`{first}` is not a table"))),
    }
}

/// Sets `key` to `value`; when both are tables (e.g. `[profile.smoke.data]` over
/// `[data]`), merges key by key instead of replacing the whole table.
fn merge(table: &mut toml::Table, key: &str, value: &toml::Value) {
    match (table.get_mut(key), value) {
        (Some(toml::Value::Table(old)), toml::Value::Table(new)) => {
            for (k, v) in new {
                merge(old, k, v);
            }
        }
        _ => {
            table.insert(key.to_string(), value.clone());
        }
    }
}

/// The largest integer a config may hold (counts and sizes), except seeds.
/// A typo of three zeros stays a refusal instead of a memory abort or a
/// week-long run; larger plans are refused by the plan-size check.
pub const MAX_CONFIG_INTEGER: i64 = 10_000_000;

/// Every number in a config: floats finite (no config key documents `inf` or
/// `nan`, and a NaN would switch off every `x > limit` guard), integers at
/// most [`MAX_CONFIG_INTEGER`] unless the key is a seed (`seed`, `*_seed`).
pub fn check_numbers(table: &toml::Table, prefix: &str) -> Result<(), ParamError> {
    fn walk(v: &toml::Value, key: &str, leaf: &str) -> Result<(), ParamError> {
        match v {
            toml::Value::Float(x) if !x.is_finite() => Err(ParamError::new(
                key,
                format!("{x}"),
                "finite numbers (no config key accepts inf or nan)",
            )),
            toml::Value::Integer(i)
                if !(leaf == "seed" || leaf.ends_with("_seed")) && *i > MAX_CONFIG_INTEGER =>
            {
                Err(ParamError::new(
                    key,
                    format!("{i}"),
                    format!("integers up to {MAX_CONFIG_INTEGER} (counts and sizes; a seed may be any integer ≥ 0)"),
                ))
            }
            toml::Value::Array(items) => items.iter().try_for_each(|x| walk(x, key, leaf)),
            toml::Value::Table(t) => t.iter().try_for_each(|(k, x)| {
                let dotted = if key.is_empty() { k.clone() } else { format!("{key}.{k}") };
                walk(x, &dotted, k)
            }),
            _ => Ok(()),
        }
    }
    table.iter().try_for_each(|(k, v)| {
        let dotted = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        walk(v, &dotted, k)
    })
}

/// Deserialises experiment parameters into a schema, turning serde's messages
/// into a `ParamError` that names the key.
pub fn deserialize<T: serde::de::DeserializeOwned>(params: &toml::Table) -> Result<T, ParamError> {
    check_numbers(params, "")?;
    let mut params = params.clone();
    // an integer written as a whole float (`repeats = 1e3`): converted where the
    // schema asks for an integer, and only there (a float key keeps its value, so
    // run keys and resolved configs do not change)
    for _ in 0..256 {
        match params.clone().try_into::<T>() {
            // the integers converted from whole floats meet the same limit
            // (`sweeps = 1e8` had slipped past the one `sweeps = 100000000` meets)
            Ok(v) => return check_numbers(&params, "").map(|()| v),
            Err(e) => {
                if params.contains_key(NOISE_KEY) && e.to_string().contains("unknown field `noise`")
                {
                    return Err(ParamError::new(
                        NOISE_KEY,
                        format!(
                            "noise = {}: this figure has no additive mechanism; its releases (posterior draws, tests, the exponential mechanism) are float-only",
                            params[NOISE_KEY]
                        ),
                        "\"float\" (the default)",
                    ));
                }
                if !whole_floats_to_integers(&mut params, &e.to_string()) {
                    return Err(param_error_of(e));
                }
            }
        }
    }
    params.try_into().map_err(param_error_of)
}

/// The integer types serde names in "expected …" for integer schema fields.
const INTEGER_TYPES: [&str; 8] = ["u8", "u16", "u32", "u64", "usize", "i32", "i64", "isize"];

/// If `error` is "invalid type: floating point `X`, expected <an integer type>"
/// at a key, turns the whole floats at that key (a value, or a list's elements)
/// into integers and says whether anything changed.
fn whole_floats_to_integers(params: &mut toml::Table, error: &str) -> bool {
    let text = error.trim();
    let Some((message, key)) = text.rsplit_once("\nin `") else {
        return false;
    };
    let integer_expected = message.contains("invalid type: floating point")
        && INTEGER_TYPES
            .iter()
            .any(|t| message.trim_end().ends_with(&format!("expected {t}")));
    if !integer_expected {
        return false;
    }
    let path: Vec<&str> = key.trim_end_matches('`').split('.').collect();
    let mut table = &mut *params;
    for part in &path[..path.len() - 1] {
        match table.get_mut(*part) {
            Some(toml::Value::Table(t)) => table = t,
            _ => return false,
        }
    }
    let whole = |x: f64| x.fract() == 0.0 && x.abs() <= 9_007_199_254_740_992.0;
    let mut changed = false;
    let mut convert = |v: &mut toml::Value| {
        if let toml::Value::Float(x) = *v {
            if whole(x) {
                *v = toml::Value::Integer(x as i64);
                changed = true;
            }
        }
    };
    match table.get_mut(path[path.len() - 1]) {
        Some(toml::Value::Array(items)) => items.iter_mut().for_each(&mut convert),
        Some(v) => convert(v),
        None => {}
    }
    changed
}

/// The message of a key the schema does not have.
const UNKNOWN_KEY: &str = "unknown key";

/// serde's message as a [`ParamError`] naming the key, with Rust's type names
/// said in words ("expected an integer", "expected a number").
fn param_error_of(e: toml::de::Error) -> ParamError {
    let text = e.to_string();
    let text = text.trim();
    // toml reports the path as a trailing "in `key`" line; unknown fields
    // carry the field name and the allowed list in the message itself.
    if let Some(rest) = text.strip_prefix("unknown field `") {
        let name = rest.split('`').next().unwrap_or("?").to_string();
        let allowed = rest.split_once("expected ").map(|(_, a)| a.to_string());
        return ParamError {
            key: name,
            message: UNKNOWN_KEY.into(),
            allowed,
        };
    }
    if let Some(rest) = text.strip_prefix("missing field `") {
        let name = rest.split('`').next().unwrap_or("?").to_string();
        return ParamError {
            key: name,
            message: "missing".into(),
            allowed: None,
        };
    }
    let (message, key) = match text.rsplit_once("\nin `") {
        Some((m, k)) => (m.trim().to_string(), k.trim_end_matches('`').to_string()),
        None => (text.to_string(), "?".to_string()),
    };
    // a named choice (a serde enum): "unknown variant `x`, expected …"
    if let Some((value, allowed)) = message
        .strip_prefix("unknown variant `")
        .and_then(|rest| rest.split_once("`, expected "))
    {
        let names: Vec<&str> = allowed.split('`').skip(1).step_by(2).collect();
        let hint = closest(value, names)
            .map(|c| format!(" (did you mean `{c}`?)"))
            .unwrap_or_default();
        return ParamError {
            key,
            message: format!("unknown value \"{value}\"{hint}"),
            allowed: Some(allowed.trim_start_matches("one of ").to_string()),
        };
    }
    let mut message = message;
    for t in INTEGER_TYPES {
        message = message.replace(&format!("expected {t}"), "expected an integer");
    }
    let message = message.replace("expected f64", "expected a number");
    ParamError {
        key,
        message,
        allowed: None,
    }
}

pub mod check;
pub mod shape;

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"
experiment = "geumlek2017/fig1"
seed = 7
epsilon = 1.0
lambdas = [2.0, 15.0]
[profile.smoke]
epsilon = 0.5
"#;

    fn no_list(_: &Override) -> bool {
        false
    }

    fn file() -> ConfigFile {
        ConfigFile::parse(TEXT, Path::new("x.toml")).unwrap()
    }

    #[test]
    fn profile_and_overrides_apply_in_order() {
        let o = Override::parse("epsilon=0.25").unwrap();
        let r = file().resolve(Some("smoke"), &[o], &no_list).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].params["epsilon"].as_float(), Some(0.25));
        assert_eq!(r[0].seed, 7);
        let r = file().resolve(Some("smoke"), &[], &no_list).unwrap();
        assert_eq!(r[0].params["epsilon"].as_float(), Some(0.5));
    }

    /// A named choice (a serde enum) that is not one of its names: the key, the
    /// value and every allowed name.
    #[test]
    fn unknown_choices_name_the_value_and_every_allowed_one() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(rename_all = "snake_case")]
        #[allow(dead_code)]
        enum Thing {
            Alpha,
            BetaGamma,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct S {
            k: Vec<Thing>,
        }
        let t: toml::Table = toml::from_str("k = [\"alpha\", \"c\"]").unwrap();
        let e = deserialize::<S>(&t).unwrap_err();
        assert_eq!(e.key, "k");
        assert_eq!(e.message, "unknown value \"c\"");
        assert_eq!(e.allowed.as_deref(), Some("`alpha` or `beta_gamma`"));
    }

    #[test]
    fn profile_tables_merge_key_by_key() {
        let text = "experiment = \"x/y\"\nseed = 1\n[data]\npreset = \"iraq\"\nbase_events = 9.0\n[profile.smoke.data]\nbase_events = 2.0\n";
        let f = ConfigFile::parse(text, Path::new("x.toml")).unwrap();
        let r = f.resolve(Some("smoke"), &[], &no_list).unwrap();
        let data = r[0].params["data"].as_table().unwrap();
        assert_eq!(data["preset"].as_str(), Some("iraq"));
        assert_eq!(data["base_events"].as_float(), Some(2.0));
        let o = Override::parse("data.base_events=3.0").unwrap();
        let r = f.resolve(Some("smoke"), &[o], &no_list).unwrap();
        assert_eq!(r[0].params["data"]["base_events"].as_float(), Some(3.0));
        assert_eq!(r[0].params["data"]["preset"].as_str(), Some("iraq"));
    }

    #[test]
    fn list_for_a_scalar_key_is_a_sweep_and_for_a_list_key_a_replacement() {
        let sweep = Override::parse("epsilon=[0.1,1]").unwrap();
        let repl = Override::parse("lambdas=[3]").unwrap();
        let seeds = Override::parse("seed=[1,2,3]").unwrap();
        let r = file()
            .resolve(None, &[sweep, repl, seeds], &no_list)
            .unwrap();
        assert_eq!(r.len(), 6);
        // the plain replacement labels the run too, before the axes
        assert_eq!(
            r[0].sweep_label.as_deref(),
            Some("lambdas=[3],epsilon=0.1,seed=1")
        );
        assert_eq!(r[5].seed, 3);
        assert!(r
            .iter()
            .all(|x| x.params["lambdas"].as_array().unwrap().len() == 1));
    }

    #[test]
    fn bare_words_are_strings_and_bad_overrides_are_errors() {
        let o = Override::parse("calibration=tight").unwrap();
        assert_eq!(
            o.value,
            SetValue::Value(toml::Value::String("tight".into()))
        );
        assert!(Override::parse("novalue").is_err());
        assert!(Override::parse("=3").is_err());
        assert!(file()
            .resolve(Some("nope"), &[], &no_list)
            .unwrap_err()
            .to_string()
            .contains("smoke"));
    }

    #[test]
    fn schema_errors_name_the_key() {
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct S {
            epsilon: f64,
            lambdas: Vec<f64>,
        }
        let mut t = file()
            .resolve(None, &[], &no_list)
            .unwrap()
            .remove(0)
            .params;
        t.insert("epsilon".into(), toml::Value::String("x".into()));
        let e = deserialize::<S>(&t).unwrap_err();
        assert_eq!(e.key, "epsilon");
        t.insert("typo".into(), toml::Value::Integer(1));
        t.insert("epsilon".into(), toml::Value::Float(1.0));
        let e = deserialize::<S>(&t).unwrap_err();
        assert_eq!(e.key, "typo");
        assert!(e.allowed.unwrap().contains("epsilon"));
    }

    #[test]
    fn missing_or_bad_seed_and_experiment_are_reported() {
        let e = ConfigFile::parse("seed = 1", Path::new("a.toml")).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("experiment"));
        let f = ConfigFile::parse("experiment = \"x\"\nseed = -1", Path::new("a.toml")).unwrap();
        assert_eq!(
            f.resolve(None, &[], &no_list).unwrap_err().key.as_deref(),
            Some("seed")
        );
    }

    fn values(o: &str) -> Vec<String> {
        match Override::parse(o).unwrap().value {
            SetValue::Sweep(v) | SetValue::ListOrSweep(v) => v.iter().map(show).collect(),
            SetValue::Value(v) => vec![show(&v)],
        }
    }

    #[test]
    fn sweep_forms_expand_to_tidy_values() {
        assert_eq!(values("e=range(0.1,0.5,0.1)"), ["0.1", "0.2", "0.3", "0.4"]);
        assert_eq!(values("e=range(1,4)"), ["1", "2", "3"]);
        assert_eq!(values("e=range(5,1,-2)"), ["5", "3"]);
        assert_eq!(values("e=linspace(0,1,3)"), ["0", "0.5", "1"]);
        assert_eq!(values("e=geomspace(0.01,10,4)"), ["0.01", "0.1", "1", "10"]);
        assert_eq!(values("m=tight,loose"), ["tight", "loose"]);
        assert_eq!(values("m=[[1,2],[3]]"), ["[1, 2]", "[3]"]);
        assert_eq!(values("m=\"a,b\""), ["a,b"]);
        for bad in [
            "e=range(0,1,0)",
            "e=range(1,0,0.1)",
            "e=range(0,1,1e-9)",
            "e=geomspace(0,1,3)",
            "e=linspace(0,1,1)",
            "e=linspace(0,1)",
            "e=spline(1,2)",
            "e=1,,2",
            "e=",
            "e=range(0,nan,1)",
        ] {
            let err = Override::parse(bad).unwrap_err();
            assert!(err.file.starts_with("--set "), "{bad}: {err}");
        }
    }

    #[test]
    fn a_list_sweeps_unless_the_key_takes_a_list_of_that_shape() {
        let r = |o: &str, list: bool| {
            let o = Override::parse(o).unwrap();
            file()
                .resolve(None, &[o], &|_| list)
                .unwrap()
                .into_iter()
                .map(|r| r.sweep_label.unwrap_or_default())
                .collect::<Vec<_>>()
        };
        assert_eq!(r("epsilon=[1,2]", true), ["epsilon=1", "epsilon=2"]);
        assert_eq!(r("lambdas=[3,4]", false), ["lambdas=[3,4]"]);
        // a value equal to the config's changes nothing, so names no folder
        assert_eq!(r("lambdas=[2,15]", false), [""]);
        assert_eq!(r("epsilon=1", false), [""]);
        assert_eq!(
            r("lambdas=[[3],[4,5]]", false),
            ["lambdas=[3]", "lambdas=[4, 5]"]
        );
        // absent keys ask the schema
        assert_eq!(r("absent=[3,4]", false), ["absent=3", "absent=4"]);
        assert_eq!(r("absent=[3,4]", true), ["absent=[3,4]"]);
    }

    #[test]
    fn a_key_twice_and_huge_grids_are_refused() {
        let o = |s: &str| Override::parse(s).unwrap();
        let e = check_distinct(&[o("epsilon=[1,2]"), o("epsilon=3")]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--set epsilon=3: `epsilon` is already set by --set epsilon=[1,2]"),
            "{e}"
        );
        assert!(check_distinct(&[o("data.x=1"), o("data=2")]).is_err());
        assert!(check_distinct(&[o("data.x=1"), o("data.y=2")]).is_ok());
        let big = [o("a=range(0,1000)"), o("b=range(0,1000)")];
        let e = file().resolve(None, &big, &no_list).unwrap_err();
        assert!(e.message.contains("1000000 points"), "{e}");
    }
}
