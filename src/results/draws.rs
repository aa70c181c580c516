//! The one layout of kept posterior draws: `draws.csv`.
//!
//! One row per kept draw of one chain; the columns are
//!
//! 1. the **run columns** (none, or the names that tell runs apart, such as
//!    `method, epsilon, repeat`): one run is one set of chains of one posterior;
//! 2. `chain`: 1, 2, … within the run;
//! 3. `draw`: 1, 2, … within the chain, after warm-up (burn-in) and thinning;
//! 4. one column per parameter, in the model's order.
//!
//! A value that is not a number (a diverged chain) is an empty cell. The
//! manifest records the layout under `draws` ([`Layout`]): the file, the run
//! columns and the parameters, so a reader (the Python package's
//! `to_inference_data`, ArviZ) needs nothing else. `privpost infer`, the
//! figures that keep draws (heikkila2019/fig2 always, raisa2021/banana and
//! /gauss with `keep_draws = true`) all write this layout.

use serde::Serialize;

use super::table::{Cell, Row, Table};

/// The file name of kept draws in a result folder.
pub const FILE: &str = "draws.csv";

/// What the manifest records of a folder's `draws.csv`.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Layout {
    pub file: String,
    /// the columns that tell runs apart (before `chain` and `draw`)
    pub run_columns: Vec<String>,
    /// the parameter columns (after `chain` and `draw`)
    pub parameters: Vec<String>,
    /// rows in the file
    pub rows: usize,
}

/// Kept draws, built row by row in the layout.
#[derive(Debug, Clone)]
pub struct KeptDraws {
    run_columns: Vec<String>,
    parameters: Vec<String>,
    rows: Vec<Row>,
}

impl KeptDraws {
    pub fn new(run_columns: &[&str], parameters: Vec<String>) -> Self {
        Self {
            run_columns: run_columns.iter().map(|s| s.to_string()).collect(),
            parameters,
            rows: Vec::new(),
        }
    }

    /// The row of draw `draw` (1-based) of chain `chain` (1-based) of the run
    /// `run` (its run columns' cells).
    pub fn row(run: Vec<Cell>, chain: usize, draw: usize, values: &[f64]) -> Row {
        let mut row = run;
        row.push(chain.into());
        row.push(draw.into());
        row.extend(values.iter().map(|&x| {
            if x.is_nan() {
                Cell::Empty
            } else {
                Cell::Float(x)
            }
        }));
        row
    }

    /// Adds rows made by [`KeptDraws::row`]; a row of the wrong width is an error.
    pub fn extend(&mut self, rows: Vec<Row>) -> anyhow::Result<()> {
        let width = self.run_columns.len() + 2 + self.parameters.len();
        if let Some(r) = rows.iter().find(|r| r.len() != width) {
            anyhow::bail!(
                "a kept draw has {} cells where {}'s columns are {width}",
                r.len(),
                FILE
            );
        }
        self.rows.extend(rows);
        Ok(())
    }

    /// Adds the draws of one chain.
    pub fn push_chain<'a>(
        &mut self,
        run: &[Cell],
        chain: usize,
        draws: impl IntoIterator<Item = &'a [f64]>,
    ) {
        for (d, values) in draws.into_iter().enumerate() {
            self.rows
                .push(Self::row(run.to_vec(), chain, d + 1, values));
        }
    }

    pub fn header(&self) -> Vec<String> {
        let mut h = self.run_columns.clone();
        h.push("chain".into());
        h.push("draw".into());
        h.extend(self.parameters.iter().cloned());
        h
    }

    pub fn layout(&self) -> Layout {
        Layout {
            file: FILE.into(),
            run_columns: self.run_columns.clone(),
            parameters: self.parameters.clone(),
            rows: self.rows.len(),
        }
    }

    pub fn into_table(self) -> Table {
        Table {
            header: self.header(),
            rows: self.rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_the_layout_and_a_nan_is_an_empty_cell() {
        let mut k = KeptDraws::new(&["method"], vec!["a".into(), "b".into()]);
        k.push_chain(
            &[Cell::from("x")],
            2,
            [[1.0, f64::NAN].as_slice(), [3.0, 4.0].as_slice()],
        );
        assert!(k.extend(vec![vec![Cell::Int(1)]]).is_err());
        let layout = k.layout();
        assert_eq!(layout.rows, 2);
        assert_eq!(layout.run_columns, ["method"]);
        let t = k.into_table();
        assert_eq!(t.header, ["method", "chain", "draw", "a", "b"]);
        assert_eq!(t.rows[0][1], Cell::Int(2));
        assert_eq!(t.rows[0][2], Cell::Int(1));
        assert_eq!(t.rows[0][4], Cell::Empty);
        assert_eq!(t.rows[1][2], Cell::Int(2));
    }
}
