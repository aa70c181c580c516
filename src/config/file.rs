//! A config file: its table and profiles (its own and the shared ones), resolved under a profile and the `--set` overrides into one `Resolved` per sweep point, with its folder label and its departures from the shipped config.

use super::check_distinct;
use super::{
    closest, insert, lookup, merge, BTreeMap, ConfigError, Path, PathBuf, Resolved, NOISE_KEY,
    RESERVED, SHARED_PROFILES,
};

use super::set::{
    compact, like, list_depth, same_value, show, unchanged, Override, SetValue, MAX_GRID_POINTS,
};

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

impl ConfigFile {
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let file = path.display().to_string();
        let text =
            crate::input::read_regular_text(path, crate::input::MAX_JSON_BYTES).map_err(|e| {
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
        let text = crate::input::read_found_text(&path)
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
    /// `takes_list` asks the figure's schema ([`crate::config::shape`]).
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
pub(super) fn check_noise(table: &mut toml::Table, file: &str) -> Result<(), ConfigError> {
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
