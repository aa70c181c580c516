//! A grid of panels, each with mean ± s.e. curves: the layout of the
//! logistic-regression figures and of the HMM sweeps (Foulds Fig. 6, recovery).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{legend, tick, Band, Draw, DrawError, PALETTE};

/// Panels in a rows × cols grid, each a set of (x, mean, se) series.
pub struct PanelGrid {
    pub rows: usize,
    pub cols: usize,
    pub panels: Vec<(String, Vec<Band>)>,
    pub x_desc: String,
    pub y_desc: String,
    /// series names in legend/colour order
    pub order: Vec<String>,
    /// the legend label of a series name
    pub label: fn(&str) -> String,
}

impl Draw for PanelGrid {
    fn size(&self) -> (u32, u32) {
        (480 * self.cols.max(1) as u32, 400 * self.rows.max(1) as u32)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), DrawError>
    where
        DB::ErrorType: 'static,
    {
        let areas = root.split_evenly((self.rows.max(1), self.cols.max(1)));
        for (k, ((title, bands), area)) in self.panels.iter().zip(areas.iter()).enumerate() {
            let pts = bands
                .iter()
                .flat_map(|b| b.1.iter())
                .filter(|p| p.1.is_finite());
            let (mut x_lo, mut x_hi, mut y_lo, mut y_hi) = (
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::INFINITY,
                f64::NEG_INFINITY,
            );
            for p in pts {
                x_lo = x_lo.min(p.0);
                x_hi = x_hi.max(p.0);
                y_lo = y_lo.min(p.1 - p.2.max(0.0));
                y_hi = y_hi.max(p.1 + p.2.max(0.0));
            }
            if !x_lo.is_finite() {
                continue;
            }
            if x_hi <= x_lo {
                x_hi = x_lo + 1.0;
            }
            let pad = 0.06 * (y_hi - y_lo).max(1e-3);
            let (x_lo, x_hi) = (x_lo - 0.2, x_hi + 0.2);
            let (y_lo, y_hi) = (y_lo - pad, y_hi + pad);
            let mut chart = ChartBuilder::on(area)
                .caption(title, ("sans-serif", 19))
                .margin(10)
                .x_label_area_size(38)
                .y_label_area_size(58)
                .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)?;
            chart
                .configure_mesh()
                .x_desc(self.x_desc.as_str())
                .y_desc(self.y_desc.as_str())
                .x_label_formatter(&tick)
                .y_label_formatter(&tick)
                .label_style(("sans-serif", 14))
                .draw()?;
            for (name, pts) in bands {
                let i = self.order.iter().position(|o| o == name).unwrap_or(0);
                let color = PALETTE[i % PALETTE.len()];
                let style = ShapeStyle::from(&color).stroke_width(2);
                let line: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, p.1)).collect();
                chart
                    .draw_series(LineSeries::new(line, style))?
                    .label((self.label)(name))
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], style));
                chart.draw_series(pts.iter().map(|&(x, m, s)| {
                    ErrorBar::new_vertical(x, m - s, m, m + s, color.stroke_width(1), 6)
                }))?;
            }
            if k == 0 {
                legend(&mut chart, SeriesLabelPosition::UpperRight, 12)?;
            }
        }
        Ok(())
    }
}
