//! A user's own CSV file as a dataset of the logistic-regression figures
//! (`[csv_datasets.NAME]` in `geumlek2017/fig3`, `minami2016/logreg` and
//! `geumlek2017/samplers`, or `"csv:PATH"` in their `datasets` list).
//!
//! The privacy analyses of those mechanisms (Geumlek et al. 2017 §5.2, Theorem 16;
//! Minami et al. 2016 §3.3) assume every example has ‖x‖ ≤ c and |y| ≤ B = 1. The
//! bound c must be *declared* (`max_norm`), not measured: a bound read off the data
//! would itself depend on every row. So rows are brought to ‖x‖ ≤ c by a rule that
//! looks at one row only (`rows = "clip"`, the default, or `"scale"`), and the
//! features are used as read (`scaling = "none"`, the default) or mapped through
//! declared per-column bounds (`scaling = "bounds"`). `scaling = "paper"` applies
//! the paper's §5.2 min–max scaling on the training split instead — what the
//! built-in datasets use, data-dependent, recorded as such in the manifest.
//!
//! Every malformed row (wrong field count, a label outside the declared values, a
//! non-finite or non-numeric feature, a split value other than train/test) is an
//! error naming the file, its line and column; nothing is dropped silently (rows
//! holding one of the declared `missing` tokens are dropped and counted).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::files::{sha256_hex, DataError};
use super::logreg::{seeded_split, Column, RawData, RowNorm, Scaling, Task};
use crate::config::{deserialize, ParamError};

/// The largest dimension after one-hot encoding, and the most columns a header may
/// have: every feature is a dimension of the logistic posterior, whose d × d
/// matrices (about five: `experiments::logreg::task_memory`) the samplers
/// factor in O(d³) per task — 4 GB and 10¹³ flops at 10,000 (MNIST has 784). At
/// 100,000, a 14,000-level categorical column ran for minutes without finishing a
/// task, and a 200,000-column header was refused only after 76 s.
pub const MAX_DIM: usize = 10_000;
/// The largest number of values (rows × dimension) a dataset may hold (1.6 GB of f64).
pub const MAX_VALUES: usize = 200_000_000;
/// The largest file read (bytes).
const MAX_BYTES: u64 = 4 << 30;

/// How features are scaled, as a config names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScalingName {
    /// features as read
    #[default]
    None,
    /// declared [lo, hi] per numeric column (`bounds`), mapped to [−0.5, 0.5]
    Bounds,
    /// §5.2: min–max on the training split (data-dependent)
    Paper,
}

/// How rows are brought to norm ≤ c, as a config names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowsName {
    /// rows with ‖x‖ > c scaled down to c, the others unchanged
    #[default]
    Clip,
    /// every nonzero row scaled to ‖x‖ = c (the paper's rows, c = 1)
    Scale,
}

fn one() -> f64 {
    1.0
}

/// A `[csv_datasets.NAME]` table.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CsvDataset {
    /// the CSV file (a header line, then one example per line), relative to the
    /// working directory
    pub path: String,
    /// the label column (default: `label` if the header has it, else the last column)
    pub label: Option<String>,
    /// the label value that is +1; without it labels must be 1/+1 (→ +1) or −1/0 (→ −1)
    pub positive: Option<String>,
    /// the label value that is −1 (with `positive`); without it every value but
    /// `positive` is −1 (one versus rest)
    pub negative: Option<String>,
    /// feature columns in order (default: every column but the label and split column)
    pub features: Option<Vec<String>>,
    /// feature columns one-hot encoded (levels seen in the training rows, sorted), as
    /// the built-ins encode theirs
    #[serde(default)]
    pub categorical: Vec<String>,
    /// a column saying `train` or `test` per row; without it a seeded 2/3–1/3 split
    /// by the figure's `split_seed`, as for the built-ins
    pub split_column: Option<String>,
    #[serde(default)]
    pub scaling: ScalingName,
    /// `scaling = "bounds"`: [lo, hi] of every numeric feature column
    pub bounds: Option<BTreeMap<String, [f64; 2]>>,
    #[serde(default)]
    pub rows: RowsName,
    /// c, the declared bound on every row's norm (default 1)
    #[serde(default = "one")]
    pub max_norm: f64,
    /// cell values that mark a missing value: rows holding one in a used column are
    /// dropped and counted (default: none; any such cell is an error)
    #[serde(default)]
    pub missing: Vec<String>,
    /// a constant feature of this value appended to every row after scaling (the
    /// model's intercept; default none: the model is w·x without one). It counts
    /// towards ‖x‖ ≤ max_norm, so 0 < intercept ≤ max_norm.
    pub intercept: Option<f64>,
}

/// The share of rows the declared bound may clip before a run warns (/// a default config clipped every row of a CSV to norm 1 without a word).
pub const CLIP_WARN_FRACTION: f64 = 0.1;

/// Where a logistic figure's dataset comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum DatasetSource {
    /// one of the pinned datasets (`abalone`, `adult`, `mnist`, `mnist_full`)
    Builtin(String),
    /// a user's CSV file under a name
    Csv { name: String, spec: Box<CsvDataset> },
}

impl DatasetSource {
    pub fn name(&self) -> &str {
        match self {
            DatasetSource::Builtin(n) | DatasetSource::Csv { name: n, .. } => n,
        }
    }
}

/// Parses a `[csv_datasets.NAME]` table; errors name `csv_datasets.NAME.KEY`.
pub fn parse_spec(name: &str, value: &toml::Value) -> Result<CsvDataset, ParamError> {
    let key = format!("csv_datasets.{name}");
    let toml::Value::Table(t) = value else {
        return Err(ParamError::new(
            key,
            format!("expected a table, found {}", value.type_str()),
            "a table [csv_datasets.NAME] with path, label, features, categorical, split_column, scaling, bounds, rows, max_norm, missing",
        ));
    };
    let spec: CsvDataset = deserialize(t).map_err(|e| ParamError {
        key: format!("{key}.{}", e.key),
        ..e
    })?;
    spec.validate(&key)?;
    Ok(spec)
}

/// A `csv:PATH` entry of a `datasets` list: every default (label `label` or the
/// last column, every other column a numeric feature, features as read, rows
/// clipped to norm 1, a seeded split).
pub fn shorthand(path: &str) -> CsvDataset {
    CsvDataset {
        path: path.to_string(),
        label: None,
        positive: None,
        negative: None,
        features: None,
        categorical: Vec::new(),
        split_column: None,
        scaling: ScalingName::None,
        bounds: None,
        intercept: None,
        rows: RowsName::Clip,
        max_norm: 1.0,
        missing: Vec::new(),
    }
}

fn duplicates(list: &[String]) -> Option<&String> {
    let mut seen = std::collections::HashSet::with_capacity(list.len());
    list.iter().find(|x| !seen.insert(x.as_str()))
}

impl CsvDataset {
    /// Checks what can be checked without reading the file.
    pub fn validate(&self, key: &str) -> Result<(), ParamError> {
        if self.path.trim().is_empty() {
            return Err(ParamError::new(
                format!("{key}.path"),
                "empty",
                "the path of a CSV file",
            ));
        }
        if !(self.max_norm.is_finite() && self.max_norm > 0.0 && self.max_norm <= 1e6) {
            return Err(ParamError::new(
                format!("{key}.max_norm"),
                format!("{}", self.max_norm),
                "0 < max_norm ≤ 1e6 (the declared bound c on every example's norm)",
            ));
        }
        if let Some(v) = self.intercept {
            if !(v.is_finite() && v > 0.0 && v <= self.max_norm) {
                return Err(ParamError::new(
                    format!("{key}.intercept"),
                    format!("{v}"),
                    format!(
                        "0 < intercept ≤ max_norm = {} (a constant feature; it counts towards every row's norm)",
                        self.max_norm
                    ),
                ));
            }
        }
        for (field, list) in [
            ("features", self.features.as_deref().unwrap_or(&[])),
            ("categorical", &self.categorical[..]),
            ("missing", &self.missing[..]),
        ] {
            if let Some(d) = duplicates(list) {
                return Err(ParamError::new(
                    format!("{key}.{field}"),
                    format!("\"{d}\" listed twice"),
                    "distinct names",
                ));
            }
        }
        if let Some(f) = &self.features {
            if f.is_empty() {
                return Err(ParamError::new(
                    format!("{key}.features"),
                    "empty",
                    "at least one feature column (or leave it out: every column but the label and split column)",
                ));
            }
            if let Some(c) = self.categorical.iter().find(|c| !f.contains(c)) {
                return Err(ParamError::new(
                    format!("{key}.categorical"),
                    format!("\"{c}\" is not in features"),
                    format!("a subset of {f:?}"),
                ));
            }
        }
        if self.negative.is_some() && self.positive.is_none() {
            return Err(ParamError::new(
                format!("{key}.negative"),
                "given without `positive`",
                "positive (and optionally negative), or neither (labels ±1 or 1/0)",
            ));
        }
        if self.positive.is_some() && self.positive == self.negative {
            return Err(ParamError::new(
                format!("{key}.negative"),
                "equal to `positive`",
                "two different label values",
            ));
        }
        match (self.scaling, &self.bounds) {
            (ScalingName::Bounds, None) => {
                return Err(ParamError::new(
                    format!("{key}.bounds"),
                    "missing",
                    "with scaling = \"bounds\": a table { COLUMN = [lo, hi], … } for every numeric feature",
                ))
            }
            (ScalingName::Bounds, Some(b)) => {
                for (col, [lo, hi]) in b {
                    if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                        return Err(ParamError::new(
                            format!("{key}.bounds.{col}"),
                            format!("[{lo}, {hi}]"),
                            "[lo, hi] with finite lo < hi",
                        ));
                    }
                }
            }
            (_, Some(_)) => {
                return Err(ParamError::new(
                    format!("{key}.bounds"),
                    "given without scaling = \"bounds\"",
                    "bounds only with scaling = \"bounds\"",
                ))
            }
            (_, None) => {}
        }
        Ok(())
    }

    /// What the preprocessing does, for the manifest.
    pub fn describe(&self) -> String {
        let scaling = match self.scaling {
            ScalingName::None => "features as read".to_string(),
            ScalingName::Bounds => "numeric features clipped to their declared bounds and mapped to [−0.5, 0.5], one-hot columns to ±0.5".to_string(),
            ScalingName::Paper => "Geumlek et al. 2017 §5.2 min–max scaling to [−0.5, 0.5] on the training split (DATA-DEPENDENT: the scaling constants depend on every training row)".to_string(),
        };
        let rows = match self.rows {
            RowsName::Clip => format!(
                "rows with norm > {} scaled down to {}",
                self.max_norm, self.max_norm
            ),
            RowsName::Scale => format!("every nonzero row scaled to norm {}", self.max_norm),
        };
        let levels = if self.categorical.is_empty() {
            String::new()
        } else {
            "; categorical columns one-hot on the levels seen in the training rows (the dimension depends on which levels occur)".into()
        };
        let intercept = match self.intercept {
            Some(v) => format!("; a constant intercept feature {v} appended after scaling"),
            None => "; no intercept (the model is w·x)".into(),
        };
        format!("{scaling}; {rows}{levels}{intercept}")
    }

    /// The warning when the declared bound clipped more than
    /// [`CLIP_WARN_FRACTION`] of the rows: how many, and what to do.
    pub fn clip_warning(&self, task: &Task) -> Option<String> {
        let n = task.train_x.nrows() + task.test_x.nrows();
        if n == 0 || (task.clipped as f64) <= CLIP_WARN_FRACTION * n as f64 {
            return None;
        }
        Some(format!(
            "warning: csv dataset `{}` ({}): the declared bound max_norm = {} clips {} of {} rows ({:.0} %) to norm {}: the model sees those rows shrunk. Declare per-column ranges (scaling = \"bounds\"), use the paper's scaling (scaling = \"paper\", data-dependent) or a larger max_norm that holds for your data",
            task.name,
            self.path,
            self.max_norm,
            task.clipped,
            n,
            100.0 * task.clipped as f64 / n as f64,
            self.max_norm
        ))
    }

    /// Reads, checks and preprocesses the file: the task and the file's SHA-256.
    pub fn load(&self, name: &str, split_seed: u64) -> Result<(Task, String), DataError> {
        let (raw, sha) = self.read(name, split_seed)?;
        let scaling = match self.scaling {
            ScalingName::None => Scaling::None,
            ScalingName::Bounds => Scaling::Bounds(self.bounds.clone().unwrap_or_default()),
            ScalingName::Paper => Scaling::Paper,
        };
        let rows = match self.rows {
            RowsName::Clip => RowNorm::Clip,
            RowsName::Scale => RowNorm::Scale,
        };
        Ok((
            raw.preprocess(&scaling, rows, self.max_norm, self.intercept),
            sha,
        ))
    }

    /// Reads the file into a raw table (and its SHA-256).
    pub fn read(&self, name: &str, split_seed: u64) -> Result<(RawData, String), DataError> {
        let path = Path::new(&self.path);
        let shown = self.path.clone();
        let io = |m: String| DataError::Io {
            path: shown.clone(),
            message: m,
        };
        let bytes = crate::input::read_input(path, MAX_BYTES).map_err(|e| io(e.message))?;
        let sha = sha256_hex(&bytes);
        let raw = self.parse(&bytes, name, split_seed)?;
        Ok((raw, sha))
    }

    fn parse(&self, bytes: &[u8], name: &str, split_seed: u64) -> Result<RawData, DataError> {
        let path = self.path.clone();
        let bad = |line: usize, m: String| DataError::Parse {
            path: path.clone(),
            line,
            message: m,
        };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(true)
            .from_reader(bytes);
        let header: Vec<String> = reader
            .headers()
            .map_err(|e| bad(1, format!("cannot read the header: {e}")))?
            .iter()
            .map(|h| h.trim().to_string())
            .collect();
        if header.iter().all(|h| h.is_empty()) {
            return Err(bad(
                1,
                "empty header; the first line names the columns".into(),
            ));
        }
        if header.len() > MAX_DIM + 2 {
            return Err(bad(
                1,
                format!(
                    "{} columns; allowed: at most {MAX_DIM} features besides the label and split columns (each feature is a dimension of the posterior)",
                    header.len()
                ),
            ));
        }
        if let Some(d) = duplicates(&header) {
            return Err(bad(
                1,
                format!("column \"{d}\" appears twice in the header"),
            ));
        }
        let position: std::collections::HashMap<&str, usize> = header
            .iter()
            .enumerate()
            .map(|(i, h)| (h.as_str(), i))
            .collect();
        let col = |n: &str, what: &str| -> Result<usize, DataError> {
            position.get(n).copied().ok_or_else(|| {
                bad(
                    1,
                    format!(
                        "no column \"{n}\" ({what}); the header has {}",
                        header.join(",")
                    ),
                )
            })
        };
        let label = match &self.label {
            Some(l) => col(l, "label")?,
            None => header
                .iter()
                .position(|h| h == "label")
                .unwrap_or(header.len() - 1),
        };
        let split = match &self.split_column {
            Some(s) => Some(col(s, "split_column")?),
            None => None,
        };
        let features: Vec<usize> = match &self.features {
            Some(f) => f
                .iter()
                .map(|n| col(n, "features"))
                .collect::<Result<_, _>>()?,
            None => (0..header.len())
                .filter(|&i| i != label && Some(i) != split)
                .collect(),
        };
        if features.is_empty() {
            return Err(bad(1, "no feature columns besides the label".into()));
        }
        if let Some(&f) = features.iter().find(|&&f| f == label || Some(f) == split) {
            return Err(bad(
                1,
                format!(
                    "column \"{}\" is both a feature and the label or split column",
                    header[f]
                ),
            ));
        }
        for c in &self.categorical {
            col(c, "categorical")?;
        }
        if let Some(b) = &self.bounds {
            if let Some(unknown) = b.keys().find(|k| !header.contains(k)) {
                return Err(bad(
                    1,
                    format!("bounds names column \"{unknown}\", which the header does not have"),
                ));
            }
        }
        let is_cat: Vec<bool> = features
            .iter()
            .map(|&f| self.categorical.contains(&header[f]))
            .collect();
        if self.scaling == ScalingName::Bounds {
            let b = self.bounds.as_ref();
            if let Some((&f, _)) = features
                .iter()
                .zip(&is_cat)
                .find(|(&f, &c)| !c && !b.is_some_and(|b| b.contains_key(&header[f])))
            {
                return Err(bad(
                    1,
                    format!(
                        "scaling = \"bounds\" but feature column \"{}\" has no bounds entry",
                        header[f]
                    ),
                ));
            }
        }
        let mut numeric: Vec<Vec<f64>> = vec![Vec::new(); features.len()];
        let mut text: Vec<Vec<String>> = vec![Vec::new(); features.len()];
        let (mut labels, mut is_train, mut dropped) = (Vec::new(), Vec::new(), 0usize);
        let used: Vec<usize> = features
            .iter()
            .copied()
            .chain([label])
            .chain(split)
            .collect();
        let mut record = csv::StringRecord::new();
        // line numbers counted from byte offsets (blank lines included)
        let (mut seen_byte, mut seen_line) = (0usize, 1usize);
        let mut line_at = |byte: usize| {
            // a record's position is where reading began: skip the blank lines before it
            let mut byte = byte.min(bytes.len());
            while byte < bytes.len() && matches!(bytes[byte], b'\n' | b'\r') {
                byte += 1;
            }
            if byte >= seen_byte {
                seen_line += bytes[seen_byte..byte]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
                seen_byte = byte;
            }
            seen_line
        };
        loop {
            let before = reader.position().byte() as usize;
            match reader.read_record(&mut record) {
                Ok(false) => break,
                Ok(true) => {}
                Err(e) => {
                    let at = e.position().map_or(before, |p| p.byte() as usize);
                    return Err(bad(line_at(at), format!("not valid CSV: {e}")));
                }
            }
            let line = line_at(record.position().map_or(before, |p| p.byte() as usize));
            if record.len() == 1 && record.get(0).is_some_and(|f| f.trim().is_empty()) {
                continue; // a blank line
            }
            if record.len() != header.len() {
                return Err(bad(
                    line,
                    format!(
                        "{} fields, expected {} (the header's)",
                        record.len(),
                        header.len()
                    ),
                ));
            }
            let field = |i: usize| record.get(i).unwrap_or_default().trim();
            if used
                .iter()
                .any(|&i| self.missing.iter().any(|m| m == field(i)))
            {
                dropped += 1;
                continue;
            }
            labels.push(
                self.label_value(field(label))
                    .map_err(|m| bad(line, format!("column \"{}\": {m}", header[label])))?,
            );
            is_train.push(match split {
                Some(s) => match field(s) {
                    "train" => true,
                    "test" => false,
                    other => {
                        return Err(bad(
                            line,
                            format!(
                                "column \"{}\": \"{other}\", allowed: train or test",
                                header[s]
                            ),
                        ))
                    }
                },
                None => false,
            });
            for (k, &f) in features.iter().enumerate() {
                let v = field(f);
                if is_cat[k] {
                    text[k].push(v.to_string());
                    continue;
                }
                match v.parse::<f64>() {
                    Ok(x) if x.is_finite() => numeric[k].push(x),
                    _ => {
                        return Err(bad(
                            line,
                            format!(
                                "column \"{}\": {v:?} is not a finite number (list it in `categorical` if it is a category, or in `missing` to drop such rows)",
                                header[f]
                            ),
                        ))
                    }
                }
            }
            if labels.len() % 65_536 == 0 {
                self.check_size(labels.len(), &text, &is_cat, &path)?;
            }
        }
        self.check_size(labels.len(), &text, &is_cat, &path)?;
        let n = labels.len();
        if n < 3 {
            return Err(DataError::Io {
                path,
                message: format!("{n} usable rows ({dropped} dropped); at least 3 are needed for a train/test split"),
            });
        }
        if split.is_none() {
            is_train = seeded_split(n, split_seed);
        }
        let n_train = is_train.iter().filter(|&&t| t).count();
        if n_train == 0 || n_train == n {
            return Err(DataError::Io {
                path,
                message: format!(
                    "{n_train} training and {} test rows; both must be non-empty",
                    n - n_train
                ),
            });
        }
        let columns = features
            .iter()
            .enumerate()
            .map(|(k, &f)| {
                let name = header[f].clone();
                if is_cat[k] {
                    Column::Categorical(name, std::mem::take(&mut text[k]))
                } else {
                    Column::Numeric(name, std::mem::take(&mut numeric[k]))
                }
            })
            .collect();
        Ok(RawData {
            name: name.to_string(),
            columns,
            labels,
            is_train,
            dropped,
        })
    }

    /// ±1 of a label cell.
    fn label_value(&self, v: &str) -> Result<f64, String> {
        match (&self.positive, &self.negative) {
            (Some(p), _) if v == p => Ok(1.0),
            (Some(_), None) => Ok(-1.0),
            (Some(_), Some(n)) if v == n => Ok(-1.0),
            (Some(p), Some(n)) => Err(format!("label {v:?}, allowed: {p:?} (+1) or {n:?} (−1)")),
            (None, _) => match v {
                "1" | "+1" | "1.0" => Ok(1.0),
                "-1" | "0" | "-1.0" | "0.0" => Ok(-1.0),
                _ => Err(format!(
                    "label {v:?}, allowed: 1 or +1 (+1), −1 or 0 (−1); or declare `positive` (and `negative`)"
                )),
            },
        }
    }

    /// Refuses a table that would exceed the limits (rows × dimension), as it is read.
    fn check_size(
        &self,
        n: usize,
        text: &[Vec<String>],
        is_cat: &[bool],
        path: &str,
    ) -> Result<(), DataError> {
        let numeric = is_cat.iter().filter(|c| !**c).count();
        let mut dim = numeric;
        for (t, _) in text.iter().zip(is_cat).filter(|(_, c)| **c) {
            let mut levels: Vec<&String> = t.iter().collect();
            levels.sort();
            levels.dedup();
            dim += levels.len();
        }
        if dim > MAX_DIM || n.saturating_mul(dim) > MAX_VALUES {
            return Err(DataError::Io {
                path: path.into(),
                message: format!(
                    "{n}+ rows × {dim} dimensions after one-hot encoding: beyond the limits (dimension ≤ {MAX_DIM}, rows × dimension ≤ {MAX_VALUES})"
                ),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(path: &str) -> CsvDataset {
        shorthand(path)
    }

    fn parse(s: &CsvDataset, text: &str) -> Result<RawData, String> {
        s.parse(text.as_bytes(), "t", 1).map_err(|e| e.to_string())
    }

    #[test]
    fn malformed_rows_are_refused_with_their_line_and_column() {
        let s = spec("my.csv");
        let ok = "a,b,label\n1,2,1\n3,4,-1\n5,6,0\n";
        let raw = parse(&s, ok).unwrap();
        assert_eq!(raw.labels, [1.0, -1.0, -1.0]);
        for (text, want) in [
            (
                "a,b,label\n1,2,1\n3,nan,-1\n5,6,0\n",
                "my.csv: line 3: column \"b\"",
            ),
            (
                "a,b,label\n1,2,1\n3,,-1\n5,6,0\n",
                "line 3: column \"b\": \"\" is not a finite",
            ),
            (
                "a,b,label\n1,2,1\n3,4\n5,6,0\n",
                "line 3: 2 fields, expected 3",
            ),
            (
                "a,b,label\n1,2,1\n3,4,yes\n5,6,0\n",
                "line 3: column \"label\": label \"yes\"",
            ),
            (
                "a,b,label\n1,2,1\n3,4,1\n\n5,1e999,0\n",
                "line 5: column \"b\"",
            ),
            ("a,a,label\n1,2,1\n", "line 1: column \"a\" appears twice"),
            ("a,b,label\n1,2,1\n", "1 usable rows"),
        ] {
            let e = parse(&s, text).unwrap_err();
            assert!(e.contains(want), "{text:?}: {e}");
        }
        let missing = CsvDataset {
            label: Some("y".into()),
            ..spec("my.csv")
        };
        let e = parse(&missing, ok).unwrap_err();
        assert!(e.contains("line 1: no column \"y\" (label)"), "{e}");
    }

    #[test]
    fn declared_labels_categories_split_and_missing_tokens() {
        let s = CsvDataset {
            label: Some("y".into()),
            positive: Some("yes".into()),
            negative: Some("no".into()),
            categorical: vec!["colour".into()],
            split_column: Some("part".into()),
            missing: vec!["?".into()],
            ..spec("f.csv")
        };
        let text =
            "colour,x,y,part\nred,1,yes,train\nblue,?,no,train\nred,2,no,test\ngreen,3,yes,train\n";
        let raw = parse(&s, text).unwrap();
        assert_eq!(raw.labels, [1.0, -1.0, 1.0]);
        assert_eq!(raw.is_train, [true, false, true]);
        assert_eq!(raw.dropped, 1);
        let t = raw.preprocess(&Scaling::None, RowNorm::Clip, 1.0, None);
        // levels from the training rows only (green, red), sorted
        assert_eq!(t.features, ["colour=green", "colour=red", "x"]);
        let e = parse(&s, "colour,x,y,part\nred,1,maybe,train\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("\"maybe\""), "{e}");
        let e = parse(&s, "colour,x,y,part\nred,1,yes,validation\n").unwrap_err();
        assert!(e.contains("\"validation\", allowed: train or test"), "{e}");
    }

    /// Clipping touches only rows above c; scaling brings every row to c; bounds
    /// map declared ranges to [−0.5, 0.5] with no data-dependent step.
    #[test]
    fn rows_are_brought_to_the_declared_norm() {
        let raw = |x: [[f64; 2]; 3]| RawData {
            name: "t".into(),
            columns: vec![
                Column::Numeric("a".into(), x.iter().map(|r| r[0]).collect()),
                Column::Numeric("b".into(), x.iter().map(|r| r[1]).collect()),
            ],
            labels: vec![1.0, -1.0, 1.0],
            is_train: vec![true, true, false],
            dropped: 0,
        };
        let data = [[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]];
        let t = raw(data).preprocess(&Scaling::None, RowNorm::Clip, 2.0, None);
        assert_eq!(t.train_x.row(0).norm(), 2.0);
        assert_eq!(t.train_x[(1, 0)], 0.3); // below c: unchanged, bit for bit
        assert_eq!(t.test_x.row(0).norm(), 0.0);
        let t = raw(data).preprocess(&Scaling::None, RowNorm::Scale, 2.0, None);
        assert!((t.train_x.row(1).norm() - 2.0).abs() < 1e-15);
        let mut b = BTreeMap::new();
        b.insert("a".to_string(), [0.0, 10.0]);
        b.insert("b".to_string(), [0.0, 1.0]);
        let t = raw(data).preprocess(&Scaling::Bounds(b), RowNorm::Clip, 10.0, None);
        assert_eq!(t.train_x[(0, 0)], -0.2); // 3 of [0, 10] → 0.3 − 0.5
        assert_eq!(t.train_x[(0, 1)], 0.5); // 4 clipped to 1 → 0.5
        assert_eq!(t.max_norm, 10.0);
        // the content hash sees every value
        let a = raw(data).preprocess(&Scaling::None, RowNorm::Clip, 2.0, None);
        let mut other = data;
        other[2][1] = 1e-300;
        let b = raw(other).preprocess(&Scaling::None, RowNorm::Clip, 2.0, None);
        assert_ne!(a.content_sha256, b.content_sha256);
    }

    #[test]
    fn tables_are_validated_before_any_file_is_read() {
        let t: toml::Value = toml::from_str(
            "path = \"x.csv\"\nscaling = \"bounds\"\ncategorical = [\"c\"]\nfeatures = [\"a\"]",
        )
        .unwrap();
        let e = parse_spec("mine", &t).unwrap_err();
        assert_eq!(e.key, "csv_datasets.mine.categorical");
        for (text, key) in [
            (
                "path = \"x.csv\"\nmax_norm = 0.0",
                "csv_datasets.mine.max_norm",
            ),
            (
                "path = \"x.csv\"\nscaling = \"bounds\"",
                "csv_datasets.mine.bounds",
            ),
            (
                "path = \"x.csv\"\nbounds = { a = [0.0, 1.0] }",
                "csv_datasets.mine.bounds",
            ),
            (
                "path = \"x.csv\"\nscaling = \"bounds\"\nbounds = { a = [1.0, 1.0] }",
                "csv_datasets.mine.bounds.a",
            ),
            ("path = \"x.csv\"\nlabl = \"y\"", "csv_datasets.mine.labl"),
            (
                "path = \"x.csv\"\nnegative = \"n\"",
                "csv_datasets.mine.negative",
            ),
            (
                "path = \"x.csv\"\nscaling = \"minmax\"",
                "csv_datasets.mine.scaling",
            ),
        ] {
            let t: toml::Value = toml::from_str(text).unwrap();
            let e = parse_spec("mine", &t).unwrap_err();
            assert_eq!(e.key, key, "{text}: {e:?}");
        }
    }
}
