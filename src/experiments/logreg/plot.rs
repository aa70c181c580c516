//! Logistic-regression figures: a grid of panels, each with mean ± s.e. curves
//! (geumlek2017/fig3 and its log-likelihood companion, minami2016/logreg), and the
//! sampler-validation scatter (geumlek2017/samplers).

use crate::plot::{data, render, render_as, summary};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

use crate::plot::grid::PanelGrid;
use crate::plot::style::{self, Entry};
use crate::plot::{first_seen, tick, Draw, DrawError};

/// A dataset's display name.
fn dataset_name(d: &str) -> String {
    match d {
        "abalone" => "Abalone".into(),
        "adult" => "Adult".into(),
        "mnist" => "MNIST 3 vs 8".into(),
        "mnist_full" => "MNIST 3 vs 8 (full)".into(),
        other => other.into(),
    }
}

/// A summary's test metric: (mean, s.e.) of the test error or of the test
/// log-likelihood.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Metric {
    Error,
    Loglik,
}

/// Figure 3 layout from a summary: rows λ, columns datasets, series mechanisms.
pub fn fig3(
    rows: &[crate::experiments::geumlek2017::Fig3Summary],
    metric: Metric,
    y_desc: &str,
) -> PanelGrid {
    let datasets = first_seen(rows.iter().map(|r| r.dataset.as_str()));
    let lambdas = first_seen(rows.iter().map(|r| r.lambda));
    let order = first_seen(rows.iter().map(|r| r.mechanism.as_str()));
    let mut panels = Vec::new();
    for &l in &lambdas {
        for &d in &datasets {
            let bands = order
                .iter()
                .map(|&name| {
                    let pts = rows
                        .iter()
                        .filter(|r| r.dataset == d && r.lambda == l && r.mechanism == name)
                        .map(|r| match metric {
                            Metric::Error => (r.ln_epsilon, r.test_error_mean, r.test_error_se),
                            Metric::Loglik => (r.ln_epsilon, r.test_loglik_mean, r.test_loglik_se),
                        })
                        .collect();
                    (name.to_string(), pts)
                })
                .collect();
            panels.push((format!("{}, λ = {}", dataset_name(d), tick(&l)), bands));
        }
    }
    PanelGrid {
        rows: lambdas.len(),
        cols: datasets.len(),
        panels,
        x_desc: "ln ε".into(),
        y_desc: y_desc.into(),
        order: order.into_iter().map(String::from).collect(),
        x_log10: false,
        subtitle: Some(
            "(λ, ε)-RDP; mean ± s.e. over independent draws; rows: Rényi order λ".into(),
        ),

        y_descs: Vec::new(),
        shared_y: false,
        intervals: Vec::new(),
    }
}

/// Minami figure: one panel per dataset, x = ln ε, series mechanisms.
pub fn minami(rows: &[crate::experiments::minami2016::LogregSummary]) -> PanelGrid {
    let datasets = first_seen(rows.iter().map(|r| r.dataset.as_str()));
    let order = first_seen(rows.iter().map(|r| r.mechanism.as_str()));
    let delta = rows
        .first()
        .map(|r| crate::results::table::Cell::from(r.delta).to_string())
        .unwrap_or_default();
    let panels = datasets
        .iter()
        .map(|&d| {
            let bands = order
                .iter()
                .map(|&name| {
                    let pts = rows
                        .iter()
                        .filter(|r| r.dataset == d && r.mechanism == name)
                        .map(|r| (r.ln_epsilon, r.test_error_mean, r.test_error_se))
                        .collect();
                    (name.to_string(), pts)
                })
                .collect();
            (dataset_name(d), bands)
        })
        .collect();
    PanelGrid {
        rows: 1,
        cols: datasets.len(),
        panels,
        x_desc: "ln ε".into(),
        y_desc: "test error, mean ± s.e.".into(),
        order: order.into_iter().map(String::from).collect(),
        x_log10: false,
        subtitle: Some(format!("(ε, δ)-DP at δ = {delta}; logistic regression")),
        y_descs: Vec::new(),
        shared_y: false,
        intervals: Vec::new(),
    }
}

/// Sampler validation: posterior means of each sampler against the reference chain,
/// one panel per dataset (points on the diagonal = agreement).
pub struct SamplerScatter {
    pub panels: Vec<(String, Vec<Points>)>,
}

/// A named series of (x, y) points.
pub type Points = (String, Vec<(f64, f64)>);

/// From the validation run's data.csv: each sampler's per-coordinate means against
/// the pooled reference chains' means.
pub fn samplers(data: &[crate::experiments::geumlek2017::samplers::SamplerRow]) -> SamplerScatter {
    let coords: Vec<_> = data.iter().filter(|r| r.record == "coordinate").collect();
    let mean =
        |r: &crate::experiments::geumlek2017::samplers::SamplerRow| r.mean.unwrap_or(f64::NAN);
    let panels = first_seen(data.iter().map(|r| r.dataset.as_str()))
        .into_iter()
        .map(|d| {
            let mut reference: std::collections::BTreeMap<u64, (f64, f64)> = Default::default();
            for r in coords
                .iter()
                .filter(|r| r.dataset == d && r.sampler == "reference")
            {
                let e = reference.entry(r.index).or_default();
                e.0 += r.n as f64 * mean(r);
                e.1 += r.n as f64;
            }
            let series = ["hmc", "imh", "paper_slice"]
                .iter()
                .map(|s| {
                    let pts = coords
                        .iter()
                        .filter(|r| r.dataset == d && r.sampler == *s)
                        .filter_map(|r| {
                            let (sum, w) = reference.get(&r.index)?;
                            Some((sum / w, mean(r)))
                        })
                        .collect();
                    (s.to_string(), pts)
                })
                .filter(|(_, p): &Points| !p.is_empty())
                .collect();
            (d.to_string(), series)
        })
        .collect();
    SamplerScatter { panels }
}

impl SamplerScatter {
    fn entries(&self) -> Vec<Entry> {
        let mut names: Vec<&str> = Vec::new();
        for (_, series) in &self.panels {
            for (s, _) in series {
                if !names.contains(&s.as_str()) {
                    names.push(s);
                }
            }
        }
        names
            .iter()
            .enumerate()
            .map(|(k, n)| Entry {
                line: false,
                ..Entry::of(&style::series(n, k))
            })
            .collect()
    }
}

impl Draw for SamplerScatter {
    fn size(&self) -> (u32, u32) {
        let w = 560 * self.panels.len().max(1) as u32;
        (w, 560 + style::legend_height(&self.entries(), w))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let entries = self.entries();
        let (body, legend_area) = style::with_legend(root, &entries);
        let areas = body.split_evenly((1, self.panels.len().max(1)));
        for ((name, series), area) in self.panels.iter().zip(areas.iter()) {
            let all = series
                .iter()
                .flat_map(|s| s.1.iter())
                .flat_map(|p| [p.0, p.1]);
            let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
            if !lo.is_finite() {
                continue;
            }
            let pad = 0.05 * (hi - lo).max(1e-6);
            let (lo, hi) = (lo - pad, hi + pad);
            let mut chart = ChartBuilder::on(area)
                .caption(
                    format!("{}: posterior means of w", dataset_name(name)),
                    ("sans-serif", style::TITLE),
                )
                .margin(12)
                .x_label_area_size(style::X_AREA)
                .y_label_area_size(style::Y_AREA)
                .build_cartesian_2d(crate::plot::axis(lo..hi)?, crate::plot::axis(lo..hi)?)?;
            style::mesh(&mut chart)
                .x_desc("reference chains")
                .y_desc("sampler")
                .x_labels(5)
                .y_labels(5)
                .x_label_formatter(&tick)
                .y_label_formatter(&tick)
                .draw()?;
            chart.draw_series(LineSeries::new(vec![(lo, lo), (hi, hi)], BLACK.mix(0.4)))?;
            for (k, (s, pts)) in series.iter().enumerate() {
                let st = style::series(s, k);
                chart.draw_series(
                    pts.iter()
                        .map(|&p| style::Mark::new(p, st.marker, st.color, 4)),
                )?;
            }
        }
        style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}

/// Geumlek Fig. 3 (`figure`) and the appendix's test log-likelihood (`figure_loglik`).
pub fn draw_fig3(dir: &Path) -> Result<(), DrawError> {
    let s = summary(dir)?.records().map_err(|e| DrawError(e.0))?;
    render(&fig3(&s, Metric::Error, "test error, mean ± s.e."), dir)?;
    render_as(
        &fig3(&s, Metric::Loglik, "test log-likelihood, mean ± s.e."),
        dir,
        "figure_loglik",
    )
}

/// Minami's logistic-regression figure from `summary.csv`.
pub fn draw_minami(dir: &Path) -> Result<(), DrawError> {
    let rows = summary(dir)?.records().map_err(|e| DrawError(e.0))?;
    render(&minami(&rows), dir)
}

/// The sampler-validation figure, from `data.csv`.
pub fn draw_samplers(dir: &Path) -> Result<(), DrawError> {
    let rows = data(dir)?.records().map_err(|e| DrawError(e.0))?;
    crate::plot::render_headed(
        samplers(&rows),
        dir,
        None,
        Some(
            "one point per weight: its posterior mean under the sampler against the long reference chains (on the diagonal: agreement)"
                .into(),
        ),
    )
}
