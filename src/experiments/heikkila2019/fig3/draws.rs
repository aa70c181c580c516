//! Fig. 3's kept draws (`keep_draws = true`): each chain's θ at its checkpoints,
//! in the layout of [`crate::results::draws`] with run columns `method`, `run`
//! (one chain per task). A task appends its draw rows after its `data.csv` rows;
//! they are told apart by their width (6 cells against `Fig3Row`'s 8).

use std::cell::RefCell;

use crate::results::draws::KeptDraws;
use crate::results::table::Row;

/// The run columns of `draws.csv`.
const RUN_COLUMNS: [&str; 2] = ["method", "run"];
/// The width of a draw row: the run columns, chain, draw, θ₁, θ₂.
const WIDTH: usize = RUN_COLUMNS.len() + 4;

/// One task's kept draws, numbered as they come.
pub(super) struct Trail {
    on: bool,
    rows: RefCell<Vec<Row>>,
}

impl Trail {
    pub(super) fn new(on: bool) -> Self {
        Self {
            on,
            rows: RefCell::new(Vec::new()),
        }
    }

    /// Keeps θ (when keeping, and when there is one) as the chain's next draw.
    pub(super) fn keep(&self, method: &str, run: u64, theta: Option<[f64; 2]>) {
        let (true, Some(theta)) = (self.on, theta) else {
            return;
        };
        let mut rows = self.rows.borrow_mut();
        let draw = rows.len() + 1;
        rows.push(KeptDraws::row(
            vec![method.into(), run.into()],
            1,
            draw,
            &theta,
        ));
    }

    pub(super) fn into_rows(self) -> Vec<Row> {
        self.rows.into_inner()
    }
}

/// A task's rows split into `data.csv`'s and its draws.
pub(super) fn split(on: bool, rows: Vec<Row>) -> (Vec<Row>, Vec<Row>) {
    if !on {
        return (rows, Vec::new());
    }
    rows.into_iter().partition(|r| r.len() != WIDTH)
}

/// The run's kept draws from the rows split off its tasks.
pub(super) fn kept(on: bool, rows: Vec<Row>) -> anyhow::Result<Option<KeptDraws>> {
    if !on {
        return Ok(None);
    }
    let mut kept = KeptDraws::new(&RUN_COLUMNS, vec!["theta1".into(), "theta2".into()]);
    kept.extend(rows)?;
    Ok(Some(kept))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draw_row_is_never_as_wide_as_a_data_row() {
        let data = crate::results::record::columns::<super::super::Fig3Row>().len();
        assert_ne!(data, WIDTH);
        let t = Trail::new(true);
        t.keep("dp_mcmc", 2, Some([1.0, 2.0]));
        t.keep("dp_mcmc", 2, None);
        let rows = t.into_rows();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].len(), WIDTH);
        let (d, k) = split(true, rows);
        assert!(d.is_empty() && k.len() == 1);
    }
}
