//! The CLI verbs: run, list, check, plot. Each turns validated arguments into
//! library calls; main.rs maps the error kind to an exit code.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::config::{ConfigError, ConfigFile, Override, Resolved};
use crate::experiments::{self, Figure};
use crate::runner::{self, Progress};

/// Error kinds that map to exit codes: bad input is 2, anything else 1.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("{0}")]
    Input(String),
    #[error("{0}")]
    Failed(String),
}

impl From<ConfigError> for CommandError {
    fn from(e: ConfigError) -> Self {
        CommandError::Input(e.to_string())
    }
}

impl CommandError {
    pub fn exit_code(&self) -> i32 {
        match self {
            CommandError::Input(_) => 2,
            CommandError::Failed(_) => 1,
        }
    }
}

/// A config resolved and built into a runnable figure.
pub struct Planned {
    pub resolved: Resolved,
    pub figure: Box<dyn Figure>,
}

/// Every `*.toml` under `dir`, sorted.
pub fn all_configs(dir: &Path) -> Result<Vec<PathBuf>, CommandError> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "toml") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, &mut out)
        .map_err(|e| CommandError::Input(format!("{}: cannot list configs: {e}", dir.display())))?;
    out.sort();
    if out.is_empty() {
        return Err(CommandError::Input(format!(
            "{}: no *.toml configs found",
            dir.display()
        )));
    }
    Ok(out)
}

/// Loads, resolves and validates configs. Stops at the first bad one, before any work.
pub fn plan(
    paths: &[PathBuf],
    profile: Option<&str>,
    overrides: &[String],
) -> Result<Vec<Planned>, CommandError> {
    let overrides: Vec<Override> = overrides
        .iter()
        .map(|s| Override::parse(s))
        .collect::<Result<_, _>>()?;
    let mut planned = Vec::new();
    for path in paths {
        let file = ConfigFile::load(path)?;
        let spec = experiments::find(&file.experiment).ok_or_else(|| ConfigError {
            file: path.display().to_string(),
            key: Some("experiment".into()),
            message: format!("unknown experiment \"{}\"", file.experiment),
            allowed: Some(experiments::known_ids()),
        })?;
        for resolved in file.resolve(profile, &overrides)? {
            let figure = (spec.build)(&resolved.params, resolved.seed)
                .map_err(|e| e.in_file(&resolved.file()))?;
            planned.push(Planned { resolved, figure });
        }
    }
    Ok(planned)
}

pub struct RunArgs {
    pub configs: Vec<PathBuf>,
    pub all: bool,
    pub config_dir: PathBuf,
    pub smoke: bool,
    pub jobs: Option<usize>,
    pub out: PathBuf,
    pub set: Vec<String>,
}

pub fn run(args: RunArgs) -> Result<(), CommandError> {
    let clock = Instant::now();
    let mut paths = args.configs.clone();
    if args.all {
        paths.extend(all_configs(&args.config_dir)?);
    }
    if paths.is_empty() {
        return Err(CommandError::Input(
            "nothing to run: give config files or --all".into(),
        ));
    }
    let jobs = match args.jobs {
        Some(0) => {
            return Err(CommandError::Input(
                "--jobs 0: allowed values are integers ≥ 1".into(),
            ))
        }
        Some(j) => j,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let planned = plan(&paths, args.smoke.then_some("smoke"), &args.set)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| CommandError::Failed(format!("cannot start {jobs} worker threads: {e}")))?;
    let progress = Progress::detect();
    let mut reports = Vec::new();
    for p in &planned {
        let report = runner::run(p.figure.as_ref(), &p.resolved, &args.out, &pool, progress)
            .map_err(|e| CommandError::Failed(e.to_string()))?;
        reports.push(report);
    }
    println!(
        "wrote {} figure(s) in {:.2} s wall ({jobs} jobs):",
        reports.len(),
        clock.elapsed().as_secs_f64()
    );
    for r in &reports {
        println!(
            "  {:<22} {:>8} tasks {:>8.2} s  {}",
            r.figure,
            r.tasks,
            r.wall_seconds,
            r.dir.join("figure.png").display()
        );
    }
    Ok(())
}

pub fn list(config_dir: &Path) -> Result<(), CommandError> {
    println!("{:<20} {:<34} title", "figure", "default config");
    for spec in experiments::REGISTRY {
        let path = config_dir.join(spec.config.trim_start_matches("configs/"));
        let mark = if path.exists() { "" } else { " (missing)" };
        println!(
            "{:<20} {:<34} {}",
            spec.id,
            format!("{}{mark}", path.display()),
            spec.title
        );
    }
    Ok(())
}

pub fn check(paths: &[PathBuf], smoke: bool, set: &[String]) -> Result<(), CommandError> {
    let planned = plan(paths, smoke.then_some("smoke"), set)?;
    for p in &planned {
        let sweep = p
            .resolved
            .sweep_label
            .as_deref()
            .map(|s| format!(" [{s}]"))
            .unwrap_or_default();
        println!(
            "{}: ok — {}{sweep}, profile {}: {}; {} tasks",
            p.resolved.file(),
            p.resolved.experiment,
            p.resolved.profile.as_deref().unwrap_or("(paper scale)"),
            p.figure.grid_description(),
            p.figure.task_count()
        );
    }
    Ok(())
}

/// Re-renders figures from CSVs: `dir` is one figure's folder or any folder above them.
pub fn plot(dirs: &[PathBuf]) -> Result<(), CommandError> {
    let mut done = 0;
    for dir in dirs {
        if !dir.is_dir() {
            return Err(CommandError::Input(format!(
                "{}: not a directory",
                dir.display()
            )));
        }
        let mut figures = Vec::new();
        find_figures(dir, &mut figures)
            .map_err(|e| CommandError::Failed(format!("{}: {e}", dir.display())))?;
        if figures.is_empty() {
            return Err(CommandError::Input(format!(
                "{}: no summary.csv found below it",
                dir.display()
            )));
        }
        for (fig_dir, id) in figures {
            crate::plot::render_dir(&id, &fig_dir)
                .map_err(|e| CommandError::Failed(e.to_string()))?;
            println!("{id}: {}", fig_dir.join("figure.png").display());
            done += 1;
        }
    }
    println!("re-rendered {done} figure(s)");
    Ok(())
}

/// Folders holding a summary.csv, with their figure id (from manifest.json,
/// else from the last two path components, minus any `@sweep` suffix).
fn find_figures(dir: &Path, out: &mut Vec<(PathBuf, String)>) -> std::io::Result<()> {
    if dir.join("summary.csv").is_file() {
        let from_manifest = std::fs::read_to_string(dir.join("manifest.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v.get("figure").and_then(|f| f.as_str()).map(str::to_string));
        let id = from_manifest.unwrap_or_else(|| {
            let leaf = dir
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let paper = dir
                .parent()
                .and_then(|p| p.file_name())
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("{paper}/{}", leaf.split('@').next().unwrap_or(""))
        });
        out.push((dir.to_path_buf(), id));
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if path.is_dir() && !hidden {
            find_figures(&path, out)?;
        }
    }
    Ok(())
}

/// Which mechanism `privpost account` accounts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AccountMechanism {
    /// DP-MCMC with the subsampled Barker test (heikkila2019 Theorem 2, Corollary 2).
    Barker,
    /// DP-SGLD: Poisson-subsampled Gaussian mechanism.
    Sgld,
}

pub struct AccountArgs {
    pub mechanism: AccountMechanism,
    pub n_data: Option<u64>,
    pub batch: Option<u64>,
    pub iterations: Vec<u64>,
    pub delta: Option<f64>,
    pub alpha_max: Option<u32>,
    pub n0: Option<f64>,
    pub clip: Option<f64>,
    pub q: Option<f64>,
    pub sigma: Option<f64>,
    /// Evaluate at this Rényi order only (instead of minimising over orders).
    pub alpha: Option<u32>,
}

/// Prints (ε, δ) for a planned run, with both conversions.
pub fn account(a: AccountArgs) -> Result<(), CommandError> {
    use crate::privacy::rdp::{check_clipping, BarkerAccount, Conversion, SgldAccount};
    let need = |v: Option<u64>, flag: &str| {
        v.ok_or_else(|| {
            CommandError::Input(format!("account: {flag} is required for this mechanism"))
        })
    };
    let bad = |e: crate::privacy::rdp::AccountError| CommandError::Input(format!("account: {e}"));
    if a.iterations.is_empty() {
        return Err(CommandError::Input(
            "account: --iterations is required (e.g. --iterations 1000,20000)".into(),
        ));
    }
    match a.mechanism {
        AccountMechanism::Barker => {
            let (n, b) = (need(a.n_data, "--n-data")?, need(a.batch, "--batch")?);
            if a.q.is_some() || a.sigma.is_some() {
                return Err(CommandError::Input("account: --q and --sigma belong to --mechanism sgld; the Barker test uses --n-data and --batch".into()));
            }
            match (a.n0, a.clip) {
                (Some(n0), Some(clip)) => check_clipping(clip, b, n0).map_err(bad)?,
                (None, None) => {}
                _ => return Err(CommandError::Input("account: give both --n0 and --clip to check the clipping bound (eq. 23), or neither".into())),
            }
            let delta = a.delta.unwrap_or(1.0 / n as f64);
            if let Some(alpha) = a.alpha {
                // one order: refused outside Theorem 2 (α < b/5)
                crate::privacy::rdp::barker_step_epsilon(alpha, b).map_err(bad)?;
                let acc = BarkerAccount {
                    n_data: n,
                    batch: b,
                    iterations: 0,
                    delta,
                    alpha_max: 100,
                };
                acc.validate().map_err(bad)?;
                let step = acc.step_rdp(alpha);
                println!("DP-MCMC at order α = {alpha}: per-iteration RDP ε′(α) = {step:.6e}");
                for &t in &a.iterations {
                    let rdp = t as f64 * step;
                    println!(
                        "  T = {t}: RDP ε = {rdp:.4}; (ε, δ = {delta:e}) = {:.4} (classic), {:.4} (improved)",
                        Conversion::Classic.epsilon(rdp, alpha as f64, delta),
                        Conversion::Improved.epsilon(rdp, alpha as f64, delta)
                    );
                }
                return Ok(());
            }
            let mut lines = vec![
                "DP-MCMC, subsampled Barker test (heikkila2019 Theorem 2, Corollary 2 / eq. 22)"
                    .to_string(),
            ];
            for &t in &a.iterations {
                let acc = BarkerAccount {
                    n_data: n,
                    batch: b,
                    iterations: t,
                    delta,
                    alpha_max: a.alpha_max.unwrap_or(100),
                };
                let classic = acc.spent(Conversion::Classic).map_err(bad)?;
                let improved = acc.spent(Conversion::Improved).map_err(bad)?;
                let orders = acc.orders();
                lines.push(format!(
                    "  N = {n}, b = {b}, q = {}, T = {t}, δ = {delta:e}, orders {}..={}: ε = {:.4} (classic, α = {}), {:.4} (improved, α = {})",
                    acc.q(), orders.start(), orders.end(), classic.epsilon, classic.best_alpha, improved.epsilon, improved.best_alpha
                ));
            }
            println!("{}", lines.join("\n"));
        }
        AccountMechanism::Sgld => {
            if a.n_data.is_some() || a.batch.is_some() || a.n0.is_some() || a.clip.is_some() {
                return Err(CommandError::Input("account: --mechanism sgld takes --q and --sigma (not --n-data, --batch, --n0, --clip)".into()));
            }
            let q = a.q.ok_or_else(|| {
                CommandError::Input("account: --q is required for --mechanism sgld".into())
            })?;
            let sigma = a.sigma.ok_or_else(|| {
                CommandError::Input("account: --sigma is required for --mechanism sgld".into())
            })?;
            let delta = a.delta.ok_or_else(|| {
                CommandError::Input("account: --delta is required for --mechanism sgld".into())
            })?;
            let mut lines = vec![
                "DP-SGLD, Poisson-subsampled Gaussian mechanism (Mironov, Talwar, Zhang 2019)"
                    .to_string(),
            ];
            for &t in &a.iterations {
                let acc = SgldAccount {
                    q,
                    sigma,
                    iterations: t,
                    delta,
                    alpha_max: a.alpha_max.unwrap_or(499),
                };
                let classic = acc.spent(Conversion::Classic).map_err(bad)?;
                let improved = acc.spent(Conversion::Improved).map_err(bad)?;
                lines.push(format!(
                    "  q = {q}, σ = {sigma}, T = {t}, δ = {delta:e}, orders 2..={}: ε = {:.4} (classic, α = {}), {:.4} (improved, α = {})",
                    acc.alpha_max, classic.epsilon, classic.best_alpha, improved.epsilon, improved.best_alpha
                ));
            }
            println!("{}", lines.join("\n"));
        }
    }
    Ok(())
}

/// `privpost data status`: each expected file with its state, and task sizes when valid.
pub fn data_status(dir: &Path) -> Result<(), CommandError> {
    let mut all_ok = true;
    for (path, state) in crate::data::status(dir) {
        match state {
            Ok(()) => println!("ok       {}", path.display()),
            Err(e) => {
                all_ok = false;
                println!("problem  {e}");
            }
        }
    }
    if all_ok {
        let report = |t: Result<crate::data::Task, crate::data::DataError>| match t {
            Ok(t) => println!(
                "  {:<8} train {:>6}  test {:>6}  d = {:>3}  dropped {}",
                t.name,
                t.train_x.nrows(),
                t.test_x.nrows(),
                t.dim(),
                t.dropped
            ),
            Err(e) => println!("  {e}"),
        };
        println!("tasks (§5.2 preprocessing; split seed 0):");
        report(crate::data::abalone(dir, 0));
        report(crate::data::adult(dir));
        report(crate::data::mnist38(dir, 0));
    } else {
        println!("run `privpost data fetch` to download and verify the missing files");
    }
    Ok(())
}

/// `privpost data fetch`: runs scripts/fetch-data.sh into `dir`.
pub fn data_fetch(dir: &Path) -> Result<(), CommandError> {
    data_fetch_with(dir, false)
}

/// `privpost data export`: a preprocessed training split as CSV (label, features).
pub fn data_export(
    dataset: &str,
    out: &Path,
    dir: &Path,
    split_seed: u64,
) -> Result<(), CommandError> {
    let task = match dataset {
        "abalone" => crate::data::abalone(dir, split_seed),
        "adult" => crate::data::adult(dir),
        "mnist" => crate::data::mnist38(dir, split_seed),
        "mnist_full" => crate::data::mnist38_full(dir, split_seed),
        other => {
            return Err(CommandError::Input(format!(
            "data export: unknown dataset \"{other}\" (allowed: abalone, adult, mnist, mnist_full)"
        )))
        }
    }
    .map_err(|e| CommandError::Input(e.to_string()))?;
    let mut text = String::from("label");
    for f in &task.features {
        text.push(',');
        text.push_str(&f.replace(',', ";"));
    }
    text.push('\n');
    for i in 0..task.train_x.nrows() {
        text.push_str(&format!("{:?}", task.train_y[i]));
        for v in task.train_x.row(i).iter() {
            text.push_str(&format!(",{v:?}"));
        }
        text.push('\n');
    }
    std::fs::write(out, text)
        .map_err(|e| CommandError::Failed(format!("{}: {e}", out.display())))?;
    println!(
        "wrote {} ({} rows × {} features)",
        out.display(),
        task.train_x.nrows(),
        task.dim()
    );
    Ok(())
}

/// `privpost data fetch [--canonical]`: the registry route, plus with `canonical` the
/// full MNIST training files from the MNIST site (needs ordinary internet).
pub fn data_fetch_with(dir: &Path, canonical: bool) -> Result<(), CommandError> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/fetch-data.sh");
    if !script.is_file() {
        return Err(CommandError::Failed(format!(
            "{}: fetch script not found (run from a privpost checkout)",
            script.display()
        )));
    }
    let target = std::path::absolute(dir)
        .map_err(|e| CommandError::Input(format!("{}: {e}", dir.display())))?;
    let mut cmd = std::process::Command::new("bash");
    cmd.arg(&script);
    if canonical {
        cmd.arg("--canonical");
    }
    let status = cmd
        .env("PRIVPOST_DATA", &target)
        .status()
        .map_err(|e| CommandError::Failed(format!("cannot run {}: {e}", script.display())))?;
    if !status.success() {
        return Err(CommandError::Failed(format!(
            "fetching the datasets failed ({status}); see the messages above"
        )));
    }
    data_status(&target)
}

/// `privpost vcor`: fits V_cor for C = 1 and C = 2, reports its error against the
/// logistic beside the committed tables, and with `write` regenerates the tables.
pub fn vcor(iterations: usize, write: bool) -> Result<(), CommandError> {
    use crate::dpmcmc::vcor::{FitSettings, VCor};
    let settings = FitSettings {
        iterations,
        ..FitSettings::default()
    };
    let mut source =
        String::from("//! Generated by `privpost vcor --write` — do not edit by hand.\n");
    source.push_str(&format!(
        "//! EM fit: atoms every {} up to {}, {} iterations, grid step {} on [0, {}].\n",
        settings.spacing,
        settings.max_atom,
        settings.iterations,
        settings.grid_step,
        settings.grid_max
    ));
    for (c, name) in [(1.0, "C1"), (2.0, "C2")] {
        let clock = std::time::Instant::now();
        let fitted = VCor::fit(c, settings);
        let (tv, sup) = fitted.error_to_logistic();
        println!(
            "C = {c}: fitted {} atoms in {:.1} s: TV {tv:.3e}, sup |ΔCDF| {sup:.3e} (authors: C = 2 → 5.5e-3, 2.4e-3; C = 1 → 2.5e-4, 7.9e-5)",
            fitted.atoms.len(),
            clock.elapsed().as_secs_f64()
        );
        if let Some(stored) = VCor::stored(c) {
            let (tv, sup) = stored.error_to_logistic();
            println!(
                "        committed table: {} atoms, TV {tv:.3e}, sup |ΔCDF| {sup:.3e}",
                stored.atoms.len()
            );
        }
        source.push_str(&fitted.to_rust(name));
    }
    if write {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/dpmcmc/vcor_table.rs");
        std::fs::write(&path, source)
            .map_err(|e| CommandError::Failed(format!("{}: {e}", path.display())))?;
        println!("wrote {} (rebuild to use it)", path.display());
    }
    Ok(())
}

/// Writes the war-log generator's records for `preset` in the CSV schema.
pub fn data_warlog(
    preset: &str,
    base_events: Option<f64>,
    seed: u64,
    out: &Path,
) -> Result<(), CommandError> {
    use crate::hmm::source::{write_csv, DataSpec};
    let spec = DataSpec {
        base_events,
        ..DataSpec::preset(preset)
    };
    let p = spec.resolve_preset("data").map_err(|e| {
        CommandError::Input(format!(
            "data warlog: {} (allowed: {})",
            e.message,
            e.allowed.unwrap_or_default()
        ))
    })?;
    let mut rng = runner::setup_rng(seed, 11);
    let (_, records) = crate::hmm::generate::generate(&p, &mut rng);
    let labels = crate::hmm::source::preset_value_labels(&p);
    write_csv(out, &records, &p.region_names, &labels, 2004)
        .map_err(|e| CommandError::Failed(format!("{}: {e}", out.display())))?;
    println!(
        "wrote {} ({} records, preset {preset}, seed {seed})",
        out.display(),
        records.len()
    );
    Ok(())
}
