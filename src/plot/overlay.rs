//! The overlay figure of `privpost combine`: one series per (sweep point,
//! series of the figure) on the figure's main metric, as named by its registry
//! row's [`Overlay`].

use plotters::coord::Shift;
use plotters::prelude::*;

use super::style::{self, Entry, Mark, Marker};
use super::{tick, Draw, DrawError};
use crate::results::table::Table;

/// A figure's main metric for overlays: `y` against `x`, one line per
/// distinct value of the `series` columns (within each sweep point).
#[derive(Debug, Clone, Copy)]
pub struct Overlay {
    pub x: &'static str,
    pub y: &'static str,
    pub series: &'static [&'static str],
}

/// A labelled polyline.
pub type Line = (String, Vec<(f64, f64)>);

/// Most lines drawn in one overlay (the legend lists them all up to this).
pub const MAX_LINES: usize = 40;

/// Columns whose values name a mechanism or sampler (shown by display name).
const MECHANISM_COLUMNS: [&str; 4] = ["algorithm", "mechanism", "sampler", "method"];

/// Lines of a combined table: label and finite (x, y) points in row order.
pub fn lines(t: &Table, overlay: &Overlay, point_col: usize) -> Result<Vec<Line>, DrawError> {
    let x = t.col(overlay.x)?;
    let y = t.col(overlay.y)?;
    let series: Vec<usize> = overlay
        .series
        .iter()
        .map(|c| t.col(c))
        .collect::<Result<_, _>>()?;
    let mut out: Vec<Line> = Vec::new();
    for i in 0..t.rows.len() {
        let (xv, yv) = (t.f(i, x), t.f(i, y));
        if !xv.is_finite() || !yv.is_finite() {
            continue;
        }
        let mut label = t.s(i, point_col);
        for (&c, name) in series.iter().zip(overlay.series) {
            label.push_str(" · ");
            let value = t.s(i, c);
            // mechanisms by their display names, as in the figures
            if MECHANISM_COLUMNS.contains(name) {
                label.push_str(&style::series(&value, 0).label);
            } else {
                label.push_str(&value);
            }
        }
        match out.iter().position(|(l, _)| *l == label) {
            Some(k) => out[k].1.push((xv, yv)),
            None if out.len() < MAX_LINES => out.push((label, vec![(xv, yv)])),
            None => {}
        }
    }
    if out.is_empty() {
        return Err(DrawError(format!(
            "no row has finite `{}` and `{}`",
            overlay.x, overlay.y
        )));
    }
    Ok(out)
}

/// The overlay chart.
pub struct OverlayChart {
    pub title: String,
    pub x: String,
    pub y: String,
    pub lines: Vec<Line>,
}

/// Positive values spanning more than two decades are drawn on a log scale.
fn wide_positive(values: impl Iterator<Item = f64>) -> bool {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for v in values {
        if v <= 0.0 {
            return false;
        }
        lo = lo.min(v);
        hi = hi.max(v);
    }
    hi / lo > 100.0
}

fn padded(lo: f64, hi: f64) -> (f64, f64) {
    if hi > lo {
        let pad = (hi - lo) * 0.05;
        (lo - pad, hi + pad)
    } else {
        let pad = lo.abs().max(1.0) * 0.05;
        (lo - pad, hi + pad)
    }
}

impl OverlayChart {
    /// Colour and marker of line `k`: the house sequence of colours, then again
    /// with the next marker.
    fn look(k: usize) -> (RGBColor, Marker) {
        use Marker::*;
        (
            style::sequence(k),
            [Circle, Square, Triangle, Diamond, Cross, Ring][(k / 7) % 6],
        )
    }

    fn entries(&self) -> Vec<Entry> {
        self.lines
            .iter()
            .enumerate()
            .map(|(k, (label, _))| {
                let (color, marker) = Self::look(k);
                Entry {
                    label: label.clone(),
                    color,
                    marker: Some(marker),
                    line: true,
                    dashed: false,
                }
            })
            .collect()
    }
}

impl Draw for OverlayChart {
    fn size(&self) -> (u32, u32) {
        (1200, 700 + style::legend_height(&self.entries(), 1200))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let entries = self.entries();
        let (area, legend_area) = style::with_legend(root, &entries);
        let log_x = wide_positive(self.lines.iter().flat_map(|(_, p)| p.iter().map(|q| q.0)));
        let log_y = wide_positive(self.lines.iter().flat_map(|(_, p)| p.iter().map(|q| q.1)));
        let map = |(x, y): (f64, f64)| {
            (
                if log_x { x.log10() } else { x },
                if log_y { y.log10() } else { y },
            )
        };
        let lines: Vec<Vec<(f64, f64)>> = self
            .lines
            .iter()
            .map(|(_, p)| p.iter().map(|&q| map(q)).collect())
            .collect();
        let (mut x0, mut x1, mut y0, mut y1) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for &(x, y) in lines.iter().flatten() {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        let (x0, x1) = padded(x0, x1);
        let (y0, y1) = padded(y0, y1);
        let mut chart = ChartBuilder::on(&area)
            .caption(&self.title, ("sans-serif", style::TITLE))
            .margin(12)
            .margin_right(30)
            .x_label_area_size(style::X_AREA)
            .y_label_area_size(style::Y_AREA + 20)
            .build_cartesian_2d(crate::plot::axis(x0..x1)?, crate::plot::axis(y0..y1)?)?;
        // on a log axis only the decades are labelled
        let log_tick = |log: bool, v: &f64| {
            if !log {
                tick(v)
            } else if (v - v.round()).abs() < 1e-9 {
                tick(&10f64.powf(v.round()))
            } else {
                String::new()
            }
        };
        let x_tick = |v: &f64| log_tick(log_x, v);
        let y_tick = |v: &f64| log_tick(log_y, v);
        let desc = |name: &str, log: bool| {
            if log {
                format!("{name} (log scale)")
            } else {
                name.to_string()
            }
        };
        style::mesh(&mut chart)
            .x_desc(desc(&self.x, log_x))
            .y_desc(desc(&self.y, log_y))
            .x_label_formatter(&x_tick)
            .y_label_formatter(&y_tick)
            .light_line_style(RGBColor(235, 235, 235))
            .draw()?;
        for (k, pts) in lines.iter().enumerate() {
            let (color, marker) = Self::look(k);
            let line = ShapeStyle::from(&color).stroke_width(style::LINE);
            chart.draw_series(LineSeries::new(pts.iter().copied(), line))?;
            chart.draw_series(pts.iter().map(|&p| Mark::new(p, marker, color, 6)))?;
        }
        style::legend_strip(&legend_area, &entries)?;
        Ok(())
    }
}
