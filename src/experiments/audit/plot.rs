//! The audit figure, a forest plot: one block per audited mechanism (its display
//! name as the block's heading), one row per audit of it (exact or sampled, the
//! real mechanism or a deliberately broken variant), each showing the audited
//! privacy loss over the claimed one with its interval; 1 is the claim. PASS in
//! green, FAIL in vermillion; broken variants drawn hollow (they must FAIL).
//! Values beyond the axis (a large or unbounded loss) are drawn at its end with
//! their value written beside them.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

use super::tradeoff::{audit_curves, TRADEOFF_FILE};
use crate::plot::style::{self, Entry, Mark, Marker};
use crate::plot::tradeoff::{AuditFigure, AuditPanel};
use crate::plot::{render, render_as, summary, Draw, DrawError};
use crate::results::table::Table;

struct Point {
    /// "exact", "sampled" or "broken: …"
    tag: String,
    ratio: f64,
    low: f64,
    high: f64,
    pass: bool,
    broken: bool,
}

/// A line of the figure: a mechanism's heading, or one audit of it.
enum Line {
    Heading(String),
    Audit(Point),
}

pub struct AuditPlot {
    lines: Vec<Line>,
    /// audits drawn and audits in the summary (only the first [`MAX_ROWS`] are drawn)
    drawn: usize,
    total: usize,
}

/// Most audits one figure draws (its height grows with them); an edited summary
/// with more is drawn in part, and the title says so.
const MAX_ROWS: usize = 500;

/// The end of the ratio axis: larger ratios are drawn there.
const TOP: f64 = 2.5;

/// Height of one line in px.
const ROW: u32 = 40;

/// Width of the canvas and of the room left of the axis for the row tags.
const WIDTH: u32 = 1600;
const TAGS: u32 = 430;

const PASS: RGBColor = style::GREEN;
const FAIL: RGBColor = style::VERMILLION;

/// The label of a ratio beyond the axis: its value and an arrow.
fn beyond(ratio: f64) -> String {
    if !ratio.is_finite() {
        "∞ →".into()
    } else if ratio >= 100.0 {
        format!("{ratio:.0}× →")
    } else {
        format!("{ratio:.2}× →")
    }
}

impl AuditPlot {
    fn title(&self) -> String {
        if self.total > self.drawn {
            format!(
                "Privacy audit: audited ÷ claimed loss (≤ 1 passes), first {} of {} audits",
                self.drawn, self.total
            )
        } else {
            "Privacy audit: audited ÷ claimed loss (≤ 1 passes)".to_string()
        }
    }

    pub fn from_summary(t: &Table) -> Result<Self, DrawError> {
        let rows: Vec<super::summary::AuditSummary> = t.records().map_err(|e| DrawError(e.0))?;
        let mut lines = Vec::new();
        let mut last_audit = None;
        let drawn = rows.len().min(MAX_ROWS);
        for r in &rows[..drawn] {
            if last_audit != Some(&r.audit) {
                lines.push(Line::Heading(if r.mechanism.trim().is_empty() {
                    r.audit.replace('_', " ")
                } else {
                    r.mechanism.clone()
                }));
                last_audit = Some(&r.audit);
            }
            let c = r.claim_epsilon;
            let scale = |x: f64| if c > 0.0 { x / c } else { f64::INFINITY };
            let method = if r.method == "statistical" {
                "sampled"
            } else {
                r.method.as_str()
            };
            let broken = r.variant != "real";
            lines.push(Line::Audit(Point {
                tag: if broken {
                    format!("{method}, broken: {}", r.variant.replace('_', " "))
                } else {
                    method.to_string()
                },
                ratio: scale(r.audited_epsilon),
                low: scale(r.ci_low_epsilon),
                // a one-sided bound: the bar runs to the point estimate
                high: scale(r.ci_high_epsilon.unwrap_or(r.estimate_epsilon)),
                pass: r.verdict == "PASS",
                broken,
            }));
        }
        Ok(Self {
            lines,
            drawn,
            total: t.rows.len(),
        })
    }

    fn entries() -> Vec<Entry> {
        vec![
            Entry::point("PASS", PASS, Marker::Circle),
            Entry::point("FAIL", FAIL, Marker::Circle),
            Entry::point("broken variant (must fail)", FAIL, Marker::Ring),
            Entry::rule("interval, or lower bound to estimate", style::GREY, false),
            Entry::rule("claim", style::BLACK_, false),
        ]
    }
}

impl Draw for AuditPlot {
    fn size(&self) -> (u32, u32) {
        let rows = self.lines.len().max(1) as u32;
        (
            WIDTH,
            70 + style::X_AREA + ROW * rows + style::legend_height(&Self::entries(), WIDTH),
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let entries = Self::entries();
        let (area, legend_area) = style::with_legend(root, &entries);
        let n = self.lines.len().max(1) as f64;
        let mut chart = ChartBuilder::on(&area)
            .caption(self.title(), ("sans-serif", style::TITLE))
            .margin(14)
            .margin_right(40)
            .x_label_area_size(style::X_AREA)
            .y_label_area_size(TAGS)
            .build_cartesian_2d(
                crate::plot::axis(0.0..TOP)?,
                crate::plot::axis(-0.5..(n - 0.5))?,
            )?;
        style::mesh(&mut chart)
            .disable_y_mesh()
            .y_labels(0)
            .x_desc("audited ÷ claimed privacy loss (ε, or Rényi divergence for RDP claims)")
            .x_label_formatter(&|x| format!("{x:.1}"))
            .draw()?;
        let y_of = |i: usize| n - 1.0 - i as f64;
        let clip = |x: f64| {
            if x.is_finite() {
                x.clamp(0.0, TOP)
            } else {
                TOP
            }
        };
        let tag_font = ("sans-serif", style::TICK)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Right, VPos::Center));
        let heading_font = ("sans-serif", style::TICK)
            .into_font()
            .style(FontStyle::Bold)
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        let value_font = |color: RGBColor| {
            ("sans-serif", style::TICK)
                .into_font()
                .color(&color)
                .pos(Pos::new(HPos::Right, VPos::Center))
        };
        // `backend_coord` is in the whole canvas's pixels, `area.draw` in the area's:
        // under a departures line (a smoke run) the area starts lower, and tags drawn
        // at canvas pixels sat a row below their markers
        let (base_x, base_y) = area.get_base_pixel();
        let at = |(px, py): (i32, i32)| (px - base_x, py - base_y);
        let (x_left, _) = at(chart.backend_coord(&(0.0, 0.0)));
        let (x_right, _) = at(chart.backend_coord(&(TOP, 0.0)));
        let rows_py: Vec<i32> = (0..self.lines.len())
            .map(|i| at(chart.backend_coord(&(0.0, y_of(i)))).1)
            .collect();
        for (i, line) in self.lines.iter().enumerate() {
            let y = y_of(i);
            let py = rows_py[i];
            match line {
                Line::Heading(name) => {
                    // a band across the plot so the heading reads as a table row
                    area.draw(&Rectangle::new(
                        [
                            (x_left + 1, py - ROW as i32 / 2 + 2),
                            (x_right, py + ROW as i32 / 2 - 2),
                        ],
                        RGBColor(236, 236, 236).filled(),
                    ))?;
                    area.draw(&Text::new(
                        name.clone(),
                        (x_left - TAGS as i32 + 20, py),
                        heading_font.clone(),
                    ))?;
                }
                Line::Audit(p) => {
                    area.draw(&Text::new(
                        p.tag.clone(),
                        (x_left - 12, py),
                        tag_font.clone(),
                    ))?;
                    let color = if p.pass { PASS } else { FAIL };
                    chart.draw_series(std::iter::once(PathElement::new(
                        vec![(clip(p.low), y), (clip(p.high), y)],
                        ShapeStyle::from(&style::GREY).stroke_width(style::LINE),
                    )))?;
                    let marker = if p.broken {
                        Marker::Ring
                    } else {
                        Marker::Circle
                    };
                    chart.draw_series(std::iter::once(Mark::new(
                        (clip(p.ratio), y),
                        marker,
                        color,
                        8,
                    )))?;
                    if !p.ratio.is_finite() || p.ratio > TOP {
                        let px_top = x_right;
                        area.draw(&Text::new(
                            beyond(p.ratio),
                            (px_top - 18, py),
                            value_font(color),
                        ))?;
                    }
                }
            }
        }
        // the claim, over the headings' bands
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(1.0, -0.5), (1.0, n - 0.5)],
            ShapeStyle::from(&style::BLACK_).stroke_width(2),
        )))?;
        style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}

/// Draws `figure.png`/`figure.svg` from `summary.csv`, and
/// `audit-tradeoff.png`/`.svg` from `audit-tradeoff.csv` when the run wrote one.
pub fn draw(dir: &Path) -> Result<(), DrawError> {
    let t = summary(dir)?;
    render(&AuditPlot::from_summary(&t)?, dir)?;
    let path = dir.join(TRADEOFF_FILE);
    if path.is_file() {
        let t = Table::read_csv(&path).map_err(|e| DrawError(e.to_string()))?;
        render_as(&tradeoff_figure(&t)?, dir, "audit-tradeoff")?;
    }
    Ok(())
}

/// One panel per statistical audit of `audit-tradeoff.csv`, in the file's order.
fn tradeoff_figure(t: &Table) -> Result<AuditFigure, DrawError> {
    let curves = audit_curves(t).map_err(|e| DrawError(e.to_string()))?;
    let below = curves.iter().filter(|c| c.below() > 0).count();
    Ok(AuditFigure {
        title: format!(
            "Sampled audits on their claimed trade-off curves: {below} of {} with points below",
            curves.len()
        ),
        panels: curves
            .into_iter()
            .map(|c| {
                let title = format!(
                    "{} ({}): {} of {} below, μ ≥ {:.3}",
                    c.audit,
                    c.variant,
                    c.below(),
                    c.points.len(),
                    c.mu_lower()
                );
                AuditPanel::new(title, &c.claim, c.points)
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The row tags, bands and markers stay on their rows when the figure is drawn
    /// below a departures line (a smoke run): before, each marker sat one row above
    /// its tag there, so a broken variant's FAIL ring faced the next row's tag.
    #[test]
    fn rows_stay_aligned_under_a_departures_line() {
        let header = "audit,method,variant,expected,verdict,as_expected,paper,mechanism,claim,claim_epsilon,claim_delta,order,audited_epsilon,estimate_epsilon,ci_low_epsilon,ci_high_epsilon,epsilon_ratio,draws,confidence,seed,stream,tolerance,witness,scores_file";
        let rows = [
            "a,exact,real,PASS,PASS,true,p,Laplace,pure,1,0,0,1,1,1,1,1,0,,,,1e-6,w,",
            "a,statistical,half_scale,FAIL,FAIL,true,p,Laplace,pure,1,0,0,1.8,2,1.8,,1.8,100,0.95,1,2,0,w,s.csv",
            "b,exact,real,PASS,PASS,true,p,Gauss,pure,1,0,0,0.5,0.5,0.5,0.5,0.5,0,,,,1e-6,w,",
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.csv");
        std::fs::write(&path, format!("{header}\n{}\n", rows.join("\n"))).unwrap();
        let t = Table::read_csv(&path).unwrap();
        let plot = AuditPlot::from_summary(&t).unwrap();
        crate::plot::assert_shift_invariant(&plot);
    }
}
