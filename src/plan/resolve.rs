//! Config files → resolved runs (profile, overrides, sweeps expanded) →
//! validated plans: the one place a config becomes a plan.

use std::path::{Path, PathBuf};

use super::targets::did_you_mean;
use super::types::Planned;
use crate::config::{ConfigError, ConfigFile, Override, ParamError, Resolved};
use crate::error::CommandError;
use crate::experiments;

/// The names in an "allowed" text such as "`epsilon`, `lambdas` or `seed`".
fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// A validation error, blamed on the `--set` that introduced the key when one
/// did, with "did you mean" for an unknown key.
fn param_error(e: ParamError, file: &str, overrides: &[Override]) -> ConfigError {
    let hint = (e.message == "unknown key")
        .then(|| e.allowed.as_deref().map(backticked))
        .flatten()
        .and_then(|names| did_you_mean(&e.key, names).map(str::to_string));
    let culprit = overrides.iter().find(|o| {
        let dotted = o.dotted();
        dotted == e.key
            || o.key.last().is_some_and(|k| *k == e.key)
            || dotted.starts_with(&format!("{}.", e.key))
            || e.key.starts_with(&format!("{dotted}."))
    });
    let mut err = match culprit {
        Some(o) => ConfigError {
            file: format!("--set {} (config {file})", o.text),
            key: Some(e.key),
            message: e.message,
            allowed: e.allowed,
        },
        None => e.in_file(file),
    };
    if let Some(h) = hint {
        err.message = format!("{} (did you mean `{h}`?)", err.message);
    }
    err
}

/// Resolves a config file under `profile` and `overrides` (sweeps expanded),
/// after checking that every other profile of the file is valid too.
fn resolve_all(
    file: &ConfigFile,
    validate: experiments::Validate,
    schema: crate::config::shape::Schema,
    profile: Option<&str>,
    overrides: &[Override],
) -> Result<Vec<Resolved>, CommandError> {
    // A `[a, b]` for a key the config does not set: a sweep where the schema
    // holds a single value, else a list value (a list field; a field typed at run
    // time, such as a data source; or a key the schema lacks, refused by
    // validation with the allowed keys).
    let takes_list = |o: &Override| schema(&o.key) != crate::config::shape::Shape::Single;
    // every profile of the file must be valid, not only the one selected:
    // a typo in [profile.paper] should not wait for the paper-scale run
    for name in file.profile_names() {
        if Some(name.as_str()) == profile {
            continue;
        }
        for resolved in file.resolve(Some(name), &[], &takes_list)? {
            validate(&resolved.params, resolved.seed)
                .map_err(|e| e.in_file(&format!("{} [profile.{name}]", resolved.file())))?;
        }
    }
    Ok(file.resolve(profile, overrides, &takes_list)?)
}

/// Plans an external figure's config: its id (default `external/<file stem>`)
/// names its folder; with `compare`, the built-in figure is planned first, with
/// the external figure's seed and profile and `compare.set` on top, into
/// `<out>/<figure>@<label>`.
fn plan_external(
    path: &Path,
    file: &ConfigFile,
    profile: Option<&str>,
    overrides: &[Override],
    planned: &mut Vec<Planned>,
) -> Result<(), CommandError> {
    use experiments::external;
    let stem = path
        .file_stem()
        .map(|s| {
            s.to_string_lossy().replace(
                |c: char| !(c.is_ascii_alphanumeric() || "_-.".contains(c)),
                "_",
            )
        })
        .unwrap_or_default();
    for mut resolved in resolve_all(
        file,
        external::validate,
        external::SCHEMA,
        profile,
        overrides,
    )? {
        let file_name = resolved.file();
        let bad = |e: ParamError| param_error(e, &file_name, overrides);
        // an external figure's id is its own parameter (its folder and figure name)
        let id = resolved
            .id
            .take()
            .unwrap_or_else(|| format!("external/{stem}"));
        resolved.params.insert("id".into(), toml::Value::String(id));
        let mut c = external::parse(&resolved.params).map_err(bad)?;
        let id = c.id.clone().unwrap_or_default();
        if let Some(cmp) = c.compare.as_mut() {
            // one comparison folder per sweep point (a label the user gave too)
            let mut label = cmp
                .label
                .clone()
                .unwrap_or_else(|| format!("for={}", id.replace('/', "_")));
            if let Some(s) = &resolved.sweep_label {
                label.push(',');
                label.push_str(s);
            }
            let label = label.replace(['/', '\\', ' ', '"'], "_");
            let p = plan_compare(cmp, &label, &resolved, profile)?;
            // the plot finds the comparison by its folder's label (profile included)
            let folder = p.resolved.folder_label().unwrap_or(label);
            cmp.label = Some(folder.clone());
            if let Some(toml::Value::Table(t)) = resolved.params.get_mut("compare") {
                t.insert("label".into(), toml::Value::String(folder));
            }
            planned.push(p);
        }
        let spec = external::spec(&c, &id);
        let plan = (spec.validate)(&resolved.params, resolved.seed).map_err(bad)?;
        resolved.experiment = id;
        planned.push(Planned {
            spec,
            resolved,
            plan,
        });
    }
    Ok(())
}

fn lookup_dotted<'a>(table: &'a toml::Table, path: &[&str]) -> Option<&'a toml::Value> {
    let (first, rest) = path.split_first()?;
    let v = table.get(*first)?;
    if rest.is_empty() {
        Some(v)
    } else {
        lookup_dotted(v.as_table()?, rest)
    }
}

/// The built-in figure an external figure is drawn beside.
/// `compare.set` resolved against the external run: `"$KEY"` takes the external
/// run's value (a dotted key of its config, or `params.KEY`), so the comparison
/// follows a sweep point; returns the values and the keys followed.
fn compare_set(
    cmp: &experiments::external::CompareDecl,
    external: &Resolved,
) -> Result<(toml::Table, Vec<String>), CommandError> {
    let mut followed: Vec<String> = Vec::new();
    let mut set = toml::Table::new();
    for (k, v) in &cmp.set {
        let value = match v.as_str().and_then(|s| s.strip_prefix('$')) {
            None => v.clone(),
            Some(name) => {
                let path: Vec<&str> = name.split('.').collect();
                let found = lookup_dotted(&external.params, &path)
                    .map(|v| (name.to_string(), v))
                    .or_else(|| {
                        let mut p = vec!["params"];
                        p.extend(&path);
                        lookup_dotted(&external.params, &p).map(|v| (format!("params.{name}"), v))
                    });
                let Some((key, value)) = found else {
                    return Err(CommandError::input(format!(
                        "{}: key `compare.set.{k}`: \"${name}\" names no key of this config (allowed: \"$KEY\" for a key of [params], e.g. \"$epsilon\", or a dotted key, e.g. \"$params.epsilon\")",
                        external.file()
                    )));
                };
                followed.push(key);
                value.clone()
            }
        };
        set.insert(k.clone(), value);
    }
    Ok((set, followed))
}

fn plan_compare(
    cmp: &experiments::external::CompareDecl,
    label: &str,
    external: &Resolved,
    profile: Option<&str>,
) -> Result<Planned, CommandError> {
    let spec = experiments::find(&cmp.figure).ok_or_else(|| {
        CommandError::input(format!(
            "{}: compare.figure \"{}\" is not a built-in figure (allowed: {})",
            external.file(),
            cmp.figure,
            experiments::known_ids()
        ))
    })?;
    let config = match &cmp.config {
        Some(path) => super::ConfigRef::File(PathBuf::from(path)),
        None => super::ConfigRef::figure(spec, Some(std::path::Path::new("configs"))),
    };
    let file = config.load().map_err(|e| {
        CommandError::input(format!(
            "{}: key `compare.config`: {e} (allowed: a config file of the built-in figure; default configs/<figure>.toml from the working directory when it exists, else the built-in config)",
            external.file()
        ))
    })?;
    let mut resolved = file
        .resolve(profile, &[], &|_| false)?
        .into_iter()
        .next()
        .ok_or_else(|| CommandError::input(format!("{config}: no run")))?;
    let (set, followed) = compare_set(cmp, external)?;
    // a setting of the external run's mechanism ([params], [grid]) changed by
    // a sweep point or a --set that the comparison does not follow would pair the user's curve at one setting
    // with the built-in one at another, under one label: refused
    if let Some((key, value)) = external.sweep.iter().find(|(key, _)| {
        (key.starts_with("params.") || key.starts_with("grid.")) && !followed.contains(key)
    }) {
        let leaf = key.rsplit('.').next().unwrap_or(key);
        return Err(ConfigError {
            file: external.file(),
            key: Some("compare.set".into()),
            message: format!(
                "this run sets {key} = {value}, but the built-in {} it is drawn beside does not follow it: the pair would compare different settings under one label",
                spec.id
            ),
            allowed: Some(format!(
                "map it into the comparison, e.g. compare.set = {{ {leaf} = \"${key}\" }} (the built-in key that means the same), or run without changing {key}"
            )),
        }
        .into());
    }
    for (k, v) in &set {
        if !resolved.params.contains_key(k) {
            return Err(CommandError::input(format!(
                "{}: key `compare.set.{k}`: {} has no key `{k}` (allowed: {})",
                external.file(),
                config,
                resolved
                    .params
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        resolved.params.insert(k.clone(), v.clone());
    }
    resolved.seed = external.seed;
    resolved.sweep_label = Some(label.to_string());
    resolved.sweep = Vec::new();
    let for_id = external
        .params
        .get("id")
        .and_then(toml::Value::as_str)
        .unwrap_or(&external.experiment)
        .to_string();
    resolved.departures.push(format!(
        "drawn beside the external figure {for_id} (its seed {}{}): a comparison run, not a sweep point",
        external.seed,
        set.iter()
            .map(|(k, v)| format!(", {k} = {v}"))
            .collect::<String>()
    ));
    resolved.compare_for = Some(for_id);
    let plan = (spec.validate)(&resolved.params, resolved.seed).map_err(|e| {
        CommandError::from(ConfigError {
            file: format!("{} (compare.set, config {})", external.file(), config),
            key: Some(format!("compare.set.{}", e.key)),
            message: e.message,
            allowed: e.allowed,
        })
    })?;
    Ok(Planned {
        spec,
        resolved,
        plan,
    })
}

/// Loads, resolves and validates configs into plans, with no side effects.
/// Stops at the first bad one, before any work.
pub fn plan(
    configs: &[super::ConfigRef],
    profile: Option<&str>,
    overrides: &[Override],
) -> Result<Vec<Planned>, CommandError> {
    let mut planned = Vec::new();
    for config in configs {
        let mut file = config.load()?;
        let path = &config.path();
        if file.experiment == experiments::external::KIND {
            plan_external(path, &file, profile, overrides, &mut planned)?;
            continue;
        }
        let spec = experiments::find(&file.experiment).ok_or_else(|| {
            let hint = did_you_mean(&file.experiment, experiments::REGISTRY.iter().map(|s| s.id))
                .map(|id| format!(" (did you mean `{id}`?)"))
                .unwrap_or_default();
            ConfigError {
                file: path.display().to_string(),
                key: Some("experiment".into()),
                message: format!("unknown experiment \"{}\"{hint}", file.experiment),
                allowed: Some(format!(
                    "{}, or \"external\" (your own command)",
                    experiments::known_ids()
                )),
            }
        })?;
        file.set_shipped(spec.config_text, Path::new(spec.config))?;
        for resolved in resolve_all(&file, spec.validate, spec.schema, profile, overrides)? {
            if let Some(id) = resolved
                .id
                .as_deref()
                .filter(|id| experiments::REGISTRY.iter().any(|s| s.id == *id))
            {
                return Err(ConfigError {
                    file: resolved.file(),
                    key: Some("id".into()),
                    message: format!(
                        "\"{id}\" is a built-in figure's id: its folder holds the paper's run"
                    ),
                    allowed: Some("your own \"GROUP/NAME\", e.g. \"mystudy/adult-csv\"".into()),
                }
                .into());
            }
            let plan = (spec.validate)(&resolved.params, resolved.seed)
                .map_err(|e| param_error(e, &resolved.file(), overrides))?;
            planned.push(Planned {
                spec,
                resolved,
                plan,
            });
        }
    }
    Ok(planned)
}
