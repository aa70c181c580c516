//! Plots of foulds2016 Figures 1 and 2, drawn from their CSVs.

use crate::plot::{render, summary};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

use crate::plot::{distinct, legend, series, Draw, DrawError, PALETTE};
use crate::results::table::Table;

/// Figure 1: density curves of the posterior, OPS, and Laplace draws.
pub struct Fig1 {
    curves: Vec<(String, Vec<(f64, f64)>)>,
}

impl Fig1 {
    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let (curve, draw, theta, density) = (
            t.col("curve")?,
            t.col("draw")?,
            t.col("theta")?,
            t.col("density")?,
        );
        let mut curves = Vec::new();
        for c in distinct(t, curve) {
            let draws: Vec<String> = (0..t.rows.len())
                .filter(|&i| t.s(i, curve) == c)
                .map(|i| t.s(i, draw))
                .collect();
            let mut seen = Vec::new();
            for d in draws {
                if !seen.contains(&d) {
                    curves.push((
                        c.clone(),
                        series(t, &[(curve, &c), (draw, &d)], theta, density),
                    ));
                    seen.push(d);
                }
            }
        }
        Ok(Self { curves })
    }
}

impl Draw for Fig1 {
    fn size(&self) -> (u32, u32) {
        (900, 620)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let y_max = self
            .curves
            .iter()
            .flat_map(|c| c.1.iter().map(|p| p.1))
            .filter(|v| v.is_finite())
            .fold(0.0, f64::max)
            * 1.08;
        let mut chart = ChartBuilder::on(root)
            .caption(
                "Private approximate posteriors, Beta-Bernoulli",
                ("sans-serif", 22),
            )
            .margin(14)
            .x_label_area_size(45)
            .y_label_area_size(55)
            .build_cartesian_2d(0.0..1.0, 0.0..y_max.max(1e-9))?;
        chart
            .configure_mesh()
            .x_desc("θ (success probability)")
            .y_desc("density")
            .label_style(("sans-serif", 16))
            .draw()?;
        // Laplace draws first (thin), then OPS and the posterior on top.
        let mut labelled = [false; 3];
        for pass in ["laplace", "ops", "posterior"] {
            for (name, pts) in self.curves.iter().filter(|c| c.0 == pass) {
                let (color, width, text, slot) = match name.as_str() {
                    "laplace" => (PALETTE[2].mix(0.55), 1, "Laplace mechanism (each draw)", 0),
                    "ops" => (PALETTE[1].mix(1.0), 3, "OPS (truncated, tempered)", 1),
                    _ => (PALETTE[0].mix(1.0), 3, "non-private posterior", 2),
                };
                let style = ShapeStyle::from(&color).stroke_width(width);
                let s = chart.draw_series(LineSeries::new(
                    pts.iter().copied().filter(|p| p.1.is_finite()),
                    style,
                ))?;
                if !labelled[slot] {
                    s.label(text)
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
                    labelled[slot] = true;
                }
            }
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight, 16)?;
        Ok(())
    }
}

/// Figure 2: mean L1 error vs N on log–log axes, ± one standard error.
pub struct Fig2 {
    curves: Vec<crate::plot::Band>,
}

impl Fig2 {
    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let (mech, n, mean, se) = (
            t.col("mechanism")?,
            t.col("n")?,
            t.col("mean")?,
            t.col("se")?,
        );
        let curves = distinct(t, mech)
            .into_iter()
            .map(|m| {
                let pts = (0..t.rows.len())
                    .filter(|&i| t.s(i, mech) == m)
                    .map(|i| (t.f(i, n), t.f(i, mean), t.f(i, se)))
                    .collect();
                (m, pts)
            })
            .collect();
        Ok(Self { curves })
    }
}

impl Draw for Fig2 {
    fn size(&self) -> (u32, u32) {
        (900, 620)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let all = self.curves.iter().flat_map(|c| c.1.iter());
        let (mut x_lo, mut x_hi, mut y_lo, mut y_hi) =
            (f64::INFINITY, 1.0f64, f64::INFINITY, 0.0f64);
        for p in all {
            x_lo = x_lo.min(p.0);
            x_hi = x_hi.max(p.0);
            if p.1 > 0.0 && p.1.is_finite() {
                y_lo = y_lo.min((p.1 - p.2.max(0.0)).max(p.1 * 0.5));
                y_hi = y_hi.max(p.1 + p.2.max(0.0));
            }
        }
        let (x_lo, y_lo) = (
            x_lo.min(x_hi * 0.5).max(1e-3) * 0.8,
            y_lo.min(y_hi * 0.5).max(1e-6) * 0.8,
        );
        let mut chart = ChartBuilder::on(root)
            .caption(
                "L1 error of one private posterior sample",
                ("sans-serif", 22),
            )
            .margin(14)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(
                (x_lo..x_hi * 1.25).log_scale(),
                (y_lo..y_hi * 1.3).log_scale(),
            )?;
        chart
            .configure_mesh()
            .x_desc("N (number of observations)")
            .y_desc("E|θ̂ − p|")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&crate::plot::tick)
            .label_style(("sans-serif", 16))
            .draw()?;
        for (name, pts) in &self.curves {
            let (i, text) = match name.as_str() {
                "posterior" => (0, "non-private posterior sample"),
                "laplace" => (2, "Laplace mechanism"),
                _ => (1, "OPS (exponential mechanism)"),
            };
            let color = PALETTE[i];
            let style = ShapeStyle::from(&color).stroke_width(2);
            let line: Vec<(f64, f64)> = pts
                .iter()
                .filter(|p| p.1 > 0.0)
                .map(|p| (p.0, p.1))
                .collect();
            chart
                .draw_series(LineSeries::new(line.clone(), style))?
                .label(text)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
            chart.draw_series(
                line.iter()
                    .map(|&(x, y)| Circle::new((x, y), 3, color.filled())),
            )?;
            chart.draw_series(pts.iter().filter(|p| p.1 > 0.0 && p.2.is_finite()).map(
                |&(x, y, se)| {
                    ErrorBar::new_vertical(
                        x,
                        (y - se).max(y_lo),
                        y,
                        y + se,
                        color.stroke_width(1),
                        6,
                    )
                },
            ))?;
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight, 16)?;
        Ok(())
    }
}

/// Foulds Fig. 1 from `summary.csv`.
pub fn fig1(dir: &Path) -> Result<(), DrawError> {
    render(&Fig1::from_summary(&summary(dir)?)?, dir)
}

/// Foulds Fig. 2 from `summary.csv`.
pub fn fig2(dir: &Path) -> Result<(), DrawError> {
    render(&Fig2::from_summary(&summary(dir)?)?, dir)
}
