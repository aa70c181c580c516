//! Logistic-regression figures: a grid of panels, each with mean ± s.e. curves
//! (geumlek2017/fig3 and its log-likelihood companion, minami2016/logreg), and the
//! sampler-validation scatter (geumlek2017/samplers).

use crate::plot::{data, render, render_as, summary};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

use crate::plot::grid::PanelGrid;
use crate::plot::style::{self, Entry};
use crate::plot::{distinct, tick, Draw, DrawError};
use crate::results::table::Table;

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

/// Figure 3 layout from a summary: rows λ, columns datasets, series mechanisms.
pub fn fig3(t: &Table, metric: &str, y_desc: &str) -> Result<PanelGrid, DrawError> {
    let (ds, lam, le, mech) = (
        t.col("dataset")?,
        t.col("lambda")?,
        t.col("ln_epsilon")?,
        t.col("mechanism")?,
    );
    let (m, s) = (
        t.col(&format!("{metric}_mean"))?,
        t.col(&format!("{metric}_se"))?,
    );
    let datasets = distinct(t, ds);
    let lambdas = distinct(t, lam);
    let order = distinct(t, mech);
    let mut panels = Vec::new();
    for l in &lambdas {
        for d in &datasets {
            let bands = order
                .iter()
                .map(|name| {
                    let pts = (0..t.rows.len())
                        .filter(|&i| t.s(i, ds) == *d && t.s(i, lam) == *l && t.s(i, mech) == *name)
                        .map(|i| (t.f(i, le), t.f(i, m), t.f(i, s)))
                        .collect();
                    (name.clone(), pts)
                })
                .collect();
            panels.push((
                format!(
                    "{}, λ = {}",
                    dataset_name(d),
                    tick(&l.parse().unwrap_or(f64::NAN))
                ),
                bands,
            ));
        }
    }
    Ok(PanelGrid {
        rows: lambdas.len(),
        cols: datasets.len(),
        panels,
        x_desc: "ln ε".into(),
        y_desc: y_desc.into(),
        order,
        x_log10: false,
        subtitle: Some(
            "(λ, ε)-RDP; mean ± s.e. over independent draws; rows: Rényi order λ".into(),
        ),

        y_descs: Vec::new(),
        shared_y: false,
    })
}

/// Minami figure: one panel per dataset, x = ln ε, series mechanisms.
pub fn minami(t: &Table) -> Result<PanelGrid, DrawError> {
    let (ds, le, mech, m, s) = (
        t.col("dataset")?,
        t.col("ln_epsilon")?,
        t.col("mechanism")?,
        t.col("test_error_mean")?,
        t.col("test_error_se")?,
    );
    let datasets = distinct(t, ds);
    let order = distinct(t, mech);
    let delta = t.col("delta").ok().map(|c| t.s(0, c)).unwrap_or_default();
    let panels = datasets
        .iter()
        .map(|d| {
            let bands = order
                .iter()
                .map(|name| {
                    let pts = (0..t.rows.len())
                        .filter(|&i| t.s(i, ds) == *d && t.s(i, mech) == *name)
                        .map(|i| (t.f(i, le), t.f(i, m), t.f(i, s)))
                        .collect();
                    (name.clone(), pts)
                })
                .collect();
            (dataset_name(d), bands)
        })
        .collect();
    Ok(PanelGrid {
        rows: 1,
        cols: datasets.len(),
        panels,
        x_desc: "ln ε".into(),
        y_desc: "test error, mean ± s.e.".into(),
        order,
        x_log10: false,
        subtitle: Some(format!("(ε, δ)-DP at δ = {delta}; logistic regression")),
        y_descs: Vec::new(),
        shared_y: false,
    })
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
pub fn samplers(data: &Table) -> Result<SamplerScatter, DrawError> {
    let (ds, sampler, rec, idx, n, mean) = (
        data.col("dataset")?,
        data.col("sampler")?,
        data.col("record")?,
        data.col("index")?,
        data.col("n")?,
        data.col("mean")?,
    );
    let coords: Vec<usize> = (0..data.rows.len())
        .filter(|&i| data.s(i, rec) == "coordinate")
        .collect();
    let panels = distinct(data, ds)
        .into_iter()
        .map(|d| {
            let mut reference: std::collections::BTreeMap<usize, (f64, f64)> = Default::default();
            for &i in coords
                .iter()
                .filter(|&&i| data.s(i, ds) == d && data.s(i, sampler) == "reference")
            {
                let e = reference.entry(data.f(i, idx) as usize).or_default();
                e.0 += data.f(i, n) * data.f(i, mean);
                e.1 += data.f(i, n);
            }
            let series = ["hmc", "paper_slice"]
                .iter()
                .map(|s| {
                    let pts = coords
                        .iter()
                        .filter(|&&i| data.s(i, ds) == d && data.s(i, sampler) == *s)
                        .filter_map(|&i| {
                            let (sum, w) = reference.get(&(data.f(i, idx) as usize))?;
                            Some((sum / w, data.f(i, mean)))
                        })
                        .collect();
                    (s.to_string(), pts)
                })
                .filter(|(_, p): &Points| !p.is_empty())
                .collect();
            (d, series)
        })
        .collect();
    Ok(SamplerScatter { panels })
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
    let s = summary(dir)?;
    render(&fig3(&s, "test_error", "test error, mean ± s.e.")?, dir)?;
    render_as(
        &fig3(&s, "test_loglik", "test log-likelihood, mean ± s.e.")?,
        dir,
        "figure_loglik",
    )
}

/// Minami's logistic-regression figure from `summary.csv`.
pub fn draw_minami(dir: &Path) -> Result<(), DrawError> {
    render(&minami(&summary(dir)?)?, dir)
}

/// The sampler-validation figure, from `data.csv`.
pub fn draw_samplers(dir: &Path) -> Result<(), DrawError> {
    crate::plot::render_headed(
        samplers(&data(dir)?)?,
        dir,
        None,
        Some(
            "one point per weight: its posterior mean under the sampler against the long reference chains (on the diagonal: agreement)"
                .into(),
        ),
    )
}
