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

mod set;
pub use set::{check_distinct, Override, SetError, SetValue, MAX_AXIS_VALUES, MAX_GRID_POINTS};

mod file;
pub use file::ConfigFile;

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

/// The key of the noise mode (`check_noise`).
pub const NOISE_KEY: &str = "noise";

/// The noise mode of resolved parameters (after `check_noise`).
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
pub mod release;
pub mod shape;

#[cfg(test)]
mod tests {
    use super::set::show;
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
