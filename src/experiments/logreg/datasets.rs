//! The logistic-regression figures' data: the built-in datasets' folder and checks, a user's CSV dataset, loading and preparing the tasks, and the datasets' records for the manifest.

use super::{
    setting, warn_once, Arc, CsvDataset, DatasetRecord, DatasetSource, ParamError, Path, PathBuf,
    Setting, Task, DATASETS,
};
use crate::data;
use crate::data::csv_dataset;

/// Where the datasets live: `--data`, the config's `data_dir`, `$PRIVPOST_DATA`
/// or the per-user data folder ([`crate::data::folder::resolve`]).
pub fn data_dir_of(configured: Option<&str>) -> PathBuf {
    crate::data::folder::resolve(configured).0
}

/// The datasets folder, checked before anything is read, created or fetched: a
/// plain path (no leading or trailing blanks, no control characters, not empty);
/// a folder if it exists, and otherwise a path whose parent folder exists (the
/// automatic fetch creates only the last component) — except the per-user
/// default, whose missing parents are created.
pub fn check_data_dir(configured: Option<&str>) -> Result<(), ParamError> {
    use crate::data::folder::Origin;
    let (path, origin, shown) = crate::data::folder::resolve(configured);
    let given = path.to_string_lossy().to_string();
    let bad = |why: &str| {
        ParamError::new(
            "data_dir",
            format!("{shown}: {why}"),
            "a folder path without leading or trailing blanks: an existing folder, or a new one in an existing folder (or leave data_dir out: --data DIR, $PRIVPOST_DATA or the per-user data folder)",
        )
    };
    if given.is_empty() {
        return Err(bad("empty"));
    }
    if given.trim() != given || given.chars().any(char::is_control) {
        return Err(bad("has leading or trailing blanks or control characters"));
    }
    if path.exists() {
        if !path.is_dir() {
            return Err(bad("exists and is not a folder"));
        }
        return Ok(());
    }
    if origin == Origin::Default {
        return Ok(());
    }
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(bad(&format!(
            "does not exist, nor does its parent folder {}",
            parent.display()
        )));
    }
    Ok(())
}

/// The datasets a config names, checked (validation: reads nothing): each entry of
/// `datasets` is a built-in name, the name of a `[csv_datasets.NAME]` table, or
/// `"csv:PATH"` (a CSV file with every default, named by its file stem).
pub fn check_datasets(
    names: &[String],
    tables: Option<&toml::Table>,
) -> Result<Vec<DatasetSource>, ParamError> {
    crate::config::check::non_empty("datasets", names)?;
    let allowed = "\"abalone\", \"adult\", \"mnist\", \"mnist_full\" (needs `privpost data fetch --canonical`), the NAME of a [csv_datasets.NAME] table, or \"csv:PATH\" (a CSV file: see the README, \"Your own data\")";
    if let Some(t) = tables {
        for (name, value) in t {
            if DATASETS.contains(&name.as_str()) {
                return Err(ParamError::new(
                    format!("csv_datasets.{name}"),
                    "the name of a built-in dataset",
                    "another name for your CSV dataset",
                ));
            }
            check_name(&format!("csv_datasets.{name}"), name)?;
            csv_dataset::parse_spec(name, value)?;
        }
    }
    let mut out: Vec<DatasetSource> = Vec::new();
    for n in names {
        let source = if DATASETS.contains(&n.as_str()) {
            DatasetSource::Builtin(n.clone())
        } else if let Some(path) = n.strip_prefix("csv:") {
            let spec = csv_dataset::shorthand(path);
            spec.validate("datasets")?;
            let name = std::path::Path::new(path)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            check_name("datasets", &name)?;
            DatasetSource::Csv {
                name,
                spec: Box::new(spec),
            }
        } else if let Some(v) = tables.and_then(|t| t.get(n)) {
            DatasetSource::Csv {
                name: n.clone(),
                spec: Box::new(csv_dataset::parse_spec(n, v)?),
            }
        } else {
            return Err(ParamError::new(
                "datasets",
                format!("unknown dataset \"{n}\""),
                allowed,
            ));
        };
        if out.iter().any(|o| o.name() == source.name()) {
            return Err(ParamError::new(
                "datasets",
                format!("two datasets named \"{}\"", source.name()),
                "distinct names (a `csv:PATH` is named by its file stem)",
            ));
        }
        out.push(source);
    }
    Ok(out)
}

/// A dataset name shows in CSV cells and legends: letters, digits, `_`, `-`, `.`.
pub(super) fn check_name(key: &str, name: &str) -> Result<(), ParamError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(())
    } else {
        Err(ParamError::new(
            key,
            format!("dataset name \"{name}\""),
            "1 to 64 letters, digits, `_`, `-` or `.`",
        ))
    }
}

/// Creates `dir` if needed and checks that a file can be written in it: the
/// `data_dir` error, before any download.
pub(super) fn writable_folder(dir: &Path) -> Result<(), ParamError> {
    let bad = |e: std::io::Error| {
        ParamError::new(
            "data_dir",
            format!(
                "{}: cannot write the datasets there: {e}",
                crate::data::folder::describe(dir)
            ),
            "a folder privpost can create and write",
        )
    };
    std::fs::create_dir_all(dir).map_err(bad)?;
    let probe = dir.join(format!(".privpost-write-test-{}", std::process::id()));
    std::fs::File::create(&probe).map_err(bad)?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Loads the named tasks with their manifest records (preparation, under `privpost
/// run` only). When a built-in dataset's files are missing (not when they are
/// corrupt), fetches them first, as `privpost data fetch` would; a CSV dataset is
/// read, checked row by row and preprocessed.
pub fn load(
    sources: &[DatasetSource],
    dir: &Path,
    split_seed: u64,
) -> Result<Vec<(Arc<Task>, DatasetRecord)>, ParamError> {
    let builtin = sources
        .iter()
        .any(|s| matches!(s, DatasetSource::Builtin(_)));
    if builtin && data::fetch::any_missing(dir) {
        // the folder must take the files before a download starts (a data_dir
        // under /proc had started the fetch, and failed at its end)
        writable_folder(dir)?;
        errln!(
            "datasets missing in {}: fetching them (scripts/fetch-data.sh)",
            dir.display()
        );
        data::fetch::fetch(dir, false).map_err(|e| {
            ParamError::new("data_dir", e.to_string(), "a folder with the datasets")
        })?;
    }
    sources
        .iter()
        .map(|s| match s {
            DatasetSource::Builtin(n) => {
                let t = data::builtin_raw(n, dir, split_seed)
                    .ok_or_else(|| ParamError::new("datasets", n.clone(), DATASETS.join(", ")))?
                    .map(data::RawData::paper)
                    .map_err(|e| {
                        ParamError::new("data_dir", e.to_string(), "run `privpost data fetch`")
                    })?;
                let record = builtin_record(&t, dir, split_seed)?;
                Ok((Arc::new(t), record))
            }
            DatasetSource::Csv { name, spec } => {
                let (t, sha) = spec.load(name, split_seed).map_err(|e| {
                    ParamError::new(
                        format!("csv_datasets.{name}.path"),
                        e.to_string(),
                        "a CSV file as described in the README (\"Your own data\")",
                    )
                })?;
                if let Some(w) = spec.clip_warning(&t) {
                    warn_once(w);
                }
                let record = csv_record(&t, spec, sha, split_seed);
                Ok((Arc::new(t), record))
            }
        })
        .collect()
}

/// The CSV datasets a figure's parameters name (`datasets`, `[csv_datasets.NAME]`,
/// `split_seed`), read and preprocessed as a run would, so that `check` says before
/// a run what the run will say: the file's errors (exit 2, the key
/// `csv_datasets.NAME.path`) and its clipping warnings.
pub fn csv_check(params: &toml::Table) -> Result<Vec<String>, ParamError> {
    let names: Vec<String> = params
        .get("datasets")
        .and_then(toml::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let tables = params.get("csv_datasets").and_then(toml::Value::as_table);
    let split_seed = params
        .get("split_seed")
        .and_then(toml::Value::as_integer)
        .map_or(1, |s| s.max(0) as u64);
    let Ok(sources) = check_datasets(&names, tables) else {
        return Ok(Vec::new());
    };
    let mut warnings = Vec::new();
    for s in &sources {
        if let DatasetSource::Csv { name, spec } = s {
            let (t, _) = spec.load(name, split_seed).map_err(|e| {
                ParamError::new(
                    format!("csv_datasets.{name}.path"),
                    e.to_string(),
                    "a CSV file as described in the README (\"Your own data\")",
                )
            })?;
            warnings.extend(spec.clip_warning(&t));
        }
    }
    Ok(warnings)
}

/// The datasets of a plan, prepared: loaded (fetched first when missing), their
/// manifest records, and each task's calibration constants at `beta0`.
pub type Prepared = (Vec<Arc<Task>>, Vec<DatasetRecord>, Vec<Setting>);

/// Loads the datasets a config names (`datasets`, `[csv_datasets.NAME]`) from
/// the datasets folder ([`data_dir_of`]) or their CSV files, for a plan.
pub fn prepare(
    names: &[String],
    tables: Option<&toml::Table>,
    data_dir: Option<&str>,
    split_seed: u64,
    beta0: f64,
) -> Result<Prepared, ParamError> {
    let sources = check_datasets(names, tables)?;
    let sources = &sources[..];
    let dir = data_dir_of(data_dir);
    let (tasks, records): (Vec<_>, Vec<_>) = load(sources, &dir, split_seed)?.into_iter().unzip();
    let settings = tasks.iter().map(|t| setting(t, beta0)).collect();
    Ok((tasks, records, settings))
}

/// The manifest record of a built-in task: files, SHA-256 as read, rows, split.
pub(super) fn builtin_record(
    t: &Task,
    dir: &Path,
    split_seed: u64,
) -> Result<DatasetRecord, ParamError> {
    let sums = data::checksums_of(dir, &t.name)
        .map_err(|e| ParamError::new("data_dir", e.to_string(), "a folder with the datasets"))?;
    Ok(DatasetRecord {
        name: t.name.clone(),
        files: sums.iter().map(|(f, _)| f.clone()).collect(),
        sha256: sums.into_iter().map(|(_, h)| h).collect(),
        rows: t.train_x.nrows() + t.test_x.nrows(),
        source: serde_json::json!({
            "n_train": t.train_x.nrows(),
            "n_test": t.test_x.nrows(),
            "dim": t.dim(),
            "dropped_rows": t.dropped,
            "split_seed": split_seed,
            "preprocessing": "Geumlek et al. 2017 §5.2: one-hot, min-max to [−0.5, 0.5] on the training split, rows scaled to norm 1",
            "content_sha256": t.content_sha256,
        }),
    })
}

/// The manifest record of a CSV task: the file, its SHA-256, rows, split and preprocessing.
pub(super) fn csv_record(
    t: &Task,
    spec: &CsvDataset,
    sha: String,
    split_seed: u64,
) -> DatasetRecord {
    DatasetRecord {
        name: t.name.clone(),
        files: vec![spec.path.clone()],
        sha256: vec![sha],
        rows: t.train_x.nrows() + t.test_x.nrows(),
        source: serde_json::json!({
            "kind": "user CSV file",
            "n_train": t.train_x.nrows(),
            "n_test": t.test_x.nrows(),
            "dim": t.dim(),
            "dropped_rows": t.dropped,
            "split": match &spec.split_column {
                Some(c) => format!("column \"{c}\""),
                None => format!("seeded 2/3–1/3 (split_seed = {split_seed})"),
            },
            "max_norm": spec.max_norm,
            "rows_clipped": t.clipped,
            "intercept": spec.intercept,
            "preprocessing": spec.describe(),
            "content_sha256": t.content_sha256,
        }),
    }
}
