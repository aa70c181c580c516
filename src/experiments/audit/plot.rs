//! The audit figure: for every audit, audited ε (or Rényi divergence) over the
//! claim, with its interval; 1 is the claim. PASS green, FAIL red; broken variants
//! drawn hollow. Values above the axis (an unbounded loss) are drawn at its top
//! with an arrow.

use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

use crate::plot::{render, summary, Draw, DrawError};
use crate::results::table::Table;

struct Point {
    label: String,
    ratio: f64,
    low: f64,
    high: Option<f64>,
    pass: bool,
    broken: bool,
}

pub struct AuditPlot {
    points: Vec<Point>,
    /// rows of the summary (only the first [`MAX_ROWS`] are drawn)
    total: usize,
}

/// Most rows one figure draws (its height grows with them); an edited summary with
/// more is drawn in part, and the caption says so.
const MAX_ROWS: usize = 500;

/// The top of the ratio axis: larger ratios are drawn there.
const TOP: f64 = 2.5;

impl AuditPlot {
    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let (a, m, v, verdict, claim, audited, lo, hi, est) = (
            t.col("audit")?,
            t.col("method")?,
            t.col("variant")?,
            t.col("verdict")?,
            t.col("claim_epsilon")?,
            t.col("audited_epsilon")?,
            t.col("ci_low_epsilon")?,
            t.col("ci_high_epsilon")?,
            t.col("estimate_epsilon")?,
        );
        let mut points = Vec::new();
        for r in 0..t.rows.len().min(MAX_ROWS) {
            let c = t.f(r, claim);
            let scale = |x: f64| if c > 0.0 { x / c } else { f64::INFINITY };
            let high = t.s(r, hi);
            let variant = t.s(r, v);
            points.push(Point {
                label: format!(
                    "{} ({}){}",
                    t.s(r, a),
                    t.s(r, m),
                    if variant == "real" {
                        String::new()
                    } else {
                        format!(" — BROKEN: {variant}")
                    }
                ),
                ratio: scale(t.f(r, audited)),
                low: scale(t.f(r, lo)),
                // a one-sided bound: the bar runs to the point estimate
                high: Some(if high.trim().is_empty() {
                    scale(t.f(r, est))
                } else {
                    scale(t.f(r, hi))
                }),
                pass: t.s(r, verdict) == "PASS",
                broken: variant != "real",
            });
        }
        Ok(Self {
            points,
            total: t.rows.len(),
        })
    }
}

impl Draw for AuditPlot {
    fn size(&self) -> (u32, u32) {
        (1300, 140 + 30 * self.points.len().max(1) as u32)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let n = self.points.len().max(1) as f64;
        let mut chart = ChartBuilder::on(root)
            .caption(
                if self.total > self.points.len() {
                    format!(
                        "privpost audit: audited privacy loss / claimed (≤ 1 passes) — first {} of {} audits",
                        self.points.len(),
                        self.total
                    )
                } else {
                    "privpost audit: audited privacy loss / claimed (≤ 1 passes)".to_string()
                },
                ("sans-serif", crate::plot::style::px(24)),
            )
            .margin(14)
            .x_label_area_size(85)
            .y_label_area_size(676)
            .build_cartesian_2d(0.0..TOP, -0.5..(n - 0.5))?;
        let labels: Vec<String> = self.points.iter().map(|p| p.label.clone()).collect();
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(self.points.len().max(1))
            .y_label_formatter(&|y| {
                let i = (n - 1.0 - y).round();
                if (y - y.round()).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
                    labels[i as usize].clone()
                } else {
                    String::new()
                }
            })
            .x_desc("audited ε (exact, or the lower confidence bound; Rényi divergence for RDP claims) ÷ claimed ε — bars: interval, or lower bound to point estimate")
            .x_label_formatter(&|x| format!("{x:.1}"))
            .label_style(("sans-serif", crate::plot::style::px(15)))
            .draw()?;
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(1.0, -0.5), (1.0, n - 0.5)],
            ShapeStyle::from(&BLACK).stroke_width(2),
        )))?;
        let clip = |x: f64| {
            if x.is_finite() {
                x.clamp(0.0, TOP)
            } else {
                TOP
            }
        };
        let green = RGBColor(30, 140, 60);
        let red = RGBColor(213, 40, 40);
        for (i, p) in self.points.iter().enumerate() {
            let y = n - 1.0 - i as f64;
            let color = if p.pass { green } else { red };
            let high = p.high.unwrap_or(TOP);
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(clip(p.low), y), (clip(high), y)],
                ShapeStyle::from(&color.mix(0.6)).stroke_width(2),
            )))?;
            let x = clip(p.ratio);
            let style = if p.broken {
                ShapeStyle::from(&color).stroke_width(2)
            } else {
                color.filled()
            };
            chart.draw_series(std::iter::once(Circle::new((x, y), 6, style)))?;
            if !p.ratio.is_finite() || p.ratio > TOP {
                chart.draw_series(std::iter::once(Text::new(
                    format!(
                        "→ {}",
                        if p.ratio.is_finite() {
                            format!("{:.3}×", p.ratio)
                        } else {
                            "∞".into()
                        }
                    ),
                    (TOP - 0.25, y + 0.35),
                    ("sans-serif", crate::plot::style::px(14))
                        .into_font()
                        .color(&color),
                )))?;
            }
        }
        Ok(())
    }
}

/// Draws `figure.png`/`figure.svg` from `summary.csv`.
pub fn draw(dir: &Path) -> Result<(), DrawError> {
    let t = summary(dir)?;
    render(&AuditPlot::from_summary(&t)?, dir)
}
