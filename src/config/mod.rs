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
    pub fn new(
        key: impl Into<String>,
        message: impl Into<String>,
        allowed: impl Into<String>,
    ) -> Self {
        Self {
            key: key.into(),
            message: message.into(),
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
    pub value: toml::Value,
    pub text: String,
}

impl Override {
    /// Parses `key=value`; the value is read as TOML (`3`, `0.5`, `[0.1, 1]`,
    /// `"text"`), and as a plain string if it is not valid TOML (`tight`).
    pub fn parse(arg: &str) -> Result<Self, ConfigError> {
        let err = |message: String| ConfigError {
            file: "--set".into(),
            key: None,
            message,
            allowed: Some("KEY=VALUE, e.g. --set epsilon=0.5 or --set epsilon=[0.1,1]".into()),
        };
        let (key, value) = arg
            .split_once('=')
            .ok_or_else(|| err(format!("`{arg}` has no `=`")))?;
        let key = key.trim();
        if key.is_empty() || key.split('.').any(|p| p.trim().is_empty()) {
            return Err(err(format!("`{arg}` has an empty key")));
        }
        let value_text = value.trim();
        let value = match toml::from_str::<toml::Table>(&format!("v = {value_text}")) {
            Ok(mut t) => t
                .remove("v")
                .unwrap_or(toml::Value::String(value_text.into())),
            Err(_) => toml::Value::String(value_text.into()),
        };
        Ok(Self {
            key: key.split('.').map(|s| s.trim().to_string()).collect(),
            value,
            text: arg.to_string(),
        })
    }

    fn dotted(&self) -> String {
        self.key.join(".")
    }
}

/// A config file as read: the experiment id, and the merged-but-untyped table.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub experiment: String,
    table: toml::Table,
    profiles: BTreeMap<String, toml::Table>,
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
    /// Experiment parameters (everything but experiment/seed/description).
    pub params: toml::Table,
}

impl Resolved {
    pub fn file(&self) -> String {
        self.path.display().to_string()
    }
}

const RESERVED: [&str; 4] = ["experiment", "seed", "description", "profile"];

impl ConfigFile {
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: file.clone(),
            key: None,
            message: format!("cannot read the config: {e}"),
            allowed: None,
        })?;
        Self::parse(&text, path)
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
        })
    }

    pub fn profile_names(&self) -> impl Iterator<Item = &String> {
        self.profiles.keys()
    }

    /// Applies a profile and the overrides, then expands sweeps: an override
    /// whose value is a list, for a key whose value in the config is a single
    /// value, runs once per list element (Cartesian product over such keys).
    pub fn resolve(
        &self,
        profile: Option<&str>,
        overrides: &[Override],
    ) -> Result<Vec<Resolved>, ConfigError> {
        let file = self.path.display().to_string();
        let mut table = self.table.clone();
        if let Some(name) = profile {
            let p = self.profiles.get(name).ok_or_else(|| ConfigError {
                file: file.clone(),
                key: Some(format!("profile.{name}")),
                message: "this config has no such profile".into(),
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
        // Plain overrides first; list-for-scalar overrides become sweep axes.
        let mut axes: Vec<(&Override, Vec<toml::Value>)> = Vec::new();
        for o in overrides {
            if o.key[0] == "experiment" || o.key[0] == "profile" {
                return Err(ConfigError {
                    file,
                    key: Some(o.dotted()),
                    message: "cannot be set from the command line".into(),
                    allowed: Some("experiment parameters and seed".into()),
                });
            }
            let current = lookup(&table, &o.key);
            match (&o.value, current) {
                (toml::Value::Array(items), Some(existing)) if !existing.is_array() => {
                    if items.is_empty() {
                        return Err(ConfigError {
                            file,
                            key: Some(o.dotted()),
                            message: "a sweep needs at least one value".into(),
                            allowed: Some("a non-empty list, e.g. [0.1, 1]".into()),
                        });
                    }
                    axes.push((o, items.clone()));
                }
                _ => insert(&mut table, &o.key, o.value.clone()).map_err(|m| ConfigError {
                    file: file.clone(),
                    key: Some(o.dotted()),
                    message: m,
                    allowed: None,
                })?,
            }
        }
        let mut points: Vec<(toml::Table, Vec<String>)> = vec![(table, Vec::new())];
        for (o, values) in &axes {
            let mut next = Vec::new();
            for (t, labels) in &points {
                for v in values {
                    let mut t = t.clone();
                    insert(&mut t, &o.key, v.clone()).map_err(|m| ConfigError {
                        file: file.clone(),
                        key: Some(o.dotted()),
                        message: m,
                        allowed: None,
                    })?;
                    let mut labels = labels.clone();
                    labels.push(format!("{}={}", o.dotted(), v));
                    next.push((t, labels));
                }
            }
            points = next;
        }
        points
            .into_iter()
            .map(|(t, labels)| self.finish(t, profile, overrides, labels))
            .collect()
    }

    fn finish(
        &self,
        mut table: toml::Table,
        profile: Option<&str>,
        overrides: &[Override],
        labels: Vec<String>,
    ) -> Result<Resolved, ConfigError> {
        let file = self.path.display().to_string();
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
                Some(labels.join(","))
            },
            params: table,
        })
    }
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

fn insert(table: &mut toml::Table, key: &[String], value: toml::Value) -> Result<(), String> {
    let Some((first, rest)) = key.split_first() else {
        return Err("empty key".into());
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
        _ => Err(format!("`{first}` is not a table")),
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

/// Deserialises experiment parameters into a schema, turning serde's messages
/// into a `ParamError` that names the key.
pub fn deserialize<T: serde::de::DeserializeOwned>(params: &toml::Table) -> Result<T, ParamError> {
    params.clone().try_into().map_err(|e: toml::de::Error| {
        let text = e.to_string();
        let text = text.trim();
        // toml reports the path as a trailing "in `key`" line; unknown fields
        // carry the field name and the allowed list in the message itself.
        if let Some(rest) = text.strip_prefix("unknown field `") {
            let name = rest.split('`').next().unwrap_or("?").to_string();
            let allowed = rest.split_once("expected ").map(|(_, a)| a.to_string());
            return ParamError {
                key: name,
                message: "unknown key".into(),
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
            return ParamError {
                key,
                message: format!("unknown value \"{value}\""),
                allowed: Some(allowed.trim_start_matches("one of ").to_string()),
            };
        }
        ParamError {
            key,
            message,
            allowed: None,
        }
    })
}

pub mod check;

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

    fn file() -> ConfigFile {
        ConfigFile::parse(TEXT, Path::new("x.toml")).unwrap()
    }

    #[test]
    fn profile_and_overrides_apply_in_order() {
        let o = Override::parse("epsilon=0.25").unwrap();
        let r = file().resolve(Some("smoke"), &[o]).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].params["epsilon"].as_float(), Some(0.25));
        assert_eq!(r[0].seed, 7);
        let r = file().resolve(Some("smoke"), &[]).unwrap();
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
        let r = f.resolve(Some("smoke"), &[]).unwrap();
        let data = r[0].params["data"].as_table().unwrap();
        assert_eq!(data["preset"].as_str(), Some("iraq"));
        assert_eq!(data["base_events"].as_float(), Some(2.0));
        let o = Override::parse("data.base_events=3.0").unwrap();
        let r = f.resolve(Some("smoke"), &[o]).unwrap();
        assert_eq!(r[0].params["data"]["base_events"].as_float(), Some(3.0));
        assert_eq!(r[0].params["data"]["preset"].as_str(), Some("iraq"));
    }

    #[test]
    fn list_for_a_scalar_key_is_a_sweep_and_for_a_list_key_a_replacement() {
        let sweep = Override::parse("epsilon=[0.1,1]").unwrap();
        let repl = Override::parse("lambdas=[3]").unwrap();
        let seeds = Override::parse("seed=[1,2,3]").unwrap();
        let r = file().resolve(None, &[sweep, repl, seeds]).unwrap();
        assert_eq!(r.len(), 6);
        assert_eq!(r[0].sweep_label.as_deref(), Some("epsilon=0.1,seed=1"));
        assert_eq!(r[5].seed, 3);
        assert!(r
            .iter()
            .all(|x| x.params["lambdas"].as_array().unwrap().len() == 1));
    }

    #[test]
    fn bare_words_are_strings_and_bad_overrides_are_errors() {
        let o = Override::parse("calibration=tight").unwrap();
        assert_eq!(o.value.as_str(), Some("tight"));
        assert!(Override::parse("novalue").is_err());
        assert!(Override::parse("=3").is_err());
        assert!(file()
            .resolve(Some("nope"), &[])
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
        let mut t = file().resolve(None, &[]).unwrap().remove(0).params;
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
            f.resolve(None, &[]).unwrap_err().key.as_deref(),
            Some("seed")
        );
    }
}
