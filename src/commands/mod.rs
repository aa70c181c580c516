//! The CLI verbs, one file each: `run`, `check`, `list`, `plot`, `combine`,
//! `cache`, `merge`, `slurm`, `account`, `data`, `vcor` (`completions` is generated from the parser in main.rs). Each file holds the verb's clap arguments (derived once; main.rs
//! only dispatches) and turns them into library calls. Errors keep their cause
//! chain; their kind maps to the exit code: bad input 2, a failure while running 1.

pub mod account;
mod account_event;
mod account_mh;
pub mod account_types;
pub mod audit;
mod audit_samples;
pub mod cache;
pub mod check;
pub mod combine;
pub mod data;
pub mod gallery;
pub mod list;
pub mod merge;
pub mod plot;
pub mod run;
pub mod slurm;
pub mod vcor;

use std::path::{Path, PathBuf};

use crate::config::{ConfigError, ConfigFile, Override, ParamError, Resolved};
use crate::experiments::{self, Plan, Spec};
use crate::runner::estimate;
use crate::runner::human_duration;

/// Writes one line to standard output. A write error (a full disk, a closed
/// pipe) is a failure with a message, never a panic as with `println!`; a
/// reader that stopped reading (`privpost list | head -1`) ends the command
/// quietly.
pub fn write_out(args: std::fmt::Arguments) -> Result<(), CommandError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out
        .write_fmt(args)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => Err(CommandError::failed(format!(
            "cannot write to standard output: {e}"
        ))),
    }
}

/// `println!` that returns a [`CommandError`] from the enclosing function when
/// standard output cannot be written.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::commands::write_out(format_args!(""))?
    };
    ($($t:tt)*) => {
        $crate::commands::write_out(format_args!($($t)*))?
    };
}

/// A command's failure: bad input (exit 2) or a failure while running (exit 1),
/// with its cause chain.
#[derive(Debug)]
pub enum CommandError {
    Input(anyhow::Error),
    Failed(anyhow::Error),
}

impl CommandError {
    /// Bad input with a message.
    pub fn input(
        message: impl std::fmt::Display + std::fmt::Debug + Send + Sync + 'static,
    ) -> Self {
        CommandError::Input(anyhow::Error::msg(message))
    }

    /// A failure while running, with a message.
    pub fn failed(
        message: impl std::fmt::Display + std::fmt::Debug + Send + Sync + 'static,
    ) -> Self {
        CommandError::Failed(anyhow::Error::msg(message))
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            CommandError::Input(_) => 2,
            CommandError::Failed(_) => 1,
        }
    }

    /// The error and its causes, outermost first.
    pub fn error(&self) -> &anyhow::Error {
        match self {
            CommandError::Input(e) | CommandError::Failed(e) => e,
        }
    }
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.error())
    }
}

impl From<ConfigError> for CommandError {
    fn from(e: ConfigError) -> Self {
        CommandError::Input(e.into())
    }
}

impl From<crate::runner::RunError> for CommandError {
    /// A NaN the inputs produced is bad input (exit 2); anything else a failure (exit 1).
    fn from(e: crate::runner::RunError) -> Self {
        match e {
            crate::runner::RunError::NotANumber { .. } => CommandError::Input(e.into()),
            // the user's own command failed (external figures): bad input, exit 2
            crate::runner::RunError::Task { ref source, .. }
                if source.is::<crate::experiments::external::UserTaskError>() =>
            {
                CommandError::Input(e.into())
            }
            // the rows contradict the config's declarations (external figures)
            crate::runner::RunError::Summary { ref source, .. }
                if source.is::<crate::experiments::external::DeclarationError>() =>
            {
                CommandError::Input(e.into())
            }
            e => CommandError::Failed(e.into()),
        }
    }
}

/// A command-line value that is not one the flag allows (the message says what is).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ArgError(pub String);

/// Refuses an output folder that cannot be written (exit 2), before any work:
/// creates it if needed and writes and removes a probe file.
/// An integer flag's value, also written in scientific notation (`1e6`,
/// `2.5e3`) when that is a whole number in range: `--iterations 1e6`.
pub fn integer_arg<T: TryFrom<u64>>(text: &str) -> Result<T, ArgError> {
    let t = text.trim().replace('_', "");
    let n: u64 = match t.parse::<u64>() {
        Ok(n) => n,
        Err(_) => {
            let x: f64 = t
                .parse()
                .map_err(|_| ArgError(format!("{text:?} is not an integer (e.g. 1000, 1e6)")))?;
            if !(x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x < 2f64.powi(63)) {
                return Err(ArgError(format!("{text:?} is not a whole number ≥ 0")));
            }
            x as u64
        }
    };
    T::try_from(n).map_err(|_| ArgError(format!("{text:?} is too large for this flag")))
}

pub fn check_writable(out: &Path) -> Result<(), CommandError> {
    let bad = |e: std::io::Error| {
        CommandError::input(format!(
            "--out {}: cannot write there ({e}); allowed: a folder this user can create and write",
            out.display()
        ))
    };
    std::fs::create_dir_all(out).map_err(bad)?;
    let probe = out.join(format!(".privpost-probe-{}", crate::results::owner_tag()));
    std::fs::write(&probe, b"").map_err(bad)?;
    std::fs::remove_file(&probe).map_err(bad)
}

/// Every figure folder a run will write under `out` (`<paper>/<figure>[@point]`,
/// their paper folders, and `out` itself) must be a folder or creatable: a file in
/// the way is refused here, before anything is prepared or computed (exit 2).
/// Creates nothing; [`check_writable`] probes `out` itself.
pub fn check_targets(out: &Path, planned: &[Planned]) -> Result<(), CommandError> {
    for p in planned {
        let dir = crate::runner::output_dir(out, &p.resolved);
        for d in dir.ancestors() {
            if d.exists() && !d.is_dir() {
                return Err(CommandError::input(format!(
                    "--out {}: {} is a file, where {} needs a folder (allowed: an output folder whose <paper>/<figure> paths are folders or absent)",
                    out.display(),
                    d.display(),
                    p.resolved.experiment
                )));
            }
            if d == out {
                break;
            }
        }
    }
    Ok(())
}

/// A config resolved and validated into a plan (nothing prepared yet).
pub struct Planned {
    pub spec: &'static Spec,
    pub resolved: Resolved,
    pub plan: Box<dyn Plan>,
}

impl Planned {
    /// The run's cost before preparing ([`estimate::plan_cost`]).
    pub fn cost(&self) -> Option<estimate::Cost> {
        let r = &self.resolved;
        estimate::plan_cost(
            &r.experiment,
            self.plan.cost(),
            r.profile.is_none() && r.overrides.is_empty(),
        )
    }

    /// `figure@point`: the folder below the output root.
    pub fn name(&self) -> String {
        self.resolved.name()
    }
}

/// The estimate lines of runs given as (name, figure id, cost if known) with
/// `jobs` workers: a line per run, the total, the calibration machine. Shared
/// by `check` (before preparing) and `run` (after).
pub fn estimate_lines(
    runs: impl IntoIterator<Item = (String, String, Option<estimate::Cost>)>,
    jobs: usize,
) -> Vec<String> {
    let mut lines = vec![format!(
        "estimated wall time with {jobs} jobs, if no task is cached:"
    )];
    let (mut total, mut count) = (Some(0.0), 0);
    for (name, id, cost) in runs {
        let seconds = cost.and_then(|c| estimate::wall_seconds(&id, c, jobs));
        total = total.zip(seconds).map(|(t, s)| t + s);
        count += 1;
        lines.push(format!(
            "  {name}: {}",
            seconds.map_or_else(
                || "no estimate (its cost is known once its data is prepared, and `run` prints it then; an external figure has no calibrated rate)".to_string(),
                |s| format!("about {}", human_duration(s))
            )
        ));
    }
    if count > 1 {
        lines.push(match total {
            Some(t) => format!("  total: about {}", human_duration(t)),
            None => "  total: unknown (a run has no estimate yet)".to_string(),
        });
    }
    lines.push(format!(
        "  (cost model calibrated on {})",
        estimate::CALIBRATED_ON
    ));
    lines
}

/// Prints the estimated wall time of planned runs (before preparing).
pub fn print_estimates(planned: &[Planned], jobs: usize) -> Result<(), CommandError> {
    let runs = planned
        .iter()
        .map(|p| (p.name(), p.resolved.experiment.clone(), p.cost()));
    for line in estimate_lines(runs, jobs) {
        crate::outln!("{line}");
    }
    Ok(())
}

/// Every `*.toml` under `dir`, sorted.
pub fn all_configs(dir: &Path) -> Result<Vec<PathBuf>, CommandError> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "toml")
                && path
                    .file_name()
                    .is_some_and(|n| n != crate::config::SHARED_PROFILES)
            {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, &mut out)
        .map_err(|e| CommandError::input(format!("{}: cannot list configs: {e}", dir.display())))?;
    out.sort();
    if out.is_empty() {
        return Err(CommandError::input(format!(
            "{}: no *.toml configs found",
            dir.display()
        )));
    }
    Ok(out)
}

/// The closest of `candidates` to `name`, if close enough to be a likely typo.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    crate::config::closest(name, candidates)
}

/// The names in an "allowed" text such as "`epsilon`, `lambdas` or `seed`".
fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Turns the command's targets into config files: a path to a `.toml`, or a
/// figure id (`foulds2016/fig2`) meaning `<config_dir>/<id>.toml`.
pub fn targets(targets: &[String], config_dir: &Path) -> Result<Vec<PathBuf>, CommandError> {
    let mut out = Vec::new();
    for t in targets {
        let path = PathBuf::from(t);
        if path.is_file() {
            out.push(path);
            continue;
        }
        // a paper id (`foulds2016`): every config of that paper
        let paper_id = t.trim_end_matches('/');
        let paper = config_dir.join(paper_id);
        let is_paper = !paper_id.contains(['/', '\\'])
            && experiments::REGISTRY
                .iter()
                .any(|s| s.id.split('/').next() == Some(paper_id));
        if is_paper && paper.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(&paper)
                .map_err(|e| CommandError::input(format!("{}: {e}", paper.display())))?
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
            found.sort();
            out.extend(found);
            continue;
        }
        if let Some(spec) = experiments::find(t.trim_end_matches(".toml")) {
            let path = config_dir.join(format!("{}.toml", spec.id));
            if !path.is_file() {
                return Err(CommandError::input(format!(
                    "{t}: figure id, but its config {} does not exist (set --configs to the folder holding configs/<paper>/<figure>.toml)",
                    path.display()
                )));
            }
            out.push(path);
            continue;
        }
        let hint = did_you_mean(t, experiments::REGISTRY.iter().map(|s| s.id))
            .map(|id| format!(" (did you mean `{id}`?)"))
            .unwrap_or_default();
        return Err(CommandError::input(format!(
            "{t}: neither a config file, a figure id nor a paper id{hint} (allowed: a path to a .toml config, a paper id such as foulds2016 for all its figures, or one of {})",
            experiments::known_ids()
        )));
    }
    Ok(out)
}

/// Parses `--set` arguments (each a `KEY=VALUE`), refusing a key given twice.
pub fn overrides(set: &[String]) -> Result<Vec<Override>, CommandError> {
    let overrides: Vec<Override> = set
        .iter()
        .map(|s| Override::parse(s))
        .collect::<Result<_, _>>()?;
    crate::config::check_distinct(&overrides)?;
    Ok(overrides)
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
    profile: Option<&str>,
    overrides: &[Override],
) -> Result<Vec<Resolved>, CommandError> {
    let seed_for_probe = 0;
    // A `[a, b]` for a key the config does not set: a list value if the
    // schema accepts a list there, else a sweep.
    let takes_list = |table: &toml::Table, o: &Override| -> bool {
        let mut t = table.clone();
        t.remove("experiment");
        t.remove("seed");
        t.remove("description");
        let crate::config::SetValue::ListOrSweep(items) = &o.value else {
            return false;
        };
        if crate::config::insert(&mut t, &o.key, toml::Value::Array(items.clone())).is_err() {
            return false;
        }
        match validate(&t, seed_for_probe) {
            Ok(_) => true,
            Err(e) => {
                !(e.message.starts_with("invalid type: sequence")
                    && (e.key == o.dotted() || o.key.last() == Some(&e.key)))
            }
        }
    };
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
    for mut resolved in resolve_all(file, external::validate, profile, overrides)? {
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
    let config = PathBuf::from(
        cmp.config
            .clone()
            .unwrap_or_else(|| format!("configs/{}.toml", spec.id)),
    );
    let file = ConfigFile::load(&config).map_err(|e| {
        CommandError::input(format!(
            "{}: key `compare.config`: {e} (allowed: the built-in figure's config, default configs/<figure>.toml from the working directory)",
            external.file()
        ))
    })?;
    let mut resolved = file
        .resolve(profile, &[], &|_, _| false)?
        .into_iter()
        .next()
        .ok_or_else(|| CommandError::input(format!("{}: no run", config.display())))?;
    // `"$KEY"` takes the external run's value (a dotted key of its config, or
    // `params.KEY`): the comparison follows a sweep point
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
                config.display(),
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
            file: format!(
                "{} (compare.set, config {})",
                external.file(),
                config.display()
            ),
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

/// `noise = "secure"` draws fresh system randomness on every run and keeps
/// nothing in the task cache, where shards meet: refused with `--shard`,
/// `merge` and `slurm` (exit 2, naming the config and the key).
pub fn refuse_secure(planned: &[Planned], verb: &str) -> Result<(), CommandError> {
    use crate::privacy::event::NoiseMode;
    match planned
        .iter()
        .find(|p| crate::config::noise_mode(&p.resolved.params) == NoiseMode::Secure)
    {
        Some(p) => Err(ConfigError {
            file: p.resolved.file(),
            key: Some(crate::config::NOISE_KEY.into()),
            message: format!(
                "noise = \"secure\" cannot be used with {verb}: a secure run draws its noise from the operating system and keeps no task in the cache, which is where shards are collected"
            ),
            allowed: Some("an unsharded `privpost run`, or noise = \"exact\" (seeded, shards and resumes like float)".into()),
        }
        .into()),
        None => Ok(()),
    }
}

/// Loads, resolves and validates configs into plans, with no side effects.
/// Stops at the first bad one, before any work.
pub fn plan(
    paths: &[PathBuf],
    profile: Option<&str>,
    set: &[String],
) -> Result<Vec<Planned>, CommandError> {
    let overrides = overrides(set)?;
    let mut planned = Vec::new();
    for path in paths {
        let mut file = ConfigFile::load(path)?;
        if file.experiment == experiments::external::KIND {
            plan_external(path, &file, profile, &overrides, &mut planned)?;
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
        for resolved in resolve_all(&file, spec.validate, profile, &overrides)? {
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
                .map_err(|e| param_error(e, &resolved.file(), &overrides))?;
            planned.push(Planned {
                spec,
                resolved,
                plan,
            });
        }
    }
    Ok(planned)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failure keeps its causes: main prints each `caused by` line.
    #[test]
    fn errors_keep_their_cause_chain() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "read-only disk");
        let e = CommandError::Failed(
            crate::results::WriteError {
                path: "results/x/data.csv".into(),
                source: io,
            }
            .into(),
        );
        assert_eq!(e.exit_code(), 1);
        let chain: Vec<String> = e.error().chain().map(|c| c.to_string()).collect();
        assert_eq!(chain, ["writing results/x/data.csv", "read-only disk"]);
        assert_eq!(CommandError::input("bad").exit_code(), 2);
    }
}
