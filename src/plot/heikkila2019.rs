//! Figure 1 (a, b) of heikkila2019, from its summary.csv.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{distinct, legend, Draw, DrawError, PALETTE};
use crate::runner::table::Table;

/// (panel, series label, conversion, points)
type Series = (String, String, String, Vec<(f64, f64)>);

/// ε vs q at fixed T (a) and ε vs T at fixed q (b); one line per N or b.
pub struct Fig1 {
    series: Vec<Series>,
}

impl Fig1 {
    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let (panel, n, b, q, iters, eps, conv) = (
            t.col("panel")?,
            t.col("n_data")?,
            t.col("batch")?,
            t.col("q")?,
            t.col("iterations")?,
            t.col("epsilon")?,
            t.col("conversion")?,
        );
        let mut series = Vec::new();
        for p in distinct(t, panel) {
            for c in distinct(t, conv) {
                // a curve is N (panel a) or b (panel b)
                let key = if p == "a" { n } else { b };
                let keys: Vec<String> = {
                    let mut v: Vec<String> = (0..t.rows.len())
                        .filter(|&i| t.s(i, panel) == p)
                        .map(|i| t.s(i, key))
                        .collect();
                    v.dedup();
                    v
                };
                for k in keys {
                    let pts = (0..t.rows.len())
                        .filter(|&i| t.s(i, panel) == p && t.s(i, conv) == c && t.s(i, key) == k)
                        .map(|i| {
                            (
                                if p == "a" { t.f(i, q) } else { t.f(i, iters) },
                                t.f(i, eps),
                            )
                        })
                        .collect();
                    let name = if p == "a" {
                        format!("N = {:.0e}", k.parse::<f64>().unwrap_or(f64::NAN))
                    } else {
                        format!("b = {k}")
                    };
                    series.push((p.clone(), name, c.clone(), pts));
                }
            }
        }
        Ok(Self { series })
    }
}

impl Draw for Fig1 {
    fn size(&self) -> (u32, u32) {
        (1300, 540)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let panels: Vec<String> = {
            let mut v: Vec<String> = self.series.iter().map(|s| s.0.clone()).collect();
            v.dedup();
            v
        };
        let areas = root.split_evenly((1, panels.len().max(1)));
        for (p, area) in panels.iter().zip(areas.iter()) {
            let mine: Vec<&Series> = self.series.iter().filter(|s| &s.0 == p).collect();
            let pts = mine
                .iter()
                .flat_map(|s| s.3.iter())
                .filter(|q| q.1 > 0.0 && q.1.is_finite());
            let (mut x_lo, mut x_hi, mut y_lo, mut y_hi) =
                (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, 0.0f64);
            for q in pts {
                x_lo = x_lo.min(q.0);
                x_hi = x_hi.max(q.0);
                y_lo = y_lo.min(q.1);
                y_hi = y_hi.max(q.1);
            }
            if !x_lo.is_finite() {
                continue;
            }
            let (title, x_desc) = if p == "a" {
                (
                    "(a) total ε vs sampling ratio q (T = 5000, δ = 1/N)",
                    "q = b/N",
                )
            } else {
                (
                    "(b) total ε vs iterations T (q = 0.001, δ = 1/N)",
                    "iterations T",
                )
            };
            let mut chart = ChartBuilder::on(area)
                .caption(title, ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(45)
                .y_label_area_size(60)
                .build_cartesian_2d(x_lo..x_hi, (y_lo * 0.8..y_hi * 1.25).log_scale())?;
            chart
                .configure_mesh()
                .x_desc(x_desc)
                .y_desc("ε (solid: classic, dashed: improved conversion)")
                .y_label_formatter(&super::tick)
                .x_label_formatter(&super::tick)
                .label_style(("sans-serif", 14))
                .draw()?;
            let labels: Vec<String> = {
                let mut v: Vec<String> = mine.iter().map(|s| s.1.clone()).collect();
                v.dedup();
                let mut out = Vec::new();
                for x in v {
                    if !out.contains(&x) {
                        out.push(x);
                    }
                }
                out
            };
            for s in &mine {
                let i = labels.iter().position(|l| l == &s.1).unwrap_or(0);
                let color = PALETTE[i % PALETTE.len()];
                let style = ShapeStyle::from(&color).stroke_width(2);
                let line: Vec<(f64, f64)> =
                    s.3.iter()
                        .copied()
                        .filter(|q| q.1 > 0.0 && q.1.is_finite())
                        .collect();
                if s.2 == "classic" {
                    chart
                        .draw_series(LineSeries::new(line, style))?
                        .label(s.1.clone())
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
                } else {
                    chart.draw_series(DashedLineSeries::new(line, 6, 4, style))?;
                }
            }
            legend(&mut chart, SeriesLabelPosition::LowerRight, 14)?;
        }
        Ok(())
    }
}
