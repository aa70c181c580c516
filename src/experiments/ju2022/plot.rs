//! The two figures: per parameter, the posterior mean (mean over repeats) ±
//! the posterior sd (mean over repeats) against ε, one curve per run, the
//! data-generating value as a line; a last panel with the records' acceptance
//! rate beside its lower bound e^{−Δ₁/b}.

use std::path::Path;

use super::{Run, SummaryRow};
use crate::plot::grid::PanelGrid;
use crate::plot::{render_headed, summary, Band, DrawError};

const LOGLINEAR: &str = "Posterior mean ± posterior sd (both averaged over repeats) of the class probabilities; one chain per release";
const REGRESSION: &str =
    "Posterior mean ± posterior sd (both averaged over repeats) of β; one chain per release";

pub fn loglinear(dir: &Path) -> Result<(), DrawError> {
    draw(dir, LOGLINEAR, "class probability")
}

pub fn regression(dir: &Path) -> Result<(), DrawError> {
    draw(dir, REGRESSION, "coefficient")
}

fn draw(dir: &Path, own: &str, what: &str) -> Result<(), DrawError> {
    let rows: Vec<SummaryRow> = summary(dir)?.records().map_err(|e| DrawError(e.0))?;
    let mut parameters: Vec<&str> = Vec::new();
    let mut runs: Vec<Run> = Vec::new();
    for r in &rows {
        if !parameters.contains(&r.parameter.as_str()) {
            parameters.push(&r.parameter);
        }
        if !runs.contains(&r.run) {
            runs.push(r.run);
        }
    }
    let x = |r: &SummaryRow| r.epsilon.log10();
    let mut panels: Vec<(String, Vec<Band>)> = Vec::new();
    for p in &parameters {
        let of: Vec<&SummaryRow> = rows.iter().filter(|r| r.parameter == *p).collect();
        let mut bands: Vec<Band> = runs
            .iter()
            .map(|run| {
                let points = of
                    .iter()
                    .filter(|r| r.run == *run)
                    .map(|r| (x(r), r.mean, r.sd))
                    .collect();
                (run.as_str().to_string(), points)
            })
            .collect();
        let mut truth: Vec<(f64, f64, f64)> = of.iter().map(|r| (x(r), r.truth, 0.0)).collect();
        truth.sort_by(|a, b| a.0.total_cmp(&b.0));
        truth.dedup_by(|a, b| a.0 == b.0);
        bands.push(("data_generating".into(), truth));
        panels.push((p.to_string(), bands));
    }
    let first = parameters.first().copied().unwrap_or_default();
    let acceptance: Vec<Band> = runs
        .iter()
        .filter(|r| **r != Run::NonPrivate)
        .map(|run| {
            let points = rows
                .iter()
                .filter(|r| r.run == *run && r.parameter == first)
                .filter_map(|r| r.acceptance.map(|a| (x(r), a, 0.0)))
                .collect();
            (run.as_str().to_string(), points)
        })
        .chain(std::iter::once((
            "acceptance_bound".to_string(),
            rows.iter()
                .filter(|r| r.run == Run::RecordWise && r.parameter == first)
                .filter_map(|r| r.bound.map(|b| (x(r), b, 0.0)))
                .collect(),
        )))
        .collect();
    panels.push(("records' acceptance rate".into(), acceptance));
    let mut order: Vec<String> = runs.iter().map(|r| r.as_str().to_string()).collect();
    order.push("data_generating".into());
    order.push("acceptance_bound".into());
    let mut y_descs: Vec<String> = parameters.iter().map(|_| what.to_string()).collect();
    y_descs.push("acceptance rate (mean over repeats)".into());
    let cols = 3.min(panels.len());
    let grid = PanelGrid {
        rows: panels.len().div_ceil(cols),
        cols,
        panels,
        x_desc: "ε".into(),
        y_desc: what.into(),
        order,
        x_log10: true,
        subtitle: None,
        y_descs,
        shared_y: false,
        intervals: Vec::new(),
    };
    render_headed(grid, dir, None, Some(own.to_string()))
}
