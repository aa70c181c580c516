//! Plots of foulds2016 Figures 1 and 2, drawn from their CSVs.

use crate::plot::{render_headed, summary};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

use crate::plot::style::{self, Entry};
use crate::plot::{tick, Draw, DrawError};
use crate::results::table::Table;

/// Figure 1: density curves of the posterior, OPS, and Laplace draws.
pub struct Fig1 {
    curves: Vec<(String, Vec<(f64, f64)>)>,
}

impl Fig1 {
    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let rows: Vec<super::Fig1Summary> = t.records().map_err(|e| DrawError(e.0))?;
        // one curve per (curve, draw), in first-seen order of curves, then draws
        let names = crate::plot::first_seen(rows.iter().map(|r| r.curve.as_str()));
        let mut curves = Vec::new();
        for c in names {
            let mut seen: Vec<u64> = Vec::new();
            for r in rows.iter().filter(|r| r.curve == c) {
                if !seen.contains(&r.draw) {
                    seen.push(r.draw);
                    let pts = rows
                        .iter()
                        .filter(|s| s.curve == c && s.draw == r.draw)
                        .map(|s| (s.theta, s.density))
                        .collect();
                    curves.push((c.to_string(), pts));
                }
            }
        }
        Ok(Self { curves })
    }
}

fn fig1_entries() -> Vec<Entry> {
    let mut e: Vec<Entry> = ["posterior", "ops", "laplace"]
        .iter()
        .map(|n| Entry {
            marker: None,
            ..Entry::of(&style::series(n, 0))
        })
        .collect();
    e[0].label = "True posterior".into();
    e[1].label = "OPS (truncated, tempered)".into();
    e[2].label = "Laplace mechanism (one curve per draw)".into();
    e
}

impl Draw for Fig1 {
    fn size(&self) -> (u32, u32) {
        (1000, 660 + style::legend_height(&fig1_entries(), 1000))
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
        let entries = fig1_entries();
        let (body, legend_area) = style::with_legend(root, &entries);
        let mut chart = ChartBuilder::on(&body)
            .margin(14)
            .x_label_area_size(style::X_AREA)
            .y_label_area_size(style::Y_AREA)
            .build_cartesian_2d(
                crate::plot::axis(0.0..1.0)?,
                crate::plot::axis(0.0..y_max.max(1e-9))?,
            )?;
        style::mesh(&mut chart)
            .x_desc("θ (success probability)")
            .y_desc("density")
            .x_labels(6)
            .y_labels(6)
            .x_label_formatter(&tick)
            .y_label_formatter(&tick)
            .draw()?;
        // Laplace draws first (thin), then OPS and the posterior on top.
        for pass in ["laplace", "ops", "posterior"] {
            for (name, pts) in self.curves.iter().filter(|c| c.0 == pass) {
                let st = style::series(name, 0);
                let (color, width) = match name.as_str() {
                    "laplace" => (st.color.mix(0.55), 2),
                    _ => (st.color.mix(1.0), style::LINE + 1),
                };
                let line = ShapeStyle::from(&color).stroke_width(width);
                chart.draw_series(LineSeries::new(
                    pts.iter().copied().filter(|p| p.1.is_finite()),
                    line,
                ))?;
            }
        }
        style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}

/// Figure 2: mean L1 error vs N on log–log axes, ± one standard error.
pub struct Fig2 {
    curves: Vec<crate::plot::Band>,
}

impl Fig2 {
    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let rows: Vec<super::Fig2Summary> = t.records().map_err(|e| DrawError(e.0))?;
        let mut curves: Vec<crate::plot::Band> = Vec::new();
        for r in &rows {
            let pt = (r.n as f64, r.mean, r.se.unwrap_or(f64::NAN));
            match curves.iter_mut().find(|(m, _)| *m == r.mechanism) {
                Some((_, pts)) => pts.push(pt),
                None => curves.push((r.mechanism.clone(), vec![pt])),
            }
        }
        Ok(Self { curves })
    }
}

impl Fig2 {
    fn entries(&self) -> Vec<Entry> {
        self.curves
            .iter()
            .enumerate()
            .map(|(k, (name, _))| {
                let mut e = Entry::of(&style::series(name, k));
                if name == "posterior" {
                    e.label = "Non-private posterior sample".into();
                }
                e
            })
            .collect()
    }
}

impl Draw for Fig2 {
    fn size(&self) -> (u32, u32) {
        (1000, 660 + style::legend_height(&self.entries(), 1000))
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
        let entries = self.entries();
        let (body, legend_area) = style::with_legend(root, &entries);
        let mut chart = ChartBuilder::on(&body)
            .margin(14)
            .margin_right(50)
            .x_label_area_size(style::X_AREA)
            .y_label_area_size(style::Y_AREA)
            .build_cartesian_2d(
                crate::plot::log_axis(x_lo..x_hi * 1.25)?.log_scale(),
                crate::plot::log_axis(y_lo..y_hi * 1.3)?.log_scale(),
            )?;
        style::mesh(&mut chart)
            .x_desc("N (number of observations)")
            .y_desc("mean |θ − p|, θ one private sample")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&crate::plot::tick)
            .draw()?;
        for (k, (name, pts)) in self.curves.iter().enumerate() {
            let st = style::series(name, k);
            let color = st.color;
            let line_style = ShapeStyle::from(&color).stroke_width(style::LINE);
            let line: Vec<(f64, f64)> = pts
                .iter()
                .filter(|p| p.1 > 0.0)
                .map(|p| (p.0, p.1))
                .collect();
            chart.draw_series(LineSeries::new(line.clone(), line_style))?;
            // bars first, the series' marker on top (as in the legend)
            chart.draw_series(pts.iter().filter(|p| p.1 > 0.0 && p.2.is_finite()).map(
                |&(x, y, se)| style::Whisker::new((x, (y - se).max(y_lo)), (x, y + se), color, 5),
            ))?;
            chart.draw_series(
                line.iter()
                    .map(|&p| style::Mark::new(p, st.marker, color, 5)),
            )?;
        }
        style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}

/// Foulds Fig. 1 from `summary.csv`.
pub fn fig1(dir: &Path) -> Result<(), DrawError> {
    render_headed(
        Fig1::from_summary(&summary(dir)?)?,
        dir,
        Some("Private approximate posteriors, Beta-Bernoulli"),
        None,
    )
}

/// Foulds Fig. 2 from `summary.csv`.
pub fn fig2(dir: &Path) -> Result<(), DrawError> {
    render_headed(
        Fig2::from_summary(&summary(dir)?)?,
        dir,
        Some("L1 error of one private posterior sample"),
        None,
    )
}
