//! `privpost infer RELEASE.toml`: the posterior of a model's parameters given a
//! researcher's own private release, by data-augmentation MCMC
//! ([`crate::damcmc`]; Ju et al. 2022). Writes `<out>/infer/<stem>/`: the draws,
//! their summary, a trace and density figure, and a manifest; prints the summary.
//! Inference is post-processing of the release: it adds no privacy cost.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::{CommandError, Work};
use crate::config::release::{release_warnings, CountsName, InferSpec, Inference, ModelName};
use crate::damcmc::{self, Draws, ParameterSummary};
use crate::plot::trace::TraceFigure;
use crate::results::draws::KeptDraws;
use crate::results::table::Table;

/// Posterior of a model's parameters from a private release (data-augmentation MCMC).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "RELEASE.toml names the model, its prior, n, the mechanism, its scale and the
released values (docs/infer.md has every key):

  model = \"dirichlet_categorical\"      # or beta_bernoulli, naive_bayes
  prior = { alpha = [1.0, 1.0, 1.0] }
  n = 30
  [release]
  mechanism = \"laplace\"   # laplace | gaussian | discrete_laplace | discrete_gaussian
  scale = 2.0             # Laplace b, or Gaussian sigma
  values = [12.7, 9.1, 8.4]

Or a figure's manifest (its folder, or its manifest.json) and --release NAME: a release
the figure recorded (the ju2022 figures record each of theirs as epsilon=E/repeat=R).

Writes <out>/infer/<stem>/: draws.csv (chain, draw, one column per parameter), summary.csv
(mean, sd, quantiles, R-hat, bulk and tail ESS), figure.png/.svg (traces and densities) and
manifest.json. Inference is post-processing of the release: no privacy cost is added."
)]
pub struct InferArgs {
    /// The release file (TOML), or a figure's folder or manifest.json that records releases.
    #[arg(
        value_name = "RELEASE.toml | MANIFEST",
        required_unless_present = "example"
    )]
    pub file: Option<PathBuf>,
    /// Run a release whose estimated work is above one core-hour (up to 30
    /// core-days); without it such a release is refused with the estimate.
    #[arg(long)]
    pub allow_long: bool,
    /// Print an example release file (the one docs/infer.md explains) and exit:
    /// `privpost infer --example > release.toml` gives one to edit, from any folder.
    #[arg(long, conflicts_with_all = ["release"])]
    pub example: bool,
    /// With a manifest: the name of the recorded release to use.
    #[arg(long, value_name = "NAME")]
    pub release: Option<String>,
    /// Output root.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    #[command(flatten)]
    pub work: Work,
    /// A release given as a value, not a file (the Python package's `infer`):
    /// (the release, its name for the folder and messages). The summary is not printed.
    #[arg(skip)]
    pub given: Option<(serde_json::Value, String)>,
    /// Set by a caller that cannot kill the process (the Python package, on
    /// Ctrl-C): the chains stop at their next sweep and nothing is written.
    #[arg(skip)]
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
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

/// What a posterior folder was computed from, as its manifest records it
/// (`input`): a release file's absolute path, a figure manifest's absolute path
/// and the release's name, or the Python package's name for a release it was given.
fn input_of(args: &InferArgs) -> String {
    let abs = |p: &Path| {
        std::path::absolute(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string()
    };
    match (&args.given, &args.release) {
        (Some((_, name)), _) => format!("python: {name}"),
        (None, Some(r)) => format!("{} --release {r}", abs(args.file())),
        (None, None) => abs(args.file()),
    }
}

/// Refuses, before any sampling, to replace a folder that holds another input's
/// posterior (or anything `infer` did not write): `input` is this run's
/// ([`input_of`]), `spec` its release (an older folder without `input` is the same
/// input when its `release_file` is this release).
fn check_target(target: &Path, input: &str, spec: &InferSpec) -> Result<(), CommandError> {
    if std::fs::symlink_metadata(target).is_err() {
        return Ok(());
    }
    let manifest = target.join("manifest.json");
    let refuse = |what: String| {
        CommandError::input(format!(
            "{}: {what}; {input} would replace it (allowed: another --out, another name for the input, or remove that folder first)",
            target.display()
        ))
    };
    let held: serde_json::Value =
        crate::input::read_regular_text(&manifest, crate::input::MAX_JSON_BYTES)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .filter(|v: &serde_json::Value| v["command"] == "infer")
            .ok_or_else(|| refuse("holds something `privpost infer` did not write".into()))?;
    let same = match held.get("input").and_then(|v| v.as_str()) {
        Some(theirs) => theirs == input,
        None => serde_json::to_value(spec).ok().as_ref() == held.get("release_file"),
    };
    if same {
        return Ok(());
    }
    let theirs = held
        .get("input")
        .and_then(|v| v.as_str())
        .unwrap_or("another release")
        .to_string();
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
    let inference = spec
        .check()
        .map_err(|e| CommandError::input(format!("{}: {e}", path.display())))?;
    Ok((spec, inference))
}

/// Whether `path` names a manifest: a folder (holding manifest.json) or a `.json` file.
fn is_manifest(path: &Path) -> bool {
    path.is_dir() || path.extension().is_some_and(|e| e == "json")
}

/// The release `name` recorded in a figure's manifest (`details.releases`),
/// checked; every error names the manifest and the release.
fn read_recorded(
    path: &Path,
    name: Option<&str>,
) -> Result<(InferSpec, Inference, String), CommandError> {
    use crate::config::release::RecordedRelease;
    let (file, found) = if path.is_dir() {
        (path.join("manifest.json"), true)
    } else {
        (path.to_path_buf(), false)
    };
    // a manifest found in a folder is read only when it is a regular file (a pipe
    // there would be waited on forever); one given by name may be a pipe
    let text = if found {
        crate::input::read_regular_text(&file, crate::input::MAX_JSON_BYTES)
    } else {
        crate::input::read_input_text(&file, crate::input::MAX_JSON_BYTES)
    }
    .map_err(CommandError::input)?;
    let at = |what: String| CommandError::input(format!("{}: {what}", file.display()));
    let manifest: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| at(format!("not a manifest: {e}")))?;
    let figure = manifest["figure"]
        .as_str()
        .unwrap_or("the figure")
        .to_string();
    let recorded = &manifest["details"]["releases"];
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

impl InferArgs {
    /// The release file or manifest (empty with `--example`, which needs none).
    pub fn file(&self) -> &Path {
        self.file.as_deref().unwrap_or(Path::new(""))
    }
}

/// The example release file (docs/examples/release.toml), carried by the binary.
pub const EXAMPLE: &str = include_str!("../../docs/examples/release.toml");

pub fn infer(args: InferArgs) -> Result<(), CommandError> {
    if args.example {
        crate::outln!("{}", EXAMPLE.trim_end());
        return Ok(());
    }
    infer_into(args).map(|_| ())
}

/// A release given as a value: read as the same file in TOML would be (the
/// same checks and messages), messages naming it `name`.
fn given_spec(v: &serde_json::Value, name: &str) -> Result<(InferSpec, Inference), CommandError> {
    let text = toml::to_string(v).map_err(|e| {
        CommandError::input(format!("{name}: not a release file's table of keys: {e}"))
    })?;
    parse_spec(&text, Path::new(name))
}

/// [`infer`], returning the folder it wrote.
pub fn infer_into(args: InferArgs) -> Result<PathBuf, CommandError> {
    let (spec, inf, stem) = if let Some((v, name)) = &args.given {
        let (spec, inf) = given_spec(v, name)?;
        (spec, inf, name.clone())
    } else if is_manifest(args.file()) {
        read_recorded(args.file(), args.release.as_deref())?
    } else if let Some(name) = &args.release {
        return Err(CommandError::input(format!(
            "--release {name}: only with a figure's manifest (allowed: a figure folder or its manifest.json as the file)"
        )));
    } else {
        let (spec, inf) = read_spec(args.file())?;
        let stem = args
            .file()
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        (spec, inf, stem)
    };
    let target = args.out.join("infer").join(folder_name(Path::new(&stem)));
    let input = input_of(&args);
    check_target(&target, &input, &spec)?;
    let counts_all = matches!(
        (spec.model, spec.counts),
        (ModelName::NaiveBayes, _)
            | (
                ModelName::BetaBernoulli | ModelName::DirichletCategorical,
                CountsName::All
            )
    );
    let mut warnings = release_warnings(&inf.release, inf.model.statistic_range(), counts_all);
    check_work(&inf, args.allow_long)?;
    crate::plan::check_writable(&args.out)?;
    let pool = crate::plan::pool(crate::plan::jobs(args.work.jobs)?)?;
    if !args.work.quiet {
        errln!(
            "infer: {} chains × ({} warm-up + {} draws), {} kernel, n = {}",
            inf.settings.chains,
            inf.settings.warmup,
            inf.settings.draws,
            inf.settings.kernel.as_str(),
            spec.n
        );
    }
    let clock = std::time::Instant::now();
    let cpu = cpu_seconds();
    let never = std::sync::atomic::AtomicBool::new(false);
    let stop = args.stop.as_deref().unwrap_or(&never);
    let draws = pool
        .install(|| inf.model.sample(&inf.release, &inf.settings, stop))
        .and_then(|d| d.check_mixing().map(|()| d))
        .map_err(|e| CommandError::failed(format!("{}: {e}", args.file().display())))?;
    let seconds = clock.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    let summary = draws.summary();
    warnings.extend(convergence_warning(&summary));
    let bound = damcmc::acceptance_bound(&inf.release.noise, inf.model.l1_sensitivity());
    let outcome = Outcome {
        warnings: &warnings,
        input: &input,
        spec: &spec,
        inf: &inf,
        draws: &draws,
        summary: &summary,
        bound,
        seconds,
        cpu,
    };
    write_folder(&target, &outcome)?;
    if args.given.is_none() {
        print_summary(&summary, &draws, bound)?;
        // the Python package turns the manifest's `warnings` into Python warnings
        for w in &warnings {
            errln!("warning: {w}");
        }
    }
    if !args.work.quiet {
        errln!("wrote {}", target.display());
    }
    Ok(target)
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
    let manifest = json!({
        "command": "infer",
        "privpost_version": env!("CARGO_PKG_VERSION"),
        "input": input,
        "warnings": warnings,
        "release_file": spec,
        "method": "data-augmentation MCMC (Ju, Awan, Gong & Rao 2022)",
        "kernel": inf.settings.kernel.as_str(),
        "chains": inf.settings.chains,
        "warmup": inf.settings.warmup,
        "draws": inf.settings.draws,
        "seed": inf.settings.seed,
        "record_acceptance": draws.acceptance(),
        "record_acceptance_bound": bound,
        "changing_proposals_accepted": draws.move_rate(),
        "l1_sensitivity": inf.model.l1_sensitivity(),
        "wall_seconds": seconds,
        "cpu_seconds": cpu,
        "draws": layout,
        "columns": { "summary.csv": crate::results::record::columns::<ParameterSummary>() },
        "privacy": {
            "added_cost": "none",
            "why": "the posterior is computed from the released values alone (post-processing); the release's own guarantee is whatever its mechanism gave",
        },
    });
    let text = serde_json::to_string_pretty(&manifest).map_err(CommandError::failed)?;
    crate::results::write_text(&tmp.join("manifest.json"), &(text + "\n"))
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

fn print_summary(
    summary: &[ParameterSummary],
    draws: &Draws,
    bound: Option<f64>,
) -> Result<(), CommandError> {
    crate::outln!(
        "{:<10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:>9} {:>9}",
        "parameter",
        "mean",
        "sd",
        "5%",
        "50%",
        "95%",
        "R-hat",
        "ESS bulk",
        "ESS tail"
    );
    let opt =
        |x: Option<f64>, digits: usize| x.map_or("-".to_string(), |v| format!("{v:.digits$}"));
    for s in summary {
        crate::outln!(
            "{:<10} {:>9.4} {:>9.4} {:>9.4} {:>9.4} {:>9.4} {:>7} {:>9} {:>9}",
            s.parameter,
            s.mean,
            s.sd,
            s.q05,
            s.q50,
            s.q95,
            opt(s.rhat, 3),
            opt(s.ess_bulk, 0),
            opt(s.ess_tail, 0)
        );
    }
    let bound_text = bound.map_or(
        "no e^-eps bound (Gaussian noise is not pure DP)".to_string(),
        |b| {
            let shown = if b < 1e-3 {
                format!("{b:.2e}")
            } else {
                format!("{b:.4}")
            };
            format!("bound e^-eps = {shown}, eps = L1 sensitivity / b")
        },
    );
    crate::outln!(
        "record acceptance {:.4} ({bound_text}); proposals that change the statistic accepted: {:.4}",
        draws.acceptance(),
        draws.move_rate()
    );
    Ok(())
}

/// The warning for parameters whose chains have not settled, if any.
fn convergence_warning(summary: &[ParameterSummary]) -> Option<String> {
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
            "R-hat above {RHAT_OK} or bulk ESS below {ESS_OK} for {}: the chains have not settled; run more draws (sampler.draws) or chains",
            unsettled.join(", ")
        )
    })
}
