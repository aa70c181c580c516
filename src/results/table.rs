//! Rows and tables as written to `data.csv` and `summary.csv`.
//!
//! Floats are written with Rust's shortest round-trip representation
//! (`{:?}`: `0.1`, `1e-7`, `inf`), so a value read back from a CSV is the
//! same double, and the bytes depend on nothing but the value.

use std::fmt;
use std::io::Write;
use std::path::Path;

#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Str(String),
    Int(i64),
    Float(f64),
    /// Not applicable for this row (written as an empty field).
    Empty,
}

impl From<&str> for Cell {
    fn from(s: &str) -> Self {
        Cell::Str(s.to_string())
    }
}
impl From<String> for Cell {
    fn from(s: String) -> Self {
        Cell::Str(s)
    }
}
impl From<f64> for Cell {
    fn from(x: f64) -> Self {
        Cell::Float(x)
    }
}
impl From<u64> for Cell {
    fn from(x: u64) -> Self {
        Cell::Int(x as i64)
    }
}
impl From<usize> for Cell {
    fn from(x: usize) -> Self {
        Cell::Int(x as i64)
    }
}
impl From<Option<f64>> for Cell {
    fn from(x: Option<f64>) -> Self {
        x.map_or(Cell::Empty, Cell::Float)
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Str(s) => f.write_str(s),
            Cell::Int(i) => write!(f, "{i}"),
            Cell::Float(x) if x.is_nan() => f.write_str("nan"),
            Cell::Float(x) => write!(f, "{x:?}"),
            Cell::Empty => Ok(()),
        }
    }
}

impl Cell {
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Float(x) => Some(*x),
            Cell::Int(i) => Some(*i as f64),
            Cell::Str(s) => parse_f64(s),
            Cell::Empty => None,
        }
    }

    pub fn as_str(&self) -> String {
        self.to_string()
    }
}

/// Parses a CSV float, accepting `inf`, `-inf` and `nan`.
pub fn parse_f64(s: &str) -> Option<f64> {
    match s.trim() {
        "" => None,
        "inf" | "+inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" | "NaN" => Some(f64::NAN),
        t => t.parse().ok(),
    }
}

pub type Row = Vec<Cell>;

/// A header and rows; the unit in which experiments produce and plots read data.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Row>,
}

/// A NaN where a number was expected: where it is (1-based data row).
#[derive(Debug, Clone, PartialEq)]
pub struct NanCell {
    pub column: String,
    pub row: usize,
}

/// A CSV table that cannot be read back (the message names the file, row or column).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct TableReadError(pub String);

impl Table {
    /// Makes the table fit to write: a standard error (a column named `se` or
    /// ending in `_se`) that is NaN — one run, nothing to estimate it from —
    /// becomes an empty cell ("not applicable"); any other NaN is returned as
    /// an error, so that no NaN is ever written for a reader to take as data.
    pub fn without_nan(mut self) -> Result<Self, NanCell> {
        let se: Vec<bool> = self
            .header
            .iter()
            .map(|h| h == "se" || h.ends_with("_se"))
            .collect();
        for (r, row) in self.rows.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                if matches!(cell, Cell::Float(x) if x.is_nan()) {
                    if se.get(c).copied().unwrap_or(false) {
                        *cell = Cell::Empty;
                    } else {
                        return Err(NanCell {
                            column: self
                                .header
                                .get(c)
                                .cloned()
                                .unwrap_or_else(|| format!("#{}", c + 1)),
                            row: r + 1,
                        });
                    }
                }
            }
        }
        Ok(self)
    }
}

/// A column that a table was expected to have is missing.
#[derive(Debug, thiserror::Error)]
#[error("{source_name}: missing column `{column}` (has: {have})")]
pub struct MissingColumn {
    pub source_name: String,
    pub column: String,
    pub have: String,
}

/// What a column of a written table holds, recorded in the manifest so that
/// `plot` can tell a damaged file from an intended one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColumnKind {
    /// A number in every row.
    Number,
    /// Numbers, and empty cells ("not applicable") in some rows.
    NumberOrEmpty,
    /// Labels, or a mix of labels and numbers.
    Text,
    /// Only empty cells.
    Empty,
}

impl Table {
    /// The kind of every column, from the typed cells as written.
    pub fn column_kinds(&self) -> std::collections::BTreeMap<String, ColumnKind> {
        self.header
            .iter()
            .enumerate()
            .map(|(c, name)| {
                let (mut numbers, mut texts, mut empty) = (0usize, 0usize, 0usize);
                for row in &self.rows {
                    match row.get(c) {
                        Some(Cell::Int(_) | Cell::Float(_)) => numbers += 1,
                        Some(Cell::Str(_)) => texts += 1,
                        Some(Cell::Empty) | None => empty += 1,
                    }
                }
                let kind = match (numbers, texts, empty) {
                    (0, 0, _) => ColumnKind::Empty,
                    (_, 0, 0) => ColumnKind::Number,
                    (_, 0, _) => ColumnKind::NumberOrEmpty,
                    _ => ColumnKind::Text,
                };
                (name.clone(), kind)
            })
            .collect()
    }

    pub fn new(header: &[&str], rows: Vec<Row>) -> Self {
        Self {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows,
        }
    }

    pub fn col(&self, name: &str) -> Result<usize, MissingColumn> {
        self.header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| MissingColumn {
                source_name: "table".into(),
                column: name.into(),
                have: self.header.join(", "),
            })
    }

    /// Float at (row, column); NaN when empty or unparsable.
    pub fn f(&self, row: usize, col: usize) -> f64 {
        self.rows[row]
            .get(col)
            .and_then(Cell::as_f64)
            .unwrap_or(f64::NAN)
    }

    pub fn s(&self, row: usize, col: usize) -> String {
        self.rows[row]
            .get(col)
            .map(Cell::as_str)
            .unwrap_or_default()
    }

    /// Writes the table as CSV (header first) to `path`.
    pub fn write_csv(&self, path: &Path) -> std::io::Result<()> {
        let file = std::fs::File::create(path)?;
        let mut w = csv::Writer::from_writer(std::io::BufWriter::new(file));
        w.write_record(&self.header)?;
        // one String per column, reused row after row (no allocation per cell)
        let mut buf: Vec<String> = Vec::new();
        for row in &self.rows {
            buf.resize_with(row.len(), String::new);
            for (b, cell) in buf.iter_mut().zip(row) {
                b.clear();
                fmt::Write::write_fmt(b, format_args!("{cell}")).map_err(std::io::Error::other)?;
            }
            w.write_record(&buf[..row.len()])?;
        }
        let mut inner = w.into_inner().map_err(|e| e.into_error())?;
        inner.flush()
    }

    /// Reads a CSV written by [`Table::write_csv`]; every cell comes back as a string.
    /// Only a regular file of at most [`crate::input::MAX_TABLE_BYTES`] is read: a
    /// folder's `summary.csv` that is a pipe or a link to `/dev/zero` is refused
    /// with what it is, instead of blocking or filling memory.
    pub fn read_csv(path: &Path) -> Result<Self, TableReadError> {
        use std::io::Read;
        let cap = crate::input::MAX_TABLE_BYTES;
        let file = crate::input::open_capped(path, cap, false)
            .map_err(|e| TableReadError(e.to_string()))?;
        let mut r = csv::Reader::from_reader(file.take(cap));
        let header = r
            .headers()
            .map_err(|e| TableReadError(format!("{}: {e}", path.display())))?
            .iter()
            .map(str::to_string)
            .collect();
        let mut rows = Vec::new();
        for (i, rec) in r.records().enumerate() {
            let rec = rec
                .map_err(|e| TableReadError(format!("{}: line {}: {e}", path.display(), i + 2)))?;
            rows.push(rec.iter().map(|s| Cell::Str(s.to_string())).collect());
        }
        Ok(Self { header, rows })
    }

    /// Like [`Table::col`] but names the file in the error.
    pub fn require(&self, name: &str, source: &Path) -> Result<usize, MissingColumn> {
        self.col(name).map_err(|mut e| {
            e.source_name = source.display().to_string();
            e
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_standard_errors_become_empty_and_other_nans_are_refused() {
        let t = Table {
            header: vec!["mean".into(), "mean_se".into()],
            rows: vec![vec![1.0.into(), f64::NAN.into()]],
        };
        let t = t.without_nan().unwrap();
        assert_eq!(t.rows[0][1], Cell::Empty);
        let t = Table {
            header: vec!["mean".into(), "se".into()],
            rows: vec![
                vec![1.0.into(), 0.5.into()],
                vec![f64::NAN.into(), 0.5.into()],
            ],
        };
        assert_eq!(
            t.without_nan().unwrap_err(),
            NanCell {
                column: "mean".into(),
                row: 2
            }
        );
    }

    #[test]
    fn floats_round_trip_through_csv_text() {
        for x in [0.1, 1e-7, 1.0 / 3.0, f64::INFINITY, 12345678.9, -2.5e-300] {
            let text = Cell::Float(x).to_string();
            assert_eq!(parse_f64(&text), Some(x), "{text}");
        }
        assert_eq!(Cell::Float(f64::INFINITY).to_string(), "inf");
        assert_eq!(Cell::Empty.to_string(), "");
    }

    #[test]
    fn write_then_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        let t = Table::new(
            &["a", "b"],
            vec![
                vec!["x,y".into(), 0.5.into()],
                vec![Cell::Empty, f64::INFINITY.into()],
            ],
        );
        t.write_csv(&path).unwrap();
        let back = Table::read_csv(&path).unwrap();
        assert_eq!(back.s(0, 0), "x,y");
        assert_eq!(back.f(0, 1), 0.5);
        assert!(back.f(1, 0).is_nan());
        assert_eq!(back.f(1, 1), f64::INFINITY);
    }
}
