//! Plots of geumlek2017 Figures 1 and 2, drawn from their CSVs.

use crate::plot::{render, summary};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

use crate::plot::{clip_polyline, distinct, legend, series, Draw, DrawError, PALETTE};
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
        let (alg, coef, lambda, eps, crit) = (
            t.col("algorithm")?,
            t.col("coefficient")?,
            t.col("lambda")?,
            t.col("epsilon")?,
            t.col("critical_order")?,
        );
        let mut curves = Vec::new();
        for a in distinct(t, alg) {
            let rows: Vec<usize> = (0..t.rows.len()).filter(|&i| t.s(i, alg) == a).collect();
            let mut coefs: Vec<String> = rows.iter().map(|&i| t.s(i, coef)).collect();
            coefs.dedup();
            for c in coefs {
                let pts = series(t, &[(alg, &a), (coef, &c)], lambda, eps);
                let critical = (0..t.rows.len())
                    .find(|&i| t.s(i, alg) == a && t.s(i, coef) == c)
                    .map_or(f64::NAN, |i| t.f(i, crit));
                curves.push((a.clone(), c, pts, critical));
            }
        }
        let lambda_max = (0..t.rows.len())
            .map(|i| t.f(i, lambda))
            .fold(1.0, f64::max);
        Ok(Self { curves, lambda_max })
    }
}

impl Draw for Fig1 {
    fn size(&self) -> (u32, u32) {
        (1400, 560)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let panels = root.split_evenly((1, 2));
        let y_max = 2.0;
        for (panel, (algorithm, title, symbol)) in panels.iter().zip([
            ("diffused", "(a) Algorithm 2 (diffused)", "r"),
            ("concentrated", "(b) Algorithm 3 (concentrated)", "m"),
        ]) {
            let mut chart = ChartBuilder::on(panel)
                .caption(title, ("sans-serif", 24))
                .margin(12)
                .x_label_area_size(45)
                .y_label_area_size(55)
                .build_cartesian_2d(1.0..self.lambda_max, 0.0..y_max)?;
            chart
                .configure_mesh()
                .x_desc("λ (Rényi order)")
                .y_desc("ε")
                .label_style(("sans-serif", 16))
                .draw()?;
            let curves = self.curves.iter().filter(|c| c.0 == algorithm);
            for (i, (_, coef, pts, critical)) in curves.enumerate() {
                let color = PALETTE[i % PALETTE.len()];
                let style = ShapeStyle::from(&color).stroke_width(2);
                let mut first = true;
                for seg in clip_polyline(pts, y_max) {
                    let s = chart.draw_series(LineSeries::new(seg, style))?;
                    if first {
                        s.label(format!("{symbol} = {coef}")).legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 24, y)], style)
                        });
                        first = false;
                    }
                }
                if critical.is_finite() && *critical <= self.lambda_max {
                    chart.draw_series(DashedLineSeries::new(
                        vec![(*critical, 0.0), (*critical, y_max)],
                        6,
                        4,
                        ShapeStyle::from(&color.mix(0.6)).stroke_width(1),
                    ))?;
                }
            }
            legend(&mut chart, SeriesLabelPosition::UpperLeft, 16)?;
        }
        Ok(())
    }
}

/// One series of a Figure 2 panel: (ln ε, mean, sd).
type Curve = crate::plot::Band;

/// Figure 2: (a, b) KL vs ln ε, (c, d) −ln p(X_H | θ) vs ln ε, at two orders.
pub struct Fig2 {
    /// (panel, λ, curves)
    panels: Vec<(String, String, Vec<Curve>)>,
}

const ORDER: [&str; 4] = ["diffused", "concentrated", "gaussian", "true_posterior"];

fn label(algorithm: &str) -> &'static str {
    match algorithm {
        "diffused" => "Alg. 2 (diffused)",
        "concentrated" => "Alg. 3 (concentrated)",
        "gaussian" => "Gaussian mechanism",
        "true_posterior" => "true posterior (non-private)",
        _ => "?",
    }
}

impl Fig2 {
    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let (panel, lambda, ln_eps, alg, mean, sd) = (
            t.col("panel")?,
            t.col("lambda")?,
            t.col("ln_epsilon")?,
            t.col("algorithm")?,
            t.col("mean")?,
            t.col("sd")?,
        );
        let mut panels = Vec::new();
        for p in ["kl", "neg_log_lik"] {
            let lambdas: Vec<String> = distinct(t, lambda);
            for l in lambdas {
                let mut curves = Vec::new();
                for a in ORDER {
                    let pts: Vec<(f64, f64, f64)> = (0..t.rows.len())
                        .filter(|&i| t.s(i, panel) == p && t.s(i, lambda) == l && t.s(i, alg) == a)
                        .map(|i| (t.f(i, ln_eps), t.f(i, mean), t.f(i, sd)))
                        .collect();
                    if !pts.is_empty() {
                        curves.push((a.to_string(), pts));
                    }
                }
                if !curves.is_empty() {
                    panels.push((p.to_string(), l, curves));
                }
            }
        }
        Ok(Self { panels })
    }
}

impl Draw for Fig2 {
    fn size(&self) -> (u32, u32) {
        let rows = self.panels.len().div_ceil(2).max(1) as u32;
        (1400, 520 * rows)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let rows = self.panels.len().div_ceil(2).max(1);
        let areas = root.split_evenly((rows, 2));
        for (k, ((panel, lambda, curves), area)) in self.panels.iter().zip(areas.iter()).enumerate()
        {
            let letter = (b'a' + k as u8) as char;
            let is_kl = panel == "kl";
            let title = if is_kl {
                format!("({letter}) KL(true posterior ‖ mechanism), λ = {lambda}")
            } else {
                format!("({letter}) −ln p(X_H | θ), λ = {lambda}")
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
                .caption(title, ("sans-serif", 22))
                .margin(12)
                .x_label_area_size(45)
                .y_label_area_size(60)
                .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)?;
            chart
                .configure_mesh()
                .x_desc("ln ε")
                .y_desc(if is_kl {
                    "KL divergence"
                } else {
                    "−ln p(X_H | θ), mean ± sd"
                })
                .label_style(("sans-serif", 16))
                .draw()?;
            for (name, pts) in curves {
                let i = ORDER.iter().position(|o| o == name).unwrap_or(0);
                let color = PALETTE[i];
                if !is_kl {
                    let mut band: Vec<(f64, f64)> =
                        pts.iter().map(|p| (p.0, (p.1 + p.2).min(y_hi))).collect();
                    band.extend(pts.iter().rev().map(|p| (p.0, (p.1 - p.2).max(y_lo))));
                    chart.draw_series(std::iter::once(Polygon::new(
                        band,
                        color.mix(0.12).filled(),
                    )))?;
                }
                let style = ShapeStyle::from(&color).stroke_width(2);
                let line: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, p.1)).collect();
                let mut first = true;
                for seg in clip_polyline(&line, y_hi) {
                    let s = chart.draw_series(LineSeries::new(seg, style))?;
                    if first {
                        s.label(label(name)).legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 24, y)], style)
                        });
                        first = false;
                    }
                }
            }
            legend(&mut chart, SeriesLabelPosition::UpperRight, 15)?;
        }
        Ok(())
    }
}

/// Geumlek Fig. 1 from `summary.csv`.
pub fn fig1(dir: &Path) -> Result<(), DrawError> {
    render(&Fig1::from_summary(&summary(dir)?)?, dir)
}

/// Geumlek Fig. 2 from `summary.csv`.
pub fn fig2(dir: &Path) -> Result<(), DrawError> {
    render(&Fig2::from_summary(&summary(dir)?)?, dir)
}
