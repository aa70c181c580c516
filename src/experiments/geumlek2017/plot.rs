//! Plots of geumlek2017 Figures 1 and 2, drawn from their CSVs.

use crate::plot::{render_headed, summary};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

use crate::plot::style::{self, Entry};
use crate::plot::{clip_polyline, tick, Draw, DrawError};
use crate::results::table::Table;

/// (algorithm, coefficient label, (λ, ε) points, critical order λ*).
type RdpCurve = (String, String, Vec<(f64, f64)>, f64);

/// Figure 1: ε vs λ for each coefficient; (a) Algorithm 2, (b) Algorithm 3.
pub struct Fig1 {
    /// (algorithm, coefficient label, points, critical order)
    curves: Vec<RdpCurve>,
    lambda_max: f64,
}

impl Fig1 {
    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let rows: Vec<super::Fig1Row> = t.records().map_err(|e| DrawError(e.0))?;
        let algorithms = crate::plot::first_seen(rows.iter().map(|r| r.algorithm.as_str()));
        let mut curves = Vec::new();
        for a in algorithms {
            // coefficients in row order, repeats adjacent (as the rows come)
            let mut coefs: Vec<f64> = rows
                .iter()
                .filter(|r| r.algorithm == a)
                .map(|r| r.coefficient)
                .collect();
            coefs.dedup();
            for c in coefs {
                let of = || {
                    rows.iter()
                        .filter(|r| r.algorithm == a && r.coefficient == c)
                };
                let pts = of().map(|r| (r.lambda, r.epsilon)).collect();
                let critical = of().next().map_or(f64::NAN, |r| r.critical_order);
                // the label as the CSV writes the number
                curves.push((a.to_string(), format!("{c:?}"), pts, critical));
            }
        }
        let lambda_max = rows.iter().map(|r| r.lambda).fold(1.0, f64::max);
        Ok(Self { curves, lambda_max })
    }
}

impl Fig1 {
    fn entries(&self) -> Vec<Entry> {
        let mut coefs: Vec<&str> = Vec::new();
        for c in &self.curves {
            if !coefs.contains(&c.1.as_str()) {
                coefs.push(&c.1);
            }
        }
        let mut e: Vec<Entry> = coefs
            .iter()
            .enumerate()
            .map(|(i, c)| Entry::rule(&format!("r, m = {c}"), style::sequence(i), false))
            .collect();
        e.push(Entry::rule(
            "critical order λ* of the coefficient",
            RGBColor(110, 110, 110),
            true,
        ));
        e
    }
}

impl Draw for Fig1 {
    fn size(&self) -> (u32, u32) {
        (1400, 600 + style::legend_height(&self.entries(), 1400))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let entries = self.entries();
        let (body, legend_area) = style::with_legend(root, &entries);
        let panels = body.split_evenly((1, 2));
        let y_max = 2.0;
        for (panel, (algorithm, title, symbol)) in panels.iter().zip([
            ("diffused", "(a) Alg. 2 (diffused), coefficient r", "r"),
            (
                "concentrated",
                "(b) Alg. 3 (concentrated), coefficient m",
                "m",
            ),
        ]) {
            let _ = symbol;
            let mut chart = ChartBuilder::on(panel)
                .caption(title, ("sans-serif", style::TITLE))
                .margin(14)
                .x_label_area_size(style::X_AREA)
                .y_label_area_size(style::Y_AREA)
                .build_cartesian_2d(
                    crate::plot::axis(1.0..self.lambda_max)?,
                    crate::plot::axis(0.0..y_max)?,
                )?;
            style::mesh(&mut chart)
                .x_desc("λ (Rényi order)")
                .y_desc("ε")
                .x_labels(8)
                .y_labels(6)
                .x_label_formatter(&tick)
                .y_label_formatter(&tick)
                .draw()?;
            let curves = self.curves.iter().filter(|c| c.0 == algorithm);
            for (i, (_, _, pts, critical)) in curves.enumerate() {
                let color = style::sequence(i);
                let line = ShapeStyle::from(&color).stroke_width(style::LINE);
                for seg in clip_polyline(pts, y_max) {
                    chart.draw_series(LineSeries::new(seg, line))?;
                }
                if critical.is_finite() && *critical <= self.lambda_max {
                    chart.draw_series(DashedLineSeries::new(
                        vec![(*critical, 0.0), (*critical, y_max)],
                        6,
                        4,
                        ShapeStyle::from(&color.mix(0.7)).stroke_width(2),
                    ))?;
                }
            }
        }
        style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}

/// One series of a Figure 2 panel: (ln ε, mean, sd).
type Curve = crate::plot::Band;

/// Figure 2: (a, b) KL vs ln ε, (c, d) −ln p(X_H | θ) vs ln ε, at two orders.
pub struct Fig2 {
    /// (panel, λ, curves)
    panels: Vec<(String, String, Vec<Curve>)>,
    /// runs behind the −ln p panels (from the summary's `runs` column)
    runs: String,
}

const ORDER: [&str; 4] = ["diffused", "concentrated", "gaussian", "true_posterior"];

/// The house style of a Fig. 2 series (the Beta-Bernoulli algorithms are the
/// diffused Alg. 2 and the concentrated Alg. 3).
fn fig2_style(algorithm: &str) -> style::SeriesStyle {
    match algorithm {
        "concentrated" => style::series("concentrated_beta", 1),
        other => style::series(other, 0),
    }
}

impl Fig2 {
    fn entries(&self) -> Vec<Entry> {
        ORDER
            .iter()
            .filter(|a| self.panels.iter().any(|p| p.2.iter().any(|c| c.0 == **a)))
            .map(|a| Entry {
                marker: None,
                ..Entry::of(&fig2_style(a))
            })
            .collect()
    }
}

impl Fig2 {
    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let rows: Vec<super::Fig2Summary> = t.records().map_err(|e| DrawError(e.0))?;
        let mut panels = Vec::new();
        for p in ["kl", "neg_log_lik"] {
            for l in crate::plot::first_seen(rows.iter().map(|r| r.lambda)) {
                let mut curves = Vec::new();
                for a in ORDER {
                    let pts: Vec<(f64, f64, f64)> = rows
                        .iter()
                        .filter(|r| r.panel == p && r.lambda == l && r.algorithm == a)
                        .map(|r| (r.ln_epsilon, r.mean, r.sd.unwrap_or(f64::NAN)))
                        .collect();
                    if !pts.is_empty() {
                        curves.push((a.to_string(), pts));
                    }
                }
                if !curves.is_empty() {
                    panels.push((
                        p.to_string(),
                        crate::results::table::Cell::from(l).to_string(),
                        curves,
                    ));
                }
            }
        }
        let runs = rows
            .iter()
            .find_map(|r| r.runs)
            .map_or_else(|| "?".into(), |n| n.to_string());
        Ok(Self { panels, runs })
    }
}

impl Draw for Fig2 {
    fn size(&self) -> (u32, u32) {
        let rows = self.panels.len().div_ceil(2).max(1) as u32;
        (
            1400,
            560 * rows + style::legend_height(&self.entries(), 1400),
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let rows = self.panels.len().div_ceil(2).max(1);
        let entries = self.entries();
        let (body, legend_area) = style::with_legend(root, &entries);
        let areas = body.split_evenly((rows, 2));
        for (k, ((panel, lambda, curves), area)) in self.panels.iter().zip(areas.iter()).enumerate()
        {
            let letter = (b'a' + k as u8) as char;
            let is_kl = panel == "kl";
            let title = if is_kl {
                format!(
                    "({letter}) KL to the true posterior, λ = {}",
                    tick_str(lambda)
                )
            } else {
                format!("({letter}) −ln p(Xʜ | θ), λ = {}", tick_str(lambda))
            };
            let xs = curves.iter().flat_map(|c| c.1.iter().map(|p| p.0));
            let (x_lo, x_hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
                (a.min(x), b.max(x))
            });
            // KL: scale to the bounded series; the concentrated posterior's KL
            // diverges as ε → 0 and leaves the axes (the paper's "heavily penalized").
            let finite = |v: f64| v.is_finite();
            let (y_lo, y_hi) = if is_kl {
                let top = curves
                    .iter()
                    .filter(|c| c.0 != "concentrated")
                    .flat_map(|c| c.1.iter().map(|p| p.1))
                    .filter(|v| finite(*v))
                    .fold(0.0, f64::max);
                (0.0, if top > 0.0 { top * 1.15 } else { 1.0 })
            } else {
                let lo = curves
                    .iter()
                    .flat_map(|c| c.1.iter().map(|p| p.1 - p.2.max(0.0)))
                    .filter(|v| finite(*v))
                    .fold(f64::INFINITY, f64::min);
                let hi = curves
                    .iter()
                    .flat_map(|c| c.1.iter().map(|p| p.1 + p.2.max(0.0)))
                    .filter(|v| finite(*v))
                    .fold(f64::NEG_INFINITY, f64::max);
                let pad = 0.05 * (hi - lo).max(1.0);
                ((lo - pad).max(0.0), hi + pad)
            };
            let mut chart = ChartBuilder::on(area)
                .caption(title, ("sans-serif", style::TITLE))
                .margin(14)
                .x_label_area_size(style::X_AREA)
                .y_label_area_size(style::Y_AREA + 16)
                .build_cartesian_2d(
                    crate::plot::axis(x_lo..x_hi)?,
                    crate::plot::axis(y_lo..y_hi)?,
                )?;
            chart
                .configure_mesh()
                .x_desc("ln ε")
                .y_desc(if is_kl {
                    "KL divergence"
                } else {
                    "−ln p(Xʜ | θ)"
                })
                .x_labels(8)
                .y_labels(6)
                .x_label_formatter(&tick)
                .y_label_formatter(&tick)
                .light_line_style(WHITE.mix(0.0))
                .label_style(("sans-serif", style::TICK))
                .axis_desc_style(("sans-serif", style::DESC))
                .draw()?;
            for (name, pts) in curves {
                let color = fig2_style(name).color;
                if !is_kl {
                    let mut band: Vec<(f64, f64)> =
                        pts.iter().map(|p| (p.0, (p.1 + p.2).min(y_hi))).collect();
                    band.extend(pts.iter().rev().map(|p| (p.0, (p.1 - p.2).max(y_lo))));
                    chart.draw_series(std::iter::once(Polygon::new(
                        band,
                        color.mix(0.12).filled(),
                    )))?;
                }
                let line_style = ShapeStyle::from(&color).stroke_width(style::LINE);
                let line: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, p.1)).collect();
                for seg in clip_polyline(&line, y_hi) {
                    chart.draw_series(LineSeries::new(seg, line_style))?;
                }
            }
        }
        style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}

/// A number from a CSV cell, printed as a tick label ("2.0" → "2").
fn tick_str(v: &str) -> String {
    v.parse::<f64>()
        .map_or_else(|_| v.to_string(), |x| tick(&x))
}

/// Geumlek Fig. 1 from `summary.csv`.
pub fn fig1(dir: &Path) -> Result<(), DrawError> {
    render_headed(Fig1::from_summary(&summary(dir)?)?, dir, None, None)
}

/// Geumlek Fig. 2 from `summary.csv`.
pub fn fig2(dir: &Path) -> Result<(), DrawError> {
    let fig = Fig2::from_summary(&summary(dir)?)?;
    let own = format!(
        "Beta-Bernoulli; (a, b) one dataset; (c, d) Xʜ held out, shaded ± sd over {} runs",
        fig.runs
    );
    render_headed(fig, dir, None, Some(own))
}
