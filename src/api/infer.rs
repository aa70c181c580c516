//! `api::infer`: the posterior of a model's parameters given a private release,
//! by data-augmentation MCMC ([`crate::damcmc`]; Ju et al. 2022), written to
//! `<out>/infer/<name>/` (draws, summary, figure, manifest; swapped in whole, so
//! an interrupted or failed run leaves no half-written folder). [`prepare`]
//! reads and checks the release (a TOML file, a release a figure recorded, or a
//! value); [`infer`] samples and writes. The CLI's `infer` prints between the
//! two; the Python module's `privpost.infer` calls both. Inference is
//! post-processing of the release: it adds no privacy cost.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use serde_json::Value;

use super::error::ApiError;
use crate::config::release::{release_warnings, CountsName, InferSpec, Inference, ModelName};
use crate::damcmc::{self, Draws, ParameterSummary};
use crate::error::CommandError;
use crate::plot::trace::TraceFigure;
use crate::results::draws::KeptDraws;
use crate::results::manifest::{FolderManifest, InferManifest, InferPrivacy, Manifest};
use crate::results::table::Table;

/// Where a release comes from.
#[derive(Debug, Clone)]
pub enum ReleaseSource {
    /// A release file in TOML (docs/infer.md); `name` names the folder, else
    /// the file's stem.
    File { path: PathBuf, name: Option<String> },
    /// A release a figure recorded: its folder or manifest.json, and the
    /// release's name (needed when it recorded several).
    Recorded {
        manifest: PathBuf,
        name: Option<String>,
    },
    /// A release file's keys as a value (the Python module's dict), and the
    /// name of its folder and messages.
    Value { value: Value, name: String },
}

/// What a careful user should know of a run, by kind (the Python module issues
/// each as a warning of its own class).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarningKind {
    /// The chains have not settled (R-hat or bulk ESS).
    Convergence,
    /// A released value lies beyond what any dataset gives (a departure from the model).
    Departure,
}

/// One warning of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    pub kind: WarningKind,
    pub message: String,
}

/// A release read and checked, ready to sample.
#[derive(Debug)]
pub struct Prepared {
    pub spec: InferSpec,
    pub inference: Inference,
    /// The folder's name before it is made safe (letters, digits, `-` and `_` kept; see `target`).
    pub stem: String,
    /// What the posterior is computed from, as the manifest records it.
    pub input: String,
    /// How messages name the release (the path as given, or the value's name).
    pub shown: String,
    /// The release's own warnings (values outside every possible statistic).
    pub warnings: Vec<Warning>,
}

/// Where and how [`infer`] runs.
#[derive(Debug, Clone)]
pub struct InferOptions {
    /// The output root: the folder is `<out>/infer/<name>/`.
    pub out: PathBuf,
    /// Worker threads (default: SLURM_CPUS_PER_TASK if set, else all cores).
    pub jobs: Option<usize>,
    /// Run a release whose estimated work is above one core-hour (up to 30 core-days).
    pub allow_long: bool,
}

/// What [`infer`] wrote and found.
#[derive(Debug, Clone)]
pub struct InferOutcome {
    pub folder: PathBuf,
    pub summary: Vec<ParameterSummary>,
    pub warnings: Vec<Warning>,
    /// The fraction of record proposals accepted.
    pub acceptance: f64,
    /// The fraction of proposals that change the statistic which were accepted.
    pub move_rate: f64,
    /// The e^-ε lower bound on the record acceptance (pure-DP laws only).
    pub acceptance_bound: Option<f64>,
    /// How the records were updated: `record_wise`, `soma`, or `gibbs` (randomized
    /// response: each record's true cell from its full conditional).
    pub kernel: &'static str,
    /// The ε of a randomized-response release (the attributes' channels summed).
    pub release_epsilon: Option<f64>,
    pub wall_seconds: f64,
    pub cpu_seconds: f64,
}

/// The longest folder name taken from an input's name as it is; a longer one keeps
/// its first [`KEPT_CHARS`] characters and gains a hash of the whole.
const MAX_FOLDER_NAME: usize = 96;
const KEPT_CHARS: usize = 64;

/// The folder name of a release: its name when that is made of letters, digits,
/// `-` and `_` alone and at most [`MAX_FOLDER_NAME`] long; otherwise the name
/// reduced to those (so a file name cannot point outside `<out>/infer/`), cut to
/// [`KEPT_CHARS`], with 12 hex digits of the SHA-256 of the whole name after it.
/// So two names never share a folder by the reduction (`a.b` → `a_b-…`, `a_b` →
/// `a_b`; `é` → `release-…`) and a 300-character name fits every file system.
fn folder_name(name: &Path) -> String {
    use sha2::{Digest, Sha256};
    let stem = name.to_string_lossy().into_owned();
    let clean: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let base = if clean.trim_matches('_').is_empty() {
        "release".to_string()
    } else {
        clean.clone()
    };
    if base == stem && stem.len() <= MAX_FOLDER_NAME {
        return base;
    }
    let hash = crate::results::cache::hex(&Sha256::digest(stem.as_bytes()));
    let kept: String = base.chars().take(KEPT_CHARS).collect();
    format!("{kept}-{}", &hash[..12])
}

fn abs(p: &Path) -> String {
    std::path::absolute(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}

/// Reads and checks a release, before any work: every error names the file (or
/// the value's name) and the key.
pub fn prepare(source: &ReleaseSource) -> Result<Prepared, ApiError> {
    let missing = |p: &Path| {
        (std::fs::symlink_metadata(p).is_err()).then(|| {
            ApiError::not_found(
                "release",
                p.to_path_buf(),
                format!("{}: no such file or folder (allowed: a release file in TOML, or a figure's folder or manifest.json that records releases)", p.display()),
            )
        })
    };
    let shown = match source {
        ReleaseSource::File { path, .. } => path.display().to_string(),
        ReleaseSource::Recorded { manifest, .. } => manifest.display().to_string(),
        ReleaseSource::Value { name, .. } => name.clone(),
    };
    let (spec, inference, stem, input) = match source {
        ReleaseSource::Value { value, name } => {
            if name.is_empty() {
                return Err(ApiError::input(
                    "name",
                    "name = \"\": a non-empty name for the folder",
                ));
            }
            let (spec, inf) =
                given_spec(value, name).map_err(|e| ApiError::from_command("release", e))?;
            (spec, inf, name.clone(), format!("python: {name}"))
        }
        ReleaseSource::Recorded { manifest, name } => {
            if let Some(e) = missing(manifest) {
                return Err(e);
            }
            let (spec, inf, stem) = read_recorded(manifest, name.as_deref())
                .map_err(|e| ApiError::from_command("release", e))?;
            let input = match name {
                Some(r) => format!("{} --release {r}", abs(manifest)),
                None => abs(manifest),
            };
            (spec, inf, stem, input)
        }
        ReleaseSource::File { path, name } => {
            if let Some(e) = missing(path) {
                return Err(e);
            }
            if name.as_deref() == Some("") {
                return Err(ApiError::input(
                    "name",
                    "name = \"\": a non-empty name for the folder",
                ));
            }
            let (spec, inf) = read_spec(path).map_err(|e| ApiError::from_command("release", e))?;
            let stem = name.clone().unwrap_or_else(|| {
                path.file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default()
            });
            (spec, inf, stem, abs(path))
        }
    };
    let counts_all = matches!(
        (spec.model, spec.counts),
        (ModelName::NaiveBayes, _)
            | (
                ModelName::BetaBernoulli | ModelName::DirichletCategorical,
                CountsName::All
            )
    );
    let warnings = inference
        .release
        .as_ref()
        .map(|r| release_warnings(r, inference.model.statistic_range(), counts_all))
        .unwrap_or_default()
        .into_iter()
        .map(|message| Warning {
            kind: WarningKind::Departure,
            message,
        })
        .collect();
    Ok(Prepared {
        spec,
        inference,
        stem,
        input,
        shown,
        warnings,
    })
}

/// The folder [`infer`] writes for `prepared` under `out`.
pub fn target(prepared: &Prepared, out: &Path) -> PathBuf {
    out.join("infer")
        .join(folder_name(Path::new(&prepared.stem)))
}

/// Checks, before any work, that `prepared` may run with `options`: its
/// folder holds nothing else, its estimated work is within the cap, `out` is
/// writable. Returns the folder [`infer`] will write. [`infer`] checks it too.
pub fn check(prepared: &Prepared, options: &InferOptions) -> Result<PathBuf, ApiError> {
    let target = target(prepared, &options.out);
    check_target(&target, &prepared.input, &prepared.spec)
        .map_err(|e| ApiError::from_command("release", e))?;
    check_work(&prepared.inference, options.allow_long)
        .map_err(|e| ApiError::from_command("release", e).with_key("sampler"))?;
    crate::plan::check_writable(&options.out).map_err(|e| ApiError::from_command("out", e))?;
    Ok(target)
}

/// Samples the posterior of a prepared release and writes its folder. The
/// chains stop at their next sweep when `stop` is set (nothing is written:
/// an [`ErrorKind::Interrupted`](super::ErrorKind::Interrupted) error).
pub fn infer(
    prepared: &Prepared,
    options: &InferOptions,
    stop: &AtomicBool,
) -> Result<InferOutcome, ApiError> {
    let command = |e: CommandError| ApiError::from_command("release", e);
    let target = check(prepared, options)?;
    let inf = &prepared.inference;
    let jobs = crate::plan::jobs(options.jobs).map_err(|e| ApiError::from_command("jobs", e))?;
    let pool = crate::plan::pool(jobs).map_err(command)?;
    let clock = std::time::Instant::now();
    let cpu = cpu_seconds();
    let draws = pool
        .install(|| inf.sample(stop))
        .and_then(|d| d.check_mixing().map(|()| d));
    if stop.load(std::sync::atomic::Ordering::SeqCst) {
        return Err(ApiError::interrupted(format!(
            "{}: interrupted; nothing was written",
            prepared.shown
        )));
    }
    let draws = draws.map_err(|e| ApiError::failed(format!("{}: {e}", prepared.shown)))?;
    let seconds = clock.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    let summary = draws.summary();
    let mut warnings = prepared.warnings.clone();
    warnings.extend(
        convergence_warning(&summary, "sampler.draws").map(|message| Warning {
            kind: WarningKind::Convergence,
            message,
        }),
    );
    let bound = inf
        .release
        .as_ref()
        .and_then(|r| damcmc::acceptance_bound(&r.noise, inf.model.l1_sensitivity()));
    let texts: Vec<String> = warnings.iter().map(|w| w.message.clone()).collect();
    let outcome = Outcome {
        warnings: &texts,
        input: &prepared.input,
        spec: &prepared.spec,
        inf,
        draws: &draws,
        summary: &summary,
        bound,
        seconds,
        cpu,
    };
    write_folder(&target, &outcome).map_err(command)?;
    Ok(InferOutcome {
        folder: target,
        acceptance: draws.acceptance(),
        move_rate: draws.move_rate(),
        summary,
        warnings,
        acceptance_bound: bound,
        kernel: inf.kernel_name(),
        release_epsilon: inf.model.release_epsilon(),
        wall_seconds: seconds,
        cpu_seconds: cpu,
    })
}

/// Refuses, before any sampling, to replace a folder that holds another input's
/// posterior (or anything `infer` did not write): `input` is this run's
/// ([`input_of`]), `spec` its release (an older folder without `input` is the same
/// input when its `release_file` is this release).
fn check_target(target: &Path, input: &str, spec: &InferSpec) -> Result<(), CommandError> {
    if std::fs::symlink_metadata(target).is_err() {
        return Ok(());
    }
    let refuse = |what: String| {
        CommandError::input(format!(
            "{}: {what}; {input} would replace it (allowed: another --out, another name for the input, or remove that folder first)",
            target.display()
        ))
    };
    let held = match FolderManifest::read(target) {
        Ok(FolderManifest::Infer(m)) => m,
        _ => {
            return Err(refuse(
                "holds something `privpost infer` did not write".into(),
            ))
        }
    };
    let same = match &held.input {
        Some(theirs) => theirs == input,
        None => serde_json::to_value(spec).ok().as_ref() == Some(&held.release_file),
    };
    if same {
        return Ok(());
    }
    let theirs = held
        .input
        .clone()
        .unwrap_or_else(|| "another release".to_string());
    Err(refuse(format!(
        "holds the posterior of {}",
        crate::term::visible(&theirs)
    )))
}

/// Reads and checks the release file; every error names the file and the key.
pub fn read_spec(path: &Path) -> Result<(InferSpec, Inference), CommandError> {
    let text = crate::input::read_input_text(path, crate::input::MAX_JSON_BYTES)
        .map_err(CommandError::input)?;
    parse_spec(&text, path)
}

/// [`read_spec`] of the text of a release file `path`.
fn parse_spec(text: &str, path: &Path) -> Result<(InferSpec, Inference), CommandError> {
    let spec: InferSpec = toml::from_str(text).map_err(|e| {
        CommandError::input(format!("{}: {}", path.display(), e.to_string().trim_end()))
    })?;
    // a records file is named relative to the release file
    let base = path.parent().unwrap_or(Path::new(""));
    let inference = spec
        .check_at(base)
        .map_err(|e| CommandError::input(format!("{}: {e}", path.display())))?;
    Ok((spec, inference))
}

/// Whether `path` names a manifest: a folder (holding manifest.json) or a `.json` file.
pub fn is_manifest(path: &Path) -> bool {
    path.is_dir() || path.extension().is_some_and(|e| e == "json")
}

/// The release `name` recorded in a figure's manifest (`details.releases`),
/// checked; every error names the manifest and the release.
fn read_recorded(
    path: &Path,
    name: Option<&str>,
) -> Result<(InferSpec, Inference, String), CommandError> {
    use crate::config::release::RecordedRelease;
    let manifest = Manifest::read(path).map_err(|e| CommandError::input(e.to_string()))?;
    let file = if path.is_dir() {
        path.join("manifest.json")
    } else {
        path.to_path_buf()
    };
    let at = |what: String| CommandError::input(format!("{}: {what}", file.display()));
    let figure = &manifest.figure;
    let recorded = &manifest.details["releases"];
    if recorded.is_null() {
        return Err(at(format!(
            "details.releases: missing — {figure} records no release (allowed: the manifest of a figure that records its releases, such as ju2022/loglinear or ju2022/regression, or a release file in TOML)"
        )));
    }
    let releases: Vec<RecordedRelease> = serde_json::from_value(recorded.clone())
        .map_err(|e| at(format!("details.releases: {e}")))?;
    let names = || {
        let mut list: Vec<&str> = releases.iter().map(|r| r.name.as_str()).take(8).collect();
        if releases.len() > 8 {
            list.push("…");
        }
        list.join(", ")
    };
    let picked = match name {
        Some(n) => releases.iter().find(|r| r.name == n).ok_or_else(|| {
            at(format!(
                "--release {n}: not recorded — allowed: one of {} ({} in all)",
                names(),
                releases.len()
            ))
        })?,
        None if releases.len() == 1 => &releases[0],
        None => {
            return Err(at(format!(
                "--release: missing — {} releases are recorded; name one: {}",
                releases.len(),
                names()
            )))
        }
    };
    let inference = picked
        .spec
        .check()
        .map_err(|e| at(format!("release {}: {e}", picked.name)))?;
    let folder = file
        .parent()
        .and_then(|p| p.file_name())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok((
        picked.spec.clone(),
        inference,
        format!("{folder}-{}", picked.name),
    ))
}

/// A release given as a value: read as the same file in TOML would be (the
/// same checks and messages), messages naming it `name`.
fn given_spec(v: &serde_json::Value, name: &str) -> Result<(InferSpec, Inference), CommandError> {
    let text = toml::to_string(v).map_err(|e| {
        CommandError::input(format!("{name}: not a release file's table of keys: {e}"))
    })?;
    parse_spec(&text, Path::new(name))
}

/// Refuses, before sampling, a run whose estimated CPU time
/// ([`Inference::core_seconds`], from the measured cost of a proposal of its model,
/// law and kernel) is above one core-hour, or with `--allow-long` above 30
/// core-days; the error gives the estimate and what lowers it.
fn check_work(inf: &Inference, allow_long: bool) -> Result<(), CommandError> {
    use crate::config::release::{LONG_WORK_CAP_SECONDS, WORK_CAP_SECONDS};
    use crate::runner::human_duration;
    let seconds = inf.core_seconds();
    let cap = if allow_long {
        LONG_WORK_CAP_SECONDS
    } else {
        WORK_CAP_SECONDS
    };
    if seconds <= cap {
        return Ok(());
    }
    Err(CommandError::input(format!(
        "sampler: chains × (warmup + draws) × n = {:.3e} {} at about {:.0} ns each is about {} of one core; allowed: at most {}{} (fewer draws, warm-up or chains; the record-wise kernel where SOMA has many groups)",
        inf.proposals(),
        match inf.settings.kernel {
            crate::damcmc::Kernel::Soma => "SOMA offers",
            crate::damcmc::Kernel::RecordWise => "record proposals",
        },
        inf.proposal_ns(),
        human_duration(seconds),
        human_duration(cap),
        if allow_long {
            ""
        } else {
            ", or --allow-long for up to 30 core-days"
        }
    )))
}

/// The CPU time (user + system) this process has used, in seconds.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return f64::NAN;
    }
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    t(u.ru_utime) + t(u.ru_stime)
}

/// What a run gave, for the files.
struct Outcome<'a> {
    /// what the user should know of the release and the chains
    warnings: &'a [String],
    /// what the posterior was computed from ([`input_of`])
    input: &'a str,
    spec: &'a InferSpec,
    inf: &'a Inference,
    draws: &'a Draws,
    summary: &'a [ParameterSummary],
    bound: Option<f64>,
    seconds: f64,
    /// the process's CPU seconds (user + system) spent sampling
    cpu: f64,
}

/// draws.csv, summary.csv, the figure and the manifest, swapped in whole.
fn write_folder(target: &Path, outcome: &Outcome<'_>) -> Result<(), CommandError> {
    let tmp = crate::results::temp_dir_for(target).map_err(CommandError::failed)?;
    let written = fill(&tmp, outcome)
        .and_then(|()| crate::results::replace_dir(&tmp, target).map_err(CommandError::failed));
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    written
}

/// The folder's files, written into `tmp`.
fn fill(tmp: &Path, o: &Outcome<'_>) -> Result<(), CommandError> {
    let Outcome {
        warnings,
        input,
        spec,
        inf,
        draws,
        summary,
        bound,
        seconds,
        cpu,
    } = *o;
    let mut kept = KeptDraws::new(&[], draws.names.clone());
    for (c, chain) in draws.chains.iter().enumerate() {
        kept.push_chain(&[], c + 1, chain.iter().map(|v| v.as_slice()));
    }
    let layout = kept.layout();
    let table = kept.into_table();
    let io = |p: &Path, e: std::io::Error| CommandError::failed(format!("{}: {e}", p.display()));
    let path = tmp.join(&layout.file);
    table.write_csv(&path).map_err(|e| io(&path, e))?;
    let path = tmp.join("summary.csv");
    Table::of_records(summary)
        .write_csv(&path)
        .map_err(|e| io(&path, e))?;
    crate::plot::render_as_in(&figure(draws), tmp, "figure").map_err(CommandError::failed)?;
    let manifest = FolderManifest::Infer(Box::new(InferManifest {
        command: "infer".into(),
        privpost_version: env!("CARGO_PKG_VERSION").into(),
        input: Some(input.to_string()),
        warnings: Some(warnings.to_vec()),
        release_file: serde_json::to_value(spec).map_err(CommandError::failed)?,
        method: "data-augmentation MCMC (Ju, Awan, Gong & Rao 2022)".into(),
        kernel: inf.kernel_name().into(),
        chains: inf.settings.chains,
        warmup: inf.settings.warmup,
        seed: inf.settings.seed,
        record_acceptance: draws.acceptance(),
        record_acceptance_bound: bound,
        changing_proposals_accepted: draws.move_rate(),
        l1_sensitivity: inf.model.l1_sensitivity(),
        wall_seconds: seconds,
        cpu_seconds: cpu,
        draws: layout,
        columns: [(
            "summary.csv".to_string(),
            crate::results::record::columns::<ParameterSummary>()
                .iter()
                .map(|c| c.to_string())
                .collect(),
        )]
        .into_iter()
        .collect(),
        privacy: InferPrivacy {
            added_cost: "none".into(),
            why: "the posterior is computed from the released values alone (post-processing); the release's own guarantee is whatever its mechanism gave".into(),
        },
    }));
    crate::results::write_text(&tmp.join("manifest.json"), &manifest.to_json())
        .map_err(CommandError::failed)
}

/// The most parameters the figure draws (a panel of 360 px each): 3,500 categories
/// once made a 1.26-million-px-tall bitmap of 4 GB; every parameter is in
/// draws.csv and summary.csv.
const MAX_TRACED: usize = 24;

/// The traces and per-chain densities of the first [`MAX_TRACED`] parameters.
fn figure(draws: &Draws) -> TraceFigure {
    let shown = draws.names.len().min(MAX_TRACED);
    let mut subtitle =
        "data-augmentation MCMC on a private release (Ju et al. 2022); draws after warm-up"
            .to_string();
    if shown < draws.names.len() {
        subtitle.push_str(&format!(
            "; the first {shown} of {} parameters (all are in draws.csv and summary.csv)",
            draws.names.len()
        ));
    }
    TraceFigure {
        names: draws.names[..shown].to_vec(),
        chains: (0..shown).map(|p| draws.parameter(p)).collect(),
        subtitle: Some(subtitle),
    }
}

/// The largest R̂ and smallest bulk ESS `infer` reports without a warning
/// (Vehtari et al. 2021's thresholds).
const RHAT_OK: f64 = 1.01;
const ESS_OK: f64 = 400.0;

/// The warning for parameters whose chains have not settled, if any; `draws_key`
/// is how the caller names the number of draws.
pub(crate) fn convergence_warning(summary: &[ParameterSummary], draws_key: &str) -> Option<String> {
    let unsettled: Vec<&str> = summary
        .iter()
        .filter(|s| {
            s.rhat.is_some_and(|r| r.is_nan() || r > RHAT_OK)
                || s.ess_bulk.is_none_or(|e| e.is_nan() || e < ESS_OK)
        })
        .map(|s| s.parameter.as_str())
        .collect();
    (!unsettled.is_empty()).then(|| {
        format!(
            "R-hat above {RHAT_OK} or bulk ESS below {ESS_OK} for {}: the chains have not settled; run more draws ({draws_key}) or chains",
            unsettled.join(", ")
        )
    })
}
