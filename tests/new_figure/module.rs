//! A scratch figure, the one `tests/new_figure.rs` walks through the recipe of
//! docs/architecture.md: the mean of n draws from N(μ, 1), per repeat.

use crate::config::{check, deserialize, ParamError};
use crate::experiments::{Figure, Plan, Ready};
use crate::plot::DrawError;
use crate::privacy::event::{Event, Guarantee};
use crate::privacy::ledger::{Entry, Ledger};
use crate::results::record::to_row;
use crate::results::table::{Row, Table};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    mu: f64,
    n: u64,
    repeats: u64,
}

pub const SCHEMA: crate::config::shape::Schema = crate::config::shape::shape_of::<Config>;

/// A row of `data.csv`: one repeat's sample mean.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScratchRow {
    pub repeat: u64,
    pub sample_mean: f64,
}

/// The row of `summary.csv`: the sample means' mean and standard error.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScratchSummary {
    pub repeats: u64,
    pub mean: f64,
    pub se: f64,
}

struct Scratch {
    c: Config,
}

pub fn validate(params: &toml::Table, _seed: u64) -> Result<Box<dyn Plan>, ParamError> {
    let c: Config = deserialize(params)?;
    check::at_least("n", c.n, 1)?;
    check::at_least("repeats", c.repeats, 1)?;
    Ok(Box::new(Ready(Box::new(Scratch { c }))))
}

impl Figure for Scratch {
    fn task_count(&self) -> usize {
        self.c.repeats as usize
    }

    fn grid_description(&self) -> String {
        format!("{} repeats of {} draws", self.c.repeats, self.c.n)
    }

    fn run_task(&self, index: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<Vec<Row>> {
        let sum: f64 = (0..self.c.n)
            .map(|_| {
                let z: f64 = StandardNormal.sample(rng);
                self.c.mu + z
            })
            .sum();
        Ok(vec![to_row(&ScratchRow {
            repeat: index as u64,
            sample_mean: sum / self.c.n as f64,
        })])
    }

    fn summarize(&self, data: &Table) -> anyhow::Result<Table> {
        let rows: Vec<ScratchRow> = data.records()?;
        let xs: Vec<f64> = rows.iter().map(|r| r.sample_mean).collect();
        let (mean, se) = crate::stats::mean_se(&xs);
        Ok(Table::of_records(&[ScratchSummary {
            repeats: xs.len() as u64,
            mean,
            se,
        }]))
    }

    fn manifest_details(&self) -> serde_json::Value {
        serde_json::json!({})
    }

    fn ledger(&self) -> anyhow::Result<Ledger> {
        Ok(vec![Entry::new("scratch", Event::NonPrivate, Guarantee::None)
            .when("non-private draws from N(μ, 1)")])
    }
}

pub fn plot(dir: &std::path::Path) -> Result<(), DrawError> {
    let rows: Vec<ScratchRow> = crate::plot::data(dir)?
        .records()
        .map_err(|e| DrawError(e.0))?;
    let points = rows
        .iter()
        .map(|r| (r.repeat as f64, r.sample_mean, 0.0))
        .collect();
    let grid = crate::plot::grid::PanelGrid {
        rows: 1,
        cols: 1,
        panels: vec![("sample means".into(), vec![("sample mean".into(), points)])],
        x_desc: "repeat".into(),
        y_desc: "sample mean".into(),
        order: vec!["sample mean".into()],
        x_log10: false,
        subtitle: None,
        y_descs: Vec::new(),
        shared_y: false,
        intervals: Vec::new(),
    };
    crate::plot::render(&grid, dir)
}
